// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: KUnit suite of the arch register maps (part of neuron_kunit.ko):
 *   neuron_regs - every accessor of driver/ndhal/ndhal_regs.h against offsets
 *                 worked out by hand from docs/hw-facts.md, the bounds
 *                 checks, that each map agrees with its arch's geometry,
 *                 and the firmware's TPB reset maps (ndhal_silicon.h)
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/sort.h>

#include <neuron.h>

#include "ndhal/ndhal.h"
#include "ndhal/ndhal_regs.h"
#include "ndhal/ndhal_silicon.h"
#include "tests/neuron_kunit.h"

static const struct ndhal_arch *const regs_archs[] = {
	&ndhal_arch_v1, &ndhal_arch_v2, &ndhal_arch_v3,
};

/* ---- expected offsets ---- */

struct regs_engine_row {
	const struct ndhal_arch *arch;
	u32 engine;
	s64 off;
};

static const struct regs_engine_row regs_engine_rows[] = {
	/* v2: NeuronCore 0, NeuronCore 1, then the two host-facing ones. */
	{ &ndhal_arch_v2, 0, 0x30000000 },
	{ &ndhal_arch_v2, 15, 0x303c0000 },
	{ &ndhal_arch_v2, 16, 0x30700000 },
	{ &ndhal_arch_v2, 31, 0x30ac0000 },
	{ &ndhal_arch_v2, 32, 0x30600000 },
	{ &ndhal_arch_v2, 33, 0x30d00000 },
	/* v3: each engine group (die 0: 0-63, die 1: 64-127), then host. */
	{ &ndhal_arch_v3, 0, 0x82000000 },
	{ &ndhal_arch_v3, 31, 0x83f00000 },
	{ &ndhal_arch_v3, 32, 0x94000000 },
	{ &ndhal_arch_v3, 63, 0x95f00000 },
	{ &ndhal_arch_v3, 64, 0xa2000000 },
	{ &ndhal_arch_v3, 96, 0xb4000000 },
	{ &ndhal_arch_v3, 127, 0xb5f00000 },
	{ &ndhal_arch_v3, 128, 0x06800000 },
	{ &ndhal_arch_v3, 129, 0x06900000 },
	{ &ndhal_arch_v3, 130, 0x46800000 },
	{ &ndhal_arch_v3, 131, 0x46900000 },
	/* v1: NeuronCore 0's first and last, NeuronCore 1's first, the last. */
	{ &ndhal_arch_v1, 0, 0x040000 },
	{ &ndhal_arch_v1, 2, 0x0c0000 },
	{ &ndhal_arch_v1, 3, 0x140000 },
	{ &ndhal_arch_v1, 11, 0x3c0000 },
};

static void regs_dma_engines(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(regs_engine_rows); i++) {
		const struct regs_engine_row *r = &regs_engine_rows[i];

		KUNIT_EXPECT_EQ_MSG(test, __ndhal_dma_engine_offset(r->arch, r->engine),
				    r->off, "%s engine %u", r->arch->name, r->engine);
		KUNIT_EXPECT_EQ_MSG(test, ndhal_dma_engine_offset(r->arch, r->engine),
				    r->off, "%s engine %u", r->arch->name, r->engine);
	}
}

struct regs_queue_row {
	const struct ndhal_arch *arch;
	u32 engine;
	u32 queue;
	enum ndhal_dma_dir dir;
	enum ndhal_dma_qreg reg;
	s64 off;
};

static const struct regs_queue_row regs_queue_rows[] = {
	{ &ndhal_arch_v2, 0, 0, NDHAL_DMA_TX, NDHAL_DMA_Q_RING_BASE_LO, 0x30001028 },
	{ &ndhal_arch_v2, 0, 0, NDHAL_DMA_TX, NDHAL_DMA_Q_TAIL_INC, 0x30001038 },
	{ &ndhal_arch_v2, 0, 0, NDHAL_DMA_RX, NDHAL_DMA_Q_TAIL_INC, 0x30021038 },
	{ &ndhal_arch_v2, 16, 0, NDHAL_DMA_TX, NDHAL_DMA_Q_RING_CFG, 0x30701020 },
	{ &ndhal_arch_v2, 16, 0, NDHAL_DMA_RX, NDHAL_DMA_Q_RING_CFG, 0x30721020 },
	{ &ndhal_arch_v2, 31, 7, NDHAL_DMA_TX, NDHAL_DMA_Q_HEAD, 0x30ac8034 },
	{ &ndhal_arch_v2, 32, 1, NDHAL_DMA_RX, NDHAL_DMA_Q_RING_LEN, 0x30622030 },
	{ &ndhal_arch_v2, 33, 15, NDHAL_DMA_TX, NDHAL_DMA_Q_SW_CTRL, 0x30d100b0 },
	{ &ndhal_arch_v2, 33, 15, NDHAL_DMA_RX, NDHAL_DMA_Q_SW_CTRL, 0x30d30064 },
	{ &ndhal_arch_v3, 0, 0, NDHAL_DMA_TX, NDHAL_DMA_Q_RING_CFG, 0x82001020 },
	{ &ndhal_arch_v3, 5, 2, NDHAL_DMA_TX, NDHAL_DMA_Q_RATE_MASK, 0x82503074 },
	{ &ndhal_arch_v3, 64, 3, NDHAL_DMA_TX, NDHAL_DMA_Q_RING_BASE_HI, 0xa200402c },
	{ &ndhal_arch_v3, 127, 15, NDHAL_DMA_RX, NDHAL_DMA_Q_TAIL, 0xb5f3003c },
	{ &ndhal_arch_v3, 128, 0, NDHAL_DMA_TX, NDHAL_DMA_Q_TAIL_INC, 0x06801038 },
	{ &ndhal_arch_v3, 129, 1, NDHAL_DMA_RX, NDHAL_DMA_Q_TAIL_INC, 0x06922038 },
	{ &ndhal_arch_v3, 130, 0, NDHAL_DMA_TX, NDHAL_DMA_Q_COMPL_CFG, 0x468010a0 },
	{ &ndhal_arch_v3, 130, 0, NDHAL_DMA_RX, NDHAL_DMA_Q_COMPL_CFG, 0x46821054 },
	{ &ndhal_arch_v3, 131, 15, NDHAL_DMA_TX, NDHAL_DMA_Q_RING_LEN, 0x46910030 },
	{ &ndhal_arch_v3, 131, 15, NDHAL_DMA_RX, NDHAL_DMA_Q_SW_CTRL, 0x46930064 },
	{ &ndhal_arch_v1, 0, 0, NDHAL_DMA_TX, NDHAL_DMA_Q_TAIL_INC, 0x041038 },
	{ &ndhal_arch_v1, 11, 15, NDHAL_DMA_RX, NDHAL_DMA_Q_TAIL_INC, 0x3f0038 },
};

static void regs_dma_queues(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(regs_queue_rows); i++) {
		const struct regs_queue_row *r = &regs_queue_rows[i];

		KUNIT_EXPECT_EQ_MSG(test,
				    __ndhal_dma_queue_reg(r->arch, r->engine, r->queue,
							  r->dir, r->reg),
				    r->off, "%s engine %u queue %u dir %d reg %d",
				    r->arch->name, r->engine, r->queue, r->dir, r->reg);
		KUNIT_EXPECT_EQ_MSG(test,
				    ndhal_dma_queue_reg(r->arch, r->engine, r->queue,
							r->dir, r->reg),
				    r->off, "%s engine %u queue %u dir %d reg %d",
				    r->arch->name, r->engine, r->queue, r->dir, r->reg);
	}
	/* A queue's block: the first register of each row's block minus 0x20. */
	KUNIT_EXPECT_EQ(test, ndhal_dma_queue_offset(&ndhal_arch_v2, 33, 15, NDHAL_DMA_RX),
			0x30d30000);
	KUNIT_EXPECT_EQ(test, ndhal_dma_queue_offset(&ndhal_arch_v3, 0, 0, NDHAL_DMA_TX),
			0x82001000);
}

struct regs_nq_row {
	const struct ndhal_arch *arch;
	u32 nc;
	u32 slot;
	enum ndhal_nq_reg reg;
	s64 off;
};

static const struct regs_nq_row regs_nq_rows[] = {
	{ &ndhal_arch_v2, 0, 0, NDHAL_NQ_BASE_LO, 0x30535100 },
	{ &ndhal_arch_v2, 0, 1, NDHAL_NQ_BASE_HI, 0x3053512c },
	{ &ndhal_arch_v2, 1, 15, NDHAL_NQ_BASE_LO, 0x30c35358 },
	{ &ndhal_arch_v2, 1, 95, NDHAL_NQ_SIZE, 0x30c35fe0 },
	{ &ndhal_arch_v3, 0, 0, NDHAL_NQ_BASE_HI, 0x06001104 },
	{ &ndhal_arch_v3, 3, 1, NDHAL_NQ_BASE_LO, 0x06581128 },
	{ &ndhal_arch_v3, 4, 15, NDHAL_NQ_SIZE, 0x46001360 },
	{ &ndhal_arch_v3, 7, 95, NDHAL_NQ_BASE_LO, 0x46581fd8 },
};

static void regs_notify(struct kunit *test)
{
	static const s64 v3_blocks[] = {
		0x06001000, 0x06181000, 0x06401000, 0x06581000,
		0x46001000, 0x46181000, 0x46401000, 0x46581000,
	};
	int i;

	KUNIT_EXPECT_EQ(test, ndhal_notify_block_offset(&ndhal_arch_v2, 0), 0x30535000);
	KUNIT_EXPECT_EQ(test, ndhal_notify_block_offset(&ndhal_arch_v2, 1), 0x30c35000);
	for (i = 0; i < ARRAY_SIZE(v3_blocks); i++)
		KUNIT_EXPECT_EQ_MSG(test, ndhal_notify_block_offset(&ndhal_arch_v3, i),
				    v3_blocks[i], "v3 nc %d", i);
	for (i = 0; i < ARRAY_SIZE(regs_nq_rows); i++) {
		const struct regs_nq_row *r = &regs_nq_rows[i];

		KUNIT_EXPECT_EQ_MSG(test, __ndhal_notify_slot_reg(r->arch, r->nc, r->slot, r->reg),
				    r->off, "%s nc %u slot %u reg %d",
				    r->arch->name, r->nc, r->slot, r->reg);
		KUNIT_EXPECT_EQ_MSG(test, ndhal_notify_slot_reg(r->arch, r->nc, r->slot, r->reg),
				    r->off, "%s nc %u slot %u reg %d",
				    r->arch->name, r->nc, r->slot, r->reg);
	}
}

static void regs_sema_events(struct kunit *test)
{
	const struct ndhal_arch *v2 = &ndhal_arch_v2, *v3 = &ndhal_arch_v3;

	KUNIT_EXPECT_EQ(test, ndhal_sema_block_offset(v2, 0), 0x02700000);
	KUNIT_EXPECT_EQ(test, ndhal_sema_block_offset(v2, 1), 0x06700000);
	KUNIT_EXPECT_EQ(test, ndhal_sema_block_offset(v3, 0), 0xd2700000);
	KUNIT_EXPECT_EQ(test, ndhal_sema_block_offset(v3, 2), 0xda700000);
	KUNIT_EXPECT_EQ(test, ndhal_sema_block_offset(v3, 7), 0xee700000);
	KUNIT_EXPECT_EQ(test, ndhal_sema_block_size(v2), 0x2000);
	KUNIT_EXPECT_EQ(test, ndhal_sema_block_size(v3), 0x2000);

	KUNIT_EXPECT_EQ(test, ndhal_event_reg(v2, 0, 0), 0x02700000);
	KUNIT_EXPECT_EQ(test, ndhal_event_reg(v2, 0, 255), 0x027003fc);
	KUNIT_EXPECT_EQ(test, ndhal_event_reg(v3, 0, 255), 0xd27003fc);
	KUNIT_EXPECT_EQ(test, ndhal_event_reg(v3, 5, 1), 0xe6700004);
	KUNIT_EXPECT_EQ(test, __ndhal_event_reg(v3, 7, 0), 0xee700000);

	KUNIT_EXPECT_EQ(test, ndhal_sema_reg(v2, 0, 0, NDHAL_SEMA_READ), 0x02701000);
	KUNIT_EXPECT_EQ(test, ndhal_sema_reg(v2, 1, 3, NDHAL_SEMA_SET), 0x0670140c);
	KUNIT_EXPECT_EQ(test, ndhal_sema_reg(v2, 1, 255, NDHAL_SEMA_DEC), 0x06701ffc);
	KUNIT_EXPECT_EQ(test, ndhal_sema_reg(v3, 1, 1, NDHAL_SEMA_READ), 0xd6701004);
	KUNIT_EXPECT_EQ(test, ndhal_sema_reg(v3, 4, 10, NDHAL_SEMA_SET), 0xe2701428);
	KUNIT_EXPECT_EQ(test, ndhal_sema_reg(v3, 7, 0, NDHAL_SEMA_INC), 0xee701800);
	KUNIT_EXPECT_EQ(test, __ndhal_sema_reg(v3, 7, 255, NDHAL_SEMA_DEC), 0xee701ffc);
}

/* ---- bounds: the quiet variants (a warning would fail the test run) ---- */

static void regs_bounds_dma(struct kunit *test)
{
	struct ndhal_arch bigger = ndhal_arch_v2, nomap = ndhal_arch_v2;
	const struct ndhal_arch *v2 = &ndhal_arch_v2, *v3 = &ndhal_arch_v3;

	/* Engines: one past the last, and far out. */
	KUNIT_EXPECT_EQ(test, __ndhal_dma_engine_offset(v2, 34), -EINVAL);
	KUNIT_EXPECT_EQ(test, __ndhal_dma_engine_offset(v3, 132), -EINVAL);
	KUNIT_EXPECT_EQ(test, __ndhal_dma_engine_offset(&ndhal_arch_v1, 12), -EINVAL);
	KUNIT_EXPECT_EQ(test, __ndhal_dma_engine_offset(v3, U32_MAX), -EINVAL);
	/* A bad engine fails the queue and register accessors too. */
	KUNIT_EXPECT_EQ(test, __ndhal_dma_queue_offset(v3, 132, 0, NDHAL_DMA_TX), -EINVAL);
	KUNIT_EXPECT_EQ(test, __ndhal_dma_queue_reg(v2, 34, 0, NDHAL_DMA_TX,
						    NDHAL_DMA_Q_TAIL_INC), -EINVAL);
	/* Queues, directions, registers. */
	KUNIT_EXPECT_EQ(test, __ndhal_dma_queue_offset(v2, 0, 16, NDHAL_DMA_TX), -EINVAL);
	KUNIT_EXPECT_EQ(test, __ndhal_dma_queue_reg(v3, 131, 16, NDHAL_DMA_RX,
						    NDHAL_DMA_Q_TAIL_INC), -EINVAL);
	KUNIT_EXPECT_EQ(test, __ndhal_dma_queue_offset(v2, 0, 0, NDHAL_DMA_DIRS), -EINVAL);
	KUNIT_EXPECT_EQ(test, __ndhal_dma_queue_reg(v2, 0, 0, NDHAL_DMA_DIRS,
						    NDHAL_DMA_Q_RING_CFG), -EINVAL);
	KUNIT_EXPECT_EQ(test, __ndhal_dma_queue_reg(v2, 0, 0, NDHAL_DMA_TX,
						    NDHAL_DMA_Q_REGS), -EINVAL);
	/* The rate limiter mask exists on the TX side only. */
	KUNIT_EXPECT_EQ(test, __ndhal_dma_queue_reg(v3, 0, 0, NDHAL_DMA_RX,
						    NDHAL_DMA_Q_RATE_MASK), -ENOENT);
	KUNIT_EXPECT_GT(test, __ndhal_dma_queue_reg(v3, 0, 0, NDHAL_DMA_TX,
						    NDHAL_DMA_Q_RATE_MASK), 0);
	/* Geometry claiming an engine the map cannot place. */
	bigger.dma_engines = 35;
	KUNIT_EXPECT_EQ(test, __ndhal_dma_engine_offset(&bigger, 33), 0x30d00000);
	KUNIT_EXPECT_EQ(test, __ndhal_dma_engine_offset(&bigger, 34), -EINVAL);
	/* An arch without a map. */
	nomap.regs = NULL;
	KUNIT_EXPECT_EQ(test, __ndhal_dma_engine_offset(&nomap, 0), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, __ndhal_dma_queue_reg(&nomap, 0, 0, NDHAL_DMA_TX,
						    NDHAL_DMA_Q_TAIL_INC), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, __ndhal_notify_slot_reg(&nomap, 0, 0, NDHAL_NQ_SIZE),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, __ndhal_sema_reg(&nomap, 0, 0, NDHAL_SEMA_READ), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ndhal_sema_block_size(&nomap), 0);
}

static void regs_bounds_nc(struct kunit *test)
{
	const struct ndhal_arch *v1 = &ndhal_arch_v1, *v2 = &ndhal_arch_v2;
	const struct ndhal_arch *v3 = &ndhal_arch_v3;

	/* NeuronCores one past the last. */
	KUNIT_EXPECT_EQ(test, __ndhal_notify_block_offset(v2, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, __ndhal_notify_block_offset(v3, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, __ndhal_notify_slot_reg(v3, 8, 0, NDHAL_NQ_BASE_LO), -EINVAL);
	KUNIT_EXPECT_EQ(test, __ndhal_sema_block_offset(v2, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, __ndhal_event_reg(v3, 8, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, __ndhal_sema_reg(v3, 8, 0, NDHAL_SEMA_READ), -EINVAL);
	/* Slots, slot registers. */
	KUNIT_EXPECT_EQ(test, __ndhal_notify_slot_reg(v2, 0, 96, NDHAL_NQ_BASE_LO), -EINVAL);
	KUNIT_EXPECT_EQ(test, __ndhal_notify_slot_reg(v2, 0, 0, NDHAL_NQ_REGS), -EINVAL);
	/* Events, semaphores, operations. */
	KUNIT_EXPECT_EQ(test, __ndhal_event_reg(v2, 0, 256), -EINVAL);
	KUNIT_EXPECT_EQ(test, __ndhal_sema_reg(v3, 0, 256, NDHAL_SEMA_INC), -EINVAL);
	KUNIT_EXPECT_EQ(test, __ndhal_sema_reg(v3, 0, 0, NDHAL_SEMA_OPS), -EINVAL);
	/* v1 maps its DMA engines only. */
	KUNIT_EXPECT_EQ(test, __ndhal_notify_block_offset(v1, 0), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, __ndhal_notify_slot_reg(v1, 0, 0, NDHAL_NQ_SIZE), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, __ndhal_sema_block_offset(v1, 0), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, __ndhal_event_reg(v1, 0, 0), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, __ndhal_sema_reg(v1, 0, 0, NDHAL_SEMA_SET), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ndhal_sema_block_size(v1), 0);
}

static void regs_ring_check(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ndhal_dma_ring_check(0x1000, 4096), 0);
	KUNIT_EXPECT_EQ(test, ndhal_dma_ring_check(0x100, 32), 0);
	KUNIT_EXPECT_EQ(test, ndhal_dma_ring_check(0x1100, 48), 0);
	KUNIT_EXPECT_EQ(test, ndhal_dma_ring_check(0, BIT(24) - 16), 0);
	/* Base not 256-byte aligned. */
	KUNIT_EXPECT_EQ(test, ndhal_dma_ring_check(0x1080, 4096), -EINVAL);
	KUNIT_EXPECT_EQ(test, ndhal_dma_ring_check(0x1040, 4096), -EINVAL);
	/* Too short, too long, not a multiple of 16. */
	KUNIT_EXPECT_EQ(test, ndhal_dma_ring_check(0x1000, 16), -EINVAL);
	KUNIT_EXPECT_EQ(test, ndhal_dma_ring_check(0x1000, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ndhal_dma_ring_check(0x1000, BIT(24)), -EINVAL);
	KUNIT_EXPECT_EQ(test, ndhal_dma_ring_check(0x1000, 40), -EINVAL);
	/* Wrapping the address space. */
	KUNIT_EXPECT_EQ(test, ndhal_dma_ring_check(U64_MAX - 0xff, 32), -EINVAL);
	/* An aligned base loses nothing to the base low register's mask. */
	KUNIT_EXPECT_EQ(test, 0x12345600 & NDHAL_UDMA_BASE_LO_MASK, 0x12345600);
	KUNIT_EXPECT_EQ(test, (u32)~NDHAL_UDMA_BASE_LO_MASK & ~(NDHAL_UDMA_RING_ALIGN - 1), 0);
	KUNIT_EXPECT_EQ(test, NDHAL_UDMA_QCFG_RUNNING, 0x03030000);
}

/* ---- the maps agree with the geometry ---- */

static int regs_cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

static u32 regs_spans_placed(const struct ndhal_reg_span *s, u32 n)
{
	u32 i, placed = 0;

	for (i = 0; i < n; i++)
		placed += s[i].count;
	return placed;
}

static void regs_geometry_dma(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(regs_archs); i++) {
		const struct ndhal_arch *a = regs_archs[i];
		const struct ndhal_arch_regs *r = a->regs;
		const struct ndhal_udma_map *u;
		s64 *off;
		u32 e, d, q;

		KUNIT_ASSERT_NOT_NULL(test, r);
		KUNIT_ASSERT_NOT_NULL(test, r->dma_engines);
		KUNIT_ASSERT_NOT_NULL(test, r->udma);
		u = r->udma;
		/* The map places exactly the arch's engines, each once. */
		KUNIT_EXPECT_EQ_MSG(test, regs_spans_placed(r->dma_engines, r->dma_engine_spans),
				    a->dma_engines, "%s", a->name);
		off = kunit_kcalloc(test, a->dma_engines, sizeof(*off), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, off);
		for (e = 0; e < a->dma_engines; e++) {
			off[e] = __ndhal_dma_engine_offset(a, e);
			KUNIT_EXPECT_GE_MSG(test, off[e], 0, "%s engine %u", a->name, e);
			/* Whole window inside the 32-bit BAR offsets. */
			KUNIT_EXPECT_LE_MSG(test, (u64)off[e] + u->window, 1ULL << 32,
					    "%s engine %u", a->name, e);
		}
		KUNIT_EXPECT_EQ(test, __ndhal_dma_engine_offset(a, a->dma_engines), -EINVAL);
		/* No two engine windows overlap. */
		sort(off, a->dma_engines, sizeof(*off), regs_cmp_s64, NULL);
		for (e = 1; e < a->dma_engines; e++)
			KUNIT_EXPECT_GE_MSG(test, off[e] - off[e - 1], (s64)u->window,
					    "%s engines at %llx and %llx", a->name,
					    off[e - 1], off[e]);
		/* Every queue block, and every register, inside the window. */
		for (d = 0; d < NDHAL_DMA_DIRS; d++) {
			KUNIT_EXPECT_LE(test, u->queue_block[d] +
					(u64)a->dma_queues_per_engine * u->queue_stride,
					u->window);
			for (q = 0; q < NDHAL_DMA_Q_REGS; q++)
				if (u->queue_reg[d][q] != NDHAL_REG_NONE)
					KUNIT_EXPECT_LT(test, u->queue_reg[d][q],
							u->queue_stride);
		}
		/* The TX queue blocks end before the RX ones start. */
		KUNIT_EXPECT_LE(test, u->queue_block[NDHAL_DMA_TX] +
				(u64)a->dma_queues_per_engine * u->queue_stride,
				u->queue_block[NDHAL_DMA_RX]);
	}
}

static void regs_geometry_nc(struct kunit *test)
{
	const struct ndhal_arch *archs[] = { &ndhal_arch_v2, &ndhal_arch_v3 };
	int i;

	for (i = 0; i < ARRAY_SIZE(archs); i++) {
		const struct ndhal_arch *a = archs[i];
		const struct ndhal_arch_regs *r = a->regs;
		const struct ndhal_nq_map *m;
		const struct ndhal_sema_map *s;
		u32 nc, e, op;

		KUNIT_ASSERT_NOT_NULL(test, r->nc_notify);
		KUNIT_ASSERT_NOT_NULL(test, r->nq);
		KUNIT_ASSERT_NOT_NULL(test, r->nc_window);
		KUNIT_ASSERT_NOT_NULL(test, r->sema);
		m = r->nq;
		s = r->sema;
		KUNIT_EXPECT_EQ(test, regs_spans_placed(r->nc_notify, r->nc_notify_spans),
				a->nc_count);
		KUNIT_EXPECT_EQ(test, regs_spans_placed(r->nc_window, r->nc_window_spans),
				a->nc_count);
		/* Slots fill the notification block, registers fit a slot. */
		KUNIT_EXPECT_LE(test, m->slot0 + (u64)m->slots * m->slot_stride, m->block_size);
		for (op = 0; op < NDHAL_NQ_REGS; op++)
			KUNIT_EXPECT_LT(test, m->slot_reg[op], m->slot_stride);
		/* Events, then each operation's bank, hold the arch's counts. */
		KUNIT_EXPECT_LE(test, s->event + 4ULL * a->events_per_nc,
				s->sema[NDHAL_SEMA_READ]);
		for (op = 0; op < NDHAL_SEMA_OPS; op++)
			KUNIT_EXPECT_LE(test, s->sema[op] + 4ULL * a->semaphores_per_nc,
					op + 1 < NDHAL_SEMA_OPS ? s->sema[op + 1] :
					s->block_size);
		for (nc = 0; nc < a->nc_count; nc++) {
			s64 nq = __ndhal_notify_block_offset(a, nc);
			s64 sb = __ndhal_sema_block_offset(a, nc);

			KUNIT_EXPECT_GE(test, nq, 0);
			KUNIT_EXPECT_GE(test, sb, 0);
			/* Neither block overlaps a DMA engine's window. */
			for (e = 0; e < a->dma_engines; e++) {
				s64 w = __ndhal_dma_engine_offset(a, e);

				KUNIT_EXPECT_TRUE_MSG(test, nq + m->block_size <= w ||
						      nq >= w + r->udma->window,
						      "%s nc %u engine %u", a->name, nc, e);
				KUNIT_EXPECT_TRUE_MSG(test, sb + s->block_size <= w ||
						      sb >= w + r->udma->window,
						      "%s nc %u engine %u", a->name, nc, e);
			}
			/* Nor another NeuronCore's notification block. */
			if (nc)
				KUNIT_EXPECT_NE(test, nq, __ndhal_notify_block_offset(a, nc - 1));
		}
	}
	/* v1: the parts that are not mapped are NULL, not half filled. */
	KUNIT_EXPECT_NULL(test, ndhal_arch_v1.regs->nc_notify);
	KUNIT_EXPECT_NULL(test, ndhal_arch_v1.regs->nq);
	KUNIT_EXPECT_NULL(test, ndhal_arch_v1.regs->nc_window);
	KUNIT_EXPECT_NULL(test, ndhal_arch_v1.regs->sema);
}

/*
 * The TPB reset map of each NC (docs/hw-facts.md, "Reset"): the facts'
 * NC0 0x701 and NC1 0x3802 on v2, 0x0001_0101 << n on v3; no two NCs
 * share a bit, and bits 24-31 are never set.
 */
static void regs_tpb_reset_map(struct kunit *test)
{
	const struct ndhal_arch *archs[] = { &ndhal_arch_v2, &ndhal_arch_v3 };
	u32 nc, i, all;

	KUNIT_EXPECT_EQ(test, ndhal_arch_v2.silicon->tpb_reset_map(0), 0x701);
	KUNIT_EXPECT_EQ(test, ndhal_arch_v2.silicon->tpb_reset_map(1), 0x3802);
	for (nc = 0; nc < ndhal_arch_v3.nc_count; nc++)
		KUNIT_EXPECT_EQ(test, ndhal_arch_v3.silicon->tpb_reset_map(nc), 0x10101U << nc);
	for (i = 0; i < ARRAY_SIZE(archs); i++) {
		all = 0;
		for (nc = 0; nc < archs[i]->nc_count; nc++) {
			u32 map = archs[i]->silicon->tpb_reset_map(nc);

			KUNIT_EXPECT_EQ_MSG(test, map & all, 0, "%s nc %u", archs[i]->name, nc);
			KUNIT_EXPECT_EQ(test, map & GENMASK(31, 24), 0);
			KUNIT_EXPECT_TRUE(test, map & BIT(nc));
			all |= map;
		}
		KUNIT_EXPECT_NE(test, archs[i]->silicon->reset_give_up_ms, 0);
	}
}

NEURON_KUNIT_SUITE(neuron_regs,
		   KUNIT_CASE(regs_dma_engines),
		   KUNIT_CASE(regs_dma_queues),
		   KUNIT_CASE(regs_notify),
		   KUNIT_CASE(regs_sema_events),
		   KUNIT_CASE(regs_bounds_dma),
		   KUNIT_CASE(regs_bounds_nc),
		   KUNIT_CASE(regs_ring_check),
		   KUNIT_CASE(regs_geometry_dma),
		   KUNIT_CASE(regs_geometry_nc),
		   KUNIT_CASE(regs_tpb_reset_map));

kunit_test_suite(neuron_regs_suite);
