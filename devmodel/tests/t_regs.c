// SPDX-License-Identifier: GPL-2.0
/* The BAR0 register file: misc RAM, readiness, semaphores, notification
 * blocks, unknown offsets, engine reset values, TPB/device reset. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "rig.h"
#include "test.h"
#include "util.h"

#define MISC1 0x30FA0000ull
#define MISC2 0x06C84000ull

static uint32_t rd(struct dev *d, uint64_t off)
{
	return dev_bar0_read32(d, off);
}

static void wr(struct dev *d, uint64_t off, uint32_t v)
{
	dev_bar0_write32(d, off, v);
}

static void misc_identity(void)
{
	struct dev *d = t_dev("trn1", false);
	struct dev *d2 = t_dev("trn2", false);

	CHECK_EQ(rd(d, MISC1 + 0x000), 7);
	CHECK_EQ(rd(d, MISC1 + 0x024), 5);
	CHECK_EQ(rd(d, MISC1 + 0x038), 0x55667788);
	CHECK_EQ(rd(d, MISC1 + 0x03C), 0x11223344);
	wr(d, MISC1 + 0x038, 0);			/* read-only */
	wr(d, MISC1 + 0x024, 0);
	wr(d, MISC1 + 0x040, 9);
	CHECK_EQ(rd(d, MISC1 + 0x038), 0x55667788);
	CHECK_EQ(rd(d, MISC1 + 0x024), 5);
	CHECK_EQ(rd(d, MISC1 + 0x040), 0);
	wr(d, MISC1 + 0x1F0, 0xAB);			/* storage */
	CHECK_EQ(rd(d, MISC1 + 0x1F0), 0xAB);
	CHECK_EQ(rd(d2, MISC2 + 0x024), 5);		/* v3 misc RAM */
	CHECK_EQ(rd(d2, MISC2 + 0x03C), 0x11223344);
	dev_destroy(d);
	dev_destroy(d2);
}

static void readiness(void)
{
	struct dev_opts o = { .pers = "trn1", .sync = true, .not_ready_ms = 150, .routing_id = 3 };
	struct dev *d = dev_create(&o);
	char out[CTL_OUT_MAX];
	uint64_t t0 = now_ms();

	CHECK_EQ(rd(d, MISC1 + 0x024), 0xDEADBEEF);
	while (rd(d, MISC1 + 0x024) == 0xDEADBEEF && now_ms() - t0 < 3000)
		sleep_us(5000);
	CHECK(now_ms() - t0 >= 140);
	CHECK_EQ(rd(d, MISC1 + 0x024), 3);
	ctl_exec(d, "not-ready forever", out, sizeof(out));
	CHECK(!strcmp(out, "ok\n"));
	CHECK_EQ(rd(d, MISC1 + 0x024), 0xDEADBEEF);
	/* the firmware ignores doorbells while not ready */
	wr(d, MISC1 + 0x1EC, 1);
	wr(d, MISC1 + 0x800, 1);
	CHECK_EQ(rd(d, MISC1 + 0x1EC), 1);
	CHECK_EQ(atomic_load(&d->st.mbox_ignored), 1);
	ctl_exec(d, "not-ready 0", out, sizeof(out));
	CHECK_EQ(rd(d, MISC1 + 0x024), 3);
	/* a PCI reset (VFIO_USER_DEVICE_RESET) starts the window again */
	t0 = now_ms();
	dev_pci_reset(d);
	CHECK_EQ(rd(d, MISC1 + 0x024), 0xDEADBEEF);
	while (rd(d, MISC1 + 0x024) == 0xDEADBEEF && now_ms() - t0 < 3000)
		sleep_us(5000);
	CHECK(now_ms() - t0 >= 140);
	CHECK_EQ(rd(d, MISC1 + 0x024), 3);
	dev_destroy(d);
	o.not_ready_ms = -1;
	d = dev_create(&o);
	CHECK_EQ(rd(d, MISC1 + 0x024), 0xDEADBEEF);
	ctl_exec(d, "not-ready 0", out, sizeof(out));
	CHECK_EQ(rd(d, MISC1 + 0x024), 3);
	/* never ready again after a PCI reset */
	dev_pci_reset(d);
	sleep_us(20000);
	CHECK_EQ(rd(d, MISC1 + 0x024), 0xDEADBEEF);
	dev_destroy(d);
	/* without the option, a PCI reset leaves the device ready */
	o.not_ready_ms = 0;
	d = dev_create(&o);
	dev_pci_reset(d);
	CHECK_EQ(rd(d, MISC1 + 0x024), 3);
	dev_destroy(d);
}

static void semaphores_events(void)
{
	struct dev *d = t_dev("trn1", false), *d2 = t_dev("trn2", false);
	uint64_t s1 = 0x04000000ull + 0x2700000;	/* NC 1 of trn1 */
	uint64_t s7 = 0xD0000000ull + 7 * 0x04000000ull + 0x2700000;	/* NC 7 of trn2 */

	wr(d, s1 + 0x1400 + 4 * 10, 5);
	wr(d, s1 + 0x1800 + 4 * 10, 3);
	CHECK_EQ(rd(d, s1 + 0x1000 + 4 * 10), 8);
	wr(d, s1 + 0x1C00 + 4 * 10, 10);
	CHECK_EQ(rd(d, s1 + 0x1000 + 4 * 10), (uint32_t)-2);
	CHECK_EQ(rd(d, s1 + 0x1800 + 4 * 10), (uint32_t)-2);	/* all pages read the value */
	wr(d, s1 + 0x1000 + 4 * 10, 99);			/* read page: ignored */
	CHECK_EQ(rd(d, s1 + 0x1000 + 4 * 10), (uint32_t)-2);
	CHECK_EQ(rd(d, s1 + 0x1000 + 4 * 11), 0);
	CHECK_EQ(rd(d, 0x2700000 + 0x1000 + 4 * 10), 0);	/* NC 0 is another block */
	wr(d, s1 + 4 * 255, 1);
	CHECK_EQ(rd(d, s1 + 4 * 255), 1);
	wr(d, s1 + 4 * 255, 0);
	CHECK_EQ(rd(d, s1 + 4 * 255), 0);
	wr(d, s1 + 0x400, 1);					/* event 256: not modelled */
	CHECK_EQ(rd(d, s1 + 0x400), 0);
	wr(d2, s7 + 0x1400, 42);
	CHECK_EQ(rd(d2, s7 + 0x1000), 42);
	dev_destroy(d);
	dev_destroy(d2);
}

static void notification_slots(void)
{
	struct rig r;
	char out[CTL_OUT_MAX];
	uint64_t nq = 0x30535000ull, host;

	if (rig_init(&r, "trn1", false)) {
		CHECK(!"rig");
		return;
	}
	host = H(&r, 0x600000);
	/* slot 3: hi, lo, size (the documented order) */
	wr(r.d, nq + 0x100 + 3 * 0x28 + 4, (uint32_t)(host >> 32));
	wr(r.d, nq + 0x100 + 3 * 0x28 + 0, (uint32_t)host);
	wr(r.d, nq + 0x100 + 3 * 0x28 + 8, 4096);
	CHECK(r.d->nq[0].slot[3].valid);
	CHECK_EQ(rd(r.d, nq + 0x100 + 3 * 0x28 + 8), 4096);
	ctl_exec(r.d, "notify nc 0 3 1 0xC0DE 0x1234", out, sizeof(out));
	CHECK(!strcmp(out, "ok\n"));
	ctl_exec(r.d, "notify nc 0 3 2 7 8", out, sizeof(out));
	CHECK_EQ(ld32(G(&r, 0x600000)), 0);			/* seq */
	CHECK_EQ(ld16(G(&r, 0x600004)), 1);			/* type */
	CHECK_EQ(ld16(G(&r, 0x600006)), 0);			/* nc */
	CHECK_EQ(ld32(G(&r, 0x600008)), 0xC0DE);
	CHECK_EQ(ld32(G(&r, 0x60000C)), 0x1234);
	CHECK_EQ(ld32(G(&r, 0x600010)), 1);
	CHECK_EQ(ld32(G(&r, 0x600018)), 7);
	/* invalid: not a power of two, unmapped, DRAM misaligned; valid DRAM */
	wr(r.d, nq + 0x100 + 4 * 0x28 + 8, 3000);
	CHECK(!r.d->nq[0].slot[4].valid);
	ctl_exec(r.d, "notify nc 0 4 1 1 1", out, sizeof(out));
	CHECK(!strncmp(out, "err", 3));
	wr(r.d, nq + 0x100 + 5 * 0x28 + 4, (uint32_t)((r.hostbit | 0x90000000ull) >> 32));
	wr(r.d, nq + 0x100 + 5 * 0x28 + 8, 4096);
	CHECK(!r.d->nq[0].slot[5].valid);
	wr(r.d, nq + 0x100 + 6 * 0x28 + 0, 0x1000800);
	wr(r.d, nq + 0x100 + 6 * 0x28 + 8, 4096);
	CHECK(!r.d->nq[0].slot[6].valid);
	wr(r.d, nq + 0x100 + 6 * 0x28 + 0, 0x1001000);
	wr(r.d, nq + 0x100 + 6 * 0x28 + 8, 4096);
	CHECK(r.d->nq[0].slot[6].valid);
	ctl_exec(r.d, "notify nc 0 6 3 5 6", out, sizeof(out));
	CHECK_EQ(ld32(r.d->dram + 0x1001008), 5);
	/* disable */
	wr(r.d, nq + 0x100 + 3 * 0x28 + 8, 0);
	CHECK(!r.d->nq[0].slot[3].valid);
	/* NQ blocks of TopSP 5 and of the SDMA engine 20 exist */
	wr(r.d, 0x30E04000ull + 5 * 0x40000 + 0x100, 0x77);
	CHECK_EQ(rd(r.d, 0x30E04000ull + 5 * 0x40000 + 0x100), 0x77);
	wr(r.d, 0x30B00000ull + 4 * 0x7000 + 0x1000 + 0x108, 0);
	wr(r.d, 0x30B00000ull + 4 * 0x7000 + 0x100, 0x66);
	CHECK_EQ(rd(r.d, 0x30B00000ull + 4 * 0x7000 + 0x100), 0x66);	/* wrapper, not NQ */
	CHECK_EQ(rd(r.d, 0x30B00000ull + 4 * 0x7000 + 0x1100), 0);
	ctl_exec(r.d, "nq nc 0 6", out, sizeof(out));
	CHECK(strstr(out, "valid"));
	/*
	 * Host memory in two adjacent DMA maps (a vIOMMU's client maps a range
	 * in pieces) is one range; with a hole after the first map it is not.
	 */
	CHECK_EQ(dmamap_add(&r.d->dma, GIOVA + GSIZE, 0x1000, 0x700000,
			    DMA_FLAG_READ | DMA_FLAG_WRITE, dup(r.g.fd)), 0);
	CHECK_EQ(dmamap_add(&r.d->dma, GIOVA + GSIZE + 0x1000, 0x1000, 0x701000,
			    DMA_FLAG_READ | DMA_FLAG_WRITE, dup(r.g.fd)), 0);
	host = r.hostbit | (GIOVA + GSIZE);
	wr(r.d, nq + 0x100 + 7 * 0x28 + 4, (uint32_t)(host >> 32));
	wr(r.d, nq + 0x100 + 7 * 0x28 + 0, (uint32_t)host);
	wr(r.d, nq + 0x100 + 7 * 0x28 + 8, 0x2000);
	CHECK(r.d->nq[0].slot[7].valid);
	wr(r.d, nq + 0x100 + 7 * 0x28 + 8, 0x4000);
	CHECK(!r.d->nq[0].slot[7].valid);
	rig_fini(&r);
}

static void unknown_and_widths(void)
{
	struct dev *d = t_dev("trn1", false);
	uint8_t b[8];
	uint32_t v = 0x11223344;

	CHECK_EQ(rd(d, 0x20000000), 0);			/* a hole of the map */
	wr(d, 0x20000000, 5);
	CHECK_EQ(rd(d, 0x20000000), 0);
	CHECK_EQ(atomic_load(&d->st.unknown_writes), 1);
	CHECK_EQ(rd(d, 0x2600000), 0);				/* state buffer: not modelled */
	/* 8-byte, 2-byte and 1-byte accesses of the SDMA wrapper storage */
	st64(b, 0x8877665544332211ull);
	CHECK_EQ(dev_region_rw(d, REG_BAR0, 0x30400000, b, 8, true), 0);
	CHECK_EQ(rd(d, 0x30400000), 0x44332211);
	CHECK_EQ(rd(d, 0x30400004), 0x88776655);
	CHECK_EQ(dev_region_rw(d, REG_BAR0, 0x30400002, b, 2, false), 0);
	CHECK_EQ(ld16(b), 0x4433);
	b[0] = 0xEE;
	CHECK_EQ(dev_region_rw(d, REG_BAR0, 0x30400001, b, 1, true), 0);
	CHECK_EQ(rd(d, 0x30400000), 0x4433EE11);
	CHECK_EQ(dev_region_rw(d, REG_BAR0, 0x30400002, b, 4, false), -22);
	CHECK_EQ(dev_region_rw(d, REG_BAR0, (1ull << 30) - 4, &v, 4, true), 0);
	CHECK_EQ(dev_region_rw(d, REG_BAR0, (1ull << 30), &v, 4, true), -22);
	dev_destroy(d);
}

static void engine_reset_values(void)
{
	struct dev *d = t_dev("trn1", false), *d2 = t_dev("trn2", false);
	uint64_t e33 = 0x30D00000ull, e127 = 0xB4000000ull + 31 * 0x100000ull;

	CHECK_EQ(rd(d, e33 + 0x1000 + 0x20), 0x03000000);	/* M2S q0 ring cfg */
	CHECK_EQ(rd(d, e33 + 0x21000 + 15 * 0x1000 + 0x20), 0x03000000);
	CHECK_EQ(rd(d, e33 + 0x310), 0x01000000);
	CHECK_EQ(rd(d, e33 + 0x1000 + 0x74), 7);
	CHECK_EQ(rd(d, e33 + 0x1000 + 0x34), 1u << 30);
	CHECK_EQ(rd(d, e33 + 0x200), 0x1111);
	CHECK_EQ(rd(d, e33 + 0x20200), 0x1111);
	wr(d, e33 + 0x3A000 + 0x8, 0x30);			/* cause-set */
	CHECK_EQ(rd(d, e33 + 0x3A000), 0x30);
	wr(d, e33 + 0x3A000 + 0x10, 0xFF);			/* mask */
	wr(d, e33 + 0x3A000 + 0x18, 0x0F);			/* mask-clear: write 0 clears */
	CHECK_EQ(rd(d, e33 + 0x3A000 + 0x10), 0x0F);
	CHECK_EQ(rd(d, e33 + 0x380C0) & 0x700, 0x100);
	CHECK_EQ(rd(d2, e127 + 0x20200), 0x1111);
	CHECK_EQ(rd(d2, 0x46900000ull + 0x1000 + 0x20), 0x03000000);	/* engine 131 */
	CHECK_EQ(rd(d2, 0x82000000ull + 0x40000 + 0x800), 0);		/* SDMA misc */
	dev_destroy(d);
	dev_destroy(d2);
}

static void tpb_reset(void)
{
	struct rig r;
	char out[CTL_OUT_MAX];
	uint64_t t0;

	if (rig_init(&r, "trn1", false)) {
		CHECK(!"rig");
		return;
	}
	setup_queue(&r, 3, 0, 32);	/* NC 0 */
	setup_queue(&r, 20, 0, 32);	/* NC 1 */
	setup_queue(&r, 32, 0, 32);	/* NC 0 host copy */
	wr(r.d, 0x2700000 + 0x1400, 11);
	wr(r.d, 0x6700000 + 0x1400, 12);
	wr(r.d, 0x30535000ull + 0x108, 0);
	wr(r.d, 0x30535000ull + 0x200, 0x99);
	/* delayed */
	ctl_exec(r.d, "reset-delay 100", out, sizeof(out));
	wr(r.d, MISC1 + 0x1D8, 0x701);
	wr(r.d, MISC1 + 0x1EC, 2);
	wr(r.d, MISC1 + 0x800, 1);
	CHECK_EQ(rd(r.d, MISC1 + 0x1EC), 2);
	CHECK_EQ(rd(r.d, MISC1 + 0x808) & 8, 0);
	t0 = now_ms();
	while (rd(r.d, MISC1 + 0x1EC) && now_ms() - t0 < 3000)
		sleep_us(5000);
	CHECK(now_ms() - t0 >= 90);
	CHECK_EQ(rd(r.d, MISC1 + 0x1EC), 0);
	CHECK_EQ(rd(r.d, MISC1 + 0x808) & 8, 8);		/* in progress */
	CHECK_EQ(erd(&r, 3, QREG(0, 0, 0x28)), 0);		/* NC 0 engines reset */
	CHECK_EQ(erd(&r, 32, QREG(0, 0, 0x30)), 0);
	CHECK_EQ(erd(&r, 3, QREG(0, 0, 0x20)), 0x03000000);
	CHECK_EQ(erd(&r, 20, QREG(0, 0, 0x30)), 32);		/* NC 1 untouched */
	CHECK_EQ(rd(r.d, 0x2700000 + 0x1000), 0);
	CHECK_EQ(rd(r.d, 0x6700000 + 0x1000), 12);
	CHECK_EQ(rd(r.d, 0x30535000ull + 0x200), 0);
	CHECK_EQ(atomic_load(&r.d->st.tpb_resets), 1);
	CHECK_EQ(atomic_load(&r.d->st.last_tpb_map), 0x701);
	t0 = now_ms();
	while ((rd(r.d, MISC1 + 0x808) & 8) && now_ms() - t0 < 3000)
		sleep_us(5000);
	CHECK_EQ(rd(r.d, MISC1 + 0x808) & 8, 0);
	/* refused: the request stays */
	ctl_exec(r.d, "reset-delay 0", out, sizeof(out));
	ctl_exec(r.d, "reset-refuse on", out, sizeof(out));
	wr(r.d, MISC1 + 0x1EC, 1);
	wr(r.d, MISC1 + 0x800, 1);
	CHECK_EQ(rd(r.d, MISC1 + 0x1EC), 1);
	CHECK_EQ(atomic_load(&r.d->st.resets_refused), 1);
	ctl_exec(r.d, "reset-refuse off", out, sizeof(out));
	/* device reset: everything */
	wr(r.d, MISC1 + 0x800, 1);
	CHECK_EQ(rd(r.d, MISC1 + 0x1EC), 0);
	CHECK_EQ(erd(&r, 20, QREG(0, 0, 0x30)), 0);
	CHECK_EQ(rd(r.d, 0x6700000 + 0x1000), 0);
	CHECK_EQ(atomic_load(&r.d->st.dev_resets), 1);
	CHECK_EQ(rd(r.d, MISC1 + 0x024), 5);			/* still ready */
	rig_fini(&r);
}

static void tpb_reset_v3(void)
{
	struct dev *d = t_dev("trn2", false);
	uint64_t m = MISC2, e0 = 0x82000000ull, e16 = 0x82000000ull + 16 * 0x100000ull;
	uint64_t e128 = 0x06800000ull;

	wr(d, e0 + 0x1000 + 0x30, 64);
	wr(d, e16 + 0x1000 + 0x30, 64);
	wr(d, e128 + 0x1000 + 0x30, 64);
	wr(d, 0xD0000000ull + 0x2700000 + 0x1400, 1);
	wr(d, m + 0x1D8, 0x00010101);				/* NC 0 */
	wr(d, m + 0x1EC, 2);
	wr(d, m + 0x800, 1);
	CHECK_EQ(rd(d, m + 0x1EC), 0);
	CHECK_EQ(rd(d, e0 + 0x1000 + 0x30), 0);
	CHECK_EQ(rd(d, e16 + 0x1000 + 0x30), 64);
	CHECK_EQ(rd(d, e128 + 0x1000 + 0x30), 64);		/* needs NC 0 and 1 */
	CHECK_EQ(rd(d, 0xD0000000ull + 0x2700000 + 0x1000), 0);
	wr(d, m + 0x1D8, 0x00030303);				/* NC 0 and 1 */
	wr(d, m + 0x1EC, 2);
	wr(d, m + 0x800, 1);
	CHECK_EQ(rd(d, e16 + 0x1000 + 0x30), 0);
	CHECK_EQ(rd(d, e128 + 0x1000 + 0x30), 0);
	dev_destroy(d);
}

/* A v3 TPB reset request of @map: the map, the request, the doorbell. */
static void tpb_request(struct dev *d, uint32_t map)
{
	wr(d, MISC2 + 0x1D8, map);
	wr(d, MISC2 + 0x1EC, 2);
	wr(d, MISC2 + 0x800, 1);
}

/* The counters a driver's coalescing is checked with: requests rung, TPB
 * resets taken, the NCs they reset; an engine's resets and the set-up
 * writes since its last one (engine-status). */
static void reset_counters_v3(void)
{
	struct dev *d = t_dev("trn2", false);
	uint64_t m = MISC2, e128 = 0x06800000ull;
	char out[CTL_OUT_MAX];
	uint64_t t0;

	wr(d, e128 + 0x310, 0x1234);				/* engine level */
	wr(d, e128 + 0x1000 + 0x30, 64);			/* a queue's: not counted */
	ctl_exec(d, "engine-status 128", out, sizeof(out));
	CHECK(strstr(out, " fw_resets 0 setup_writes 1\n"));
	/* NC 0 alone: the shared engine is kept */
	tpb_request(d, 0x00010101);
	CHECK_EQ(rd(d, m + 0x1EC), 0);
	ctl_exec(d, "engine-status 128", out, sizeof(out));
	CHECK(strstr(out, " fw_resets 0 setup_writes 1\n"));
	CHECK_EQ(atomic_load(&d->st.reset_requests), 1);
	CHECK_EQ(atomic_load(&d->st.tpb_resets), 1);
	CHECK_EQ(atomic_load(&d->st.tpb_reset_ncs), 1);
	/* NC 1 then NC 2 rung while NC 1's is pending: one reset of both */
	ctl_exec(d, "reset-delay 100", out, sizeof(out));
	tpb_request(d, 0x00020202);
	tpb_request(d, 0x00040404);
	t0 = now_ms();
	while (rd(d, m + 0x1EC) && now_ms() - t0 < 3000)
		sleep_us(5000);
	CHECK_EQ(rd(d, m + 0x1EC), 0);
	CHECK_EQ(atomic_load(&d->st.reset_requests), 3);
	CHECK_EQ(atomic_load(&d->st.tpb_resets), 2);
	CHECK_EQ(atomic_load(&d->st.tpb_reset_ncs), 3);
	CHECK_EQ(atomic_load(&d->st.last_tpb_map), 0x00060606);
	ctl_exec(d, "engine-status 128", out, sizeof(out));
	CHECK(strstr(out, " fw_resets 0 setup_writes 1\n"));	/* NC 0 not in it */
	/* NC 0 and 1 in one map: the shared engine is reset, its set-up gone */
	ctl_exec(d, "reset-delay 0", out, sizeof(out));
	tpb_request(d, 0x00030303);
	CHECK_EQ(rd(d, m + 0x1EC), 0);
	ctl_exec(d, "engine-status 128", out, sizeof(out));
	CHECK(strstr(out, " fw_resets 1 setup_writes 0\n"));
	CHECK_EQ(rd(d, e128 + 0x310), 0x01000000);
	CHECK_EQ(atomic_load(&d->st.tpb_reset_ncs), 5);
	ctl_exec(d, "stats", out, sizeof(out));
	CHECK(strstr(out, "reset_requests 4\n") && strstr(out, "tpb_reset_ncs 5\n"));
	/* a device reset resets it too; refused requests are counted */
	ctl_exec(d, "reset-refuse on", out, sizeof(out));
	wr(d, m + 0x1EC, 1);
	wr(d, m + 0x800, 1);
	CHECK_EQ(atomic_load(&d->st.reset_requests), 5);
	ctl_exec(d, "reset-refuse off", out, sizeof(out));
	wr(d, m + 0x800, 1);
	CHECK_EQ(rd(d, m + 0x1EC), 0);
	CHECK_EQ(atomic_load(&d->st.reset_requests), 6);
	CHECK_EQ(atomic_load(&d->st.tpb_resets), 3);
	ctl_exec(d, "engine-status 128", out, sizeof(out));
	CHECK(strstr(out, " fw_resets 2 setup_writes 0\n"));
	dev_destroy(d);
}

const struct test regs_tests[] = {
	{ "regs.misc_identity", misc_identity },
	{ "regs.readiness", readiness },
	{ "regs.semaphores_events", semaphores_events },
	{ "regs.notification_slots", notification_slots },
	{ "regs.unknown_offsets_widths", unknown_and_widths },
	{ "regs.engine_reset_values", engine_reset_values },
	{ "regs.tpb_and_device_reset", tpb_reset },
	{ "regs.tpb_reset_v3", tpb_reset_v3 },
	{ "regs.reset_counters_v3", reset_counters_v3 },
	{ NULL, NULL },
};
