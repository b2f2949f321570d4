/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table of client memory the device may reach (vfio-user DMA_MAP and
 * DMA_UNMAP). Each entry is a range of DMA addresses (guest physical
 * addresses, or IOVAs when the client has a vIOMMU), its access flags and,
 * when the client passed a file descriptor, where it lies in a mapping of
 * that file. Files are mapped whole, once per file (keyed by device and
 * inode), and shared by the entries that use them.
 *
 * Locking: a read-write lock. Users of translated pointers (engine workers,
 * the mailbox) hold the read side for as long as they touch the memory, so
 * an UNMAP (write side) waits for DMA in flight before its reply.
 */
#ifndef DM_DMAMAP_H
#define DM_DMAMAP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define DMA_FLAG_READ 1u
#define DMA_FLAG_WRITE 2u

enum dma_result {
	DMA_OK = 0,
	DMA_UNMAPPED,	/* no entry holds the first byte */
	DMA_CROSSES,	/* starts in an entry but runs past its end */
	DMA_NOFD,	/* entry has no file descriptor: not reachable here */
	DMA_PERM,	/* entry lacks the read or write flag */
};

struct dma_file {
	dev_t dev;
	ino_t ino;
	void *base;
	uint64_t size;
	bool writable;
	unsigned refs;
};

struct dma_region {
	uint64_t iova, size, offset;
	uint32_t flags;
	struct dma_file *file;	/* NULL: mapped without a file descriptor */
};

struct dmamap {
	pthread_rwlock_t lock;
	struct dma_region *r;	/* sorted by iova, never overlapping */
	size_t n, cap, max;
	struct dma_file **files;
	size_t nfiles, files_cap;
};

void dmamap_init(struct dmamap *m, size_t max_entries);
void dmamap_fini(struct dmamap *m);

/*
 * Add [iova, iova + size). fd (or -1) is always consumed. Returns 0 or a
 * negative errno: -EINVAL bad arguments or unusable fd, -EEXIST overlap,
 * -ENOSPC table full, -ENOMEM.
 */
int dmamap_add(struct dmamap *m, uint64_t iova, uint64_t size, uint64_t offset,
	       uint32_t flags, int fd);

/*
 * Remove every entry inside [iova, iova + size), or every entry when all is
 * set. An entry only partly inside the range fails the call with -EINVAL
 * and nothing is removed. *removed (may be NULL) gets the count.
 */
int dmamap_remove(struct dmamap *m, uint64_t iova, uint64_t size, bool all, size_t *removed);

void dmamap_clear(struct dmamap *m);

void dmamap_rdlock(struct dmamap *m);
void dmamap_unlock(struct dmamap *m);

/* With the read lock held: a pointer to [addr, addr + len) for reading or
 * writing, or the reason there is none. len 0 is refused (DMA_UNMAPPED). */
/*
 * Like dmamap_xlate(), for the part of [addr, addr + len) inside the map
 * that holds addr: *avail gets its length (at most len). A transfer that
 * goes on into the next map (a vIOMMU maps page by page) asks again.
 */
enum dma_result dmamap_xlate_part(struct dmamap *m, uint64_t addr, uint64_t len, bool write,
				  void **ptr, uint64_t *avail);
enum dma_result dmamap_xlate(struct dmamap *m, uint64_t addr, uint64_t len, bool write, void **ptr);

const char *dma_result_str(enum dma_result r);

#endif
