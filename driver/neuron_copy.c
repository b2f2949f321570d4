// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: COPY, MEMSET and WAIT. Every transfer goes through the DMA queue
 * of a NeuronCore (dma/neuron_dma.c) with descriptors the driver builds
 * from the caller's own objects: handles are looked up in the caller's
 * file, ranges are checked inside the objects, and user memory is pinned
 * and mapped for the device by the driver. No address given by userspace
 * ever reaches a descriptor.
 *
 * Asynchronous calls get a sequence number (per file, never 0) held in
 * nf->reqs until WAIT collects it or the file is released; at most
 * NEURON_MAX_ASYNC of them at a time.
 */
#include <linux/capability.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "neuron_drv.h"
#include "dma/neuron_desc.h"
#include "dma/neuron_dma.h"

#define NEURON_MAX_ASYNC		4096
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

/* Give @req a sequence number in @nf; the file holds a reference. */
static int neuron_async_add(struct neuron_file *nf, struct neuron_dma_req *req,
			    u64 *seqno)
{
	u32 id;
	int ret;

	if (atomic_inc_return(&nf->nreqs) > NEURON_MAX_ASYNC) {
		atomic_dec(&nf->nreqs);
		return -EAGAIN;
	}
	kref_get(&req->ref);
	ret = xa_alloc_cyclic(&nf->reqs, &id, req, XA_LIMIT(1, U32_MAX),
			      &nf->next_seqno, GFP_KERNEL);
	if (ret < 0) {
		atomic_dec(&nf->nreqs);
		neuron_dma_req_put(req);
		return ret;
	}
	*seqno = id;
	return 0;
}

/* Drop @seqno from @nf if it still names @req. */
static bool neuron_async_remove(struct neuron_file *nf, u64 seqno,
				struct neuron_dma_req *req)
{
	if (xa_cmpxchg(&nf->reqs, seqno, req, NULL, 0) != req)
		return false;
	atomic_dec(&nf->nreqs);
	neuron_dma_req_put(req);
	return true;
}

/* Submit @req on @q; wait unless @async. Consumes the caller's @req. */
static int neuron_copy_run(struct neuron_file *nf, struct neuron_dma_queue *q,
			   struct neuron_dma_req *req,
			   const struct neuron_dma_seg *seg, bool async, u64 *seqno)
{
	int ret = 0;

	*seqno = 0;
	if (async)
		ret = neuron_async_add(nf, req, seqno);
	if (!ret) {
		ret = neuron_dma_submit(q, req, seg);
		if (ret && async)
			neuron_async_remove(nf, *seqno, req);
		else if (!async)
			ret = neuron_dma_wait(q, req);
	}
	neuron_dma_req_put(req);
	return ret;
}

/* A request using @mem (the reference passes to the request). */
static struct neuron_dma_req *neuron_copy_req(struct neuron_device *nd,
					      struct neuron_mem *mem)
{
	struct neuron_dma_req *req = neuron_dma_req_alloc(nd);

	if (!req) {
		neuron_mem_put(mem);
		return NULL;
	}
	req->mem[0] = mem;
	return req;
}

static int neuron_copy_objects(struct neuron_file *nf, struct neuron_copy *c)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_dma_seg seg = { .len = c->size };
	struct neuron_dma_queue *q;
	struct neuron_dma_req *req;
	struct neuron_mem *src;
	int ret;

	src = neuron_mem_lookup(nf, c->src_handle);
	if (!src)
		return -ENOENT;
	req = neuron_copy_req(nd, src);
	if (!req)
		return -ENOMEM;
	req->mem[1] = neuron_mem_lookup(nf, c->dst_handle);
	ret = -ENOENT;
	if (!req->mem[1])
		goto err;
	ret = neuron_copy_addr(src, c->src_offset, c->size, &seg.src);
	if (!ret)
		ret = neuron_copy_addr(req->mem[1], c->dst_offset, c->size, &seg.dst);
	if (ret)
		goto err;
	q = neuron_dma_queue_get(nd, req->mem[1]->nc);
	if (IS_ERR(q)) {
		ret = PTR_ERR(q);
		goto err;
	}
	return neuron_copy_run(nf, q, req, &seg, c->flags & NEURON_COPY_ASYNC,
			       &c->seqno);
err:
	neuron_dma_req_put(req);
	return ret;
}

/* Pages that @len bytes of user memory at @uaddr touch. */
static unsigned long neuron_user_pages(u64 uaddr, u64 len)
{
	return DIV_ROUND_UP(offset_in_page(uaddr) + len, PAGE_SIZE);
}

/* Pin and map one window of user memory for @req. */
static int neuron_copy_pin(struct neuron_device *nd, struct neuron_dma_req *req,
			   u64 uaddr, u64 len, bool write)
{
	unsigned long first = uaddr & PAGE_MASK;
	unsigned long npages = neuron_user_pages(uaddr, len);
	int pinned;

	req->pages = kvmalloc_array(npages, sizeof(*req->pages), GFP_KERNEL);
	if (!req->pages)
		return -ENOMEM;
	pinned = pin_user_pages_fast(first, npages, write ? FOLL_WRITE : 0,
				     req->pages);
	if (pinned != npages) {
		if (pinned > 0)
			unpin_user_pages(req->pages, pinned);
		kvfree(req->pages);
		req->pages = NULL;
		return pinned < 0 ? pinned : -EFAULT;
	}
	req->pinned = true;
	req->dirty = write;
	req->npages = npages;
	return nd->hal->ops->dma_map(nd, req->pages, npages, &req->iova);
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
	struct neuron_dma_req *req, *prev = NULL;
	struct neuron_dma_seg seg;
	u64 done = 0;
	int ret = 0, ret2;

	while (!ret && done < size) {
		u64 ua = uaddr + done;
		u64 len = min_t(u64, size - done,
				NEURON_COPY_WINDOW_PAGES * PAGE_SIZE - offset_in_page(ua));

		kref_get(&mem->ref);
		req = neuron_copy_req(nd, mem);
		if (!req) {
			ret = -ENOMEM;
			break;
		}
		ret = neuron_copy_pin(nd, req, ua, len, to_user);
		if (ret) {
			neuron_dma_req_put(req);
			break;
		}
		seg.len = len;
		seg.src_fixed = false;
		seg.src = to_user ? dev + done : req->iova + offset_in_page(ua);
		seg.dst = to_user ? req->iova + offset_in_page(ua) : dev + done;
		ret = neuron_dma_submit(q, req, &seg);
		if (prev) {
			ret2 = neuron_dma_wait(q, prev);
			neuron_dma_req_put(prev);
			ret = ret ? ret : ret2;
		}
		prev = req;
		done += len;
	}
	if (prev) {
		ret2 = neuron_dma_wait(q, prev);
		neuron_dma_req_put(prev);
		ret = ret ? ret : ret2;
	}
	return ret;
}

/*
 * Charge @npages pinned pages to the caller's pinned_vm (VmPin), within
 * RLIMIT_MEMLOCK unless it has CAP_IPC_LOCK; @req returns them when it
 * drops its pages.
 */
static int neuron_copy_charge(struct neuron_dma_req *req, unsigned long npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct mm_struct *mm = current->mm;

	if (atomic64_add_return(npages, &mm->pinned_vm) > limit &&
	    !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	mmgrab(mm);
	req->pin_mm = mm;
	req->pin_charged = npages;
	return 0;
}

/*
 * Asynchronously: the call returns before the device is done, so the whole
 * range is pinned at once and charged (neuron_copy_charge()) until the
 * request retires. It is one request in one submission: a queue reset
 * cannot fall between its parts.
 */
static int neuron_copy_user_async(struct neuron_file *nf, struct neuron_mem *mem,
				  struct neuron_dma_queue *q, u64 dev,
				  u64 uaddr, struct neuron_copy *c, bool to_user)
{
	struct neuron_dma_seg seg = { .len = c->size };
	struct neuron_dma_req *req;
	int ret;

	kref_get(&mem->ref);
	req = neuron_copy_req(nf->nd, mem);
	if (!req)
		return -ENOMEM;
	ret = neuron_copy_charge(req, neuron_user_pages(uaddr, c->size));
	if (!ret)
		ret = neuron_copy_pin(nf->nd, req, uaddr, c->size, to_user);
	if (ret) {
		neuron_dma_req_put(req);
		return ret;
	}
	seg.src = to_user ? dev : req->iova + offset_in_page(uaddr);
	seg.dst = to_user ? req->iova + offset_in_page(uaddr) : dev;
	return neuron_copy_run(nf, q, req, &seg, true, &c->seqno);
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
	q = ret ? NULL : neuron_dma_queue_get(nf->nd, mem->nc);
	if (IS_ERR(q))
		ret = PTR_ERR(q);
	if (!ret && (c->flags & NEURON_COPY_ASYNC))
		ret = neuron_copy_user_async(nf, mem, q, dev, uaddr, c, to_user);
	else if (!ret)
		ret = neuron_copy_user_sync(nf, mem, q, dev, uaddr, c->size, to_user);
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

/* A 64 KiB buffer of @value, mapped for the device: the memset source. */
static int neuron_memset_pattern(struct neuron_device *nd,
				 struct neuron_dma_req *req, u8 value)
{
	unsigned long i;

	req->npages = NEURON_DESC_MAX_LEN / PAGE_SIZE;
	req->pages = neuron_pages_alloc(req->npages);
	if (!req->pages)
		return -ENOMEM;
	for (i = 0; value && i < req->npages; i++)
		memset_page(req->pages[i], 0, value, PAGE_SIZE);
	return nd->hal->ops->dma_map(nd, req->pages, req->npages, &req->iova);
}

int neuron_ioctl_memset(struct neuron_file *nf, void *arg)
{
	struct neuron_memset *m = arg;
	struct neuron_device *nd = nf->nd;
	struct neuron_dma_seg seg = { .len = m->size, .src_fixed = true };
	struct neuron_dma_queue *q;
	struct neuron_dma_req *req;
	struct neuron_mem *mem;
	int ret;

	if (!(nd->hal->caps & NEURON_CAP_COPY))
		return -EOPNOTSUPP;
	if ((m->flags & ~NEURON_COPY_ASYNC) || m->pad || m->reserved[0] ||
	    m->reserved[1] || m->value > 0xff || !m->size)
		return -EINVAL;
	mem = neuron_mem_lookup(nf, m->handle);
	if (!mem)
		return -ENOENT;
	req = neuron_copy_req(nd, mem);
	if (!req)
		return -ENOMEM;
	ret = neuron_copy_addr(mem, m->offset, m->size, &seg.dst);
	if (!ret)
		ret = neuron_memset_pattern(nd, req, m->value);
	q = ret ? NULL : neuron_dma_queue_get(nd, mem->nc);
	if (IS_ERR(q))
		ret = PTR_ERR(q);
	if (ret) {
		neuron_dma_req_put(req);
		return ret;
	}
	seg.src = req->iova;
	return neuron_copy_run(nf, q, req, &seg, m->flags & NEURON_COPY_ASYNC,
			       &m->seqno);
}

/* Sleep until @req is done, the device goes, a signal, or @timeout. */
static int neuron_copy_sleep(struct neuron_file *nf, struct neuron_dma_req *req,
			     ktime_t timeout)
{
	return wait_event_interruptible_hrtimeout(req->q->wait,
						  neuron_dma_req_done(req) ||
						  neuron_dev_unplugged(nf->nd),
						  timeout);
}

int neuron_ioctl_wait(struct neuron_file *nf, void *arg)
{
	struct neuron_wait *w = arg;
	struct neuron_dma_req *req;
	ktime_t deadline, now;
	int ret = 0;

	if (w->flags || w->pad)
		return -EINVAL;
	if (!w->seqno || w->seqno > U32_MAX)
		return -ENOENT;
	xa_lock(&nf->reqs);
	req = xa_load(&nf->reqs, w->seqno);
	if (req)
		kref_get(&req->ref);
	xa_unlock(&nf->reqs);
	if (!req)
		return -ENOENT;

	deadline = ns_to_ktime(w->timeout_ns);
	now = ktime_get();
	if (!neuron_dma_req_done(req)) {
		ret = -ETIME;
		if (ktime_after(deadline, now))
			ret = neuron_copy_sleep(nf, req, ktime_sub(deadline, now));
	}
	if (!ret && !neuron_dma_req_done(req))
		ret = -ENODEV;
	if (!ret)
		ret = neuron_async_remove(nf, w->seqno, req) ? req->status : -ENOENT;
	neuron_dma_req_put(req);
	return ret;
}

void neuron_file_copy_init(struct neuron_file *nf)
{
	xa_init_flags(&nf->reqs, XA_FLAGS_ALLOC1);
}

/* The file is gone: forget its sequence numbers; transfers finish alone. */
void neuron_file_copy_release(struct neuron_file *nf)
{
	struct neuron_dma_req *req;
	unsigned long seqno;

	/* Nobody else uses the file now: drop the entries, then the tree. */
	xa_for_each(&nf->reqs, seqno, req)
		neuron_dma_req_put(req);
	xa_destroy(&nf->reqs);
}
