// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: COPY and MEMSET. Every transfer goes through the DMA queue
 * of a NeuronCore (dma/neuron_dma.c) with descriptors the driver builds
 * from the caller's own objects: handles are looked up in the caller's
 * file, ranges are checked inside the objects, and user memory is pinned
 * and mapped for the device by the driver. No address given by userspace
 * ever reaches a descriptor.
 *
 * Every transfer is a DMA request (dma/neuron_dma.h), a job of the job
 * layer (neuron_job.h) whose fence tells when it is done; an asynchronous
 * call publishes it under a sequence number of its file, which WAIT
 * collects (neuron_job.c).
 *
 * These ioctls run outside the removal guard (they sleep): the calls into
 * the backend (mapping user pages, the queue's creation, submission) each
 * enter it themselves, and waits hold a reference on the request only.
 */
#include <linux/capability.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "neuron_common.h"
#include "neuron_nc.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_mem.h"
#include "neuron_ioctl.h"
#include "neuron_copy.h"
#include "neuron_job.h"
#include "dma/neuron_dma.h"

/* User memory is pinned and moved by windows of this many pages. */
#define NEURON_COPY_WINDOW_PAGES	512

/* [@off, @off + @len) of @mem as a side of a transfer, if inside it. */
static int neuron_copy_addr(struct neuron_mem *mem, u64 off, u64 len,
			    struct neuron_dma_side *side)
{
	if (off > mem->size || len > mem->size - off)
		return -EINVAL;
	if (mem->kind == NEURON_MEM_DEVICE)
		*side = (struct neuron_dma_side){ .addr = mem->dev_addr + off };
	else
		*side = (struct neuron_dma_side){
			.addr = off, .pages = mem->dma, .npages = mem->npages,
		};
	return 0;
}

/* Byte @off of the pinned user pages of @req as a side of a transfer. */
static struct neuron_dma_side neuron_copy_user_side(const struct neuron_dma_req *req,
						    u64 off)
{
	return (struct neuron_dma_side){
		.addr = off, .pages = req->dma, .npages = req->npages,
	};
}

/**
 * neuron_copy_check() - validate the fields of a COPY request
 * @c: the request.
 *
 * Return: 0 or -EINVAL.
 */
VISIBLE_IF_KUNIT int neuron_copy_check(const struct neuron_copy *c)
{
	if ((c->flags & ~NEURON_COPY_ASYNC) || c->pad || c->reserved[0] ||
	    c->reserved[1] || !c->size)
		return -EINVAL;
	/* Each side is a handle (with an offset) or a pointer, not both. */
	if (c->src_handle ? c->src_ptr : c->src_offset)
		return -EINVAL;
	if (c->dst_handle ? c->dst_ptr : c->dst_offset)
		return -EINVAL;
	/* At most one pointer. */
	if (!c->src_handle && !c->dst_handle)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_copy_check);

/*
 * Submit @req on @q; wait for it unless @async, else publish it under a new
 * sequence number. Consumes the caller's @req.
 */
static int neuron_copy_run(struct neuron_file *nf, struct neuron_dma_queue *q,
			   struct neuron_dma_req *req,
			   const struct neuron_dma_seg *seg, bool async, u64 *seqno)
{
	int ret = 0;

	*seqno = 0;
	if (async)
		ret = neuron_job_seq_reserve(nf, seqno);
	/* Reported in the file's own queues only, with its own number. */
	req->key = nf->key;
	req->report = true;
	req->tag = *seqno;
	if (!ret) {
		ret = neuron_dma_submit(q, req, seg);
		if (async && ret)
			neuron_job_seq_unreserve(nf, *seqno);
		else if (async)
			neuron_job_seq_publish(nf, *seqno, &req->job);
		else if (!ret)
			ret = neuron_job_wait(&req->job, KTIME_MAX, false);
	}
	if (ret)
		*seqno = 0;
	neuron_job_put(&req->job);
	return ret;
}

/*
 * A request of @nf (NULL: the driver's own) using @mem (the reference
 * passes to the request).
 */
static struct neuron_dma_req *neuron_copy_req(struct neuron_dma_queue *q,
					      struct neuron_file *nf,
					      struct neuron_mem *mem)
{
	struct neuron_dma_req *req = neuron_dma_req_new(q, nf);

	if (!req) {
		neuron_mem_put(mem);
		return NULL;
	}
	req->mem[0] = mem;
	return req;
}

/* The kernel queue of the NC that @mem is charged to. */
static struct neuron_dma_queue *neuron_copy_queue(struct neuron_mem *mem)
{
	return neuron_dma_queue_get(neuron_nc_get(mem->nd, mem->nc));
}

/*
 * The driver's own transfer, through the kernel queue of @dst's NC: a
 * request holding new references to @dst and @src (if not NULL) is
 * submitted, waited for (killable only) and dropped.
 */
static int neuron_copy_own(struct neuron_mem *src, struct neuron_mem *dst,
			   const struct neuron_dma_seg *seg)
{
	struct neuron_dma_queue *q = neuron_copy_queue(dst);
	struct neuron_dma_req *req;
	int ret;

	if (IS_ERR(q))
		return PTR_ERR(q);
	kref_get(&dst->ref);
	req = neuron_copy_req(q, NULL, dst);
	if (!req)
		return -ENOMEM;
	if (src) {
		kref_get(&src->ref);
		req->mem[1] = src;
	}
	ret = neuron_dma_submit(q, req, seg);
	if (!ret)
		ret = neuron_job_wait(&req->job, KTIME_MAX, false);
	neuron_job_put(&req->job);
	return ret;
}

/**
 * neuron_copy_mem() - copy between two objects and wait for the copy
 * @src: source object (the caller's reference stays the caller's).
 * @soff: byte offset in @src.
 * @dst: destination object (same).
 * @doff: byte offset in @dst.
 * @len: bytes.
 *
 * For the driver's own transfers (a model's load): the DMA queue of
 * @dst's NC, no notification, no reservation check. Called outside the
 * removal guard; the wait is killable only.
 * Return: 0, -EINVAL (a range outside its object), -ENOMEM, -EINTR (a
 * fatal signal; the copy goes on alone), -ENODEV, -EIO.
 */
int neuron_copy_mem(struct neuron_mem *src, u64 soff, struct neuron_mem *dst,
		    u64 doff, u64 len)
{
	struct neuron_dma_seg seg = { .len = len };
	int ret;

	ret = neuron_copy_addr(src, soff, len, &seg.src);
	if (!ret)
		ret = neuron_copy_addr(dst, doff, len, &seg.dst);
	if (ret)
		return ret;
	return neuron_copy_own(src, dst, &seg);
}

/**
 * neuron_copy_clear() - zero device memory through the DMA queue of its NC
 * @mem: the object (the caller's reference stays the caller's).
 *
 * For a backend whose device memory may hold old data
 * (ndhal_ops.dram_uncleared), before anyone sees the object. Called
 * outside the removal guard; the wait is killable only (a killed caller's
 * memset goes on alone, and holds @mem until it ends).
 * Return: 0, -ENOMEM, -EINTR, -ENODEV, -EIO.
 */
int neuron_copy_clear(struct neuron_mem *mem)
{
	struct neuron_dma_seg seg = {
		.dst = { .addr = mem->dev_addr },
		.len = mem->size,
		.src_fixed = true,
	};

	return neuron_copy_own(NULL, mem, &seg);
}

/*
 * Between two objects of the file, through the queue of @dst's NC. Both
 * NCs are entered (neuron_nc_enter()) until the request is submitted, or done
 * for a synchronous copy.
 */
static int neuron_copy_objects(struct neuron_file *nf, struct neuron_copy *c)
{
	struct neuron_dma_seg seg = { .len = c->size };
	struct neuron_mem *src, *dst = NULL;
	struct neuron_dma_queue *q;
	struct neuron_dma_req *req;
	u64 ncs = 0;
	int ret = -ENOENT;

	src = neuron_mem_lookup(nf, c->src_handle);
	if (src)
		dst = neuron_mem_lookup(nf, c->dst_handle);
	if (!dst)
		goto err;
	ret = neuron_copy_addr(src, c->src_offset, c->size, &seg.src);
	if (!ret)
		ret = neuron_copy_addr(dst, c->dst_offset, c->size, &seg.dst);
	if (ret)
		goto err;
	ret = neuron_nc_enter(nf, BIT_ULL(src->nc) | BIT_ULL(dst->nc), 0);
	if (ret)
		goto err;
	ncs = BIT_ULL(src->nc) | BIT_ULL(dst->nc);
	q = neuron_copy_queue(dst);
	if (IS_ERR(q)) {
		ret = PTR_ERR(q);
		goto err;
	}
	/* The request takes both references. */
	req = neuron_copy_req(q, nf, src);
	if (!req) {
		neuron_mem_put(dst);
		ret = -ENOMEM;
		goto out;
	}
	req->mem[1] = dst;
	ret = neuron_copy_run(nf, q, req, &seg, c->flags & NEURON_COPY_ASYNC,
			      &c->seqno);
	goto out;
err:
	if (dst)
		neuron_mem_put(dst);
	if (src)
		neuron_mem_put(src);
out:
	neuron_nc_exit(nf, ncs);
	return ret;
}

/* Pages that @len bytes of user memory at @uaddr touch. */
static unsigned long neuron_user_pages(u64 uaddr, u64 len)
{
	return DIV_ROUND_UP(offset_in_page(uaddr) + len, PAGE_SIZE);
}

/*
 * Pin and map user memory for @req. A pin that outlives the call (an
 * asynchronous copy) is FOLL_LONGTERM: the pages are moved out of
 * movable and CMA memory first, as for RDMA.
 */
static int neuron_copy_pin(struct neuron_device *nd, struct neuron_dma_req *req,
			   u64 uaddr, u64 len, bool write, bool longterm)
{
	unsigned long first = uaddr & PAGE_MASK;
	unsigned long npages = neuron_user_pages(uaddr, len);
	unsigned int gup = (write ? FOLL_WRITE : 0) | (longterm ? FOLL_LONGTERM : 0);
	int pinned;

	req->pages = kvmalloc_array(npages, sizeof(*req->pages), GFP_KERNEL);
	if (!req->pages)
		return -ENOMEM;
	pinned = pin_user_pages_fast(first, npages, gup, req->pages);
	if (pinned != npages) {
		if (pinned > 0)
			unpin_user_pages(req->pages, pinned);
		kvfree(req->pages);
		req->pages = NULL;
		return pinned < 0 ? pinned : -EFAULT;
	}
	req->dirty = write;
	req->npages = npages;
	return neuron_dma_req_map(req);
}

/*
 * Synchronously, between user memory at @uaddr and @dev: by windows of
 * pinned pages, two in flight at a time, so that little is pinned at once.
 */
static int neuron_copy_user_sync(struct neuron_file *nf, struct neuron_mem *mem,
				 struct neuron_dma_queue *q,
				 const struct neuron_dma_side *dev,
				 u64 uaddr, u64 size, bool to_user)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_dma_req *req, *prev = NULL;
	struct neuron_dma_seg seg = {};
	u64 done = 0;
	int ret = 0, ret2;

	while (!ret && done < size) {
		u64 ua = uaddr + done;
		u64 len = min_t(u64, size - done,
				NEURON_COPY_WINDOW_PAGES * PAGE_SIZE - offset_in_page(ua));

		kref_get(&mem->ref);
		req = neuron_copy_req(q, nf, mem);
		if (!req) {
			ret = -ENOMEM;
			break;
		}
		ret = neuron_copy_pin(nd, req, ua, len, to_user, false);
		if (ret) {
			neuron_job_put(&req->job);
			break;
		}
		/* Faults of every window, the one COMPLETION at the last. */
		req->key = nf->key;
		req->report = done + len == size;
		seg.len = len;
		seg.src = to_user ? *dev : neuron_copy_user_side(req, offset_in_page(ua));
		seg.dst = to_user ? neuron_copy_user_side(req, offset_in_page(ua)) : *dev;
		if (to_user)
			seg.src.addr += done;
		else
			seg.dst.addr += done;
		ret = neuron_dma_submit(q, req, &seg);
		/* Failed before a packet: never queued, it would never end. */
		if (ret && !neuron_job_queued(&req->job)) {
			neuron_job_put(&req->job);
			req = NULL;
		}
		if (prev) {
			ret2 = neuron_job_wait(&prev->job, KTIME_MAX, false);
			neuron_job_put(&prev->job);
			ret = ret ? ret : ret2;
		}
		prev = req;
		done += len;
	}
	if (prev) {
		ret2 = neuron_job_wait(&prev->job, KTIME_MAX, false);
		neuron_job_put(&prev->job);
		ret = ret ? ret : ret2;
	}
	return ret;
}

/*
 * Asynchronously: the call returns before the device is done, so the whole
 * range is pinned at once (long term) and charged to the caller's pinned
 * memory (neuron_pin_charge()) until the request ends. It is one request in one
 * submission: a queue reset cannot fall between its parts.
 */
static int neuron_copy_user_async(struct neuron_file *nf, struct neuron_mem *mem,
				  struct neuron_dma_queue *q,
				  const struct neuron_dma_side *dev,
				  u64 uaddr, struct neuron_copy *c, bool to_user)
{
	struct neuron_dma_seg seg = { .len = c->size };
	struct neuron_dma_req *req;
	int ret;

	kref_get(&mem->ref);
	req = neuron_copy_req(q, nf, mem);
	if (!req)
		return -ENOMEM;
	ret = neuron_pin_charge(&req->charge, neuron_user_pages(uaddr, c->size));
	if (!ret)
		ret = neuron_copy_pin(nf->nd, req, uaddr, c->size, to_user, true);
	if (ret) {
		neuron_job_put(&req->job);
		return ret;
	}
	seg.src = to_user ? *dev : neuron_copy_user_side(req, offset_in_page(uaddr));
	seg.dst = to_user ? neuron_copy_user_side(req, offset_in_page(uaddr)) : *dev;
	return neuron_copy_run(nf, q, req, &seg, true, &c->seqno);
}

/* Between user memory and an object. */
static int neuron_copy_user(struct neuron_file *nf, struct neuron_copy *c)
{
	bool to_user = !c->dst_handle;
	u64 uaddr = to_user ? c->dst_ptr : c->src_ptr;
	struct neuron_dma_side dev;
	struct neuron_dma_queue *q;
	struct neuron_mem *mem;
	int ret;

	mem = neuron_mem_lookup(nf, to_user ? c->src_handle : c->dst_handle);
	if (!mem)
		return -ENOENT;
	ret = neuron_copy_addr(mem, to_user ? c->src_offset : c->dst_offset,
			       c->size, &dev);
	if (ret)
		goto out;
	/* The object's NC until the copy is submitted (done, if synchronous). */
	ret = neuron_nc_enter(nf, BIT_ULL(mem->nc), 0);
	if (ret)
		goto out;
	q = neuron_copy_queue(mem);
	if (IS_ERR(q))
		ret = PTR_ERR(q);
	else if (c->flags & NEURON_COPY_ASYNC)
		ret = neuron_copy_user_async(nf, mem, q, &dev, uaddr, c, to_user);
	else
		ret = neuron_copy_user_sync(nf, mem, q, &dev, uaddr, c->size, to_user);
	neuron_nc_exit(nf, BIT_ULL(mem->nc));
out:
	neuron_mem_put(mem);
	return ret;
}

int neuron_ioctl_copy(struct neuron_file *nf, void *arg)
{
	struct neuron_copy *c = arg;
	int ret;

	if (!(nf->nd->hal->caps & NEURON_CAP_COPY))
		return -EOPNOTSUPP;
	ret = neuron_copy_check(c);
	if (ret)
		return ret;
	if (c->src_handle && c->dst_handle)
		return neuron_copy_objects(nf, c);
	c->seqno = 0;
	return neuron_copy_user(nf, c);
}

int neuron_ioctl_memset(struct neuron_file *nf, void *arg)
{
	struct neuron_memset *m = arg;
	struct neuron_device *nd = nf->nd;
	struct neuron_dma_seg seg = { .len = m->size, .src_fixed = true };
	struct neuron_dma_queue *q;
	struct neuron_dma_req *req;
	struct neuron_mem *mem;
	u32 nc;
	int ret;

	if (!(nd->hal->caps & NEURON_CAP_COPY))
		return -EOPNOTSUPP;
	if ((m->flags & ~NEURON_COPY_ASYNC) || m->pad || m->reserved[0] ||
	    m->reserved[1] || m->value > 0xff || !m->size)
		return -EINVAL;
	mem = neuron_mem_lookup(nf, m->handle);
	if (!mem)
		return -ENOENT;
	seg.value = m->value;
	nc = mem->nc;
	ret = neuron_copy_addr(mem, m->offset, m->size, &seg.dst);
	if (!ret)
		ret = neuron_nc_enter(nf, BIT_ULL(nc), 0);
	if (ret) {
		neuron_mem_put(mem);
		return ret;
	}
	q = neuron_copy_queue(mem);
	if (IS_ERR(q)) {
		neuron_mem_put(mem);
		ret = PTR_ERR(q);
		goto out;
	}
	req = neuron_copy_req(q, nf, mem);	/* takes the reference */
	if (!req) {
		ret = -ENOMEM;
		goto out;
	}
	ret = neuron_copy_run(nf, q, req, &seg, m->flags & NEURON_COPY_ASYNC,
			      &m->seqno);
out:
	neuron_nc_exit(nf, BIT_ULL(nc));
	return ret;
}
