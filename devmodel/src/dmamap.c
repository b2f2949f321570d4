// SPDX-License-Identifier: GPL-2.0
/* DMA map table: see dmamap.h. */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dmamap.h"
#include "util.h"

void dmamap_init(struct dmamap *m, size_t max_entries)
{
	pthread_rwlockattr_t a;

	memset(m, 0, sizeof(*m));
	pthread_rwlockattr_init(&a);
	/* Writers (UNMAP) must not starve behind a stream of engine reads. */
	pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&m->lock, &a);
	pthread_rwlockattr_destroy(&a);
	m->max = max_entries;
}

static void file_put(struct dmamap *m, struct dma_file *f)
{
	if (!f || --f->refs)
		return;
	for (size_t i = 0; i < m->nfiles; i++) {
		if (m->files[i] == f) {
			m->files[i] = m->files[--m->nfiles];
			break;
		}
	}
	munmap(f->base, f->size);
	free(f);
}

/* The shared whole-file mapping of fd (a new reference), or NULL. */
static struct dma_file *file_get(struct dmamap *m, int fd, uint64_t need_end, int *err)
{
	struct stat st;
	struct dma_file *f;
	void *p;
	bool wr = true;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		*err = -EINVAL;
		return NULL;
	}
	if ((uint64_t)st.st_size < need_end) {
		*err = -EINVAL;
		return NULL;
	}
	for (size_t i = 0; i < m->nfiles; i++) {
		f = m->files[i];
		if (f->dev == st.st_dev && f->ino == st.st_ino && f->size >= need_end) {
			f->refs++;
			return f;
		}
	}
	if (m->nfiles == m->files_cap) {
		size_t nc = m->files_cap ? m->files_cap * 2 : 4;
		struct dma_file **nf = realloc(m->files, nc * sizeof(*nf));

		if (!nf) {
			*err = -ENOMEM;
			return NULL;
		}
		m->files = nf;
		m->files_cap = nc;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		wr = false;
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	}
	if (p == MAP_FAILED) {
		*err = -EINVAL;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		munmap(p, (size_t)st.st_size);
		*err = -ENOMEM;
		return NULL;
	}
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->base = p;
	f->size = (uint64_t)st.st_size;
	f->writable = wr;
	f->refs = 1;
	m->files[m->nfiles++] = f;
	return f;
}

/* Index of the first entry whose end is above addr. */
static size_t lower(const struct dmamap *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct dma_region *r = &m->r[mid];

		if (r->iova + (r->size - 1) < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int dmamap_add(struct dmamap *m, uint64_t iova, uint64_t size, uint64_t offset,
	       uint32_t flags, int fd)
{
	struct dma_file *f = NULL;
	uint64_t last, fend = 0;
	size_t i;
	int err = 0;

	if (!size || (flags & ~(DMA_FLAG_READ | DMA_FLAG_WRITE)) ||
	    __builtin_add_overflow(iova, size - 1, &last) ||
	    (fd >= 0 && __builtin_add_overflow(offset, size, &fend))) {
		err = -EINVAL;
		goto out;
	}
	pthread_rwlock_wrlock(&m->lock);
	i = lower(m, iova);
	if (i < m->n && m->r[i].iova <= last) {
		err = -EEXIST;
		goto unlock;
	}
	if (m->n >= m->max) {
		err = -ENOSPC;
		goto unlock;
	}
	if (m->n == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 16;
		struct dma_region *nr = realloc(m->r, nc * sizeof(*nr));

		if (!nr) {
			err = -ENOMEM;
			goto unlock;
		}
		m->r = nr;
		m->cap = nc;
	}
	if (fd >= 0) {
		f = file_get(m, fd, fend, &err);
		if (!f)
			goto unlock;
		if ((flags & DMA_FLAG_WRITE) && !f->writable) {
			file_put(m, f);
			err = -EINVAL;
			goto unlock;
		}
	}
	memmove(&m->r[i + 1], &m->r[i], (m->n - i) * sizeof(*m->r));
	m->r[i] = (struct dma_region){ .iova = iova, .size = size, .offset = offset,
				       .flags = flags, .file = f };
	m->n++;
unlock:
	pthread_rwlock_unlock(&m->lock);
out:
	if (fd >= 0)
		close(fd);
	return err;
}

int dmamap_remove(struct dmamap *m, uint64_t iova, uint64_t size, bool all, size_t *removed)
{
	uint64_t last;
	size_t i, j;
	int err = 0;

	if (removed)
		*removed = 0;
	if (!all && (!size || __builtin_add_overflow(iova, size - 1, &last)))
		return -EINVAL;
	pthread_rwlock_wrlock(&m->lock);
	if (all) {
		i = 0;
		j = m->n;
	} else {
		i = lower(m, iova);
		if (i < m->n && m->r[i].iova < iova && m->r[i].iova <= last) {
			err = -EINVAL;	/* would split the entry holding iova */
			goto unlock;
		}
		for (j = i; j < m->n && m->r[j].iova <= last; j++) {
			if (m->r[j].iova + (m->r[j].size - 1) > last) {
				err = -EINVAL;
				goto unlock;
			}
		}
	}
	for (size_t k = i; k < j; k++)
		file_put(m, m->r[k].file);
	if (j > i) {
		memmove(&m->r[i], &m->r[j], (m->n - j) * sizeof(*m->r));
		m->n -= j - i;
	}
	if (removed)
		*removed = j - i;
unlock:
	pthread_rwlock_unlock(&m->lock);
	return err;
}

void dmamap_clear(struct dmamap *m)
{
	dmamap_remove(m, 0, 0, true, NULL);
}

void dmamap_fini(struct dmamap *m)
{
	dmamap_clear(m);
	free(m->r);
	free(m->files);
	pthread_rwlock_destroy(&m->lock);
}

void dmamap_rdlock(struct dmamap *m)
{
	pthread_rwlock_rdlock(&m->lock);
}

void dmamap_unlock(struct dmamap *m)
{
	pthread_rwlock_unlock(&m->lock);
}

enum dma_result dmamap_xlate_part(struct dmamap *m, uint64_t addr, uint64_t len, bool write,
				  void **ptr, uint64_t *avail)
{
	const struct dma_region *r;
	size_t i;
	uint64_t off;

	if (!len)
		return DMA_UNMAPPED;
	i = lower(m, addr);
	if (i >= m->n || m->r[i].iova > addr)
		return DMA_UNMAPPED;
	r = &m->r[i];
	off = addr - r->iova;
	if (!(r->flags & (write ? DMA_FLAG_WRITE : DMA_FLAG_READ)))
		return DMA_PERM;
	if (!r->file)
		return DMA_NOFD;
	*ptr = (uint8_t *)r->file->base + r->offset + off;
	*avail = r->size - off < len ? r->size - off : len;
	return DMA_OK;
}

enum dma_result dmamap_xlate(struct dmamap *m, uint64_t addr, uint64_t len, bool write, void **ptr)
{
	uint64_t avail;
	void *p;
	enum dma_result r = dmamap_xlate_part(m, addr, len, write, &p, &avail);

	if (r == DMA_OK && avail < len)
		return DMA_CROSSES;
	if (r == DMA_OK)
		*ptr = p;
	return r;
}

const char *dma_result_str(enum dma_result r)
{
	switch (r) {
	case DMA_OK:
		return "ok";
	case DMA_UNMAPPED:
		return "address not in any DMA map";
	case DMA_CROSSES:
		return "range crosses the end of a DMA map";
	case DMA_NOFD:
		return "DMA map has no file descriptor (DMA over the socket is not implemented)";
	case DMA_PERM:
		return "DMA map lacks the needed read/write flag";
	}
	return "?";
}
