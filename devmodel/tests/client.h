/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test-side helpers: building vfio-user messages, an in-process connection
 * that captures replies, and guest memory in a memfd.
 */
#ifndef DM_CLIENT_H
#define DM_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "dev.h"
#include "vfu.h"

/* A message under construction. */
struct mb {
	uint8_t buf[8192];
	size_t len;
};

void mb_start(struct mb *m, uint16_t id, uint16_t cmd, uint32_t flags);
void mb_u16(struct mb *m, uint16_t v);
void mb_u32(struct mb *m, uint32_t v);
void mb_u64(struct mb *m, uint64_t v);
void mb_bytes(struct mb *m, const void *p, size_t n);
void mb_end(struct mb *m);	/* fills in the size */

/* common messages */
void mb_version(struct mb *m, uint16_t id, const char *caps);
void mb_dma_map(struct mb *m, uint16_t id, uint32_t flags, uint64_t off, uint64_t iova, uint64_t size);
void mb_dma_unmap(struct mb *m, uint16_t id, uint32_t flags, uint64_t iova, uint64_t size);
void mb_region_info(struct mb *m, uint16_t id, uint32_t index);
void mb_region_read(struct mb *m, uint16_t id, uint32_t region, uint64_t off, uint32_t count);
void mb_region_write(struct mb *m, uint16_t id, uint32_t region, uint64_t off, const void *data,
		     uint32_t count, uint32_t flags);

/* QEMU 11's capability string */
extern const char qemu_caps[];

/* An in-process connection to a device, capturing the last reply. */
struct tconn {
	struct dev *d;
	struct vfu_conn c;
	uint8_t reply[VFU_MAX_MSG];
	size_t rlen;
	int rfds[4];
	unsigned rnfds;
	int nreplies;
};

void tc_init(struct tconn *t, struct dev *d);
void tc_fini(struct tconn *t);
/* Send a message (with fds) and return vfu_input's result. */
int tc_send(struct tconn *t, const struct mb *m, const int *fds, unsigned nfds);
/* reply accessors */
uint32_t tc_err(const struct tconn *t);		/* 0 when no error flag */
uint32_t tc_size(const struct tconn *t);
const uint8_t *tc_payload(const struct tconn *t);
/* negotiate with QEMU's capabilities; returns 0 on success */
int tc_negotiate(struct tconn *t);

/* A device for tests: trn1/trn2, sync engines unless async. */
struct dev *t_dev(const char *pers, bool async);

/* guest memory: a memfd of size bytes mapped here too */
struct gmem {
	int fd;
	uint8_t *p;
	uint64_t size;
};

int gmem_new(struct gmem *g, uint64_t size);
void gmem_free(struct gmem *g);

#endif
