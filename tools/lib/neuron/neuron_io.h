/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libneuron: the calls of the neuron driver (uapi/neuron.h), one function
 * each, for the project's own userspace (libnrt.so.1, the tools, the
 * selftests).  Internal and static: not installed, no ABI.
 *
 * Every function returns 0 (or a count where it says so) or -errno, and
 * leaves errno set to that error.  nio_ioctl() repeats a call that a
 * signal interrupted (EINTR), as libdrm's drmIoctl() does: every neuron
 * ioctl may be restarted with the same argument (deadlines are absolute,
 * NOTIFY_WAIT's @consumed is a ring index, and a call that changes state
 * returns EINTR only before it did anything, on a fatal signal).  A test of
 * EINTR itself calls ioctl() directly.
 */
#ifndef NEURON_IO_H
#define NEURON_IO_H

#include <stddef.h>
#include <stdint.h>

#include "neuron.h"

/* ioctl() repeated on EINTR: 0 (or the ioctl's value) or -errno. */
int nio_ioctl(int fd, unsigned long request, void *arg);

/* Open /dev/neuron@index, or @path: the file descriptor, or -errno. */
int nio_open(unsigned int index, int flags);
int nio_open_path(const char *path, int flags);

/* CLOCK_MONOTONIC in ns: the clock of every deadline of the API. */
__s64 nio_now_ns(void);

/* ---- QUERY ---- */

/*
 * QUERY @op into @buf of @len bytes (not cleared first): 0 or -errno;
 * *@size (unless NULL) gets the size of the whole answer.
 */
int nio_query(int fd, __u32 op, void *buf, __u32 len, __u32 *size);
/* NEURON_QUERY_DEVICE into @info (cleared first); *@size as above. */
int nio_device_info(int fd, struct neuron_device_info *info, __u32 *size);
/*
 * NEURON_QUERY_MEM_USAGE: @u and up to @max per-NC entries in @nc (may be
 * NULL with @max 0); nc_count of @u tells how many the device has.
 */
int nio_mem_usage(int fd, struct neuron_mem_usage *u,
		  struct neuron_mem_usage_nc *nc, __u32 max);
/*
 * NEURON_QUERY_NC_STATE: up to @max entries into @st; the device's NC count,
 * or -errno.
 */
int nio_nc_states(int fd, struct neuron_nc_state *st, __u32 max);

/* ---- memory ---- */

/* MEM_ALLOC of a request the caller filled: 0 or -errno. */
int nio_mem_alloc_req(int fd, struct neuron_mem_alloc *a);
/*
 * @kind memory of @size bytes charged to NC @nc, device memory in any
 * channel: 0 and *@handle (and *@mmap_offset unless NULL), or -errno.
 */
int nio_mem_alloc(int fd, __u32 kind, __u64 size, __u32 nc,
		  __u32 *handle, __u64 *mmap_offset);
int nio_mem_free(int fd, __u32 handle);

/* ---- COPY, MEMSET, WAIT ---- */

/* COPY of a request the caller filled: 0 or -errno (seqno in @c). */
int nio_copy_req(int fd, struct neuron_copy *c);
/*
 * COPY of @size bytes from handle @src at @soff (or, with @src 0, from
 * @sptr) to handle @dst at @doff (or @dptr); @flags NEURON_COPY_ASYNC or 0,
 * *@seqno (unless NULL) the number to wait for.
 */
int nio_copy(int fd, __u32 src, __u64 soff, __u32 dst, __u64 doff,
	     const void *sptr, void *dptr, __u64 size, __u32 flags,
	     __u64 *seqno);
/* Synchronous copies between host memory and handle @h at @off. */
int nio_write(int fd, __u32 h, __u64 off, const void *buf, __u64 size);
int nio_read(int fd, __u32 h, __u64 off, void *buf, __u64 size);
/* MEMSET of @size bytes of @h at @off to @value; @flags, *@seqno as COPY. */
int nio_memset(int fd, __u32 h, __u64 off, __u32 value, __u64 size,
	       __u32 flags, __u64 *seqno);
/* WAIT for @seqno until the absolute CLOCK_MONOTONIC @deadline_ns. */
int nio_wait(int fd, __u64 seqno, __s64 deadline_ns);

/* ---- NeuronCores ---- */

int nio_nc_reserve(int fd, __u64 nc_mask);
int nio_nc_release(int fd, __u64 nc_mask);
/* NC_SEM of a request the caller filled: 0 or -errno. */
int nio_nc_sem_req(int fd, struct neuron_nc_sem *s);
/*
 * NC_SEM @op on semaphore or event (@kind) @index of NC @nc; *@out (unless
 * NULL) gets the value after it.  WAIT has its own call.
 */
int nio_nc_sem(int fd, __u32 nc, __u32 kind, __u32 index, __u32 op,
	       __u32 value, __u32 *out);
/* NEURON_SEM_WAIT until the value is @value or @deadline_ns passed. */
int nio_nc_sem_wait(int fd, __u32 nc, __u32 kind, __u32 index,
		    __u32 value, __s64 deadline_ns);

/* ---- models, execution ---- */

/* MODEL_LOAD of a request the caller filled (the Out fields in @l). */
int nio_model_load(int fd, struct neuron_model_load *l);
int nio_model_unload(int fd, __u32 handle);
/* EXECUTE of a request the caller filled. */
int nio_execute_req(int fd, struct neuron_execute *x);
/* Fill @x: @model with @nbind bindings, @flags, @timeout_ms, the rest 0. */
void nio_execute_prep(struct neuron_execute *x, __u32 model, const __u32 *bind,
		      __u32 nbind, __u32 flags, __u32 timeout_ms);
/*
 * EXECUTE with NEURON_EXEC_WAIT: 0 and *@status (NEURON_EXEC_*), or -errno
 * of the call.
 */
int nio_execute_wait(int fd, __u32 model, const __u32 *bind,
		     __u32 nbind, __u32 timeout_ms, __u32 *status);
/* Asynchronous EXECUTE: 0 and *@seqno for nio_wait(), or -errno. */
int nio_execute_async(int fd, __u32 model, const __u32 *bind,
		      __u32 nbind, __u32 timeout_ms, __u64 *seqno);

/* ---- notification queues ---- */

/* A queue of this file, set up and mapped. */
struct nio_notify_queue {
	__u32 nc;
	__u32 type;
	__u32 entries;
	void *map;
	size_t map_size;
	__u64 mmap_offset;
	const struct neuron_notify_header *hdr;
	const struct neuron_notify_entry *ent;
};

/* NOTIFY_SETUP of a request the caller filled. */
int nio_notify_setup_req(int fd, struct neuron_notify_setup *s);
/*
 * NOTIFY_SETUP of a queue of @entries for (@nc, @type), with @eventfd (-1:
 * none), and mmap() of its ring (read-only): 0 and @q, or -errno (nothing
 * left behind).
 */
int nio_notify_open(int fd, __u32 nc, __u32 type, __u32 entries,
		    int eventfd, struct nio_notify_queue *q);
/* NOTIFY_WAIT of a request the caller filled (head, overflow in @w). */
int nio_notify_wait_req(int fd, struct neuron_notify_wait *w);
/*
 * Give back the entries up to @consumed (a ring index), wait until the
 * head moves past it or @deadline_ns: 0 and *@head (unless NULL), or -errno.
 */
int nio_notify_wait(int fd, __u32 nc, __u32 type, __u32 consumed,
		    __s64 deadline_ns, __u32 *head);
int nio_notify_teardown(int fd, __u32 nc, __u32 type);
/* munmap() and NOTIFY_TEARDOWN of @q: 0 or -errno of the teardown. */
int nio_notify_close(int fd, struct nio_notify_queue *q);

#endif /* NEURON_IO_H */
