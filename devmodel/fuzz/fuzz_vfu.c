// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the vfio-user message parser and everything behind it
 * (region I/O into the register file, the UDMA walker, the mailbox), on a
 * trn1 device whose engines run inline.
 *
 * Input: one mode byte, then the byte stream the client would send.
 *   bit 0  attach a descriptor of a 1 MiB memfd ("guest memory") to every
 *          chunk fed (DMA_MAP takes it, other commands must refuse it)
 *   bits 1-3  chunk size: 1 << (2 * value) bytes (1 .. 16 KiB)
 *   bit 4  negotiate first with QEMU's VERSION message
 *   bit 5  the next 512 bytes fill the start of guest memory (rings,
 *          descriptors, mailbox requests)
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dev.h"
#include "util.h"
#include "vfu.h"

#define GUEST (1u << 20)

static struct dev *d;
static int guest_fd = -1;
static uint8_t *guest;

static int discard(void *ctx, const void *buf, size_t len, const int *fds, unsigned nfds)
{
	(void)ctx;
	(void)fds;
	(void)nfds;
	/* a reply is never larger than the message limit plus its header */
	if (len < VFU_HDR_SIZE || len > VFU_MAX_MSG + VFU_HDR_SIZE || ld32((const uint8_t *)buf + 4) != len)
		abort();
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct dev_opts o = { .pers = "trn1", .sync = true, .reset_busy_ms = 0, .routing_id = 1 };

	(void)argc;
	(void)argv;
	dm_log_level = -1;
	d = dev_create(&o);
	guest_fd = memfd_create("fuzz-guest", MFD_CLOEXEC);
	if (!d || guest_fd < 0 || ftruncate(guest_fd, GUEST))
		abort();
	guest = mmap(NULL, GUEST, PROT_READ | PROT_WRITE, MAP_SHARED, guest_fd, 0);
	if (guest == MAP_FAILED)
		abort();
	return 0;
}

static const char qemu_version[] =
	"{\"capabilities\": {\"pgsizes\": 4096, \"max_msg_fds\": 16, \"max_dma_maps\": 65535, "
	"\"max_data_xfer_size\": 1048576, \"migration\": {\"max_bitmap_size\": 268435456, "
	"\"pgsize\": 4096}, \"write_multiple\": true}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vfu_conn c;
	uint8_t mode;
	size_t chunk;

	if (!size)
		return 0;
	mode = data[0];
	data++;
	size--;
	chunk = (size_t)1 << (2 * ((mode >> 1) & 7));
	memset(guest, 0, 4096);
	if (mode & 0x20) {
		size_t n = size < 512 ? size : 512;

		memcpy(guest, data, n);
		data += n;
		size -= n;
	}
	vfu_conn_init(&c, d, discard, NULL);
	if (mode & 0x10) {
		uint8_t v[16 + 4 + sizeof(qemu_version)];

		memset(v, 0, sizeof(v));
		st16(v + 2, VFU_VERSION);
		st32(v + 4, sizeof(v));
		memcpy(v + 20, qemu_version, sizeof(qemu_version));
		if (vfu_input(&c, v, sizeof(v), NULL, 0))
			abort();
	}
	while (size) {
		size_t n = size < chunk ? size : chunk;
		int fd = (mode & 1) ? dup(guest_fd) : -1;

		if (vfu_input(&c, data, n, fd >= 0 ? &fd : NULL, fd >= 0) < 0)
			break;
		data += n;
		size -= n;
	}
	vfu_conn_fini(&c);
	dev_client_gone(d);
	dev_pci_reset(d);
	/* give DRAM pages back so that long runs stay small */
	fallocate(d->dram_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)d->bar4_size);
	return 0;
}
