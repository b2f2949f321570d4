// SPDX-License-Identifier: GPL-2.0
/*
 * PCI configuration space of the personality: type 0 header, BAR0 (64-bit,
 * non-prefetchable registers), BAR4 (64-bit prefetchable DRAM), INTx pin A,
 * one capability (PCI Express, version 2, endpoint), no extended
 * capabilities, no MSI/MSI-X. QEMU emulates the BARs, the ROM BAR, the
 * multi-function bit and MSI/MSI-X itself; the model still implements BAR
 * sizing so that its config space is right on its own.
 */
#include "dev.h"
#include "util.h"

#define PCIE_CAP 0x40

static void put16(struct dev *d, unsigned off, uint16_t v, uint16_t wmask)
{
	st16(d->cfg + off, v);
	st16(d->cfg_wmask + off, wmask);
}

static void put32(struct dev *d, unsigned off, uint32_t v, uint32_t wmask)
{
	st32(d->cfg + off, v);
	st32(d->cfg_wmask + off, wmask);
}

void cfg_init(struct dev *d)
{
	memset(d->cfg, 0, sizeof(d->cfg));
	memset(d->cfg_wmask, 0, sizeof(d->cfg_wmask));
	put16(d, 0x00, PCI_VENDOR_AMAZON, 0);
	put16(d, 0x02, d->p->device_id, 0);
	/* command: memory space, bus master, parity, SERR, INTx disable */
	put16(d, 0x04, 0, 0x0546);
	put16(d, 0x06, 0x0010, 0);		/* status: capability list */
	put32(d, 0x08, 0x12000000, 0);		/* revision 0, class 12 00 00 */
	d->cfg_wmask[0x0C] = 0xFF;		/* cache line size */
	put32(d, 0x10, 0x4, 0);			/* BAR0: memory, 64-bit */
	put32(d, 0x20, 0xC, 0);			/* BAR4: memory, 64-bit, prefetchable */
	put16(d, 0x2C, PCI_VENDOR_AMAZON, 0);	/* subsystem vendor */
	put16(d, 0x2E, d->p->device_id, 0);	/* subsystem id */
	d->cfg[0x34] = PCIE_CAP;
	d->cfg_wmask[0x3C] = 0xFF;		/* interrupt line */
	d->cfg[0x3D] = 1;			/* interrupt pin A */

	/* PCI Express capability, version 2, endpoint */
	d->cfg[PCIE_CAP] = 0x10;
	d->cfg[PCIE_CAP + 1] = 0;
	put16(d, PCIE_CAP + 0x02, 0x0002, 0);
	put32(d, PCIE_CAP + 0x04, 0x00008001, 0);	/* devcap: 256 B payload, RBER */
	put16(d, PCIE_CAP + 0x08, 0x2810, 0x7CFF);	/* devctl */
	put32(d, PCIE_CAP + 0x0C, 0x00000104, 0);	/* linkcap: 16 GT/s, x16 */
	put16(d, PCIE_CAP + 0x10, 0, 0x0FFB);		/* linkctl */
	put16(d, PCIE_CAP + 0x12, 0x0104, 0);		/* linksta: 16 GT/s, x16 */
	put16(d, PCIE_CAP + 0x28, 0, 0xFFFF);		/* devctl2 */
	put32(d, PCIE_CAP + 0x2C, 0x0000001E, 0);	/* linkcap2: 2.5..16 GT/s */
	put16(d, PCIE_CAP + 0x30, 0x0004, 0xFFFF);	/* linkctl2 */
	atomic_store(&d->bus_master, false);
}

void cfg_reset(struct dev *d)
{
	cfg_init(d);
}

/* BAR register pair at off (0x10 or 0x20) after a write: keep the size mask
 * and the type bits. */
static void bar_fix(struct dev *d, unsigned off, uint64_t size, uint32_t type)
{
	uint64_t v = ((uint64_t)ld32(d->cfg + off + 4) << 32) | ld32(d->cfg + off);

	v &= ~(size - 1) & ~0xFull;
	st32(d->cfg + off, (uint32_t)v | type);
	st32(d->cfg + off + 4, (uint32_t)(v >> 32));
}

void cfg_write(struct dev *d, uint32_t off, const uint8_t *buf, uint32_t len)
{
	bool bars = false;

	for (uint32_t i = 0; i < len; i++) {
		uint32_t o = off + i;

		if (o >= 0x10 && o < 0x18) {
			d->cfg[o] = buf[i];	/* BAR0 pair, masked below */
			bars = true;
		} else if (o >= 0x20 && o < 0x28) {
			d->cfg[o] = buf[i];	/* BAR4 pair */
			bars = true;
		} else {
			d->cfg[o] = (uint8_t)((d->cfg[o] & ~d->cfg_wmask[o]) | (buf[i] & d->cfg_wmask[o]));
		}
	}
	if (bars) {
		bar_fix(d, 0x10, d->p->bar0_size, 0x4);
		bar_fix(d, 0x20, d->bar4_size, 0xC);
	}
	atomic_store(&d->bus_master, (ld16(d->cfg + 4) & 0x4) != 0);
}
