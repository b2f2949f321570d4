/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndhal silicon: what the PCI backend needs to drive an arch's engines, and
 * the register code of the DMA engine block ("UDMA", ndhal_udma.c) that v2
 * and v3 share. Every number is a public fact, cited in docs/hw-facts.md
 * ("Programming the engines"); [inferred] marks a fact deduced from how
 * the vendor's driver uses it rather than stated by it. None of this has
 * run on silicon: the PCI backend drives the engines only with
 * neuron.pci_engines=1 (driver/neuron_pci.c).
 */
#ifndef _NEURON_NDHAL_SILICON_H
#define _NEURON_NDHAL_SILICON_H

#include <linux/bits.h>
#include <linux/io.h>
#include <linux/types.h>

#include "neuron_common.h"

struct ndhal_arch;
struct ndhal_dma_packet;
struct neuron_udma_desc;

/**
 * struct ndhal_io - the platform's access to an arch's register BAR
 * @base: the BAR, mapped uncached.
 * @size: its length in bytes.
 *
 * Register code reads and writes 32-bit registers at byte offsets from
 * the accessors of ndhal_regs.h through ndhal_rd() and ndhal_wr() only.
 */
struct ndhal_io {
	void __iomem *base;
	u64 size;
};

static inline u32 ndhal_rd(const struct ndhal_io *io, u64 off)
{
	return readl(io->base + off);
}

static inline void ndhal_wr(const struct ndhal_io *io, u64 off, u32 val)
{
	writel(val, io->base + off);
}

/**
 * struct ndhal_udma_init - per-arch values of a DMA engine's set-up
 * @m2s_data_rd_cfg: TX data read configuration (FIFO depth, packets).
 * @m2s_axi_outstanding: TX outstanding AXI reads.
 * @s2m_axi_rd_outstanding: RX outstanding AXI reads.
 * @axi_error_abort: the arch makes AXI errors abort the engine (v2).
 */
struct ndhal_udma_init {
	u32 m2s_data_rd_cfg;
	u32 m2s_axi_outstanding;
	u32 s2m_axi_rd_outstanding;
	bool axi_error_abort;
};

/**
 * struct ndhal_silicon - what drives an arch's silicon beyond its map
 * @host_window: the bit that makes an address a host address for the
 *	device (ORed onto DMA addresses of host memory; that it works the
 *	same on an IOMMU's IOVA is [inferred]).
 * @dma_bits: the widest host DMA address the device takes: below
 *	@host_window [inferred].
 * @misc_ram: BAR offset of the firmware's misc RAM (readiness, identity,
 *	the mailbox).
 * @misc_ram_dev: the device address of the misc RAM (what the mailbox's
 *	read-registers request names).
 * @dram_addr: device address of each DRAM channel.
 * @dram_bar: offset of each DRAM channel in the DRAM BAR.
 * @dram_channel_size: bytes of one channel.
 * @dram_carveout: bytes at the start of each channel the firmware keeps.
 * @udma: the engines' set-up values.
 * @copy_queue: the engine and queue of NC @nc's kernel copy queue.
 * @sdma_wrapper: BAR offset of @engine's SDMA wrapper block, or a
 *	negative errno when the arch gives it none.
 * @tpb_reset_map: what the firmware's TPB reset of NC @nc is asked with
 *	(NDHAL_MISC_TPB_MAP): the NC's bit and the bits of what belongs to
 *	it (TopSPs, its engine group).
 * @reset_give_up_ms: how long a reset the firmware does not take is
 *	waited for before it fails (the facts' bound; module parameter
 *	pci_reset_timeout_ms overrides it).
 */
struct ndhal_silicon {
	u64 host_window;
	u32 dma_bits;
	u32 misc_ram;
	u64 misc_ram_dev;
	u64 dram_addr[NEURON_MAX_DRAM_CHANNELS];
	u64 dram_bar[NEURON_MAX_DRAM_CHANNELS];
	u64 dram_channel_size;
	u64 dram_carveout;
	struct ndhal_udma_init udma;
	void (*copy_queue)(u32 nc, u32 *engine, u32 *queue);
	s64 (*sdma_wrapper)(u32 engine);
	u32 (*tpb_reset_map)(u32 nc);
	u32 reset_give_up_ms;
};

/* Misc RAM: the routing id reads this until the device is ready. */
#define NDHAL_MISC_ROUTING_ID		0x024
#define NDHAL_MISC_NOT_READY		0xdeadbeef
/* Routing ids are device numbers below this. */
#define NDHAL_ROUTING_ID_MAX		64
/* Misc RAM: the serial number and the ECC counters (struct ndhal_fw_info). */
#define NDHAL_MISC_SERIAL_LO		0x038
#define NDHAL_MISC_SERIAL_HI		0x03c
#define NDHAL_MISC_ECC			0x040	/* 4 bytes each */
/* Misc RAM: the mailbox's buffer addresses and doorbell. */
#define NDHAL_MISC_REQ_HI		0x1f0
#define NDHAL_MISC_REQ_LO		0x1f4
#define NDHAL_MISC_RESP_HI		0x1f8
#define NDHAL_MISC_RESP_LO		0x1fc
#define NDHAL_MISC_DOORBELL		0x800
/*
 * Misc RAM: the reset request (NDHAL_RESET_*; reads 0 once the firmware
 * took it), the TPB map of a TPB reset, and the firmware status, whose
 * bit NDHAL_FW_STATUS_RESETTING is set while a reset is in progress.
 */
#define NDHAL_MISC_TPB_MAP		0x1d8
#define NDHAL_MISC_RESET		0x1ec
#define NDHAL_MISC_FW_STATUS		0x808
#define NDHAL_RESET_DEVICE		1
#define NDHAL_RESET_TPB			2
#define NDHAL_FW_STATUS_RESETTING	BIT(3)

int ndhal_udma_engine_init(const struct ndhal_io *io, const struct ndhal_arch *arch,
			   u32 engine);
int ndhal_udma_queue_start(const struct ndhal_io *io, const struct ndhal_arch *arch,
			   u32 engine, u32 queue, u64 tx, u64 rx, u32 entries);
void ndhal_udma_queue_stop(const struct ndhal_io *io, const struct ndhal_arch *arch,
			   u32 engine, u32 queue);
void ndhal_udma_queue_kick(const struct ndhal_io *io, const struct ndhal_arch *arch,
			   u32 engine, u32 queue, u32 added);
bool ndhal_udma_engine_aborted(const struct ndhal_io *io,
			       const struct ndhal_arch *arch, u32 engine);
u32 ndhal_udma_engine_state(const struct ndhal_io *io, const struct ndhal_arch *arch,
			    u32 engine);
void ndhal_udma_desc(struct neuron_udma_desc *tx, struct neuron_udma_desc *rx,
		     const struct ndhal_dma_packet *p);

#endif /* _NEURON_NDHAL_SILICON_H */
