// SPDX-License-Identifier: GPL-2.0
/* The trn1 and trn2 personalities. */
#include <string.h>

#include "pers.h"
#include "util.h"

#define GiB (1ull << 30)
#define MiB (1ull << 20)

static const struct pers pers_trn1 = {
	.name = "trn1",
	.device_id = 0x7164,
	.arch = 2,
	/* highest offset used 0x30FA_1000 -> 1 GiB; DRAM 2 x 16 GiB -> 32 GiB */
	.bar0_size = 1 * GiB,
	.bar4_size = 32 * GiB,
	.n_nc = 2,
	.n_engines = 34,
	.n_topsp = 6,
	.host_shift = 44,
	.n_chan = 2,
	.chan = {
		{ 0x0, 16 * GiB, 0 },
		{ 0x1000000000ull, 16 * GiB, 16 * GiB },
	},
	.misc_off = 0x30FA0000,
	.n_win = 4,
	.win = {
		{ 0x0FFFF0000000ull, 0x30000000, 0x10000000 },	/* APB registers */
		{ 0x0FFFC0000000ull, 0x00000000, 0x04000000 },	/* NC 0 window */
		{ 0x0FFFC4000000ull, 0x04000000, 0x04000000 },	/* NC 1 window */
		{ 0x0FFFD0000000ull, 0x10000000, 0x01800000 },	/* TopSP 0..5 */
	},
};

static const struct pers pers_trn2 = {
	.name = "trn2",
	.device_id = 0x7364,
	.arch = 3,
	/* highest offset used 0xF480_0000 -> 4 GiB; DRAM channel 3 ends at
	 * 3 x 64 GiB + 24 GiB -> 256 GiB */
	.bar0_size = 4 * GiB,
	.bar4_size = 256 * GiB,
	.n_nc = 8,
	.n_engines = 132,
	.n_topsp = 16,
	.host_shift = 46,
	.n_chan = 4,
	.chan = {
		{ 0x0, 24 * GiB, 0 },
		{ 0x4000000000ull, 24 * GiB, 64 * GiB },
		{ 0x800000000000ull, 24 * GiB, 128 * GiB },
		{ 0x804000000000ull, 24 * GiB, 192 * GiB },
	},
	.misc_off = 0x06C84000,
	.n_win = 14,
	.win = {
		{ 0x008000000000ull, 0x00000000, 0x20000000 },	/* APB IO die 0 */
		{ 0x808000000000ull, 0x40000000, 0x20000000 },	/* APB IO die 1 */
		{ 0x001000000000ull, 0x80000000, 0x10000000 },	/* SENG 0 */
		{ 0x005000000000ull, 0x90000000, 0x10000000 },	/* SENG 1 */
		{ 0x801000000000ull, 0xA0000000, 0x10000000 },	/* SENG 2 */
		{ 0x805000000000ull, 0xB0000000, 0x10000000 },	/* SENG 3 */
		{ 0x002000000000ull, 0xD0000000, 0x04000000 },	/* NC 0..7 windows */
		{ 0x003000000000ull, 0xD4000000, 0x04000000 },
		{ 0x006000000000ull, 0xD8000000, 0x04000000 },
		{ 0x007000000000ull, 0xDC000000, 0x04000000 },
		{ 0x802000000000ull, 0xE0000000, 0x04000000 },
		{ 0x803000000000ull, 0xE4000000, 0x04000000 },
		{ 0x806000000000ull, 0xE8000000, 0x04000000 },
		{ 0x807000000000ull, 0xEC000000, 0x04000000 },
	},
};

const struct pers *pers_find(const char *name)
{
	if (!strcmp(name, "trn1"))
		return &pers_trn1;
	if (!strcmp(name, "trn2"))
		return &pers_trn2;
	return NULL;
}

static const uint64_t v3_seng_engine0[4] = { 0x82000000, 0x94000000, 0xA2000000, 0xB4000000 };
static const uint64_t v3_host_engine[4] = { 0x06800000, 0x06900000, 0x46800000, 0x46900000 };
static const uint64_t v3_nc_nq[8] = { 0x06001000, 0x06181000, 0x06401000, 0x06581000,
				      0x46001000, 0x46181000, 0x46401000, 0x46581000 };

uint64_t pers_engine_base(const struct pers *p, unsigned e)
{
	if (p->arch == 2) {
		if (e < 16)
			return 0x30000000ull + e * 0x40000ull;
		if (e < 32)
			return 0x30700000ull + (e - 16) * 0x40000ull;
		return e == 32 ? 0x30600000ull : 0x30D00000ull;
	}
	if (e < 128)
		return v3_seng_engine0[e / 32] + (e % 32) * 0x100000ull;
	return v3_host_engine[e - 128];
}

uint64_t pers_sdma_base(const struct pers *p, unsigned e)
{
	if (p->arch == 2) {
		if (e < 16)
			return 0x30400000ull + e * 0x7000ull;
		if (e < 32)
			return 0x30B00000ull + (e - 16) * 0x7000ull;
		return e == 32 ? 0x30640000ull : 0x30D40000ull;
	}
	if (e < 128)
		return pers_engine_base(p, e) + 0x40000ull;
	return 0;	/* not in the facts for the v3 host-copy engines */
}

uint32_t pers_engine_nc_mask(const struct pers *p, unsigned e)
{
	if (p->arch == 2)
		return e < 32 ? 1u << (e / 16) : 1u << (e - 32);
	if (e < 128)
		return 1u << (e / 16);
	return 3u << (2 * (e - 128));
}

uint64_t pers_nc_window(const struct pers *p, unsigned n)
{
	return (p->arch == 2 ? 0 : 0xD0000000ull) + n * 0x04000000ull;
}

uint64_t pers_nc_nq(const struct pers *p, unsigned n)
{
	return p->arch == 2 ? (n ? 0x30C35000ull : 0x30535000ull) : v3_nc_nq[n];
}

uint64_t pers_topsp_nq(const struct pers *p, unsigned t)
{
	if (p->arch == 2)
		return 0x30E04000ull + t * 0x40000ull;
	return t < 8 ? 0x06A00000ull + t * 0x40000ull : 0x46A00000ull + (t - 8) * 0x40000ull;
}

unsigned pers_topsp_nc(const struct pers *p, unsigned t)
{
	return p->arch == 2 ? t / 3 : t / 2;
}

bool pers_host_addr(const struct pers *p, uint64_t devaddr, uint64_t *dma)
{
	if ((devaddr >> p->host_shift) != 1)
		return false;
	*dma = devaddr & ((1ull << p->host_shift) - 1);
	return true;
}

bool pers_dram_addr(const struct pers *p, uint64_t devaddr, uint64_t len, uint64_t *bar4off)
{
	for (unsigned c = 0; c < p->n_chan; c++) {
		const struct dram_chan *ch = &p->chan[c];

		if (devaddr >= ch->devaddr && range_ok(devaddr - ch->devaddr, len, ch->size)) {
			*bar4off = ch->bar4off + (devaddr - ch->devaddr);
			return true;
		}
	}
	return false;
}

bool pers_reg_addr(const struct pers *p, uint64_t devaddr, uint64_t *bar0off)
{
	for (unsigned i = 0; i < p->n_win; i++) {
		const struct addr_window *w = &p->win[i];

		if (w->size && devaddr >= w->devaddr && devaddr - w->devaddr < w->size) {
			*bar0off = w->bar0 + (devaddr - w->devaddr);
			return true;
		}
	}
	return false;
}
