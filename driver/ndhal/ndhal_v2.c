// SPDX-License-Identifier: GPL-2.0
/*
 * ndhal v2: Trainium (trn1) and Inferentia2 (inf2). Geometry from public
 * facts, see docs/hw-facts.md. Silicon is driven by the PCI backend; its
 * engines are not programmed yet, which the device reports
 * (NEURON_DEV_ENGINES_OFF).
 */
#include <linux/bits.h>
#include <linux/export.h>
#include <kunit/visibility.h>

#include <neuron.h>

#include "neuron_compat.h"
#include "ndhal/ndhal.h"
#include "ndhal/ndhal_regs.h"

const struct ndhal_arch ndhal_arch_v2 = {
	.arch = NEURON_ARCH_V2,
	.name = "v2",
	.nc_count = 2,
	.dma_engines = 34,
	.dma_engines_per_nc = 16,
	.dma_queues_per_engine = 16,
	.dram_channels = 2,
	.semaphores_per_nc = 256,
	.events_per_nc = 256,
	.bar_mask = BIT(0) | BIT(4),
	.reg_bar = 0,
	.dram_bar = 4,
	.regs = &ndhal_regs_v2,
};
EXPORT_SYMBOL_NS_GPL(ndhal_arch_v2, NEURON_NS);

const struct ndhal ndhal_v2 = {
	.arch = &ndhal_arch_v2,
	.ops = &neuron_pci_ops,
	.caps = NEURON_CAP_QUERY | NEURON_CAP_RESERVE,
	.flags = NEURON_DEV_ENGINES_OFF,
};
