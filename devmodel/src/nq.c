// SPDX-License-Identifier: GPL-2.0
/*
 * Notification blocks (4 KiB: 96 slots of 0x28 bytes from 0x100; base low,
 * base high, size, head at +0, +4, +8, +0xC) and the semaphore/event block
 * of an NC window. dev->lock held by the callers.
 */
#include <stdio.h>

#include "dev.h"
#include "util.h"

#define SLOT0 0x100u
#define SLOT_STRIDE 0x28u

void nq_reset(struct nq_block *b)
{
	memset(b->regs, 0, sizeof(b->regs));
	for (unsigned i = 0; i < NQ_SLOTS; i++) {
		b->slot[i].valid = false;
		b->slot[i].seq = 0;
		snprintf(b->slot[i].why, sizeof(b->slot[i].why), "disabled");
	}
}

uint32_t nq_read(struct dev *d, struct nq_block *b, uint32_t off)
{
	(void)d;
	return b->regs[off / 4];
}

static uint64_t slot_base(const struct nq_block *b, unsigned i)
{
	uint32_t r = (SLOT0 + i * SLOT_STRIDE) / 4;

	return ((uint64_t)b->regs[r + 1] << 32) | b->regs[r];
}

static uint32_t slot_size(const struct nq_block *b, unsigned i)
{
	return b->regs[(SLOT0 + i * SLOT_STRIDE + 8) / 4];
}

/* The size register was written: check the slot's programming. */
static void slot_validate(struct dev *d, struct nq_block *b, unsigned i)
{
	struct nq_slot *s = &b->slot[i];
	uint64_t base = slot_base(b, i), off, dma;
	uint32_t size = slot_size(b, i);
	void *ptr;
	const char *why = NULL;
	int r;

	s->valid = false;
	s->seq = 0;
	if (!size) {
		snprintf(s->why, sizeof(s->why), "disabled");
		return;
	}
	if (!is_pow2(size) || size < 16) {
		snprintf(s->why, sizeof(s->why), "size %u is not a power of two >= 16", size);
	} else if (pers_host_addr(d->p, base, &dma)) {
		uint64_t at = base, left = size, avail = 0;

		/* A range the client mapped in pieces (an IOMMU) is one too. */
		dmamap_rdlock(&d->dma);
		do {
			r = dev_xlate_part(d, at, left, true, &ptr, &avail, &why);
			if (!r && !avail) {
				r = -1;
				why = "empty DMA map";
			}
			if (!r) {
				at += avail;
				left -= avail;
			}
		} while (!r && left);
		dmamap_unlock(&d->dma);
		if (r)
			snprintf(s->why, sizeof(s->why), "host memory: %s", why);
		else
			s->valid = true;
	} else if (pers_dram_addr(d->p, base, size, &off)) {
		if (base & (size - 1))
			snprintf(s->why, sizeof(s->why), "DRAM base not aligned to the size");
		else
			s->valid = true;
	} else {
		snprintf(s->why, sizeof(s->why), "base 0x%llx is neither host memory nor DRAM",
			 (unsigned long long)base);
	}
	if (s->valid)
		snprintf(s->why, sizeof(s->why), "valid");
	else
		log_warn("notification block 0x%llx slot %u: %s", (unsigned long long)b->base, i, s->why);
}

void nq_write(struct dev *d, struct nq_block *b, uint32_t off, uint32_t val)
{
	b->regs[off / 4] = val;
	if (off >= SLOT0 && off < SLOT0 + NQ_SLOTS * SLOT_STRIDE && (off - SLOT0) % SLOT_STRIDE == 8)
		slot_validate(d, b, (off - SLOT0) / SLOT_STRIDE);
}

int nq_notify(struct dev *d, unsigned blk, unsigned slot, uint16_t type, uint16_t nc,
	      uint32_t code, uint32_t data, char *err, size_t errlen)
{
	struct nq_block *b;
	struct nq_slot *s;
	uint8_t ent[16];
	uint64_t at;
	void *ptr;
	const char *why = "";
	int r;

	if (blk >= d->n_nq || slot >= NQ_SLOTS) {
		snprintf(err, errlen, "no such block or slot");
		return -1;
	}
	if (atomic_load(&d->vanished)) {
		snprintf(err, errlen, "the device has vanished (vanish off first)");
		return -1;
	}
	b = &d->nq[blk];
	s = &b->slot[slot];
	if (!s->valid) {
		snprintf(err, errlen, "slot not valid: %s", s->why);
		return -1;
	}
	st32(ent, s->seq);
	st16(ent + 4, type);
	st16(ent + 6, nc);
	st32(ent + 8, code);
	st32(ent + 12, data);
	at = slot_base(b, slot) + (uint64_t)(s->seq % (slot_size(b, slot) / 16)) * 16;
	dmamap_rdlock(&d->dma);
	r = dev_xlate(d, at, sizeof(ent), true, &ptr, &why);
	if (!r) {
		uint32_t seq;

		/* seq last: an entry whose seq is its index is whole (model) */
		memcpy((uint8_t *)ptr + 4, ent + 4, sizeof(ent) - 4);
		memcpy(&seq, ent, 4);
		__atomic_store_n((uint32_t *)ptr, seq, __ATOMIC_RELEASE);
	}
	dmamap_unlock(&d->dma);
	if (r) {
		snprintf(err, errlen, "entry address: %s", why);
		return -1;
	}
	s->seq++;
	atomic_fetch_add(&d->st.nq_writes, 1);
	return 0;
}

/* Semaphores and events: events at +0 (4 x i), semaphore pages read +0x1000,
 * set +0x1400, increment +0x1800, decrement +0x1C00. */
uint32_t sema_read(struct sema_block *s, uint32_t off)
{
	if (off < 0x400)
		return s->ev[off / 4];
	if (off >= 0x1000 && off < 0x2000)
		return s->sem[(off & 0x3FF) / 4];
	return 0;
}

void sema_write(struct sema_block *s, uint32_t off, uint32_t val)
{
	uint32_t i = (off & 0x3FF) / 4;

	if (off < 0x400) {
		s->ev[i] = val;
		return;
	}
	switch (off & ~0x3FFu) {
	case 0x1400:
		s->sem[i] = val;
		break;
	case 0x1800:
		s->sem[i] += val;
		break;
	case 0x1C00:
		s->sem[i] -= val;
		break;
	default:
		break;		/* read page and unmodelled words: ignored */
	}
}
