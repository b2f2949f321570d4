// SPDX-License-Identifier: GPL-2.0
/*
 * libnrt.so.1: tensors and tensor sets.
 *
 * A tensor is a view (offset, size) on a storage shared with its slices:
 * device memory of the driver (MEM_ALLOC NEURON_MEM_DEVICE, mapped
 * MAP_SHARED so that reads and writes are plain memory copies; if the
 * mapping is refused, COPY / MEMSET ioctls move the bytes instead), host
 * memory of the library, or a buffer the caller attached.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nrt_internal.h"

#define HOST_ALIGN 64

static void tname(const nrt_tensor_t *t, char *buf, size_t len)
{
	if (t && t->name[0])
		snprintf(buf, len, "tensor '%s'", t->name);
	else
		snprintf(buf, len, "tensor %p", (const void *)t);
}

static void set_name(nrt_tensor_t *t, const char *name)
{
	snprintf(t->name, sizeof(t->name), "%s", name ? name : "");
}

/* Device storage usable now: same nrt_init generation. Read lock held. */
static int st_live(const struct nrt_storage *st)
{
	return st->kind != NRT_ST_DEVICE || st->gen == nrt_rt.gen;
}

/* Device storage of the current run: on nrt_rt.dev_mem. Read lock held. */
static void st_link(struct nrt_storage *st)
{
	pthread_mutex_lock(&nrt_rt.obj_lock);
	st->prev = NULL;
	st->next = nrt_rt.dev_mem;
	if (st->next)
		st->next->prev = st;
	nrt_rt.dev_mem = st;
	pthread_mutex_unlock(&nrt_rt.obj_lock);
}

static void st_unlink(struct nrt_storage *st)
{
	pthread_mutex_lock(&nrt_rt.obj_lock);
	if (st->prev)
		st->prev->next = st->next;
	else
		nrt_rt.dev_mem = st->next;
	if (st->next)
		st->next->prev = st->prev;
	st->prev = NULL;
	st->next = NULL;
	pthread_mutex_unlock(&nrt_rt.obj_lock);
}

/*
 * nrt_close(), write lock held: each device mapping of the run becomes an
 * inaccessible reservation of the same addresses (PROT_NONE, no memory),
 * which drops the mapping's hold on the device file. An address the caller
 * kept from nrt_tensor_get_va() then faults instead of reaching memory
 * mapped there later; nrt_tensor_free() unmaps the reservation.
 */
void nrt_drop_dev_mem(void)
{
	struct nrt_storage *st, *next;
	void *p;

	for (st = nrt_rt.dev_mem; st; st = next) {
		next = st->next;
		st->prev = NULL;
		st->next = NULL;
		if (!st->ptr)
			continue;
		p = mmap(st->ptr, st->map_len, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED) {
			munmap(st->ptr, st->map_len);
			st->ptr = NULL;
		}
	}
	nrt_rt.dev_mem = NULL;
}

static void st_put(struct nrt_storage *st)
{
	if (!st || __atomic_sub_fetch(&st->refs, 1, __ATOMIC_ACQ_REL))
		return;
	switch (st->kind) {
	case NRT_ST_DEVICE:
		pthread_rwlock_rdlock(&nrt_rt.lock);
		if (nrt_rt.state == NRT_STATE_INIT && st->gen == nrt_rt.gen) {
			st_unlink(st);
			if (st->ptr)
				munmap(st->ptr, st->map_len);
			if (nio_mem_free(nrt_rt.devs[st->dev].fd, st->handle) < 0)
				nrt_log("nrt_tensor_free", "free device memory", NULL, "%s",
					strerror(errno));
		} else if (st->ptr) {
			/* nrt_close() freed it; this is the reservation it left */
			munmap(st->ptr, st->map_len);
		}
		pthread_rwlock_unlock(&nrt_rt.lock);
		break;
	case NRT_ST_HOST:
		free(st->ptr);
		break;
	case NRT_ST_USER:
		break;
	}
	free(st);
}

static struct nrt_storage *st_get(struct nrt_storage *st)
{
	if (st)
		__atomic_add_fetch(&st->refs, 1, __ATOMIC_ACQ_REL);
	return st;
}

/* Read lock held. */
static NRT_STATUS dev_alloc(const char *fn, const char *obj, uint32_t core, size_t size,
			    struct nrt_storage **out)
{
	struct neuron_mem_alloc a;
	struct nrt_storage *st;
	struct nrt_dev *dv;
	uint32_t nc;
	long pg = sysconf(_SC_PAGESIZE);
	void *p;
	int ret;

	dv = nrt_core_dev(core, &nc);
	st = calloc(1, sizeof(*st));
	if (!st || !dv) {
		free(st);
		nrt_log(fn, "allocate", obj, "out of host memory");
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	memset(&a, 0, sizeof(a));
	a.size = size ? size : 1;
	a.kind = NEURON_MEM_DEVICE;
	a.nc = nc;
	a.channel = NEURON_MEM_CHANNEL_ANY;
	/* Counted as tensors (neuron-monitor's usage_breakdown). */
	a.usage = NEURON_MEM_USAGE_TENSORS;
	ret = nio_mem_alloc_req(dv->fd, &a);
	if (ret < 0 && errno == EINVAL) {
		/* A driver of uapi 1.0 has no usage: the same call without it. */
		a.usage = NEURON_MEM_USAGE_UNCATEGORIZED;
		ret = nio_mem_alloc_req(dv->fd, &a);
	}
	if (ret < 0) {
		int e = errno;
		char why[256];

		free(st);
		if (e == EBUSY) {
			nrt_busy_reason(core, why, sizeof(why));
			nrt_log(fn, "allocate device memory", obj,
				"%zu bytes on core %u: core %u is %s", size, core, core, why);
		} else {
			nrt_log(fn, "allocate device memory", obj, "%zu bytes on core %u: %s", size,
				core, e == ENOMEM ? "device memory exhausted" :
				e == ENOSPC ? "the per-file memory limit is reached" : strerror(e));
		}
		return nrt_errno_status(e);
	}
	st->refs = 1;
	st->kind = NRT_ST_DEVICE;
	st->size = size;
	st->gen = nrt_rt.gen;
	st->dev = (uint32_t)(dv - nrt_rt.devs);
	st->core = core;
	st->handle = a.handle;
	st->map_len = ((a.size + pg - 1) / pg) * pg;
	p = mmap(NULL, st->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, dv->fd,
		 (off_t)a.mmap_offset);
	st->ptr = p == MAP_FAILED ? NULL : p;	/* unmapped: I/O through COPY */
	st_link(st);
	*out = st;
	return NRT_SUCCESS;
}

static nrt_tensor_t *tensor_new(const char *name)
{
	nrt_tensor_t *t = calloc(1, sizeof(*t));

	if (t) {
		set_name(t, name);
		t->vnc = -1;
	}
	return t;
}

/* A call that makes a tensor: its result pointer checked, then nrt_enter(). */
static NRT_STATUS tensor_enter(const char *fn, const char *obj, nrt_tensor_t **tensor)
{
	if (!tensor) {
		nrt_log(fn, "check arguments", obj, "the result pointer is NULL");
		return NRT_INVALID;
	}
	return nrt_enter(fn);
}

NRT_EXPORT NRT_STATUS nrt_tensor_allocate(nrt_tensor_placement_t placement, int vnc, size_t size,
					  const char *name, nrt_tensor_t **tensor)
{
	static const char fn[] = "nrt_tensor_allocate";
	char obj[300];
	nrt_tensor_t *t;
	NRT_STATUS s;
	uint32_t core;

	snprintf(obj, sizeof(obj), "tensor '%s'", name ? name : "");
	s = tensor_enter(fn, obj, tensor);
	if (s)
		return s;
	t = tensor_new(name);
	if (!t) {
		s = NRT_FAIL_HOST_MEM_ALLOC;
		nrt_log(fn, "allocate", obj, "out of host memory");
		goto out;
	}
	t->placement = placement;
	t->size = size;
	switch (placement) {
	case NRT_TENSOR_PLACEMENT_DEVICE:
		s = nrt_vnc_core(fn, "allocate device memory", vnc, &core, NRT_RESOURCE);
		if (s)
			break;
		t->vnc = vnc;
		s = dev_alloc(fn, obj, core, size, &t->st);
		break;
	case NRT_TENSOR_PLACEMENT_HOST: {
		struct nrt_storage *st = calloc(1, sizeof(*st));
		void *p = NULL;

		if (!st || posix_memalign(&p, HOST_ALIGN, size ? size : 1)) {
			free(st);
			nrt_log(fn, "allocate host memory", obj,
				"%zu bytes: out of host memory", size);
			s = NRT_FAIL_HOST_MEM_ALLOC;
			break;
		}
		memset(p, 0, size);
		st->refs = 1;
		st->kind = NRT_ST_HOST;
		st->ptr = p;
		st->size = size;
		t->st = st;
		break;
	}
	case NRT_TENSOR_PLACEMENT_VIRTUAL:
		/* no memory until nrt_tensor_attach_buffer() */
		break;
	default:
		nrt_log(fn, "check placement", obj, "%d is not an nrt_tensor_placement_t",
			(int)placement);
		s = NRT_INVALID;
	}
out:
	nrt_leave();
	if (s) {
		free(t);
		return s;
	}
	*tensor = t;
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrt_tensor_allocate_empty(const char *name, nrt_tensor_t **tensor)
{
	static const char fn[] = "nrt_tensor_allocate_empty";
	nrt_tensor_t *t;
	NRT_STATUS s;

	s = tensor_enter(fn, NULL, tensor);
	if (s)
		return s;
	nrt_leave();
	t = tensor_new(name);
	if (!t) {
		nrt_log(fn, "allocate", NULL, "out of host memory");
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	t->placement = NRT_TENSOR_PLACEMENT_VIRTUAL;
	*tensor = t;
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrt_tensor_attach_buffer(nrt_tensor_t *tensor, void *buffer, size_t size)
{
	static const char fn[] = "nrt_tensor_attach_buffer";
	struct nrt_storage *st, *old;
	char obj[300];

	tname(tensor, obj, sizeof(obj));
	if (!tensor || !buffer) {
		nrt_log(fn, "check arguments", obj, "NULL tensor or buffer");
		return NRT_INVALID;
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		nrt_log(fn, "attach", obj, "out of host memory");
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	st->refs = 1;
	st->kind = NRT_ST_USER;
	st->ptr = buffer;
	st->size = size;
	old = tensor->st;
	tensor->st = st;
	tensor->offset = 0;
	tensor->size = size;
	tensor->placement = NRT_TENSOR_PLACEMENT_VIRTUAL;
	tensor->vnc = -1;
	st_put(old);	/* storage it owned goes once no slice uses it */
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrt_tensor_allocate_slice(const nrt_tensor_t *src, size_t offset, size_t size,
						const char *name, nrt_tensor_t **slice)
{
	static const char fn[] = "nrt_tensor_allocate_slice";
	char obj[300];
	nrt_tensor_t *t;

	tname(src, obj, sizeof(obj));
	if (!src || !slice) {
		nrt_log(fn, "check arguments", obj, "NULL source tensor or result pointer");
		return NRT_INVALID;
	}
	if (!src->st) {
		nrt_log(fn, "slice", obj,
			"the source tensor has no memory (attach a buffer first)");
		return NRT_INVALID;
	}
	if (offset > src->size || size > src->size - offset) {
		nrt_log(fn, "slice", obj, "bytes [%zu, +%zu) are outside its %zu bytes",
			offset, size, src->size);
		return NRT_INVALID;
	}
	t = tensor_new(name);
	if (!t) {
		nrt_log(fn, "allocate", obj, "out of host memory");
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	t->placement = src->placement;
	t->vnc = src->vnc;
	t->st = st_get(src->st);
	t->offset = src->offset + offset;
	t->size = size;
	*slice = t;
	return NRT_SUCCESS;
}

NRT_EXPORT void nrt_tensor_free(nrt_tensor_t **tensor)
{
	if (!tensor || !*tensor)
		return;
	st_put((*tensor)->st);
	free(*tensor);
	*tensor = NULL;
}

NRT_EXPORT size_t nrt_tensor_get_size(const nrt_tensor_t *tensor)
{
	return tensor ? tensor->size : 0;
}

NRT_EXPORT void *nrt_tensor_get_va(const nrt_tensor_t *tensor)
{
	static const char fn[] = "nrt_tensor_get_va";
	char obj[300];

	tname(tensor, obj, sizeof(obj));
	if (!tensor || !tensor->st) {
		nrt_log(fn, "get address", obj,
			tensor ? "the tensor has no memory" : "NULL tensor");
		return NULL;
	}
	if (tensor->st->kind == NRT_ST_DEVICE) {
		int live;

		pthread_rwlock_rdlock(&nrt_rt.lock);
		live = nrt_rt.state == NRT_STATE_INIT && st_live(tensor->st);
		pthread_rwlock_unlock(&nrt_rt.lock);
		if (!live) {
			nrt_log(fn, "get address", obj,
				"device memory of an earlier nrt_init() (freed by nrt_close())");
			return NULL;
		}
	}
	if (!tensor->st->ptr) {
		nrt_log(fn, "get address", obj, "its device memory could not be mapped");
		return NULL;
	}
	return (char *)tensor->st->ptr + tensor->offset;
}

/*
 * Check a tensor for an access of [@off, @off + @size) and enter the
 * runtime (read lock) when it holds device memory.
 */
static NRT_STATUS io_begin(const char *fn, const char *what, const nrt_tensor_t *t,
			   uint64_t off, uint64_t size, int *locked)
{
	char obj[300];
	NRT_STATUS s;

	*locked = 0;
	if (!t || !t->st) {
		tname(t, obj, sizeof(obj));
		nrt_log(fn, what, obj, t ? "the tensor has no memory (attach a buffer first)" :
			"NULL tensor");
		return NRT_INVALID;
	}
	if (off > t->size || size > t->size - off) {
		tname(t, obj, sizeof(obj));
		nrt_log(fn, what, obj, "bytes [%llu, +%llu) are outside its %zu bytes",
			(unsigned long long)off, (unsigned long long)size, t->size);
		return NRT_INVALID;
	}
	if (t->st->kind != NRT_ST_DEVICE)
		return NRT_SUCCESS;
	s = nrt_enter(fn);
	if (s)
		return s;
	if (!st_live(t->st)) {
		nrt_leave();
		tname(t, obj, sizeof(obj));
		nrt_log(fn, what, obj,
			"device memory of an earlier nrt_init() (freed by nrt_close())");
		return NRT_INVALID_HANDLE;
	}
	*locked = 1;
	return NRT_SUCCESS;
}

static void io_end(int locked)
{
	if (locked)
		nrt_leave();
}

/* COPY between device memory and a user pointer (unmapped device memory). */
static NRT_STATUS dev_copy(const char *fn, const char *obj, const struct nrt_storage *st,
			   uint64_t off, void *ptr, uint64_t size, int to_dev)
{
	int fd = nrt_rt.devs[st->dev].fd;

	if (!size)
		return NRT_SUCCESS;
	if ((to_dev ? nio_write(fd, st->handle, off, ptr, size) :
		      nio_read(fd, st->handle, off, ptr, size)) < 0) {
		int e = errno;

		nrt_log(fn, to_dev ? "write device memory" : "read device memory", obj, "%s",
			strerror(e));
		return nrt_errno_status(e);
	}
	return NRT_SUCCESS;
}

/* Copy @size bytes between @buf and @t at @off: into the tensor when @wr. */
static NRT_STATUS t_io(const char *fn, const nrt_tensor_t *t, void *buf, uint64_t off,
		       uint64_t size, int wr)
{
	const char *what = wr ? "write" : "read";
	char obj[300];
	NRT_STATUS s;
	int locked;

	if (!buf && size) {
		tname(t, obj, sizeof(obj));
		nrt_log(fn, what, obj, "NULL buffer");
		return NRT_INVALID;
	}
	s = io_begin(fn, what, t, off, size, &locked);
	if (s)
		return s;
	if (t->st->ptr) {
		char *mem = (char *)t->st->ptr + t->offset + off;

		if (wr)
			memcpy(mem, buf, size);
		else
			memcpy(buf, mem, size);
	} else {
		tname(t, obj, sizeof(obj));
		s = dev_copy(fn, obj, t->st, t->offset + off, buf, size, wr);
	}
	io_end(locked);
	return s;
}

NRT_EXPORT NRT_STATUS nrt_tensor_read(const nrt_tensor_t *tensor, void *buf, size_t offset,
				      size_t size)
{
	return t_io("nrt_tensor_read", tensor, buf, offset, size, 0);
}

NRT_EXPORT NRT_STATUS nrt_tensor_write(nrt_tensor_t *tensor, const void *buf, size_t offset,
				       size_t size)
{
	return t_io("nrt_tensor_write", tensor, (void *)buf, offset, size, 1);
}

static NRT_STATUS t_batch(const char *fn, const nrt_tensor_batch_t *b, uint64_t n, int wr)
{
	uint64_t i;
	uint32_t j;
	NRT_STATUS s;

	if (!b && n) {
		nrt_log(fn, "check arguments", NULL, "NULL batch array");
		return NRT_INVALID;
	}
	for (i = 0; i < n; i++) {
		if (!b[i].ops && b[i].num_ops) {
			nrt_log(fn, "check arguments", NULL, "batch %llu has no operation array",
				(unsigned long long)i);
			return NRT_INVALID;
		}
		for (j = 0; j < b[i].num_ops; j++) {
			const nrt_tensor_batch_op_t *op = &b[i].ops[j];

			s = t_io(fn, b[i].tensor, op->buffer, op->offset, op->size, wr);
			if (s)
				return s;
		}
	}
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrt_tensor_read_batch(const nrt_tensor_batch_t *batches, uint64_t num_batches,
					    bool unsafe)
{
	(void)unsafe;	/* every operation is checked and done in order */
	return t_batch("nrt_tensor_read_batch", batches, num_batches, 0);
}

NRT_EXPORT NRT_STATUS nrt_tensor_write_batch(const nrt_tensor_batch_t *batches,
					     uint64_t num_batches, bool unsafe)
{
	(void)unsafe;
	return t_batch("nrt_tensor_write_batch", batches, num_batches, 1);
}

NRT_EXPORT NRT_STATUS nrt_tensor_copy(const nrt_tensor_t *src, size_t src_offset, nrt_tensor_t *dst,
				      size_t dst_offset, size_t size)
{
	static const char fn[] = "nrt_tensor_copy";
	const struct nrt_storage *ss, *ds;
	char obj[300];
	NRT_STATUS s;
	int l1, l2;

	s = io_begin(fn, "copy from", src, src_offset, size, &l1);
	if (s)
		return s;
	s = io_begin(fn, "copy to", dst, dst_offset, size, &l2);
	if (s) {
		io_end(l1);
		return s;
	}
	ss = src->st;
	ds = dst->st;
	tname(dst, obj, sizeof(obj));
	if (!size) {
		/* nothing */
	} else if (ss->ptr && ds->ptr) {
		memmove((char *)ds->ptr + dst->offset + dst_offset,
			(const char *)ss->ptr + src->offset + src_offset, size);
	} else if (ds->ptr) {
		s = dev_copy(fn, obj, ss, src->offset + src_offset,
			     (char *)ds->ptr + dst->offset + dst_offset, size, 0);
	} else if (ss->ptr) {
		s = dev_copy(fn, obj, ds, dst->offset + dst_offset,
			     (char *)ss->ptr + src->offset + src_offset, size, 1);
	} else if (ss->dev == ds->dev) {
		if (nio_copy(nrt_rt.devs[ds->dev].fd, ss->handle, src->offset + src_offset,
			     ds->handle, dst->offset + dst_offset, NULL, NULL, size, 0,
			     NULL) < 0) {
			nrt_log(fn, "copy device memory", obj, "%s", strerror(errno));
			s = nrt_errno_status(errno);
		}
	} else {
		void *bounce = malloc(size);

		if (!bounce) {
			nrt_log(fn, "copy", obj, "out of host memory");
			s = NRT_FAIL_HOST_MEM_ALLOC;
		} else {
			s = dev_copy(fn, obj, ss, src->offset + src_offset, bounce, size, 0);
			if (!s)
				s = dev_copy(fn, obj, ds, dst->offset + dst_offset,
					     bounce, size, 1);
			free(bounce);
		}
	}
	io_end(l2);
	io_end(l1);
	return s;
}

NRT_EXPORT NRT_STATUS nrt_tensor_memset(nrt_tensor_t *tensor, uint64_t offset, int value,
					size_t size)
{
	static const char fn[] = "nrt_tensor_memset";
	char obj[300];
	NRT_STATUS s;
	int locked;

	s = io_begin(fn, "memset", tensor, offset, size, &locked);
	if (s)
		return s;
	if (tensor->st->ptr) {
		memset((char *)tensor->st->ptr + tensor->offset + offset, value, size);
	} else if (size) {
		if (nio_memset(nrt_rt.devs[tensor->st->dev].fd, tensor->st->handle,
			       tensor->offset + offset, (unsigned char)value, size, 0,
			       NULL) < 0) {
			tname(tensor, obj, sizeof(obj));
			nrt_log(fn, "memset device memory", obj, "%s", strerror(errno));
			s = nrt_errno_status(errno);
		}
	}
	io_end(locked);
	return s;
}

NRT_EXPORT NRT_STATUS nrt_memcpy_to_device(void *dest, const void *src, size_t size)
{
	static const char fn[] = "nrt_memcpy_to_device";
	NRT_STATUS s;

	if ((!dest || !src) && size) {
		nrt_log(fn, "check arguments", NULL, "NULL destination or source");
		return NRT_INVALID;
	}
	s = nrt_enter(fn);
	if (s)
		return s;
	if (size)
		memcpy(dest, src, size);	/* @dest: from nrt_tensor_get_va() */
	nrt_leave();
	return NRT_SUCCESS;
}

/* ---- tensor sets ---- */

static struct nrt_set *set_of(const nrt_tensor_set_t *p)
{
	struct nrt_set *s = (struct nrt_set *)p;

	return s && s->magic == NRT_SET_MAGIC ? s : NULL;
}

NRT_EXPORT NRT_STATUS nrt_allocate_tensor_set(nrt_tensor_set_t **result)
{
	struct nrt_set *s;

	if (!result) {
		nrt_log("nrt_allocate_tensor_set", "check arguments", NULL,
			"the result pointer is NULL");
		return NRT_INVALID;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		nrt_log("nrt_allocate_tensor_set", "allocate", NULL, "out of host memory");
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	s->magic = NRT_SET_MAGIC;
	pthread_mutex_init(&s->lock, NULL);
	*result = s;
	return NRT_SUCCESS;
}

NRT_EXPORT void nrt_destroy_tensor_set(nrt_tensor_set_t **tensor_set)
{
	struct nrt_set *s;
	size_t i;

	if (!tensor_set)
		return;
	s = set_of(*tensor_set);
	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		free(s->e[i].name);	/* the tensors stay the caller's */
	free(s->e);
	pthread_mutex_destroy(&s->lock);
	s->magic = 0;
	free(s);
	*tensor_set = NULL;
}

/* Caller holds s->lock (or owns the set for the call). */
nrt_tensor_t *nrt_set_find(const struct nrt_set *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->e[i].name, name))
			return s->e[i].tensor;
	return NULL;
}

NRT_EXPORT NRT_STATUS nrt_add_tensor_to_tensor_set(nrt_tensor_set_t *tensor_set,
						   const char *tensor_name, nrt_tensor_t *tensor)
{
	static const char fn[] = "nrt_add_tensor_to_tensor_set";
	struct nrt_set *s = set_of(tensor_set);
	struct nrt_set_entry *ne;
	char obj[300];
	size_t i;

	snprintf(obj, sizeof(obj), "tensor '%s'", tensor_name ? tensor_name : "(null)");
	if (!s || !tensor_name || !tensor) {
		nrt_log(fn, "check arguments", obj, "NULL or invalid set, name or tensor");
		return s ? NRT_INVALID : NRT_INVALID_HANDLE;
	}
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->n; i++) {
		if (!strcmp(s->e[i].name, tensor_name)) {
			s->e[i].tensor = tensor;	/* replace */
			pthread_mutex_unlock(&s->lock);
			return NRT_SUCCESS;
		}
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;

		ne = realloc(s->e, cap * sizeof(*ne));
		if (!ne)
			goto nomem;
		s->e = ne;
		s->cap = cap;
	}
	s->e[s->n].name = strdup(tensor_name);
	if (!s->e[s->n].name)
		goto nomem;
	s->e[s->n].tensor = tensor;
	s->n++;
	pthread_mutex_unlock(&s->lock);
	return NRT_SUCCESS;
nomem:
	pthread_mutex_unlock(&s->lock);
	nrt_log(fn, "add", obj, "out of host memory");
	return NRT_FAIL_HOST_MEM_ALLOC;
}

NRT_EXPORT NRT_STATUS nrt_get_tensor_from_tensor_set(nrt_tensor_set_t *tensor_set,
						     const char *tensor_name, nrt_tensor_t **tensor)
{
	static const char fn[] = "nrt_get_tensor_from_tensor_set";
	struct nrt_set *s = set_of(tensor_set);
	nrt_tensor_t *t;
	char obj[300];

	snprintf(obj, sizeof(obj), "tensor '%s'", tensor_name ? tensor_name : "(null)");
	if (!s || !tensor_name || !tensor) {
		nrt_log(fn, "check arguments", obj, "NULL or invalid set, name or result pointer");
		return s ? NRT_INVALID : NRT_INVALID_HANDLE;
	}
	pthread_mutex_lock(&s->lock);
	t = nrt_set_find(s, tensor_name);
	pthread_mutex_unlock(&s->lock);
	if (!t) {
		nrt_log(fn, "look up", obj, "no tensor of that name in the set");
		return NRT_INVALID;
	}
	*tensor = t;
	return NRT_SUCCESS;
}
