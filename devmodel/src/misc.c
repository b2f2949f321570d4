// SPDX-License-Identifier: GPL-2.0
/*
 * Misc RAM: identity registers, readiness (routing id), the firmware
 * mailbox and the reset protocol. Everything runs with dev->lock held, in
 * the thread that made the BAR0 access: timed behaviour (not-ready window,
 * reset delay, reset in progress) is kept as time stamps that every BAR0
 * access first brings up to date (fw_poll).
 */
#include <stdlib.h>

#include "crc32c.h"
#include "dev.h"
#include "util.h"

#define M_API_VERSION 0x000
#define M_ROUTING_ID 0x024
#define M_SERIAL_LO 0x038
#define M_SERIAL_HI 0x03C
#define M_ECC_FIRST 0x040
#define M_ECC_LAST 0x050
#define M_TPB_MAP 0x1D8
#define M_RESET 0x1EC
#define M_REQ_HI 0x1F0
#define M_REQ_LO 0x1F4
#define M_RESP_HI 0x1F8
#define M_RESP_LO 0x1FC
#define M_DOORBELL 0x800
#define M_FW_STATUS 0x808

#define NOT_READY 0xDEADBEEFu
#define FW_STATUS_RESET_BUSY (1u << 3)
#define MBOX_MAX 65536u

enum { MB_OK = 0, MB_FAILED = 1, MB_UNKNOWN = 2 };
enum { CMD_READ_REGS = 1, CMD_POST_METRICS = 2, CMD_POWER_PROFILE = 3 };

void misc_reset(struct dev *d, bool power_on)
{
	uint32_t ecc[5];

	/* ECC counters are the device's history: kept over a reset. */
	memcpy(ecc, &d->misc[M_ECC_FIRST / 4], sizeof(ecc));
	memset(d->misc, 0, sizeof(d->misc));
	if (!power_on)
		memcpy(&d->misc[M_ECC_FIRST / 4], ecc, sizeof(ecc));
	d->misc[M_API_VERSION / 4] = d->o.fw_api_version;
	d->misc[M_SERIAL_LO / 4] = (uint32_t)d->o.serial;
	d->misc[M_SERIAL_HI / 4] = (uint32_t)(d->o.serial >> 32);
	d->reset_pending = false;
	d->pend_req = d->pend_map = 0;
	d->busy_until = 0;
	/* not ready again for --not-ready-ms, from power-on and each PCI reset */
	d->ready_at = d->o.not_ready_ms < 0 ? NEVER : now_ms() + (uint64_t)d->o.not_ready_ms;
}

bool fw_ready(struct dev *d)
{
	return d->ready_at != NEVER && now_ms() >= d->ready_at;
}

/* Take a pending reset request whose time has come. */
void fw_poll(struct dev *d)
{
	uint64_t now;

	if (!d->reset_pending)
		return;
	now = now_ms();
	if (now < d->take_at)
		return;
	d->reset_pending = false;
	d->busy_until = now + d->o.reset_busy_ms;
	if (d->pend_req == 1) {
		log_info("firmware: device reset");
		dev_reset_ncs(d, 0, true);
		atomic_fetch_add(&d->st.dev_resets, 1);
	} else {
		log_info("firmware: TPB reset, map 0x%08x", d->pend_map);
		dev_reset_ncs(d, d->pend_map, false);
		atomic_store(&d->st.last_tpb_map, d->pend_map);
		atomic_fetch_add(&d->st.tpb_resets, 1);
		atomic_fetch_add(&d->st.tpb_reset_ncs,
				 (uint64_t)__builtin_popcount(d->pend_map & (d->p->arch == 2 ? 3u : 0xFFu)));
	}
	d->misc[M_RESET / 4] = 0;	/* taken */
}

static void reset_request(struct dev *d)
{
	uint32_t req = d->misc[M_RESET / 4], map = d->misc[M_TPB_MAP / 4];

	if (req != 1 && req != 2) {
		log_warn("firmware: reset request value %u unknown: cleared, nothing reset", req);
		d->misc[M_RESET / 4] = 0;
		return;
	}
	atomic_fetch_add(&d->st.reset_requests, 1);
	if (d->reset_refuse) {
		atomic_fetch_add(&d->st.resets_refused, 1);
		log_info("firmware: reset request %u refused (fault injection)", req);
		return;
	}
	if (d->reset_pending) {
		/* coalesce: a device reset covers everything */
		d->pend_req = (d->pend_req == 1 || req == 1) ? 1 : 2;
		d->pend_map |= req == 2 ? map : 0;
	} else {
		d->reset_pending = true;
		d->pend_req = req;
		d->pend_map = req == 2 ? map : 0;
		d->take_at = now_ms() + d->reset_delay_ms;
	}
	fw_poll(d);
}

/* Read len bytes at a host device address into buf (or write them). */
static bool host_copy(struct dev *d, uint64_t devaddr, void *buf, uint32_t len, bool write)
{
	uint64_t dma;
	void *ptr;
	const char *why = "";
	int r;

	if (!pers_host_addr(d->p, devaddr, &dma)) {
		log_warn("mailbox: buffer address 0x%llx lacks the host window bit",
			 (unsigned long long)devaddr);
		return false;
	}
	dmamap_rdlock(&d->dma);
	r = dev_xlate(d, devaddr, len, write, &ptr, &why);
	if (!r) {
		if (write) {
			/* the sequence byte last: the host polls it */
			memcpy((uint8_t *)ptr + 1, (uint8_t *)buf + 1, len - 1);
			atomic_thread_fence(memory_order_release);
			*(volatile uint8_t *)ptr = *(uint8_t *)buf;
		} else {
			memcpy(buf, ptr, len);
		}
	}
	dmamap_unlock(&d->dma);
	if (r)
		log_warn("mailbox: buffer 0x%llx (+%u): %s", (unsigned long long)devaddr, len, why);
	return !r;
}

static void mailbox(struct dev *d)
{
	uint64_t req_addr = ((uint64_t)d->misc[M_REQ_HI / 4] << 32) | d->misc[M_REQ_LO / 4];
	uint64_t resp_addr = ((uint64_t)d->misc[M_RESP_HI / 4] << 32) | d->misc[M_RESP_LO / 4];
	uint8_t hdr[8], *req = NULL, *resp = NULL;
	uint32_t size, crc, resp_len = 4;
	uint8_t seq, cmd, status = MB_OK;

	if (!host_copy(d, req_addr, hdr, sizeof(hdr), false))
		goto bad;
	seq = hdr[0];
	cmd = hdr[1];
	size = ld16(hdr + 2);
	crc = ld32(hdr + 4);
	if (!seq) {
		log_warn("mailbox: request with sequence 0 ignored");
		goto bad;
	}
	resp = calloc(1, MBOX_MAX);
	if (!resp)
		goto bad;
	if (size < 8) {
		log_warn("mailbox: request size %u too small", size);
		status = MB_FAILED;
		goto answer;
	}
	req = malloc(size);
	if (!req || !host_copy(d, req_addr, req, size, false))
		goto bad;
	/* check what was copied, not what the host may change meanwhile */
	if (req[0] != seq) {
		status = MB_FAILED;
		goto answer;
	}
	cmd = req[1];
	crc = ld32(req + 4);
	st32(req + 4, 0);
	if (crc32c(0, req, size) != crc) {
		log_warn("mailbox: request %u: CRC-32C mismatch", seq);
		atomic_fetch_add(&d->st.mbox_bad, 1);
		status = MB_FAILED;
		goto answer;
	}
	switch (cmd) {
	case CMD_READ_REGS: {
		uint32_t n = (size - 8) / 8;

		if (!n || (size - 8) % 8) {
			status = MB_FAILED;
			break;
		}
		for (uint32_t i = 0; i < n; i++) {
			uint64_t a = ld64(req + 8 + 8 * i), off;

			if (!pers_reg_addr(d->p, a, &off) || (off & 3) ||
			    !range_ok(off, 4, d->p->bar0_size)) {
				log_warn("mailbox: read of device address 0x%llx: not a register",
					 (unsigned long long)a);
				status = MB_FAILED;
				resp_len = 4;
				break;
			}
			st32(resp + 4 + 4 * i, bar0_read32_locked(d, off));
			resp_len = 4 + 4 * (i + 1);
		}
		break;
	}
	case CMD_POST_METRICS:
	case CMD_POWER_PROFILE:
		break;		/* accepted; the payload goes nowhere */
	default:
		status = MB_UNKNOWN;
		break;
	}
answer:
	resp[0] = seq;
	resp[1] = status;
	st16(resp + 2, (uint16_t)resp_len);
	if (host_copy(d, resp_addr, resp, resp_len, true)) {
		atomic_fetch_add(&d->st.mbox_req, 1);
		log_dbg("mailbox: request %u command %u -> status %u", seq, cmd, status);
	} else {
		atomic_fetch_add(&d->st.mbox_bad, 1);
	}
	free(req);
	free(resp);
	return;
bad:
	atomic_fetch_add(&d->st.mbox_bad, 1);
	free(req);
	free(resp);
}

static void doorbell(struct dev *d)
{
	if (!fw_ready(d)) {
		atomic_fetch_add(&d->st.mbox_ignored, 1);
		log_info("firmware: doorbell while not ready, ignored");
		return;
	}
	if (d->misc[M_RESET / 4]) {
		reset_request(d);
		return;
	}
	if (d->mbox_silent) {
		atomic_fetch_add(&d->st.mbox_ignored, 1);
		return;
	}
	mailbox(d);
}

uint32_t misc_read(struct dev *d, uint32_t off)
{
	switch (off) {
	case M_ROUTING_ID:
		return fw_ready(d) ? d->o.routing_id : NOT_READY;
	case M_DOORBELL:
		return 0;
	case M_FW_STATUS:
		return now_ms() < d->busy_until ? FW_STATUS_RESET_BUSY : 0;
	default:
		return d->misc[off / 4];
	}
}

void misc_write(struct dev *d, uint32_t off, uint32_t val)
{
	switch (off) {
	case M_API_VERSION:
	case M_ROUTING_ID:
	case M_SERIAL_LO:
	case M_SERIAL_HI:
	case M_FW_STATUS:
		return;		/* read-only for the host */
	case M_DOORBELL:
		if (val)
			doorbell(d);
		return;
	default:
		if (off >= M_ECC_FIRST && off <= M_ECC_LAST)
			return;
		d->misc[off / 4] = val;
	}
}
