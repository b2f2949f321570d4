// SPDX-License-Identifier: GPL-2.0
/*
 * ndhal v2: Trainium (trn1) and Inferentia2 (inf2). Geometry and what
 * drives the silicon, from public facts: see docs/hw-facts.md. Silicon is
 * driven by the PCI backend: by default it answers the query only
 * (NEURON_DEV_ENGINES_OFF); with neuron.pci_engines=1 it drives the DMA
 * engines, which has never run on silicon.
 */
#include <linux/bits.h>
#include <linux/sizes.h>
#include <linux/export.h>
#include <kunit/visibility.h>

#include <neuron.h>

#include "neuron_compat.h"
#include "ndhal/ndhal.h"
#include "ndhal/ndhal_regs.h"
#include "ndhal/ndhal_silicon.h"

/* NC n copies through host-facing engine 32 + n, queue 0. */
static void ndhal_v2_copy_queue(u32 nc, u32 *engine, u32 *queue)
{
	*engine = 32 + nc;
	*queue = 0;
}

/*
 * The SDMA wrappers of the host-facing engines (the only engines the
 * driver sets up).
 */
static s64 ndhal_v2_sdma_wrapper(u32 engine)
{
	switch (engine) {
	case 32:
		return 0x30640000;
	case 33:
		return 0x30d40000;
	}
	return -EOPNOTSUPP;
}

/* A TPB reset of NC n: bit n and its three TopSPs 3n..3n+2 at bits 8+t. */
static u32 ndhal_v2_tpb_reset_map(u32 nc)
{
	return BIT(nc) | (0x7 << (8 + 3 * nc));
}

static const struct ndhal_silicon ndhal_silicon_v2 = {
	.host_window = BIT_ULL(44),
	.dma_bits = 44,		/* below the window bit [inferred] */
	.misc_ram = 0x30fa0000,
	.misc_ram_dev = 0x0ffff0fa0000ULL,
	.dram_addr = { 0x0, 0x1000000000ULL },
	.dram_bar = { 0x0, SZ_16G },
	.dram_channel_size = SZ_16G,
	.dram_carveout = SZ_16M,
	.udma = {
		.m2s_data_rd_cfg = 0x01000400,
		.m2s_axi_outstanding = 0x0000086f,
		.s2m_axi_rd_outstanding = 0x00400008,
		.axi_error_abort = true,
	},
	.copy_queue = ndhal_v2_copy_queue,
	.sdma_wrapper = ndhal_v2_sdma_wrapper,
	.tpb_reset_map = ndhal_v2_tpb_reset_map,
	.reset_give_up_ms = 120000,
};

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
	.silicon = &ndhal_silicon_v2,
};
EXPORT_SYMBOL_NS_GPL(ndhal_arch_v2, NEURON_NS);

const struct ndhal ndhal_v2 = {
	.arch = &ndhal_arch_v2,
	.ops = &neuron_pci_ops,
	.caps = NEURON_CAP_QUERY | NEURON_CAP_RESERVE,
	.flags = NEURON_DEV_ENGINES_OFF,
};

const struct ndhal ndhal_v2_engines = {
	.arch = &ndhal_arch_v2,
	.ops = &neuron_pci_ops,
	.caps = NEURON_CAP_QUERY | NEURON_CAP_RESERVE | NEURON_CAP_MEM | NEURON_CAP_COPY |
		NEURON_CAP_SEM | NEURON_CAP_NOTIFY,
};
