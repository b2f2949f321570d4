// SPDX-License-Identifier: GPL-2.0
/*
 * vfio-user message framing and command handling (server side).
 *
 * Two kinds of bad input:
 *  - malformed framing or structure (header size below 16 or above the
 *    maximum, a reply or unknown type where a command must be, a payload
 *    shorter than the fixed part of its command, too many descriptors, a
 *    bad VERSION, any command before VERSION): the connection is closed;
 *  - well-formed commands with bad values (indexes, offsets, lengths, flags,
 *    descriptor counts, unknown commands): an error reply with an errno,
 *    unless the command asked for no reply.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dev.h"
#include "util.h"
#include "vfu.h"

struct msg {
	uint16_t id, cmd;
	uint32_t flags;
	const uint8_t *p;		/* payload */
	size_t len;
	int *fds;
	unsigned nfds;
};

#define FATAL (-1000)

static void close_fds(int *fds, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
}

void vfu_conn_init(struct vfu_conn *c, struct dev *d, vfu_send_fn send, void *ctx)
{
	memset(c, 0, sizeof(*c));
	c->d = d;
	c->send = send;
	c->send_ctx = ctx;
	c->peer_max_fds = 1;
	c->peer_max_xfer = VFU_MAX_XFER;
}

void vfu_conn_fini(struct vfu_conn *c)
{
	close_fds(c->fds, c->nfds);
	c->nfds = 0;
	free(c->body);
	c->body = NULL;
}

static int die(struct vfu_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int die(struct vfu_conn *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	c->dead = true;
	return FATAL;
}

static int send_reply(struct vfu_conn *c, const struct msg *m, uint32_t err, const void *payload,
		      size_t len, const int *fds, unsigned nfds)
{
	uint8_t hdr[VFU_HDR_SIZE], *buf;
	int r;

	if (m->flags & VFU_F_NO_REPLY)
		return 0;
	st16(hdr, m->id);
	st16(hdr + 2, m->cmd);
	st32(hdr + 4, (uint32_t)(VFU_HDR_SIZE + len));
	st32(hdr + 8, VFU_TYPE_REPLY | (err ? VFU_F_ERROR : 0));
	st32(hdr + 12, err);
	buf = malloc(VFU_HDR_SIZE + len);
	if (!buf)
		return die(c, "out of memory for a reply");
	memcpy(buf, hdr, VFU_HDR_SIZE);
	if (len)
		memcpy(buf + VFU_HDR_SIZE, payload, len);
	r = c->send(c->send_ctx, buf, VFU_HDR_SIZE + len, fds, nfds);
	free(buf);
	if (r)
		return die(c, "sending a reply failed");
	return 0;
}

/* ---- VERSION ---- */

static int cmd_version(struct vfu_conn *c, const struct msg *m)
{
	char caps[256];
	uint8_t out[4 + sizeof(caps)];
	uint16_t major, minor;
	int n;

	if (c->negotiated)
		return die(c, "second VERSION");
	if (m->len < 4)
		return die(c, "VERSION payload of %zu bytes", m->len);
	major = ld16(m->p);
	minor = ld16(m->p + 2);
	if (major != 0)
		return die(c, "client proposes protocol %u.%u, this server speaks 0.0", major, minor);
	if (m->len > 4) {
		const char *js = (const char *)m->p + 4;
		size_t jl = m->len - 4;
		const char *nul = memchr(js, 0, jl);

		if (!nul || (size_t)(nul - js) != jl - 1)
			return die(c, "VERSION capabilities not a NUL-terminated string");
		if (json_parse_caps(js, jl - 1, &c->peer))
			return die(c, "VERSION capabilities are not valid JSON: %.60s", js);
		log_info("vfio-user: client version %u.%u, capabilities %.400s", major, minor, js);
	} else {
		log_info("vfio-user: client version %u.%u, no capabilities", major, minor);
	}
	if (c->peer.has_max_fds)
		c->peer_max_fds = c->peer.max_fds;
	if (c->peer.has_max_xfer)
		c->peer_max_xfer = c->peer.max_xfer;
	c->multi = c->peer.has_multi && c->peer.write_multiple;
	n = snprintf(caps, sizeof(caps),
		     "{\"capabilities\":{\"max_msg_fds\":%u,\"max_data_xfer_size\":%u,"
		     "\"pgsizes\":4096,\"max_dma_maps\":%u%s}}",
		     VFU_MAX_FDS, VFU_MAX_XFER, VFU_MAX_DMA_MAPS,
		     c->multi ? ",\"write_multiple\":true" : "");
	st16(out, 0);
	st16(out + 2, 0);
	memcpy(out + 4, caps, (size_t)n + 1);
	c->negotiated = true;
	log_info("vfio-user: reply version 0.0, capabilities %s (migration and twin socket not offered)", caps);
	return send_reply(c, m, 0, out, 4 + (size_t)n + 1, NULL, 0);
}

/* ---- DMA ---- */

static int cmd_dma_map(struct vfu_conn *c, const struct msg *m)
{
	uint32_t argsz, flags;
	uint64_t off, addr, size;
	int fd = -1, r;

	if (m->len < 32)
		return die(c, "DMA_MAP payload of %zu bytes", m->len);
	argsz = ld32(m->p);
	flags = ld32(m->p + 4);
	off = ld64(m->p + 8);
	addr = ld64(m->p + 16);
	size = ld64(m->p + 24);
	if (argsz < 32 || m->nfds > 1)
		return EINVAL;
	if (m->nfds) {
		fd = m->fds[0];
		m->fds[0] = -1;		/* consumed by dmamap_add */
	}
	r = dmamap_add(&c->d->dma, addr, size, off, flags, fd);
	log_info("vfio-user: DMA_MAP 0x%" PRIx64 "+0x%" PRIx64 " flags %u %s offset 0x%" PRIx64 ": %s",
		 addr, size, flags, fd >= 0 ? "fd" : "no fd", off, r ? strerror(-r) : "ok");
	return r ? -r : send_reply(c, m, 0, NULL, 0, NULL, 0);
}

static int cmd_dma_unmap(struct vfu_conn *c, const struct msg *m)
{
	uint32_t argsz, flags;
	uint64_t addr, size;
	size_t removed;
	int r;

	if (m->len < 24)
		return die(c, "DMA_UNMAP payload of %zu bytes", m->len);
	argsz = ld32(m->p);
	flags = ld32(m->p + 4);
	addr = ld64(m->p + 8);
	size = ld64(m->p + 16);
	if (m->nfds)
		return EINVAL;
	if (flags & VFU_UNMAP_GET_DIRTY)
		return ENOTSUP;
	if (flags & ~VFU_UNMAP_ALL)
		return EINVAL;
	r = dmamap_remove(&c->d->dma, addr, size, flags & VFU_UNMAP_ALL, &removed);
	log_info("vfio-user: DMA_UNMAP 0x%" PRIx64 "+0x%" PRIx64 "%s: %s, %zu removed", addr, size,
		 flags & VFU_UNMAP_ALL ? " (all)" : "", r ? strerror(-r) : "ok", removed);
	if (r)
		return -r;
	/* the reply carries the request's entry back, as far as argsz allows */
	return send_reply(c, m, 0, m->p, argsz >= 24 ? 24 : 0, NULL, 0);
}

/* ---- device, regions, IRQs ---- */

static int cmd_get_info(struct vfu_conn *c, const struct msg *m)
{
	uint8_t out[16];

	if (m->len < 16)
		return die(c, "DEVICE_GET_INFO payload of %zu bytes", m->len);
	if (ld32(m->p) < 16 || m->nfds)
		return EINVAL;
	st32(out, 16);
	st32(out + 4, VFU_DEV_FLAG_RESET | VFU_DEV_FLAG_PCI);
	st32(out + 8, NUM_REGIONS);
	st32(out + 12, NUM_IRQS);
	return send_reply(c, m, 0, out, sizeof(out), NULL, 0);
}

static int cmd_region_info(struct vfu_conn *c, const struct msg *m)
{
	uint8_t out[32];
	uint32_t index, flags = 0;
	uint64_t size;
	int fd = -1;

	if (m->len < 32)
		return die(c, "DEVICE_GET_REGION_INFO payload of %zu bytes", m->len);
	index = ld32(m->p + 8);
	if (ld32(m->p) < 32 || index >= NUM_REGIONS || m->nfds)
		return EINVAL;
	size = dev_region_size(c->d, index);
	if (size)
		flags = VFU_REGION_READ_F | VFU_REGION_WRITE_F;
	if (index == REG_BAR4 && c->peer_max_fds >= 1) {
		flags |= VFU_REGION_MMAP_F;
		fd = c->d->dram_fd;
	}
	memset(out, 0, sizeof(out));
	st32(out, 32);
	st32(out + 4, flags);
	st32(out + 8, index);
	st64(out + 16, size);
	st64(out + 24, 0);
	log_info("vfio-user: region %u: size 0x%" PRIx64 " flags 0x%x%s", index, size, flags,
		 fd >= 0 ? " (mmap fd sent)" : "");
	return send_reply(c, m, 0, out, sizeof(out), fd >= 0 ? &fd : NULL, fd >= 0);
}

static int cmd_irq_info(struct vfu_conn *c, const struct msg *m)
{
	uint8_t out[16];
	uint32_t index, flags = 0, count = 0;

	if (m->len < 16)
		return die(c, "DEVICE_GET_IRQ_INFO payload of %zu bytes", m->len);
	index = ld32(m->p + 8);
	if (ld32(m->p) < 16 || index >= NUM_IRQS || m->nfds)
		return EINVAL;
	if (index == IRQ_INTX) {
		flags = VFU_IRQ_EVENTFD | VFU_IRQ_MASKABLE | VFU_IRQ_AUTOMASKED;
		count = 1;
	}
	st32(out, 16);
	st32(out + 4, flags);
	st32(out + 8, index);
	st32(out + 12, count);
	return send_reply(c, m, 0, out, sizeof(out), NULL, 0);
}

static int cmd_set_irqs(struct vfu_conn *c, const struct msg *m)
{
	struct dev *d = c->d;
	uint32_t argsz, flags, index, start, count, data, action;
	bool fire = false;

	if (m->len < 20)
		return die(c, "DEVICE_SET_IRQS payload of %zu bytes", m->len);
	argsz = ld32(m->p);
	flags = ld32(m->p + 4);
	index = ld32(m->p + 8);
	start = ld32(m->p + 12);
	count = ld32(m->p + 16);
	data = flags & (VFU_SET_DATA_NONE | VFU_SET_DATA_BOOL | VFU_SET_DATA_EVENTFD);
	action = flags & (VFU_SET_ACTION_MASK | VFU_SET_ACTION_UNMASK | VFU_SET_ACTION_TRIGGER);
	if (argsz < 20 || argsz != m->len || index >= NUM_IRQS || !is_pow2(data) ||
	    !is_pow2(action) || (flags & ~(data | action)))
		return EINVAL;
	if (data == VFU_SET_DATA_BOOL && (uint64_t)argsz != 20ull + count)
		return EINVAL;
	if (data != VFU_SET_DATA_BOOL && argsz != 20)
		return EINVAL;
	if (data == VFU_SET_DATA_EVENTFD && m->nfds != count && m->nfds)
		return EINVAL;
	if (data != VFU_SET_DATA_EVENTFD && m->nfds)
		return EINVAL;
	/* only INTx has interrupts; count 0 with DATA_NONE disables an index */
	if (count == 0 && start == 0 && data == VFU_SET_DATA_NONE && action == VFU_SET_ACTION_TRIGGER) {
		if (index == IRQ_INTX) {
			pthread_mutex_lock(&d->lock);
			if (d->intx_fd >= 0)
				close(d->intx_fd);
			d->intx_fd = -1;
			pthread_mutex_unlock(&d->lock);
		}
		log_info("vfio-user: SET_IRQS index %u: disabled", index);
		return send_reply(c, m, 0, NULL, 0, NULL, 0);
	}
	if (index != IRQ_INTX || start > 1 || count > 1 - start || count == 0)
		return EINVAL;
	if (data == VFU_SET_DATA_EVENTFD && action != VFU_SET_ACTION_TRIGGER)
		return EINVAL;	/* mask/unmask notification eventfds: not offered */
	pthread_mutex_lock(&d->lock);
	if (data == VFU_SET_DATA_EVENTFD) {
		if (d->intx_fd >= 0)
			close(d->intx_fd);
		d->intx_fd = m->nfds ? m->fds[0] : -1;
		if (m->nfds)
			m->fds[0] = -1;
	} else if (data == VFU_SET_DATA_NONE || m->p[20]) {
		if (action == VFU_SET_ACTION_MASK)
			d->intx_masked = true;
		else if (action == VFU_SET_ACTION_UNMASK)
			d->intx_masked = false;
		else
			fire = true;
	}
	pthread_mutex_unlock(&d->lock);
	log_info("vfio-user: SET_IRQS INTx flags 0x%x: ok", flags);
	if (fire)
		dev_intx_raise(d);
	return send_reply(c, m, 0, NULL, 0, NULL, 0);
}

/* ---- region I/O ---- */

static int cmd_region_read(struct vfu_conn *c, const struct msg *m)
{
	uint64_t off;
	uint32_t region, count;
	uint8_t *out;
	int r;

	if (m->len < 16)
		return die(c, "REGION_READ payload of %zu bytes", m->len);
	off = ld64(m->p);
	region = ld32(m->p + 8);
	count = ld32(m->p + 12);
	if (m->len != 16 || m->nfds || !count || count > VFU_MAX_XFER || count > c->peer_max_xfer)
		return EINVAL;
	out = malloc(16 + (size_t)count);
	if (!out)
		return ENOMEM;
	memcpy(out, m->p, 16);
	r = dev_region_rw(c->d, region, off, out + 16, count, false);
	log_dbg("vfio-user: read region %u 0x%" PRIx64 "+%u: %d", region, off, count, r);
	if (!r)
		r = send_reply(c, m, 0, out, 16 + (size_t)count, NULL, 0);
	else
		r = -r;
	free(out);
	return r;
}

static int cmd_region_write(struct vfu_conn *c, const struct msg *m)
{
	uint64_t off;
	uint32_t region, count;
	int r;

	if (m->len < 16)
		return die(c, "REGION_WRITE payload of %zu bytes", m->len);
	off = ld64(m->p);
	region = ld32(m->p + 8);
	count = ld32(m->p + 12);
	if (m->nfds || !count || count > VFU_MAX_XFER || m->len - 16 != count)
		return EINVAL;
	r = dev_region_rw(c->d, region, off, (void *)(m->p + 16), count, true);
	log_dbg("vfio-user: write region %u 0x%" PRIx64 "+%u: %d", region, off, count, r);
	if (r)
		return -r;
	return send_reply(c, m, 0, m->p, 16, NULL, 0);
}

static int cmd_write_multi(struct vfu_conn *c, const struct msg *m)
{
	uint64_t n;

	if (m->len < 8)
		return die(c, "REGION_WRITE_MULTI payload of %zu bytes", m->len);
	n = ld64(m->p);
	if (m->nfds || !n || n > VFU_MULTI_MAX || m->len != 8 + 24 * n)
		return EINVAL;
	/* check all, then apply all */
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *w = m->p + 8 + 24 * i;
		uint32_t region = ld32(w + 8), count = ld32(w + 12);

		if (!count || count > 8 || !range_ok(ld64(w), count, dev_region_size(c->d, region)))
			return EINVAL;
	}
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *w = m->p + 8 + 24 * i;
		uint8_t data[8];
		int r;

		memcpy(data, w + 16, 8);
		r = dev_region_rw(c->d, ld32(w + 8), ld64(w), data, ld32(w + 12), true);
		if (r)
			return -r;
	}
	return send_reply(c, m, 0, m->p, 8, NULL, 0);
}

static int cmd_reset(struct vfu_conn *c, const struct msg *m)
{
	if (m->len || m->nfds)
		return EINVAL;
	log_info("vfio-user: DEVICE_RESET");
	dev_pci_reset(c->d);
	return send_reply(c, m, 0, NULL, 0, NULL, 0);
}

static int dispatch(struct vfu_conn *c, struct msg *m)
{
	if (!c->negotiated && m->cmd != VFU_VERSION)
		return die(c, "command %u before VERSION", m->cmd);
	switch (m->cmd) {
	case VFU_VERSION:
		if (m->nfds)
			return die(c, "VERSION with file descriptors");
		return cmd_version(c, m);
	case VFU_DMA_MAP:
		return cmd_dma_map(c, m);
	case VFU_DMA_UNMAP:
		return cmd_dma_unmap(c, m);
	case VFU_DEVICE_GET_INFO:
		return cmd_get_info(c, m);
	case VFU_DEVICE_GET_REGION_INFO:
		return cmd_region_info(c, m);
	case VFU_DEVICE_GET_IRQ_INFO:
		return cmd_irq_info(c, m);
	case VFU_DEVICE_SET_IRQS:
		return cmd_set_irqs(c, m);
	case VFU_REGION_READ:
		return cmd_region_read(c, m);
	case VFU_REGION_WRITE:
		return cmd_region_write(c, m);
	case VFU_REGION_WRITE_MULTI:
		return cmd_write_multi(c, m);
	case VFU_DEVICE_RESET:
		return cmd_reset(c, m);
	case VFU_DMA_READ:
	case VFU_DMA_WRITE:
		return EINVAL;	/* server-to-client commands */
	default:
		return ENOSYS;
	}
}

/* A whole message is in c->hdr / c->body. */
static int handle(struct vfu_conn *c)
{
	struct msg m = {
		.id = ld16(c->hdr),
		.cmd = ld16(c->hdr + 2),
		.flags = ld32(c->hdr + 8),
		.p = c->body,
		.len = c->body_len,
		.fds = c->fds,
		.nfds = c->nfds,
	};
	int r;

	c->msgs++;
	r = dispatch(c, &m);
	close_fds(c->fds, c->nfds);	/* whatever the command did not take */
	c->nfds = 0;
	if (r == FATAL)
		return -1;
	if (r > 0) {
		c->errors++;
		log_dbg("vfio-user: command %u (id %u) -> error %d (%s)", m.cmd, m.id, r, strerror(r));
		if (m.flags & VFU_F_NO_REPLY)
			log_warn("vfio-user: no-reply command %u failed: %s", m.cmd, strerror(r));
		if (send_reply(c, &m, (uint32_t)r, NULL, 0, NULL, 0) == FATAL)
			return -1;
	}
	return 0;
}

int vfu_input(struct vfu_conn *c, const void *data, size_t len, const int *fds, unsigned nfds)
{
	const uint8_t *p = data;
	unsigned i;

	if (c->dead) {
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		return -1;
	}
	for (i = 0; i < nfds; i++) {
		if (c->nfds == VFU_MAX_FDS) {
			for (; i < nfds; i++)
				close(fds[i]);
			die(c, "more than %u file descriptors with one message", VFU_MAX_FDS);
			return -1;
		}
		c->fds[c->nfds++] = fds[i];
	}
	while (len) {
		if (c->hdr_have < VFU_HDR_SIZE) {
			size_t n = VFU_HDR_SIZE - c->hdr_have;

			if (n > len)
				n = len;
			memcpy(c->hdr + c->hdr_have, p, n);
			c->hdr_have += n;
			p += n;
			len -= n;
			if (c->hdr_have < VFU_HDR_SIZE)
				break;
			{
				uint32_t size = ld32(c->hdr + 4), flags = ld32(c->hdr + 8);

				if (size < VFU_HDR_SIZE || size > VFU_MAX_MSG) {
					die(c, "message size %u out of [16, %u]", size, VFU_MAX_MSG);
					return -1;
				}
				if ((flags & VFU_TYPE_MASK) != VFU_TYPE_COMMAND) {
					die(c, "message of type %u where a command must be",
					    flags & VFU_TYPE_MASK);
					return -1;
				}
				c->body_len = size - VFU_HDR_SIZE;
				c->body_have = 0;
				free(c->body);
				c->body = c->body_len ? malloc(c->body_len) : NULL;
				if (c->body_len && !c->body) {
					die(c, "out of memory for a message of %u bytes", size);
					return -1;
				}
			}
		}
		if (c->body_have < c->body_len) {
			size_t n = c->body_len - c->body_have;

			if (n > len)
				n = len;
			memcpy(c->body + c->body_have, p, n);
			c->body_have += n;
			p += n;
			len -= n;
		}
		if (c->body_have == c->body_len) {
			int r = handle(c);

			free(c->body);
			c->body = NULL;
			c->body_len = c->body_have = 0;
			c->hdr_have = 0;
			if (r)
				return -1;
		}
	}
	return 0;
}

size_t vfu_want(const struct vfu_conn *c)
{
	if (c->hdr_have < VFU_HDR_SIZE)
		return VFU_HDR_SIZE - c->hdr_have;
	return c->body_len - c->body_have;
}
