// SPDX-License-Identifier: GPL-2.0
/*
 * ndhal: register code of the DMA engine block ("UDMA") that v2 and v3
 * share, and its descriptors. Offsets below are bytes from an engine's
 * window (ndhal_dma_engine_offset()); each one, each value written and each
 * step's order is a public fact cited in docs/hw-facts.md ("Programming the
 * engines"). [inferred] marks the choices the facts leave open.
 *
 * Only the engines of the driver's own copy queues are set up (the
 * host-facing engines); the others belong to the runtime, which we do not
 * drive.
 */
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/kernel.h>

#include "dma/neuron_desc.h"
#include "ndhal/ndhal.h"
#include "ndhal/ndhal_regs.h"
#include "ndhal/ndhal_silicon.h"

/* Engine-wide registers: TX ("M2S") half at +0, RX ("S2M") half at +0x2_0000. */
#define UDMA_M2S_AXI_DATA_RD_CFG	0x00118
#define UDMA_M2S_DESC_RD_CFG3		0x0011c
#define UDMA_S2M_DESC_RD_CFG3		0x2011c
#define UDMA_M2S_AXI_OUTSTANDING	0x00124
#define UDMA_S2M_AXI_RD_OUTSTANDING	0x20124
#define UDMA_S2M_AXI_WR_OUTSTANDING	0x20128
#define UDMA_M2S_STATE			0x00200
#define UDMA_S2M_STATE			0x20200
#define UDMA_M2S_PKT_LEN_CFG		0x00254
#define UDMA_M2S_STREAM_CFG		0x00258
#define UDMA_M2S_PREFETCH_CFG2		0x00304
#define UDMA_M2S_PREFETCH_CFG3		0x00308
#define UDMA_S2M_PREFETCH_CFG3		0x20308
#define UDMA_M2S_DATA_RD_CFG		0x00310
#define UDMA_M2S_APP_ACK_TIMEOUT	0x00408
#define UDMA_S2M_COMPL_CFG		0x20380
#define UDMA_S2M_APP_ACK_TIMEOUT	0x2038c
/* The GEN block (+0x3_8000): interrupt controllers and AXI. */
#define UDMA_IOFIC_PRIMARY		0x38000
#define UDMA_IOFIC_SECONDARY		0x3a000
#define UDMA_GEN_AXI_TIMEOUT		0x3a300
#define UDMA_GEN_AXI_ERR_DETECT(i)	(0x3a900 + (i) * 0x40)
#define UDMA_GEN_AXI_ERR_CTRL(i)	(0x3ab00 + (i) * 8)
#define UDMA_GEN_UNIT_IOFIC(i)		(0x3ad00 + (i) * 0x100)
#define UDMA_GEN_SPARE			0x3b460
/* The GEN_EX block (+0x3_C000): per-queue address-high selectors. */
#define UDMA_GEN_EX_SEL(q)		(0x3c400 + (q) * 0x40)

/* An interrupt controller group (0x40 bytes) and its registers. */
#define UDMA_IOFIC_GROUP(ctl, g)	((ctl) + (g) * 0x40)
#define UDMA_IOFIC_MASK_CLEAR		0x18
#define UDMA_IOFIC_CONTROL		0x28
#define UDMA_IOFIC_ABORT_MASK		0x30
/* Control: set the cause on a rising edge (bit 3), no MSI-X (bit 5). */
#define UDMA_IOFIC_CONTROL_VALUE	(BIT(3) | BIT(5))

/* The error bits the engine is set to abort on, per group. */
#define UDMA_ERR_SEC_A			0x0fffffff	/* TX errors */
#define UDMA_ERR_SEC_B			0xffffef07	/* RX errors */
/* AXI parity, TX bits and RX bits [inferred: one group holds both]. */
#define UDMA_ERR_SEC_C			(0x0000003f | 0x00000fc0)
/* The secondaries' summary bits [inferred]. */
#define UDMA_ERR_PRI_D			(BIT(8) | BIT(9) | BIT(10))

/* Engine state: four 2-bit fields; 2 is "abort". */
#define UDMA_STATE_ABORT		2

/* The descriptors' metadata word of a kernel copy (TX), and its write barrier. */
#define UDMA_META_COPY			0x01080003
#define UDMA_META_BARRIER		BIT(26)
/* The first lap after a queue's set-up has ring id 1. */
#define UDMA_FIRST_RING_ID		1

/*
 * Program one interrupt controller group to abort the engine on @set: the
 * NOT of the set goes to the abort mask and the mask-clear, as the facts
 * write it; that the zeros unmask ("write 0 to clear") is [inferred].
 */
static void ndhal_udma_iofic(const struct ndhal_io *io, u64 group, u32 set)
{
	ndhal_wr(io, group + UDMA_IOFIC_CONTROL, UDMA_IOFIC_CONTROL_VALUE);
	ndhal_wr(io, group + UDMA_IOFIC_ABORT_MASK, ~set);
	ndhal_wr(io, group + UDMA_IOFIC_MASK_CLEAR, ~set);
}

/* v2: AXI errors abort the engine too. */
static void ndhal_udma_axi_error_abort(const struct ndhal_io *io, u64 e)
{
	static const u8 words[] = { 1, 2, 3, 9, 10, 11 };
	u32 i, q, w;

	for (i = 0; i < 6; i++)
		for (w = 0; w < ARRAY_SIZE(words); w++)
			ndhal_wr(io, e + UDMA_GEN_AXI_ERR_DETECT(i) + 4 * words[w], 0xf);
	for (i = 0; i < 6; i++) {
		for (q = 0; q < 16; q++) {
			ndhal_wr(io, e + UDMA_GEN_AXI_ERR_CTRL(i), (q << 3) | 7);
			ndhal_wr(io, e + UDMA_GEN_AXI_ERR_CTRL(i) + 4, 0x10);
		}
	}
	for (i = 0; i < 6; i++) {
		ndhal_wr(io, e + UDMA_GEN_UNIT_IOFIC(i) + UDMA_IOFIC_CONTROL,
			 UDMA_IOFIC_CONTROL_VALUE);
		ndhal_wr(io, e + UDMA_GEN_UNIT_IOFIC(i) + UDMA_IOFIC_ABORT_MASK, 0);
		ndhal_wr(io, e + UDMA_GEN_UNIT_IOFIC(i) + UDMA_IOFIC_MASK_CLEAR, 0);
	}
	ndhal_wr(io, e + UDMA_GEN_AXI_TIMEOUT, 0xffffffff);
}

/**
 * ndhal_udma_engine_init() - set a DMA engine up, as after a reset
 * @io: the register BAR.
 * @arch: the arch (its silicon table gives the per-arch values).
 * @engine: the engine.
 *
 * The steps and values of the facts, in their order (docs/hw-facts.md).
 * The change state registers are not written: the engine is taken to be
 * running as the firmware left it [inferred], as the facts' driver does.
 * Return: 0, or -EINVAL for an engine the arch has not.
 */
int ndhal_udma_engine_init(const struct ndhal_io *io, const struct ndhal_arch *arch,
			   u32 engine)
{
	const struct ndhal_udma_init *v = &arch->silicon->udma;
	s64 e = __ndhal_dma_engine_offset(arch, engine), w;
	u32 q;

	if (e < 0)
		return (int)e;
	/* 1: every queue enabled (running) on both sides. */
	for (q = 0; q < arch->dma_queues_per_engine; q++) {
		ndhal_wr(io, ndhal_dma_queue_reg(arch, engine, q, NDHAL_DMA_TX,
						 NDHAL_DMA_Q_RING_CFG), NDHAL_UDMA_QCFG_RUNNING);
		ndhal_wr(io, ndhal_dma_queue_reg(arch, engine, q, NDHAL_DMA_RX,
						 NDHAL_DMA_Q_RING_CFG), NDHAL_UDMA_QCFG_RUNNING);
	}
	/* 2-5: TX data reads, AXI outstanding, AXI timeout, packets, stream. */
	ndhal_wr(io, e + UDMA_M2S_DATA_RD_CFG, v->m2s_data_rd_cfg);
	ndhal_wr(io, e + UDMA_M2S_AXI_OUTSTANDING, v->m2s_axi_outstanding);
	ndhal_wr(io, e + UDMA_GEN_AXI_TIMEOUT, 100000000);
	ndhal_wr(io, e + UDMA_M2S_APP_ACK_TIMEOUT, 0);
	/* Max packet size, and a length field of 0 meaning 64 KiB (bit 24). */
	ndhal_wr(io, e + UDMA_M2S_PKT_LEN_CFG, 0x010fffff);
	ndhal_wr(io, e + UDMA_M2S_STREAM_CFG, 0x00000102);
	/* 6-7: address-high selectors, TX data read, RX app ack. */
	for (q = 0; q < arch->dma_queues_per_engine; q++)
		ndhal_wr(io, e + UDMA_GEN_EX_SEL(q), 0xffffffff);
	ndhal_wr(io, e + UDMA_M2S_AXI_DATA_RD_CFG, 0x00010008);
	ndhal_wr(io, e + UDMA_S2M_APP_ACK_TIMEOUT, 0);
	for (q = 0; q < arch->dma_queues_per_engine; q++) {
		ndhal_wr(io, e + UDMA_GEN_EX_SEL(q) + 0x4, 0xffffffff);
		ndhal_wr(io, e + UDMA_GEN_EX_SEL(q) + 0x8, 0xffffffff);
		ndhal_wr(io, e + UDMA_GEN_EX_SEL(q) + 0xc, 0xffffffff);
	}
	/* 8: RX AXI outstanding reads and writes. */
	ndhal_wr(io, e + UDMA_S2M_AXI_RD_OUTSTANDING, v->s2m_axi_rd_outstanding);
	ndhal_wr(io, e + UDMA_S2M_AXI_WR_OUTSTANDING, 0x40804080);
	/* 9: bit 0 of the spare register cleared (v2, v3). */
	ndhal_wr(io, e + UDMA_GEN_SPARE, ndhal_rd(io, e + UDMA_GEN_SPARE) & ~BIT(0));
	/* 10: errors abort the engine; no MSI-X. */
	ndhal_udma_iofic(io, e + UDMA_IOFIC_GROUP(UDMA_IOFIC_SECONDARY, 0), UDMA_ERR_SEC_A);
	ndhal_udma_iofic(io, e + UDMA_IOFIC_GROUP(UDMA_IOFIC_SECONDARY, 1), UDMA_ERR_SEC_B);
	ndhal_udma_iofic(io, e + UDMA_IOFIC_GROUP(UDMA_IOFIC_SECONDARY, 2), UDMA_ERR_SEC_C);
	ndhal_udma_iofic(io, e + UDMA_IOFIC_GROUP(UDMA_IOFIC_PRIMARY, 3), UDMA_ERR_PRI_D);
	/* 11: RX completion descriptors of 16 bytes. */
	ndhal_wr(io, e + UDMA_S2M_COMPL_CFG, 0x00001004);
	/* 12: prefetch: at most 65 descriptors a packet, bursts of 8. */
	ndhal_wr(io, e + UDMA_M2S_PREFETCH_CFG2, 0x00010041);
	ndhal_wr(io, e + UDMA_M2S_PREFETCH_CFG3, 0x4181);
	ndhal_wr(io, e + UDMA_S2M_PREFETCH_CFG3, 0x4181);
	ndhal_wr(io, e + UDMA_M2S_DESC_RD_CFG3, 0x00010008);
	ndhal_wr(io, e + UDMA_S2M_DESC_RD_CFG3, 0x00010008);
	/* 13: the SDMA wrapper, where the arch gives the engine one (v3: none [inferred]). */
	w = arch->silicon->sdma_wrapper(engine);
	if (w >= 0) {
		ndhal_wr(io, w + 0x1c, 1);	/* read reorder buffer */
		ndhal_wr(io, w + 0x20, 1);	/* write reorder buffer */
		ndhal_wr(io, w + 0x00, 1);	/* event acceleration */
	}
	/* 14: v2 makes AXI errors abort too. */
	if (v->axi_error_abort)
		ndhal_udma_axi_error_abort(io, e);
	return 0;
}

/* Set one side of a queue up (the facts' queue sequence). */
static void ndhal_udma_side_start(const struct ndhal_io *io, const struct ndhal_arch *arch,
				  u32 engine, u32 queue, enum ndhal_dma_dir dir,
				  u64 ring, u32 entries)
{
#define QREG(r) ndhal_dma_queue_reg(arch, engine, queue, dir, (r))
	if (dir == NDHAL_DMA_TX)
		ndhal_wr(io, QREG(NDHAL_DMA_Q_RATE_MASK), 0x3);	/* bit 2 clear: barriers work */
	ndhal_wr(io, QREG(NDHAL_DMA_Q_RING_CFG), NDHAL_UDMA_QCFG_PAUSED);
	/* Not waited for nor cleared: the bit clears itself [inferred]. */
	ndhal_wr(io, QREG(NDHAL_DMA_Q_SW_CTRL), NDHAL_UDMA_QSW_RESET);
	ndhal_wr(io, QREG(NDHAL_DMA_Q_RING_BASE_LO), lower_32_bits(ring) & NDHAL_UDMA_BASE_LO_MASK);
	ndhal_wr(io, QREG(NDHAL_DMA_Q_RING_BASE_HI), upper_32_bits(ring));
	ndhal_wr(io, QREG(NDHAL_DMA_Q_RING_LEN), entries);
	ndhal_wr(io, QREG(NDHAL_DMA_Q_COMPL_CFG), 0);	/* no completion ring */
	ndhal_wr(io, QREG(NDHAL_DMA_Q_RING_CFG), NDHAL_UDMA_QCFG_RUNNING);
#undef QREG
}

/**
 * ndhal_udma_queue_start() - program a queue's rings, TX then RX
 * @io: the register BAR.
 * @arch: the arch.
 * @engine: the engine.
 * @queue: the queue.
 * @tx: device address of the TX descriptor ring.
 * @rx: device address of the RX descriptor ring.
 * @entries: descriptors in each ring.
 *
 * The rings start at index 0 with ring id 1. Return: 0, or -EINVAL for a
 * ring the engine refuses (alignment, length).
 */
int ndhal_udma_queue_start(const struct ndhal_io *io, const struct ndhal_arch *arch,
			   u32 engine, u32 queue, u64 tx, u64 rx, u32 entries)
{
	if (ndhal_dma_ring_check(tx, entries) || ndhal_dma_ring_check(rx, entries) ||
	    __ndhal_dma_queue_offset(arch, engine, queue, NDHAL_DMA_TX) < 0)
		return -EINVAL;
	ndhal_udma_side_start(io, arch, engine, queue, NDHAL_DMA_TX, tx, entries);
	ndhal_udma_side_start(io, arch, engine, queue, NDHAL_DMA_RX, rx, entries);
	return 0;
}

/**
 * ndhal_udma_queue_stop() - stop a queue: paused, then reset, both sides
 * @io: the register BAR.
 * @arch: the arch.
 * @engine: the engine.
 * @queue: the queue.
 *
 * [inferred]: the facts give pause and reset as steps of a queue's
 * set-up; that together they stop it, with the read back flushing the
 * posted writes, is our reading, and so is that the reset bit clears
 * itself.
 */
void ndhal_udma_queue_stop(const struct ndhal_io *io, const struct ndhal_arch *arch,
			   u32 engine, u32 queue)
{
	enum ndhal_dma_dir dir;

	for (dir = NDHAL_DMA_TX; dir < NDHAL_DMA_DIRS; dir++) {
		ndhal_wr(io, ndhal_dma_queue_reg(arch, engine, queue, dir, NDHAL_DMA_Q_RING_CFG),
			 NDHAL_UDMA_QCFG_PAUSED);
		ndhal_wr(io, ndhal_dma_queue_reg(arch, engine, queue, dir, NDHAL_DMA_Q_SW_CTRL),
			 NDHAL_UDMA_QSW_RESET);
	}
	ndhal_rd(io, ndhal_dma_queue_reg(arch, engine, queue, NDHAL_DMA_RX,
					 NDHAL_DMA_Q_RING_CFG));
}

/* The doorbell: RX tail first, then TX, each by @added descriptors. */
void ndhal_udma_queue_kick(const struct ndhal_io *io, const struct ndhal_arch *arch,
			   u32 engine, u32 queue, u32 added)
{
	ndhal_wr(io, ndhal_dma_queue_reg(arch, engine, queue, NDHAL_DMA_RX,
					 NDHAL_DMA_Q_TAIL_INC), added);
	ndhal_wr(io, ndhal_dma_queue_reg(arch, engine, queue, NDHAL_DMA_TX,
					 NDHAL_DMA_Q_TAIL_INC), added);
}

/* Does one of the four fields of an engine state register say abort? */
static bool ndhal_udma_state_aborted(u32 state)
{
	u32 i;

	/* All ones: the device no longer answers [inferred]. */
	if (state == 0xffffffff)
		return true;
	for (i = 0; i < 4; i++)
		if (((state >> (4 * i)) & 3) == UDMA_STATE_ABORT)
			return true;
	return false;
}

/**
 * ndhal_udma_engine_aborted() - did the engine stop on an error?
 * @io: the register BAR.
 * @arch: the arch.
 * @engine: the engine.
 *
 * Return: true if a field of either half's state register reads abort.
 */
bool ndhal_udma_engine_aborted(const struct ndhal_io *io,
			       const struct ndhal_arch *arch, u32 engine)
{
	s64 e = ndhal_dma_engine_offset(arch, engine);

	if (e < 0)
		return true;
	return ndhal_udma_state_aborted(ndhal_rd(io, e + UDMA_M2S_STATE)) ||
	       ndhal_udma_state_aborted(ndhal_rd(io, e + UDMA_S2M_STATE));
}

/**
 * ndhal_udma_engine_state() - the engine's M2S state register, as read
 * @io: the register BAR.
 * @arch: the arch.
 * @engine: the engine.
 *
 * Return: its value; all ones (also for an engine the arch has not) is no
 * state: the device did not answer [inferred], see ndhal_udma_state_aborted().
 */
u32 ndhal_udma_engine_state(const struct ndhal_io *io, const struct ndhal_arch *arch,
			    u32 engine)
{
	s64 e = ndhal_dma_engine_offset(arch, engine);

	return e < 0 ? U32_MAX : ndhal_rd(io, e + UDMA_M2S_STATE);
}

/**
 * ndhal_udma_desc() - the TX and RX descriptors of a kernel copy packet
 * @tx: the TX descriptor (the source).
 * @rx: the RX descriptor (the destination).
 * @p: the packet.
 *
 * One descriptor a side: TX first and last of its packet with the copy
 * metadata (and the write barrier when @p asks for it), RX plain; the
 * ring id is the lap's plus one; a length of 64 KiB is written as 0.
 */
void ndhal_udma_desc(struct neuron_udma_desc *tx, struct neuron_udma_desc *rx,
		     const struct ndhal_dma_packet *p)
{
	u32 ring_id = (p->lap + UDMA_FIRST_RING_ID) & 3;

	neuron_desc_encode(tx, p->src, p->len, ring_id, NEURON_DESC_FIRST | NEURON_DESC_LAST);
	tx->meta = cpu_to_le32(UDMA_META_COPY | (p->barrier ? UDMA_META_BARRIER : 0));
	neuron_desc_encode(rx, p->dst, p->len, ring_id, 0);
}
