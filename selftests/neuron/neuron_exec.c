// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: models and execution (NEURON_CAP_EXEC, docs/sim-isa.md).
 *  - MATMUL of random fp32 and int32 matrices on several NCs, a 2-layer MLP
 *    over PE, DVE and ACT synchronised by semaphores, ACT, POOL, TS and TT
 *    against host reference functions (libneuron's assembler builds the
 *    programs);
 *  - engines ordered by semaphores and events, and a program waiting for a
 *    semaphore the host signals with NC_SEM;
 *  - every validation rule of MODEL_LOAD (-ENOEXEC with err_block and
 *    err_insn), its -EINVAL and -E2BIG cases, EXECUTE's argument checks;
 *  - run-time errors (int32 DIV by 0: -EDOM), hangs reset after the
 *    execution's timeout (a SEM_WAIT nobody signals, a JUMP to itself, the
 *    simulator's tpb_hang_nc) while another NC keeps working, the executions
 *    queued behind cancelled, the ERROR notification, tpb_error_nc and
 *    tpb_corrupt_nc;
 *  - several processes at once, contention for an NC, a full queue, unload
 *    with executions queued, close and SIGKILL while executing (the NC free
 *    at once, the memory back to its baseline);
 *  - the NOTIFY instruction's EVENT notification.
 * Runs on a v2 and a v3 device; the knob tests need the simulator.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stddef.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "neuron_test.h"

#define NSEC_PER_MSEC	1000000LL
/* Relative tolerance of fp32 results; absolute one of SIGMOID and TANH. */
#define FP_RTOL		0.00001f
#define ACT_ATOL	0.000001
/* Small inputs of ACT. */
#define TINY		0.0000001f
/* How long the kernel may take to free what a dead file held, in ms. */
#define SETTLE_MS	5000
/* A deadline for executions that must end (they end within 5 s). */
#define EXEC_DEADLINE_NS	(20000 * NSEC_PER_MSEC)

#define PARAM_TIMEOUT	"exec_timeout_ms"
#define PARAM_DEPTH	"exec_queue_depth"

/* ---- programs: libneuron's assembler (neuron_asm.h) ---- */

#define DATA(off)	NASM_DATA(off)
#define SCR(off)	NASM_SCR(off)
#define SLOT(i, off)	NASM_SLOT(i, off)
#define NOREF		NASM_NOREF

/* ---- memory, execution ---- */

/* Device memory of @size bytes on NC @nc: its handle, 0 on failure. */
static __u32 dev_alloc(int fd, __u32 nc, __u64 size)
{
	struct neuron_mem_alloc a;

	return neuron_mem_alloc(fd, NEURON_MEM_DEVICE, size, nc, &a) ? 0 : a.handle;
}

static int dev_write(int fd, __u32 h, const void *buf, size_t size)
{
	return neuron_copy_op(fd, 0, 0, h, 0, buf, NULL, size, 0, NULL);
}

static int dev_read(int fd, __u32 h, void *buf, size_t size)
{
	return neuron_copy_op(fd, h, 0, 0, 0, NULL, buf, size, 0, NULL);
}

static int exec_req(int fd, __u32 model, const __u32 *bind, __u32 nbind,
		    __u32 flags, __u32 timeout_ms, struct neuron_execute *x)
{
	nio_execute_prep(x, model, bind, nbind, flags, timeout_ms);
	/* Out fields: the driver must write them. */
	x->seqno = 0xdead;
	x->status = 0xdead;
	return neuron_ioctl(fd, NEURON_IOCTL_EXECUTE, x);
}

/* EXECUTE with NEURON_EXEC_WAIT: the status (>= 0), or -errno. */
static int exec_sync(int fd, __u32 model, const __u32 *bind, __u32 nbind,
		     __u32 timeout_ms)
{
	struct neuron_execute x;
	int ret = exec_req(fd, model, bind, nbind, NEURON_EXEC_WAIT, timeout_ms, &x);

	return ret ? ret : (int)x.status;
}

/* Asynchronous EXECUTE: 0 and *@seqno, or -errno. */
static int exec_async(int fd, __u32 model, const __u32 *bind, __u32 nbind,
		      __u32 timeout_ms, __u64 *seqno)
{
	struct neuron_execute x;
	int ret = exec_req(fd, model, bind, nbind, 0, timeout_ms, &x);

	*seqno = x.seqno;
	return ret;
}

/* WAIT for an execution that must end: 0 or -errno (-EDOM, -ETIMEDOUT...). */
static int exec_wait(int fd, __u64 seqno)
{
	return neuron_wait_seq(fd, seqno, neuron_now_ns() + EXEC_DEADLINE_NS);
}

/* NC_SEM on a semaphore: 0 or -errno; *@out (unless NULL) the value. */
static int sem_op(int fd, __u32 nc, __u32 kind, __u32 index, __u32 op,
		  __u32 value, __u32 *out)
{
	return neuron_sem(fd, nc, kind, index, op, value, 0, out);
}

static int sem_inc(int fd, __u32 nc, __u32 index, __u32 count)
{
	return sem_op(fd, nc, NEURON_SEM_KIND_SEMAPHORE, index, NEURON_SEM_INC,
		      count, NULL);
}

/* A semaphore's (@kind 0) or event's (@kind 1) value, or ~0 on error. */
static __u32 sem_read(int fd, __u32 nc, __u32 kind, __u32 index)
{
	__u32 v = ~0U;

	if (sem_op(fd, nc, kind, index, NEURON_SEM_READ, 0, &v))
		return ~0U;
	return v;
}

/* NC @nc's state as @fd sees it, or ~0 on error. */
static __u32 nc_state(int fd, __u32 nc, __u32 *flags)
{
	struct neuron_nc_states_buf s;

	if (neuron_query_into(fd, NEURON_QUERY_NC_STATE, &s, sizeof(s), NULL) ||
	    nc >= s.h.nc_count || nc >= NEURON_TEST_MAX_NC)
		return ~0U;
	if (flags)
		*flags = s.nc[nc].flags;
	return s.nc[nc].state;
}

/* Poll (up to SETTLE_MS) until NC @nc is in @state; the last state seen. */
static __u32 nc_state_wait(int fd, __u32 nc, __u32 state)
{
	__u32 now = nc_state(fd, nc, NULL);
	int i;

	for (i = 0; i < SETTLE_MS / 10 && now != state; i++) {
		neuron_sleep_ms(10);
		now = nc_state(fd, nc, NULL);
	}
	return now;
}

/* Device memory in use on the whole device, or -1. */
static long long dev_bytes(int fd)
{
	struct neuron_mem_usage_buf b;

	if (neuron_query_mem_usage(fd, &b, NULL))
		return -1;
	return (long long)b.u.device_bytes;
}

/* Poll (up to SETTLE_MS) until the device's memory is @bytes; the last seen. */
static long long dev_bytes_wait(int fd, long long bytes)
{
	long long now = dev_bytes(fd);
	int i;

	for (i = 0; i < SETTLE_MS / 10 && now != bytes; i++) {
		neuron_sleep_ms(10);
		now = dev_bytes(fd);
	}
	return now;
}

/* ---- random numbers, host references ---- */

static __u32 rnd_state = 2463534242U;

static void rnd_seed(__u32 seed)
{
	rnd_state = seed * 2654435761U + 1;
	if (!rnd_state)
		rnd_state = 1;
}

static __u32 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/* Uniform in [-1, 1). */
static float rnd_unit(void)
{
	return (float)((__s32)(rnd() >> 8) - (1 << 23)) / (float)(1 << 23);
}

/*
 * fp32 results are compared with a relative tolerance of 1e-5, relative to
 * the sum of the magnitudes of the terms (a result near 0 by cancellation
 * is not compared relative to itself): the 64-bit host gives the same bits
 * (same order, no FMA), the 32-bit build's x87 may differ by rounding.
 */
static bool close_enough(float got, float want, float scale)
{
	float tol = FP_RTOL * (fabsf(want) > scale ? fabsf(want) : scale);

	if (isnan(want))
		return isnan(got);
	if (isinf(want))
		return got == want;
	return fabsf(got - want) <= tol;
}

/* c = a (m x k) * b (k x n), in order of increasing p, from 0. */
static void ref_matmul_f(const float *a, const float *b, float *c, float *scale,
			 __u32 m, __u32 k, __u32 n)
{
	__u32 i, j, p;

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			float acc = 0.0f, mag = 0.0f;

			for (p = 0; p < k; p++) {
				float prod = a[i * k + p] * b[p * n + j];

				acc = acc + prod;
				mag += fabsf(prod);
			}
			c[i * n + j] = acc;
			if (scale)
				scale[i * n + j] = mag;
		}
}

/* Wrapping two's complement: u32 arithmetic. */
static void ref_matmul_i(const __u32 *a, const __u32 *b, __u32 *c,
			 __u32 m, __u32 k, __u32 n)
{
	__u32 i, j, p;

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			__u32 acc = 0;

			for (p = 0; p < k; p++)
				acc += a[i * k + p] * b[p * n + j];
			c[i * n + j] = acc;
		}
}

/* ---- a matmul job: C = A * B, A and B inputs, C output ---- */

struct mm {
	int fd;
	__u32 nc, dt, m, k, n;
	__u32 model;
	__u32 bind[3];			/* A, B, C */
	void *a, *b, *c, *ref;		/* host copies */
	float *scale;			/* fp32 tolerance scale per element */
};

static size_t mm_bytes(const struct mm *j, int which)
{
	if (which == 0)
		return (size_t)j->m * j->k * 4;
	if (which == 1)
		return (size_t)j->k * j->n * 4;
	return (size_t)j->m * j->n * 4;
}

/* The program of a matmul: MATMUL slot2 = slot0 * slot1 on PE. */
static void mm_prog(struct nasm *p, __u32 dt, __u32 m, __u32 k, __u32 n)
{
	nasm_reset(p);
	nasm_add_slot(p, NEURON_SLOT_INPUT, dt, (__u64)m * k * 4);
	nasm_add_slot(p, NEURON_SLOT_INPUT, dt, (__u64)k * n * 4);
	nasm_add_slot(p, NEURON_SLOT_OUTPUT, dt, (__u64)m * n * 4);
	nasm_matmul(p, dt, 0, SLOT(2, 0), SLOT(0, 0), SLOT(1, 0), m, k, n);
	nasm_end(p, NEURON_ENGINE_PE);
}

/* New random inputs from @seed, written to the device, and the reference. */
static int mm_fill(struct mm *j, __u32 seed)
{
	size_t i, na = (size_t)j->m * j->k, nb = (size_t)j->k * j->n;
	int ret;

	rnd_seed(seed);
	if (j->dt == NEURON_DT_FP32) {
		float *a = j->a, *b = j->b;

		for (i = 0; i < na; i++)
			a[i] = rnd_unit();
		for (i = 0; i < nb; i++)
			b[i] = rnd_unit();
		ref_matmul_f(a, b, j->ref, j->scale, j->m, j->k, j->n);
	} else {
		__u32 *a = j->a, *b = j->b;

		for (i = 0; i < na; i++)
			a[i] = rnd();
		for (i = 0; i < nb; i++)
			b[i] = rnd();
		ref_matmul_i(a, b, j->ref, j->m, j->k, j->n);
	}
	ret = dev_write(j->fd, j->bind[0], j->a, mm_bytes(j, 0));
	if (!ret)
		ret = dev_write(j->fd, j->bind[1], j->b, mm_bytes(j, 1));
	return ret;
}

/* Set up a matmul job on NC @nc of @fd (reserved): 0 or -errno. */
static int mm_setup(struct mm *j, int fd, __u32 nc, __u32 dt, __u32 m, __u32 k,
		    __u32 n, __u32 seed)
{
	struct neuron_model_load ld;
	struct nasm *p;
	int w, ret;

	memset(j, 0, sizeof(*j));
	j->fd = fd;
	j->nc = nc;
	j->dt = dt;
	j->m = m;
	j->k = k;
	j->n = n;
	j->a = calloc(1, mm_bytes(j, 0));
	j->b = calloc(1, mm_bytes(j, 1));
	j->c = calloc(1, mm_bytes(j, 2));
	j->ref = calloc(1, mm_bytes(j, 2));
	j->scale = calloc(1, mm_bytes(j, 2));
	p = nasm_new();
	if (!j->a || !j->b || !j->c || !j->ref || !j->scale || !p) {
		nasm_delete(p);
		return -ENOMEM;
	}
	for (w = 0; w < 3; w++) {
		j->bind[w] = dev_alloc(fd, nc, mm_bytes(j, w));
		if (!j->bind[w]) {
			nasm_delete(p);
			return -ENOMEM;
		}
	}
	ret = mm_fill(j, seed);
	if (ret) {
		nasm_delete(p);
		return ret;
	}
	mm_prog(p, dt, m, k, n);
	ret = nasm_load(fd, nc, p, &ld);
	nasm_delete(p);
	j->model = ld.handle;
	return ret;
}

static void mm_free(struct mm *j)
{
	free(j->a);
	free(j->b);
	free(j->c);
	free(j->ref);
	free(j->scale);
	j->a = NULL;
	j->b = NULL;
	j->c = NULL;
	j->ref = NULL;
	j->scale = NULL;
}

/* Elements of the result in @h that differ from the reference. */
static unsigned int mm_bad_in(struct mm *j, __u32 h)
{
	size_t i, nc = (size_t)j->m * j->n;
	unsigned int bad = 0;

	memset(j->c, 0xa5, mm_bytes(j, 2));
	if (dev_read(j->fd, h, j->c, mm_bytes(j, 2)))
		return (unsigned int)nc + 1;
	for (i = 0; i < nc; i++) {
		if (j->dt == NEURON_DT_FP32)
			bad += !close_enough(((float *)j->c)[i], ((float *)j->ref)[i],
					     j->scale[i]);
		else
			bad += ((__u32 *)j->c)[i] != ((__u32 *)j->ref)[i];
	}
	return bad;
}

/* Elements of C that differ from the reference (C read from the device). */
static unsigned int mm_bad(struct mm *j)
{
	return mm_bad_in(j, j->bind[2]);
}

/* Clear C on the device (so that a stale result cannot pass). */
static int mm_clear(struct mm *j)
{
	memset(j->c, 0, mm_bytes(j, 2));
	return dev_write(j->fd, j->bind[2], j->c, mm_bytes(j, 2));
}

/*
 * Run a matmul job with NEURON_EXEC_WAIT and check C: 0 if right, else
 * -errno of a call, 1000 + a status other than OK, or 1 for a wrong result.
 */
static int mm_run(struct mm *j, __u32 timeout_ms)
{
	int ret = mm_clear(j);

	if (ret)
		return ret;
	ret = exec_sync(j->fd, j->model, j->bind, 3, timeout_ms);
	if (ret)
		return ret < 0 ? ret : 1000 + ret;
	return mm_bad(j) ? 1 : 0;
}

/* ---- the fixture ---- */

FIXTURE(exec) {
	struct neuron_node node;
	struct neuron_device_info info;
	__u64 all;			/* mask of every NC */
	char saved[2][32];		/* exec_timeout_ms, exec_queue_depth */
	struct mm mm[2];		/* jobs freed by the teardown */
};

FIXTURE_VARIANT(exec) NEURON_ARCH_VARIANT;
FIXTURE_VARIANT_ADD(exec, v2) NEURON_ARCH_V2_VARIANT;
FIXTURE_VARIANT_ADD(exec, v3) NEURON_ARCH_V3_VARIANT;

#define EXEC_CAPS	(NEURON_CAP_MEM | NEURON_CAP_COPY | NEURON_CAP_NOTIFY | \
			 NEURON_CAP_RESERVE | NEURON_CAP_SEM | NEURON_CAP_EXEC)

FIXTURE_SETUP(exec)
{
	neuron_setup_node(_metadata, &self->node, variant->name, 64);
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &self->info, NULL));
	if ((self->info.caps & EXEC_CAPS) != EXEC_CAPS) {
		neuron_node_release(&self->node);
		NEURON_SKIP_SETUP("needs NEURON_CAP_EXEC (and MEM, COPY, NOTIFY, RESERVE, SEM)");
	}
	ASSERT_LE(2U, self->info.nc_count);
	ASSERT_GE((__u32)NEURON_TEST_MAX_NC, self->info.nc_count);
	self->all = (1ULL << self->info.nc_count) - 1;
	/* The module parameters, put back by the teardown. */
	ASSERT_EQ(0, neuron_read_text(NEURON_PARAM_DIR PARAM_TIMEOUT, self->saved[0],
				      sizeof(self->saved[0])));
	ASSERT_EQ(0, neuron_read_text(NEURON_PARAM_DIR PARAM_DEPTH, self->saved[1],
				      sizeof(self->saved[1])));
	/* The file holds every NC; tests that need another owner release. */
	ASSERT_EQ(0, neuron_reserve(self->node.fd, self->all));
}

FIXTURE_TEARDOWN(exec)
{
	if (self->saved[0][0])
		neuron_sysfs_write(NEURON_PARAM_DIR PARAM_TIMEOUT, self->saved[0]);
	if (self->saved[1][0])
		neuron_sysfs_write(NEURON_PARAM_DIR PARAM_DEPTH, self->saved[1]);
	mm_free(&self->mm[0]);
	mm_free(&self->mm[1]);
	neuron_node_release(&self->node);
}

/*
 * Set a module parameter for this test: @which 0 exec_timeout_ms, 1
 * exec_queue_depth (the teardown puts back what the setup read).
 */
static int set_param(int which, unsigned long long val)
{
	return neuron_param_set(which ? PARAM_DEPTH : PARAM_TIMEOUT, val);
}

/* Load @p on @nc, asserting success; the model handle. */
static __u32 load_ok(struct __test_metadata *_metadata, int fd, __u32 nc,
		     const struct nasm *p)
{
	struct neuron_model_load ld;
	int ret = nasm_load(fd, nc, p, &ld);

	EXPECT_EQ(0, ret) TH_LOG("MODEL_LOAD: %s (block %u insn %u)", strerror(-ret),
				 ld.err_block, ld.err_insn);
	if (!ret) {
		EXPECT_EQ(~0U, ld.err_block);
		EXPECT_EQ(~0U, ld.err_insn);
		EXPECT_NE(0U, ld.handle);
	}
	return ld.handle;
}

/* Device memory, asserting success. */
static __u32 alloc_ok(struct __test_metadata *_metadata, int fd, __u32 nc, __u64 size)
{
	__u32 h = dev_alloc(fd, nc, size);

	EXPECT_NE(0U, h) TH_LOG("MEM_ALLOC of %llu bytes on NC %u",
				(unsigned long long)size, nc);
	return h;
}

/* ---- 1. MATMUL ---- */

/* The NCs a test runs on: 0, 1 and the last. */
static __u32 test_nc(const struct neuron_device_info *info, int i)
{
	return i < 2 ? (__u32)i : info->nc_count - 1;
}

TEST_F(exec, matmul_fp32)
{
	int i, r;

	for (i = 0; i < 3; i++) {
		struct mm *j = &self->mm[0];
		__u32 nc = test_nc(&self->info, i);

		mm_free(j);
		ASSERT_EQ(0, mm_setup(j, self->node.fd, nc, NEURON_DT_FP32, 33, 47, 29,
				      100 + i));
		for (r = 0; r < 3; r++) {
			if (r)
				ASSERT_EQ(0, mm_fill(j, 200 + 10 * i + r));
			EXPECT_EQ(0, mm_run(j, 0)) TH_LOG("NC %u run %d", nc, r);
		}
		EXPECT_EQ(0, neuron_model_unload(self->node.fd, j->model));
	}
}

TEST_F(exec, matmul_int32)
{
	int i, r;

	for (i = 0; i < 3; i++) {
		struct mm *j = &self->mm[0];
		__u32 nc = test_nc(&self->info, i);

		mm_free(j);
		ASSERT_EQ(0, mm_setup(j, self->node.fd, nc, NEURON_DT_INT32, 33, 47, 29,
				      300 + i));
		for (r = 0; r < 3; r++) {
			if (r)
				ASSERT_EQ(0, mm_fill(j, 400 + 10 * i + r));
			EXPECT_EQ(0, mm_run(j, 0)) TH_LOG("NC %u run %d", nc, r);
		}
	}
}

/* Large matrices (more than one FPU section) and ACCUMULATE. */
TEST_F(exec, matmul_accumulate_large)
{
	struct nasm *p = nasm_new();
	__u32 m = 64, k = 128, n = 96, model, bind[3], i;
	struct mm *j = &self->mm[0];

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, mm_setup(j, self->node.fd, 1, NEURON_DT_INT32, m, k, n, 7));
	EXPECT_EQ(0, mm_run(j, 0));
	/* C = A * B, then C += A * B: 2 A B, exact with wrapping. */
	mm_prog(p, NEURON_DT_INT32, m, k, n);
	p->blocks[NEURON_ENGINE_PE].count--;
	nasm_matmul(p, NEURON_DT_INT32, NEURON_TPB_ACCUMULATE, SLOT(2, 0), SLOT(0, 0),
		    SLOT(1, 0), m, k, n);
	nasm_end(p, NEURON_ENGINE_PE);
	model = load_ok(_metadata, self->node.fd, 1, p);
	memcpy(bind, j->bind, sizeof(bind));
	ASSERT_EQ(0, mm_clear(j));
	ASSERT_EQ(NEURON_EXEC_OK, exec_sync(self->node.fd, model, bind, 3, 0));
	for (i = 0; i < m * n; i++)
		((__u32 *)j->ref)[i] *= 2;
	EXPECT_EQ(0U, mm_bad(j));
	nasm_delete(p);
	/* fp32 with 65536 multiply-adds and more. */
	mm_free(&self->mm[1]);
	ASSERT_EQ(0, mm_setup(&self->mm[1], self->node.fd, 0, NEURON_DT_FP32, 100, 256,
			      80, 8));
	EXPECT_EQ(0, mm_run(&self->mm[1], 0));
}

/* ---- 2. a 2-layer MLP ---- */

#define MLP_B	8	/* batch */
#define MLP_D	16	/* inputs */
#define MLP_H	32	/* hidden */
#define MLP_O	10	/* outputs */

struct mlp_data {
	float w1[MLP_D * MLP_H];
	float b1[MLP_H];
	float w2[MLP_H * MLP_O];
	float b2[MLP_O];
};

#define MLP_OFF(f)	((__u32)offsetof(struct mlp_data, f))

/* y = W2 relu(x W1 + b1) + b2, rows of x, in the order the engines use. */
static void ref_mlp(const struct mlp_data *d, const float *x, float *y)
{
	float h[MLP_B * MLP_H], y0[MLP_B * MLP_O];
	int i, j;

	ref_matmul_f(x, d->w1, h, NULL, MLP_B, MLP_D, MLP_H);
	for (i = 0; i < MLP_B; i++)
		for (j = 0; j < MLP_H; j++) {
			float v = h[i * MLP_H + j] + d->b1[j];

			h[i * MLP_H + j] = v > 0.0f ? v : 0.0f;
		}
	ref_matmul_f(h, d->w2, y0, NULL, MLP_B, MLP_H, MLP_O);
	for (i = 0; i < MLP_B; i++)
		for (j = 0; j < MLP_O; j++)
			y[i * MLP_O + j] = y0[i * MLP_O + j] + d->b2[j];
}

TEST_F(exec, mlp_two_layers)
{
	/* Scratch: h = x W1, h2 = h + b1, h3 = relu(h2), y0 = h3 W2. */
	const __u32 h = 0, h2 = MLP_B * MLP_H * 4, h3 = 2 * h2, y0 = 3 * h2;
	float x[MLP_B * MLP_D], y[MLP_B * MLP_O], want[MLP_B * MLP_O];
	struct nasm *p = nasm_new();
	struct mlp_data d;
	__u32 model, bind[2], nc = self->info.nc_count - 1, bad;
	int fd = self->node.fd, r;
	size_t i;

	ASSERT_NE(NULL, p);
	rnd_seed(42);
	for (i = 0; i < ARRAY_SIZE(d.w1); i++)
		d.w1[i] = rnd_unit();
	for (i = 0; i < ARRAY_SIZE(d.b1); i++)
		d.b1[i] = rnd_unit();
	for (i = 0; i < ARRAY_SIZE(d.w2); i++)
		d.w2[i] = rnd_unit();
	for (i = 0; i < ARRAY_SIZE(d.b2); i++)
		d.b2[i] = rnd_unit();
	nasm_reset(p);
	p->data = &d;
	p->data_size = sizeof(d);
	p->scratch_size = y0 + MLP_B * MLP_O * 4;
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_FP32, sizeof(x));
	nasm_add_slot(p, NEURON_SLOT_OUTPUT, NEURON_DT_FP32, sizeof(y));
	/* PE: layer 1, (sem 0) -> DVE; (sem 2) <- ACT; layer 2, (sem 3) -> DVE. */
	nasm_matmul(p, NEURON_DT_FP32, 0, SCR(h), SLOT(0, 0), DATA(MLP_OFF(w1)),
		    MLP_B, MLP_D, MLP_H);
	nasm_signal(p, NEURON_ENGINE_PE, 0, 1);
	nasm_wait(p, NEURON_ENGINE_PE, 2, 1);
	nasm_matmul(p, NEURON_DT_FP32, 0, SCR(y0), SCR(h3), DATA(MLP_OFF(w2)),
		    MLP_B, MLP_H, MLP_O);
	nasm_signal(p, NEURON_ENGINE_PE, 3, 1);
	nasm_end(p, NEURON_ENGINE_PE);
	/* DVE: bias 1, (sem 1) -> ACT; bias 2 into y. */
	nasm_wait(p, NEURON_ENGINE_DVE, 0, 1);
	nasm_tt(p, NEURON_DT_FP32, NEURON_ALU_ADD | NEURON_TPB_BCAST, SCR(h2), SCR(h),
		DATA(MLP_OFF(b1)), MLP_B, MLP_H);
	nasm_signal(p, NEURON_ENGINE_DVE, 1, 1);
	nasm_wait(p, NEURON_ENGINE_DVE, 3, 1);
	nasm_tt(p, NEURON_DT_FP32, NEURON_ALU_ADD | NEURON_TPB_BCAST, SLOT(1, 0), SCR(y0),
		DATA(MLP_OFF(b2)), MLP_B, MLP_O);
	nasm_end(p, NEURON_ENGINE_DVE);
	/* ACT: relu, (sem 2) -> PE. */
	nasm_wait(p, NEURON_ENGINE_ACT, 1, 1);
	nasm_act(p, NEURON_DT_FP32, NEURON_ACT_RELU, SCR(h3), SCR(h2), MLP_B * MLP_H);
	nasm_signal(p, NEURON_ENGINE_ACT, 2, 1);
	nasm_end(p, NEURON_ENGINE_ACT);
	model = load_ok(_metadata, fd, nc, p);
	bind[0] = alloc_ok(_metadata, fd, nc, sizeof(x));
	bind[1] = alloc_ok(_metadata, fd, nc, sizeof(y));
	for (r = 0; r < 3; r++) {
		rnd_seed(1000 + r);
		for (i = 0; i < ARRAY_SIZE(x); i++)
			x[i] = 2.0f * rnd_unit();
		ref_mlp(&d, x, want);
		ASSERT_EQ(0, dev_write(fd, bind[0], x, sizeof(x)));
		memset(y, 0, sizeof(y));
		ASSERT_EQ(0, dev_write(fd, bind[1], y, sizeof(y)));
		ASSERT_EQ(NEURON_EXEC_OK, exec_sync(fd, model, bind, 2, 0));
		ASSERT_EQ(0, dev_read(fd, bind[1], y, sizeof(y)));
		for (bad = 0, i = 0; i < ARRAY_SIZE(y); i++) {
			if (close_enough(y[i], want[i], 1.0f))
				continue;
			if (!bad++)
				TH_LOG("run %d y[%zu] = %.9g, want %.9g", r, i, y[i], want[i]);
		}
		EXPECT_EQ(0U, bad);
	}
	/* Balanced: every semaphore is back to 0. */
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0U, sem_read(fd, nc, NEURON_SEM_KIND_SEMAPHORE, i));
	nasm_delete(p);
}

/* ---- 3. engines synchronised by semaphores and events, and the host ---- */

#define SYNC_N		256	/* elements moved */
#define SYNC_CHUNK	32

/* Fill @n int32 with @base + i, write them to @h. */
static int fill_seq(int fd, __u32 h, __u32 *buf, __u32 n, __u32 base)
{
	__u32 i;

	for (i = 0; i < n; i++)
		buf[i] = base + i;
	return dev_write(fd, h, buf, n * 4);
}

/*
 * PE copies the input into scratch in 8 instructions, then signals; DVE
 * waits, then adds 1 into the output. Without the semaphore DVE would read
 * the scratch at step 1 (the previous run's data, or zeros).
 */
TEST_F(exec, sem_orders_engines)
{
	__u32 in[SYNC_N], out[SYNC_N], bind[2], model, i;
	struct nasm *p = nasm_new();
	int fd = self->node.fd, r;

	ASSERT_NE(NULL, p);
	nasm_reset(p);
	p->scratch_size = SYNC_N * 4;
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_INT32, SYNC_N * 4);
	nasm_add_slot(p, NEURON_SLOT_OUTPUT, NEURON_DT_INT32, SYNC_N * 4);
	for (i = 0; i < SYNC_N / SYNC_CHUNK; i++)
		nasm_copy(p, NEURON_ENGINE_PE, SCR(i * SYNC_CHUNK * 4),
			  SLOT(0, i * SYNC_CHUNK * 4), SYNC_CHUNK);
	nasm_signal(p, NEURON_ENGINE_PE, 5, 1);
	nasm_end(p, NEURON_ENGINE_PE);
	nasm_wait(p, NEURON_ENGINE_DVE, 5, 1);
	nasm_ts(p, NEURON_DT_INT32, NEURON_ALU_ADD, SLOT(1, 0), SCR(0), 1, 1, SYNC_N);
	nasm_end(p, NEURON_ENGINE_DVE);
	model = load_ok(_metadata, fd, 0, p);
	bind[0] = alloc_ok(_metadata, fd, 0, SYNC_N * 4);
	bind[1] = alloc_ok(_metadata, fd, 0, SYNC_N * 4);
	for (r = 0; r < 5; r++) {
		ASSERT_EQ(0, fill_seq(fd, bind[0], in, SYNC_N, 1000 * (r + 1)));
		memset(out, 0, sizeof(out));
		ASSERT_EQ(0, dev_write(fd, bind[1], out, sizeof(out)));
		ASSERT_EQ(NEURON_EXEC_OK, exec_sync(fd, model, bind, 2, 0));
		ASSERT_EQ(0, dev_read(fd, bind[1], out, sizeof(out)));
		for (i = 0; i < SYNC_N; i++)
			EXPECT_EQ(in[i] + 1, out[i]) TH_LOG("run %d element %u", r, i);
		EXPECT_EQ(0U, sem_read(fd, 0, NEURON_SEM_KIND_SEMAPHORE, 5));
	}
	nasm_delete(p);
}

/*
 * The same order with events: PE fills the scratch, sets event 7; POOL
 * waits for it, copies the scratch out and sets event 8; PE waits for 8 and
 * clears both, so that the program can run again.
 */
TEST_F(exec, events_order_engines)
{
	__u32 in[SYNC_N], out[SYNC_N], bind[2], model, i;
	struct nasm *p = nasm_new();
	int fd = self->node.fd, r;

	ASSERT_NE(NULL, p);
	nasm_reset(p);
	p->scratch_size = SYNC_N * 4;
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_INT32, SYNC_N * 4);
	nasm_add_slot(p, NEURON_SLOT_OUTPUT, NEURON_DT_INT32, SYNC_N * 4);
	for (i = 0; i < 4; i++)
		nasm_copy(p, NEURON_ENGINE_PE, SCR(i * SYNC_N), SLOT(0, i * SYNC_N),
			  SYNC_N / 4);
	nasm_sync(p, NEURON_ENGINE_PE, NEURON_TPB_EVENT_SET, 7, 1);
	nasm_sync(p, NEURON_ENGINE_PE, NEURON_TPB_EVENT_WAIT, 8, 1);
	nasm_sync(p, NEURON_ENGINE_PE, NEURON_TPB_EVENT_SET, 7, 0);
	nasm_sync(p, NEURON_ENGINE_PE, NEURON_TPB_EVENT_SET, 8, 0);
	nasm_end(p, NEURON_ENGINE_PE);
	nasm_sync(p, NEURON_ENGINE_POOL, NEURON_TPB_EVENT_WAIT, 7, 1);
	nasm_copy(p, NEURON_ENGINE_POOL, SLOT(1, 0), SCR(0), SYNC_N);
	nasm_sync(p, NEURON_ENGINE_POOL, NEURON_TPB_EVENT_SET, 8, 1);
	nasm_end(p, NEURON_ENGINE_POOL);
	model = load_ok(_metadata, fd, 1, p);
	bind[0] = alloc_ok(_metadata, fd, 1, SYNC_N * 4);
	bind[1] = alloc_ok(_metadata, fd, 1, SYNC_N * 4);
	for (r = 0; r < 3; r++) {
		ASSERT_EQ(0, fill_seq(fd, bind[0], in, SYNC_N, 77 * (r + 1)));
		memset(out, 0, sizeof(out));
		ASSERT_EQ(0, dev_write(fd, bind[1], out, sizeof(out)));
		ASSERT_EQ(NEURON_EXEC_OK, exec_sync(fd, model, bind, 2, 0));
		ASSERT_EQ(0, dev_read(fd, bind[1], out, sizeof(out)));
		EXPECT_EQ(0, memcmp(in, out, sizeof(in))) TH_LOG("run %d", r);
		EXPECT_EQ(0U, sem_read(fd, 1, NEURON_SEM_KIND_EVENT, 7));
		EXPECT_EQ(0U, sem_read(fd, 1, NEURON_SEM_KIND_EVENT, 8));
	}
	nasm_delete(p);
}

/*
 * POOL copies the scratch out and sets event 7; PE waits for it, copies
 * the input into the scratch and clears the event: each run outputs what
 * the run before left in the scratch.
 */
static struct nasm *scratch_echo(void)
{
	struct nasm *p = nasm_new();

	if (!p)
		return NULL;
	nasm_reset(p);
	p->scratch_size = SYNC_N * 4;
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_INT32, SYNC_N * 4);
	nasm_add_slot(p, NEURON_SLOT_OUTPUT, NEURON_DT_INT32, SYNC_N * 4);
	nasm_copy(p, NEURON_ENGINE_POOL, SLOT(1, 0), SCR(0), SYNC_N);
	nasm_sync(p, NEURON_ENGINE_POOL, NEURON_TPB_EVENT_SET, 7, 1);
	nasm_end(p, NEURON_ENGINE_POOL);
	nasm_sync(p, NEURON_ENGINE_PE, NEURON_TPB_EVENT_WAIT, 7, 1);
	nasm_copy(p, NEURON_ENGINE_PE, SCR(0), SLOT(0, 0), SYNC_N);
	nasm_sync(p, NEURON_ENGINE_PE, NEURON_TPB_EVENT_SET, 7, 0);
	nasm_end(p, NEURON_ENGINE_PE);
	return p;
}

/* Run @model once with @in: what it output (the scratch before the run). */
static int echo_run(int fd, __u32 model, const __u32 *bind, __u32 *in, __u32 base,
		    __u32 *out)
{
	int ret = fill_seq(fd, bind[0], in, SYNC_N, base);

	if (ret)
		return ret;
	memset(out, 0xee, SYNC_N * 4);
	ret = dev_write(fd, bind[1], out, SYNC_N * 4);
	if (!ret && exec_sync(fd, model, bind, 2, 0) != NEURON_EXEC_OK)
		ret = -EIO;
	return ret ? ret : dev_read(fd, bind[1], out, SYNC_N * 4);
}

static bool all_zero32(const __u32 *v, __u32 n)
{
	while (n--)
		if (*v++)
			return false;
	return true;
}

/*
 * A model's scratch starts zeroed (docs/privilege-model.md, R10): a model
 * of another file loaded on the NC after the first one's was unloaded,
 * same program and layout (so most likely the same device memory), reads
 * zeros, not the first file's data; the scratch is kept between the runs
 * of one model.
 */
TEST_F(exec, scratch_zeroed_for_next_file)
{
	__u32 in[SYNC_N], out[SYNC_N], bind[2], model;
	struct nasm *p = scratch_echo();
	int fd = self->node.fd, fd2;

	ASSERT_NE(NULL, p);
	model = load_ok(_metadata, fd, 0, p);
	bind[0] = alloc_ok(_metadata, fd, 0, SYNC_N * 4);
	bind[1] = alloc_ok(_metadata, fd, 0, SYNC_N * 4);
	ASSERT_EQ(0, echo_run(fd, model, bind, in, 0x5a000000, out));
	EXPECT_TRUE(all_zero32(out, SYNC_N)) TH_LOG("first run: %#x", out[0]);
	ASSERT_EQ(0, echo_run(fd, model, bind, in, 0x6b000000, out));
	EXPECT_EQ(0x5a000000U, out[0]) TH_LOG("the scratch is kept between runs");
	EXPECT_EQ(0x5a000000U + SYNC_N - 1, out[SYNC_N - 1]);
	ASSERT_EQ(0, neuron_model_unload(fd, model));
	ASSERT_EQ(0, neuron_mem_free(fd, bind[0]));
	ASSERT_EQ(0, neuron_mem_free(fd, bind[1]));
	ASSERT_EQ(0, neuron_release(fd, 1));

	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, neuron_reserve(fd2, 1));
	model = load_ok(_metadata, fd2, 0, p);
	bind[0] = alloc_ok(_metadata, fd2, 0, SYNC_N * 4);
	bind[1] = alloc_ok(_metadata, fd2, 0, SYNC_N * 4);
	ASSERT_EQ(0, echo_run(fd2, model, bind, in, 0x7c000000, out));
	EXPECT_TRUE(all_zero32(out, SYNC_N))
		TH_LOG("the next file's model read %#x (the first file wrote 0x6b000000 + i)",
		       out[0]);
	close(fd2);
	nasm_delete(p);
}

/* SP waits for semaphore 9 >= 3, which the host raises with NC_SEM. */
TEST_F(exec, host_signals_semaphore)
{
	__u32 in[64], out[64], bind[2], model, v;
	struct nasm *p = nasm_new();
	int fd = self->node.fd;
	__u64 seq;

	ASSERT_NE(NULL, p);
	nasm_reset(p);
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_INT32, sizeof(in));
	nasm_add_slot(p, NEURON_SLOT_OUTPUT, NEURON_DT_INT32, sizeof(out));
	nasm_wait(p, NEURON_ENGINE_SP, 9, 3);
	nasm_copy(p, NEURON_ENGINE_SP, SLOT(1, 0), SLOT(0, 0), 64);
	nasm_end(p, NEURON_ENGINE_SP);
	model = load_ok(_metadata, fd, 0, p);
	bind[0] = alloc_ok(_metadata, fd, 0, sizeof(in));
	bind[1] = alloc_ok(_metadata, fd, 0, sizeof(out));
	ASSERT_EQ(0, fill_seq(fd, bind[0], in, 64, 5));
	ASSERT_EQ(0, exec_async(fd, model, bind, 2, 10000, &seq));
	EXPECT_NE(0ULL, seq);
	/* Still waiting: not done, nothing copied. */
	EXPECT_EQ(-ETIME, neuron_wait_seq(fd, seq, neuron_now_ns() + 200 * NSEC_PER_MSEC));
	ASSERT_EQ(0, dev_read(fd, bind[1], out, sizeof(out)));
	EXPECT_EQ(0U, out[0]);
	EXPECT_EQ(0U, out[63]);
	/* Two is not enough. */
	ASSERT_EQ(0, sem_inc(fd, 0, 9, 2));
	EXPECT_EQ(-ETIME, neuron_wait_seq(fd, seq, neuron_now_ns() + 200 * NSEC_PER_MSEC));
	ASSERT_EQ(0, sem_inc(fd, 0, 9, 2));
	EXPECT_EQ(0, exec_wait(fd, seq));
	ASSERT_EQ(0, dev_read(fd, bind[1], out, sizeof(out)));
	EXPECT_EQ(0, memcmp(in, out, sizeof(in)));
	/* The program took 3 of the 4. */
	ASSERT_EQ(0, sem_op(fd, 0, NEURON_SEM_KIND_SEMAPHORE, 9, NEURON_SEM_READ, 0, &v));
	EXPECT_EQ(1U, v);
	nasm_delete(p);
}

/* ---- 4. ACT, POOL, TS, TT ---- */

#define ACT_N	64

TEST_F(exec, act_functions)
{
	static const float special[] = { 0.0f, -0.0f, 1.0f, -1.0f, 30.0f, -30.0f,
					 87.5f, -87.5f, 100.0f, -100.0f, TINY, -TINY };
	static const __u8 fn[] = { NEURON_ACT_IDENTITY, NEURON_ACT_RELU,
				   NEURON_ACT_SIGMOID, NEURON_ACT_TANH };
	float xf[ACT_N], yf[4 * ACT_N];
	__s32 xi[ACT_N], yi[2 * ACT_N];
	struct nasm *p = nasm_new();
	__u32 model, bind[4];
	int fd = self->node.fd, i, f;

	ASSERT_NE(NULL, p);
	rnd_seed(9);
	for (i = 0; i < ACT_N; i++) {
		xf[i] = i < (int)ARRAY_SIZE(special) ? special[i] : 10.0f * rnd_unit();
		xi[i] = (__s32)rnd();
	}
	xi[0] = INT32_MIN;
	xi[1] = INT32_MAX;
	xi[2] = 0;
	xi[3] = -1;
	nasm_reset(p);
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_FP32, sizeof(xf));
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_INT32, sizeof(xi));
	nasm_add_slot(p, NEURON_SLOT_OUTPUT, NEURON_DT_FP32, sizeof(yf));
	nasm_add_slot(p, NEURON_SLOT_OUTPUT, NEURON_DT_INT32, sizeof(yi));
	for (f = 0; f < 4; f++)
		nasm_act(p, NEURON_DT_FP32, fn[f], SLOT(2, f * ACT_N * 4), SLOT(0, 0), ACT_N);
	nasm_act(p, NEURON_DT_INT32, NEURON_ACT_IDENTITY, SLOT(3, 0), SLOT(1, 0), ACT_N);
	nasm_act(p, NEURON_DT_INT32, NEURON_ACT_RELU, SLOT(3, ACT_N * 4), SLOT(1, 0), ACT_N);
	nasm_end(p, NEURON_ENGINE_ACT);
	model = load_ok(_metadata, fd, 0, p);
	bind[0] = alloc_ok(_metadata, fd, 0, sizeof(xf));
	bind[1] = alloc_ok(_metadata, fd, 0, sizeof(xi));
	bind[2] = alloc_ok(_metadata, fd, 0, sizeof(yf));
	bind[3] = alloc_ok(_metadata, fd, 0, sizeof(yi));
	ASSERT_EQ(0, dev_write(fd, bind[0], xf, sizeof(xf)));
	ASSERT_EQ(0, dev_write(fd, bind[1], xi, sizeof(xi)));
	ASSERT_EQ(NEURON_EXEC_OK, exec_sync(fd, model, bind, 4, 0));
	ASSERT_EQ(0, dev_read(fd, bind[2], yf, sizeof(yf)));
	ASSERT_EQ(0, dev_read(fd, bind[3], yi, sizeof(yi)));
	for (i = 0; i < ACT_N; i++) {
		double x = xf[i];
		double sig = 1.0 / (1.0 + exp(-x));

		EXPECT_EQ(nasm_f2u(xf[i]), nasm_f2u(yf[i])) TH_LOG("identity(%g)", x);
		/* By value: the sign of a zero is not specified. */
		EXPECT_TRUE(yf[ACT_N + i] == (xf[i] > 0.0f ? xf[i] : 0.0f))
			TH_LOG("relu(%g) = %g", x, yf[ACT_N + i]);
		EXPECT_GE(ACT_ATOL, fabs(yf[2 * ACT_N + i] - sig))
			TH_LOG("sigmoid(%.9g) = %.9g, libm %.9g", x, yf[2 * ACT_N + i], sig);
		EXPECT_GE(ACT_ATOL, fabs(yf[3 * ACT_N + i] - tanh(x)))
			TH_LOG("tanh(%.9g) = %.9g, libm %.9g", x, yf[3 * ACT_N + i], tanh(x));
		EXPECT_EQ(xi[i], yi[i]);
		EXPECT_EQ(xi[i] > 0 ? xi[i] : 0, yi[ACT_N + i]);
	}
	nasm_delete(p);
}

#define POOL_M	5
#define POOL_N	7
#define POOL_K	3
#define POOL_IN	(POOL_M * POOL_N * POOL_K)
#define POOL_OUT	(POOL_M * POOL_N)

TEST_F(exec, pool_max_avg)
{
	float af[POOL_IN], yf[2 * POOL_OUT];
	__s32 ai[POOL_IN], yi[2 * POOL_OUT];
	struct nasm *p = nasm_new();
	__u32 model, bind[3];
	int fd = self->node.fd, i, j, w;

	ASSERT_NE(NULL, p);
	rnd_seed(11);
	for (i = 0; i < POOL_IN; i++) {
		af[i] = 100.0f * rnd_unit();
		/* Big values: the int32 sums need 64 bits. */
		ai[i] = (__s32)rnd();
	}
	ai[0] = INT32_MAX;
	ai[1] = INT32_MAX;
	ai[2] = INT32_MAX;
	ai[3] = -7;		/* window 1: (-7 + 0 + 1) / 3 = -2 (toward 0) */
	ai[4] = 0;
	ai[5] = 1;
	nasm_reset(p);
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_FP32, sizeof(af));
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_INT32, sizeof(ai));
	nasm_add_slot(p, NEURON_SLOT_OUTPUT, NEURON_DT_FP32, 2 * sizeof(yf));
	nasm_pool(p, NEURON_DT_FP32, NEURON_POOL_MAX, SLOT(2, 0), SLOT(0, 0),
		  POOL_M, POOL_N, POOL_K);
	nasm_pool(p, NEURON_DT_FP32, NEURON_POOL_AVG, SLOT(2, POOL_OUT * 4), SLOT(0, 0),
		  POOL_M, POOL_N, POOL_K);
	nasm_pool(p, NEURON_DT_INT32, NEURON_POOL_MAX, SLOT(2, 2 * POOL_OUT * 4), SLOT(1, 0),
		  POOL_M, POOL_N, POOL_K);
	nasm_pool(p, NEURON_DT_INT32, NEURON_POOL_AVG, SLOT(2, 3 * POOL_OUT * 4), SLOT(1, 0),
		  POOL_M, POOL_N, POOL_K);
	nasm_end(p, NEURON_ENGINE_POOL);
	model = load_ok(_metadata, fd, 1, p);
	bind[0] = alloc_ok(_metadata, fd, 1, sizeof(af));
	bind[1] = alloc_ok(_metadata, fd, 1, sizeof(ai));
	bind[2] = alloc_ok(_metadata, fd, 1, 2 * sizeof(yf));
	ASSERT_EQ(0, dev_write(fd, bind[0], af, sizeof(af)));
	ASSERT_EQ(0, dev_write(fd, bind[1], ai, sizeof(ai)));
	ASSERT_EQ(NEURON_EXEC_OK, exec_sync(fd, model, bind, 3, 0));
	ASSERT_EQ(0, neuron_copy_op(fd, bind[2], 0, 0, 0, NULL, yf, sizeof(yf), 0, NULL));
	ASSERT_EQ(0, neuron_copy_op(fd, bind[2], sizeof(yf), 0, 0, NULL, yi, sizeof(yi),
				    0, NULL));
	for (i = 0; i < POOL_M; i++)
		for (j = 0; j < POOL_N; j++) {
			const float *wf = &af[(i * POOL_N + j) * POOL_K];
			const __s32 *wi = &ai[(i * POOL_N + j) * POOL_K];
			float mx = wf[0], sum = 0.0f;
			__s64 isum = 0;
			__s32 imx = wi[0];
			int o = i * POOL_N + j;

			for (w = 0; w < POOL_K; w++) {
				mx = wf[w] > mx ? wf[w] : mx;
				sum = sum + wf[w];
				imx = wi[w] > imx ? wi[w] : imx;
				isum += wi[w];
			}
			EXPECT_EQ(nasm_f2u(mx), nasm_f2u(yf[o])) TH_LOG("max [%d][%d]", i, j);
			EXPECT_TRUE(close_enough(yf[POOL_OUT + o], sum / POOL_K,
						 fabsf(wf[0]) + fabsf(wf[1]) + fabsf(wf[2])))
				TH_LOG("avg [%d][%d] %g, want %g", i, j, yf[POOL_OUT + o],
				       sum / POOL_K);
			EXPECT_EQ(imx, yi[o]) TH_LOG("int max [%d][%d]", i, j);
			EXPECT_EQ((__s32)(isum / POOL_K), yi[POOL_OUT + o])
				TH_LOG("int avg [%d][%d]", i, j);
		}
	nasm_delete(p);
}

/* ALU reference: fp32. */
static float alu_f(__u32 op, float x, float y)
{
	switch (op) {
	case NEURON_ALU_ADD:
		return x + y;
	case NEURON_ALU_SUB:
		return x - y;
	case NEURON_ALU_MUL:
		return x * y;
	case NEURON_ALU_MAX:
		return y > x ? y : x;
	default:
		return x / y;
	}
}

/* ALU reference: int32, wrapping; DIV toward 0, INT32_MIN / -1 = INT32_MIN. */
static __s32 alu_i(__u32 op, __s32 x, __s32 y)
{
	switch (op) {
	case NEURON_ALU_ADD:
		return (__s32)((__u32)x + (__u32)y);
	case NEURON_ALU_SUB:
		return (__s32)((__u32)x - (__u32)y);
	case NEURON_ALU_MUL:
		return (__s32)((__u32)x * (__u32)y);
	case NEURON_ALU_MAX:
		return y > x ? y : x;
	default:
		if (x == INT32_MIN && y == -1)
			return INT32_MIN;
		return x / y;
	}
}

static bool same_f(float got, float want)
{
	if (isnan(want))
		return isnan(got);
	return nasm_f2u(got) == nasm_f2u(want);
}

#define ALU_M	4
#define ALU_N	16
#define ALU_E	(ALU_M * ALU_N)
#define ALU_OPS	5

/*
 * TS with each ALU op on fp32 (scalar 0.75) and int32 (scalar -7), and
 * INT32_MIN / -1. Slots: a fp32, a int32, output (11 results).
 */
TEST_F(exec, ts_ops)
{
	float af[ALU_E], yf[ALU_OPS * ALU_E];
	__s32 ai[ALU_E], yi[(ALU_OPS + 1) * ALU_E];
	struct nasm *p = nasm_new();
	const float sf = 0.75f;
	const __s32 si = -7;
	__u32 model, bind[3], op;
	int fd = self->node.fd, i;

	ASSERT_NE(NULL, p);
	rnd_seed(13);
	for (i = 0; i < ALU_E; i++) {
		af[i] = 50.0f * rnd_unit();
		ai[i] = (__s32)rnd();
	}
	ai[0] = INT32_MIN;
	ai[1] = INT32_MAX;
	ai[2] = -20;		/* -20 / -7 = 2 */
	ai[3] = 20;		/* 20 / -7 = -2 */
	nasm_reset(p);
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_FP32, sizeof(af));
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_INT32, sizeof(ai));
	nasm_add_slot(p, NEURON_SLOT_OUTPUT, NEURON_DT_FP32, sizeof(yf) + sizeof(yi));
	for (op = 0; op < ALU_OPS; op++)
		nasm_ts(p, NEURON_DT_FP32, op, SLOT(2, op * ALU_E * 4), SLOT(0, 0), nasm_f2u(sf),
			ALU_M, ALU_N);
	for (op = 0; op < ALU_OPS; op++)
		nasm_ts(p, NEURON_DT_INT32, op, SLOT(2, sizeof(yf) + op * ALU_E * 4),
			SLOT(1, 0), (__u32)si, ALU_M, ALU_N);
	nasm_ts(p, NEURON_DT_INT32, NEURON_ALU_DIV,
		SLOT(2, sizeof(yf) + ALU_OPS * ALU_E * 4), SLOT(1, 0), (__u32)-1,
	     ALU_M, ALU_N);
	nasm_end(p, NEURON_ENGINE_DVE);
	model = load_ok(_metadata, fd, 0, p);
	bind[0] = alloc_ok(_metadata, fd, 0, sizeof(af));
	bind[1] = alloc_ok(_metadata, fd, 0, sizeof(ai));
	bind[2] = alloc_ok(_metadata, fd, 0, sizeof(yf) + sizeof(yi));
	ASSERT_EQ(0, dev_write(fd, bind[0], af, sizeof(af)));
	ASSERT_EQ(0, dev_write(fd, bind[1], ai, sizeof(ai)));
	ASSERT_EQ(NEURON_EXEC_OK, exec_sync(fd, model, bind, 3, 0));
	ASSERT_EQ(0, neuron_copy_op(fd, bind[2], 0, 0, 0, NULL, yf, sizeof(yf), 0, NULL));
	ASSERT_EQ(0, neuron_copy_op(fd, bind[2], sizeof(yf), 0, 0, NULL, yi, sizeof(yi),
				    0, NULL));
	for (op = 0; op < ALU_OPS; op++)
		for (i = 0; i < ALU_E; i++) {
			EXPECT_TRUE(same_f(yf[op * ALU_E + i], alu_f(op, af[i], sf)))
				TH_LOG("fp32 op %u: %g op %g = %g", op, af[i], sf,
				       yf[op * ALU_E + i]);
			EXPECT_EQ(alu_i(op, ai[i], si), yi[op * ALU_E + i])
				TH_LOG("int32 op %u: %d op %d", op, ai[i], si);
		}
	for (i = 0; i < ALU_E; i++)
		EXPECT_EQ(alu_i(NEURON_ALU_DIV, ai[i], -1), yi[ALU_OPS * ALU_E + i]);
	nasm_delete(p);
}

/*
 * TT with each ALU op on fp32 and int32, then ADD and MUL with BCAST (b is
 * one row). fp32 DIV by 0 is an infinity, not an error; INT32_MIN / -1.
 */
TEST_F(exec, tt_ops)
{
	float af[ALU_E], bf[ALU_E], yf[(ALU_OPS + 2) * ALU_E];
	__s32 ai[ALU_E], bi[ALU_E], yi[(ALU_OPS + 2) * ALU_E];
	struct nasm *p = nasm_new();
	__u32 model, bind[5], op, out_i = sizeof(yf);
	int fd = self->node.fd, i, j;

	ASSERT_NE(NULL, p);
	rnd_seed(17);
	for (i = 0; i < ALU_E; i++) {
		af[i] = 50.0f * rnd_unit();
		bf[i] = 50.0f * rnd_unit();
		ai[i] = (__s32)rnd();
		bi[i] = (__s32)rnd() >> (i % 31);
		if (!bi[i])
			bi[i] = 3;
	}
	af[5] = 2.0f;
	bf[5] = 0.0f;		/* +inf */
	af[6] = -2.0f;
	bf[6] = 0.0f;		/* -inf */
	ai[0] = INT32_MIN;
	bi[0] = -1;
	ai[1] = -9;
	bi[1] = 2;		/* -4 */
	nasm_reset(p);
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_FP32, sizeof(af));
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_FP32, sizeof(bf));
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_INT32, sizeof(ai));
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_INT32, sizeof(bi));
	nasm_add_slot(p, NEURON_SLOT_OUTPUT, NEURON_DT_FP32, sizeof(yf) + sizeof(yi));
	for (op = 0; op < ALU_OPS + 2; op++) {
		__u8 func = op < ALU_OPS ? op :
			    (op == ALU_OPS ? NEURON_ALU_ADD : NEURON_ALU_MUL) | NEURON_TPB_BCAST;

		nasm_tt(p, NEURON_DT_FP32, func, SLOT(4, op * ALU_E * 4), SLOT(0, 0),
			SLOT(1, 0), ALU_M, ALU_N);
		nasm_tt(p, NEURON_DT_INT32, func, SLOT(4, out_i + op * ALU_E * 4), SLOT(2, 0),
			SLOT(3, 0), ALU_M, ALU_N);
	}
	nasm_end(p, NEURON_ENGINE_DVE);
	model = load_ok(_metadata, fd, 1, p);
	bind[0] = alloc_ok(_metadata, fd, 1, sizeof(af));
	bind[1] = alloc_ok(_metadata, fd, 1, sizeof(bf));
	bind[2] = alloc_ok(_metadata, fd, 1, sizeof(ai));
	bind[3] = alloc_ok(_metadata, fd, 1, sizeof(bi));
	bind[4] = alloc_ok(_metadata, fd, 1, sizeof(yf) + sizeof(yi));
	ASSERT_EQ(0, dev_write(fd, bind[0], af, sizeof(af)));
	ASSERT_EQ(0, dev_write(fd, bind[1], bf, sizeof(bf)));
	ASSERT_EQ(0, dev_write(fd, bind[2], ai, sizeof(ai)));
	ASSERT_EQ(0, dev_write(fd, bind[3], bi, sizeof(bi)));
	ASSERT_EQ(NEURON_EXEC_OK, exec_sync(fd, model, bind, 5, 0));
	ASSERT_EQ(0, neuron_copy_op(fd, bind[4], 0, 0, 0, NULL, yf, sizeof(yf), 0, NULL));
	ASSERT_EQ(0, neuron_copy_op(fd, bind[4], out_i, 0, 0, NULL, yi, sizeof(yi),
				    0, NULL));
	for (op = 0; op < ALU_OPS + 2; op++)
		for (i = 0; i < ALU_E; i++) {
			__u32 aop = op < ALU_OPS ? op :
				    (op == ALU_OPS ? NEURON_ALU_ADD : NEURON_ALU_MUL);
			/* BCAST: b[j], j the column. */
			j = op < ALU_OPS ? i : i % ALU_N;
			EXPECT_TRUE(same_f(yf[op * ALU_E + i], alu_f(aop, af[i], bf[j])))
				TH_LOG("fp32 op %u [%d]: %g op %g = %g", op, i, af[i], bf[j],
				       yf[op * ALU_E + i]);
			EXPECT_EQ(alu_i(aop, ai[i], bi[j]), yi[op * ALU_E + i])
				TH_LOG("int32 op %u [%d]: %d op %d", op, i, ai[i], bi[j]);
		}
	EXPECT_TRUE(isinf(yf[NEURON_ALU_DIV * ALU_E + 5]) && yf[NEURON_ALU_DIV * ALU_E + 5] > 0);
	nasm_delete(p);
}

/*
 * int32 DIV by 0: BAD_INPUT (WAIT: -EDOM), the execution stops there (the
 * next instruction does not run), and the NC works on.
 */
TEST_F(exec, int_div_by_zero)
{
	__s32 a[ALU_E], b[ALU_E], y[2 * ALU_E];
	struct nasm *p = nasm_new();
	__u32 model, bind[3];
	int fd = self->node.fd, i;
	__u64 seq;

	ASSERT_NE(NULL, p);
	for (i = 0; i < ALU_E; i++) {
		a[i] = 100 + i;
		b[i] = 1 + i % 5;
	}
	nasm_reset(p);
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_INT32, sizeof(a));
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_INT32, sizeof(b));
	nasm_add_slot(p, NEURON_SLOT_OUTPUT, NEURON_DT_INT32, sizeof(y));
	nasm_tt(p, NEURON_DT_INT32, NEURON_ALU_DIV, SLOT(2, 0), SLOT(0, 0), SLOT(1, 0),
		ALU_M, ALU_N);
	nasm_ts(p, NEURON_DT_INT32, NEURON_ALU_ADD, SLOT(2, ALU_E * 4), SLOT(0, 0), 1,
		ALU_M, ALU_N);
	nasm_end(p, NEURON_ENGINE_DVE);
	model = load_ok(_metadata, fd, 0, p);
	bind[0] = alloc_ok(_metadata, fd, 0, sizeof(a));
	bind[1] = alloc_ok(_metadata, fd, 0, sizeof(b));
	bind[2] = alloc_ok(_metadata, fd, 0, sizeof(y));
	ASSERT_EQ(0, dev_write(fd, bind[0], a, sizeof(a)));
	/* A good run first. */
	ASSERT_EQ(0, dev_write(fd, bind[1], b, sizeof(b)));
	ASSERT_EQ(NEURON_EXEC_OK, exec_sync(fd, model, bind, 3, 0));
	ASSERT_EQ(0, dev_read(fd, bind[2], y, sizeof(y)));
	for (i = 0; i < ALU_E; i++) {
		EXPECT_EQ(a[i] / b[i], y[i]);
		EXPECT_EQ(a[i] + 1, y[ALU_E + i]);
	}
	/* Now with a 0 in b. */
	b[37] = 0;
	ASSERT_EQ(0, dev_write(fd, bind[1], b, sizeof(b)));
	memset(y, 0x55, sizeof(y));
	ASSERT_EQ(0, dev_write(fd, bind[2], y, sizeof(y)));
	EXPECT_EQ(NEURON_EXEC_BAD_INPUT, exec_sync(fd, model, bind, 3, 0));
	ASSERT_EQ(0, dev_read(fd, bind[2], y, sizeof(y)));
	for (i = 0; i < ALU_E; i++)
		EXPECT_EQ(0x55555555, y[ALU_E + i]) TH_LOG("the TS after the fault ran");
	ASSERT_EQ(0, exec_async(fd, model, bind, 3, 0, &seq));
	EXPECT_EQ(-EDOM, exec_wait(fd, seq));
	/* Fixed input: right again. */
	b[37] = 4;
	ASSERT_EQ(0, dev_write(fd, bind[1], b, sizeof(b)));
	ASSERT_EQ(NEURON_EXEC_OK, exec_sync(fd, model, bind, 3, 0));
	ASSERT_EQ(0, dev_read(fd, bind[2], y, sizeof(y)));
	for (i = 0; i < ALU_E; i++) {
		EXPECT_EQ(a[i] / b[i], y[i]);
		EXPECT_EQ(a[i] + 1, y[ALU_E + i]);
	}
	nasm_delete(p);
}

/* ---- 5. validation ---- */

/*
 * The model of the validation tests: slot 0 input and slot 1 output of
 * 4096 bytes, 4096 bytes of data and of scratch; the engine under test has
 * {COPY, the instruction under test, END}, another engine (PE, or SP when
 * PE is tested) has {END}.
 */
#define VAL_SIZE	4096

/* A valid TS on DVE: scratch = slot 0 + 1, 4 x 16 int32. */
static void val_ts(struct neuron_tpb_insn *i)
{
	memset(i, 0, sizeof(*i));
	i->opcode = NEURON_TPB_TS;
	i->dtype = NEURON_DT_INT32;
	i->func = NEURON_ALU_ADD;
	i->imm = 1;
	i->m = 4;
	i->n = 16;
	i->dst = SCR(0);
	i->a = SLOT(0, 0);
}

static void val_op(struct neuron_tpb_insn *i, __u8 opcode)
{
	memset(i, 0, sizeof(*i));
	i->opcode = opcode;
}

/*
 * Make the instruction under test invalid in way @c; *@engine is the
 * block's engine (DVE unless set). The case's name, or NULL past the last.
 */
static const char *bad_insn(unsigned int c, struct neuron_tpb_insn *i,
			    const struct neuron_device_info *info, __u32 *engine)
{
	*engine = NEURON_ENGINE_DVE;
	val_ts(i);
	switch (c) {
	case 0:
		i->opcode = 0;
		return "opcode 0";
	case 1:
		i->opcode = 0x77;
		return "unknown opcode 0x77";
	case 2:
		i->opcode = 0xff;
		return "unknown opcode 0xff";
	case 3:
		val_op(i, NEURON_TPB_MATMUL);
		i->m = 4;
		i->k = 4;
		i->n = 4;
		i->dst = SCR(0);
		i->a = SLOT(0, 0);
		i->b = DATA(0);
		return "MATMUL on DVE";
	case 4:
		val_op(i, NEURON_TPB_ACT);
		i->func = NEURON_ACT_RELU;
		i->n = 4;
		i->dst = SCR(0);
		i->a = SLOT(0, 0);
		return "ACT on DVE";
	case 5:
		val_op(i, NEURON_TPB_POOL);
		i->m = 1;
		i->n = 4;
		i->k = 2;
		i->dst = SCR(0);
		i->a = SLOT(0, 0);
		return "POOL on DVE";
	case 6:
		*engine = NEURON_ENGINE_PE;
		return "TS on PE";
	case 7:
		i->opcode = NEURON_TPB_TT;
		i->imm = 0;
		i->b = DATA(0);
		*engine = NEURON_ENGINE_ACT;
		return "TT on ACT";
	case 8:
		i->dtype = 2;
		return "dtype 2";
	case 9:
		i->dtype = 0xff;
		return "dtype 0xff";
	case 10:
		i->flags = 1;
		return "flags 1";
	case 11:
		i->flags = 0x80;
		return "flags 0x80";
	case 12:
		i->func = 5;
		return "func 5 (no such ALU op)";
	case 13:
		i->func = NEURON_ALU_ADD | NEURON_TPB_BCAST;
		return "TS with BCAST";
	case 14:
		i->k = 1;
		return "TS with k";
	case 15:
		i->index = 1;
		return "TS with index";
	case 16:
		i->b = SCR(0);
		return "TS with b.region";
	case 17:
		i->b = DATA(4);
		return "TS with b.offset";
	case 18:
		i->m = 0;
		return "m 0";
	case 19:
		i->n = 0;
		return "n 0";
	case 20:
		i->m = NEURON_TPB_MAX_DIM + 1;
		i->n = 1;
		return "m above NEURON_TPB_MAX_DIM";
	case 21:
		i->m = NEURON_TPB_MAX_DIM;
		i->n = NEURON_TPB_MAX_DIM;
		return "m x n above NEURON_TPB_MAX_ELEMS";
	case 22:
		i->a = SLOT(0, 4);
		i->m = 16;
		i->n = 64;
		return "a past the end of slot 0";
	case 23:
		i->dst = SCR(VAL_SIZE - 4);
		i->m = 1;
		i->n = 2;
		return "dst past the end of scratch";
	case 24:
		i->a = SLOT(0, 2);
		return "a misaligned";
	case 25:
		i->dst = SCR(6);
		return "dst misaligned";
	case 26:
		i->dst = DATA(0);
		return "dst in the data region";
	case 27:
		i->dst = SLOT(0, 0);
		return "dst in an input slot";
	case 28:
		i->a = SLOT(2, 0);
		return "a in slot 2 of 2";
	case 29:
		i->a = nasm_ref(1000, 0);
		return "a in region 1000";
	case 30:
		val_op(i, NEURON_TPB_SEM_SIGNAL);
		i->index = info->semaphores_per_nc;
		i->imm = 1;
		return "SEM_SIGNAL index semaphores_per_nc";
	case 31:
		val_op(i, NEURON_TPB_SEM_WAIT);
		i->index = 1;
		return "SEM_WAIT imm 0";
	case 32:
		val_op(i, NEURON_TPB_EVENT_SET);
		i->imm = 2;
		return "EVENT_SET imm 2";
	case 33:
		val_op(i, NEURON_TPB_EVENT_WAIT);
		i->index = info->events_per_nc;
		i->imm = 1;
		return "EVENT_WAIT index events_per_nc";
	case 34:
		val_op(i, NEURON_TPB_JUMP);
		i->imm = 3;
		return "JUMP past the block";
	case 35:
		val_op(i, NEURON_TPB_JUMP);
		i->imm = ~0U;
		return "JUMP to ~0";
	case 36:
		val_op(i, NEURON_TPB_END);
		i->imm = 1;
		return "END with imm";
	case 37:
		val_op(i, NEURON_TPB_COPY);
		i->dst = SCR(0);
		i->a = SLOT(0, 0);
		return "COPY n 0";
	case 38:
		val_op(i, NEURON_TPB_COPY);
		i->n = 4;
		i->m = 1;
		i->dst = SCR(0);
		i->a = SLOT(0, 0);
		return "COPY with m";
	case 39:
		val_op(i, NEURON_TPB_NOTIFY);
		i->imm = 5;
		i->n = 1;
		return "NOTIFY with n";
	case 40:
		i->opcode = NEURON_TPB_TT;
		i->func = NEURON_ALU_ADD | NEURON_TPB_BCAST;
		i->imm = 0;
		i->m = 2;
		i->n = 2;
		i->b = DATA(VAL_SIZE - 4);
		return "TT BCAST b past the end of data";
	case 41:
		val_op(i, NEURON_TPB_ACT);
		i->dtype = NEURON_DT_INT32;
		i->func = NEURON_ACT_SIGMOID;
		i->n = 4;
		i->dst = SCR(0);
		i->a = SLOT(0, 0);
		*engine = NEURON_ENGINE_ACT;
		return "ACT SIGMOID on int32";
	case 42:
		val_op(i, NEURON_TPB_ACT);
		i->func = 4;
		i->n = 4;
		i->dst = SCR(0);
		i->a = SLOT(0, 0);
		*engine = NEURON_ENGINE_ACT;
		return "ACT func 4";
	case 43:
		val_op(i, NEURON_TPB_POOL);
		i->func = 2;
		i->m = 1;
		i->n = 4;
		i->k = 2;
		i->dst = SCR(0);
		i->a = SLOT(0, 0);
		*engine = NEURON_ENGINE_POOL;
		return "POOL func 2";
	case 44:
		val_op(i, NEURON_TPB_POOL);
		i->m = 1;
		i->n = 4;
		i->dst = SCR(0);
		i->a = SLOT(0, 0);
		*engine = NEURON_ENGINE_POOL;
		return "POOL k 0";
	case 45:
		val_op(i, NEURON_TPB_MATMUL);
		i->func = 2;
		i->m = 4;
		i->k = 4;
		i->n = 4;
		i->dst = SCR(0);
		i->a = SLOT(0, 0);
		i->b = DATA(0);
		*engine = NEURON_ENGINE_PE;
		return "MATMUL func 2";
	case 46:
		val_op(i, NEURON_TPB_MATMUL);
		i->m = 32;
		i->k = 32;
		i->n = 32;
		i->dst = SCR(0);
		i->a = SLOT(0, 4);
		i->b = DATA(0);
		*engine = NEURON_ENGINE_PE;
		return "MATMUL a past the end of slot 0";
	case 47:
		val_op(i, NEURON_TPB_MATMUL);
		i->m = 1;
		i->k = NEURON_TPB_MAX_DIM + 1;
		i->n = 1;
		i->dst = SCR(0);
		i->a = SLOT(0, 0);
		i->b = DATA(0);
		*engine = NEURON_ENGINE_PE;
		return "MATMUL k above NEURON_TPB_MAX_DIM";
	case 48:
		val_op(i, NEURON_TPB_MATMUL);
		i->m = 2;
		i->k = 2;
		i->n = 2;
		i->dst = SLOT(0, 0);
		i->a = SLOT(0, 0);
		i->b = DATA(0);
		*engine = NEURON_ENGINE_PE;
		return "MATMUL dst in an input slot";
	case 49:
		val_op(i, NEURON_TPB_COPY);
		i->n = 4;
		i->dst = DATA(0);
		i->a = SLOT(0, 0);
		*engine = NEURON_ENGINE_POOL;
		return "COPY into the data region";
	case 50:
		val_op(i, NEURON_TPB_SEM_SIGNAL);
		i->index = 1;
		i->imm = 1;
		i->dst = SCR(0);
		return "SEM_SIGNAL with dst";
	}
	return NULL;
}

/* The validation model with @bad as block 1's instruction 1. */
static void val_prog(struct nasm *p, const struct neuron_tpb_insn *bad, __u32 engine,
		     const void *data)
{
	nasm_reset(p);
	p->data = data;
	p->data_size = VAL_SIZE;
	p->scratch_size = VAL_SIZE;
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_INT32, VAL_SIZE);
	nasm_add_slot(p, NEURON_SLOT_OUTPUT, NEURON_DT_INT32, VAL_SIZE);
	nasm_end(p, engine == NEURON_ENGINE_PE ? NEURON_ENGINE_SP : NEURON_ENGINE_PE);
	nasm_copy(p, engine, SCR(0), SLOT(0, 0), 4);
	*nasm_emit(p, engine, 0, 0, 0) = *bad;
	nasm_end(p, engine);
}

TEST_F(exec, load_refuses_invalid_insns)
{
	static __u32 data[VAL_SIZE / 4];
	struct nasm *p = nasm_new();
	struct neuron_model_load ld;
	struct neuron_tpb_insn bad;
	const char *name;
	unsigned int c;
	__u32 engine;
	int ret;

	ASSERT_NE(NULL, p);
	/* The valid model loads. */
	val_ts(&bad);
	val_prog(p, &bad, NEURON_ENGINE_DVE, data);
	load_ok(_metadata, self->node.fd, 0, p);
	for (c = 0; (name = bad_insn(c, &bad, &self->info, &engine)); c++) {
		val_prog(p, &bad, engine, data);
		ret = nasm_load(self->node.fd, 0, p, &ld);
		EXPECT_EQ(-ENOEXEC, ret) TH_LOG("%s: %s", name, strerror(-ret));
		/* Blocks in engine order: PE's is block 0, the others 1. */
		EXPECT_EQ(engine == NEURON_ENGINE_PE ? 0U : 1U, ld.err_block)
			TH_LOG("%s", name);
		EXPECT_EQ(1U, ld.err_insn) TH_LOG("%s", name);
	}
	nasm_delete(p);
}

/* The ends of blocks, err_insn of the first block, regions of size 0. */
TEST_F(exec, load_refuses_bad_blocks)
{
	static __u32 data[VAL_SIZE / 4];
	struct nasm *p = nasm_new();
	struct neuron_model_load ld;
	struct neuron_tpb_insn ts;

	ASSERT_NE(NULL, p);
	/* No END: err_insn is the block's length. */
	val_ts(&ts);
	val_prog(p, &ts, NEURON_ENGINE_DVE, data);
	p->blocks[NEURON_ENGINE_DVE].count--;
	EXPECT_EQ(-ENOEXEC, nasm_load(self->node.fd, 0, p, &ld));
	EXPECT_EQ(1U, ld.err_block);
	EXPECT_EQ(2U, ld.err_insn);
	/* A one-instruction block that is not END. */
	nasm_reset(p);
	p->scratch_size = VAL_SIZE;
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_INT32, VAL_SIZE);
	nasm_copy(p, NEURON_ENGINE_PE, SCR(0), SLOT(0, 0), 4);
	EXPECT_EQ(-ENOEXEC, nasm_load(self->node.fd, 0, p, &ld));
	EXPECT_EQ(0U, ld.err_block);
	EXPECT_EQ(1U, ld.err_insn);
	/* Ending with JUMP is fine (to itself: loads, would run forever). */
	nasm_jump(p, NEURON_ENGINE_PE, 1);
	load_ok(_metadata, self->node.fd, 0, p);
	/* The first bad instruction of the first block. */
	nasm_reset(p);
	nasm_copy(p, NEURON_ENGINE_PE, SCR(0), SCR(16), 4);
	nasm_end(p, NEURON_ENGINE_PE);
	nasm_end(p, NEURON_ENGINE_ACT);
	/* No scratch: a region of size 0 cannot be referenced. */
	EXPECT_EQ(-ENOEXEC, nasm_load(self->node.fd, 0, p, &ld));
	EXPECT_EQ(0U, ld.err_block);
	EXPECT_EQ(0U, ld.err_insn);
	p->scratch_size = 64;
	load_ok(_metadata, self->node.fd, 0, p);
	/* No data. */
	p->blocks[NEURON_ENGINE_PE].insns[0].a = DATA(0);
	EXPECT_EQ(-ENOEXEC, nasm_load(self->node.fd, 0, p, &ld));
	EXPECT_EQ(0U, ld.err_block);
	EXPECT_EQ(0U, ld.err_insn);
	p->data = data;
	p->data_size = 16;
	load_ok(_metadata, self->node.fd, 0, p);
	/* Exactly at the end of the region is inside; one more is not. */
	p->blocks[NEURON_ENGINE_PE].insns[0].a = DATA(4);
	EXPECT_EQ(-ENOEXEC, nasm_load(self->node.fd, 0, p, &ld));
	p->blocks[NEURON_ENGINE_PE].insns[0].n = 3;
	load_ok(_metadata, self->node.fd, 0, p);
	nasm_delete(p);
}

/* -EINVAL for the argument, the blocks and the slots; -E2BIG; -EACCES. */
TEST_F(exec, load_refuses_bad_args)
{
	struct neuron_tpb_insn end = { .opcode = NEURON_TPB_END };
	struct neuron_model_block blk[NEURON_ENGINES + 1];
	struct neuron_model_slot sl[NEURON_MAX_SLOTS + 1];
	struct neuron_tpb_insn *big;
	struct neuron_model_load ld;
	int fd = self->node.fd, c, i;

	for (c = 0; c < 32; c++) {
		const char *name = NULL;

		memset(blk, 0, sizeof(blk));
		memset(sl, 0, sizeof(sl));
		for (i = 0; i <= NEURON_ENGINES; i++) {
			blk[i].insns = (uintptr_t)&end;
			blk[i].count = 1;
			blk[i].engine = i;
		}
		for (i = 0; i <= NEURON_MAX_SLOTS; i++) {
			sl[i].size = 64;
			sl[i].kind = NEURON_SLOT_INPUT;
			sl[i].ndim = 2;
			sl[i].shape[0] = 4;
			sl[i].shape[1] = 4;
		}
		memset(&ld, 0, sizeof(ld));
		ld.blocks = (uintptr_t)blk;
		ld.nblocks = 2;
		ld.slots = (uintptr_t)sl;
		ld.nslots = 2;
		switch (c) {
		case 0:
			/* Control: valid. */
			break;
		case 1:
			ld.flags = 1;
			name = "flags";
			break;
		case 2:
			ld.pad = 1;
			name = "pad";
			break;
		case 3:
			ld.nblocks = 0;
			name = "nblocks 0";
			break;
		case 4:
			ld.nblocks = NEURON_ENGINES + 1;
			name = "nblocks 6";
			break;
		case 5:
			blk[1].engine = blk[0].engine;
			name = "an engine twice";
			break;
		case 6:
			blk[1].engine = NEURON_ENGINES;
			name = "engine 5";
			break;
		case 7:
			blk[1].count = 0;
			name = "block count 0";
			break;
		case 8:
			ld.nslots = NEURON_MAX_SLOTS + 1;
			name = "nslots 65";
			break;
		case 9:
			sl[1].size = 0;
			sl[1].ndim = 0;
			name = "slot size 0";
			break;
		case 10:
			sl[1].size = 66;
			sl[1].ndim = 0;
			name = "slot size not a multiple of 4";
			break;
		case 11:
			sl[1].kind = 2;
			name = "slot kind 2";
			break;
		case 12:
			sl[1].dtype = 2;
			name = "slot dtype 2";
			break;
		case 13:
			sl[1].ndim = NEURON_MAX_DIMS + 1;
			name = "slot ndim 5";
			break;
		case 14:
			sl[1].shape[1] = 5;
			name = "slot shape product != size / 4";
			break;
		case 15:
			sl[1].shape[2] = 1;
			name = "slot shape entry past ndim";
			break;
		case 16:
			ld.nc = self->info.nc_count;
			name = "nc past nc_count";
			break;
		case 17:
			ld.nslots = NEURON_MAX_SLOTS;
			name = NULL;	/* 64 slots: fine */
			break;
		case 18:
			ld.nblocks = NEURON_ENGINES;
			name = NULL;	/* every engine: fine */
			break;
		default:
			c = 99;
			continue;
		}
		ld.err_block = 0;
		ld.err_insn = 0;
		if (name) {
			EXPECT_EQ(-EINVAL, neuron_ioctl(fd, NEURON_IOCTL_MODEL_LOAD, &ld))
				TH_LOG("%s", name);
			/* Not an instruction: no block or instruction to blame. */
			EXPECT_EQ(~0U, ld.err_block) TH_LOG("%s", name);
			EXPECT_EQ(~0U, ld.err_insn) TH_LOG("%s", name);
		} else {
			EXPECT_EQ(0, neuron_ioctl(fd, NEURON_IOCTL_MODEL_LOAD, &ld))
				TH_LOG("valid load %d", c);
		}
	}
	/* More than NEURON_TPB_MAX_INSNS instructions. */
	big = calloc(NEURON_TPB_MAX_INSNS + 1, sizeof(*big));
	ASSERT_NE(NULL, big);
	for (i = 0; i <= NEURON_TPB_MAX_INSNS; i++)
		big[i].opcode = NEURON_TPB_END;
	memset(blk, 0, sizeof(blk));
	blk[0].insns = (uintptr_t)big;
	blk[0].count = NEURON_TPB_MAX_INSNS + 1;
	memset(&ld, 0, sizeof(ld));
	ld.blocks = (uintptr_t)blk;
	ld.nblocks = 1;
	EXPECT_EQ(-E2BIG, neuron_ioctl(fd, NEURON_IOCTL_MODEL_LOAD, &ld));
	/* NEURON_TPB_MAX_INSNS is fine. */
	blk[0].count = NEURON_TPB_MAX_INSNS;
	EXPECT_EQ(0, neuron_ioctl(fd, NEURON_IOCTL_MODEL_LOAD, &ld));
	free(big);
	/* The NC must be reserved by the file. */
	blk[0].insns = (uintptr_t)&end;
	blk[0].count = 1;
	ld.nc = 1;
	ASSERT_EQ(0, neuron_release(fd, 2));
	EXPECT_EQ(-EACCES, neuron_ioctl(fd, NEURON_IOCTL_MODEL_LOAD, &ld));
}

/* EXECUTE's and MODEL_UNLOAD's checks. */
TEST_F(exec, execute_refuses_bad_args)
{
	struct nasm *p = nasm_new();
	struct neuron_model_unload u;
	struct neuron_mem_alloc host;
	struct neuron_model_load ld;
	struct neuron_execute x;
	__u32 model, m1, bind[2], bind1[2], small, other = 0, h;
	int fd = self->node.fd, fd2, i;

	ASSERT_NE(NULL, p);
	nasm_reset(p);
	nasm_add_slot(p, NEURON_SLOT_INPUT, NEURON_DT_INT32, 8192);
	nasm_add_slot(p, NEURON_SLOT_OUTPUT, NEURON_DT_INT32, 8192);
	nasm_copy(p, NEURON_ENGINE_SP, SLOT(1, 0), SLOT(0, 0), 2048);
	nasm_end(p, NEURON_ENGINE_SP);
	model = load_ok(_metadata, fd, 0, p);
	bind[0] = alloc_ok(_metadata, fd, 0, 8192);
	bind[1] = alloc_ok(_metadata, fd, 0, 8192);
	small = alloc_ok(_metadata, fd, 0, 4096);
	ASSERT_EQ(0, neuron_mem_alloc(fd, NEURON_MEM_HOST, 8192, 0, &host));
	/* Control. */
	EXPECT_EQ(NEURON_EXEC_OK, exec_sync(fd, model, bind, 2, 0));
	/* Binding count. */
	EXPECT_EQ(-EINVAL, exec_sync(fd, model, bind, 1, 0));
	EXPECT_EQ(-EINVAL, exec_sync(fd, model, bind, 0, 0));
	/* Fields. */
	EXPECT_EQ(-EINVAL, exec_req(fd, model, bind, 2, 2, 0, &x));
	EXPECT_EQ(-EINVAL, exec_sync(fd, model, bind, 2, 600001));
	memset(&x, 0, sizeof(x));
	x.model = model;
	x.bindings = (uintptr_t)bind;
	x.nbindings = 2;
	x.flags = NEURON_EXEC_WAIT;
	x.pad = 1;
	EXPECT_EQ(-EINVAL, neuron_ioctl(fd, NEURON_IOCTL_EXECUTE, &x));
	/* A tensor smaller than its slot. */
	h = bind[1];
	bind[1] = small;
	EXPECT_EQ(-EINVAL, exec_sync(fd, model, bind, 2, 0));
	/* Host memory. */
	bind[1] = host.handle;
	EXPECT_EQ(-EINVAL, exec_sync(fd, model, bind, 2, 0));
	/* A handle of another file (not one of this file's numbers). */
	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, neuron_release(fd, 1ULL << (self->info.nc_count - 1)));
	for (i = 0; i < 16 && !other; i++) {
		__u32 cand = dev_alloc(fd2, self->info.nc_count - 1, 8192);

		ASSERT_NE(0U, cand);
		if (cand != bind[0] && cand != h && cand != small && cand != host.handle &&
		    cand != model)
			other = cand;
	}
	ASSERT_NE(0U, other);
	bind[1] = other;
	EXPECT_EQ(-ENOENT, exec_sync(fd, model, bind, 2, 0));
	bind[1] = 0xfffffff0U;
	EXPECT_EQ(-ENOENT, exec_sync(fd, model, bind, 2, 0));
	bind[1] = h;
	/* A model of another file: fd2 loads on the NC it reserved. */
	ASSERT_EQ(0, neuron_reserve(fd2, 1ULL << (self->info.nc_count - 1)));
	ASSERT_EQ(0, nasm_load(fd2, self->info.nc_count - 1, p, &ld));
	if (ld.handle != model)
		EXPECT_EQ(-ENOENT, exec_sync(fd, ld.handle, bind, 2, 0));
	EXPECT_EQ(-ENOENT, exec_sync(fd, model + 1000, bind, 2, 0));
	EXPECT_EQ(-ENOENT, neuron_model_unload(fd, model + 1000));
	close(fd2);
	ASSERT_EQ(0, neuron_reserve(fd, 1ULL << (self->info.nc_count - 1)));
	/* The model's NC released: -EACCES, and the model stays. */
	m1 = load_ok(_metadata, fd, 1, p);
	bind1[0] = alloc_ok(_metadata, fd, 1, 8192);
	bind1[1] = alloc_ok(_metadata, fd, 1, 8192);
	ASSERT_EQ(0, neuron_release(fd, 2));
	EXPECT_EQ(-EACCES, exec_sync(fd, m1, bind1, 2, 0));
	ASSERT_EQ(0, neuron_reserve(fd, 2));
	EXPECT_EQ(NEURON_EXEC_OK, exec_sync(fd, m1, bind1, 2, 0));
	/* UNLOAD: flags; then the handle is gone. */
	u.handle = m1;
	u.flags = 1;
	EXPECT_EQ(-EINVAL, neuron_ioctl(fd, NEURON_IOCTL_MODEL_UNLOAD, &u));
	EXPECT_EQ(0, neuron_model_unload(fd, m1));
	EXPECT_EQ(-ENOENT, neuron_model_unload(fd, m1));
	EXPECT_EQ(-ENOENT, exec_sync(fd, m1, bind1, 2, 0));
	/* A memory handle is not a model. */
	EXPECT_EQ(small == model ? NEURON_EXEC_OK : -ENOENT,
		  exec_sync(fd, small, bind, 2, 0));
	nasm_delete(p);
}

/* ---- notification queues ---- */

static void expect_entry(struct __test_metadata *_metadata, const struct nio_notify_queue *r,
			 __u32 i, __u32 code, __u32 data, bool check_data)
{
	const struct neuron_notify_entry *e = neuron_ring_entry(r, i);

	EXPECT_EQ(i, e->seq);
	EXPECT_EQ(r->type, (__u32)e->type);
	EXPECT_EQ(r->nc, (__u32)e->nc);
	EXPECT_EQ(code, e->code) TH_LOG("entry %u: code %#x, want %#x", i, e->code, code);
	if (check_data)
		EXPECT_EQ(data, e->data);
}

/* Poll (up to SETTLE_MS) until the ring's head reaches @head; the head. */
static __u32 ring_head_wait(const struct nio_notify_queue *r, __u32 head)
{
	__u32 now = neuron_ring_head(r);
	int i;

	for (i = 0; i < SETTLE_MS / 10 && now < head; i++) {
		neuron_sleep_ms(10);
		now = neuron_ring_head(r);
	}
	return now;
}

/* ---- 6. hangs, timeouts, knobs ---- */

/* A model of no slots whose SP waits for semaphore @sem (+ @count). */
static void wait_prog(struct nasm *p, __u32 sem, __u32 count)
{
	nasm_reset(p);
	nasm_wait(p, NEURON_ENGINE_SP, sem, count);
	nasm_end(p, NEURON_ENGINE_SP);
}

/* A model of no slots whose PE jumps to itself forever. */
static void loop_prog(struct nasm *p)
{
	nasm_reset(p);
	nasm_end(p, NEURON_ENGINE_SP);
	nasm_jump(p, NEURON_ENGINE_PE, 0);
}

static long long ms_since(__s64 t0)
{
	return (neuron_now_ns() - t0) / NSEC_PER_MSEC;
}

/*
 * NC 0 runs a program that never ends (@loop: a JUMP to itself, else a
 * SEM_WAIT nobody signals) with timeout_ms 300, two matmuls queued behind
 * it; NC 1 runs matmuls all along. NC 0 is reset after 300 ms (-ETIMEDOUT,
 * an ERROR notification), the queued ones are cancelled, NC 1 never
 * fails, and NC 0 works right after.
 */
static void hang_and_recover(struct __test_metadata *_metadata,
			     struct _test_data_exec *self, bool loop, __u32 nth)
{
	struct mm *j0 = &self->mm[0], *j1 = &self->mm[1];
	struct nasm *p = nasm_new();
	int fd = self->node.fd, ret, runs = 0;
	__u64 hs, q1, q2;
	__u32 hang, flags = 0;
	struct nio_notify_queue er;
	long long ms;
	__s64 t0;

	ASSERT_NE(NULL, p);
	neuron_ring_open_ok(_metadata, fd, 0, NEURON_NOTIFY_ERROR, 16, -1, &er);
	mm_free(j0);
	mm_free(j1);
	ASSERT_EQ(0, mm_setup(j0, fd, 0, NEURON_DT_INT32, 16, 24, 8, 21));
	ASSERT_EQ(0, mm_setup(j1, fd, 1, NEURON_DT_FP32, 33, 47, 29, 22));
	if (loop)
		loop_prog(p);
	else
		wait_prog(p, 20, 1);
	hang = load_ok(_metadata, fd, 0, p);
	nasm_delete(p);
	ASSERT_EQ(0, mm_clear(j0));
	t0 = neuron_now_ns();
	ASSERT_EQ(0, exec_async(fd, hang, NULL, 0, 300, &hs));
	ASSERT_EQ(0, exec_async(fd, j0->model, j0->bind, 3, 0, &q1));
	ASSERT_EQ(0, exec_async(fd, j0->model, j0->bind, 3, 0, &q2));
	while ((ret = neuron_wait_seq(fd, hs, 0)) == -ETIME && ms_since(t0) < 10000) {
		EXPECT_EQ(0, mm_run(j1, 0)) TH_LOG("NC 1 run %d", runs);
		runs++;
	}
	ms = ms_since(t0);
	EXPECT_EQ(-ETIMEDOUT, ret);
	/* timeout_ms, not the module's 5000 ms. */
	EXPECT_LE(250, ms);
	EXPECT_GT(4000, ms);
	EXPECT_LT(0, runs);
	EXPECT_EQ(-ECANCELED, exec_wait(fd, q1));
	EXPECT_EQ(-ECANCELED, exec_wait(fd, q2));
	/* Back in service, still the file's. */
	EXPECT_EQ((__u32)NEURON_NC_RESERVED, nc_state_wait(fd, 0, NEURON_NC_RESERVED));
	EXPECT_EQ((__u32)NEURON_NC_RESERVED, nc_state(fd, 0, &flags));
	EXPECT_TRUE(!!(flags & NEURON_NC_STATE_MINE));
	EXPECT_EQ(nth + 1, ring_head_wait(&er, nth + 1));
	expect_entry(_metadata, &er, nth, NEURON_NOTIFY_EXEC_TIMEOUT, 0, false);
	/* NC 0 works at once, NC 1 still does. */
	EXPECT_EQ(0, mm_run(j0, 0));
	EXPECT_EQ(0, mm_run(j1, 0));
	/* The same again, waited for with NEURON_EXEC_WAIT. */
	t0 = neuron_now_ns();
	EXPECT_EQ(NEURON_EXEC_TIMEOUT, exec_sync(fd, hang, NULL, 0, 300));
	EXPECT_LE(250, ms_since(t0));
	EXPECT_EQ(nth + 2, ring_head_wait(&er, nth + 2));
	expect_entry(_metadata, &er, nth + 1, NEURON_NOTIFY_EXEC_TIMEOUT, 0, false);
	EXPECT_EQ(0, mm_run(j0, 0));
	neuron_ring_unmap(&er);
}

TEST_F_TIMEOUT(exec, hang_sem_wait_reset, 60)
{
	hang_and_recover(_metadata, self, false, 0);
}

TEST_F_TIMEOUT(exec, hang_jump_loop_reset, 60)
{
	hang_and_recover(_metadata, self, true, 0);
}

/* exec_timeout_ms applies when timeout_ms is 0; its range. */
TEST_F_TIMEOUT(exec, exec_timeout_param, 60)
{
	unsigned long long v;
	struct nasm p = { 0 };
	__u32 hang;
	__s64 t0;

	ASSERT_EQ(0, set_param(0, 200));
	ASSERT_EQ(0, neuron_param_get(PARAM_TIMEOUT, &v));
	EXPECT_EQ(200ULL, v);
	wait_prog(&p, 21, 1);
	hang = load_ok(_metadata, self->node.fd, 1, &p);
	t0 = neuron_now_ns();
	EXPECT_EQ(NEURON_EXEC_TIMEOUT, exec_sync(self->node.fd, hang, NULL, 0, 0));
	EXPECT_LE(150, ms_since(t0));
	EXPECT_GT(3000, ms_since(t0));
	/* timeout_ms wins over it. */
	t0 = neuron_now_ns();
	EXPECT_EQ(NEURON_EXEC_TIMEOUT, exec_sync(self->node.fd, hang, NULL, 0, 1000));
	EXPECT_LE(900, ms_since(t0));
	/* Out of range values are refused and change nothing. */
	EXPECT_EQ(-EINVAL, neuron_param_set(PARAM_TIMEOUT, 9));
	EXPECT_EQ(-EINVAL, neuron_param_set(PARAM_TIMEOUT, 600001));
	EXPECT_EQ(-EINVAL, neuron_param_set(PARAM_DEPTH, 0));
	EXPECT_EQ(-EINVAL, neuron_param_set(PARAM_DEPTH, 1025));
	ASSERT_EQ(0, neuron_param_get(PARAM_TIMEOUT, &v));
	EXPECT_EQ(200ULL, v);
	EXPECT_EQ(0, set_param(0, 10));
	EXPECT_EQ(0, set_param(0, 600000));
	EXPECT_EQ(0, set_param(1, 1));
	EXPECT_EQ(0, set_param(1, 1024));
}

/* The defaults (when no test changed them). */
TEST_F(exec, param_defaults)
{
	unsigned long long v;

	ASSERT_EQ(0, neuron_param_get(PARAM_TIMEOUT, &v));
	EXPECT_EQ(5000ULL, v);
	ASSERT_EQ(0, neuron_param_get(PARAM_DEPTH, &v));
	EXPECT_EQ(16ULL, v);
}

/* tpb_hang_nc: the next execution on the NC never ends (reset: TIMEOUT). */
TEST_F_TIMEOUT(exec, knob_hang, 60)
{
	struct mm *j = &self->mm[0];
	__u64 seq;

	if (!self->node.created)
		SKIP(return, "needs the simulator's knobs");
	ASSERT_EQ(0, mm_setup(j, self->node.fd, 0, NEURON_DT_INT32, 8, 8, 8, 31));
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "tpb_hang_nc", "1"));
	ASSERT_EQ(0, exec_async(self->node.fd, j->model, j->bind, 3, 300, &seq));
	EXPECT_EQ(-ETIMEDOUT, exec_wait(self->node.fd, seq));
	EXPECT_EQ(0, mm_run(j, 300));
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "tpb_hang_nc", "1"));
	EXPECT_EQ(1000 + NEURON_EXEC_TIMEOUT, mm_run(j, 300));
	EXPECT_EQ(0, mm_run(j, 300));
}

/* tpb_error_nc: DEVICE_ERROR (-EIO), an EXEC_FAULT notification, then fine. */
TEST_F_TIMEOUT(exec, knob_error, 60)
{
	struct mm *j = &self->mm[0];
	struct nio_notify_queue er;
	__u64 seq;

	if (!self->node.created)
		SKIP(return, "needs the simulator's knobs");
	neuron_ring_open_ok(_metadata, self->node.fd, 1, NEURON_NOTIFY_ERROR, 16, -1, &er);
	ASSERT_EQ(0, mm_setup(j, self->node.fd, 1, NEURON_DT_INT32, 8, 8, 8, 32));
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "tpb_error_nc", "2"));
	ASSERT_EQ(0, exec_async(self->node.fd, j->model, j->bind, 3, 0, &seq));
	EXPECT_EQ(-EIO, exec_wait(self->node.fd, seq));
	EXPECT_EQ(1U, ring_head_wait(&er, 1));
	expect_entry(_metadata, &er, 0, NEURON_NOTIFY_EXEC_FAULT, 0, false);
	EXPECT_EQ(0, mm_run(j, 0));
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "tpb_error_nc", "2"));
	EXPECT_EQ(1000 + NEURON_EXEC_DEVICE_ERROR, mm_run(j, 0));
	EXPECT_EQ(0, mm_run(j, 0));
	neuron_ring_unmap(&er);
}

/* tpb_corrupt_nc: bit 30 of the first element flipped, once. */
TEST_F(exec, knob_corrupt)
{
	struct mm *j = &self->mm[0];
	__u32 *c, *ref, i;

	if (!self->node.created)
		SKIP(return, "needs the simulator's knobs");
	ASSERT_EQ(0, mm_setup(j, self->node.fd, 1, NEURON_DT_INT32, 12, 20, 9, 33));
	EXPECT_EQ(0, mm_run(j, 0));
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "tpb_corrupt_nc", "2"));
	EXPECT_EQ(1, mm_run(j, 0));
	c = j->c;
	ref = j->ref;
	EXPECT_EQ(ref[0] ^ (1U << 30), c[0]);
	for (i = 1; i < 12 * 9; i++)
		EXPECT_EQ(ref[i], c[i]);
	EXPECT_EQ(0, mm_run(j, 0));
}

/* SEM_SIGNAL past U32_MAX: DEVICE_ERROR. */
TEST_F(exec, sem_signal_overflow)
{
	int fd = self->node.fd;
	struct nasm p = { 0 };
	__u32 model, v;
	__u64 seq;

	nasm_reset(&p);
	nasm_signal(&p, NEURON_ENGINE_ACT, 30, 1);
	nasm_end(&p, NEURON_ENGINE_ACT);
	model = load_ok(_metadata, fd, 0, &p);
	ASSERT_EQ(0, sem_op(fd, 0, NEURON_SEM_KIND_SEMAPHORE, 30, NEURON_SEM_SET,
			    0xfffffffeU, NULL));
	EXPECT_EQ(NEURON_EXEC_OK, exec_sync(fd, model, NULL, 0, 0));
	ASSERT_EQ(0, sem_op(fd, 0, NEURON_SEM_KIND_SEMAPHORE, 30, NEURON_SEM_READ, 0, &v));
	EXPECT_EQ(0xffffffffU, v);
	EXPECT_EQ(NEURON_EXEC_DEVICE_ERROR, exec_sync(fd, model, NULL, 0, 0));
	ASSERT_EQ(0, exec_async(fd, model, NULL, 0, 0, &seq));
	EXPECT_EQ(-EIO, exec_wait(fd, seq));
	ASSERT_EQ(0, sem_op(fd, 0, NEURON_SEM_KIND_SEMAPHORE, 30, NEURON_SEM_SET, 0, NULL));
	EXPECT_EQ(NEURON_EXEC_OK, exec_sync(fd, model, NULL, 0, 0));
}

/* A new owner of an NC finds its semaphores and events at 0. */
TEST_F(exec, sems_cleared_for_new_owner)
{
	int fd = self->node.fd, fd2;

	ASSERT_EQ(0, sem_op(fd, 0, NEURON_SEM_KIND_SEMAPHORE, 7, NEURON_SEM_SET, 1234, NULL));
	ASSERT_EQ(0, sem_op(fd, 0, NEURON_SEM_KIND_EVENT, 9, NEURON_SEM_SET, 1, NULL));
	/* Reserving an NC the file holds already changes nothing. */
	ASSERT_EQ(0, neuron_reserve(fd, 1));
	EXPECT_EQ(1234U, sem_read(fd, 0, NEURON_SEM_KIND_SEMAPHORE, 7));
	EXPECT_EQ(1U, sem_read(fd, 0, NEURON_SEM_KIND_EVENT, 9));
	/* Another file after a release. */
	ASSERT_EQ(0, neuron_release(fd, 1));
	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, neuron_reserve(fd2, 1));
	EXPECT_EQ(0U, sem_read(fd2, 0, NEURON_SEM_KIND_SEMAPHORE, 7));
	EXPECT_EQ(0U, sem_read(fd2, 0, NEURON_SEM_KIND_EVENT, 9));
	/* The first file again, after the other one closed. */
	ASSERT_EQ(0, sem_op(fd2, 0, NEURON_SEM_KIND_SEMAPHORE, 8, NEURON_SEM_SET, 99, NULL));
	close(fd2);
	ASSERT_EQ(0, neuron_reserve(fd, 1));
	EXPECT_EQ(0U, sem_read(fd, 0, NEURON_SEM_KIND_SEMAPHORE, 8));
}

/* A thread that runs a model again and again until told to stop. */
struct exec_racer {
	int fd;
	__u32 model;
	int stop;
	unsigned int ok, refused, cancelled, other;
	int last_other;
};

static void *exec_racer_fn(void *arg)
{
	struct exec_racer *r = arg;
	int ret;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		ret = exec_sync(r->fd, r->model, NULL, 0, 0);
		if (ret == NEURON_EXEC_OK) {
			r->ok++;
		} else if (ret == -EACCES) {
			r->refused++;
		} else if (ret == NEURON_EXEC_CANCELLED) {
			r->cancelled++;
		} else {
			r->other++;
			r->last_other = ret;
		}
	}
	return NULL;
}

#define RACE_ROUNDS	1500U

/*
 * EXECUTE on one thread, NC_RELEASE and a reservation by another file on
 * a second one: an execution must never run on the NC while the file does
 * not hold it. Each run of the model adds 1 to semaphore 5; the other file
 * (whose reservation starts with the semaphores at 0) must see it stay 0,
 * and the NC never running while it holds it.
 */
TEST_F_TIMEOUT(exec, execute_races_release, 180)
{
	struct exec_racer r = { .fd = self->node.fd };
	unsigned int i, k, counted = 0, running = 0;
	int fd2, err = 0;
	struct nasm p = { 0 };
	pthread_t t;
	__u32 v;

	nasm_reset(&p);
	nasm_signal(&p, NEURON_ENGINE_SP, 5, 1);
	nasm_end(&p, NEURON_ENGINE_SP);
	r.model = load_ok(_metadata, r.fd, 0, &p);
	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, pthread_create(&t, NULL, exec_racer_fn, &r));
	for (i = 0; i < RACE_ROUNDS; i++) {
		err = neuron_release(r.fd, 1) ?: neuron_reserve(fd2, 1);
		if (err)
			break;
		for (k = 0; k < 3; k++) {
			v = sem_read(fd2, 0, NEURON_SEM_KIND_SEMAPHORE, 5);
			if (v) {
				counted++;
				TH_LOG("round %u: semaphore 5 of the other file's NC is %u", i, v);
				sem_op(fd2, 0, NEURON_SEM_KIND_SEMAPHORE, 5, NEURON_SEM_SET, 0,
				       NULL);
			}
			running += nc_state(fd2, 0, NULL) == NEURON_NC_RUNNING;
		}
		err = neuron_release(fd2, 1) ?: neuron_reserve(r.fd, 1);
		if (err)
			break;
		if (i % 8 == 0)
			neuron_sleep_ms(1);	/* let some executions through */
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	EXPECT_EQ(RACE_ROUNDS, i) TH_LOG("NC_RELEASE or NC_RESERVE: %s", strerror(-err));
	TH_LOG("%u executions ok, %u refused, %u cancelled", r.ok, r.refused, r.cancelled);
	EXPECT_EQ(0U, counted);
	EXPECT_EQ(0U, running);
	EXPECT_EQ(0U, r.other) TH_LOG("an execution returned %d", r.last_other);
	EXPECT_LT(0U, r.ok);
	EXPECT_LT(0U, r.refused);
	close(fd2);
	/* The file holds the NC again: its executions run. */
	EXPECT_EQ(NEURON_EXEC_OK, exec_sync(r.fd, r.model, NULL, 0, 0));
}

/* ---- 7. processes, queues, unload, close, SIGKILL ---- */

/* A child: reserve NC @nc on its own file, run matmuls; its exit status. */
static int child_matmuls(const char *path, __u32 nc, int go)
{
	int fd = open(path, O_RDWR | O_CLOEXEC), r, ret;
	struct mm j;
	char c;

	if (fd < 0 || neuron_reserve(fd, 1ULL << nc))
		return 2;
	if (read(go, &c, 1) != 1)
		return 3;
	if (mm_setup(&j, fd, nc, nc % 2 ? NEURON_DT_FP32 : NEURON_DT_INT32, 24, 40, 16,
		     50 + nc))
		return 4;
	for (r = 0; r < 20; r++) {
		if (r && mm_fill(&j, 500 + 100 * nc + r))
			return 5;
		ret = mm_run(&j, 0);
		if (ret)
			return ret == 1 ? 6 : 7;
	}
	return 0;
}

TEST_F_TIMEOUT(exec, processes_in_parallel, 120)
{
	__u32 n = self->info.nc_count < 4 ? self->info.nc_count : 4, i;
	pid_t pid[4];
	int go[2], status;

	ASSERT_EQ(0, neuron_release(self->node.fd, self->all));
	ASSERT_EQ(0, pipe(go));
	for (i = 0; i < n; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i]) {
			close(go[1]);
			close(self->node.fd);
			_exit(child_matmuls(self->node.path, i, go[0]));
		}
	}
	close(go[0]);
	/* All at once. */
	for (i = 0; i < n; i++)
		ASSERT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("child on NC %u", i);
	}
}

/* A second process waits for the NC: -EBUSY until the first one closes. */
TEST_F_TIMEOUT(exec, processes_contend_for_nc, 60)
{
	int ready[2], done[2], status, fd2;
	pid_t pid;
	char c;

	ASSERT_EQ(0, neuron_release(self->node.fd, 1));
	pid = neuron_fork_pipes(_metadata, ready, done);
	if (!pid) {
		int fd = open(self->node.path, O_RDWR | O_CLOEXEC);
		struct mm j;

		close(self->node.fd);
		if (fd < 0 || neuron_reserve(fd, 1))
			_exit(2);
		if (mm_setup(&j, fd, 0, NEURON_DT_INT32, 8, 8, 8, 60) || mm_run(&j, 0))
			_exit(2);
		if (write(ready[1], "r", 1) != 1 || read(done[0], &c, 1) != 1)
			_exit(3);
		close(fd);
		_exit(0);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-EBUSY, neuron_reserve(fd2, 1));
	ASSERT_EQ(1, write(done[1], "d", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, neuron_reserve(fd2, 1));
	ASSERT_EQ(0, mm_setup(&self->mm[0], fd2, 0, NEURON_DT_INT32, 8, 8, 8, 61));
	EXPECT_EQ(0, mm_run(&self->mm[0], 0));
	close(fd2);
}

/* exec_queue_depth executions queued or running per NC, then -EAGAIN. */
TEST_F_TIMEOUT(exec, queue_full, 60)
{
	int fd = self->node.fd, i;
	__u64 seq[5];
	struct nasm p = { 0 };
	__u32 model;

	ASSERT_EQ(0, set_param(1, 4));
	ASSERT_EQ(0, mm_setup(&self->mm[0], fd, 1, NEURON_DT_INT32, 8, 8, 8, 71));
	wait_prog(&p, 11, 1);
	model = load_ok(_metadata, fd, 0, &p);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, exec_async(fd, model, NULL, 0, 20000, &seq[i]));
	EXPECT_EQ(-EAGAIN, exec_async(fd, model, NULL, 0, 20000, &seq[4]));
	EXPECT_EQ(-EAGAIN, exec_sync(fd, model, NULL, 0, 20000));
	/* Another NC's queue is its own. */
	EXPECT_EQ(0, mm_run(&self->mm[0], 0));
	/* Release them: each takes one. */
	ASSERT_EQ(0, sem_inc(fd, 0, 11, 4));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, exec_wait(fd, seq[i])) TH_LOG("execution %d", i);
	EXPECT_EQ(0U, sem_read(fd, 0, NEURON_SEM_KIND_SEMAPHORE, 11));
	/* Room again. */
	ASSERT_EQ(0, exec_async(fd, model, NULL, 0, 20000, &seq[0]));
	ASSERT_EQ(0, sem_inc(fd, 0, 11, 1));
	EXPECT_EQ(0, exec_wait(fd, seq[0]));
	/* Depth 1: only the running one. */
	ASSERT_EQ(0, set_param(1, 1));
	ASSERT_EQ(0, exec_async(fd, model, NULL, 0, 20000, &seq[0]));
	EXPECT_EQ(-EAGAIN, exec_async(fd, model, NULL, 0, 20000, &seq[1]));
	ASSERT_EQ(0, sem_inc(fd, 0, 11, 1));
	EXPECT_EQ(0, exec_wait(fd, seq[0]));
}

/*
 * Unload with executions queued: they complete with the right results,
 * and the model's memory goes after the last one.
 */
TEST_F_TIMEOUT(exec, unload_while_queued, 60)
{
	struct nasm *p = nasm_new();
	struct mm *j = &self->mm[0];
	int fd = self->node.fd, i;
	__u32 model, out[3], bind[3];
	long long base;
	__u64 seq[3];

	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, mm_setup(j, fd, 0, NEURON_DT_FP32, 20, 30, 10, 81));
	for (i = 0; i < 3; i++) {
		out[i] = alloc_ok(_metadata, fd, 0, mm_bytes(j, 2));
		ASSERT_EQ(0, dev_write(fd, out[i], j->c, mm_bytes(j, 2)));
	}
	base = dev_bytes(fd);
	ASSERT_LT(0, base);
	/* The matmul behind a SEM_WAIT on the host. */
	mm_prog(p, NEURON_DT_FP32, 20, 30, 10);
	p->blocks[NEURON_ENGINE_PE].insns[1] = p->blocks[NEURON_ENGINE_PE].insns[0];
	p->blocks[NEURON_ENGINE_PE].count = 0;
	nasm_wait(p, NEURON_ENGINE_PE, 12, 1);
	p->blocks[NEURON_ENGINE_PE].count = 2;
	nasm_end(p, NEURON_ENGINE_PE);
	model = load_ok(_metadata, fd, 0, p);
	nasm_delete(p);
	EXPECT_LT(base, dev_bytes(fd));
	memcpy(bind, j->bind, sizeof(bind));
	for (i = 0; i < 3; i++) {
		bind[2] = out[i];
		ASSERT_EQ(0, exec_async(fd, model, bind, 3, 20000, &seq[i]));
	}
	ASSERT_EQ(0, neuron_model_unload(fd, model));
	EXPECT_EQ(-ENOENT, exec_sync(fd, model, bind, 3, 0));
	EXPECT_EQ(-ENOENT, neuron_model_unload(fd, model));
	ASSERT_EQ(0, sem_inc(fd, 0, 12, 3));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(0, exec_wait(fd, seq[i])) TH_LOG("execution %d", i);
		EXPECT_EQ(0U, mm_bad_in(j, out[i])) TH_LOG("execution %d", i);
	}
	EXPECT_EQ(base, dev_bytes_wait(fd, base));
}

/* A hang model on NC @nc of a file @fd3: loaded and started (twice). */
static int start_hang(int fd3, __u32 nc, bool wait_form)
{
	struct nasm p = { 0 };
	struct neuron_model_load ld;
	__u64 seq;
	int ret;

	wait_prog(&p, 13, 1);
	ret = nasm_load(fd3, nc, &p, &ld);
	if (!ret)
		ret = exec_async(fd3, ld.handle, NULL, 0, 60000, &seq);
	if (!ret && wait_form)
		ret = exec_sync(fd3, ld.handle, NULL, 0, 60000);
	return ret;
}

/* After the death of a file executing on NC @nc: free at once, memory back. */
static void expect_nc_clean(struct __test_metadata *_metadata,
			    struct _test_data_exec *self, __u32 nc, long long base)
{
	int fd = self->node.fd;
	__s64 t0 = neuron_now_ns();

	EXPECT_EQ((__u32)NEURON_NC_FREE, nc_state_wait(fd, nc, NEURON_NC_FREE));
	/* Well before the 60 s timeout of its execution. */
	EXPECT_GT(SETTLE_MS, ms_since(t0));
	EXPECT_EQ(base, dev_bytes_wait(fd, base));
	/* The NC serves the next owner. */
	ASSERT_EQ(0, neuron_reserve(fd, 1ULL << nc));
	ASSERT_EQ(0, mm_setup(&self->mm[1], fd, nc, NEURON_DT_INT32, 8, 8, 8, 91));
	EXPECT_EQ(0, mm_run(&self->mm[1], 0));
}

TEST_F_TIMEOUT(exec, close_while_executing, 60)
{
	__u32 nc = self->info.nc_count - 1;
	long long base;
	int fd3;

	ASSERT_EQ(0, neuron_release(self->node.fd, 1ULL << nc));
	base = dev_bytes(self->node.fd);
	fd3 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd3);
	ASSERT_EQ(0, neuron_reserve(fd3, 1ULL << nc));
	ASSERT_NE(0U, dev_alloc(fd3, nc, 65536));
	ASSERT_EQ(0, start_hang(fd3, nc, false));
	neuron_sleep_ms(100);
	EXPECT_EQ((__u32)NEURON_NC_RUNNING, nc_state(self->node.fd, nc, NULL));
	EXPECT_LT(base, dev_bytes(self->node.fd));
	close(fd3);
	expect_nc_clean(_metadata, self, nc, base);
}

TEST_F_TIMEOUT(exec, sigkill_while_executing, 60)
{
	__u32 nc = self->info.nc_count - 1;
	int go[2], status;
	long long base;
	pid_t pid;
	char c;

	ASSERT_EQ(0, neuron_release(self->node.fd, 1ULL << nc));
	base = dev_bytes(self->node.fd);
	ASSERT_EQ(0, pipe(go));
	pid = neuron_fork(_metadata);
	if (!pid) {
		int fd = open(self->node.path, O_RDWR | O_CLOEXEC);

		close(self->node.fd);
		if (fd < 0 || neuron_reserve(fd, 1ULL << nc) || !dev_alloc(fd, nc, 65536))
			_exit(2);
		if (write(go[1], "s", 1) != 1)
			_exit(3);
		/* Blocks in EXECUTE with NEURON_EXEC_WAIT until killed. */
		_exit(start_hang(fd, nc, true) ? 4 : 5);
	}
	close(go[1]);
	ASSERT_EQ(1, read(go[0], &c, 1));
	close(go[0]);
	/* Running within SETTLE_MS (a fixed 300 ms was too short under load). */
	EXPECT_EQ((__u32)NEURON_NC_RUNNING, nc_state_wait(self->node.fd, nc, NEURON_NC_RUNNING));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status))
		TH_LOG("the child exited with %d", WEXITSTATUS(status));
	expect_nc_clean(_metadata, self, nc, base);
}

/* ---- 8. the two forms of EXECUTE ---- */

TEST_F(exec, execute_wait_and_async)
{
	struct mm *j = &self->mm[0];
	int fd = self->node.fd;
	struct neuron_execute x;
	__u32 bind[3], out2;
	__u64 s1, s2;

	ASSERT_EQ(0, mm_setup(j, fd, 1, NEURON_DT_FP32, 33, 47, 29, 101));
	/* NEURON_EXEC_WAIT: status, no sequence number. */
	ASSERT_EQ(0, mm_clear(j));
	ASSERT_EQ(0, exec_req(fd, j->model, j->bind, 3, NEURON_EXEC_WAIT, 0, &x));
	EXPECT_EQ((__u32)NEURON_EXEC_OK, x.status);
	EXPECT_EQ(0ULL, x.seqno);
	EXPECT_EQ(0U, mm_bad(j));
	/* Asynchronous: a sequence number, no status; WAIT spends it. */
	ASSERT_EQ(0, mm_clear(j));
	ASSERT_EQ(0, exec_req(fd, j->model, j->bind, 3, 0, 0, &x));
	EXPECT_NE(0ULL, x.seqno);
	EXPECT_EQ(0U, x.status);
	EXPECT_EQ(0, exec_wait(fd, x.seqno));
	EXPECT_EQ(0U, mm_bad(j));
	EXPECT_EQ(-ENOENT, exec_wait(fd, x.seqno));
	/* Two in flight, waited for in reverse order. */
	out2 = alloc_ok(_metadata, fd, 1, mm_bytes(j, 2));
	memcpy(bind, j->bind, sizeof(bind));
	bind[2] = out2;
	ASSERT_EQ(0, mm_clear(j));
	ASSERT_EQ(0, exec_async(fd, j->model, j->bind, 3, 0, &s1));
	ASSERT_EQ(0, exec_async(fd, j->model, bind, 3, 0, &s2));
	EXPECT_NE(s1, s2);
	EXPECT_EQ(0, exec_wait(fd, s2));
	EXPECT_EQ(0, exec_wait(fd, s1));
	EXPECT_EQ(0U, mm_bad(j));
	EXPECT_EQ(0U, mm_bad_in(j, out2));
}

/* ---- 9. NOTIFY ---- */

TEST_F(exec, notify_insn)
{
	struct neuron_notify_teardown t = { .nc = 0, .type = NEURON_NOTIFY_EVENT };
	int fd = self->node.fd;
	struct nio_notify_queue r0, r1;
	struct nasm p = { 0 };
	__u32 model;

	neuron_ring_open_ok(_metadata, fd, 0, NEURON_NOTIFY_EVENT, 16, -1, &r0);
	neuron_ring_open_ok(_metadata, fd, 1, NEURON_NOTIFY_EVENT, 16, -1, &r1);
	nasm_reset(&p);
	nasm_notify(&p, NEURON_ENGINE_POOL, 0x1234);
	nasm_notify(&p, NEURON_ENGINE_POOL, 0xffffffffU);
	nasm_notify(&p, NEURON_ENGINE_POOL, 0);
	nasm_end(&p, NEURON_ENGINE_POOL);
	model = load_ok(_metadata, fd, 0, &p);
	EXPECT_EQ(NEURON_EXEC_OK, exec_sync(fd, model, NULL, 0, 0));
	EXPECT_EQ(3U, ring_head_wait(&r0, 3));
	expect_entry(_metadata, &r0, 0, NEURON_NOTIFY_PROGRAM, 0x1234, true);
	expect_entry(_metadata, &r0, 1, NEURON_NOTIFY_PROGRAM, 0xffffffffU, true);
	expect_entry(_metadata, &r0, 2, NEURON_NOTIFY_PROGRAM, 0, true);
	/* Only the NC's own queue. */
	EXPECT_EQ(0U, neuron_ring_head(&r1));
	/* Without a queue, NOTIFY does nothing. */
	neuron_ring_unmap(&r0);
	ASSERT_EQ(0, neuron_ioctl(fd, NEURON_IOCTL_NOTIFY_TEARDOWN, &t));
	EXPECT_EQ(NEURON_EXEC_OK, exec_sync(fd, model, NULL, 0, 0));
	EXPECT_EQ(0U, neuron_ring_head(&r1));
	neuron_ring_unmap(&r1);
}

TEST_HARNESS_MAIN
