/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Personalities: the arch-specific numbers of a trn1 (v2) or trn2 (v3)
 * device. Every number here is a fact of register-facts (see
 * docs/devmodel.md for the table of facts and their sources).
 */
#ifndef DM_PERS_H
#define DM_PERS_H

#include <stdbool.h>
#include <stdint.h>

#define PCI_VENDOR_AMAZON 0x1d0f

#define MAX_ENGINES 132
#define MAX_NC 8
#define MAX_TOPSP 16
#define QUEUES_PER_ENGINE 16

struct dram_chan {
	uint64_t devaddr, size, bar4off;
};

struct addr_window {		/* device address <-> BAR0 offset */
	uint64_t devaddr, bar0, size;
};

struct pers {
	const char *name;
	uint16_t device_id;
	int arch;			/* 2 or 3 */
	uint64_t bar0_size, bar4_size;
	unsigned n_nc, n_engines, n_topsp;
	unsigned host_shift;		/* host address: addr >> host_shift == 1 */
	unsigned n_chan;
	struct dram_chan chan[4];
	uint64_t misc_off;
	unsigned n_win;
	struct addr_window win[16];
};

const struct pers *pers_find(const char *name);

/* BAR0 offset of engine e's register window (256 KiB). */
uint64_t pers_engine_base(const struct pers *p, unsigned e);
/* BAR0 offset of engine e's SDMA wrapper, or 0 when it has none. */
uint64_t pers_sdma_base(const struct pers *p, unsigned e);
/* The NCs an engine belongs to, as a bit mask (host-copy engines of v3 serve two). */
uint32_t pers_engine_nc_mask(const struct pers *p, unsigned e);
/* BAR0 offset of NC n's window and of its notification block. */
uint64_t pers_nc_window(const struct pers *p, unsigned n);
uint64_t pers_nc_nq(const struct pers *p, unsigned n);
uint64_t pers_topsp_nq(const struct pers *p, unsigned t);
/* The NC that TopSP t belongs to. */
unsigned pers_topsp_nc(const struct pers *p, unsigned t);

/* Device address of host memory -> DMA address (window bit stripped). */
bool pers_host_addr(const struct pers *p, uint64_t devaddr, uint64_t *dma);
/* Device address of DRAM -> BAR4 offset, when [devaddr, +len) is in one channel. */
bool pers_dram_addr(const struct pers *p, uint64_t devaddr, uint64_t len, uint64_t *bar4off);
/* Device address of a register -> BAR0 offset. */
bool pers_reg_addr(const struct pers *p, uint64_t devaddr, uint64_t *bar0off);

#endif
