// SPDX-License-Identifier: GPL-2.0
/*
 * libneuron: one function per call of the neuron driver (neuron_io.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "neuron_io.h"

int nio_ioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, request, arg);
	} while (ret == -1 && errno == EINTR);
	return ret == -1 ? -errno : ret;
}

int nio_open_path(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int nio_open(unsigned int index, int flags)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/neuron%u", index);
	return nio_open_path(path, flags);
}

__s64 nio_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- QUERY ---- */

int nio_query(int fd, __u32 op, void *buf, __u32 len, __u32 *size)
{
	struct neuron_query q;
	int err;

	memset(&q, 0, sizeof(q));
	q.op = op;
	q.data = (uintptr_t)buf;
	q.size = len;
	err = nio_ioctl(fd, NEURON_IOCTL_QUERY, &q);
	if (!err && size)
		*size = q.size;
	return err;
}

int nio_device_info(int fd, struct neuron_device_info *info, __u32 *size)
{
	memset(info, 0, sizeof(*info));
	return nio_query(fd, NEURON_QUERY_DEVICE, info, sizeof(*info), size);
}

/* Room for the answers with per-NC entries: more NCs than any arch has. */
#define NIO_ANSWER_MAX	4096

/*
 * QUERY @op whose answer is a header of @hsize bytes (into @head) and
 * entries of @esize bytes: up to @max of them into @ent (unless NULL).
 */
static int nio_query_entries(int fd, __u32 op, void *head, size_t hsize,
			     void *ent, size_t esize, __u32 max)
{
	unsigned char b[NIO_ANSWER_MAX];
	size_t n = (sizeof(b) - hsize) / esize;
	int err;

	memset(b, 0, sizeof(b));
	err = nio_query(fd, op, b, sizeof(b), NULL);
	if (err)
		return err;
	memcpy(head, b, hsize);
	if (ent)
		memcpy(ent, b + hsize, (max < n ? max : n) * esize);
	return 0;
}

int nio_mem_usage(int fd, struct neuron_mem_usage *u,
		  struct neuron_mem_usage_nc *nc, __u32 max)
{
	return nio_query_entries(fd, NEURON_QUERY_MEM_USAGE, u, sizeof(*u), nc,
				 sizeof(*nc), max);
}

int nio_nc_states(int fd, struct neuron_nc_state *st, __u32 max)
{
	struct neuron_nc_states h;
	int err = nio_query_entries(fd, NEURON_QUERY_NC_STATE, &h, sizeof(h), st,
				    sizeof(*st), max);

	return err ? err : (int)h.nc_count;
}

/* ---- memory ---- */

int nio_mem_alloc_req(int fd, struct neuron_mem_alloc *a)
{
	return nio_ioctl(fd, NEURON_IOCTL_MEM_ALLOC, a);
}

int nio_mem_alloc(int fd, __u32 kind, __u64 size, __u32 nc,
		  __u32 *handle, __u64 *mmap_offset)
{
	struct neuron_mem_alloc a;
	int err;

	memset(&a, 0, sizeof(a));
	a.kind = kind;
	a.size = size;
	a.nc = nc;
	a.channel = kind == NEURON_MEM_DEVICE ? NEURON_MEM_CHANNEL_ANY : 0;
	err = nio_mem_alloc_req(fd, &a);
	*handle = a.handle;
	if (mmap_offset)
		*mmap_offset = a.mmap_offset;
	return err;
}

int nio_mem_free(int fd, __u32 handle)
{
	struct neuron_mem_free f = { .handle = handle };

	return nio_ioctl(fd, NEURON_IOCTL_MEM_FREE, &f);
}

/* ---- COPY, MEMSET, WAIT ---- */

int nio_copy_req(int fd, struct neuron_copy *c)
{
	return nio_ioctl(fd, NEURON_IOCTL_COPY, c);
}

int nio_copy(int fd, __u32 src, __u64 soff, __u32 dst, __u64 doff,
	     const void *sptr, void *dptr, __u64 size, __u32 flags,
	     __u64 *seqno)
{
	struct neuron_copy c = {
		.src_handle = src, .src_offset = soff, .src_ptr = (uintptr_t)sptr,
		.dst_handle = dst, .dst_offset = doff, .dst_ptr = (uintptr_t)dptr,
		.size = size, .flags = flags,
	};
	int err = nio_copy_req(fd, &c);

	if (seqno)
		*seqno = c.seqno;
	return err;
}

int nio_write(int fd, __u32 h, __u64 off, const void *buf, __u64 size)
{
	return nio_copy(fd, 0, 0, h, off, buf, NULL, size, 0, NULL);
}

int nio_read(int fd, __u32 h, __u64 off, void *buf, __u64 size)
{
	return nio_copy(fd, h, off, 0, 0, NULL, buf, size, 0, NULL);
}

int nio_memset(int fd, __u32 h, __u64 off, __u32 value, __u64 size,
	       __u32 flags, __u64 *seqno)
{
	struct neuron_memset m = {
		.handle = h, .value = value, .offset = off, .size = size,
		.flags = flags,
	};
	int err = nio_ioctl(fd, NEURON_IOCTL_MEMSET, &m);

	if (seqno)
		*seqno = m.seqno;
	return err;
}

int nio_wait(int fd, __u64 seqno, __s64 deadline_ns)
{
	struct neuron_wait w = { .seqno = seqno, .timeout_ns = deadline_ns };

	return nio_ioctl(fd, NEURON_IOCTL_WAIT, &w);
}

/* ---- NeuronCores ---- */

/* NC_RESERVE or NC_RELEASE (@request) of @nc_mask. */
static int nio_nc_mask_op(int fd, unsigned long request, __u64 nc_mask)
{
	struct neuron_nc_reserve r = { .nc_mask = nc_mask };

	return nio_ioctl(fd, request, &r);
}

int nio_nc_reserve(int fd, __u64 nc_mask)
{
	return nio_nc_mask_op(fd, NEURON_IOCTL_NC_RESERVE, nc_mask);
}

int nio_nc_release(int fd, __u64 nc_mask)
{
	return nio_nc_mask_op(fd, NEURON_IOCTL_NC_RELEASE, nc_mask);
}

int nio_nc_sem_req(int fd, struct neuron_nc_sem *s)
{
	return nio_ioctl(fd, NEURON_IOCTL_NC_SEM, s);
}

int nio_nc_sem(int fd, __u32 nc, __u32 kind, __u32 index, __u32 op,
	       __u32 value, __u32 *out)
{
	struct neuron_nc_sem s = {
		.nc = nc, .kind = kind, .index = index, .op = op, .value = value,
	};
	int err = nio_nc_sem_req(fd, &s);

	if (out)
		*out = s.value;
	return err;
}

int nio_nc_sem_wait(int fd, __u32 nc, __u32 kind, __u32 index,
		    __u32 value, __s64 deadline_ns)
{
	struct neuron_nc_sem s = {
		.nc = nc, .kind = kind, .index = index, .op = NEURON_SEM_WAIT,
		.value = value, .timeout_ns = deadline_ns,
	};

	return nio_nc_sem_req(fd, &s);
}

/* ---- models, execution ---- */

int nio_model_load(int fd, struct neuron_model_load *l)
{
	return nio_ioctl(fd, NEURON_IOCTL_MODEL_LOAD, l);
}

int nio_model_unload(int fd, __u32 handle)
{
	struct neuron_model_unload u = { .handle = handle };

	return nio_ioctl(fd, NEURON_IOCTL_MODEL_UNLOAD, &u);
}

int nio_execute_req(int fd, struct neuron_execute *x)
{
	return nio_ioctl(fd, NEURON_IOCTL_EXECUTE, x);
}

void nio_execute_prep(struct neuron_execute *x, __u32 model, const __u32 *bind,
		      __u32 nbind, __u32 flags, __u32 timeout_ms)
{
	memset(x, 0, sizeof(*x));
	x->model = model;
	x->flags = flags;
	x->bindings = (uintptr_t)bind;
	x->nbindings = nbind;
	x->timeout_ms = timeout_ms;
}

static int nio_execute(int fd, __u32 model, const __u32 *bind,
		       __u32 nbind, __u32 flags, __u32 timeout_ms,
		       struct neuron_execute *x)
{
	nio_execute_prep(x, model, bind, nbind, flags, timeout_ms);
	return nio_execute_req(fd, x);
}

int nio_execute_wait(int fd, __u32 model, const __u32 *bind,
		     __u32 nbind, __u32 timeout_ms, __u32 *status)
{
	struct neuron_execute x;
	int err = nio_execute(fd, model, bind, nbind, NEURON_EXEC_WAIT,
			      timeout_ms, &x);

	if (status)
		*status = x.status;
	return err;
}

int nio_execute_async(int fd, __u32 model, const __u32 *bind,
		      __u32 nbind, __u32 timeout_ms, __u64 *seqno)
{
	struct neuron_execute x;
	int err = nio_execute(fd, model, bind, nbind, 0, timeout_ms, &x);

	if (seqno)
		*seqno = x.seqno;
	return err;
}

/* ---- notification queues ---- */

int nio_notify_setup_req(int fd, struct neuron_notify_setup *s)
{
	return nio_ioctl(fd, NEURON_IOCTL_NOTIFY_SETUP, s);
}

int nio_notify_open(int fd, __u32 nc, __u32 type, __u32 entries,
		    int eventfd, struct nio_notify_queue *q)
{
	struct neuron_notify_setup s = {
		.nc = nc, .type = type, .entries = entries, .eventfd = eventfd,
	};
	int err;
	void *m;

	memset(q, 0, sizeof(*q));
	err = nio_notify_setup_req(fd, &s);
	if (err)
		return err;
	m = mmap(NULL, s.mmap_size, PROT_READ, MAP_SHARED, fd, s.mmap_offset);
	if (m == MAP_FAILED) {
		err = -errno;
		nio_notify_teardown(fd, nc, type);
		errno = -err;
		return err;
	}
	q->nc = nc;
	q->type = type;
	q->entries = entries;
	q->map = m;
	q->map_size = s.mmap_size;
	q->mmap_offset = s.mmap_offset;
	q->hdr = m;
	q->ent = (const void *)((const char *)m + NEURON_NOTIFY_ENTRY_OFFSET);
	return 0;
}

int nio_notify_wait_req(int fd, struct neuron_notify_wait *w)
{
	return nio_ioctl(fd, NEURON_IOCTL_NOTIFY_WAIT, w);
}

int nio_notify_wait(int fd, __u32 nc, __u32 type, __u32 consumed,
		    __s64 deadline_ns, __u32 *head)
{
	struct neuron_notify_wait w = {
		.nc = nc, .type = type, .consumed = consumed,
		.timeout_ns = deadline_ns,
	};
	int err = nio_notify_wait_req(fd, &w);

	if (!err && head)
		*head = w.head;
	return err;
}

int nio_notify_teardown(int fd, __u32 nc, __u32 type)
{
	struct neuron_notify_teardown t = { .nc = nc, .type = type };

	return nio_ioctl(fd, NEURON_IOCTL_NOTIFY_TEARDOWN, &t);
}

int nio_notify_close(int fd, struct nio_notify_queue *q)
{
	int err;

	if (q->map)
		munmap(q->map, q->map_size);
	q->map = NULL;
	err = nio_notify_teardown(fd, q->nc, q->type);
	return err;
}
