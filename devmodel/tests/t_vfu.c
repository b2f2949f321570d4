// SPDX-License-Identifier: GPL-2.0
/* The vfio-user parser: good messages, malformed framing, bad values. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "client.h"
#include "test.h"
#include "util.h"

static struct dev *dev1(void)
{
	struct dev *d = t_dev("trn1", false);

	if (!d)
		abort();
	return d;
}

static void negotiate(void)
{
	struct dev *d = dev1();
	struct tconn t;
	struct mb m;
	const char *caps;

	tc_init(&t, d);
	mb_version(&m, 7, qemu_caps);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(t.nreplies, 1);
	CHECK_EQ(tc_err(&t), 0);
	CHECK_EQ(ld16(t.reply), 7);			/* id echoed */
	CHECK_EQ(ld16(t.reply + 2), VFU_VERSION);
	CHECK_EQ(ld32(t.reply + 8) & VFU_TYPE_MASK, VFU_TYPE_REPLY);
	CHECK_EQ(tc_size(&t), t.rlen);
	CHECK_EQ(ld16(tc_payload(&t)), 0);
	CHECK_EQ(ld16(tc_payload(&t) + 2), 0);
	caps = (const char *)tc_payload(&t) + 4;
	CHECK_EQ(t.reply[t.rlen - 1], 0);		/* NUL-terminated */
	CHECK(strstr(caps, "\"max_msg_fds\":8"));
	CHECK(strstr(caps, "\"max_data_xfer_size\":1048576"));
	CHECK(strstr(caps, "\"write_multiple\":true"));
	CHECK(!strstr(caps, "migration"));
	{
		struct vfu_caps c;

		CHECK_EQ(json_parse_caps(caps, strlen(caps), &c), 0);
		CHECK(c.has_max_fds && c.max_fds == 8 && c.has_max_dma && c.max_dma == 65535);
	}
	/* a second VERSION closes */
	mb_version(&m, 8, NULL);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), -1);
	CHECK(t.c.dead);
	tc_fini(&t);
	dev_destroy(d);
}

static void version_variants(void)
{
	struct dev *d = dev1();
	struct tconn t;
	struct mb m;

	/* no capabilities at all: fine, write_multiple not offered back */
	tc_init(&t, d);
	mb_version(&m, 1, NULL);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK(!strstr((const char *)tc_payload(&t) + 4, "write_multiple"));
	tc_fini(&t);
	/* major 1 */
	tc_init(&t, d);
	mb_start(&m, 1, VFU_VERSION, 0);
	mb_u16(&m, 1);
	mb_u16(&m, 0);
	mb_end(&m);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), -1);
	CHECK_EQ(t.nreplies, 0);
	tc_fini(&t);
	/* capabilities without NUL */
	tc_init(&t, d);
	mb_start(&m, 1, VFU_VERSION, 0);
	mb_u32(&m, 0);
	mb_bytes(&m, "{}", 2);
	mb_end(&m);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), -1);
	tc_fini(&t);
	/* NUL in the middle */
	tc_init(&t, d);
	mb_start(&m, 1, VFU_VERSION, 0);
	mb_u32(&m, 0);
	mb_bytes(&m, "{}\0{}", 6);
	mb_end(&m);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), -1);
	tc_fini(&t);
	/* bad JSON */
	tc_init(&t, d);
	mb_version(&m, 1, "{\"capabilities\":[}");
	CHECK_EQ(tc_send(&t, &m, NULL, 0), -1);
	tc_fini(&t);
	/* truncated VERSION */
	tc_init(&t, d);
	mb_start(&m, 1, VFU_VERSION, 0);
	mb_u16(&m, 0);
	mb_end(&m);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), -1);
	tc_fini(&t);
	/* anything before VERSION */
	tc_init(&t, d);
	mb_start(&m, 1, VFU_DEVICE_GET_INFO, 0);
	mb_u32(&m, 16);
	mb_u32(&m, 0);
	mb_u64(&m, 0);
	mb_end(&m);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), -1);
	CHECK(strstr(t.c.why, "before VERSION"));
	tc_fini(&t);
	dev_destroy(d);
}

static void framing(void)
{
	struct dev *d = dev1();
	struct tconn t;
	struct mb m, m2;
	uint8_t both[2 * 8192];
	int fds[VFU_MAX_FDS + 1];

	/* header size below 16 */
	tc_init(&t, d);
	mb_start(&m, 1, VFU_VERSION, 0);
	st32(m.buf + 4, 12);
	m.len = 16;
	CHECK_EQ(tc_send(&t, &m, NULL, 0), -1);
	CHECK(strstr(t.c.why, "size"));
	/* dead stays dead */
	mb_version(&m, 1, NULL);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), -1);
	tc_fini(&t);
	/* size above the maximum */
	tc_init(&t, d);
	mb_start(&m, 1, VFU_REGION_WRITE, 0);
	st32(m.buf + 4, VFU_MAX_MSG + 1);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), -1);
	tc_fini(&t);
	/* a reply where a command must be */
	tc_init(&t, d);
	mb_version(&m, 1, NULL);
	st32(m.buf + 8, VFU_TYPE_REPLY);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), -1);
	tc_fini(&t);
	/* one byte at a time */
	tc_init(&t, d);
	mb_version(&m, 3, qemu_caps);
	for (size_t i = 0; i < m.len; i++) {
		CHECK_EQ(vfu_input(&t.c, m.buf + i, 1, NULL, 0), 0);
		CHECK_EQ(t.nreplies, i + 1 == m.len);
		if (i + 1 < m.len)
			CHECK_EQ(vfu_want(&t.c), i < 16 ? 16 - (i + 1) + (i + 1 == 16 ? m.len - 16 : 0) : m.len - (i + 1));
	}
	CHECK_EQ(vfu_want(&t.c), 16);
	/* two messages in one chunk */
	mb_region_read(&m, 4, REG_CONFIG, 0, 4);
	mb_region_read(&m2, 5, REG_CONFIG, 2, 2);
	memcpy(both, m.buf, m.len);
	memcpy(both + m.len, m2.buf, m2.len);
	CHECK_EQ(vfu_input(&t.c, both, m.len + m2.len, NULL, 0), 0);
	CHECK_EQ(t.nreplies, 3);
	CHECK_EQ(ld16(t.reply), 5);
	CHECK_EQ(ld16(tc_payload(&t) + 16), 0x7164);
	/* more descriptors than max_msg_fds */
	for (unsigned i = 0; i < VFU_MAX_FDS + 1; i++)
		fds[i] = eventfd(0, EFD_CLOEXEC);
	mb_region_read(&m, 6, REG_CONFIG, 0, 4);
	CHECK_EQ(tc_send(&t, &m, fds, VFU_MAX_FDS + 1), -1);
	CHECK(strstr(t.c.why, "file descriptors"));
	tc_fini(&t);
	dev_destroy(d);
}

static void info(void)
{
	struct dev *d = dev1();
	struct tconn t;
	struct mb m;

	tc_init(&t, d);
	CHECK_EQ(tc_negotiate(&t), 0);
	mb_start(&m, 2, VFU_DEVICE_GET_INFO, 0);
	mb_u32(&m, 16);
	mb_u32(&m, 0);
	mb_u64(&m, 0);
	mb_end(&m);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), 0);
	CHECK_EQ(tc_size(&t), 32);
	CHECK_EQ(ld32(tc_payload(&t)), 16);
	CHECK_EQ(ld32(tc_payload(&t) + 4), VFU_DEV_FLAG_RESET | VFU_DEV_FLAG_PCI);
	CHECK_EQ(ld32(tc_payload(&t) + 8), 9);
	CHECK_EQ(ld32(tc_payload(&t) + 12), 5);
	st32(m.buf + 16, 8);				/* argsz too small */
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	CHECK_EQ(tc_size(&t), 16);			/* error: header only */

	for (uint32_t idx = 0; idx < 10; idx++) {
		mb_region_info(&m, 3, idx);
		CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
		if (idx == 9) {
			CHECK_EQ(tc_err(&t), EINVAL);
			continue;
		}
		CHECK_EQ(tc_err(&t), 0);
		CHECK_EQ(ld32(tc_payload(&t) + 8), idx);
		CHECK_EQ(ld64(tc_payload(&t) + 16), dev_region_size(d, idx));
		CHECK_EQ(t.rnfds, idx == REG_BAR4);
		if (idx == REG_BAR4) {
			CHECK_EQ(ld32(tc_payload(&t) + 4), 7);
			CHECK_EQ(t.rfds[0], d->dram_fd);
		}
	}
	CHECK_EQ(dev_region_size(d, REG_BAR0), 1ull << 30);
	CHECK_EQ(dev_region_size(d, REG_BAR4), 32ull << 30);
	/* truncated region info closes */
	mb_start(&m, 3, VFU_DEVICE_GET_REGION_INFO, 0);
	mb_u32(&m, 32);
	mb_u32(&m, 0);
	mb_end(&m);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), -1);
	tc_fini(&t);

	tc_init(&t, d);
	CHECK_EQ(tc_negotiate(&t), 0);
	for (uint32_t idx = 0; idx < 6; idx++) {
		mb_start(&m, 4, VFU_DEVICE_GET_IRQ_INFO, 0);
		mb_u32(&m, 16);
		mb_u32(&m, 0);
		mb_u32(&m, idx);
		mb_u32(&m, 0);
		mb_end(&m);
		CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
		if (idx == 5) {
			CHECK_EQ(tc_err(&t), EINVAL);
		} else {
			CHECK_EQ(tc_err(&t), 0);
			CHECK_EQ(ld32(tc_payload(&t) + 12), idx == IRQ_INTX);
		}
	}
	/* unknown command, a server-to-client command, an unimplemented one */
	mb_start(&m, 9, 99, 0);
	mb_end(&m);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), ENOSYS);
	mb_start(&m, 9, VFU_DMA_READ, 0);
	mb_u64(&m, 0);
	mb_u64(&m, 4);
	mb_end(&m);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	mb_start(&m, 9, VFU_DEVICE_FEATURE, 0);
	mb_u32(&m, 8);
	mb_u32(&m, 0x10001);
	mb_end(&m);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), ENOSYS);
	CHECK(!t.c.dead);
	tc_fini(&t);
	dev_destroy(d);
}

static void dma_map_unmap(void)
{
	struct dev *d = dev1();
	struct tconn t;
	struct gmem g;
	struct mb m;
	int fd2[2];

	CHECK_EQ(gmem_new(&g, 1 << 20), 0);
	tc_init(&t, d);
	CHECK_EQ(tc_negotiate(&t), 0);
	mb_dma_map(&m, 2, 3, 0, 0x100000, 0x80000);
	fd2[0] = dup(g.fd);
	CHECK_EQ(tc_send(&t, &m, fd2, 1), 0);
	CHECK_EQ(tc_err(&t), 0);
	CHECK_EQ(tc_size(&t), 16);
	CHECK_EQ(d->dma.n, 1);
	/* second map of the same file at another offset shares the mapping */
	mb_dma_map(&m, 3, 1, 0x80000, 0x200000, 0x80000);
	fd2[0] = dup(g.fd);
	CHECK_EQ(tc_send(&t, &m, fd2, 1), 0);
	CHECK_EQ(tc_err(&t), 0);
	CHECK_EQ(d->dma.nfiles, 1);
	/* overlap */
	mb_dma_map(&m, 4, 3, 0, 0x17F000, 0x2000);
	fd2[0] = dup(g.fd);
	CHECK_EQ(tc_send(&t, &m, fd2, 1), 0);
	CHECK_EQ(tc_err(&t), EEXIST);
	/* two descriptors, size 0, overflow, past the file, unknown flags */
	fd2[0] = dup(g.fd);
	fd2[1] = dup(g.fd);
	mb_dma_map(&m, 5, 3, 0, 0x400000, 0x1000);
	CHECK_EQ(tc_send(&t, &m, fd2, 2), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	mb_dma_map(&m, 5, 3, 0, 0x400000, 0);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	mb_dma_map(&m, 5, 3, 0, UINT64_MAX - 0xFFF, 0x2000);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	mb_dma_map(&m, 5, 3, 0xFF000, 0x400000, 0x2000);
	fd2[0] = dup(g.fd);
	CHECK_EQ(tc_send(&t, &m, fd2, 1), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	mb_dma_map(&m, 5, 3 | 4, 0, 0x400000, 0x1000);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	/* a descriptor that is not a regular file */
	fd2[0] = eventfd(0, EFD_CLOEXEC);
	mb_dma_map(&m, 5, 3, 0, 0x400000, 0x1000);
	CHECK_EQ(tc_send(&t, &m, fd2, 1), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	/* without a descriptor: accepted, unreachable for DMA */
	mb_dma_map(&m, 6, 1, 0, 0xFFFC0000, 0x40000);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), 0);
	CHECK_EQ(d->dma.n, 3);
	/* truncated map closes nothing yet: it is a new connection below */
	/* unmap part of an entry: refused, nothing removed */
	mb_dma_unmap(&m, 7, 0, 0x100000, 0x1000);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	CHECK_EQ(d->dma.n, 3);
	/* unmap a range holding nothing: fine */
	mb_dma_unmap(&m, 8, 0, 0x10000000, 0x1000);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), 0);
	/* exact unmap: the entry comes back */
	mb_dma_unmap(&m, 9, 0, 0x100000, 0x80000);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), 0);
	CHECK_EQ(tc_size(&t), 16 + 24);
	CHECK_EQ(ld64(tc_payload(&t) + 8), 0x100000);
	CHECK_EQ(ld64(tc_payload(&t) + 16), 0x80000);
	CHECK_EQ(d->dma.n, 2);
	/* dirty bitmap flag: not supported; unknown flag: invalid */
	mb_dma_unmap(&m, 10, 1, 0x200000, 0x80000);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), ENOTSUP);
	mb_dma_unmap(&m, 10, 8, 0x200000, 0x80000);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	/* unmap all */
	mb_dma_unmap(&m, 11, VFU_UNMAP_ALL, 0, 0);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), 0);
	CHECK_EQ(d->dma.n, 0);
	CHECK_EQ(d->dma.nfiles, 0);
	/* truncated DMA_MAP closes */
	mb_start(&m, 12, VFU_DMA_MAP, 0);
	mb_u32(&m, 32);
	mb_u32(&m, 3);
	mb_end(&m);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), -1);
	tc_fini(&t);
	gmem_free(&g);
	dev_destroy(d);
}

static void region_io(void)
{
	struct dev *d = dev1();
	struct tconn t;
	struct mb m;
	uint32_t ones = 0xFFFFFFFF, v;
	uint8_t b8[8] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };

	tc_init(&t, d);
	CHECK_EQ(tc_negotiate(&t), 0);
	mb_region_read(&m, 2, REG_CONFIG, 0, 4096);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), 0);
	CHECK_EQ(tc_size(&t), 32 + 4096);
	CHECK_EQ(ld16(tc_payload(&t) + 16), 0x1d0f);
	CHECK_EQ(ld16(tc_payload(&t) + 18), 0x7164);
	CHECK_EQ(ld32(tc_payload(&t) + 16 + 8) >> 8, 0x120000);
	CHECK_EQ(tc_payload(&t)[16 + 0x34], 0x40);
	CHECK_EQ(tc_payload(&t)[16 + 0x40], 0x10);	/* PCIe capability */
	CHECK_EQ(tc_payload(&t)[16 + 0x3D], 1);		/* INTA */
	/* BAR sizing */
	mb_region_write(&m, 3, REG_CONFIG, 0x10, &ones, 4, 0);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), 0);
	CHECK_EQ(tc_size(&t), 32);
	mb_region_write(&m, 3, REG_CONFIG, 0x14, &ones, 4, 0);
	tc_send(&t, &m, NULL, 0);
	mb_region_write(&m, 3, REG_CONFIG, 0x20, &ones, 4, 0);
	tc_send(&t, &m, NULL, 0);
	mb_region_write(&m, 3, REG_CONFIG, 0x24, &ones, 4, 0);
	tc_send(&t, &m, NULL, 0);
	mb_region_read(&m, 4, REG_CONFIG, 0x10, 24);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(ld32(tc_payload(&t) + 16), 0xC0000004);	/* 1 GiB, 64-bit */
	CHECK_EQ(ld32(tc_payload(&t) + 20), 0xFFFFFFFF);
	CHECK_EQ(ld32(tc_payload(&t) + 24), 0);			/* BAR2 absent */
	CHECK_EQ(ld32(tc_payload(&t) + 32), 0x0000000C);	/* 32 GiB, 64-bit pref */
	CHECK_EQ(ld32(tc_payload(&t) + 36), 0xFFFFFFF8);
	/* vendor id is read-only, command register masks */
	v = 0xFFFFFFFF;
	mb_region_write(&m, 5, REG_CONFIG, 0, &v, 4, 0);
	tc_send(&t, &m, NULL, 0);
	mb_region_write(&m, 5, REG_CONFIG, 4, &v, 2, 0);
	tc_send(&t, &m, NULL, 0);
	CHECK_EQ(ld16(d->cfg), 0x1d0f);
	CHECK_EQ(ld16(d->cfg + 4), 0x0546);
	CHECK(atomic_load(&d->bus_master));
	/* bounds */
	mb_region_read(&m, 6, REG_CONFIG, 4095, 2);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	mb_region_read(&m, 6, REG_BAR0, UINT64_MAX - 3, 8);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	mb_region_read(&m, 6, 3, 0, 4);			/* region of size 0 */
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	mb_region_read(&m, 6, 200, 0, 4);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	mb_region_read(&m, 6, REG_CONFIG, 0, 0);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	mb_region_read(&m, 6, REG_BAR4, 0, VFU_MAX_XFER + 1);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	mb_region_read(&m, 6, REG_BAR0, 1, 4);		/* misaligned */
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	mb_region_read(&m, 6, REG_BAR0, 0, 16);		/* BAR0: 1/2/4/8 only */
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	mb_region_read(&m, 6, REG_CONFIG, 0, 4);
	mb_u32(&m, 0);					/* trailing bytes */
	mb_end(&m);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	/* write whose count disagrees with its data */
	mb_region_write(&m, 7, REG_CONFIG, 0x0C, &v, 1, 0);
	st32(m.buf + 16 + 12, 2);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	/* BAR4 through the socket, at its last bytes */
	mb_region_write(&m, 8, REG_BAR4, (32ull << 30) - 8, b8, 8, 0);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), 0);
	CHECK_EQ(d->dram[(32ull << 30) - 1], 0x88);
	mb_region_write(&m, 8, REG_BAR4, (32ull << 30) - 4, b8, 8, 0);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	/* posted write: no reply, even when it fails */
	t.nreplies = 0;
	v = 0x5A;
	mb_region_write(&m, 9, REG_CONFIG, 0x0C, &v, 1, VFU_F_NO_REPLY);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(t.nreplies, 0);
	CHECK_EQ(d->cfg[0x0C], 0x5A);
	mb_region_write(&m, 9, REG_CONFIG, 4095, &v, 4, VFU_F_NO_REPLY);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(t.nreplies, 0);
	CHECK(!t.c.dead);
	tc_fini(&t);
	dev_destroy(d);
}

static void write_multi(void)
{
	struct dev *d = dev1();
	struct tconn t;
	struct mb m;

	tc_init(&t, d);
	CHECK_EQ(tc_negotiate(&t), 0);
	mb_start(&m, 2, VFU_REGION_WRITE_MULTI, 0);
	mb_u64(&m, 2);
	mb_u64(&m, 0x0C);
	mb_u32(&m, REG_CONFIG);
	mb_u32(&m, 1);
	mb_u64(&m, 0x33);
	mb_u64(&m, 0x3C);
	mb_u32(&m, REG_CONFIG);
	mb_u32(&m, 1);
	mb_u64(&m, 0x0B);
	mb_end(&m);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), 0);
	CHECK_EQ(ld64(tc_payload(&t)), 2);
	CHECK_EQ(d->cfg[0x0C], 0x33);
	CHECK_EQ(d->cfg[0x3C], 0x0B);
	st64(m.buf + 16, 3);				/* count disagrees with size */
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	st64(m.buf + 16, 2);
	st32(m.buf + 16 + 8 + 24 + 12, 9);		/* second write of 9 bytes */
	d->cfg[0x0C] = 0;
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	CHECK_EQ(d->cfg[0x0C], 0);			/* nothing applied */
	tc_fini(&t);
	dev_destroy(d);
}

static void set_irqs(void)
{
	struct dev *d = dev1();
	struct tconn t;
	struct mb m;
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), fds[2];
	uint64_t cnt = 0;

	tc_init(&t, d);
	CHECK_EQ(tc_negotiate(&t), 0);
#define IRQ_MSG(fl, idx, st, ct) do { mb_start(&m, 3, VFU_DEVICE_SET_IRQS, 0); mb_u32(&m, 20); \
		mb_u32(&m, fl); mb_u32(&m, idx); mb_u32(&m, st); mb_u32(&m, ct); mb_end(&m); } while (0)
	fds[0] = dup(efd);
	IRQ_MSG(VFU_SET_DATA_EVENTFD | VFU_SET_ACTION_TRIGGER, IRQ_INTX, 0, 1);
	CHECK_EQ(tc_send(&t, &m, fds, 1), 0);
	CHECK_EQ(tc_err(&t), 0);
	CHECK(d->intx_fd >= 0);
	CHECK(dev_intx_raise(d));
	CHECK_EQ(read(efd, &cnt, 8), 8);
	CHECK_EQ(cnt, 1);
	CHECK(!dev_intx_raise(d));			/* automasked */
	IRQ_MSG(VFU_SET_DATA_NONE | VFU_SET_ACTION_UNMASK, IRQ_INTX, 0, 1);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), 0);
	IRQ_MSG(VFU_SET_DATA_NONE | VFU_SET_ACTION_TRIGGER, IRQ_INTX, 0, 1);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);	/* client-triggered */
	CHECK_EQ(read(efd, &cnt, 8), 8);
	/* bad: MSI index, two data flags, count/fd mismatch, start out of range,
	 * mask eventfd, trailing data */
	IRQ_MSG(VFU_SET_DATA_NONE | VFU_SET_ACTION_TRIGGER, IRQ_MSI, 0, 1);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	IRQ_MSG(VFU_SET_DATA_NONE | VFU_SET_DATA_BOOL | VFU_SET_ACTION_TRIGGER, IRQ_INTX, 0, 1);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	fds[0] = dup(efd);
	fds[1] = dup(efd);
	IRQ_MSG(VFU_SET_DATA_EVENTFD | VFU_SET_ACTION_TRIGGER, IRQ_INTX, 0, 1);
	CHECK_EQ(tc_send(&t, &m, fds, 2), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	IRQ_MSG(VFU_SET_DATA_NONE | VFU_SET_ACTION_TRIGGER, IRQ_INTX, 1, 1);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	IRQ_MSG(VFU_SET_DATA_NONE | VFU_SET_ACTION_TRIGGER, IRQ_INTX, 0, 0xFFFFFFFF);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	fds[0] = dup(efd);
	IRQ_MSG(VFU_SET_DATA_EVENTFD | VFU_SET_ACTION_UNMASK, IRQ_INTX, 0, 1);
	CHECK_EQ(tc_send(&t, &m, fds, 1), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	IRQ_MSG(VFU_SET_DATA_NONE | VFU_SET_ACTION_TRIGGER, IRQ_INTX, 0, 1);
	mb_u32(&m, 0);
	mb_end(&m);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	/* DATA_BOOL with its byte */
	mb_start(&m, 3, VFU_DEVICE_SET_IRQS, 0);
	mb_u32(&m, 21);
	mb_u32(&m, VFU_SET_DATA_BOOL | VFU_SET_ACTION_MASK);
	mb_u32(&m, IRQ_INTX);
	mb_u32(&m, 0);
	mb_u32(&m, 1);
	mb_bytes(&m, "\1", 1);
	mb_end(&m);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), 0);
	CHECK(d->intx_masked);
	/* disable the index */
	IRQ_MSG(VFU_SET_DATA_NONE | VFU_SET_ACTION_TRIGGER, IRQ_INTX, 0, 0);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), 0);
	CHECK_EQ(d->intx_fd, -1);
	/* truncated */
	mb_start(&m, 3, VFU_DEVICE_SET_IRQS, 0);
	mb_u32(&m, 20);
	mb_end(&m);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), -1);
#undef IRQ_MSG
	tc_fini(&t);
	close(efd);
	dev_destroy(d);
}

static void device_reset(void)
{
	struct dev *d = dev1();
	struct tconn t;
	struct mb m;
	uint16_t cmd = 6;

	tc_init(&t, d);
	CHECK_EQ(tc_negotiate(&t), 0);
	mb_region_write(&m, 2, REG_CONFIG, 4, &cmd, 2, 0);
	tc_send(&t, &m, NULL, 0);
	CHECK_EQ(ld16(d->cfg + 4), 6);
	mb_start(&m, 3, VFU_DEVICE_RESET, 0);
	mb_u32(&m, 0);
	mb_end(&m);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), EINVAL);
	mb_start(&m, 3, VFU_DEVICE_RESET, 0);
	mb_end(&m);
	CHECK_EQ(tc_send(&t, &m, NULL, 0), 0);
	CHECK_EQ(tc_err(&t), 0);
	CHECK_EQ(ld16(d->cfg + 4), 0);
	CHECK_EQ(atomic_load(&d->st.pci_resets), 1);
	tc_fini(&t);
	dev_destroy(d);
}

const struct test vfu_tests[] = {
	{ "vfu.negotiate", negotiate },
	{ "vfu.version_variants", version_variants },
	{ "vfu.framing", framing },
	{ "vfu.info_region_irq", info },
	{ "vfu.dma_map_unmap", dma_map_unmap },
	{ "vfu.region_io", region_io },
	{ "vfu.write_multi", write_multi },
	{ "vfu.set_irqs", set_irqs },
	{ "vfu.device_reset", device_reset },
	{ NULL, NULL },
};
