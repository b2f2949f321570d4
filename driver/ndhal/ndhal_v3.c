// SPDX-License-Identifier: GPL-2.0
/*
 * ndhal v3: Trainium2 (trn2). Geometry and what drives the silicon, from
 * public facts: see docs/hw-facts.md. Silicon is driven by the PCI
 * backend: by default it answers the query only (NEURON_DEV_ENGINES_OFF);
 * with neuron.pci_engines=1 it drives the DMA engines, which has never run
 * on silicon.
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

/*
 * NC n copies through host-facing engine 128 + n / 2 (two per die), queue
 * n % 2: the two NCs of an engine group share an engine.
 */
static void ndhal_v3_copy_queue(u32 nc, u32 *engine, u32 *queue)
{
	*engine = 128 + nc / 2;
	*queue = nc % 2;
}

/*
 * The facts give the host-facing engines no SDMA wrapper, so step 13 of
 * their set-up is skipped [inferred: a gap of the facts].
 */
static s64 ndhal_v3_sdma_wrapper(u32 engine)
{
	return -EOPNOTSUPP;
}

/*
 * A TPB reset of NC n: bit n (the TPB), 8+n (its engine group), 16+n (its
 * TopSPs); bits 24-31 are never set.
 */
static u32 ndhal_v3_tpb_reset_map(u32 nc)
{
	return BIT(nc) | BIT(8 + nc) | BIT(16 + nc);
}

static const struct ndhal_silicon ndhal_silicon_v3 = {
	.host_window = BIT_ULL(46),
	.dma_bits = 46,		/* below the window bit [inferred] */
	.misc_ram = 0x06c84000,
	.misc_ram_dev = 0x8006c84000ULL,
	.dram_addr = { 0x0, 0x4000000000ULL, 0x800000000000ULL, 0x804000000000ULL },
	.dram_bar = { 0x0, 0x1000000000ULL, 0x2000000000ULL, 0x3000000000ULL },	/* 64 GiB apart */
	.dram_channel_size = 0x600000000ULL,	/* 24 GiB */
	.dram_carveout = SZ_16M,
	.udma = {
		.m2s_data_rd_cfg = 0x010008f8,
		.m2s_axi_outstanding = 0x20808080,
		.s2m_axi_rd_outstanding = 0x00400080,
	},
	.copy_queue = ndhal_v3_copy_queue,
	.sdma_wrapper = ndhal_v3_sdma_wrapper,
	.tpb_reset_map = ndhal_v3_tpb_reset_map,
	.reset_give_up_ms = 480000,
};

const struct ndhal_arch ndhal_arch_v3 = {
	.arch = NEURON_ARCH_V3,
	.name = "v3",
	.nc_count = 8,
	.dma_engines = 132,
	.dma_engines_per_nc = 16,
	.dma_queues_per_engine = 16,
	.dram_channels = 4,
	.semaphores_per_nc = 256,
	.events_per_nc = 256,
	.bar_mask = BIT(0) | BIT(4),
	.reg_bar = 0,
	.dram_bar = 4,
	.regs = &ndhal_regs_v3,
	.silicon = &ndhal_silicon_v3,
};
EXPORT_SYMBOL_NS_GPL(ndhal_arch_v3, NEURON_NS);

const struct ndhal ndhal_v3 = {
	.arch = &ndhal_arch_v3,
	.ops = &neuron_pci_ops,
	.caps = NEURON_CAP_QUERY | NEURON_CAP_RESERVE,
	.flags = NEURON_DEV_ENGINES_OFF,
};

const struct ndhal ndhal_v3_engines = {
	.arch = &ndhal_arch_v3,
	.ops = &neuron_pci_ops,
	.caps = NEURON_CAP_QUERY | NEURON_CAP_RESERVE | NEURON_CAP_MEM | NEURON_CAP_COPY |
		NEURON_CAP_SEM | NEURON_CAP_NOTIFY,
};
