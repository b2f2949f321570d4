// SPDX-License-Identifier: GPL-2.0
/*
 * ndhal v2 (trn1, inf2) register map, offsets in BAR0. Numbers from public
 * facts, see docs/hw-facts.md.
 */
#include <linux/kernel.h>

#include "ndhal/ndhal_regs.h"

/*
 * The register window of BAR0 starts at 0x30000000. Engines 0-15 belong to
 * NeuronCore 0, 16-31 to NeuronCore 1; 32 and 33 are the host-facing ones
 * (each sits after the block of one NeuronCore).
 */
static const struct ndhal_reg_span ndhal_v2_dma_engines[] = {
	{ .first = 0, .count = 16, .base = 0x30000000, .stride = 0x40000 },
	{ .first = 16, .count = 16, .base = 0x30700000, .stride = 0x40000 },
	{ .first = 32, .count = 1, .base = 0x30600000, .stride = 0 },
	{ .first = 33, .count = 1, .base = 0x30d00000, .stride = 0 },
};

/* One block per NeuronCore, 7 MiB apart (the NeuronCores' register blocks). */
static const struct ndhal_reg_span ndhal_v2_nc_notify[] = {
	{ .first = 0, .count = 2, .base = 0x30535000, .stride = 0x700000 },
};

/* NeuronCore windows (64 MiB each) from the start of BAR0. */
static const struct ndhal_reg_span ndhal_v2_nc_window[] = {
	{ .first = 0, .count = 2, .base = 0x0, .stride = 0x4000000 },
};

const struct ndhal_arch_regs ndhal_regs_v2 = {
	.dma_engines = ndhal_v2_dma_engines,
	.dma_engine_spans = ARRAY_SIZE(ndhal_v2_dma_engines),
	.udma = &ndhal_udma_map,
	.nc_notify = ndhal_v2_nc_notify,
	.nc_notify_spans = ARRAY_SIZE(ndhal_v2_nc_notify),
	.nq = &ndhal_nq_map_v2,
	.nc_window = ndhal_v2_nc_window,
	.nc_window_spans = ARRAY_SIZE(ndhal_v2_nc_window),
	.sema = &ndhal_sema_map_v2,
};
