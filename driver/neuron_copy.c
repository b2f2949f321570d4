// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: COPY, MEMSET and WAIT. Every transfer goes through the DMA queue
 * of a NeuronCore (dma/neuron_dma.c) with descriptors the driver builds
 * from the caller's own objects: handles are looked up in the caller's
 * file, ranges are checked inside the objects, and user memory is pinned
 * and mapped for the device by the driver. No address given by userspace
 * ever reaches a descriptor.
 *
 * Every transfer is a job (dma/neuron_dma.h) whose fence tells when it is
 * done. Asynchronous calls get a sequence number (per file, never 0) that
 * names the job's fence in nf->reqs until WAIT collects it or the file is
 * released; at most max_async of them at a time (a per-file limit). The number is
 * reserved first and the job published under it only once it is fully
 * built and queued: a WAIT on a number it cannot see yet gets -ENOENT.
 *
 * These ioctls run outside the removal guard (they sleep): the calls into
 * the backend (mapping user pages, the queue's creation, submission) each
 * enter it themselves, and waits hold a reference on the job only.
 */
#include <linux/capability.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "neuron_drv.h"
#include "dma/neuron_desc.h"
#include "dma/neuron_dma.h"

/* User memory is pinned and moved by windows of this many pages. */
#define NEURON_COPY_WINDOW_PAGES	512

/* The device address of [@off, @off + @len) of @mem, if inside it. */
static int neuron_copy_addr(struct neuron_mem *mem, u64 off, u64 len, u64 *addr)
{
	if (off > mem->size || len > mem->size - off)
		return -EINVAL;
	*addr = (mem->kind == NEURON_MEM_DEVICE ? mem->dev_addr : mem->iova) + off;
	return 0;
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

/* Reserve a sequence number in @nf for a job not built yet. */
int neuron_async_reserve(struct neuron_file *nf, u64 *seqno)
{
	unsigned int max = READ_ONCE(neuron_max_async);
	u32 id;
	int ret;

	if (atomic_inc_return(&nf->nreqs) > max && max) {
		atomic_dec(&nf->nreqs);
		return -EAGAIN;
	}
	/* A NULL entry is a reservation: xa_load() sees nothing there. */
	ret = xa_alloc_cyclic(&nf->reqs, &id, NULL, XA_LIMIT(1, U32_MAX),
			      &nf->next_seqno, GFP_KERNEL);
	if (ret < 0) {
		atomic_dec(&nf->nreqs);
		return ret;
	}
	*seqno = id;
	return 0;
}

void neuron_async_unreserve(struct neuron_file *nf, u64 seqno)
{
	xa_release(&nf->reqs, seqno);
	atomic_dec(&nf->nreqs);
}

/* Publish the queued @job under its reserved @seqno (the file's reference). */
void neuron_async_publish(struct neuron_file *nf, u64 seqno,
			  struct neuron_job *job)
{
	/* The slot exists: storing into it allocates nothing, cannot fail. */
	WARN_ON(xa_err(xa_store(&nf->reqs, seqno, neuron_job_get(job), GFP_KERNEL)));
}

/* Drop @seqno from @nf if it still names @job. */
bool neuron_async_remove(struct neuron_file *nf, u64 seqno,
			 struct neuron_job *job)
{
	if (xa_cmpxchg(&nf->reqs, seqno, job, NULL, 0) != job)
		return false;
	atomic_dec(&nf->nreqs);
	neuron_job_put(job);
	return true;
}

/*
 * Submit @job on @q; wait for it unless @async, else publish it under a new
 * sequence number. Consumes the caller's @job.
 */
static int neuron_copy_run(struct neuron_file *nf, struct neuron_dma_queue *q,
			   struct neuron_job *job,
			   const struct neuron_dma_seg *seg, bool async, u64 *seqno)
{
	int ret = 0;

	*seqno = 0;
	if (async)
		ret = neuron_async_reserve(nf, seqno);
	/* Reported in the file's own queues only, with its own number. */
	job->key = nf->key;
	job->report = true;
	job->tag = *seqno;
	if (!ret) {
		ret = neuron_dma_submit(q, job, seg);
		if (async && ret)
			neuron_async_unreserve(nf, *seqno);
		else if (async)
			neuron_async_publish(nf, *seqno, job);
		else if (!ret)
			ret = neuron_job_wait(job, KTIME_MAX, false);
	}
	if (ret)
		*seqno = 0;
	neuron_job_put(job);
	return ret;
}

/* A job using @mem (the reference passes to the job). */
static struct neuron_job *neuron_copy_job(struct neuron_dma_queue *q,
					  struct neuron_mem *mem)
{
	struct neuron_job *job = neuron_job_alloc(q);

	if (!job) {
		neuron_mem_put(mem);
		return NULL;
	}
	job->mem[0] = mem;
	return job;
}

/* The kernel queue of the NC that @mem is charged to. */
static struct neuron_dma_queue *neuron_copy_queue(struct neuron_mem *mem)
{
	return neuron_dma_queue_get(neuron_nc_get(mem->nd, mem->nc));
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
	struct neuron_dma_queue *q;
	struct neuron_job *job;
	int ret;

	ret = neuron_copy_addr(src, soff, len, &seg.src);
	if (!ret)
		ret = neuron_copy_addr(dst, doff, len, &seg.dst);
	if (ret)
		return ret;
	q = neuron_copy_queue(dst);
	if (IS_ERR(q))
		return PTR_ERR(q);
	kref_get(&src->ref);
	job = neuron_copy_job(q, src);
	if (!job)
		return -ENOMEM;
	kref_get(&dst->ref);
	job->mem[1] = dst;
	ret = neuron_dma_submit(q, job, &seg);
	if (!ret)
		ret = neuron_job_wait(job, KTIME_MAX, false);
	neuron_job_put(job);
	return ret;
}

/*
 * Between two objects of the file, through the queue of @dst's NC. Both
 * NCs are entered (neuron_nc_enter()) until the job is submitted, or done
 * for a synchronous copy.
 */
static int neuron_copy_objects(struct neuron_file *nf, struct neuron_copy *c)
{
	struct neuron_dma_seg seg = { .len = c->size };
	struct neuron_mem *src, *dst = NULL;
	struct neuron_dma_queue *q;
	struct neuron_job *job;
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
	/* The job takes both references. */
	job = neuron_copy_job(q, src);
	if (!job) {
		neuron_mem_put(dst);
		ret = -ENOMEM;
		goto out;
	}
	job->mem[1] = dst;
	ret = neuron_copy_run(nf, q, job, &seg, c->flags & NEURON_COPY_ASYNC,
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
 * Pin and map user memory for @job. A pin that outlives the call (an
 * asynchronous copy) is FOLL_LONGTERM: the pages are moved out of
 * movable and CMA memory first, as for RDMA.
 */
static int neuron_copy_pin(struct neuron_device *nd, struct neuron_job *job,
			   u64 uaddr, u64 len, bool write, bool longterm)
{
	unsigned long first = uaddr & PAGE_MASK;
	unsigned long npages = neuron_user_pages(uaddr, len);
	unsigned int gup = (write ? FOLL_WRITE : 0) | (longterm ? FOLL_LONGTERM : 0);
	int pinned;

	job->pages = kvmalloc_array(npages, sizeof(*job->pages), GFP_KERNEL);
	if (!job->pages)
		return -ENOMEM;
	pinned = pin_user_pages_fast(first, npages, gup, job->pages);
	if (pinned != npages) {
		if (pinned > 0)
			unpin_user_pages(job->pages, pinned);
		kvfree(job->pages);
		job->pages = NULL;
		return pinned < 0 ? pinned : -EFAULT;
	}
	job->dirty = write;
	job->npages = npages;
	return neuron_job_map(job);
}

/*
 * Synchronously, between user memory at @uaddr and @dev: by windows of
 * pinned pages, two in flight at a time, so that little is pinned at once.
 */
static int neuron_copy_user_sync(struct neuron_file *nf, struct neuron_mem *mem,
				 struct neuron_dma_queue *q, u64 dev,
				 u64 uaddr, u64 size, bool to_user)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_job *job, *prev = NULL;
	struct neuron_dma_seg seg = {};
	u64 done = 0;
	int ret = 0, ret2;

	while (!ret && done < size) {
		u64 ua = uaddr + done;
		u64 len = min_t(u64, size - done,
				NEURON_COPY_WINDOW_PAGES * PAGE_SIZE - offset_in_page(ua));

		kref_get(&mem->ref);
		job = neuron_copy_job(q, mem);
		if (!job) {
			ret = -ENOMEM;
			break;
		}
		ret = neuron_copy_pin(nd, job, ua, len, to_user, false);
		if (ret) {
			neuron_job_put(job);
			break;
		}
		/* Faults of every window, the one COMPLETION at the last. */
		job->key = nf->key;
		job->report = done + len == size;
		seg.len = len;
		seg.src = to_user ? dev + done : job->iova + offset_in_page(ua);
		seg.dst = to_user ? job->iova + offset_in_page(ua) : dev + done;
		ret = neuron_dma_submit(q, job, &seg);
		if (prev) {
			ret2 = neuron_job_wait(prev, KTIME_MAX, false);
			neuron_job_put(prev);
			ret = ret ? ret : ret2;
		}
		prev = job;
		done += len;
	}
	if (prev) {
		ret2 = neuron_job_wait(prev, KTIME_MAX, false);
		neuron_job_put(prev);
		ret = ret ? ret : ret2;
	}
	return ret;
}

/*
 * Asynchronously: the call returns before the device is done, so the whole
 * range is pinned at once (long term) and charged to the caller's pinned
 * memory (neuron_pin_charge()) until the job retires. It is one job in one
 * submission: a queue reset cannot fall between its parts.
 */
static int neuron_copy_user_async(struct neuron_file *nf, struct neuron_mem *mem,
				  struct neuron_dma_queue *q, u64 dev,
				  u64 uaddr, struct neuron_copy *c, bool to_user)
{
	struct neuron_dma_seg seg = { .len = c->size };
	struct neuron_job *job;
	int ret;

	kref_get(&mem->ref);
	job = neuron_copy_job(q, mem);
	if (!job)
		return -ENOMEM;
	ret = neuron_pin_charge(&job->charge, neuron_user_pages(uaddr, c->size));
	if (!ret)
		ret = neuron_copy_pin(nf->nd, job, uaddr, c->size, to_user, true);
	if (ret) {
		neuron_job_put(job);
		return ret;
	}
	seg.src = to_user ? dev : job->iova + offset_in_page(uaddr);
	seg.dst = to_user ? job->iova + offset_in_page(uaddr) : dev;
	return neuron_copy_run(nf, q, job, &seg, true, &c->seqno);
}

/* Between user memory and an object. */
static int neuron_copy_user(struct neuron_file *nf, struct neuron_copy *c)
{
	bool to_user = !c->dst_handle;
	u64 uaddr = to_user ? c->dst_ptr : c->src_ptr;
	struct neuron_dma_queue *q;
	struct neuron_mem *mem;
	u64 dev;
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
		ret = neuron_copy_user_async(nf, mem, q, dev, uaddr, c, to_user);
	else
		ret = neuron_copy_user_sync(nf, mem, q, dev, uaddr, c->size, to_user);
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
	struct neuron_job *job;
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
	job = neuron_copy_job(q, mem);	/* takes the reference */
	if (!job) {
		ret = -ENOMEM;
		goto out;
	}
	ret = neuron_copy_run(nf, q, job, &seg, m->flags & NEURON_COPY_ASYNC,
			      &m->seqno);
out:
	neuron_nc_exit(nf, BIT_ULL(nc));
	return ret;
}

/*
 * WAIT: sleeps on the job's fence with a reference of its own, outside the
 * removal guard; removal fails the job (-ENODEV) and so ends the wait.
 */
int neuron_ioctl_wait(struct neuron_file *nf, void *arg)
{
	struct neuron_wait *w = arg;
	struct neuron_job *job;
	int ret;

	if (w->flags || w->pad)
		return -EINVAL;
	if (!w->seqno || w->seqno > U32_MAX)
		return -ENOENT;
	xa_lock(&nf->reqs);
	job = xa_load(&nf->reqs, w->seqno);
	if (job)
		neuron_job_get(job);
	xa_unlock(&nf->reqs);
	if (!job)
		return -ENOENT;

	ret = neuron_job_wait(job, ns_to_ktime(max_t(s64, w->timeout_ns, 0)), true);
	if (neuron_job_done(job))
		ret = neuron_async_remove(nf, w->seqno, job) ? neuron_job_status(job) :
							       -ENOENT;
	neuron_job_put(job);
	return ret;
}

void neuron_file_copy_init(struct neuron_file *nf)
{
	xa_init_flags(&nf->reqs, XA_FLAGS_ALLOC1);
}

/* The file is gone: forget its sequence numbers; transfers finish alone. */
void neuron_file_copy_release(struct neuron_file *nf)
{
	struct neuron_job *job;
	unsigned long seqno;

	/* Nobody else uses the file now: drop the entries, then the tree. */
	xa_for_each(&nf->reqs, seqno, job)
		neuron_job_put(job);
	xa_destroy(&nf->reqs);
}
