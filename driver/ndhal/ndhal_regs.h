/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndhal register maps: where, inside the register BAR of an arch, a backend
 * that drives silicon finds each DMA engine, DMA queue, notification queue
 * slot, event and semaphore. Only const data and pure functions: nothing
 * here touches the hardware. Sources of the numbers: docs/hw-facts.md.
 *
 * Callers use the accessors below and never read the tables directly. Each
 * accessor returns a byte offset into the arch's register BAR
 * (struct ndhal_arch.reg_bar), or a negative errno:
 *   -EINVAL      an index out of range for the arch;
 *   -ENOENT      the register does not exist in that direction;
 *   -EOPNOTSUPP  the arch has no map of that part (v1 is not a target).
 * The plain accessors warn once on an error, which is a driver bug when the
 * indices come from the driver itself. The __ndhal_*() variants return the
 * same values without a warning, for indices that come from outside the
 * driver (validate them, return the errno) and for the KUnit suite.
 */
#ifndef _NEURON_NDHAL_REGS_H
#define _NEURON_NDHAL_REGS_H

#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/types.h>

#include "ndhal.h"

/* ---- DMA engines (the "UDMA" block, the same on v1, v2 and v3) ---- */

/* Bytes of one descriptor (TX and RX alike). */
#define NDHAL_UDMA_DESC_SIZE		16
/* A ring's base (and, given the length rule, its end) is 256-byte aligned. */
#define NDHAL_UDMA_RING_ALIGN		256
/* A ring's length is a multiple of 16 descriptors, from 32 to 2^24 - 16. */
#define NDHAL_UDMA_RING_LEN_STEP	16
#define NDHAL_UDMA_RING_LEN_MIN		32
#define NDHAL_UDMA_RING_LEN_MAX		(BIT(24) - 16)

/* Ring configuration register: the bits the driver sets to run a queue. */
#define NDHAL_UDMA_QCFG_PREFETCH	BIT(16)
#define NDHAL_UDMA_QCFG_SCHED		BIT(17)	/* RX: stream enable */
/* Value written to pause a queue (its reset value); bits 25:24 kept as is. */
#define NDHAL_UDMA_QCFG_PAUSED		0x03000000
#define NDHAL_UDMA_QCFG_RUNNING	\
	(NDHAL_UDMA_QCFG_PAUSED | NDHAL_UDMA_QCFG_PREFETCH | NDHAL_UDMA_QCFG_SCHED)
/* Queue software control register: write to reset the queue. */
#define NDHAL_UDMA_QSW_RESET		BIT(8)
/* Ring length, tail increment and the index of head/tail pointers. */
#define NDHAL_UDMA_PTR_INDEX		GENMASK(23, 0)
/* Head/tail pointers: the 2-bit ring id (lap counter) of that index. */
#define NDHAL_UDMA_PTR_RING_ID		GENMASK(31, 30)
/* Ring base low register: address bits 31:6 (bits 5:0 are zero). */
#define NDHAL_UDMA_BASE_LO_MASK		GENMASK(31, 6)

/**
 * enum ndhal_dma_dir - the two halves of a DMA queue
 * @NDHAL_DMA_TX: memory to stream ("M2S"): reads the source.
 * @NDHAL_DMA_RX: stream to memory ("S2M"): writes the destination.
 * @NDHAL_DMA_DIRS: count.
 */
enum ndhal_dma_dir {
	NDHAL_DMA_TX,
	NDHAL_DMA_RX,
	NDHAL_DMA_DIRS
};

/**
 * enum ndhal_dma_qreg - registers of one half of a DMA queue
 * @NDHAL_DMA_Q_RING_CFG: ring configuration (NDHAL_UDMA_QCFG_*).
 * @NDHAL_DMA_Q_RING_BASE_LO: descriptor ring address, bits 31:6.
 * @NDHAL_DMA_Q_RING_BASE_HI: descriptor ring address, bits 63:32.
 * @NDHAL_DMA_Q_RING_LEN: ring length in descriptors.
 * @NDHAL_DMA_Q_HEAD: next descriptor the engine fetches (read only).
 * @NDHAL_DMA_Q_TAIL_INC: doorbell: write N when N descriptors were added.
 * @NDHAL_DMA_Q_TAIL: tail pointer (read only).
 * @NDHAL_DMA_Q_COMPL_CFG: completion ring configuration (0: no ring).
 * @NDHAL_DMA_Q_SW_CTRL: software control (NDHAL_UDMA_QSW_RESET).
 * @NDHAL_DMA_Q_RATE_MASK: rate limiter mask, TX only.
 * @NDHAL_DMA_Q_REGS: count.
 */
enum ndhal_dma_qreg {
	NDHAL_DMA_Q_RING_CFG,
	NDHAL_DMA_Q_RING_BASE_LO,
	NDHAL_DMA_Q_RING_BASE_HI,
	NDHAL_DMA_Q_RING_LEN,
	NDHAL_DMA_Q_HEAD,
	NDHAL_DMA_Q_TAIL_INC,
	NDHAL_DMA_Q_TAIL,
	NDHAL_DMA_Q_COMPL_CFG,
	NDHAL_DMA_Q_SW_CTRL,
	NDHAL_DMA_Q_RATE_MASK,
	NDHAL_DMA_Q_REGS
};

/* A register a table lists as absent. */
#define NDHAL_REG_NONE			0xffff

/**
 * struct ndhal_reg_span - a run of equal blocks in the register BAR
 * @first: index of the first block (engine, NeuronCore).
 * @count: blocks in the run.
 * @base: BAR offset of block @first.
 * @stride: bytes from one block to the next (0 when @count is 1).
 */
struct ndhal_reg_span {
	u32 first;
	u32 count;
	u32 base;
	u32 stride;
};

/**
 * struct ndhal_udma_map - inside one DMA engine's register window
 * @window: bytes of the window.
 * @queue_block: offset of queue 0's block, per direction.
 * @queue_stride: bytes from one queue's block to the next.
 * @queue_reg: offset of each register in a queue's block, per direction
 *	(NDHAL_REG_NONE: absent).
 */
struct ndhal_udma_map {
	u32 window;
	u32 queue_block[NDHAL_DMA_DIRS];
	u32 queue_stride;
	u16 queue_reg[NDHAL_DMA_DIRS][NDHAL_DMA_Q_REGS];
};

/* ---- notification queues ---- */

/**
 * enum ndhal_nq_reg - registers of one notification queue slot
 * @NDHAL_NQ_BASE_LO: queue memory address, bits 31:0.
 * @NDHAL_NQ_BASE_HI: queue memory address, bits 63:32.
 * @NDHAL_NQ_SIZE: queue size in bytes (a power of two; 0 disables).
 * @NDHAL_NQ_REGS: count.
 *
 * Programming order: high, low, then size.
 */
enum ndhal_nq_reg {
	NDHAL_NQ_BASE_LO,
	NDHAL_NQ_BASE_HI,
	NDHAL_NQ_SIZE,
	NDHAL_NQ_REGS
};

/**
 * struct ndhal_nq_map - inside one notification block
 * @block_size: bytes of the block.
 * @slot0: offset of slot 0.
 * @slot_stride: bytes from one slot to the next.
 * @slots: slots of the block.
 * @slot_reg: offset of each register in a slot.
 *
 * Which slot serves which queue is not settled by the public facts (see
 * docs/hw-facts.md: [inferred], conflicting); the map only places slots.
 */
struct ndhal_nq_map {
	u32 block_size;
	u32 slot0;
	u32 slot_stride;
	u32 slots;
	u16 slot_reg[NDHAL_NQ_REGS];
};

/* ---- semaphores and events of a NeuronCore ---- */

/**
 * enum ndhal_sema_op - what an access to a semaphore register does
 * @NDHAL_SEMA_READ: read the value.
 * @NDHAL_SEMA_SET: write: set to the value.
 * @NDHAL_SEMA_INC: write: add the value.
 * @NDHAL_SEMA_DEC: write: subtract the value.
 * @NDHAL_SEMA_OPS: count.
 */
enum ndhal_sema_op {
	NDHAL_SEMA_READ,
	NDHAL_SEMA_SET,
	NDHAL_SEMA_INC,
	NDHAL_SEMA_DEC,
	NDHAL_SEMA_OPS
};

/**
 * struct ndhal_sema_map - the semaphore/event block of a NeuronCore window
 * @block: offset of the block from the NeuronCore's window.
 * @block_size: bytes of the block.
 * @event: offset of event 0 in the block (32-bit registers, 4 bytes apart).
 * @sema: offset of semaphore 0 in the block, per operation (likewise).
 */
struct ndhal_sema_map {
	u32 block;
	u32 block_size;
	u32 event;
	u32 sema[NDHAL_SEMA_OPS];
};

/**
 * struct ndhal_arch_regs - the register map of an arch
 * @dma_engines: where each DMA engine's window is, by engine index; the
 *	spans cover engines 0 .. ndhal_arch.dma_engines - 1.
 * @dma_engine_spans: entries of @dma_engines.
 * @udma: layout of an engine's window.
 * @nc_notify: where each NeuronCore's notification block is.
 * @nc_notify_spans: entries of @nc_notify.
 * @nq: layout of a notification block.
 * @nc_window: where each NeuronCore's window (semaphores, events) is.
 * @nc_window_spans: entries of @nc_window.
 * @sema: layout of the semaphore/event block in that window.
 *
 * A part an arch lacks is NULL (its accessors return -EOPNOTSUPP).
 */
struct ndhal_arch_regs {
	const struct ndhal_reg_span *dma_engines;
	u32 dma_engine_spans;
	const struct ndhal_udma_map *udma;
	const struct ndhal_reg_span *nc_notify;
	u32 nc_notify_spans;
	const struct ndhal_nq_map *nq;
	const struct ndhal_reg_span *nc_window;
	u32 nc_window_spans;
	const struct ndhal_sema_map *sema;
};

/* Layouts shared by archs (the v2 ones are v3's too), and the maps. */
extern const struct ndhal_udma_map ndhal_udma_map;
extern const struct ndhal_nq_map ndhal_nq_map_v2;
extern const struct ndhal_sema_map ndhal_sema_map_v2;
extern const struct ndhal_arch_regs ndhal_regs_v1;
extern const struct ndhal_arch_regs ndhal_regs_v2;
extern const struct ndhal_arch_regs ndhal_regs_v3;

/* BAR offset of block @idx of @spans, or -EINVAL if no span holds it. */
static inline s64 ndhal_span_offset(const struct ndhal_reg_span *spans,
				    u32 nspans, u32 idx)
{
	u32 i;

	for (i = 0; i < nspans; i++) {
		const struct ndhal_reg_span *s = &spans[i];

		if (idx >= s->first && idx - s->first < s->count)
			return s->base + (u64)(idx - s->first) * s->stride;
	}
	return -EINVAL;
}

/* ---- quiet accessors: no warning ---- */

static inline s64 __ndhal_dma_engine_offset(const struct ndhal_arch *arch,
					    u32 engine)
{
	const struct ndhal_arch_regs *r = arch->regs;

	if (!r || !r->dma_engines || !r->udma)
		return -EOPNOTSUPP;
	if (engine >= arch->dma_engines)
		return -EINVAL;
	return ndhal_span_offset(r->dma_engines, r->dma_engine_spans, engine);
}

static inline s64 __ndhal_dma_queue_offset(const struct ndhal_arch *arch,
					   u32 engine, u32 queue,
					   enum ndhal_dma_dir dir)
{
	s64 off = __ndhal_dma_engine_offset(arch, engine);
	const struct ndhal_udma_map *u;

	if (off < 0)
		return off;
	if (queue >= arch->dma_queues_per_engine || dir >= NDHAL_DMA_DIRS)
		return -EINVAL;
	u = arch->regs->udma;
	return off + u->queue_block[dir] + (u64)queue * u->queue_stride;
}

static inline s64 __ndhal_dma_queue_reg(const struct ndhal_arch *arch,
					u32 engine, u32 queue,
					enum ndhal_dma_dir dir,
					enum ndhal_dma_qreg reg)
{
	s64 off = __ndhal_dma_queue_offset(arch, engine, queue, dir);
	u16 r;

	if (off < 0)
		return off;
	if (reg >= NDHAL_DMA_Q_REGS)
		return -EINVAL;
	r = arch->regs->udma->queue_reg[dir][reg];
	if (r == NDHAL_REG_NONE)
		return -ENOENT;
	return off + r;
}

static inline s64 __ndhal_notify_block_offset(const struct ndhal_arch *arch,
					      u32 nc)
{
	const struct ndhal_arch_regs *r = arch->regs;

	if (!r || !r->nc_notify || !r->nq)
		return -EOPNOTSUPP;
	if (nc >= arch->nc_count)
		return -EINVAL;
	return ndhal_span_offset(r->nc_notify, r->nc_notify_spans, nc);
}

static inline s64 __ndhal_notify_slot_reg(const struct ndhal_arch *arch,
					  u32 nc, u32 slot,
					  enum ndhal_nq_reg reg)
{
	s64 off = __ndhal_notify_block_offset(arch, nc);
	const struct ndhal_nq_map *m;

	if (off < 0)
		return off;
	m = arch->regs->nq;
	if (slot >= m->slots || reg >= NDHAL_NQ_REGS)
		return -EINVAL;
	return off + m->slot0 + (u64)slot * m->slot_stride + m->slot_reg[reg];
}

static inline s64 __ndhal_sema_block_offset(const struct ndhal_arch *arch,
					    u32 nc)
{
	const struct ndhal_arch_regs *r = arch->regs;
	s64 off;

	if (!r || !r->nc_window || !r->sema)
		return -EOPNOTSUPP;
	if (nc >= arch->nc_count)
		return -EINVAL;
	off = ndhal_span_offset(r->nc_window, r->nc_window_spans, nc);
	if (off < 0)
		return off;
	return off + r->sema->block;
}

static inline s64 __ndhal_event_reg(const struct ndhal_arch *arch, u32 nc,
				    u32 event)
{
	s64 off = __ndhal_sema_block_offset(arch, nc);

	if (off < 0)
		return off;
	if (event >= arch->events_per_nc)
		return -EINVAL;
	return off + arch->regs->sema->event + 4 * (u64)event;
}

static inline s64 __ndhal_sema_reg(const struct ndhal_arch *arch, u32 nc,
				   u32 sema, enum ndhal_sema_op op)
{
	s64 off = __ndhal_sema_block_offset(arch, nc);

	if (off < 0)
		return off;
	if (sema >= arch->semaphores_per_nc || op >= NDHAL_SEMA_OPS)
		return -EINVAL;
	return off + arch->regs->sema->sema[op] + 4 * (u64)sema;
}

/* ---- accessors for indices the driver chose: warn once on a bug ---- */

/* BAR offset of DMA engine @engine's register window. */
static inline s64 ndhal_dma_engine_offset(const struct ndhal_arch *arch,
					  u32 engine)
{
	s64 off = __ndhal_dma_engine_offset(arch, engine);

	WARN_ON_ONCE(off < 0);
	return off;
}

/* BAR offset of the @dir half of queue @queue of DMA engine @engine. */
static inline s64 ndhal_dma_queue_offset(const struct ndhal_arch *arch,
					 u32 engine, u32 queue,
					 enum ndhal_dma_dir dir)
{
	s64 off = __ndhal_dma_queue_offset(arch, engine, queue, dir);

	WARN_ON_ONCE(off < 0);
	return off;
}

/* BAR offset of register @reg of that queue half. */
static inline s64 ndhal_dma_queue_reg(const struct ndhal_arch *arch,
				      u32 engine, u32 queue,
				      enum ndhal_dma_dir dir,
				      enum ndhal_dma_qreg reg)
{
	s64 off = __ndhal_dma_queue_reg(arch, engine, queue, dir, reg);

	WARN_ON_ONCE(off < 0);
	return off;
}

/* BAR offset of NeuronCore @nc's notification block. */
static inline s64 ndhal_notify_block_offset(const struct ndhal_arch *arch,
					    u32 nc)
{
	s64 off = __ndhal_notify_block_offset(arch, nc);

	WARN_ON_ONCE(off < 0);
	return off;
}

/* BAR offset of register @reg of slot @slot of NeuronCore @nc's block. */
static inline s64 ndhal_notify_slot_reg(const struct ndhal_arch *arch,
					u32 nc, u32 slot, enum ndhal_nq_reg reg)
{
	s64 off = __ndhal_notify_slot_reg(arch, nc, slot, reg);

	WARN_ON_ONCE(off < 0);
	return off;
}

/* BAR offset of NeuronCore @nc's semaphore/event block. */
static inline s64 ndhal_sema_block_offset(const struct ndhal_arch *arch,
					  u32 nc)
{
	s64 off = __ndhal_sema_block_offset(arch, nc);

	WARN_ON_ONCE(off < 0);
	return off;
}

/* Bytes of that block, 0 if the arch has no map of it. */
static inline u32 ndhal_sema_block_size(const struct ndhal_arch *arch)
{
	return arch->regs && arch->regs->sema ? arch->regs->sema->block_size : 0;
}

/* BAR offset of event @event of NeuronCore @nc. */
static inline s64 ndhal_event_reg(const struct ndhal_arch *arch, u32 nc,
				  u32 event)
{
	s64 off = __ndhal_event_reg(arch, nc, event);

	WARN_ON_ONCE(off < 0);
	return off;
}

/* BAR offset of semaphore @sema of NeuronCore @nc, accessed as @op. */
static inline s64 ndhal_sema_reg(const struct ndhal_arch *arch, u32 nc,
				 u32 sema, enum ndhal_sema_op op)
{
	s64 off = __ndhal_sema_reg(arch, nc, sema, op);

	WARN_ON_ONCE(off < 0);
	return off;
}

/*
 * Whether a descriptor ring of @entries descriptors at device address @iova
 * meets the engine's rules: 0 or -EINVAL. The driver's own rings must also
 * be a power of two (its index math masks); that is the caller's rule.
 */
static inline int ndhal_dma_ring_check(u64 iova, u32 entries)
{
	u64 bytes = (u64)entries * NDHAL_UDMA_DESC_SIZE;

	if (iova % NDHAL_UDMA_RING_ALIGN ||
	    entries < NDHAL_UDMA_RING_LEN_MIN ||
	    entries > NDHAL_UDMA_RING_LEN_MAX ||
	    entries % NDHAL_UDMA_RING_LEN_STEP ||
	    iova + bytes < iova)
		return -EINVAL;
	return 0;
}

#endif /* _NEURON_NDHAL_REGS_H */
