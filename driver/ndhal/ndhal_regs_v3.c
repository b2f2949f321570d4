// SPDX-License-Identifier: GPL-2.0
/*
 * ndhal v3 (trn2) register map, offsets in BAR0. Two dies, each with an
 * I/O window (die 0 at 0, die 1 at 0x40000000) and two engine groups of 32
 * DMA engines serving two NeuronCores each. Numbers from public facts, see
 * docs/hw-facts.md.
 */
#include <linux/kernel.h>

#include "ndhal/ndhal_regs.h"

/*
 * Engines 0-127: group g (0-3, die g / 2) holds engines 32g..32g+31, 1 MiB
 * apart; NeuronCore n owns engines 16n..16n+15. Engines 128-131 are the
 * host-facing ones, two in each die's I/O window.
 */
static const struct ndhal_reg_span ndhal_v3_dma_engines[] = {
	{ .first = 0, .count = 32, .base = 0x82000000, .stride = 0x100000 },
	{ .first = 32, .count = 32, .base = 0x94000000, .stride = 0x100000 },
	{ .first = 64, .count = 32, .base = 0xa2000000, .stride = 0x100000 },
	{ .first = 96, .count = 32, .base = 0xb4000000, .stride = 0x100000 },
	{ .first = 128, .count = 2, .base = 0x06800000, .stride = 0x100000 },
	{ .first = 130, .count = 2, .base = 0x46800000, .stride = 0x100000 },
};

/*
 * In the dies' I/O windows: the two NeuronCores of an engine group are
 * 0x180000 apart, the second group of a die 4 MiB after the first.
 */
static const struct ndhal_reg_span ndhal_v3_nc_notify[] = {
	{ .first = 0, .count = 2, .base = 0x06001000, .stride = 0x180000 },
	{ .first = 2, .count = 2, .base = 0x06401000, .stride = 0x180000 },
	{ .first = 4, .count = 2, .base = 0x46001000, .stride = 0x180000 },
	{ .first = 6, .count = 2, .base = 0x46401000, .stride = 0x180000 },
};

/* NeuronCore windows (64 MiB each) from 0xd0000000. */
static const struct ndhal_reg_span ndhal_v3_nc_window[] = {
	{ .first = 0, .count = 8, .base = 0xd0000000, .stride = 0x4000000 },
};

const struct ndhal_arch_regs ndhal_regs_v3 = {
	.dma_engines = ndhal_v3_dma_engines,
	.dma_engine_spans = ARRAY_SIZE(ndhal_v3_dma_engines),
	.udma = &ndhal_udma_map,
	.nc_notify = ndhal_v3_nc_notify,
	.nc_notify_spans = ARRAY_SIZE(ndhal_v3_nc_notify),
	.nq = &ndhal_nq_map_v2,
	.nc_window = ndhal_v3_nc_window,
	.nc_window_spans = ARRAY_SIZE(ndhal_v3_nc_window),
	.sema = &ndhal_sema_map_v2,
};
