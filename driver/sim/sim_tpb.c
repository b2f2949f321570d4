// SPDX-License-Identifier: GPL-2.0
/*
 * neuron simulator: the TPB, the compute engines of each NeuronCore
 * (docs/sim-isa.md). The driver hands a core an execution
 * (ndhal_ops.exec_start): the device addresses of one instruction block
 * per engine and the table of regions the program may touch.
 *
 * A simulated core has no silicon: its work is host CPU time, and that
 * time is charged to whoever wants the result. The core computes only in
 * ndhal_ops.exec_drive, which the driver calls from the threads that wait
 * for the NC's work (an EXECUTE that waits, WAIT on an execution, NC_SEM
 * WAIT, NOTIFY_WAIT), so the scheduler, nice, the cpu cgroup and
 * RLIMIT_CPU of the waiting process see it; an execution nobody waits for
 * does not advance, and ends at its timeout. A drive runs the engines in
 * steps for at most NEURON_SIM_TPB_SLICE: in each step every engine that
 * has not ended and is not waiting executes one instruction, in the order
 * PE, ACT, POOL, DVE, SP. When no engine can move (a semaphore or event
 * not reached) the drive returns -EAGAIN and the driver's waiter sleeps
 * until something of the NC changes. When every engine with a program has
 * executed END it writes the status (struct neuron_exec_hw_status) into
 * host memory through the IOMMU and raises NEURON_IRQ_EXEC(nc). Long
 * instructions (MATMUL, POOL, ACT, TT, TS) are computed in tiles of at
 * most NEURON_SIM_TPB_FPU_CHUNK elements or multiply-adds, and a stop (a
 * reset, the device's removal) is seen between two tiles.
 *
 * The device trusts nothing it reads: each instruction is fetched from
 * simulated DRAM and checked again as it runs (the load-time rules of
 * docs/sim-isa.md, and every operand against the region table); anything
 * wrong ends the execution with NEURON_EXEC_DEVICE_ERROR without touching
 * memory outside the regions. The arithmetic is in sim_tpb_fpu.c.
 *
 * Knobs (sysfs of the simulated device, root; N + 1 selects NC N, 0 off,
 * each one shot): tpb_hang_nc (the next execution never ends: its engines
 * stall until a reset), tpb_error_nc (the next execution ends at once with
 * a device error), tpb_corrupt_nc (the next execution flips bit 30 of the
 * first element of every MATMUL result); and tpb_instant (0 or 1, not one
 * shot): every execution ends OK at exec_start, its program not run, its
 * status written and no interrupt raised (the driver polls), to measure
 * the driver's own cost.
 *
 * Locking (per core): @op_lock serialises the driver's calls (exec_start,
 * exec_reset, teardown) against each other; @drive_lock is held by the
 * thread that computes (exec_drive), and a reset takes it after setting
 * @stop to wait for that thread to leave; @lock guards @running and
 * @stop, and is held while the status is written and the interrupt
 * raised, so that a reset either comes after the status or stops the
 * execution before any of it is written. Lock order: op_lock -> drive_lock
 * -> lock -> sd->iommu.lock; sd->sem_lock (a spinlock) is taken alone.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <neuron.h>

#include "neuron_common.h"
#include "neuron_nc.h"
#include "neuron_device.h"
#include "ndhal/ndhal.h"
#include "sim/sim.h"
#include "sim/sim_notify.h"
#include "sim/sim_tpb.h"

/* The longest a drive computes before it returns (-EINPROGRESS), in ns. */
#define NEURON_SIM_TPB_SLICE	(4 * NSEC_PER_MSEC)

/* Temporary operand buffers of an executor. */
enum { NEURON_SIM_BUF_A, NEURON_SIM_BUF_B, NEURON_SIM_BUF_OUT, NEURON_SIM_BUFS };

/**
 * struct neuron_sim_tpb_core - the TPB of one NeuronCore
 * @sd: the device.
 * @nd: the neuron device of the running execution (its binding).
 * @nc: the NeuronCore.
 * @op_lock: serialises exec_start, exec_reset and teardown of this core.
 * @drive_lock: held by the thread computing the execution (exec_drive).
 * @lock: guards @running and @stop; held around the status write.
 * @running: an execution was started and has not ended or been reset.
 * @stop: the computing thread must stop at once and write nothing (set
 *	under @lock, read without it between instructions and tiles).
 * @hang: the hang knob caught this execution.
 * @fail: the error knob caught this execution.
 * @corrupt: the corruption knob caught this execution.
 * @exec: the execution, as copied at exec_start.
 * @pc: next instruction of each engine.
 * @ended: each engine executed END (or has no program).
 * @buf: operand buffers of the executor, kvmalloc'd on demand and freed
 *	when the execution ends; only the executor touches them.
 * @buf_elems: elements each of @buf holds.
 */
struct neuron_sim_tpb_core {
	struct neuron_sim_dev *sd;
	struct neuron_device *nd;
	u32 nc;
	struct mutex op_lock;		/* serialises the driver's calls */
	struct mutex drive_lock;	/* the computing thread */
	struct mutex lock;		/* guards @running, @stop */
	bool running;
	bool stop;
	bool hang;
	bool fail;
	bool corrupt;
	struct ndhal_exec exec;
	u32 pc[NEURON_ENGINES];
	bool ended[NEURON_ENGINES];
	u32 *buf[NEURON_SIM_BUFS];
	size_t buf_elems[NEURON_SIM_BUFS];
};

/**
 * struct neuron_sim_tpb - the TPBs of a simulated device
 * @hang_nc: knob.
 * @error_nc: knob.
 * @corrupt_nc: knob.
 * @instant: knob.
 * @core: one per NeuronCore.
 */
struct neuron_sim_tpb {
	u32 hang_nc;
	u32 error_nc;
	u32 corrupt_nc;
	u32 instant;
	struct neuron_sim_tpb_core core[NEURON_MAX_NC];
};

/* Result of one engine's turn in a step. */
enum neuron_sim_turn {
	NEURON_SIM_WAITING,	/* waiting: the engine did not move */
	NEURON_SIM_MOVED,	/* it executed an instruction */
	NEURON_SIM_FAULT,	/* the execution ends with the status given */
};

/* ---- device memory ---- */

/*
 * Copy @len bytes between @buf and simulated DRAM at @addr. Return: 0, or
 * -EFAULT if any byte is beyond the DRAM or on a page no memory object
 * backs. The pages of the objects an execution uses stay in the DRAM map
 * while it runs (the driver holds them), so no lock is needed: the map is
 * an xarray (RCU-safe lookups) and the IOMMU is not involved.
 */
static int neuron_sim_tpb_dram(struct neuron_sim_tpb_core *core, u64 addr,
			       void *buf, size_t len, bool write)
{
	u64 size = core->nd->dram_size;

	if (addr >= size || len > size - addr)
		return -EFAULT;
	while (len) {
		size_t off = offset_in_page(addr);
		size_t n = min_t(size_t, len, PAGE_SIZE - off);
		struct page *page = xa_load(&core->sd->dram, addr >> PAGE_SHIFT);

		if (!page)
			return -EFAULT;
		neuron_sim_page_xfer(page, off, buf, n, write);
		addr += n;
		buf += n;
		len -= n;
	}
	return 0;
}

/*
 * The device address of operand @ref of @elems elements, if it lies wholly
 * inside its region (and the region is writable when @write).
 */
static bool neuron_sim_tpb_ref(struct neuron_sim_tpb_core *core,
			       const struct neuron_tpb_ref *ref, u64 elems,
			       bool write, u64 *addr)
{
	const struct ndhal_exec_region *r;
	u64 bytes = elems * sizeof(u32);

	if (ref->region >= core->exec.nregions)
		return false;
	r = &core->exec.regions[ref->region];
	if (!r->size || (write && !r->writable) || ref->offset % sizeof(u32) ||
	    ref->offset > r->size || bytes > r->size - ref->offset)
		return false;
	return !check_add_overflow(r->addr, (u64)ref->offset, addr);
}

/* Operand buffer @i with room for @elems elements, or NULL. */
static u32 *neuron_sim_tpb_buf(struct neuron_sim_tpb_core *core, int i, u64 elems)
{
	if (core->buf_elems[i] < elems) {
		kvfree(core->buf[i]);
		core->buf_elems[i] = 0;
		core->buf[i] = kvmalloc_array(elems, sizeof(u32), GFP_KERNEL);
		if (!core->buf[i])
			return NULL;
		core->buf_elems[i] = elems;
	}
	return core->buf[i];
}

static void neuron_sim_tpb_free_bufs(struct neuron_sim_tpb_core *core)
{
	int i;

	for (i = 0; i < NEURON_SIM_BUFS; i++) {
		kvfree(core->buf[i]);
		core->buf[i] = NULL;
		core->buf_elems[i] = 0;
	}
}

/*
 * Read operand @ref (@elems elements, checked by the caller) into buffer
 * @i. Return: the buffer, or NULL (unreachable memory, or out of memory).
 */
static u32 *neuron_sim_tpb_load(struct neuron_sim_tpb_core *core, int i,
				const struct neuron_tpb_ref *ref, u64 elems)
{
	u32 *buf = neuron_sim_tpb_buf(core, i, elems);
	u64 addr;

	if (!buf || !neuron_sim_tpb_ref(core, ref, elems, false, &addr) ||
	    neuron_sim_tpb_dram(core, addr, buf, elems * sizeof(u32), false))
		return NULL;
	return buf;
}

static bool neuron_sim_tpb_store(struct neuron_sim_tpb_core *core,
				 const struct neuron_tpb_ref *ref, const u32 *buf,
				 u64 elems)
{
	u64 addr;

	return neuron_sim_tpb_ref(core, ref, elems, true, &addr) &&
	       !neuron_sim_tpb_dram(core, addr, (void *)buf, elems * sizeof(u32),
				    true);
}

/* ---- checks ---- */

/* Fields an opcode uses; the others must be 0. */
#define NEURON_SIM_F_IMM	BIT(0)
#define NEURON_SIM_F_M		BIT(1)
#define NEURON_SIM_F_K		BIT(2)
#define NEURON_SIM_F_N		BIT(3)
#define NEURON_SIM_F_INDEX	BIT(4)
#define NEURON_SIM_F_DST	BIT(5)
#define NEURON_SIM_F_A		BIT(6)
#define NEURON_SIM_F_B		BIT(7)
#define NEURON_SIM_F_FUNC	BIT(8)

#define NEURON_SIM_ALL_ENGINES	(BIT(NEURON_ENGINES) - 1)

/**
 * struct neuron_sim_tpb_op - what the core knows of an opcode
 * @opcode: NEURON_TPB_*.
 * @engines: bit e: engine e has the instruction.
 * @fields: NEURON_SIM_F_* it uses.
 */
struct neuron_sim_tpb_op {
	u8 opcode;
	u8 engines;
	u16 fields;
};

static const struct neuron_sim_tpb_op neuron_sim_tpb_ops[] = {
	{ NEURON_TPB_END, NEURON_SIM_ALL_ENGINES, 0 },
	{ NEURON_TPB_JUMP, NEURON_SIM_ALL_ENGINES, NEURON_SIM_F_IMM },
	{ NEURON_TPB_COPY, NEURON_SIM_ALL_ENGINES,
	  NEURON_SIM_F_N | NEURON_SIM_F_DST | NEURON_SIM_F_A },
	{ NEURON_TPB_MATMUL, BIT(NEURON_ENGINE_PE),
	  NEURON_SIM_F_M | NEURON_SIM_F_K | NEURON_SIM_F_N | NEURON_SIM_F_FUNC |
	  NEURON_SIM_F_DST | NEURON_SIM_F_A | NEURON_SIM_F_B },
	{ NEURON_TPB_ACT, BIT(NEURON_ENGINE_ACT),
	  NEURON_SIM_F_N | NEURON_SIM_F_FUNC | NEURON_SIM_F_DST | NEURON_SIM_F_A },
	{ NEURON_TPB_POOL, BIT(NEURON_ENGINE_POOL),
	  NEURON_SIM_F_M | NEURON_SIM_F_K | NEURON_SIM_F_N | NEURON_SIM_F_FUNC |
	  NEURON_SIM_F_DST | NEURON_SIM_F_A },
	{ NEURON_TPB_TT, BIT(NEURON_ENGINE_DVE),
	  NEURON_SIM_F_M | NEURON_SIM_F_N | NEURON_SIM_F_FUNC | NEURON_SIM_F_DST |
	  NEURON_SIM_F_A | NEURON_SIM_F_B },
	{ NEURON_TPB_TS, BIT(NEURON_ENGINE_DVE),
	  NEURON_SIM_F_M | NEURON_SIM_F_N | NEURON_SIM_F_FUNC | NEURON_SIM_F_IMM |
	  NEURON_SIM_F_DST | NEURON_SIM_F_A },
	{ NEURON_TPB_SEM_SIGNAL, NEURON_SIM_ALL_ENGINES,
	  NEURON_SIM_F_IMM | NEURON_SIM_F_INDEX },
	{ NEURON_TPB_SEM_WAIT, NEURON_SIM_ALL_ENGINES,
	  NEURON_SIM_F_IMM | NEURON_SIM_F_INDEX },
	{ NEURON_TPB_EVENT_SET, NEURON_SIM_ALL_ENGINES,
	  NEURON_SIM_F_IMM | NEURON_SIM_F_INDEX },
	{ NEURON_TPB_EVENT_WAIT, NEURON_SIM_ALL_ENGINES,
	  NEURON_SIM_F_IMM | NEURON_SIM_F_INDEX },
	{ NEURON_TPB_NOTIFY, NEURON_SIM_ALL_ENGINES, NEURON_SIM_F_IMM },
};

static bool neuron_sim_ref_zero(const struct neuron_tpb_ref *ref)
{
	return !ref->region && !ref->offset;
}

/* A dimension: 1 to NEURON_TPB_MAX_DIM. */
static bool neuron_sim_dim(u32 v)
{
	return v >= 1 && v <= NEURON_TPB_MAX_DIM;
}

static bool neuron_sim_elems(u64 v)
{
	return v >= 1 && v <= NEURON_TPB_MAX_ELEMS;
}

/*
 * Is @in, about to run on engine @eng, valid (docs/sim-isa.md,
 * "Validation")? Operands are checked against the regions when they are
 * used.
 */
static bool neuron_sim_tpb_valid(struct neuron_sim_tpb_core *core, u32 eng,
				 const struct neuron_tpb_insn *in)
{
	const struct ndhal_arch *arch = core->sd->hal->arch;
	const struct neuron_sim_tpb_op *op = NULL;
	u32 f, i, limit;

	for (i = 0; i < ARRAY_SIZE(neuron_sim_tpb_ops); i++)
		if (neuron_sim_tpb_ops[i].opcode == in->opcode)
			op = &neuron_sim_tpb_ops[i];
	if (!op || !(op->engines & BIT(eng)) || in->flags ||
	    (in->dtype != NEURON_DT_FP32 && in->dtype != NEURON_DT_INT32))
		return false;
	f = op->fields;
	if ((!(f & NEURON_SIM_F_IMM) && in->imm) ||
	    (!(f & NEURON_SIM_F_M) && in->m) ||
	    (!(f & NEURON_SIM_F_K) && in->k) ||
	    (!(f & NEURON_SIM_F_N) && in->n) ||
	    (!(f & NEURON_SIM_F_INDEX) && in->index) ||
	    (!(f & NEURON_SIM_F_FUNC) && in->func) ||
	    (!(f & NEURON_SIM_F_DST) && !neuron_sim_ref_zero(&in->dst)) ||
	    (!(f & NEURON_SIM_F_A) && !neuron_sim_ref_zero(&in->a)) ||
	    (!(f & NEURON_SIM_F_B) && !neuron_sim_ref_zero(&in->b)))
		return false;

	switch (in->opcode) {
	case NEURON_TPB_JUMP:
		return in->imm < core->exec.block_count[eng];
	case NEURON_TPB_COPY:
		return neuron_sim_elems(in->n);
	case NEURON_TPB_MATMUL:
		return in->func <= NEURON_TPB_ACCUMULATE &&
		       neuron_sim_dim(in->m) && neuron_sim_dim(in->k) &&
		       neuron_sim_dim(in->n) &&
		       neuron_sim_elems((u64)in->m * in->k) &&
		       neuron_sim_elems((u64)in->k * in->n) &&
		       neuron_sim_elems((u64)in->m * in->n);
	case NEURON_TPB_ACT:
		if (in->func > NEURON_ACT_TANH)
			return false;
		if (in->func >= NEURON_ACT_SIGMOID && in->dtype != NEURON_DT_FP32)
			return false;
		return neuron_sim_elems(in->n);
	case NEURON_TPB_POOL:
		return in->func <= NEURON_POOL_AVG && neuron_sim_dim(in->m) &&
		       neuron_sim_dim(in->n) && neuron_sim_dim(in->k) &&
		       neuron_sim_elems((u64)in->m * in->n * in->k);
	case NEURON_TPB_TT:
	case NEURON_TPB_TS:
		f = in->func;
		if (in->opcode == NEURON_TPB_TT)
			f &= ~NEURON_TPB_BCAST;
		return f <= NEURON_ALU_DIV && neuron_sim_dim(in->m) &&
		       neuron_sim_dim(in->n) &&
		       neuron_sim_elems((u64)in->m * in->n);
	case NEURON_TPB_SEM_SIGNAL:
	case NEURON_TPB_SEM_WAIT:
		limit = min_t(u32, arch->semaphores_per_nc, NEURON_SIM_SEMS);
		return in->index < limit && in->imm >= 1;
	case NEURON_TPB_EVENT_SET:
	case NEURON_TPB_EVENT_WAIT:
		limit = min_t(u32, arch->events_per_nc, NEURON_SIM_SEMS);
		return in->index < limit && in->imm <= 1;
	default:
		/* END, NOTIFY: nothing more. */
		return true;
	}
}

/* ---- semaphores and events ---- */

/* The NC's semaphore (@kind 0) or event (@kind 1) @index; sd->sem_lock held. */
static u32 *neuron_sim_tpb_sem_locked(struct neuron_sim_tpb_core *core, u32 kind,
				      u32 index)
{
	lockdep_assert_held(&core->sd->sem_lock);
	return &core->sd->sems[(core->nc * 2 + kind) * NEURON_SIM_SEMS + index];
}

/*
 * SEM_SIGNAL, SEM_WAIT, EVENT_SET, EVENT_WAIT (checked). Return a turn;
 * *@changed: a semaphore or event changed.
 */
static enum neuron_sim_turn neuron_sim_tpb_sync(struct neuron_sim_tpb_core *core,
						const struct neuron_tpb_insn *in,
						bool *changed)
{
	enum neuron_sim_turn turn = NEURON_SIM_MOVED;
	u32 *v;

	spin_lock(&core->sd->sem_lock);
	switch (in->opcode) {
	case NEURON_TPB_SEM_SIGNAL:
		v = neuron_sim_tpb_sem_locked(core, NEURON_SEM_KIND_SEMAPHORE, in->index);
		if (*v > U32_MAX - in->imm) {
			turn = NEURON_SIM_FAULT;
		} else {
			*v += in->imm;
			*changed = true;
		}
		break;
	case NEURON_TPB_SEM_WAIT:
		v = neuron_sim_tpb_sem_locked(core, NEURON_SEM_KIND_SEMAPHORE, in->index);
		if (*v >= in->imm) {
			*v -= in->imm;
			*changed = true;
		} else {
			turn = NEURON_SIM_WAITING;
		}
		break;
	case NEURON_TPB_EVENT_SET:
		v = neuron_sim_tpb_sem_locked(core, NEURON_SEM_KIND_EVENT, in->index);
		*changed = *v != in->imm;
		*v = in->imm;
		break;
	default:
		v = neuron_sim_tpb_sem_locked(core, NEURON_SEM_KIND_EVENT, in->index);
		if (*v != in->imm)
			turn = NEURON_SIM_WAITING;
		break;
	}
	spin_unlock(&core->sd->sem_lock);
	return turn;
}

/* ---- data instructions ---- */

/* Must the computing thread stop (a reset, the device's removal)? */
static bool neuron_sim_tpb_stopped(struct neuron_sim_tpb_core *core)
{
	return READ_ONCE(core->stop) || neuron_dev_unplugged(core->nd);
}

/* Rows of @row_cost elements (or multiply-adds) each in one tile. */
static u32 neuron_sim_tpb_tile_rows(u64 row_cost)
{
	return row_cost >= NEURON_SIM_TPB_FPU_CHUNK ? 1 :
	       NEURON_SIM_TPB_FPU_CHUNK / (u32)row_cost;
}

static u32 neuron_sim_tpb_copy(struct neuron_sim_tpb_core *core,
			       const struct neuron_tpb_insn *in)
{
	u32 *a = neuron_sim_tpb_load(core, NEURON_SIM_BUF_A, &in->a, in->n);

	if (!a || !neuron_sim_tpb_store(core, &in->dst, a, in->n))
		return NEURON_EXEC_DEVICE_ERROR;
	return NEURON_EXEC_OK;
}

static u32 neuron_sim_tpb_matmul_insn(struct neuron_sim_tpb_core *core,
				      const struct neuron_tpb_insn *in)
{
	u64 mn = (u64)in->m * in->n;
	u32 *a, *b, *out, r, step;

	a = neuron_sim_tpb_load(core, NEURON_SIM_BUF_A, &in->a, (u64)in->m * in->k);
	b = neuron_sim_tpb_load(core, NEURON_SIM_BUF_B, &in->b, (u64)in->k * in->n);
	if (!a || !b)
		return NEURON_EXEC_DEVICE_ERROR;
	if (in->func == NEURON_TPB_ACCUMULATE) {
		out = neuron_sim_tpb_load(core, NEURON_SIM_BUF_OUT, &in->dst, mn);
	} else {
		out = neuron_sim_tpb_buf(core, NEURON_SIM_BUF_OUT, mn);
		if (out)
			memset(out, 0, mn * sizeof(u32));
	}
	if (!out)
		return NEURON_EXEC_DEVICE_ERROR;
	step = neuron_sim_tpb_tile_rows((u64)in->k * in->n);
	for (r = 0; r < in->m; r += step) {
		if (neuron_sim_tpb_stopped(core))
			return NEURON_EXEC_DEVICE_ERROR;	/* not reported */
		neuron_sim_tpb_matmul(in->dtype, out + (size_t)r * in->n,
				      a + (size_t)r * in->k, b,
				      min(step, in->m - r), in->k, in->n);
	}
	if (core->corrupt)
		out[0] ^= BIT(30);
	if (!neuron_sim_tpb_store(core, &in->dst, out, mn))
		return NEURON_EXEC_DEVICE_ERROR;
	return NEURON_EXEC_OK;
}

static u32 neuron_sim_tpb_act_insn(struct neuron_sim_tpb_core *core,
				   const struct neuron_tpb_insn *in)
{
	u32 *a = neuron_sim_tpb_load(core, NEURON_SIM_BUF_A, &in->a, in->n);
	u32 *out = neuron_sim_tpb_buf(core, NEURON_SIM_BUF_OUT, in->n);
	u32 i;

	if (!a || !out)
		return NEURON_EXEC_DEVICE_ERROR;
	for (i = 0; i < in->n; i += NEURON_SIM_TPB_FPU_CHUNK) {
		if (neuron_sim_tpb_stopped(core))
			return NEURON_EXEC_DEVICE_ERROR;	/* not reported */
		neuron_sim_tpb_act(in->dtype, in->func, out + i, a + i,
				   min_t(u32, NEURON_SIM_TPB_FPU_CHUNK, in->n - i));
	}
	if (!neuron_sim_tpb_store(core, &in->dst, out, in->n))
		return NEURON_EXEC_DEVICE_ERROR;
	return NEURON_EXEC_OK;
}

static u32 neuron_sim_tpb_pool_insn(struct neuron_sim_tpb_core *core,
				    const struct neuron_tpb_insn *in)
{
	u64 mn = (u64)in->m * in->n;
	u32 *a = neuron_sim_tpb_load(core, NEURON_SIM_BUF_A, &in->a, mn * in->k);
	u32 *out = neuron_sim_tpb_buf(core, NEURON_SIM_BUF_OUT, mn);
	u32 step = neuron_sim_tpb_tile_rows((u64)in->n * in->k), r;

	if (!a || !out)
		return NEURON_EXEC_DEVICE_ERROR;
	for (r = 0; r < in->m; r += step) {
		if (neuron_sim_tpb_stopped(core))
			return NEURON_EXEC_DEVICE_ERROR;	/* not reported */
		neuron_sim_tpb_pool(in->dtype, in->func, out + (size_t)r * in->n,
				    a + (size_t)r * in->n * in->k,
				    min(step, in->m - r), in->n, in->k);
	}
	if (!neuron_sim_tpb_store(core, &in->dst, out, mn))
		return NEURON_EXEC_DEVICE_ERROR;
	return NEURON_EXEC_OK;
}

/* TT and TS. */
static u32 neuron_sim_tpb_alu_insn(struct neuron_sim_tpb_core *core,
				   const struct neuron_tpb_insn *in)
{
	u64 mn = (u64)in->m * in->n;
	u32 op = in->func & ~NEURON_TPB_BCAST;
	u32 b_row = in->n, b_col = 1;
	u32 *a, *b, *out, r, step;
	u32 imm = in->imm;

	a = neuron_sim_tpb_load(core, NEURON_SIM_BUF_A, &in->a, mn);
	if (in->opcode == NEURON_TPB_TS) {
		b = &imm;
		b_row = 0;
		b_col = 0;
	} else if (in->func & NEURON_TPB_BCAST) {
		b = neuron_sim_tpb_load(core, NEURON_SIM_BUF_B, &in->b, in->n);
		b_row = 0;
	} else {
		b = neuron_sim_tpb_load(core, NEURON_SIM_BUF_B, &in->b, mn);
	}
	out = neuron_sim_tpb_buf(core, NEURON_SIM_BUF_OUT, mn);
	if (!a || !b || !out)
		return NEURON_EXEC_DEVICE_ERROR;
	step = neuron_sim_tpb_tile_rows(in->n);
	for (r = 0; r < in->m; r += step) {
		if (neuron_sim_tpb_stopped(core))
			return NEURON_EXEC_DEVICE_ERROR;	/* not reported */
		if (neuron_sim_tpb_alu(in->dtype, op, out + (size_t)r * in->n,
				       a + (size_t)r * in->n, b + (size_t)r * b_row,
				       min(step, in->m - r), in->n, b_row, b_col))
			return NEURON_EXEC_BAD_INPUT;
	}
	if (!neuron_sim_tpb_store(core, &in->dst, out, mn))
		return NEURON_EXEC_DEVICE_ERROR;
	return NEURON_EXEC_OK;
}

/* A data instruction (checked). Return: its NEURON_EXEC_* status. */
static u32 neuron_sim_tpb_data(struct neuron_sim_tpb_core *core,
			       const struct neuron_tpb_insn *in)
{
	switch (in->opcode) {
	case NEURON_TPB_COPY:
		return neuron_sim_tpb_copy(core, in);
	case NEURON_TPB_MATMUL:
		return neuron_sim_tpb_matmul_insn(core, in);
	case NEURON_TPB_ACT:
		return neuron_sim_tpb_act_insn(core, in);
	case NEURON_TPB_POOL:
		return neuron_sim_tpb_pool_insn(core, in);
	default:
		return neuron_sim_tpb_alu_insn(core, in);
	}
}

/* ---- the executor ---- */

/*
 * Engine @eng's turn in a step: fetch its next instruction, check it and
 * run it. On NEURON_SIM_FAULT, *@status says how the execution ends.
 */
static enum neuron_sim_turn neuron_sim_tpb_turn(struct neuron_sim_tpb_core *core,
						u32 eng, u32 *status)
{
	struct neuron_tpb_insn in;
	enum neuron_sim_turn turn;
	bool changed = false;
	u32 pc = core->pc[eng];
	u64 at;

	*status = NEURON_EXEC_DEVICE_ERROR;
	/* Running off the end of the block, or a block beyond the DRAM. */
	if (pc >= core->exec.block_count[eng] ||
	    check_add_overflow(core->exec.block_addr[eng], (u64)pc * sizeof(in), &at) ||
	    neuron_sim_tpb_dram(core, at, &in, sizeof(in), false))
		return NEURON_SIM_FAULT;
	/* Little endian in memory. */
	in.imm = le32_to_cpu((__force __le32)in.imm);
	in.m = le32_to_cpu((__force __le32)in.m);
	in.k = le32_to_cpu((__force __le32)in.k);
	in.n = le32_to_cpu((__force __le32)in.n);
	in.index = le32_to_cpu((__force __le32)in.index);
	in.dst.region = le32_to_cpu((__force __le32)in.dst.region);
	in.dst.offset = le32_to_cpu((__force __le32)in.dst.offset);
	in.a.region = le32_to_cpu((__force __le32)in.a.region);
	in.a.offset = le32_to_cpu((__force __le32)in.a.offset);
	in.b.region = le32_to_cpu((__force __le32)in.b.region);
	in.b.offset = le32_to_cpu((__force __le32)in.b.offset);
	if (!neuron_sim_tpb_valid(core, eng, &in))
		return NEURON_SIM_FAULT;

	switch (in.opcode) {
	case NEURON_TPB_END:
		core->ended[eng] = true;
		return NEURON_SIM_MOVED;
	case NEURON_TPB_JUMP:
		core->pc[eng] = in.imm;
		return NEURON_SIM_MOVED;
	case NEURON_TPB_SEM_SIGNAL:
	case NEURON_TPB_SEM_WAIT:
	case NEURON_TPB_EVENT_SET:
	case NEURON_TPB_EVENT_WAIT:
		turn = neuron_sim_tpb_sync(core, &in, &changed);
		if (changed)
			neuron_nc_sem_changed(core->nd, core->nc);
		if (turn != NEURON_SIM_MOVED)
			return turn;
		break;
	case NEURON_TPB_NOTIFY:
		/* Nothing happens when the queue is not set up. */
		neuron_sim_notify(core->sd, core->nc, NEURON_NOTIFY_EVENT,
				  NEURON_NOTIFY_PROGRAM, in.imm);
		break;
	default:
		*status = neuron_sim_tpb_data(core, &in);
		if (*status != NEURON_EXEC_OK)
			return NEURON_SIM_FAULT;
		break;
	}
	core->pc[eng] = pc + 1;
	return NEURON_SIM_MOVED;
}

/*
 * Compute the execution until it ends, no engine can move, or @deadline
 * (local_clock(), ns) passes. Return: its status (NEURON_EXEC_*) once it
 * ended; -EAGAIN (every engine left waits: a semaphore or event not
 * reached, or the hang knob), -EINPROGRESS (the slice is used up), or -1
 * (told to stop: nothing is reported).
 */
static int neuron_sim_tpb_run(struct neuron_sim_tpb_core *core, u64 deadline)
{
	u32 status;
	int eng;

	if (core->fail)
		return NEURON_EXEC_DEVICE_ERROR;
	for (;;) {
		bool moved = false, left = false;

		if (neuron_sim_tpb_stopped(core))
			return -1;
		if (core->hang)
			return -EAGAIN;
		for (eng = 0; eng < NEURON_ENGINES; eng++) {
			if (core->ended[eng])
				continue;
			switch (neuron_sim_tpb_turn(core, eng, &status)) {
			case NEURON_SIM_FAULT:
				/* A fault seen because of a stop is no fault. */
				return neuron_sim_tpb_stopped(core) ? -1 : status;
			case NEURON_SIM_MOVED:
				moved = true;
				break;
			default:
				break;
			}
			if (!core->ended[eng])
				left = true;
		}
		if (!left)
			return NEURON_EXEC_OK;
		if (!moved)
			return -EAGAIN;
		if (local_clock() >= deadline)
			return -EINPROGRESS;
	}
}

/*
 * Write the status of the execution (status, then seq) and raise the
 * interrupt, unless a reset stopped it. @lock held.
 */
static int neuron_sim_tpb_write_status_locked(struct neuron_sim_tpb_core *core, u32 status)
{
	struct neuron_sim_iommu *mmu = &core->sd->iommu;
	u64 iova = core->exec.status_iova;
	int ret;

	lockdep_assert_held(&core->lock);
	ret = neuron_sim_iommu_write32(mmu, iova +
				       offsetof(struct neuron_exec_hw_status, status),
				       (__force u32)cpu_to_le32(status));
	if (ret)
		return ret;
	/* The status is in memory before the seq that publishes it. */
	wmb();
	return neuron_sim_iommu_write32(mmu, iova +
					offsetof(struct neuron_exec_hw_status, seq),
					(__force u32)cpu_to_le32(core->exec.seq));
}

static void neuron_sim_tpb_report_locked(struct neuron_sim_tpb_core *core, u32 status)
{
	lockdep_assert_held(&core->lock);
	if (!neuron_sim_tpb_write_status_locked(core, status))
		neuron_sim_raise_irq(core->sd, NEURON_IRQ_EXEC(core->nc));
}

/* The execution ended with @status: report it, unless a reset stopped it. */
static void neuron_sim_tpb_end(struct neuron_sim_tpb_core *core, u32 status)
{
	neuron_sim_tpb_free_bufs(core);
	mutex_lock(&core->lock);
	if (!core->stop) {
		/* A device error is also reported on the NC's ERROR queue. */
		if (status == NEURON_EXEC_DEVICE_ERROR)
			neuron_sim_notify(core->sd, core->nc, NEURON_NOTIFY_ERROR,
					  NEURON_NOTIFY_EXEC_FAULT, 0);
		neuron_sim_tpb_report_locked(core, status);
		core->running = false;
	}
	mutex_unlock(&core->lock);
}

/**
 * neuron_sim_exec_drive() - compute core @nc's execution for the caller
 * @nd: the device.
 * @nc: the core.
 *
 * ndhal_ops.exec_drive: called inside the removal guard by a thread that
 * waits for the NC's work; the work is its CPU time. One thread computes
 * a core at a time; it stops between two instructions, or two tiles of
 * one, at a reset or the device's removal.
 *
 * Return: 0 (the execution ended: status written, interrupt raised),
 * -EINPROGRESS (the slice is used up: call again), -EAGAIN (nothing to
 * compute now: no execution, every engine waits, another thread computes
 * it, or it is being stopped), -ENODEV.
 */
int neuron_sim_exec_drive(struct neuron_device *nd, u32 nc)
{
	struct neuron_sim_dev *sd = nd->backend;
	struct neuron_sim_tpb_core *core;
	int status = -EAGAIN;

	if (neuron_sim_gone(nd))
		return -ENODEV;
	if (nc >= nd->hal->arch->nc_count || nc >= NEURON_MAX_NC)
		return -EINVAL;
	core = &sd->tpb->core[nc];
	if (!mutex_trylock(&core->drive_lock))
		return -EAGAIN;
	/* exec_start and the reset change @running under drive_lock too. */
	if (core->running && !READ_ONCE(core->stop))
		status = neuron_sim_tpb_run(core, local_clock() + NEURON_SIM_TPB_SLICE);
	if (status >= 0)
		neuron_sim_tpb_end(core, status);
	mutex_unlock(&core->drive_lock);
	if (status >= 0)
		return 0;
	return status == -EINPROGRESS ? -EINPROGRESS : -EAGAIN;
}

/*
 * Stop the execution of @core, if any: on return the executor has
 * stopped, has written nothing for it, and the core is idle. @op_lock held.
 */
static void neuron_sim_tpb_halt_locked(struct neuron_sim_tpb_core *core)
{
	lockdep_assert_held(&core->op_lock);
	mutex_lock(&core->lock);
	WRITE_ONCE(core->stop, true);
	mutex_unlock(&core->lock);
	/* The computing thread sees the stop within a tile and leaves. */
	mutex_lock(&core->drive_lock);
	/* An interrupt raised for an execution that ended before has run. */
	irq_work_sync(&core->sd->irq[NEURON_IRQ_EXEC(core->nc)].work);
	neuron_sim_tpb_free_bufs(core);
	mutex_lock(&core->lock);
	core->running = false;
	WRITE_ONCE(core->stop, false);
	mutex_unlock(&core->lock);
	mutex_unlock(&core->drive_lock);
}

/* Take knob @knob if it selects NC @nc (one shot). */
static bool neuron_sim_tpb_knob_take(u32 *knob, u32 nc)
{
	return READ_ONCE(*knob) == nc + 1 && cmpxchg(knob, nc + 1, 0) == nc + 1;
}

int neuron_sim_exec_start(struct neuron_device *nd, const struct ndhal_exec *e)
{
	struct neuron_sim_dev *sd = nd->backend;
	struct neuron_sim_tpb *tpb = sd->tpb;
	struct neuron_sim_tpb_core *core;
	int eng, ret = 0;

	if (neuron_sim_gone(nd))
		return -ENODEV;
	if (e->nc >= nd->hal->arch->nc_count || e->nc >= NEURON_MAX_NC ||
	    e->nregions > ARRAY_SIZE(e->regions))
		return -EINVAL;
	for (eng = 0; eng < NEURON_ENGINES; eng++)
		if (e->block_count[eng] > NEURON_TPB_MAX_INSNS)
			return -EINVAL;
	core = &tpb->core[e->nc];

	mutex_lock(&core->op_lock);
	mutex_lock(&core->drive_lock);
	mutex_lock(&core->lock);
	if (core->running) {
		ret = -EBUSY;
		goto out;
	}
	core->nd = nd;
	core->exec = *e;
	for (eng = 0; eng < NEURON_ENGINES; eng++) {
		core->pc[eng] = 0;
		core->ended[eng] = !e->block_count[eng];
	}
	core->hang = neuron_sim_tpb_knob_take(&tpb->hang_nc, e->nc);
	core->fail = neuron_sim_tpb_knob_take(&tpb->error_nc, e->nc);
	core->corrupt = neuron_sim_tpb_knob_take(&tpb->corrupt_nc, e->nc);
	WRITE_ONCE(core->stop, false);
	if (READ_ONCE(tpb->instant)) {
		/* Done at once, unrun: the status written, no interrupt. */
		neuron_sim_tpb_write_status_locked(core, NEURON_EXEC_OK);
		goto out;
	}
	core->running = true;
out:
	mutex_unlock(&core->lock);
	mutex_unlock(&core->drive_lock);
	mutex_unlock(&core->op_lock);
	return ret;
}

void neuron_sim_exec_reset(struct neuron_device *nd, u32 nc, u32 code)
{
	struct neuron_sim_dev *sd = nd->backend;
	struct neuron_sim_tpb_core *core;

	if (neuron_sim_gone(nd))
		return;
	if (nc >= nd->hal->arch->nc_count || nc >= NEURON_MAX_NC)
		return;
	core = &sd->tpb->core[nc];
	mutex_lock(&core->op_lock);
	neuron_sim_tpb_halt_locked(core);
	/* Code 0: none. Nothing happens when the queue is not set up. */
	if (code)
		neuron_sim_notify(sd, nc, NEURON_NOTIFY_ERROR, code, 0);
	mutex_unlock(&core->op_lock);
}

/* The driver tears the backend down: stop every core, post nothing. */
void neuron_sim_tpb_stop_all(struct neuron_sim_dev *sd)
{
	struct neuron_sim_tpb *tpb = sd->tpb;
	int i;

	if (!tpb)
		return;
	for (i = 0; i < NEURON_MAX_NC; i++) {
		mutex_lock(&tpb->core[i].op_lock);
		neuron_sim_tpb_halt_locked(&tpb->core[i]);
		mutex_unlock(&tpb->core[i].op_lock);
	}
}

/* ---- knobs ---- */

/**
 * struct neuron_sim_tpb_knob - a u32 knob of struct neuron_sim_tpb in sysfs
 * @attr: the attribute.
 * @off: offset of the knob in struct neuron_sim_tpb.
 */
struct neuron_sim_tpb_knob {
	struct device_attribute attr;
	size_t off;
};

static u32 *neuron_sim_tpb_knob_ptr(struct device *dev,
				    struct device_attribute *attr)
{
	struct neuron_sim_dev *sd = container_of(dev, struct neuron_sim_dev, dev);
	struct neuron_sim_tpb_knob *knob =
		container_of(attr, struct neuron_sim_tpb_knob, attr);

	return (void *)sd->tpb + knob->off;
}

static ssize_t neuron_sim_tpb_knob_show(struct device *dev,
					struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(*neuron_sim_tpb_knob_ptr(dev, attr)));
}

static ssize_t neuron_sim_tpb_knob_store(struct device *dev,
					 struct device_attribute *attr,
					 const char *buf, size_t count)
{
	u32 val;

	if (kstrtou32(buf, 10, &val) || val > NEURON_MAX_NC)
		return -EINVAL;
	WRITE_ONCE(*neuron_sim_tpb_knob_ptr(dev, attr), val);
	return count;
}

#define NEURON_SIM_TPB_KNOB(_name)						\
static struct neuron_sim_tpb_knob neuron_sim_tpb_knob_##_name = {		\
	.attr = __ATTR(tpb_##_name, 0644, neuron_sim_tpb_knob_show,		\
		       neuron_sim_tpb_knob_store),				\
	.off = offsetof(struct neuron_sim_tpb, _name),				\
}

NEURON_SIM_TPB_KNOB(hang_nc);
NEURON_SIM_TPB_KNOB(error_nc);
NEURON_SIM_TPB_KNOB(corrupt_nc);
NEURON_SIM_TPB_KNOB(instant);

static struct attribute *neuron_sim_tpb_attrs[] = {
	&neuron_sim_tpb_knob_hang_nc.attr.attr,
	&neuron_sim_tpb_knob_error_nc.attr.attr,
	&neuron_sim_tpb_knob_corrupt_nc.attr.attr,
	&neuron_sim_tpb_knob_instant.attr.attr,
	NULL,
};

const struct attribute_group neuron_sim_tpb_group = {
	.attrs = neuron_sim_tpb_attrs,
};

/* ---- lifetime ---- */

int neuron_sim_tpb_init(struct neuron_sim_dev *sd)
{
	struct neuron_sim_tpb *tpb;
	int i;

	BUILD_BUG_ON(sizeof(struct neuron_tpb_insn) != 48);
	tpb = kzalloc(sizeof(*tpb), GFP_KERNEL);
	if (!tpb)
		return -ENOMEM;
	for (i = 0; i < NEURON_MAX_NC; i++) {
		struct neuron_sim_tpb_core *core = &tpb->core[i];

		core->sd = sd;
		core->nc = i;
		mutex_init(&core->op_lock);
		mutex_init(&core->drive_lock);
		mutex_init(&core->lock);
	}
	sd->tpb = tpb;
	return 0;
}

/* The simulated device is released: stop everything, free the TPBs. */
void neuron_sim_tpb_fini(struct neuron_sim_dev *sd)
{
	struct neuron_sim_tpb *tpb = sd->tpb;
	int i;

	if (!tpb)
		return;
	neuron_sim_tpb_stop_all(sd);
	for (i = 0; i < NEURON_MAX_NC; i++) {
		mutex_destroy(&tpb->core[i].op_lock);
		mutex_destroy(&tpb->core[i].drive_lock);
		mutex_destroy(&tpb->core[i].lock);
	}
	kfree(tpb);
	sd->tpb = NULL;
}
