// SPDX-License-Identifier: GPL-2.0
/*
 * Device creation, the BAR0 block table, region access from the client,
 * resets and device-address translation.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dev.h"
#include "util.h"

static const char *const q_err_names[QE_COUNT] = {
	[QE_NONE] = "none",
	[QE_CONFIG] = "ring configuration invalid",
	[QE_ADDR] = "address reaches no memory",
	[QE_LENGTH] = "length crosses the end of a region",
	[QE_RINGID] = "descriptor ring id differs from the lap",
	[QE_FORMAT] = "first/last-of-packet bits inconsistent",
	[QE_OVERRUN] = "tail increment beyond the ring",
	[QE_INJECTED] = "injected descriptor error",
};

const char *q_err_str(enum q_err e)
{
	return e < QE_COUNT ? q_err_names[e] : "?";
}

static int blk_cmp(const void *a, const void *b)
{
	const struct blk *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

static int add_blk(struct dev *d, unsigned *cap, uint64_t base, uint64_t size, int kind,
		   unsigned idx, uint32_t sub)
{
	if (d->n_blk == *cap) {
		unsigned nc = *cap ? *cap * 2 : 64;
		struct blk *nb = realloc(d->blk, nc * sizeof(*nb));

		if (!nb)
			return -1;
		d->blk = nb;
		*cap = nc;
	}
	d->blk[d->n_blk++] = (struct blk){ base, size, (uint8_t)kind, (uint16_t)idx, sub };
	return 0;
}

static int build_blocks(struct dev *d)
{
	const struct pers *p = d->p;
	unsigned cap = 0, n = 0;
	int r = 0;

	for (unsigned e = 0; e < p->n_engines; e++) {
		uint64_t w = pers_sdma_base(p, e);

		r |= add_blk(d, &cap, pers_engine_base(p, e), ENGINE_WINDOW, BLK_ENGINE, e, 0);
		if (w) {
			r |= add_blk(d, &cap, w, 0x1000, BLK_SDMA, e, 0);
			r |= add_blk(d, &cap, w + 0x2000, SDMA_WRAPPER - 0x2000, BLK_SDMA, e, 0x2000);
		}
	}
	/* notification blocks: NCs, TopSPs, SDMA engines (wrapper + 0x1000) */
	d->n_nq = p->n_nc + p->n_topsp;
	for (unsigned e = 0; e < p->n_engines; e++)
		d->n_nq += pers_sdma_base(p, e) != 0;
	d->nq = calloc(d->n_nq, sizeof(*d->nq));
	if (!d->nq)
		return -1;
	for (unsigned i = 0; i < p->n_nc; i++, n++)
		d->nq[n] = (struct nq_block){ .base = pers_nc_nq(p, i), .owner = NQO_NC, .owner_idx = (uint16_t)i };
	for (unsigned t = 0; t < p->n_topsp; t++, n++)
		d->nq[n] = (struct nq_block){ .base = pers_topsp_nq(p, t), .owner = NQO_TOPSP, .owner_idx = (uint16_t)t };
	for (unsigned e = 0; e < p->n_engines; e++) {
		uint64_t w = pers_sdma_base(p, e);

		if (w)
			d->nq[n++] = (struct nq_block){ .base = w + 0x1000, .owner = NQO_SDMA, .owner_idx = (uint16_t)e };
	}
	for (unsigned i = 0; i < d->n_nq; i++) {
		nq_reset(&d->nq[i]);
		r |= add_blk(d, &cap, d->nq[i].base, NQ_BLOCK, BLK_NQ, i, 0);
	}
	for (unsigned i = 0; i < p->n_nc; i++)
		r |= add_blk(d, &cap, pers_nc_window(p, i) + SEMA_OFFSET, SEMA_BLOCK, BLK_SEMA, i, 0);
	r |= add_blk(d, &cap, p->misc_off, MISC_SIZE, BLK_MISC, 0, 0);
	if (r)
		return -1;
	qsort(d->blk, d->n_blk, sizeof(*d->blk), blk_cmp);
	for (unsigned i = 0; i < d->n_blk; i++) {
		const struct blk *b = &d->blk[i];

		if (!range_ok(b->base, b->size, p->bar0_size) ||
		    (i + 1 < d->n_blk && b->base + b->size > d->blk[i + 1].base)) {
			log_err("internal: BAR0 block at 0x%llx overlaps or leaves BAR0",
				(unsigned long long)b->base);
			return -1;
		}
	}
	return 0;
}

static const struct blk *find_blk(const struct dev *d, uint64_t off)
{
	unsigned lo = 0, hi = d->n_blk;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (d->blk[mid].base + d->blk[mid].size <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < d->n_blk && d->blk[lo].base <= off)
		return &d->blk[lo];
	return NULL;
}

struct dev *dev_create(const struct dev_opts *o)
{
	struct dev *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->o = *o;
	d->p = pers_find(o->pers ? o->pers : "trn1");
	d->dram_fd = -1;
	d->intx_fd = -1;
	if (!d->p) {
		log_err("unknown personality '%s' (known: trn1, trn2)", o->pers);
		free(d);
		return NULL;
	}
	pthread_mutex_init(&d->lock, NULL);
	dmamap_init(&d->dma, 65535);
	d->bar4_size = d->p->bar4_size;
	/* BAR4: a sparse memfd, pages cost memory only once touched. */
	d->dram_fd = memfd_create("neuron-devmodel-dram", MFD_CLOEXEC);
	if (d->dram_fd < 0 || ftruncate(d->dram_fd, (off_t)d->bar4_size)) {
		log_err("memfd for device DRAM: %m");
		goto fail;
	}
	d->dram = mmap(NULL, d->bar4_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
		       d->dram_fd, 0);
	if (d->dram == MAP_FAILED) {
		d->dram = NULL;
		log_err("mmap of device DRAM: %m");
		goto fail;
	}
	d->sema = calloc(d->p->n_nc, sizeof(*d->sema));
	d->sdma = calloc(d->p->n_engines, sizeof(*d->sdma));
	if (!d->sema || !d->sdma)
		goto fail;
	for (unsigned e = 0; e < d->p->n_engines; e++) {
		if (pers_sdma_base(d->p, e)) {
			d->sdma[e] = calloc(1, SDMA_WRAPPER);
			if (!d->sdma[e])
				goto fail;
		}
	}
	if (build_blocks(d) || udma_init(d))
		goto fail;
	cfg_init(d);
	misc_reset(d, true);
	return d;
fail:
	dev_destroy(d);
	return NULL;
}

void dev_stop_workers(struct dev *d)
{
	udma_stop_workers(d);
}

void dev_destroy(struct dev *d)
{
	if (!d)
		return;
	dev_stop_workers(d);
	udma_fini(d);
	dev_client_gone(d);
	dmamap_fini(&d->dma);
	if (d->sdma)
		for (unsigned e = 0; e < d->p->n_engines; e++)
			free(d->sdma[e]);
	free(d->sdma);
	free(d->sema);
	free(d->nq);
	free(d->blk);
	if (d->dram)
		munmap(d->dram, d->bar4_size);
	if (d->dram_fd >= 0)
		close(d->dram_fd);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

uint64_t dev_region_size(const struct dev *d, unsigned region)
{
	switch (region) {
	case REG_BAR0:
		return d->p->bar0_size;
	case REG_BAR4:
		return d->bar4_size;
	case REG_CONFIG:
		return CFG_SIZE;
	default:
		return 0;
	}
}

uint32_t bar0_read32_locked(struct dev *d, uint64_t off)
{
	const struct blk *b = find_blk(d, off);
	uint32_t rel, v;

	if (!b) {
		atomic_fetch_add(&d->st.unknown_reads, 1);
		return 0;
	}
	rel = (uint32_t)(off - b->base);
	switch (b->kind) {
	case BLK_ENGINE: {
		struct engine *e = &d->eng[b->idx];

		pthread_mutex_lock(&e->lock);
		v = udma_read(e, rel);
		pthread_mutex_unlock(&e->lock);
		return v;
	}
	case BLK_SDMA:
		return d->sdma[b->idx][(b->sub + rel) / 4];
	case BLK_NQ:
		return nq_read(d, &d->nq[b->idx], rel);
	case BLK_SEMA:
		return sema_read(&d->sema[b->idx], rel);
	case BLK_MISC:
		return misc_read(d, rel);
	}
	return 0;
}

static void bar0_write32_locked(struct dev *d, uint64_t off, uint32_t val)
{
	const struct blk *b = find_blk(d, off);
	uint32_t rel;

	if (!b) {
		atomic_fetch_add(&d->st.unknown_writes, 1);
		log_dbg("BAR0 write to unmodelled offset 0x%llx ignored", (unsigned long long)off);
		return;
	}
	rel = (uint32_t)(off - b->base);
	switch (b->kind) {
	case BLK_ENGINE: {
		struct engine *e = &d->eng[b->idx];

		pthread_mutex_lock(&e->lock);
		udma_write(e, rel, val);
		pthread_mutex_unlock(&e->lock);
		break;
	}
	case BLK_SDMA:
		d->sdma[b->idx][(b->sub + rel) / 4] = val;
		break;
	case BLK_NQ:
		nq_write(d, &d->nq[b->idx], rel, val);
		break;
	case BLK_SEMA:
		sema_write(&d->sema[b->idx], rel, val);
		break;
	case BLK_MISC:
		misc_write(d, rel, val);
		break;
	}
}

/* A vanished device: reads give all ones, writes are lost (counted). */
static bool vanished(struct dev *d, bool write)
{
	if (!atomic_load(&d->vanished))
		return false;
	atomic_fetch_add(write ? &d->st.vanished_writes : &d->st.vanished_reads, 1);
	return true;
}

uint32_t dev_bar0_read32(struct dev *d, uint64_t off)
{
	uint32_t v;

	if (vanished(d, false))
		return 0xFFFFFFFFu;
	pthread_mutex_lock(&d->lock);
	fw_poll(d);
	v = bar0_read32_locked(d, off & ~3ull);
	pthread_mutex_unlock(&d->lock);
	return v;
}

void dev_bar0_write32(struct dev *d, uint64_t off, uint32_t val)
{
	if (vanished(d, true))
		return;
	pthread_mutex_lock(&d->lock);
	fw_poll(d);
	bar0_write32_locked(d, off & ~3ull, val);
	pthread_mutex_unlock(&d->lock);
}

/* BAR0 takes 1, 2, 4 or 8 bytes, naturally aligned. */
static int bar0_rw(struct dev *d, uint64_t off, uint8_t *buf, uint32_t len, bool write)
{
	if ((len != 1 && len != 2 && len != 4 && len != 8) || (off & (len - 1)))
		return -EINVAL;
	if (vanished(d, write)) {
		if (!write)
			memset(buf, 0xFF, len);
		return 0;
	}
	pthread_mutex_lock(&d->lock);
	fw_poll(d);
	if (len == 8) {
		if (write) {
			bar0_write32_locked(d, off, ld32(buf));
			bar0_write32_locked(d, off + 4, ld32(buf + 4));
		} else {
			st32(buf, bar0_read32_locked(d, off));
			st32(buf + 4, bar0_read32_locked(d, off + 4));
		}
	} else {
		uint64_t base = off & ~3ull;
		unsigned sh = (unsigned)(off & 3) * 8;
		uint32_t mask = len == 4 ? 0xFFFFFFFFu : ((1u << (len * 8)) - 1) << sh;
		uint32_t cur = len == 4 && write ? 0 : bar0_read32_locked(d, base);

		if (write) {
			uint32_t v = len == 1 ? buf[0] : len == 2 ? ld16(buf) : ld32(buf);

			bar0_write32_locked(d, base, (cur & ~mask) | ((v << sh) & mask));
		} else {
			uint32_t v = (cur & mask) >> sh;

			if (len == 1)
				buf[0] = (uint8_t)v;
			else if (len == 2)
				st16(buf, (uint16_t)v);
			else
				st32(buf, v);
		}
	}
	pthread_mutex_unlock(&d->lock);
	return 0;
}

int dev_region_rw(struct dev *d, unsigned region, uint64_t off, void *buf, uint32_t len, bool write)
{
	uint64_t size = dev_region_size(d, region);

	if (!size || !len || !range_ok(off, len, size))
		return -EINVAL;
	switch (region) {
	case REG_CONFIG:
		pthread_mutex_lock(&d->lock);
		if (write)
			cfg_write(d, (uint32_t)off, buf, len);
		else
			memcpy(buf, d->cfg + off, len);
		pthread_mutex_unlock(&d->lock);
		return 0;
	case REG_BAR0:
		return bar0_rw(d, off, buf, len, write);
	case REG_BAR4:
		if (write)
			memcpy(d->dram + off, buf, len);
		else
			memcpy(buf, d->dram + off, len);
		return 0;
	}
	return -EINVAL;
}

/* Reset NCs. v2 map: bit n = NC n, bit 8+t = TopSP t. v3 map: bit n = TPB n
 * (notification block, semaphores/events), bit 8+n = SDMA engines of NC n,
 * bit 16+n = TopSPs of NC n. dev->lock held. */
void dev_reset_ncs(struct dev *d, uint32_t map, bool whole)
{
	const struct pers *p = d->p;
	uint32_t nc_tpb, nc_sdma, topsp = 0;

	if (whole) {
		nc_tpb = nc_sdma = (1u << p->n_nc) - 1;
		topsp = (1u << p->n_topsp) - 1;
	} else if (p->arch == 2) {
		nc_tpb = nc_sdma = map & 3;
		topsp = (map >> 8) & 0x3F;
	} else {
		nc_tpb = map & 0xFF;
		nc_sdma = (map >> 8) & 0xFF;
		for (unsigned t = 0; t < p->n_topsp; t++)
			if ((map >> 16) & (1u << pers_topsp_nc(p, t)))
				topsp |= 1u << t;
	}
	for (unsigned i = 0; i < p->n_engines; i++) {
		struct engine *e = &d->eng[i];

		/* an engine serving two NCs is reset only when both are */
		if ((e->nc_mask & nc_sdma) != e->nc_mask)
			continue;
		pthread_mutex_lock(&e->lock);
		udma_engine_reset(e);
		e->fw_resets++;
		pthread_mutex_unlock(&e->lock);
		if (d->sdma[i])
			memset(d->sdma[i], 0, SDMA_WRAPPER);
	}
	for (unsigned i = 0; i < d->n_nq; i++) {
		struct nq_block *b = &d->nq[i];
		bool hit = false;

		switch (b->owner) {
		case NQO_NC:
			hit = nc_tpb & (1u << b->owner_idx);
			break;
		case NQO_TOPSP:
			hit = topsp & (1u << b->owner_idx);
			break;
		case NQO_SDMA:
			hit = (d->eng[b->owner_idx].nc_mask & nc_sdma) == d->eng[b->owner_idx].nc_mask;
			break;
		}
		if (hit)
			nq_reset(b);
	}
	for (unsigned n = 0; n < p->n_nc; n++)
		if (nc_tpb & (1u << n))
			memset(&d->sema[n], 0, sizeof(d->sema[n]));
}

void dev_pci_reset(struct dev *d)
{
	atomic_fetch_add(&d->st.pci_resets, 1);
	pthread_mutex_lock(&d->lock);
	dev_reset_ncs(d, 0, true);
	misc_reset(d, false);
	cfg_reset(d);
	d->intx_masked = false;
	pthread_mutex_unlock(&d->lock);
}

void dev_vanish(struct dev *d, bool on)
{
	if (on) {
		atomic_store(&d->vanished, true);
		/* A packet being moved ends before the answer; none starts after. */
		for (unsigned i = 0; i < d->p->n_engines; i++) {
			pthread_mutex_lock(&d->eng[i].lock);
			pthread_mutex_unlock(&d->eng[i].lock);
		}
		return;
	}
	if (!atomic_load(&d->vanished))
		return;
	/* Back as after VFIO_USER_DEVICE_RESET, but config space is kept. */
	pthread_mutex_lock(&d->lock);
	dev_reset_ncs(d, 0, true);
	misc_reset(d, false);
	atomic_store(&d->vanished, false);
	pthread_mutex_unlock(&d->lock);
}

void dev_client_gone(struct dev *d)
{
	dmamap_clear(&d->dma);
	pthread_mutex_lock(&d->lock);
	if (d->intx_fd >= 0)
		close(d->intx_fd);
	d->intx_fd = -1;
	d->intx_masked = false;
	pthread_mutex_unlock(&d->lock);
}

bool dev_intx_raise(struct dev *d)
{
	uint64_t one = 1;
	bool ok = false;

	pthread_mutex_lock(&d->lock);
	if (d->intx_fd >= 0 && !d->intx_masked && !(ld16(d->cfg + 4) & (1u << 10))) {
		ok = write(d->intx_fd, &one, sizeof(one)) == sizeof(one);
		d->intx_masked = true;	/* automasked until the client unmasks */
	}
	pthread_mutex_unlock(&d->lock);
	return ok;
}

int dev_xlate_part(struct dev *d, uint64_t devaddr, uint64_t len, bool write, void **ptr,
		   uint64_t *avail, const char **why)
{
	uint64_t dma;
	enum dma_result r;

	if (len && pers_host_addr(d->p, devaddr, &dma)) {
		if (!d->o.no_bus_master_check && !atomic_load(&d->bus_master)) {
			*why = "bus mastering is off in the command register";
			return QE_ADDR;
		}
		r = dmamap_xlate_part(&d->dma, dma, len, write, ptr, avail);
		if (r == DMA_OK)
			return QE_NONE;
		*why = dma_result_str(r);
		return QE_ADDR;
	}
	*avail = len;
	return dev_xlate(d, devaddr, len, write, ptr, why);
}

int dev_xlate(struct dev *d, uint64_t devaddr, uint64_t len, bool write, void **ptr,
	      const char **why)
{
	const struct pers *p = d->p;
	uint64_t dma;
	enum dma_result r;

	if (!len) {
		*why = "zero length";
		return QE_LENGTH;
	}
	if (pers_host_addr(p, devaddr, &dma)) {
		if (!d->o.no_bus_master_check && !atomic_load(&d->bus_master)) {
			*why = "bus mastering is off in the command register";
			return QE_ADDR;
		}
		r = dmamap_xlate(&d->dma, dma, len, write, ptr);
		if (r == DMA_OK)
			return QE_NONE;
		*why = dma_result_str(r);
		return r == DMA_CROSSES ? QE_LENGTH : QE_ADDR;
	}
	for (unsigned c = 0; c < p->n_chan; c++) {
		const struct dram_chan *ch = &p->chan[c];

		if (devaddr >= ch->devaddr && devaddr - ch->devaddr < ch->size) {
			if (!range_ok(devaddr - ch->devaddr, len, ch->size)) {
				*why = "range crosses the end of a DRAM channel";
				return QE_LENGTH;
			}
			*ptr = d->dram + ch->bar4off + (devaddr - ch->devaddr);
			return QE_NONE;
		}
	}
	*why = "device address is neither host memory nor DRAM";
	return QE_ADDR;
}
