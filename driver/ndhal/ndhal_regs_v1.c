// SPDX-License-Identifier: GPL-2.0
/*
 * ndhal v1 (inf1) register map: only the DMA engines, which are cheap and
 * certain. v1 is not a target of the driver's engine programming:
 * - its notification queues are not slots of one block per NeuronCore but
 *   per-type registers of a different layout: not mapped (NULL);
 * - its semaphores and events sit in BAR2, not in the register BAR the
 *   accessors return offsets into: not mapped (NULL).
 * Numbers from public facts, see docs/hw-facts.md.
 */
#include <linux/kernel.h>

#include "ndhal/ndhal_regs.h"

/*
 * Engines of NeuronCore k are 3k..3k+2 (our numbering: ndhal_arch's rule
 * that the first engines belong to the NeuronCores in order), 256 KiB
 * apart from BAR0 0x40000 + k x 1 MiB.
 */
static const struct ndhal_reg_span ndhal_v1_dma_engines[] = {
	{ .first = 0, .count = 3, .base = 0x040000, .stride = 0x40000 },
	{ .first = 3, .count = 3, .base = 0x140000, .stride = 0x40000 },
	{ .first = 6, .count = 3, .base = 0x240000, .stride = 0x40000 },
	{ .first = 9, .count = 3, .base = 0x340000, .stride = 0x40000 },
};

const struct ndhal_arch_regs ndhal_regs_v1 = {
	.dma_engines = ndhal_v1_dma_engines,
	.dma_engine_spans = ARRAY_SIZE(ndhal_v1_dma_engines),
	.udma = &ndhal_udma_map,
};
