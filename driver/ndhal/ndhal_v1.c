// SPDX-License-Identifier: GPL-2.0
/*
 * ndhal v1: Inferentia (inf1). Geometry from public facts, see
 * docs/hw-facts.md. Silicon is driven by the PCI backend; its engines are
 * not programmed yet, which the device reports (NEURON_DEV_ENGINES_OFF).
 */
#include <linux/bits.h>
#include <linux/export.h>
#include <kunit/visibility.h>

#include <neuron.h>

#include "ndhal/ndhal.h"
#include "ndhal/ndhal_regs.h"

const struct ndhal_arch ndhal_arch_v1 = {
	.arch = NEURON_ARCH_V1,
	.name = "v1",
	.nc_count = 4,
	.dma_engines = 12,
	.dma_engines_per_nc = 3,
	.dma_queues_per_engine = 16,
	.dram_channels = 2,
	.semaphores_per_nc = 32,
	.events_per_nc = 256,
	.bar_mask = BIT(0) | BIT(2) | BIT(4),
	.reg_bar = 0,
	.dram_bar = 4,
	.regs = &ndhal_regs_v1,
};
EXPORT_SYMBOL_IF_KUNIT(ndhal_arch_v1);

const struct ndhal ndhal_v1 = {
	.arch = &ndhal_arch_v1,
	.ops = &neuron_pci_ops,
	.caps = NEURON_CAP_QUERY | NEURON_CAP_RESERVE,
	.flags = NEURON_DEV_ENGINES_OFF,
};
