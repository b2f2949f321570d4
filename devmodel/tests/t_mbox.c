// SPDX-License-Identifier: GPL-2.0
/* The firmware mailbox: request checks, CRC-32C, commands, status codes. */
#include <string.h>

#include "crc32c.h"
#include "ctl.h"
#include "rig.h"
#include "test.h"
#include "util.h"

#define MISC1 0x30FA0000ull
#define MISC_DEV 0x0FFFF0FA0000ull	/* device address of trn1 misc RAM */
#define REQ 0x700000
#define RESP 0x710000

static void setup(struct rig *r)
{
	dev_bar0_write32(r->d, MISC1 + 0x1F0, (uint32_t)(H(r, REQ) >> 32));
	dev_bar0_write32(r->d, MISC1 + 0x1F4, (uint32_t)H(r, REQ));
	dev_bar0_write32(r->d, MISC1 + 0x1F8, (uint32_t)(H(r, RESP) >> 32));
	dev_bar0_write32(r->d, MISC1 + 0x1FC, (uint32_t)H(r, RESP));
}

/* Build a request in guest memory; returns its size. */
static uint16_t request(struct rig *r, uint8_t seq, uint8_t cmd, const uint64_t *addrs, unsigned n)
{
	uint8_t *p = G(r, REQ);
	uint16_t size = (uint16_t)(8 + 8 * n);

	p[0] = seq;
	p[1] = cmd;
	st16(p + 2, size);
	st32(p + 4, 0);
	for (unsigned i = 0; i < n; i++)
		st64(p + 8 + 8 * i, addrs[i]);
	st32(p + 4, crc32c(0, p, size));
	G(r, RESP)[0] = 0;
	return size;
}

static void ring(struct rig *r)
{
	dev_bar0_write32(r->d, MISC1 + 0x800, 1);
}

static void read_registers(void)
{
	struct rig r;
	uint64_t a[3] = { MISC_DEV + 0x38, MISC_DEV + 0x3C, MISC_DEV + 0x40 };
	char out[CTL_OUT_MAX];
	uint8_t *resp;

	if (rig_init(&r, "trn1", false)) {
		CHECK(!"rig");
		return;
	}
	resp = G(&r, RESP);
	setup(&r);
	ctl_exec(r.d, "ecc 0 0x00030002", out, sizeof(out));
	request(&r, 7, 1, a, 3);
	ring(&r);
	CHECK_EQ(resp[0], 7);
	CHECK_EQ(resp[1], 0);
	CHECK_EQ(ld16(resp + 2), 16);
	CHECK_EQ(ld32(resp + 4), 0x55667788);
	CHECK_EQ(ld32(resp + 8), 0x11223344);
	CHECK_EQ(ld32(resp + 12), 0x00030002);
	CHECK_EQ(atomic_load(&r.d->st.mbox_req), 1);
	/* any register of the APB window: an engine's ring cfg */
	a[0] = 0x0FFFF0000000ull + 0x600000 + 0x1000 + 0x20;
	request(&r, 8, 1, a, 1);
	ring(&r);
	CHECK_EQ(resp[0], 8);
	CHECK_EQ(ld32(resp + 4), 0x03000000);
	rig_fini(&r);
}

static void bad_requests(void)
{
	struct rig r;
	uint64_t a[1] = { MISC_DEV + 0x38 };
	char out[CTL_OUT_MAX];
	uint8_t *resp, *req;

	if (rig_init(&r, "trn1", false)) {
		CHECK(!"rig");
		return;
	}
	resp = G(&r, RESP);
	req = G(&r, REQ);
	setup(&r);
	/* CRC mismatch: failed */
	request(&r, 9, 1, a, 1);
	req[8] ^= 1;
	ring(&r);
	CHECK_EQ(resp[0], 9);
	CHECK_EQ(resp[1], 1);
	CHECK_EQ(ld16(resp + 2), 4);
	/* unknown command: 2 */
	request(&r, 10, 0x55, a, 1);
	ring(&r);
	CHECK_EQ(resp[0], 10);
	CHECK_EQ(resp[1], 2);
	/* post metrics: accepted */
	request(&r, 11, 2, a, 1);
	ring(&r);
	CHECK_EQ(resp[0], 11);
	CHECK_EQ(resp[1], 0);
	/* read of an address that is no register: failed */
	a[0] = 0x123;
	request(&r, 12, 1, a, 1);
	ring(&r);
	CHECK_EQ(resp[0], 12);
	CHECK_EQ(resp[1], 1);
	/* read with a payload that is not whole u64s: failed */
	request(&r, 13, 1, a, 1);
	st16(req + 2, 12);
	st32(req + 4, 0);
	st32(req + 4, crc32c(0, req, 12));
	ring(&r);
	CHECK_EQ(resp[1], 1);
	/* size below the header: failed */
	request(&r, 14, 1, a, 0);
	st16(req + 2, 4);
	ring(&r);
	CHECK_EQ(resp[0], 14);
	CHECK_EQ(resp[1], 1);
	/* sequence 0: no answer at all */
	request(&r, 0, 1, a, 1);
	resp[1] = 0xEE;
	ring(&r);
	CHECK_EQ(resp[0], 0);
	CHECK_EQ(resp[1], 0xEE);
	/* silent firmware */
	ctl_exec(r.d, "mailbox-silent on", out, sizeof(out));
	request(&r, 15, 1, a, 1);
	ring(&r);
	CHECK_EQ(resp[0], 0);
	ctl_exec(r.d, "mailbox-silent off", out, sizeof(out));
	ring(&r);
	CHECK_EQ(resp[0], 15);
	/* buffers without the host window bit, or unmapped: no answer */
	request(&r, 16, 1, a, 1);
	dev_bar0_write32(r.d, MISC1 + 0x1F0, 0);
	ring(&r);
	CHECK_EQ(resp[0], 0);
	setup(&r);
	dev_bar0_write32(r.d, MISC1 + 0x1FC, 0x90000000u);
	ring(&r);
	CHECK_EQ(resp[0], 0);
	CHECK(atomic_load(&r.d->st.mbox_bad) >= 3);
	rig_fini(&r);
}

const struct test mbox_tests[] = {
	{ "mailbox.read_registers", read_registers },
	{ "mailbox.bad_requests", bad_requests },
	{ NULL, NULL },
};
