// SPDX-License-Identifier: GPL-2.0
/*
 * UDMA engines: the register window of one engine (M2S half at +0, S2M
 * half at +0x2_0000, GEN interrupt controllers at +0x3_8000) and the
 * descriptor walker that moves bytes from the M2S (TX) ring's buffers to
 * the S2M (RX) ring's buffers, packet by packet.
 *
 * Every engine has a worker thread, started on its first doorbell, that
 * runs the queues with new work; with dev_opts.sync the doorbell runs them
 * inline instead. The engine lock covers registers and queue state; it is
 * dropped between packets so that the host can read head pointers while a
 * long queue runs.
 */
#include <errno.h>
#include <stdlib.h>

#include "dev.h"
#include "util.h"

/* per half */
#define HALF 0x20000u
#define Q_FIRST 0x1000u
#define Q_STRIDE 0x1000u
#define Q_END (Q_FIRST + QUEUES_PER_ENGINE * Q_STRIDE)
/* per queue */
#define Q_RING_CFG 0x20
#define Q_BASE_LO 0x28
#define Q_BASE_HI 0x2C
#define Q_LEN 0x30
#define Q_HEAD 0x34
#define Q_TAIL_INC 0x38
#define Q_TAIL 0x3C
#define Q_RATE_LIMIT 0x74	/* M2S only */
#define Q_SWCTL_M2S 0xB0
#define Q_SWCTL_S2M 0x64
#define Q_SWCTL_RESET (1u << 8)
#define RING_CFG_RESET 0x03000000u
#define RING_CFG_RUN ((1u << 16) | (1u << 17))
/* engine */
#define E_STATE 0x200
#define E_CHANGE_STATE 0x204
#define E_M2S_PKT_CFG 0x254
#define E_M2S_DATA_RD_CFG 0x310
#define PKT_CFG_LEN0_64K (1u << 24)
/* GEN interrupt controllers */
#define GEN 0x38000u
#define PRIMARY (GEN + 0x0)
#define SECONDARY (GEN + 0x2000)
#define IOFIC_CAUSE 0x00
#define IOFIC_CAUSE_SET 0x08
#define IOFIC_MASK_CLEAR 0x18
#define GROUP 0x40u

/* descriptor word 0 */
#define D_LEN_MASK 0xFFFFu
#define D_RING_ID_SHIFT 24
#define D_FIRST (1u << 26)
#define D_LAST (1u << 27)

#define MARKER_VALUE 0xABCDEF01u

/* Cause bit in secondary group A (M2S) / B (S2M) for each error. */
static const uint8_t cause_bit[2][QE_COUNT] = {
	[SIDE_M2S] = { [QE_CONFIG] = 0, [QE_ADDR] = 1, [QE_LENGTH] = 2, [QE_INJECTED] = 3,
		       [QE_FORMAT] = 4, [QE_OVERRUN] = 5, [QE_RINGID] = 17 },
	[SIDE_S2M] = { [QE_CONFIG] = 0, [QE_ADDR] = 1, [QE_LENGTH] = 2, [QE_INJECTED] = 3,
		       [QE_FORMAT] = 4, [QE_OVERRUN] = 5, [QE_RINGID] = 11 },
};

static const char *const side_name[2] = { "M2S", "S2M" };

static uint32_t qreg(const struct engine *e, int side, unsigned q, uint32_t r)
{
	return e->regs[(side * HALF + Q_FIRST + q * Q_STRIDE + r) / 4];
}

static void side_reset(struct udma_side *s)
{
	*s = (struct udma_side){ .head_rid = 1, .tail_rid = 1 };
}

void udma_engine_reset(struct engine *e)
{
	memset(e->regs, 0, ENGINE_WINDOW);
	for (unsigned q = 0; q < QUEUES_PER_ENGINE; q++) {
		for (int s = 0; s < 2; s++) {
			e->regs[(s * HALF + Q_FIRST + q * Q_STRIDE + Q_RING_CFG) / 4] = RING_CFG_RESET;
			side_reset(&e->q[q].s[s]);
		}
		e->regs[(Q_FIRST + q * Q_STRIDE + Q_RATE_LIMIT) / 4] = 0x7;
	}
	e->regs[E_M2S_DATA_RD_CFG / 4] = 0x100u << 16;
	e->kick = 0;
	e->forced_abort = false;
	e->disabled = false;
	e->setup_writes = 0;
	e->gen++;
	pthread_cond_broadcast(&e->cv);
}

int udma_init(struct dev *d)
{
	d->eng = calloc(d->p->n_engines, sizeof(*d->eng));
	if (!d->eng)
		return -1;
	for (unsigned i = 0; i < d->p->n_engines; i++) {
		struct engine *e = &d->eng[i];

		pthread_mutex_init(&e->lock, NULL);
		pthread_cond_init(&e->cv, NULL);
		e->dev = d;
		e->id = i;
		e->base = pers_engine_base(d->p, i);
		e->nc_mask = pers_engine_nc_mask(d->p, i);
		e->regs = calloc(1, ENGINE_WINDOW);
		if (!e->regs)
			return -1;
		udma_engine_reset(e);
	}
	return 0;
}

void udma_stop_workers(struct dev *d)
{
	if (!d->eng)
		return;
	for (unsigned i = 0; i < d->p->n_engines; i++) {
		struct engine *e = &d->eng[i];
		bool join;

		pthread_mutex_lock(&e->lock);
		e->stop = true;
		join = e->thr_started;
		e->thr_started = false;
		pthread_cond_broadcast(&e->cv);
		pthread_mutex_unlock(&e->lock);
		if (join)
			pthread_join(e->thr, NULL);
	}
}

void udma_fini(struct dev *d)
{
	if (!d->eng)
		return;
	for (unsigned i = 0; i < d->p->n_engines; i++) {
		free(d->eng[i].regs);
		pthread_mutex_destroy(&d->eng[i].lock);
		pthread_cond_destroy(&d->eng[i].cv);
	}
	free(d->eng);
	d->eng = NULL;
}

static bool half_aborted(const struct engine *e, int side)
{
	if (e->forced_abort)
		return true;
	for (unsigned q = 0; q < QUEUES_PER_ENGINE; q++)
		if (e->q[q].s[side].err)
			return true;
	return false;
}

static bool engine_blocked(const struct engine *e)
{
	return e->hang || e->disabled || atomic_load(&e->dev->vanished) ||
	       half_aborted(e, SIDE_M2S) || half_aborted(e, SIDE_S2M);
}

static void raise_err(struct engine *e, unsigned q, int side, enum q_err err, uint64_t addr,
		      const char *why)
{
	struct udma_side *s = &e->q[q].s[side];
	uint32_t cause = (SECONDARY + (side == SIDE_M2S ? 0 : GROUP) + IOFIC_CAUSE) / 4;

	if (s->err)
		return;
	s->err = (uint8_t)err;
	s->err_addr = addr;
	e->regs[cause] |= 1u << cause_bit[side][err];
	atomic_fetch_add(&e->dev->st.errors, 1);
	log_warn("engine %u queue %u %s: %s (address 0x%llx%s%s); engine aborted until queue reset",
		 e->id, q, side_name[side], q_err_str(err), (unsigned long long)addr,
		 why ? ": " : "", why ? why : "");
}

/* Ring configuration of one side; QE_NONE when usable. */
static enum q_err ring_check(const struct engine *e, unsigned q, int side, uint64_t *base,
			     uint32_t *len)
{
	const struct udma_side *s = &e->q[q].s[side];

	*base = ((uint64_t)qreg(e, side, q, Q_BASE_HI) << 32) | qreg(e, side, q, Q_BASE_LO);
	*len = qreg(e, side, q, Q_LEN) & 0xFFFFFF;
	if (*base & 0xFF)
		return QE_CONFIG;
	if (*len < 32 || *len > 0xFFFFF0 || *len % 16)
		return QE_CONFIG;
	/* the length was changed under posted descriptors */
	if (s->head >= *len || s->tail >= *len || s->pending > *len)
		return QE_CONFIG;
	return QE_NONE;
}

struct desc {
	uint32_t ctrl, meta;
	uint64_t addr;
	uint32_t len;		/* bytes, 0 resolved to 64 KiB */
};

/*
 * Read descriptor idx of a ring and check its ring id and length; the
 * caller holds the DMA map's read lock (taken once: the lock prefers
 * writers, so a second read lock would wait behind a DMA_MAP for ever).
 */
static enum q_err desc_read_locked(struct engine *e, uint64_t ring, uint32_t idx, uint8_t rid,
				   struct desc *dsc, uint64_t *bad, const char **why)
{
	void *p;
	uint8_t raw[16];
	int r;

	*bad = ring + (uint64_t)idx * 16;
	r = dev_xlate(e->dev, *bad, 16, false, &p, why);
	if (r)
		return (enum q_err)r;
	memcpy(raw, p, 16);
	dsc->ctrl = ld32(raw);
	dsc->meta = ld32(raw + 4);
	dsc->addr = ld64(raw + 8);
	if (((dsc->ctrl >> D_RING_ID_SHIFT) & 3) != rid) {
		*why = NULL;
		return QE_RINGID;
	}
	dsc->len = dsc->ctrl & D_LEN_MASK;
	if (!dsc->len) {
		if (!(e->regs[E_M2S_PKT_CFG / 4] & PKT_CFG_LEN0_64K)) {
			*why = "length 0 while packet-length cfg bit 24 is clear";
			return QE_LENGTH;
		}
		dsc->len = 0x10000;
	}
	*bad = dsc->addr;
	return QE_NONE;
}

/* desc_read_locked() under the read lock. */
static enum q_err desc_read(struct engine *e, uint64_t ring, uint32_t idx, uint8_t rid,
			    struct desc *dsc, uint64_t *bad, const char **why)
{
	enum q_err r;

	dmamap_rdlock(&e->dev->dma);
	r = desc_read_locked(e, ring, idx, rid, dsc, bad, why);
	dmamap_unlock(&e->dev->dma);
	return r;
}

static void step(uint32_t *idx, uint8_t *rid, uint32_t len)
{
	if (++*idx == len) {
		*idx = 0;
		*rid = (*rid + 1) & 3;
	}
}

enum run { RUN_DONE, RUN_WAIT, RUN_ERR };

/* One packet of queue q, if it is complete on TX and RX has room. */
static enum run run_packet(struct engine *e, unsigned q)
{
	struct udma_side *tx = &e->q[q].s[SIDE_M2S], *rx = &e->q[q].s[SIDE_S2M];
	struct dev *d = e->dev;
	uint64_t tx_ring, rx_ring, total = 0, cap = 0, bad;
	uint32_t tx_len, rx_len, n_tx = 0, n_rx = 0, idx;
	uint8_t rid;
	struct desc dsc;
	const char *why = NULL;
	enum q_err err;
	bool last = false, drop = false;

	if ((err = ring_check(e, q, SIDE_M2S, &tx_ring, &tx_len))) {
		raise_err(e, q, SIDE_M2S, err, tx_ring, "ring base/length");
		return RUN_ERR;
	}
	if ((err = ring_check(e, q, SIDE_S2M, &rx_ring, &rx_len))) {
		raise_err(e, q, SIDE_S2M, err, rx_ring, "ring base/length");
		return RUN_ERR;
	}
	if (e->inject_err) {
		e->inject_err = false;
		raise_err(e, q, SIDE_M2S, QE_INJECTED, tx_ring + (uint64_t)tx->head * 16, NULL);
		return RUN_ERR;
	}
	/* pass 1: a whole TX packet, then RX descriptors enough to hold it */
	idx = tx->head;
	rid = tx->head_rid;
	while (n_tx < tx->pending && !last) {
		err = desc_read(e, tx_ring, idx, rid, &dsc, &bad, &why);
		if (err) {
			raise_err(e, q, SIDE_M2S, err, bad, why);
			return RUN_ERR;
		}
		if (!!(dsc.ctrl & D_FIRST) != (n_tx == 0)) {
			raise_err(e, q, SIDE_M2S, QE_FORMAT, tx_ring + (uint64_t)idx * 16,
				  n_tx ? "first-of-packet inside a packet" : "packet does not start with first-of-packet");
			return RUN_ERR;
		}
		last = dsc.ctrl & D_LAST;
		total += dsc.len;
		n_tx++;
		step(&idx, &rid, tx_len);
	}
	if (!last)
		return RUN_WAIT;
	idx = rx->head;
	rid = rx->head_rid;
	while (cap < total) {
		if (n_rx == rx->pending)
			return RUN_WAIT;
		err = desc_read(e, rx_ring, idx, rid, &dsc, &bad, &why);
		if (err) {
			raise_err(e, q, SIDE_S2M, err, bad, why);
			return RUN_ERR;
		}
		cap += dsc.len;
		n_rx++;
		step(&idx, &rid, rx_len);
	}

	/* pass 2: move the bytes */
	{
		uint32_t ti = tx->head, ri = rx->head, rx_left = 0, rx_used = 0;
		uint8_t trid = tx->head_rid, rrid = rx->head_rid;
		uint8_t *dst = NULL;
		uint64_t daddr = 0, dst_avail = 0;
		struct desc rd;

		dmamap_rdlock(&d->dma);
		for (uint32_t t = 0; t < n_tx; t++) {
			uint8_t *src;
			uint32_t left;
			uint64_t saddr, src_avail = 0;

			err = desc_read_locked(e, tx_ring, ti, trid, &dsc, &bad, &why);
			if (!err)
				err = dev_xlate_part(d, dsc.addr, dsc.len, false, (void **)&src,
						     &src_avail, &why);
			if (err) {
				dmamap_unlock(&d->dma);
				raise_err(e, q, SIDE_M2S, err, dsc.addr, why);
				return RUN_ERR;
			}
			saddr = dsc.addr;
			if (t == 0 && n_tx == 1 && dsc.len == 4 && src_avail == 4 &&
			    ld32(src) == MARKER_VALUE && atomic_load(&d->lost_completion)) {
				atomic_fetch_sub(&d->lost_completion, 1);
				atomic_fetch_add(&d->st.markers_dropped, 1);
				log_info("engine %u queue %u: marker write dropped (fault injection)", e->id, q);
				drop = true;
				break;
			}
			left = dsc.len;
			while (left) {
				uint64_t n;

				if (!src_avail) {
					/* The range goes on into the next DMA map. */
					err = dev_xlate_part(d, saddr, left, false, (void **)&src,
							     &src_avail, &why);
					if (err) {
						dmamap_unlock(&d->dma);
						raise_err(e, q, SIDE_M2S, QE_LENGTH, saddr,
							  "range runs past a DMA map into no map");
						return RUN_ERR;
					}
				}
				if (!rx_left) {
					if (rx_used++ == n_rx) {
						dmamap_unlock(&d->dma);
						raise_err(e, q, SIDE_S2M, QE_FORMAT, rx_ring + (uint64_t)ri * 16,
							  "descriptors changed while the packet was moved");
						return RUN_ERR;
					}
					err = desc_read_locked(e, rx_ring, ri, rrid, &rd, &bad, &why);
					if (!err)
						err = dev_xlate_part(d, rd.addr, rd.len, true, (void **)&dst,
								     &dst_avail, &why);
					if (err) {
						dmamap_unlock(&d->dma);
						raise_err(e, q, SIDE_S2M, err, rd.addr, why);
						return RUN_ERR;
					}
					rx_left = rd.len;
					daddr = rd.addr;
					step(&ri, &rrid, rx_len);
				} else if (!dst_avail) {
					err = dev_xlate_part(d, daddr, rx_left, true, (void **)&dst,
							     &dst_avail, &why);
					if (err) {
						dmamap_unlock(&d->dma);
						raise_err(e, q, SIDE_S2M, QE_LENGTH, daddr,
							  "range runs past a DMA map into no map");
						return RUN_ERR;
					}
				}
				n = left < rx_left ? left : rx_left;
				if (n > src_avail)
					n = src_avail;
				if (n > dst_avail)
					n = dst_avail;
				memmove(dst, src, n);
				dst += n;
				src += n;
				saddr += n;
				daddr += n;
				src_avail -= n;
				dst_avail -= n;
				left -= n;
				rx_left -= n;
			}
			step(&ti, &trid, tx_len);
		}
		dmamap_unlock(&d->dma);
	}
	atomic_thread_fence(memory_order_release);
	for (uint32_t i = 0; i < n_tx; i++)
		step(&tx->head, &tx->head_rid, tx_len);
	for (uint32_t i = 0; i < n_rx; i++)
		step(&rx->head, &rx->head_rid, rx_len);
	tx->pending -= n_tx;
	rx->pending -= n_rx;
	atomic_fetch_add(&d->st.descs, n_tx + n_rx);
	atomic_fetch_add(&d->st.packets, 1);
	if (!drop)
		atomic_fetch_add(&d->st.bytes, total);
	return RUN_DONE;
}

static bool queue_enabled(const struct engine *e, unsigned q)
{
	return (qreg(e, SIDE_M2S, q, Q_RING_CFG) & RING_CFG_RUN) == RING_CFG_RUN &&
	       (qreg(e, SIDE_S2M, q, Q_RING_CFG) & RING_CFG_RUN) == RING_CFG_RUN;
}

/* Engine lock held; dropped between packets in worker mode. */
void udma_run(struct engine *e)
{
	uint64_t gen = e->gen;

	while (e->kick && !engine_blocked(e) && !e->stop) {
		for (unsigned q = 0; q < QUEUES_PER_ENGINE && !engine_blocked(e); q++) {
			if (!(e->kick & (1u << q)))
				continue;
			e->kick &= (uint16_t)~(1u << q);
			while (queue_enabled(e, q) && e->q[q].s[SIDE_M2S].pending &&
			       !engine_blocked(e) && !e->stop) {
				if (run_packet(e, q) != RUN_DONE)
					break;
				if (e->slow_us) {
					uint32_t us = e->slow_us;

					pthread_mutex_unlock(&e->lock);
					sleep_us(us);
					pthread_mutex_lock(&e->lock);
				} else if (!e->dev->o.sync) {
					pthread_mutex_unlock(&e->lock);
					pthread_mutex_lock(&e->lock);
				}
				if (e->gen != gen)
					return;	/* reset meanwhile: its state is new */
			}
		}
	}
}

static void *worker(void *arg)
{
	struct engine *e = arg;

	pthread_mutex_lock(&e->lock);
	while (!e->stop) {
		if (e->kick && !engine_blocked(e))
			udma_run(e);
		else
			pthread_cond_wait(&e->cv, &e->lock);
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

/* New work or a state change: run queues with work (engine lock held). */
static void kick(struct engine *e, uint16_t queues)
{
	e->kick |= queues;
	if (e->dev->o.sync) {
		udma_run(e);
		return;
	}
	if (!e->thr_started && !e->stop) {
		if (pthread_create(&e->thr, NULL, worker, e)) {
			log_err("engine %u: cannot start its worker thread", e->id);
			return;
		}
		e->thr_started = true;
	}
	pthread_cond_broadcast(&e->cv);
}

static uint16_t queues_with_work(const struct engine *e)
{
	uint16_t m = 0;

	for (unsigned q = 0; q < QUEUES_PER_ENGINE; q++)
		if (e->q[q].s[SIDE_M2S].pending)
			m |= (uint16_t)(1u << q);
	return m;
}

static void doorbell(struct engine *e, unsigned q, int side, uint32_t n)
{
	struct udma_side *s = &e->q[q].s[side];
	uint64_t base;
	uint32_t len;
	enum q_err err;

	n &= 0xFFFFFF;
	if (!n)
		return;
	atomic_fetch_add(&e->dev->st.doorbells, 1);
	if (s->err)
		return;		/* stopped until the queue is reset */
	if ((err = ring_check(e, q, side, &base, &len))) {
		raise_err(e, q, side, err, base, "ring base/length at doorbell");
		return;
	}
	if (n > len - s->pending) {
		raise_err(e, q, side, QE_OVERRUN, base, NULL);
		return;
	}
	s->pending += n;
	s->tail += n;
	if (s->tail >= len) {
		s->tail -= len;
		s->tail_rid = (s->tail_rid + 1) & 3;
	}
	kick(e, (uint16_t)(1u << q));
}

static int iofic_group(uint32_t off, uint32_t *reg)
{
	static const uint32_t groups[] = {
		PRIMARY, PRIMARY + GROUP, PRIMARY + 2 * GROUP, PRIMARY + 3 * GROUP,
		SECONDARY, SECONDARY + GROUP, SECONDARY + 2 * GROUP,
		GEN + 0x2D00, GEN + 0x2E00, GEN + 0x2F00, GEN + 0x3000, GEN + 0x3100,
		GEN + 0x3200, GEN + 0x3300,
	};

	for (unsigned i = 0; i < ARRAY_SIZE(groups); i++) {
		if (off >= groups[i] && off < groups[i] + GROUP) {
			*reg = off - groups[i];
			return (int)groups[i];
		}
	}
	return -1;
}

uint32_t udma_read(struct engine *e, uint32_t off)
{
	int side = off >= HALF;
	uint32_t rel = off - (uint32_t)side * HALF, r;
	int g;

	if (rel >= Q_FIRST && rel < Q_END && off < GEN) {
		unsigned q = (rel - Q_FIRST) / Q_STRIDE;
		const struct udma_side *s = &e->q[q].s[side];

		switch (rel % Q_STRIDE) {
		case Q_HEAD:
			return ((uint32_t)s->head_rid << 30) | s->head;
		case Q_TAIL:
			return ((uint32_t)s->tail_rid << 30) | s->tail;
		case Q_TAIL_INC:
			return 0;
		case Q_SWCTL_M2S:
			if (side == SIDE_M2S)
				return 0;
			break;
		case Q_SWCTL_S2M:
			if (side == SIDE_S2M)
				return 0;
			break;
		}
		return e->regs[off / 4];
	}
	if (off == E_STATE || off == HALF + E_STATE) {
		if (e->disabled)
			return 0;
		return half_aborted(e, side) ? 0x2222 : 0x1111;
	}
	if (off == E_CHANGE_STATE || off == HALF + E_CHANGE_STATE)
		return 0;
	g = iofic_group(off, &r);
	if (g == (int)(PRIMARY + 3 * GROUP) && r == IOFIC_CAUSE) {
		uint32_t v = e->regs[off / 4];

		for (unsigned i = 0; i < 3; i++)
			if (e->regs[(SECONDARY + i * GROUP) / 4])
				v |= 1u << (8 + i);
		return v;
	}
	return e->regs[off / 4];
}

void udma_write(struct engine *e, uint32_t off, uint32_t val)
{
	int side = off >= HALF;
	uint32_t rel = off - (uint32_t)side * HALF, r;
	int g;

	if (rel >= Q_FIRST && rel < Q_END && off < GEN) {
		unsigned q = (rel - Q_FIRST) / Q_STRIDE;
		uint32_t reg = rel % Q_STRIDE;

		switch (reg) {
		case Q_HEAD:
		case Q_TAIL:
			return;		/* maintained by the engine */
		case Q_TAIL_INC:
			doorbell(e, q, side, val);
			return;
		case Q_RING_CFG: {
			bool was = queue_enabled(e, q);

			e->regs[off / 4] = val;
			if (!was && queue_enabled(e, q))
				kick(e, (uint16_t)(1u << q));
			return;
		}
		}
		if ((side == SIDE_M2S && reg == Q_SWCTL_M2S) || (side == SIDE_S2M && reg == Q_SWCTL_S2M)) {
			if (val & Q_SWCTL_RESET) {
				side_reset(&e->q[q].s[side]);
				kick(e, queues_with_work(e));
			}
			return;		/* self-clearing */
		}
		e->regs[off / 4] = val;
		return;
	}
	e->setup_writes++;
	if (off == E_STATE || off == HALF + E_STATE)
		return;
	if (off == E_CHANGE_STATE || off == HALF + E_CHANGE_STATE) {
		if (val & 1) {
			e->forced_abort = false;
			e->disabled = false;
		}
		if (val & 2)
			e->disabled = true;
		if (val & 4)
			e->forced_abort = true;
		kick(e, queues_with_work(e));
		return;
	}
	g = iofic_group(off, &r);
	if (g >= 0 && r == IOFIC_CAUSE) {
		e->regs[off / 4] &= val;	/* write 0 to clear */
		return;
	}
	if (g >= 0 && r == IOFIC_CAUSE_SET) {
		e->regs[(off - IOFIC_CAUSE_SET) / 4] |= val;
		return;
	}
	if (g >= 0 && r == IOFIC_MASK_CLEAR) {
		e->regs[(off - IOFIC_MASK_CLEAR + 0x10) / 4] &= val;
		return;
	}
	e->regs[off / 4] = val;
}
