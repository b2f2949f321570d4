// SPDX-License-Identifier: GPL-2.0
/*
 * ndhal register maps: the layouts several archs share. Numbers from public
 * facts, see docs/hw-facts.md ("Register maps"). Const data only.
 */
#include "ndhal/ndhal_regs.h"

/*
 * One DMA engine's window (the same engine block on v1, v2 and v3): the TX
 * half at +0, the RX half at +0x20000, engine-wide registers above; each
 * half holds 16 queue blocks of 4 KiB from +0x1000.
 */
const struct ndhal_udma_map ndhal_udma_map = {
	.window = 0x40000,
	.queue_block = {
		[NDHAL_DMA_TX] = 0x01000,
		[NDHAL_DMA_RX] = 0x21000,
	},
	.queue_stride = 0x1000,
	.queue_reg = {
		[NDHAL_DMA_TX] = {
			[NDHAL_DMA_Q_RING_CFG] = 0x20,
			[NDHAL_DMA_Q_RING_BASE_LO] = 0x28,
			[NDHAL_DMA_Q_RING_BASE_HI] = 0x2c,
			[NDHAL_DMA_Q_RING_LEN] = 0x30,
			[NDHAL_DMA_Q_HEAD] = 0x34,
			[NDHAL_DMA_Q_TAIL_INC] = 0x38,
			[NDHAL_DMA_Q_TAIL] = 0x3c,
			[NDHAL_DMA_Q_COMPL_CFG] = 0xa0,
			[NDHAL_DMA_Q_SW_CTRL] = 0xb0,
			[NDHAL_DMA_Q_RATE_MASK] = 0x74,
		},
		[NDHAL_DMA_RX] = {
			[NDHAL_DMA_Q_RING_CFG] = 0x20,
			[NDHAL_DMA_Q_RING_BASE_LO] = 0x28,
			[NDHAL_DMA_Q_RING_BASE_HI] = 0x2c,
			[NDHAL_DMA_Q_RING_LEN] = 0x30,
			[NDHAL_DMA_Q_HEAD] = 0x34,
			[NDHAL_DMA_Q_TAIL_INC] = 0x38,
			[NDHAL_DMA_Q_TAIL] = 0x3c,
			[NDHAL_DMA_Q_COMPL_CFG] = 0x54,
			[NDHAL_DMA_Q_SW_CTRL] = 0x64,
			[NDHAL_DMA_Q_RATE_MASK] = NDHAL_REG_NONE,
		},
	},
};

/*
 * A v2/v3 notification block: 4 KiB, 96 slots of 40 bytes from +0x100 (the
 * last slot ends at the end of the block). Only the first three words of a
 * slot are known: base low, base high, size. (A fourth, a head, is named
 * by the facts but its meaning is inferred: not mapped.)
 */
const struct ndhal_nq_map ndhal_nq_map_v2 = {
	.block_size = 0x1000,
	.slot0 = 0x100,
	.slot_stride = 0x28,
	.slots = 96,
	.slot_reg = {
		[NDHAL_NQ_BASE_LO] = 0x0,
		[NDHAL_NQ_BASE_HI] = 0x4,
		[NDHAL_NQ_SIZE] = 0x8,
	},
};

/*
 * A v2/v3 NeuronCore window's semaphore/event block, 8 KiB at +0x2700000:
 * events from +0, then one 1 KiB bank of semaphore registers per operation
 * from +0x1000.
 */
const struct ndhal_sema_map ndhal_sema_map_v2 = {
	.block = 0x2700000,
	.block_size = 0x2000,
	.event = 0x0,
	.sema = {
		[NDHAL_SEMA_READ] = 0x1000,
		[NDHAL_SEMA_SET] = 0x1400,
		[NDHAL_SEMA_INC] = 0x1800,
		[NDHAL_SEMA_DEC] = 0x1c00,
	},
};
