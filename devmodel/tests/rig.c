// SPDX-License-Identifier: GPL-2.0
/* See rig.h. */
#include <stdlib.h>
#include <unistd.h>

#include "rig.h"
#include "util.h"

int rig_init(struct rig *r, const char *pers, bool async)
{
	uint16_t cmd = 0x6;

	memset(r, 0, sizeof(*r));
	r->d = t_dev(pers, async);
	if (!r->d || gmem_new(&r->g, GSIZE))
		return -1;
	if (dmamap_add(&r->d->dma, GIOVA, GSIZE, 0, DMA_FLAG_READ | DMA_FLAG_WRITE, dup(r->g.fd)))
		return -1;
	r->hostbit = 1ull << r->d->p->host_shift;
	return dev_region_rw(r->d, REG_CONFIG, 4, &cmd, 2, true);
}

void rig_fini(struct rig *r)
{
	dev_destroy(r->d);
	gmem_free(&r->g);
}

uint64_t H(const struct rig *r, uint64_t off)
{
	return r->hostbit | (GIOVA + off);
}

uint8_t *G(const struct rig *r, uint64_t off)
{
	return r->g.p + off;
}

void ewr(struct rig *r, unsigned eng, uint32_t off, uint32_t v)
{
	dev_bar0_write32(r->d, pers_engine_base(r->d->p, eng) + off, v);
}

uint32_t erd(struct rig *r, unsigned eng, uint32_t off)
{
	return dev_bar0_read32(r->d, pers_engine_base(r->d->p, eng) + off);
}

void setup_queue(struct rig *r, unsigned eng, unsigned q, uint32_t len)
{
	ewr(r, eng, 0x254, 0x010FFFFF);
	for (int s = 0; s < 2; s++) {
		uint64_t ring = H(r, s ? RXRING : TXRING);

		ewr(r, eng, QREG(s, q, 0x20), 0x03000000);
		ewr(r, eng, QREG(s, q, s ? 0x64 : 0xB0), 0x100);
		ewr(r, eng, QREG(s, q, 0x28), (uint32_t)ring);
		ewr(r, eng, QREG(s, q, 0x2C), (uint32_t)(ring >> 32));
		ewr(r, eng, QREG(s, q, 0x30), len);
		ewr(r, eng, QREG(s, q, 0x20), 0x03030000);
	}
	r->len = len;
	r->n_tx = r->n_rx = 0;
}

static void put_desc(uint8_t *ring, uint64_t n, uint32_t len, uint32_t ctrl, uint32_t meta,
		     uint64_t addr)
{
	uint8_t *p = ring + (n % len) * 16;
	uint32_t rid = (uint32_t)(((n / len) + 1) & 3);

	st32(p, ctrl | (rid << 24));
	st32(p + 4, meta);
	st64(p + 8, addr);
}

void tx_desc(struct rig *r, uint32_t len_field, bool first, bool last, uint64_t addr)
{
	put_desc(G(r, TXRING), r->n_tx++, r->len,
		 (len_field & 0xFFFF) | (first ? 1u << 26 : 0) | (last ? 1u << 27 : 0), 0x01080003, addr);
}

void rx_desc(struct rig *r, uint32_t len_field, uint64_t addr)
{
	put_desc(G(r, RXRING), r->n_rx++, r->len, len_field & 0xFFFF, 0, addr);
}

void post(struct rig *r, unsigned eng, unsigned q, uint32_t ntx, uint32_t nrx)
{
	if (nrx)
		ewr(r, eng, QREG(1, q, 0x38), nrx);
	if (ntx)
		ewr(r, eng, QREG(0, q, 0x38), ntx);
}

void copy1(struct rig *r, unsigned eng, unsigned q, uint64_t src, uint64_t dst, uint32_t len)
{
	tx_desc(r, len, true, true, src);
	rx_desc(r, len, dst);
	post(r, eng, q, 1, 1);
}
