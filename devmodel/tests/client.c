// SPDX-License-Identifier: GPL-2.0
/* Test-side helpers: see client.h. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "client.h"
#include "util.h"

const char qemu_caps[] =
	"{\"capabilities\": {\"pgsizes\": 4096, \"max_msg_fds\": 16, \"max_dma_maps\": 65535, "
	"\"max_data_xfer_size\": 1048576, \"migration\": {\"max_bitmap_size\": 268435456, "
	"\"pgsize\": 4096}, \"write_multiple\": true}}";

void mb_start(struct mb *m, uint16_t id, uint16_t cmd, uint32_t flags)
{
	memset(m->buf, 0, VFU_HDR_SIZE);
	st16(m->buf, id);
	st16(m->buf + 2, cmd);
	st32(m->buf + 8, flags);
	m->len = VFU_HDR_SIZE;
}

void mb_bytes(struct mb *m, const void *p, size_t n)
{
	if (m->len + n > sizeof(m->buf))
		abort();
	memcpy(m->buf + m->len, p, n);
	m->len += n;
}

void mb_u16(struct mb *m, uint16_t v)
{
	mb_bytes(m, &v, 2);
}

void mb_u32(struct mb *m, uint32_t v)
{
	mb_bytes(m, &v, 4);
}

void mb_u64(struct mb *m, uint64_t v)
{
	mb_bytes(m, &v, 8);
}

void mb_end(struct mb *m)
{
	st32(m->buf + 4, (uint32_t)m->len);
}

void mb_version(struct mb *m, uint16_t id, const char *caps)
{
	mb_start(m, id, VFU_VERSION, 0);
	mb_u16(m, 0);
	mb_u16(m, 0);
	if (caps)
		mb_bytes(m, caps, strlen(caps) + 1);
	mb_end(m);
}

void mb_dma_map(struct mb *m, uint16_t id, uint32_t flags, uint64_t off, uint64_t iova, uint64_t size)
{
	mb_start(m, id, VFU_DMA_MAP, 0);
	mb_u32(m, 32);
	mb_u32(m, flags);
	mb_u64(m, off);
	mb_u64(m, iova);
	mb_u64(m, size);
	mb_end(m);
}

void mb_dma_unmap(struct mb *m, uint16_t id, uint32_t flags, uint64_t iova, uint64_t size)
{
	mb_start(m, id, VFU_DMA_UNMAP, 0);
	mb_u32(m, 24);
	mb_u32(m, flags);
	mb_u64(m, iova);
	mb_u64(m, size);
	mb_end(m);
}

void mb_region_info(struct mb *m, uint16_t id, uint32_t index)
{
	mb_start(m, id, VFU_DEVICE_GET_REGION_INFO, 0);
	mb_u32(m, 32);		/* argsz */
	mb_u32(m, 0);		/* flags */
	mb_u32(m, index);
	mb_u32(m, 0);		/* cap_offset */
	mb_u64(m, 0);		/* size */
	mb_u64(m, 0);		/* offset */
	mb_end(m);
}

void mb_region_read(struct mb *m, uint16_t id, uint32_t region, uint64_t off, uint32_t count)
{
	mb_start(m, id, VFU_REGION_READ, 0);
	mb_u64(m, off);
	mb_u32(m, region);
	mb_u32(m, count);
	mb_end(m);
}

void mb_region_write(struct mb *m, uint16_t id, uint32_t region, uint64_t off, const void *data,
		     uint32_t count, uint32_t flags)
{
	mb_start(m, id, VFU_REGION_WRITE, flags);
	mb_u64(m, off);
	mb_u32(m, region);
	mb_u32(m, count);
	mb_bytes(m, data, count);
	mb_end(m);
}

static int capture(void *ctx, const void *buf, size_t len, const int *fds, unsigned nfds)
{
	struct tconn *t = ctx;

	if (len > sizeof(t->reply) || nfds > 4)
		return -1;
	memcpy(t->reply, buf, len);
	t->rlen = len;
	if (nfds)
		memcpy(t->rfds, fds, nfds * sizeof(int));
	t->rnfds = nfds;
	t->nreplies++;
	return 0;
}

void tc_init(struct tconn *t, struct dev *d)
{
	memset(t, 0, sizeof(*t));
	t->d = d;
	vfu_conn_init(&t->c, d, capture, t);
}

void tc_fini(struct tconn *t)
{
	vfu_conn_fini(&t->c);
}

int tc_send(struct tconn *t, const struct mb *m, const int *fds, unsigned nfds)
{
	t->rlen = 0;
	t->rnfds = 0;
	return vfu_input(&t->c, m->buf, m->len, fds, nfds);
}

uint32_t tc_err(const struct tconn *t)
{
	if (t->rlen < VFU_HDR_SIZE || !(ld32(t->reply + 8) & VFU_F_ERROR))
		return 0;
	return ld32(t->reply + 12);
}

uint32_t tc_size(const struct tconn *t)
{
	return t->rlen >= VFU_HDR_SIZE ? ld32(t->reply + 4) : 0;
}

const uint8_t *tc_payload(const struct tconn *t)
{
	return t->reply + VFU_HDR_SIZE;
}

int tc_negotiate(struct tconn *t)
{
	struct mb m;

	mb_version(&m, 1, qemu_caps);
	if (tc_send(t, &m, NULL, 0) || tc_err(t) || !t->rlen)
		return -1;
	return 0;
}

struct dev *t_dev(const char *pers, bool async)
{
	struct dev_opts o = { .pers = pers, .sync = !async, .serial = 0x1122334455667788ull,
			      .fw_api_version = 7, .reset_busy_ms = 100, .routing_id = 5 };

	return dev_create(&o);
}

int gmem_new(struct gmem *g, uint64_t size)
{
	g->fd = memfd_create("devmodel-test-guest", MFD_CLOEXEC);
	g->size = size;
	if (g->fd < 0 || ftruncate(g->fd, (off_t)size))
		return -1;
	g->p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, g->fd, 0);
	return g->p == MAP_FAILED ? -1 : 0;
}

void gmem_free(struct gmem *g)
{
	munmap(g->p, g->size);
	close(g->fd);
}
