/* SPDX-License-Identifier: GPL-2.0 */
/* A device with guest memory mapped for DMA, and queue programming helpers. */
#ifndef DM_RIG_H
#define DM_RIG_H

#include "client.h"

#define GIOVA 0x10000000ull		/* DMA address of guest memory */
#define GSIZE (16ull << 20)
#define QREG(side, q, reg) ((side) * 0x20000u + 0x1000u + (q) * 0x1000u + (reg))
#define TXRING 0x0
#define RXRING 0x10000
#define ST_NORMAL 0x1111
#define ST_ABORT 0x2222

struct rig {
	struct dev *d;
	struct gmem g;
	uint64_t hostbit;
	uint64_t n_tx, n_rx;		/* descriptors written so far */
	uint32_t len;			/* ring length */
};

int rig_init(struct rig *r, const char *pers, bool async);
void rig_fini(struct rig *r);
uint64_t H(const struct rig *r, uint64_t off);	/* device address of guest offset */
uint8_t *G(const struct rig *r, uint64_t off);
void ewr(struct rig *r, unsigned eng, uint32_t off, uint32_t v);
uint32_t erd(struct rig *r, unsigned eng, uint32_t off);
/* Program queue q of eng: rings in guest memory at TXRING/RXRING, len descriptors. */
void setup_queue(struct rig *r, unsigned eng, unsigned q, uint32_t len);
/* Write the next TX / RX descriptor (ring id from the lap). */
void tx_desc(struct rig *r, uint32_t len_field, bool first, bool last, uint64_t addr);
void rx_desc(struct rig *r, uint32_t len_field, uint64_t addr);
/* Ring the doorbells: RX first, then TX. */
void post(struct rig *r, unsigned eng, unsigned q, uint32_t ntx, uint32_t nrx);
/* One single-descriptor packet: src -> dst, len bytes (len < 65536). */
void copy1(struct rig *r, unsigned eng, unsigned q, uint64_t src, uint64_t dst, uint32_t len);

#endif
