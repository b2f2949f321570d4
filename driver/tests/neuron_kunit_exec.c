// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: KUnit suite of the model validator (part of neuron_kunit.ko):
 *   neuron_tpb - neuron_tpb_check_block() against docs/sim-isa.md: every
 *   opcode accepted in its valid form, and each rule refusing the
 *   instruction that breaks it, at the right index.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include <neuron.h>

#include "neuron_exec.h"
#include "tests/neuron_kunit.h"

/* Regions: data 4 KiB (ro), scratch 4 KiB, slot 0 input 64 B, slot 1 output 64 B. */
static void tpb_limits(struct neuron_tpb_limits *lim)
{
	memset(lim, 0, sizeof(*lim));
	lim->nregions = 4;
	lim->region_size[NEURON_REGION_DATA] = 4096;
	lim->region_ro[NEURON_REGION_DATA] = true;
	lim->region_size[NEURON_REGION_SCRATCH] = 4096;
	lim->region_size[NEURON_REGION_SLOT(0)] = 64;
	lim->region_ro[NEURON_REGION_SLOT(0)] = true;
	lim->region_size[NEURON_REGION_SLOT(1)] = 64;
	lim->sems = 32;
	lim->events = 16;
}

static struct neuron_tpb_ref ref(u32 region, u32 offset)
{
	return (struct neuron_tpb_ref){ .region = region, .offset = offset };
}

/* A valid MATMUL: scratch[4x4] = data[4x4] * data[4x4]. */
static struct neuron_tpb_insn matmul(void)
{
	return (struct neuron_tpb_insn){
		.opcode = NEURON_TPB_MATMUL, .m = 4, .k = 4, .n = 4,
		.dst = ref(NEURON_REGION_SCRATCH, 0),
		.a = ref(NEURON_REGION_DATA, 0), .b = ref(NEURON_REGION_DATA, 64),
	};
}

static const struct neuron_tpb_insn end_insn = { .opcode = NEURON_TPB_END };

/* Check [@in, END] on @engine: the return value, and the index refused. */
static int check2(struct neuron_tpb_insn in, u32 engine, u32 *bad)
{
	struct neuron_tpb_insn b[2] = { in, end_insn };
	struct neuron_tpb_limits lim;

	tpb_limits(&lim);
	*bad = ~0U;
	return neuron_tpb_check_block(b, 2, engine, &lim, bad);
}

static void tpb_valid_forms(struct kunit *test)
{
	struct neuron_tpb_insn in;
	u32 bad;

	KUNIT_EXPECT_EQ(test, check2(matmul(), NEURON_ENGINE_PE, &bad), 0);
	in = matmul();
	in.func = NEURON_TPB_ACCUMULATE;
	in.dtype = NEURON_DT_INT32;
	KUNIT_EXPECT_EQ(test, check2(in, NEURON_ENGINE_PE, &bad), 0);
	in = (struct neuron_tpb_insn){ .opcode = NEURON_TPB_ACT, .func = NEURON_ACT_TANH,
				       .n = 16, .dst = ref(NEURON_REGION_SLOT(1), 0),
				       .a = ref(NEURON_REGION_SLOT(0), 0) };
	KUNIT_EXPECT_EQ(test, check2(in, NEURON_ENGINE_ACT, &bad), 0);
	in = (struct neuron_tpb_insn){ .opcode = NEURON_TPB_POOL, .func = NEURON_POOL_AVG,
				       .m = 2, .n = 2, .k = 4,
				       .dst = ref(NEURON_REGION_SCRATCH, 0),
				       .a = ref(NEURON_REGION_SLOT(0), 0) };
	KUNIT_EXPECT_EQ(test, check2(in, NEURON_ENGINE_POOL, &bad), 0);
	in = (struct neuron_tpb_insn){ .opcode = NEURON_TPB_TT,
				       .func = NEURON_ALU_ADD | NEURON_TPB_BCAST,
				       .m = 4, .n = 4, .dst = ref(NEURON_REGION_SLOT(1), 0),
				       .a = ref(NEURON_REGION_SCRATCH, 0),
				       .b = ref(NEURON_REGION_DATA, 4080) };
	KUNIT_EXPECT_EQ(test, check2(in, NEURON_ENGINE_DVE, &bad), 0);
	in = (struct neuron_tpb_insn){ .opcode = NEURON_TPB_SEM_WAIT, .index = 31, .imm = 2 };
	KUNIT_EXPECT_EQ(test, check2(in, NEURON_ENGINE_SP, &bad), 0);
	in = (struct neuron_tpb_insn){ .opcode = NEURON_TPB_EVENT_SET, .index = 15, .imm = 1 };
	KUNIT_EXPECT_EQ(test, check2(in, NEURON_ENGINE_ACT, &bad), 0);
	in = (struct neuron_tpb_insn){ .opcode = NEURON_TPB_JUMP, .imm = 1 };
	KUNIT_EXPECT_EQ(test, check2(in, NEURON_ENGINE_POOL, &bad), 0);
	in = (struct neuron_tpb_insn){ .opcode = NEURON_TPB_COPY, .n = 1024,
				       .dst = ref(NEURON_REGION_SCRATCH, 0),
				       .a = ref(NEURON_REGION_DATA, 0) };
	KUNIT_EXPECT_EQ(test, check2(in, NEURON_ENGINE_SP, &bad), 0);
}

static void tpb_refusals(struct kunit *test)
{
	struct neuron_tpb_insn in;
	u32 bad;

#define REFUSED(_in, _engine) do {					\
		KUNIT_EXPECT_EQ(test, check2(_in, _engine, &bad), -ENOEXEC); \
		KUNIT_EXPECT_EQ(test, bad, 0U);				\
	} while (0)

	in = matmul();
	in.opcode = 0x21;			/* unknown opcode */
	REFUSED(in, NEURON_ENGINE_PE);
	REFUSED(matmul(), NEURON_ENGINE_DVE);	/* wrong engine */
	in = matmul();
	in.dtype = 2;
	REFUSED(in, NEURON_ENGINE_PE);
	in = matmul();
	in.flags = 1;
	REFUSED(in, NEURON_ENGINE_PE);
	in = matmul();
	in.index = 1;				/* unused field */
	REFUSED(in, NEURON_ENGINE_PE);
	in = matmul();
	in.m = 0;
	REFUSED(in, NEURON_ENGINE_PE);
	in = matmul();
	in.k = NEURON_TPB_MAX_DIM + 1;
	REFUSED(in, NEURON_ENGINE_PE);
	in = matmul();
	in.b.offset = 4096 - 60;		/* past the region's end */
	REFUSED(in, NEURON_ENGINE_PE);
	in = matmul();
	in.a.offset = 2;			/* misaligned */
	REFUSED(in, NEURON_ENGINE_PE);
	in = matmul();
	in.dst = ref(NEURON_REGION_DATA, 0);	/* read-only data */
	REFUSED(in, NEURON_ENGINE_PE);
	in = matmul();
	in.dst = ref(NEURON_REGION_SLOT(0), 0);	/* an input slot */
	REFUSED(in, NEURON_ENGINE_PE);
	in = matmul();
	in.a = ref(NEURON_REGION_SLOT(2), 0);	/* no such slot */
	REFUSED(in, NEURON_ENGINE_PE);
	in = (struct neuron_tpb_insn){ .opcode = NEURON_TPB_ACT, .func = NEURON_ACT_SIGMOID,
				       .dtype = NEURON_DT_INT32, .n = 4,
				       .dst = ref(NEURON_REGION_SCRATCH, 0),
				       .a = ref(NEURON_REGION_SCRATCH, 16) };
	REFUSED(in, NEURON_ENGINE_ACT);		/* sigmoid of int32 */
	in = (struct neuron_tpb_insn){ .opcode = NEURON_TPB_SEM_SIGNAL, .index = 32, .imm = 1 };
	REFUSED(in, NEURON_ENGINE_SP);		/* semaphore out of range */
	in = (struct neuron_tpb_insn){ .opcode = NEURON_TPB_SEM_SIGNAL, .index = 0 };
	REFUSED(in, NEURON_ENGINE_SP);		/* signal of 0 */
	in = (struct neuron_tpb_insn){ .opcode = NEURON_TPB_EVENT_WAIT, .index = 0, .imm = 2 };
	REFUSED(in, NEURON_ENGINE_SP);
	in = (struct neuron_tpb_insn){ .opcode = NEURON_TPB_JUMP, .imm = 2 };
	REFUSED(in, NEURON_ENGINE_SP);		/* out of the block */
	in = (struct neuron_tpb_insn){ .opcode = NEURON_TPB_TS, .func = NEURON_ALU_ADD |
				       NEURON_TPB_BCAST, .m = 1, .n = 1,
				       .dst = ref(NEURON_REGION_SCRATCH, 0),
				       .a = ref(NEURON_REGION_SCRATCH, 0) };
	REFUSED(in, NEURON_ENGINE_DVE);		/* BCAST is TT's only */
	in = (struct neuron_tpb_insn){ .opcode = NEURON_TPB_END, .imm = 1 };
	REFUSED(in, NEURON_ENGINE_SP);
#undef REFUSED
}

/* A block that does not end with END or JUMP is refused at its length. */
static void tpb_no_end(struct kunit *test)
{
	struct neuron_tpb_insn b[2] = { matmul(), matmul() };
	struct neuron_tpb_limits lim;
	u32 bad = 0;

	tpb_limits(&lim);
	KUNIT_EXPECT_EQ(test, neuron_tpb_check_block(b, 2, NEURON_ENGINE_PE, &lim, &bad),
			-ENOEXEC);
	KUNIT_EXPECT_EQ(test, bad, 2U);
	b[1] = (struct neuron_tpb_insn){ .opcode = NEURON_TPB_JUMP, .imm = 0 };
	KUNIT_EXPECT_EQ(test, neuron_tpb_check_block(b, 2, NEURON_ENGINE_PE, &lim, &bad), 0);
	/* The first bad instruction is the one named. */
	b[0].opcode = 0;
	KUNIT_EXPECT_EQ(test, neuron_tpb_check_block(b, 2, NEURON_ENGINE_PE, &lim, &bad),
			-ENOEXEC);
	KUNIT_EXPECT_EQ(test, bad, 0U);
}

/* The element count is checked in 64 bits: m * k cannot wrap. */
static void tpb_extent_overflow(struct kunit *test)
{
	struct neuron_tpb_insn in = matmul();
	u32 bad;

	in.m = NEURON_TPB_MAX_DIM;
	in.k = NEURON_TPB_MAX_DIM;
	KUNIT_EXPECT_EQ(test, check2(in, NEURON_ENGINE_PE, &bad), -ENOEXEC);
	in = matmul();
	in.a.offset = 0xfffffffc;
	KUNIT_EXPECT_EQ(test, check2(in, NEURON_ENGINE_PE, &bad), -ENOEXEC);
}

/* A slot of @ndim dimensions @d0..@d3 and @size bytes. */
static struct neuron_model_slot slot(u32 size, u32 ndim, u32 d0, u32 d1, u32 d2,
				     u32 d3)
{
	struct neuron_model_slot s = {
		.kind = NEURON_SLOT_INPUT, .dtype = NEURON_DT_FP32, .size = size,
		.ndim = ndim, .shape = { d0, d1, d2, d3 },
	};

	return s;
}

/*
 * Slot shapes: the element count times 4 must be the size, computed
 * without wrapping (the shapes below passed as 16 and 32 bytes when the
 * products wrapped in 64 bits).
 */
static void slot_shapes(struct kunit *test)
{
	static const struct {
		u32 size, ndim, d[4];
		int ret;
	} cases[] = {
		{ 64, 2, { 4, 4 }, 0 },
		{ 64, 0, { 0 }, 0 },
		{ 60, 2, { 4, 4 }, -EINVAL },
		{ 64, 2, { 4 }, -EINVAL },
		{ 64, 1, { 16, 0, 0, 7 }, -EINVAL },
		/* 2^64 + 4 elements, once taken for 4 (16 bytes). */
		{ 16, 4, { 111620, 49477, 8681, 384773 }, -EINVAL },
		/* 2^64 elements, once taken for 0. */
		{ 0, 4, { 65536, 65536, 65536, 65536 }, -EINVAL },
		/* 2^62 + 8 elements: times 4 it wrapped to 32 bytes. */
		{ 32, 4, { 24, 2833, 37171, 1824726041 }, -EINVAL },
		/* 2^62 elements: the count fits, times 4 does not. */
		{ 0, 4, { 65536, 65536, 65536, 16384 }, -EINVAL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct neuron_model_slot s = slot(cases[i].size, cases[i].ndim,
						  cases[i].d[0], cases[i].d[1],
						  cases[i].d[2], cases[i].d[3]);

		KUNIT_EXPECT_EQ_MSG(test, neuron_model_slot_check(&s), cases[i].ret,
				    "slot case %u", i);
	}
}

NEURON_KUNIT_SUITE(neuron_tpb,
		   KUNIT_CASE(tpb_valid_forms),
		   KUNIT_CASE(tpb_refusals),
		   KUNIT_CASE(tpb_no_end),
		   KUNIT_CASE(tpb_extent_overflow),
		   KUNIT_CASE(slot_shapes));

kunit_test_suite(neuron_tpb_suite);
