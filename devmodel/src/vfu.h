/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vfio-user server side of one connection: an incremental reader that
 * frames messages from a byte stream (with the file descriptors that came
 * along), checks every field, and answers. The transport is a callback so
 * that the same code serves the socket, the unit tests and the fuzzer.
 *
 * Wire format (host endian, QEMU's docs/interop/vfio-user.rst): a 16-byte
 * header {u16 id, u16 command, u32 size (whole message), u32 flags (bits
 * 0-3 type: 0 command, 1 reply; bit 4 no reply; bit 5 error), u32 error}
 * followed by the command's payload.
 */
#ifndef DM_VFU_H
#define DM_VFU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"

struct dev;

enum vfu_cmd {
	VFU_VERSION = 1,
	VFU_DMA_MAP = 2,
	VFU_DMA_UNMAP = 3,
	VFU_DEVICE_GET_INFO = 4,
	VFU_DEVICE_GET_REGION_INFO = 5,
	VFU_DEVICE_GET_REGION_IO_FDS = 6,
	VFU_DEVICE_GET_IRQ_INFO = 7,
	VFU_DEVICE_SET_IRQS = 8,
	VFU_REGION_READ = 9,
	VFU_REGION_WRITE = 10,
	VFU_DMA_READ = 11,
	VFU_DMA_WRITE = 12,
	VFU_DEVICE_RESET = 13,
	VFU_DIRTY_PAGES = 14,
	VFU_REGION_WRITE_MULTI = 15,
	VFU_DEVICE_FEATURE = 16,
	VFU_MIG_DATA_READ = 17,
	VFU_MIG_DATA_WRITE = 18,
};

#define VFU_HDR_SIZE 16
#define VFU_TYPE_MASK 0xFu
#define VFU_TYPE_COMMAND 0u
#define VFU_TYPE_REPLY 1u
#define VFU_F_NO_REPLY (1u << 4)
#define VFU_F_ERROR (1u << 5)

/* limits this server announces */
#define VFU_MAX_FDS 8u			/* max_msg_fds */
#define VFU_MAX_XFER (1u << 20)		/* max_data_xfer_size */
#define VFU_MAX_DMA_MAPS 65535u		/* max_dma_maps */
/* largest message accepted: header + region I/O header + max transfer */
#define VFU_MAX_MSG (VFU_HDR_SIZE + 16 + VFU_MAX_XFER)
#define VFU_MULTI_MAX 1024u		/* writes in one REGION_WRITE_MULTI */

/* region info and device info flags (as in VFIO) */
#define VFU_DEV_FLAG_RESET 1u
#define VFU_DEV_FLAG_PCI 2u
#define VFU_REGION_READ_F 1u
#define VFU_REGION_WRITE_F 2u
#define VFU_REGION_MMAP_F 4u
#define VFU_IRQ_EVENTFD 1u
#define VFU_IRQ_MASKABLE 2u
#define VFU_IRQ_AUTOMASKED 4u
#define VFU_IRQ_NORESIZE 8u
#define VFU_SET_DATA_NONE 1u
#define VFU_SET_DATA_BOOL 2u
#define VFU_SET_DATA_EVENTFD 4u
#define VFU_SET_ACTION_MASK 8u
#define VFU_SET_ACTION_UNMASK 16u
#define VFU_SET_ACTION_TRIGGER 32u
#define VFU_UNMAP_GET_DIRTY 1u
#define VFU_UNMAP_ALL 2u

typedef int (*vfu_send_fn)(void *ctx, const void *buf, size_t len, const int *fds, unsigned nfds);

struct vfu_conn {
	struct dev *d;
	vfu_send_fn send;
	void *send_ctx;

	/* framing */
	uint8_t hdr[VFU_HDR_SIZE];
	size_t hdr_have;
	uint8_t *body;
	size_t body_len, body_have;
	int fds[VFU_MAX_FDS];
	unsigned nfds;

	/* session */
	bool negotiated, dead;
	char why[128];			/* why the connection was closed */
	struct vfu_caps peer;
	uint64_t peer_max_fds, peer_max_xfer;
	bool multi;

	/* counters */
	uint64_t msgs, errors;
};

void vfu_conn_init(struct vfu_conn *c, struct dev *d, vfu_send_fn send, void *ctx);
void vfu_conn_fini(struct vfu_conn *c);

/*
 * Feed received bytes and the descriptors received with them (ownership of
 * the fds passes to the connection). Complete messages are handled and
 * answered at once. Returns 0, or -1 when the connection must be closed
 * (c->why says why); after -1 every further call returns -1.
 */
int vfu_input(struct vfu_conn *c, const void *data, size_t len, const int *fds, unsigned nfds);

/*
 * Bytes the framing needs next: the rest of the header, else the rest of the
 * body. A socket reader must not read past this: on a UNIX stream socket the
 * descriptors arrive with the bytes of the sendmsg() that carried them, and a
 * read that crosses a message boundary would hand them to the wrong message.
 */
size_t vfu_want(const struct vfu_conn *c);

#endif
