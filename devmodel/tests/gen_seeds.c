// SPDX-License-Identifier: GPL-2.0
/* Writes the seed corpus of the fuzz target (see fuzz/fuzz_vfu.c for the
 * input format): gen-seeds DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "crc32c.h"
#include "util.h"

static uint8_t out[65536];
static size_t olen;

static void begin(uint8_t mode)
{
	olen = 0;
	out[olen++] = mode;
}

static void add(const struct mb *m)
{
	memcpy(out + olen, m->buf, m->len);
	olen += m->len;
}

static void add_raw(const void *p, size_t n)
{
	memcpy(out + olen, p, n);
	olen += n;
}

static void save(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.bin", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(out, 1, olen, f) != olen || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void w32(uint16_t id, uint64_t off, uint32_t v)
{
	struct mb m;

	mb_region_write(&m, id, REG_BAR0, off, &v, 4, 0);
	add(&m);
}

static void simple(struct mb *m, uint16_t id, uint16_t cmd, uint32_t a, uint32_t b, uint32_t c,
		   uint32_t dd, unsigned words)
{
	uint32_t v[4] = { a, b, c, dd };

	mb_start(m, id, cmd, 0);
	for (unsigned i = 0; i < words; i++)
		mb_u32(m, v[i]);
	mb_end(m);
}

int main(int argc, char **argv)
{
	struct mb m;
	const char *dir = argc > 1 ? argv[1] : ".";
	uint16_t cmd = 6;
	uint8_t desc[16];

	/* 1: the handshake alone */
	begin(0x06);
	mb_version(&m, 1, qemu_caps);
	add(&m);
	save(dir, "version");

	/* 2: what QEMU asks at realize */
	begin(0x10 | 0x08);
	simple(&m, 2, VFU_DEVICE_GET_INFO, 16, 0, 0, 0, 4);
	add(&m);
	for (uint32_t i = 0; i < 9; i++) {
		mb_region_info(&m, 3, i);
		add(&m);
	}
	for (uint32_t i = 0; i < 5; i++) {
		simple(&m, 4, VFU_DEVICE_GET_IRQ_INFO, 16, 0, i, 0, 4);
		add(&m);
	}
	mb_region_read(&m, 5, REG_CONFIG, 0, 4096);
	add(&m);
	save(dir, "realize");

	/* 3: DMA maps (with the memfd), unmaps, config and BAR4 writes */
	begin(0x10 | 0x01 | 0x0E);
	mb_dma_map(&m, 6, 3, 0, 0x40000000, 1 << 20);
	add(&m);
	mb_dma_map(&m, 7, 1, 0, 0xFFFC0000, 0x40000);
	add(&m);
	mb_dma_unmap(&m, 8, 0, 0xFFFC0000, 0x40000);
	add(&m);
	mb_region_write(&m, 9, REG_CONFIG, 4, &cmd, 2, 0);
	add(&m);
	mb_region_write(&m, 10, REG_BAR4, 0x1000, "0123456789abcdef", 16, 0);
	add(&m);
	mb_dma_unmap(&m, 11, VFU_UNMAP_ALL, 0, 0);
	add(&m);
	save(dir, "dma_maps");

	/* 4: a copy on engine 32 with both rings in DRAM, DRAM -> host */
	begin(0x10 | 0x01 | 0x0E);
	mb_dma_map(&m, 1, 3, 0, 0x40000000, 1 << 20);
	add(&m);
	mb_region_write(&m, 2, REG_CONFIG, 4, &cmd, 2, 0);
	add(&m);
	st32(desc, 64 | (1u << 24) | (3u << 26));
	st32(desc + 4, 0x01080003);
	st64(desc + 8, 0x3000);
	mb_region_write(&m, 3, REG_BAR4, 0x1000000, desc, 16, 0);	/* TX ring */
	add(&m);
	st32(desc, 64 | (1u << 24));
	st32(desc + 4, 0);
	st64(desc + 8, (1ull << 44) | 0x40000800);
	mb_region_write(&m, 4, REG_BAR4, 0x1010000, desc, 16, 0);	/* RX ring */
	add(&m);
	w32(5, 0x30600000 + 0x254, 0x010FFFFF);
	for (int s = 0; s < 2; s++) {
		uint64_t q = 0x30600000ull + s * 0x20000 + 0x1000;

		w32(6, q + 0x20, 0x03000000);
		w32(7, q + (s ? 0x64 : 0xB0), 0x100);
		w32(8, q + 0x28, s ? 0x1010000 : 0x1000000);
		w32(9, q + 0x2C, 0);
		w32(10, q + 0x30, 32);
		w32(11, q + 0x20, 0x03030000);
	}
	w32(12, 0x30600000 + 0x21000 + 0x38, 1);
	w32(13, 0x30600000 + 0x1000 + 0x38, 1);
	mb_region_read(&m, 14, REG_BAR0, 0x30600000 + 0x1000 + 0x34, 4);
	add(&m);
	mb_region_read(&m, 15, REG_BAR0, 0x30600000 + 0x3A000, 4);
	add(&m);
	save(dir, "udma_copy");

	/* 5: mailbox: request in guest memory (mode bit 5), read registers */
	begin(0x10 | 0x01 | 0x20 | 0x0E);
	{
		uint8_t g[512] = { 0 };

		g[0] = 3;
		g[1] = 1;
		st16(g + 2, 24);
		st64(g + 8, 0x0FFFF0FA0038ull);
		st64(g + 16, 0x0FFFF0FA003Cull);
		st32(g + 4, crc32c(0, g, 24));
		add_raw(g, sizeof(g));
	}
	mb_dma_map(&m, 1, 3, 0, 0x40000000, 1 << 20);
	add(&m);
	mb_region_write(&m, 2, REG_CONFIG, 4, &cmd, 2, 0);
	add(&m);
	w32(3, 0x30FA0000 + 0x1F0, 0x1000);
	w32(4, 0x30FA0000 + 0x1F4, 0x40000000);
	w32(5, 0x30FA0000 + 0x1F8, 0x1000);
	w32(6, 0x30FA0000 + 0x1FC, 0x40001000);
	w32(7, 0x30FA0000 + 0x800, 1);
	/* and a TPB reset */
	w32(8, 0x30FA0000 + 0x1D8, 0x701);
	w32(9, 0x30FA0000 + 0x1EC, 2);
	w32(10, 0x30FA0000 + 0x800, 1);
	mb_region_read(&m, 11, REG_BAR0, 0x30FA0000 + 0x808, 4);
	add(&m);
	save(dir, "mailbox_reset");

	/* 6: IRQs, multi-write, reset, semaphores, notification slot, no-reply */
	begin(0x10 | 0x04);
	mb_start(&m, 1, VFU_DEVICE_SET_IRQS, 0);
	mb_u32(&m, 20);
	mb_u32(&m, VFU_SET_DATA_NONE | VFU_SET_ACTION_UNMASK);
	mb_u32(&m, 0);
	mb_u32(&m, 0);
	mb_u32(&m, 1);
	mb_end(&m);
	add(&m);
	mb_start(&m, 2, VFU_REGION_WRITE_MULTI, VFU_F_NO_REPLY);
	mb_u64(&m, 1);
	mb_u64(&m, 0x2700000 + 0x1800);
	mb_u32(&m, REG_BAR0);
	mb_u32(&m, 4);
	mb_u64(&m, 5);
	mb_end(&m);
	add(&m);
	w32(3, 0x30535000 + 0x104, 0x1000);
	w32(4, 0x30535000 + 0x100, 0x40000000);
	w32(5, 0x30535000 + 0x108, 4096);
	mb_region_write(&m, 6, REG_BAR0, 0x30000000 + 0x204, "\4\0\0\0", 4, VFU_F_NO_REPLY);
	add(&m);
	mb_start(&m, 7, VFU_DEVICE_RESET, 0);
	mb_end(&m);
	add(&m);
	save(dir, "misc");
	return 0;
}
