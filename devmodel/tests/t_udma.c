// SPDX-License-Identifier: GPL-2.0
/* The UDMA descriptor walker. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "rig.h"
#include "test.h"
#include "util.h"

#define E32 32			/* trn1 host-copy engine (NC 0) */
#define DRAM0 0x1000000ull	/* 16 MiB into channel 0 */

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

static bool rig(struct rig *r, const char *pers)
{
	if (rig_init(r, pers, false)) {
		t_failures++;
		fprintf(stderr, "  FAIL: rig setup\n");
		return false;
	}
	return true;
}

static void host_to_dram(void)
{
	struct rig r;

	if (!rig(&r, "trn1"))
		return;
	setup_queue(&r, E32, 0, 64);
	fill(G(&r, 0x100000), 4096, 1);
	copy1(&r, E32, 0, H(&r, 0x100000), DRAM0, 4096);
	CHECK(!memcmp(r.d->dram + DRAM0, G(&r, 0x100000), 4096));
	CHECK_EQ(erd(&r, E32, QREG(0, 0, 0x34)), (1u << 30) | 1);	/* M2S head */
	CHECK_EQ(erd(&r, E32, QREG(1, 0, 0x34)), (1u << 30) | 1);	/* S2M head */
	CHECK_EQ(erd(&r, E32, QREG(0, 0, 0x3C)), (1u << 30) | 1);	/* tail */
	CHECK_EQ(erd(&r, E32, 0x200), ST_NORMAL);
	CHECK_EQ(atomic_load(&r.d->st.bytes), 4096);
	CHECK_EQ(atomic_load(&r.d->st.descs), 2);
	/* channel 1 of trn1: device address 0x10_0000_0000 is BAR4 16 GiB */
	fill(G(&r, 0x200000), 100, 9);
	copy1(&r, E32, 0, H(&r, 0x200000), 0x1000000000ull + 0x40, 100);
	CHECK(!memcmp(r.d->dram + (16ull << 30) + 0x40, G(&r, 0x200000), 100));
	rig_fini(&r);
}

static void dram_to_host(void)
{
	struct rig r;

	if (!rig(&r, "trn1"))
		return;
	setup_queue(&r, 5, 3, 32);
	fill(r.d->dram + DRAM0, 3000, 4);
	copy1(&r, 5, 3, DRAM0, H(&r, 0x300000), 3000);
	CHECK(!memcmp(r.d->dram + DRAM0, G(&r, 0x300000), 3000));
	/* DRAM to DRAM, host to host */
	copy1(&r, 5, 3, DRAM0, DRAM0 + 0x100000, 3000);
	CHECK(!memcmp(r.d->dram + DRAM0, r.d->dram + DRAM0 + 0x100000, 3000));
	copy1(&r, 5, 3, H(&r, 0x300000), H(&r, 0x400000), 3000);
	CHECK(!memcmp(G(&r, 0x300000), G(&r, 0x400000), 3000));
	CHECK_EQ(erd(&r, 5, 0x20200), ST_NORMAL);
	rig_fini(&r);
}

static void len0_64k(void)
{
	struct rig r;

	if (!rig(&r, "trn1"))
		return;
	setup_queue(&r, E32, 0, 32);
	fill(G(&r, 0x100000), 65536 + 16, 3);
	copy1(&r, E32, 0, H(&r, 0x100000), DRAM0, 0);	/* 0 = 64 KiB */
	CHECK(!memcmp(r.d->dram + DRAM0, G(&r, 0x100000), 65536));
	CHECK_EQ(r.d->dram[DRAM0 + 65536], 0);
	CHECK_EQ(atomic_load(&r.d->st.bytes), 65536);
	/* without packet-length cfg bit 24, length 0 is an error */
	ewr(&r, E32, 0x254, 0x000FFFFF);
	copy1(&r, E32, 0, H(&r, 0x100000), DRAM0, 0);
	CHECK_EQ(erd(&r, E32, 0x200), ST_ABORT);
	CHECK_EQ(erd(&r, E32, 0x3A000), 1u << 2);
	CHECK_EQ(r.d->eng[E32].q[0].s[SIDE_M2S].err, QE_LENGTH);
	rig_fini(&r);
}

static void multi_desc_packet(void)
{
	struct rig r;

	if (!rig(&r, "trn1"))
		return;
	setup_queue(&r, E32, 1, 32);
	fill(G(&r, 0x100000), 300, 1);
	fill(G(&r, 0x101000), 200, 50);
	fill(G(&r, 0x102000), 100, 99);
	tx_desc(&r, 300, true, false, H(&r, 0x100000));
	tx_desc(&r, 200, false, false, H(&r, 0x101000));
	tx_desc(&r, 100, false, true, H(&r, 0x102000));
	rx_desc(&r, 250, DRAM0);
	rx_desc(&r, 1000, DRAM0 + 0x1000);
	rx_desc(&r, 1000, DRAM0 + 0x2000);		/* not needed by this packet */
	post(&r, E32, 1, 3, 3);
	CHECK(!memcmp(r.d->dram + DRAM0, G(&r, 0x100000), 250));
	CHECK(!memcmp(r.d->dram + DRAM0 + 0x1000, G(&r, 0x100000) + 250, 50));
	CHECK(!memcmp(r.d->dram + DRAM0 + 0x1000 + 50, G(&r, 0x101000), 200));
	CHECK(!memcmp(r.d->dram + DRAM0 + 0x1000 + 250, G(&r, 0x102000), 100));
	CHECK_EQ(erd(&r, E32, QREG(0, 1, 0x34)) & 0xFFFFFF, 3);
	CHECK_EQ(erd(&r, E32, QREG(1, 1, 0x34)) & 0xFFFFFF, 2);	/* third RX left posted */
	CHECK_EQ(r.d->eng[E32].q[1].s[SIDE_S2M].pending, 1);
	/* the next packet starts in that third RX descriptor */
	copy1(&r, E32, 1, H(&r, 0x100000), DRAM0 + 0x3000, 8);
	CHECK(!memcmp(r.d->dram + DRAM0 + 0x2000, G(&r, 0x100000), 8));
	rig_fini(&r);
}

static void ring_wrap(void)
{
	struct rig r;
	uint32_t head;

	if (!rig(&r, "trn1"))
		return;
	setup_queue(&r, E32, 0, 32);
	/* three laps and a bit: ring id 1, 2, 3, then 0 */
	for (unsigned batch = 0; batch < 7; batch++) {
		for (unsigned i = 0; i < 16; i++) {
			uint64_t k = batch * 16 + i;

			G(&r, 0x100000)[k] = (uint8_t)(k + 1);
			tx_desc(&r, 1, true, true, H(&r, 0x100000 + k));
			rx_desc(&r, 1, DRAM0 + k);
		}
		post(&r, E32, 0, 16, 16);
	}
	for (unsigned k = 0; k < 112; k++)
		if (r.d->dram[DRAM0 + k] != (uint8_t)(k + 1)) {
			CHECK_EQ(r.d->dram[DRAM0 + k], k + 1);
			break;
		}
	head = erd(&r, E32, QREG(0, 0, 0x34));
	CHECK_EQ(head & 0xFFFFFF, 112 % 32);
	CHECK_EQ(head >> 30, ((112 / 32) + 1) & 3);
	CHECK_EQ(erd(&r, E32, QREG(1, 0, 0x3C)) >> 30, 0);	/* tail on lap 4: id 0 */
	CHECK_EQ(erd(&r, E32, 0x200), ST_NORMAL);
	rig_fini(&r);
}

static void check_error(struct rig *r, unsigned eng, unsigned q, int side, enum q_err err,
			unsigned bit)
{
	CHECK_EQ(r->d->eng[eng].q[q].s[side].err, err);
	CHECK_EQ(erd(r, eng, side ? 0x20200 : 0x200), ST_ABORT);
	CHECK(erd(r, eng, side ? 0x3A040 : 0x3A000) & (1u << bit));
	CHECK(erd(r, eng, 0x380C0) & (1u << (8 + side)));		/* summary */
	CHECK(atomic_load(&r->d->st.errors) >= 1);
}

static void err_ring_id(void)
{
	struct rig r;

	if (!rig(&r, "trn1"))
		return;
	setup_queue(&r, E32, 0, 32);
	fill(G(&r, 0x100000), 16, 1);
	tx_desc(&r, 16, true, true, H(&r, 0x100000));
	G(&r, TXRING)[3] ^= 0x03;			/* ring id 1 -> 2 */
	rx_desc(&r, 16, DRAM0);
	post(&r, E32, 0, 1, 1);
	check_error(&r, E32, 0, SIDE_M2S, QE_RINGID, 17);
	CHECK_EQ(r.d->dram[DRAM0], 0);
	CHECK_EQ(erd(&r, E32, QREG(0, 0, 0x34)), 1u << 30);	/* no progress */
	/* stopped: more work does nothing, other queues of the engine too */
	G(&r, TXRING)[3] ^= 0x03;
	post(&r, E32, 0, 0, 0);
	CHECK_EQ(r.d->dram[DRAM0], 0);
	/* RX ring id error on S2M, bit 11 */
	setup_queue(&r, 7, 2, 32);
	tx_desc(&r, 16, true, true, H(&r, 0x100000));
	rx_desc(&r, 16, DRAM0);
	G(&r, RXRING)[3] = 0;
	post(&r, 7, 2, 1, 1);
	check_error(&r, 7, 2, SIDE_S2M, QE_RINGID, 11);
	/* queue reset of the faulty side brings the engine back */
	ewr(&r, 7, QREG(1, 2, 0x64), 0x100);
	CHECK_EQ(erd(&r, 7, 0x20200), ST_NORMAL);
	CHECK_EQ(erd(&r, 7, QREG(1, 2, 0x64)), 0);		/* self-clearing */
	CHECK_EQ(r.d->eng[7].q[2].s[SIDE_S2M].err, QE_NONE);
	/* the cause bit stays until software clears it (write 0 to clear) */
	CHECK(erd(&r, 7, 0x3A040) & (1u << 11));
	ewr(&r, 7, 0x3A040, ~(1u << 11));
	CHECK_EQ(erd(&r, 7, 0x3A040), 0);
	CHECK_EQ(erd(&r, 7, 0x380C0) & (1u << 9), 0);
	rig_fini(&r);
}

static void err_addresses(void)
{
	struct rig r;

	if (!rig(&r, "trn1"))
		return;
	/* host address outside every map */
	setup_queue(&r, 1, 0, 32);
	copy1(&r, 1, 0, r.hostbit | 0x90000000ull, DRAM0, 16);
	check_error(&r, 1, 0, SIDE_M2S, QE_ADDR, 1);
	/* neither host nor DRAM (trn1 DRAM channel 0 is 16 GiB) */
	setup_queue(&r, 2, 0, 32);
	copy1(&r, 2, 0, H(&r, 0x100000), 0x500000000ull, 16);
	check_error(&r, 2, 0, SIDE_S2M, QE_ADDR, 1);
	/* crossing the end of the guest memory map */
	setup_queue(&r, 3, 0, 32);
	copy1(&r, 3, 0, H(&r, GSIZE - 8), DRAM0, 16);
	check_error(&r, 3, 0, SIDE_M2S, QE_LENGTH, 2);
	/* crossing the end of a DRAM channel */
	setup_queue(&r, 4, 0, 32);
	copy1(&r, 4, 0, H(&r, 0x100000), (16ull << 30) - 8, 16);
	check_error(&r, 4, 0, SIDE_S2M, QE_LENGTH, 2);
	/* ring itself unreachable */
	setup_queue(&r, 6, 0, 32);
	ewr(&r, 6, QREG(0, 0, 0x28), 0x0);
	ewr(&r, 6, QREG(0, 0, 0x2C), (uint32_t)((r.hostbit | 0x80000000ull) >> 32));
	post(&r, 6, 0, 1, 0);
	post(&r, 6, 0, 0, 1);
	check_error(&r, 6, 0, SIDE_M2S, QE_ADDR, 1);
	/* window bit plus other route bits is not host memory */
	setup_queue(&r, 8, 0, 32);
	copy1(&r, 8, 0, H(&r, 0x100000) | (1ull << 45), DRAM0, 16);
	check_error(&r, 8, 0, SIDE_M2S, QE_ADDR, 1);
	rig_fini(&r);
}

static void err_permissions(void)
{
	struct rig r;
	struct gmem ro;
	uint16_t cmd = 0x2;

	if (!rig(&r, "trn1"))
		return;
	CHECK_EQ(gmem_new(&ro, 1 << 20), 0);
	CHECK_EQ(dmamap_add(&r.d->dma, 0x40000000, 1 << 20, 0, DMA_FLAG_READ, dup(ro.fd)), 0);
	CHECK_EQ(dmamap_add(&r.d->dma, 0x50000000, 1 << 20, 0, DMA_FLAG_READ | DMA_FLAG_WRITE, -1), 0);
	/* read-only map: reading fine, writing is an error */
	setup_queue(&r, 1, 0, 32);
	copy1(&r, 1, 0, r.hostbit | 0x40000000ull, DRAM0, 16);
	CHECK_EQ(r.d->eng[1].q[0].s[SIDE_M2S].err, QE_NONE);
	copy1(&r, 1, 0, DRAM0, r.hostbit | 0x40000000ull, 16);
	check_error(&r, 1, 0, SIDE_S2M, QE_ADDR, 1);
	/* a map without a file descriptor is not reachable */
	setup_queue(&r, 2, 0, 32);
	copy1(&r, 2, 0, r.hostbit | 0x50000000ull, DRAM0, 16);
	check_error(&r, 2, 0, SIDE_M2S, QE_ADDR, 1);
	/* bus mastering off */
	dev_region_rw(r.d, REG_CONFIG, 4, &cmd, 2, true);
	setup_queue(&r, 3, 0, 32);
	copy1(&r, 3, 0, H(&r, 0x100000), DRAM0, 16);
	check_error(&r, 3, 0, SIDE_M2S, QE_ADDR, 1);
	gmem_free(&ro);
	rig_fini(&r);
}

/*
 * A range that runs from one DMA map into the next (a vIOMMU maps page by
 * page, each page somewhere else in guest memory) moves through both; one
 * that runs on into no map is a length error.
 */
static void across_maps(void)
{
	struct rig r;
	struct gmem g2;

	if (!rig(&r, "trn1"))
		return;
	CHECK_EQ(gmem_new(&g2, 3 * 4096), 0);
	/* IOVA 0x60000000 is g2's page 2, 0x60001000 its page 0: reversed */
	CHECK_EQ(dmamap_add(&r.d->dma, 0x60000000, 4096, 2 * 4096,
			    DMA_FLAG_READ | DMA_FLAG_WRITE, dup(g2.fd)), 0);
	CHECK_EQ(dmamap_add(&r.d->dma, 0x60001000, 4096, 0,
			    DMA_FLAG_READ | DMA_FLAG_WRITE, dup(g2.fd)), 0);
	setup_queue(&r, E32, 0, 32);
	fill(r.d->dram + DRAM0, 8192, 5);
	copy1(&r, E32, 0, DRAM0 + 0x100, r.hostbit | 0x60000100ull, 8192 - 0x200);
	CHECK_EQ(r.d->eng[E32].q[0].s[SIDE_S2M].err, QE_NONE);
	CHECK(!memcmp(g2.p + 2 * 4096 + 0x100, r.d->dram + DRAM0 + 0x100, 4096 - 0x100));
	CHECK(!memcmp(g2.p, r.d->dram + DRAM0 + 4096, 4096 - 0x100));
	/* and back, from both pages */
	copy1(&r, E32, 0, r.hostbit | 0x60000100ull, DRAM0 + 0x10000, 8192 - 0x200);
	CHECK_EQ(r.d->eng[E32].q[0].s[SIDE_M2S].err, QE_NONE);
	CHECK(!memcmp(r.d->dram + DRAM0 + 0x10000, r.d->dram + DRAM0 + 0x100, 8192 - 0x200));
	/* past the second map: nothing mapped there */
	copy1(&r, E32, 0, DRAM0, r.hostbit | 0x60001800ull, 4096);
	check_error(&r, E32, 0, SIDE_S2M, QE_LENGTH, 2);
	gmem_free(&g2);
	rig_fini(&r);
}

static void err_ring_config(void)
{
	static const uint32_t bad_len[] = { 0, 16, 33, 48 + 1, 0xFFFFF0 + 16 };
	struct rig r;

	if (!rig(&r, "trn1"))
		return;
	/* ring base not 256-byte aligned */
	setup_queue(&r, 1, 0, 32);
	ewr(&r, 1, QREG(0, 0, 0x28), (uint32_t)H(&r, TXRING + 0x40));
	post(&r, 1, 0, 1, 0);
	check_error(&r, 1, 0, SIDE_M2S, QE_CONFIG, 0);
	/* ring lengths out of range */
	for (unsigned i = 0; i < sizeof(bad_len) / sizeof(bad_len[0]); i++) {
		setup_queue(&r, 2 + i, 0, 32);
		ewr(&r, 2 + i, QREG(1, 0, 0x30), bad_len[i]);
		post(&r, 2 + i, 0, 0, 1);
		check_error(&r, 2 + i, 0, SIDE_S2M, QE_CONFIG, 0);
	}
	/* tail increment beyond the ring */
	setup_queue(&r, 9, 0, 32);
	post(&r, 9, 0, 33, 0);
	check_error(&r, 9, 0, SIDE_M2S, QE_OVERRUN, 5);
	setup_queue(&r, 10, 0, 32);
	post(&r, 10, 0, 0, 20);
	post(&r, 10, 0, 0, 13);
	check_error(&r, 10, 0, SIDE_S2M, QE_OVERRUN, 5);
	/* length shrunk below what is posted */
	setup_queue(&r, 11, 0, 64);
	post(&r, 11, 0, 0, 40);
	ewr(&r, 11, QREG(1, 0, 0x30), 32);
	post(&r, 11, 0, 0, 1);
	check_error(&r, 11, 0, SIDE_S2M, QE_CONFIG, 0);
	rig_fini(&r);
}

static void err_format_and_injection(void)
{
	struct rig r;
	char out[CTL_OUT_MAX];

	if (!rig(&r, "trn1"))
		return;
	setup_queue(&r, 1, 0, 32);
	tx_desc(&r, 16, false, true, H(&r, 0x100000));	/* no first-of-packet */
	rx_desc(&r, 16, DRAM0);
	post(&r, 1, 0, 1, 1);
	check_error(&r, 1, 0, SIDE_M2S, QE_FORMAT, 4);
	setup_queue(&r, 2, 0, 32);
	tx_desc(&r, 16, true, false, H(&r, 0x100000));
	tx_desc(&r, 16, true, true, H(&r, 0x100000));	/* first inside a packet */
	rx_desc(&r, 64, DRAM0);
	post(&r, 2, 0, 2, 1);
	check_error(&r, 2, 0, SIDE_M2S, QE_FORMAT, 4);
	/* desc-error through the control protocol */
	setup_queue(&r, 3, 0, 32);
	ctl_exec(r.d, "desc-error 3", out, sizeof(out));
	CHECK(!strcmp(out, "ok\n"));
	fill(G(&r, 0x100000), 16, 5);
	copy1(&r, 3, 0, H(&r, 0x100000), DRAM0, 16);
	check_error(&r, 3, 0, SIDE_M2S, QE_INJECTED, 3);
	CHECK_EQ(r.d->dram[DRAM0], 0);
	/* after a queue reset of both sides the engine runs again */
	setup_queue(&r, 3, 0, 32);
	CHECK_EQ(erd(&r, 3, 0x200), ST_NORMAL);
	copy1(&r, 3, 0, H(&r, 0x100000), DRAM0, 16);
	CHECK(!memcmp(r.d->dram + DRAM0, G(&r, 0x100000), 16));
	rig_fini(&r);
}

static void hang_pause_state(void)
{
	struct rig r;
	char out[CTL_OUT_MAX];

	if (!rig(&r, "trn1"))
		return;
	setup_queue(&r, E32, 0, 32);
	fill(G(&r, 0x100000), 64, 1);
	ctl_exec(r.d, "engine-hang 32", out, sizeof(out));
	copy1(&r, E32, 0, H(&r, 0x100000), DRAM0, 64);
	CHECK_EQ(r.d->dram[DRAM0], 0);
	CHECK_EQ(erd(&r, E32, QREG(0, 0, 0x34)), 1u << 30);
	CHECK_EQ(erd(&r, E32, 0x200), ST_NORMAL);		/* silent */
	ctl_exec(r.d, "engine-hang 32 off", out, sizeof(out));
	CHECK(!memcmp(r.d->dram + DRAM0, G(&r, 0x100000), 64));
	/* paused ring: nothing until enabled again */
	ewr(&r, E32, QREG(1, 0, 0x20), 0x03000000);
	copy1(&r, E32, 0, H(&r, 0x100000), DRAM0 + 0x100, 64);
	CHECK_EQ(r.d->dram[DRAM0 + 0x100], 0);
	ewr(&r, E32, QREG(1, 0, 0x20), 0x03030000);
	CHECK(!memcmp(r.d->dram + DRAM0 + 0x100, G(&r, 0x100000), 64));
	/* TX posted before RX: waits for RX */
	tx_desc(&r, 64, true, true, H(&r, 0x100000));
	post(&r, E32, 0, 1, 0);
	CHECK_EQ(erd(&r, E32, QREG(0, 0, 0x34)) & 0xFFFFFF, 2);
	rx_desc(&r, 64, DRAM0 + 0x200);
	post(&r, E32, 0, 0, 1);
	CHECK(!memcmp(r.d->dram + DRAM0 + 0x200, G(&r, 0x100000), 64));
	/* change-state: abort, then normal */
	ewr(&r, E32, 0x204, 4);
	CHECK_EQ(erd(&r, E32, 0x200), ST_ABORT);
	copy1(&r, E32, 0, H(&r, 0x100000), DRAM0 + 0x300, 64);
	CHECK_EQ(r.d->dram[DRAM0 + 0x300], 0);
	ewr(&r, E32, 0x204, 1);
	CHECK_EQ(erd(&r, E32, 0x200), ST_NORMAL);
	CHECK(!memcmp(r.d->dram + DRAM0 + 0x300, G(&r, 0x100000), 64));
	/* disable: idle state, no processing */
	ewr(&r, E32, 0x204, 2);
	CHECK_EQ(erd(&r, E32, 0x200), 0);
	ewr(&r, E32, 0x204, 1);
	rig_fini(&r);
}

static void marker_and_lost_completion(void)
{
	struct rig r;
	char out[CTL_OUT_MAX];

	if (!rig(&r, "trn1"))
		return;
	setup_queue(&r, E32, 0, 32);
	st32(G(&r, 0x500000), 0xABCDEF01);
	st32(G(&r, 0x500004), 0);
	copy1(&r, E32, 0, H(&r, 0x500000), H(&r, 0x500004), 4);
	CHECK_EQ(ld32(G(&r, 0x500004)), 0xABCDEF01);
	st32(G(&r, 0x500004), 0);
	ctl_exec(r.d, "lost-completion", out, sizeof(out));
	copy1(&r, E32, 0, H(&r, 0x500000), H(&r, 0x500004), 4);
	CHECK_EQ(ld32(G(&r, 0x500004)), 0);			/* dropped */
	CHECK_EQ(atomic_load(&r.d->st.markers_dropped), 1);
	CHECK_EQ(erd(&r, E32, QREG(1, 0, 0x34)) & 0xFFFFFF, 2);	/* yet consumed */
	copy1(&r, E32, 0, H(&r, 0x500000), H(&r, 0x500004), 4);
	CHECK_EQ(ld32(G(&r, 0x500004)), 0xABCDEF01);		/* one-shot */
	/* a 4-byte copy of something else is not a marker */
	ctl_exec(r.d, "lost-completion 1", out, sizeof(out));
	st32(G(&r, 0x500008), 0x12345678);
	copy1(&r, E32, 0, H(&r, 0x500008), H(&r, 0x50000C), 4);
	CHECK_EQ(ld32(G(&r, 0x50000C)), 0x12345678);
	rig_fini(&r);
}

static void trn2_engines(void)
{
	struct rig r;

	if (!rig(&r, "trn2"))
		return;
	/* host-copy engine 129, host bit 46, DRAM channel 2 at 0x8000_0000_0000 */
	setup_queue(&r, 129, 1, 32);
	fill(G(&r, 0x100000), 512, 7);
	copy1(&r, 129, 1, H(&r, 0x100000), 0x800000000000ull + 0x1000, 512);
	CHECK(!memcmp(r.d->dram + (128ull << 30) + 0x1000, G(&r, 0x100000), 512));
	/* channel 3 back to host through a SENG engine (id 100) */
	fill(r.d->dram + (192ull << 30), 256, 3);
	setup_queue(&r, 100, 15, 32);
	copy1(&r, 100, 15, 0x804000000000ull, H(&r, 0x200000), 256);
	CHECK(!memcmp(r.d->dram + (192ull << 30), G(&r, 0x200000), 256));
	/* the v2 window bit is not host memory on v3 */
	setup_queue(&r, 0, 0, 32);
	copy1(&r, 0, 0, (1ull << 44) | (GIOVA + 0x100000), 0x1000, 16);
	CHECK_EQ(r.d->eng[0].q[0].s[SIDE_M2S].err, QE_ADDR);
	CHECK_EQ(erd(&r, 131, 0x200), ST_NORMAL);
	rig_fini(&r);
}

static void async_worker(void)
{
	struct rig r;
	char out[CTL_OUT_MAX];
	uint64_t t0;

	if (rig_init(&r, "trn1", true)) {
		CHECK(!"rig");
		return;
	}
	setup_queue(&r, E32, 0, 64);
	fill(G(&r, 0x100000), 8 * 65536, 11);
	for (unsigned i = 0; i < 8; i++) {
		tx_desc(&r, 0, true, true, H(&r, 0x100000 + i * 65536ull));
		rx_desc(&r, 0, DRAM0 + i * 65536ull);
	}
	st32(G(&r, 0x500000), 0xABCDEF01);
	st32(G(&r, 0x500004), 0);
	tx_desc(&r, 4, true, true, H(&r, 0x500000));
	rx_desc(&r, 4, H(&r, 0x500004));
	post(&r, E32, 0, 9, 9);
	t0 = now_ms();
	while (ld32(G(&r, 0x500004)) != 0xABCDEF01 && now_ms() - t0 < 5000)
		sleep_us(100);
	CHECK_EQ(ld32(G(&r, 0x500004)), 0xABCDEF01);
	CHECK(!memcmp(r.d->dram + DRAM0, G(&r, 0x100000), 8 * 65536));
	/* slow engine: a packet every 20 ms */
	ctl_exec(r.d, "engine-slow 32 20000", out, sizeof(out));
	st32(G(&r, 0x500004), 0);
	t0 = now_ms();
	for (unsigned i = 0; i < 3; i++) {
		tx_desc(&r, 4, true, true, H(&r, 0x500000));
		rx_desc(&r, 4, H(&r, 0x500004));
	}
	post(&r, E32, 0, 3, 3);
	while ((erd(&r, E32, QREG(0, 0, 0x34)) & 0xFFFFFF) != 12 && now_ms() - t0 < 5000)
		sleep_us(1000);
	CHECK(now_ms() - t0 >= 40);
	CHECK_EQ(erd(&r, E32, QREG(0, 0, 0x34)) & 0xFFFFFF, 12);
	rig_fini(&r);
}

struct mapper {
	struct dmamap *m;
	int fd;
	atomic_bool stop;
	unsigned long rounds;
};

/* DMA_MAP and DMA_UNMAP of an unrelated page, as fast as they go. */
static void *mapper(void *arg)
{
	struct mapper *mp = arg;

	while (!atomic_load(&mp->stop)) {
		if (!dmamap_add(mp->m, 0x70000000, 4096, 0, DMA_FLAG_READ, dup(mp->fd)))
			dmamap_remove(mp->m, 0x70000000, 4096, false, NULL);
		mp->rounds++;
	}
	return NULL;
}

static void hang(int sig)
{
	static const char msg[] =
		"  FAIL: udma.maps_change_during_copies hung (walker and DMA_MAP deadlocked)\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

/*
 * Maps come and go (a vIOMMU's storm of page maps) while the worker moves
 * packets of sixteen descriptors: the walker reads descriptors under the map's
 * read lock it already holds, and must never take it twice (the lock
 * prefers writers: the second read lock would wait for the writer, which
 * waits for the first). A hang (an alarm after 60 s: the main thread
 * blocks too, on the engine's lock) is reported and ends the test program,
 * whose stuck threads cannot be cleaned up.
 */
static void maps_change_during_copies(void)
{
	struct rig r;
	struct gmem g2;
	struct mapper mp = { 0 };
	pthread_t t;
	uint32_t want = 0;

	if (rig_init(&r, "trn1", true)) {
		CHECK(!"rig");
		return;
	}
	CHECK_EQ(gmem_new(&g2, 4096), 0);
	mp.m = &r.d->dma;
	mp.fd = g2.fd;
	setup_queue(&r, E32, 0, 64);
	fill(G(&r, 0x100000), 16 * 256, 3);
	signal(SIGALRM, hang);
	alarm(60);
	CHECK_EQ(pthread_create(&t, NULL, mapper, &mp), 0);
	for (unsigned round = 0; round < 2000; round++) {
		for (unsigned i = 0; i < 16; i++) {
			tx_desc(&r, 256, i == 0, i == 15, H(&r, 0x100000 + i * 256ull));
			rx_desc(&r, 256, DRAM0 + i * 256ull);
		}
		post(&r, E32, 0, 16, 16);
		want += 16;
		while ((erd(&r, E32, QREG(0, 0, 0x34)) & 0xFFFFFF) != want % 64)
			sleep_us(50);
	}
	atomic_store(&mp.stop, true);
	pthread_join(t, NULL);
	alarm(0);
	signal(SIGALRM, SIG_DFL);
	CHECK(mp.rounds > 0);
	CHECK(!memcmp(r.d->dram + DRAM0, G(&r, 0x100000), 16 * 256));
	CHECK_EQ(erd(&r, E32, 0x200), ST_NORMAL);
	gmem_free(&g2);
	rig_fini(&r);
}

#define MISC1 0x30FA0000ull	/* trn1 misc RAM */

/*
 * `vanish on`: BAR0 reads all ones at every width, writes are lost and
 * counted, a copy pending on a hung engine and a new one never move, the
 * marker is not written, the firmware takes no doorbell, notify is refused,
 * config space is kept; `vanish off`: the state of a PCI reset (the pending
 * copy gone, the routing id ready), and a copy works again. Both the
 * inline engines and the worker thread.
 */
static void vanish_one(bool async)
{
	struct rig r;
	char out[CTL_OUT_MAX];
	uint8_t b8[8];
	uint16_t vendor = 0;
	uint64_t t0;

	if (rig_init(&r, "trn1", async)) {
		CHECK(!"rig");
		return;
	}
	setup_queue(&r, E32, 0, 32);
	fill(G(&r, 0x100000), 64, 3);
	st32(G(&r, 0x500000), 0xABCDEF01);
	st32(G(&r, 0x500004), 0);
	ctl_exec(r.d, "engine-hang 32", out, sizeof(out));
	copy1(&r, E32, 0, H(&r, 0x100000), DRAM0, 64);		/* held by the hang */
	copy1(&r, E32, 0, H(&r, 0x500000), H(&r, 0x500004), 4);	/* its marker */
	CHECK_EQ(erd(&r, E32, 0x200), ST_NORMAL);
	CHECK(ctl_exec(r.d, "vanish on", out, sizeof(out)) == false && !strcmp(out, "ok\n"));
	CHECK(atomic_load(&r.d->vanished));

	/* reads: all ones, every width; config space is untouched */
	CHECK_EQ(erd(&r, E32, 0x200), 0xFFFFFFFFu);
	CHECK_EQ(dev_bar0_read32(r.d, MISC1 + 0x024), 0xFFFFFFFFu);	/* routing id */
	CHECK_EQ(dev_bar0_read32(r.d, 0x3FFFFFF0), 0xFFFFFFFFu);	/* no block */
	for (uint32_t len = 1; len <= 8; len *= 2) {
		memset(b8, 0, sizeof(b8));
		CHECK_EQ(dev_region_rw(r.d, REG_BAR0, MISC1 + 0x38, b8, len, false), 0);
		for (uint32_t i = 0; i < len; i++)
			CHECK_EQ(b8[i], 0xFF);
	}
	CHECK_EQ(dev_region_rw(r.d, REG_CONFIG, 0, &vendor, 2, false), 0);
	CHECK_EQ(vendor, 0x1d0f);
	CHECK_EQ(atomic_load(&r.d->st.vanished_reads), 3 + 4);
	CHECK_EQ(atomic_load(&r.d->st.unknown_reads), 0);	/* not reached */

	/* writes: lost; the hang lifted, nothing moves; no firmware, no notify */
	ewr(&r, E32, 0x204, 4);					/* abort: lost */
	ctl_exec(r.d, "engine-hang 32 off", out, sizeof(out));
	copy1(&r, E32, 0, H(&r, 0x100000), DRAM0 + 0x100, 64);	/* doorbells lost */
	dev_bar0_write32(r.d, MISC1 + 0x800, 1);		/* mailbox doorbell */
	b8[0] = 1;
	CHECK_EQ(dev_region_rw(r.d, REG_BAR0, MISC1 + 0x1EC, b8, 1, true), 0);
	CHECK_EQ(atomic_load(&r.d->st.vanished_writes), 1 + 2 + 1 + 1);
	CHECK(!ctl_exec(r.d, "notify nc 0 16 1 2 3", out, sizeof(out)) && !strncmp(out, "err ", 4));
	t0 = now_ms();
	while (async && now_ms() - t0 < 200)
		sleep_us(1000);
	CHECK_EQ(r.d->dram[DRAM0], 0);
	CHECK_EQ(r.d->dram[DRAM0 + 0x100], 0);
	CHECK_EQ(ld32(G(&r, 0x500004)), 0);			/* no completion */
	CHECK_EQ(atomic_load(&r.d->st.packets), 0);
	CHECK_EQ(atomic_load(&r.d->st.mbox_req) + atomic_load(&r.d->st.mbox_ignored), 0);
	CHECK_EQ(atomic_load(&r.d->st.tpb_resets) + atomic_load(&r.d->st.dev_resets), 0);
	CHECK(ctl_exec(r.d, "stats", out, sizeof(out)) == false);
	CHECK(strstr(out, "vanished_writes 5\n") && strstr(out, "vanished 1\n"));

	/* back: the state of a PCI reset, config space as it was */
	CHECK(ctl_exec(r.d, "vanish off", out, sizeof(out)) == false && !strcmp(out, "ok\n"));
	CHECK(!atomic_load(&r.d->vanished));
	CHECK_EQ(dev_bar0_read32(r.d, MISC1 + 0x024), r.d->o.routing_id);	/* ready */
	CHECK_EQ(erd(&r, E32, 0x200), ST_NORMAL);
	CHECK_EQ(erd(&r, E32, QREG(0, 0, 0x20)), 0x03000000);	/* ring cfg at reset */
	CHECK_EQ(erd(&r, E32, QREG(0, 0, 0x34)), 1u << 30);	/* index 0, ring id 1 */
	CHECK_EQ(atomic_load(&r.d->st.packets), 0);		/* the held copy is gone */
	CHECK_EQ(r.d->dram[DRAM0], 0);
	CHECK_EQ(dev_region_rw(r.d, REG_CONFIG, 0, &vendor, 2, false), 0);
	CHECK_EQ(vendor, 0x1d0f);
	CHECK(atomic_load(&r.d->bus_master));			/* config space kept */
	setup_queue(&r, E32, 0, 32);
	copy1(&r, E32, 0, H(&r, 0x100000), DRAM0 + 0x200, 64);
	copy1(&r, E32, 0, H(&r, 0x500000), H(&r, 0x500004), 4);
	t0 = now_ms();
	while (ld32(G(&r, 0x500004)) != 0xABCDEF01 && now_ms() - t0 < 5000)
		sleep_us(100);
	CHECK_EQ(ld32(G(&r, 0x500004)), 0xABCDEF01);
	CHECK(!memcmp(r.d->dram + DRAM0 + 0x200, G(&r, 0x100000), 64));
	/* off twice is no second reset */
	CHECK(ctl_exec(r.d, "vanish off", out, sizeof(out)) == false && !strcmp(out, "ok\n"));
	CHECK_EQ(erd(&r, E32, QREG(0, 0, 0x34)) & 0xFFFFFF, 2);
	rig_fini(&r);
}

static void vanish(void)
{
	vanish_one(false);
	vanish_one(true);
}

const struct test udma_tests[] = {
	{ "udma.host_to_dram", host_to_dram },
	{ "udma.dram_to_host", dram_to_host },
	{ "udma.length0_is_64k", len0_64k },
	{ "udma.multi_descriptor_packet", multi_desc_packet },
	{ "udma.ring_wrap_ring_id", ring_wrap },
	{ "udma.error_ring_id", err_ring_id },
	{ "udma.error_addresses", err_addresses },
	{ "udma.error_permissions", err_permissions },
	{ "udma.across_dma_maps", across_maps },
	{ "udma.error_ring_config", err_ring_config },
	{ "udma.error_format_injection", err_format_and_injection },
	{ "udma.hang_pause_state", hang_pause_state },
	{ "udma.marker_lost_completion", marker_and_lost_completion },
	{ "udma.trn2_engines", trn2_engines },
	{ "udma.async_worker", async_worker },
	{ "udma.maps_change_during_copies", maps_change_during_copies },
	{ "udma.vanish", vanish },
	{ NULL, NULL },
};
