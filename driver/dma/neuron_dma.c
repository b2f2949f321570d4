// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: kernel-driven DMA queues (see neuron_dma.h).
 *
 * Locking: submit_lock (mutex) serialises the writers of descriptors and
 * the queue reset; it may be held while waiting for ring space. lock
 * (spinlock, IRQ-safe) guards what the interrupt handler reads and writes.
 * Requests are retired in process context (retire_work), which drops the
 * resources they hold. nd->dma_lock guards the creation of queues.
 */
#include <linux/interrupt.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "../neuron_drv.h"
#include "neuron_desc.h"
#include "neuron_dma.h"

static_assert(sizeof(struct neuron_dma_status) == 16);

struct neuron_dma_req *neuron_dma_req_alloc(struct neuron_device *nd)
{
	struct neuron_dma_req *req = kzalloc(sizeof(*req), GFP_KERNEL);

	if (!req)
		return NULL;
	kref_init(&req->ref);
	INIT_LIST_HEAD(&req->node);
	req->nd = nd;
	get_device(&nd->dev);
	return req;
}

/*
 * Drop what the transfer used: the device mapping, pinned or allocated
 * pages and their charge to pinned_vm, the memory objects. Done when the
 * request retires (so an asynchronous call not yet collected by WAIT pins
 * nothing), or at the last put for a request that never reached the
 * engine.
 */
static void neuron_dma_req_drop(struct neuron_dma_req *req)
{
	struct neuron_device *nd = req->nd;
	int i;

	if (req->iova)
		nd->hal->ops->dma_unmap(nd, req->iova);
	req->iova = 0;
	if (req->pinned) {
		unpin_user_pages_dirty_lock(req->pages, req->npages, req->dirty);
		kvfree(req->pages);
	} else if (req->pages) {
		neuron_pages_free(req->pages, req->npages);
	}
	req->pages = NULL;
	req->pinned = false;
	if (req->pin_mm) {
		atomic64_sub(req->pin_charged, &req->pin_mm->pinned_vm);
		mmdrop(req->pin_mm);
		req->pin_mm = NULL;
	}
	for (i = 0; i < ARRAY_SIZE(req->mem); i++) {
		if (req->mem[i])
			neuron_mem_put(req->mem[i]);
		req->mem[i] = NULL;
	}
}

static void neuron_dma_req_release(struct kref *ref)
{
	struct neuron_dma_req *req = container_of(ref, struct neuron_dma_req, ref);
	struct neuron_device *nd = req->nd;

	neuron_dma_req_drop(req);
	put_device(&nd->dev);
	kfree(req);
}

void neuron_dma_req_put(struct neuron_dma_req *req)
{
	kref_put(&req->ref, neuron_dma_req_release);
}

/* Mark @req done with @status and drop the queue's reference. */
static void neuron_dma_req_finish(struct neuron_dma_queue *q,
				  struct neuron_dma_req *req, int status)
{
	req->status = status;
	/* User pages are unpinned (and dirtied) before anyone sees @done. */
	neuron_dma_req_drop(req);
	/* Publish @status before @done (see neuron_dma_req_done()). */
	smp_store_release(&req->done, true);
	wake_up_all(&q->wait);
	neuron_dma_req_put(req);
}

/* Is the ring index @a before @b (both free running)? */
static bool neuron_dma_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

static irqreturn_t neuron_dma_irq(int vector, void *data)
{
	struct neuron_dma_queue *q = data;
	struct neuron_dma_status *st = q->status.va;
	u32 done = le32_to_cpu(READ_ONCE(st->completed));
	u32 err = le32_to_cpu(READ_ONCE(st->error));

	spin_lock(&q->lock);
	/* The device's count is untrusted: it must not go back or past prod. */
	if (!neuron_ring_index_valid(q->done_idx, q->published, done))
		err = NEURON_DMA_ERR_BOGUS;
	else
		q->done_idx = done;
	if (err && !q->error)
		q->error = err;
	spin_unlock(&q->lock);
	schedule_work(&q->retire_work);
	wake_up_all(&q->wait);
	return IRQ_HANDLED;
}

static void neuron_dma_queue_program(struct neuron_dma_queue *q)
{
	struct ndhal_dma_queue_cfg cfg = {
		.engine = q->engine,
		.nc = q->nc,
		.entries = NEURON_DMA_RING_ENTRIES,
		.tx_iova = q->tx.iova,
		.rx_iova = q->rx.iova,
		.status_iova = q->status.iova,
		.vector = NEURON_IRQ_DMA(q->nc),
	};

	memset(q->status.va, 0, sizeof(struct neuron_dma_status));
	q->prod = 0;
	q->published = 0;
	q->done_idx = 0;
	q->nd->hal->ops->dma_queue_start(q->nd, &cfg);
}

/*
 * After a device error: stop the engine, fail every request still pending
 * (the engine halted inside the first of them) and start afresh.
 */
static void neuron_dma_queue_reset(struct neuron_dma_queue *q)
{
	struct neuron_dma_req *req, *tmp;
	LIST_HEAD(failed);
	u32 err;

	mutex_lock(&q->submit_lock);
	q->nd->hal->ops->dma_queue_stop(q->nd, q->engine, 0);
	spin_lock_irq(&q->lock);
	err = q->error;
	list_splice_init(&q->pending, &failed);
	spin_unlock_irq(&q->lock);
	dev_warn_ratelimited(&q->nd->dev, "DMA error %u on NC %u, queue reset\n",
			     err, q->nc);
	neuron_dma_queue_program(q);
	spin_lock_irq(&q->lock);
	q->error = 0;
	spin_unlock_irq(&q->lock);
	mutex_unlock(&q->submit_lock);

	list_for_each_entry_safe(req, tmp, &failed, node) {
		list_del_init(&req->node);
		neuron_dma_req_finish(q, req, -EIO);
	}
}

static void neuron_dma_retire_work(struct work_struct *work)
{
	struct neuron_dma_queue *q = container_of(work, struct neuron_dma_queue,
						  retire_work);
	struct neuron_dma_req *req, *tmp;
	LIST_HEAD(done);
	u32 err;

	spin_lock_irq(&q->lock);
	list_for_each_entry_safe(req, tmp, &q->pending, node) {
		if (neuron_dma_before(q->done_idx, req->end))
			break;
		list_move_tail(&req->node, &done);
	}
	err = q->error;
	spin_unlock_irq(&q->lock);

	list_for_each_entry_safe(req, tmp, &done, node) {
		list_del_init(&req->node);
		neuron_dma_req_finish(q, req, 0);
	}
	if (err)
		neuron_dma_queue_reset(q);
	wake_up_all(&q->wait);
}

static void neuron_dma_queue_free(struct neuron_dma_queue *q)
{
	struct neuron_device *nd = q->nd;

	neuron_ring_free(nd, &q->status);
	neuron_ring_free(nd, &q->rx);
	neuron_ring_free(nd, &q->tx);
	kfree(q);
}

static struct neuron_dma_queue *neuron_dma_queue_create(struct neuron_device *nd,
							u32 nc)
{
	struct neuron_dma_queue *q;
	int ret;

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return ERR_PTR(-ENOMEM);
	q->nd = nd;
	q->nc = nc;
	q->engine = nc * nd->hal->arch->dma_engines_per_nc;
	mutex_init(&q->submit_lock);
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->pending);
	init_waitqueue_head(&q->wait);
	INIT_WORK(&q->retire_work, neuron_dma_retire_work);

	ret = neuron_ring_alloc(nd, &q->tx, NEURON_DMA_RING_ENTRIES,
				sizeof(struct neuron_udma_desc));
	if (ret)
		goto err_free;
	ret = neuron_ring_alloc(nd, &q->rx, NEURON_DMA_RING_ENTRIES,
				sizeof(struct neuron_udma_desc));
	if (ret)
		goto err_tx;
	ret = neuron_ring_alloc(nd, &q->status, 1, sizeof(struct neuron_dma_status));
	if (ret)
		goto err_rx;
	ret = nd->hal->ops->irq_request(nd, NEURON_IRQ_DMA(nc), neuron_dma_irq, q);
	if (ret)
		goto err_status;
	neuron_dma_queue_program(q);
	return q;

err_status:
	neuron_ring_free(nd, &q->status);
err_rx:
	neuron_ring_free(nd, &q->rx);
err_tx:
	neuron_ring_free(nd, &q->tx);
err_free:
	kfree(q);
	return ERR_PTR(ret);
}

/* The kernel queue of NeuronCore @nc, created on first use. */
struct neuron_dma_queue *neuron_dma_queue_get(struct neuron_device *nd, u32 nc)
{
	struct neuron_dma_queue *q;

	mutex_lock(&nd->dma_lock);
	q = nd->dma_queue[nc];
	if (!q) {
		q = neuron_dma_queue_create(nd, nc);
		if (!IS_ERR(q))
			nd->dma_queue[nc] = q;
	}
	mutex_unlock(&nd->dma_lock);
	return q;
}

static bool neuron_dma_has_space(struct neuron_dma_queue *q)
{
	bool ok;

	spin_lock_irq(&q->lock);
	ok = neuron_ring_space(NEURON_DMA_RING_ENTRIES, q->prod, q->done_idx) > 0 ||
	     q->error;
	spin_unlock_irq(&q->lock);
	return ok || neuron_dev_unplugged(q->nd);
}

/* Hand the descriptors written so far to the engine. */
static void neuron_dma_kick(struct neuron_dma_queue *q)
{
	spin_lock_irq(&q->lock);
	q->published = q->prod;
	spin_unlock_irq(&q->lock);
	/* Descriptors are in memory before the doorbell. */
	dma_wmb();
	q->nd->hal->ops->dma_queue_kick(q->nd, q->engine, 0, q->prod);
}

/* Write one packet at q->prod; the caller made sure there is room. */
static void neuron_dma_write_packet(struct neuron_dma_queue *q, u64 src, u64 dst,
				    u32 len, bool irq)
{
	u32 gen = neuron_ring_gen(NEURON_DMA_RING_ENTRIES, q->prod);
	u32 flags = NEURON_DESC_FIRST | NEURON_DESC_LAST;

	neuron_desc_encode(neuron_ring_entry(&q->tx, q->prod), src, len, gen, flags);
	if (irq)
		flags |= NEURON_DESC_INT;
	neuron_desc_encode(neuron_ring_entry(&q->rx, q->prod), dst, len, gen, flags);
	q->prod++;
}

/**
 * neuron_dma_submit() - queue a transfer
 * @q: the queue.
 * @req: the request; the queue takes a reference until it is retired.
 * @seg: what to move.
 *
 * Splits @seg in packets of at most 64 KiB, waiting for ring space as
 * needed. Even if the queue fails or the device goes away half way, @req
 * is queued and will be finished (with an error): its resources are never
 * dropped while the engine may still use them.
 *
 * Return: 0, or -EIO / -ENODEV when the request could not be queued whole
 * (it then completes with that error).
 */
int neuron_dma_submit(struct neuron_dma_queue *q, struct neuron_dma_req *req,
		      const struct neuron_dma_seg *seg)
{
	u64 off = 0;
	int ret = 0;

	req->q = q;
	mutex_lock(&q->submit_lock);
	while (off < seg->len) {
		u32 len = min_t(u64, seg->len - off, NEURON_DESC_MAX_LEN);
		bool last = off + len == seg->len;
		bool irq = last || !((q->prod + 1) % NEURON_DMA_INT_EVERY);

		if (!neuron_dma_has_space(q)) {
			neuron_dma_kick(q);
			wait_event(q->wait, neuron_dma_has_space(q));
		}
		if (q->error || neuron_dev_unplugged(q->nd)) {
			ret = q->error ? -EIO : -ENODEV;
			break;
		}
		neuron_dma_write_packet(q, seg->src + (seg->src_fixed ? 0 : off),
					seg->dst + off, len, irq);
		off += len;
	}
	req->end = q->prod;
	kref_get(&req->ref);
	spin_lock_irq(&q->lock);
	list_add_tail(&req->node, &q->pending);
	spin_unlock_irq(&q->lock);
	neuron_dma_kick(q);
	mutex_unlock(&q->submit_lock);
	return ret;
}

/*
 * Wait until @req is retired (killable; the request goes on if the caller
 * is killed). Return: its status, -EINTR, or -ENODEV.
 */
int neuron_dma_wait(struct neuron_dma_queue *q, struct neuron_dma_req *req)
{
	bool stop;

	stop = wait_event_killable(q->wait, neuron_dma_req_done(req) ||
				   neuron_dev_unplugged(q->nd));
	if (stop)
		return -EINTR;
	if (!neuron_dma_req_done(req))
		return -ENODEV;
	return req->status;
}

/* The device is going away: wake every waiter (before synchronize_srcu). */
void neuron_dma_unplug(struct neuron_device *nd)
{
	int i;

	mutex_lock(&nd->dma_lock);
	for (i = 0; i < NEURON_MAX_NC; i++)
		if (nd->dma_queue[i])
			wake_up_all(&nd->dma_queue[i]->wait);
	mutex_unlock(&nd->dma_lock);
}

/*
 * The device is unplugged and no ioctl runs: stop the engines, fail what
 * is pending (its resources are dropped now) and free the queues.
 */
void neuron_dma_fini(struct neuron_device *nd)
{
	struct neuron_dma_req *req, *tmp;
	struct neuron_dma_queue *q;
	LIST_HEAD(failed);
	int i;

	for (i = 0; i < NEURON_MAX_NC; i++) {
		q = nd->dma_queue[i];
		if (!q)
			continue;
		/* No interrupt, then no retire work (a reset restarts the queue). */
		nd->hal->ops->irq_free(nd, NEURON_IRQ_DMA(i));
		cancel_work_sync(&q->retire_work);
		nd->hal->ops->dma_queue_stop(nd, q->engine, 0);
		spin_lock_irq(&q->lock);
		list_splice_init(&q->pending, &failed);
		spin_unlock_irq(&q->lock);
		list_for_each_entry_safe(req, tmp, &failed, node) {
			list_del_init(&req->node);
			neuron_dma_req_finish(q, req, -ENODEV);
		}
		nd->dma_queue[i] = NULL;
		neuron_dma_queue_free(q);
	}
}
