// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: kernel-driven DMA queues and jobs (see neuron_dma.h).
 *
 * Locking (docs/locking.md has the whole picture):
 *  - nc->lock (mutex) guards the creation of the NC's queue.
 *  - q->submit_lock (mutex) serialises the writers of descriptors, the
 *    queue reset and the queue's stop at removal. A submitter may sleep
 *    with it held while it waits for ring space, but never inside the
 *    device's removal guard, and killably: removal and hang detection wake
 *    it.
 *  - q->lock (spinlock, IRQ-safe) guards what the interrupt handler reads
 *    and writes, the pending list and the fences.
 * Jobs are retired in process context (retire_work), which drops the
 * resources they hold and signals their fences.
 */
#include <linux/highmem.h>
#include <linux/interrupt.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "neuron_common.h"
#include "neuron_nc.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_mem.h"
#include "neuron_job.h"
#include "neuron_notify.h"
#include "neuron_hw.h"
#include "neuron_trace.h"
#include "dma/neuron_dma.h"
#include "dma/neuron_ring.h"
#include "dma/neuron_desc.h"
#include "ndhal/ndhal.h"

static_assert(sizeof(struct neuron_dma_status) == 16);
/* Every file's key fits the descriptors' key field. */
static_assert(NEURON_FILE_KEY_MASK == NEURON_DESC_KEY);

unsigned int neuron_job_timeout_ms = 10000;
module_param_named(job_timeout_ms, neuron_job_timeout_ms, uint, 0644);
MODULE_PARM_DESC(job_timeout_ms,
		 "a DMA queue with work that completes nothing for this long is reset (ms, 10..600000)");

static unsigned long neuron_job_timeout(void)
{
	return msecs_to_jiffies(clamp(READ_ONCE(neuron_job_timeout_ms), 10U, 600000U));
}

/* ---- requests ---- */

/*
 * Give back what the transfer used: the device mapping, pinned pages and
 * their charge to pinned_vm, the memory objects. At the request's end (so
 * an asynchronous call not yet collected by WAIT pins nothing), or at the
 * last put of a request that never reached the engine.
 */
static void neuron_dma_req_retire(struct neuron_job *job)
{
	struct neuron_dma_req *req = neuron_job_to_dma(job);
	struct neuron_device *nd = job->nd;
	int i;

	if (req->dma)
		neuron_hw_res_put(nd, &req->dma_res);
	if (req->pages) {
		unpin_user_pages_dirty_lock(req->pages, req->npages, req->dirty);
		kvfree(req->pages);
		req->pages = NULL;
	}
	neuron_pin_uncharge(&req->charge);
	for (i = 0; i < ARRAY_SIZE(req->mem); i++) {
		if (req->mem[i])
			neuron_mem_put(req->mem[i]);
		req->mem[i] = NULL;
	}
}

static void neuron_dma_req_free(struct neuron_job *job)
{
	struct neuron_dma_req *req = neuron_job_to_dma(job);

	kfree_rcu(req, job.fence.rcu);
}

static const struct neuron_job_ops neuron_dma_req_ops = {
	.timeline = "dma",
	.retire = neuron_dma_req_retire,
	.free = neuron_dma_req_free,
};

static void neuron_dma_req_unmap(struct neuron_device *nd, struct neuron_hw_res *res)
{
	struct neuron_dma_req *req = container_of(res, struct neuron_dma_req, dma_res);

	neuron_pages_dma_unmap(nd, req->npages, &req->dma);
}

/**
 * neuron_dma_req_map() - map the request's pages for the device
 * @req: the request, with its @pages pinned.
 *
 * Takes the removal guard. Return: 0 (@req->dma set), -ENODEV, -ENOMEM,
 * or the backend's error.
 */
int neuron_dma_req_map(struct neuron_dma_req *req)
{
	struct neuron_device *nd = req->job.nd;
	int idx, ret;

	if (!neuron_dev_enter(nd, &idx))
		return -ENODEV;
	ret = neuron_pages_dma_map(nd, req->pages, req->npages, &req->dma);
	if (!ret)
		neuron_hw_res_add(nd, &req->dma_res, neuron_dma_req_unmap);
	neuron_dev_exit(nd, idx);
	return ret;
}

/**
 * neuron_dma_req_new() - a new transfer for queue @q, the caller's (one
 *	reference)
 * @q: the queue.
 * @nf: the submitting file (a reference is taken), or NULL for the
 *	driver's own transfer.
 *
 * Return: the request, or NULL.
 */
struct neuron_dma_req *neuron_dma_req_new(struct neuron_dma_queue *q,
					  struct neuron_file *nf)
{
	struct neuron_dma_req *req = kzalloc(sizeof(*req), GFP_KERNEL);

	if (req)
		neuron_job_init(&req->job, &neuron_dma_req_ops, &q->timeline, q->nc, nf);
	return req;
}

/*
 * End @req with @status (or the error it was submitted with). Called with
 * q->lock NOT held, the request off the pending list.
 */
static void neuron_dma_req_end(struct neuron_dma_queue *q, struct neuron_dma_req *req,
			       int status)
{
	if (!status)
		status = req->error;
	if (status)
		atomic64_inc(&q->nc->jobs_failed);
	trace_neuron_dma_complete(q->nd->minor, q->nc->index, req->job.fence.seqno,
				  status);
	neuron_job_end(&req->job, status);
}

/* ---- the queue ---- */

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

/*
 * (Re)start the engine's queue from index 0. Called with submit_lock held,
 * the engine stopped and its interrupt synchronised (or never started), so
 * nobody else touches the indices.
 */
static int neuron_dma_queue_program_locked(struct neuron_dma_queue *q)
{
	struct neuron_device *nd = q->nd;
	struct ndhal_dma_queue_cfg cfg = {
		.engine = q->engine,
		.queue = q->queue,
		.nc = q->nc->index,
		.entries = NEURON_DMA_RING_ENTRIES,
		.tx_iova = q->tx.iova,
		.rx_iova = q->rx.iova,
		.status_iova = q->status.iova,
		.vector = NEURON_IRQ_DMA(q->nc->index),
	};

	lockdep_assert_held(&q->submit_lock);
	memset(q->status.va, 0, sizeof(struct neuron_dma_status));
	if (q->marker)
		memset(q->marks.va, 0, q->marks.size);
	spin_lock_irq(&q->lock);
	q->prod = 0;
	q->published = 0;
	q->done_idx = 0;
	q->progress = 0;
	q->progress_at = jiffies;
	q->error = 0;
	spin_unlock_irq(&q->lock);
	return neuron_hw_dma_queue_start(nd, &cfg);
}

/* Fail every pending job of @q with @status. Called with submit_lock held. */
static void neuron_dma_fail_pending_locked(struct neuron_dma_queue *q, int status)
{
	struct neuron_dma_req *req, *tmp;
	LIST_HEAD(failed);

	lockdep_assert_held(&q->submit_lock);
	spin_lock_irq(&q->lock);
	list_splice_init(&q->pending, &failed);
	spin_unlock_irq(&q->lock);
	list_for_each_entry_safe(req, tmp, &failed, job.node) {
		list_del_init(&req->job.node);
		neuron_dma_req_end(q, req, status);
	}
}

/* (Re)arm the marker poll @us from now. */
static void neuron_dma_poll_arm(struct neuron_dma_queue *q, u32 us)
{
	hrtimer_start(&q->poll_timer, ns_to_ktime((u64)us * NSEC_PER_USEC), HRTIMER_MODE_REL);
}

static enum hrtimer_restart neuron_dma_poll_timer(struct hrtimer *t)
{
	struct neuron_dma_queue *q = container_of(t, struct neuron_dma_queue, poll_timer);

	queue_work(system_highpri_wq, &q->poll_work);
	return HRTIMER_NORESTART;
}

/*
 * Marker backends: the newest marker that landed tells how far the engine
 * got (it runs the ring in order, and the write barrier of the packet
 * before each marker puts the data first). With no marker new, ask the
 * backend whether the engine stopped on an error. Runs while the queue has
 * work (a kick starts it), at a period that starts short after each
 * progress and doubles while nothing lands; never sleeps for the device.
 */
static void neuron_dma_poll_work(struct work_struct *work)
{
	struct neuron_dma_queue *q = container_of(work, struct neuron_dma_queue, poll_work);
	u32 us;
	__le32 *marks = q->marks.va;
	u32 done, pub, i, j, err = 0;
	bool more;
	int idx;

	spin_lock_irq(&q->lock);
	done = q->done_idx;
	pub = q->published;
	spin_unlock_irq(&q->lock);
	for (i = pub; i != done; i--) {
		u32 slot = neuron_ring_slot(NEURON_DMA_RING_ENTRIES, i - 1);

		if (le32_to_cpu(READ_ONCE(marks[slot])) == NEURON_DMA_MARK)
			break;
	}
	if (i != done) {
		/* What the device wrote before the marker, before what we do next. */
		dma_rmb();
		for (j = done; j != i; j++)
			WRITE_ONCE(marks[neuron_ring_slot(NEURON_DMA_RING_ENTRIES, j)], 0);
	} else if (done != pub && neuron_dev_enter(q->nd, &idx)) {
		err = neuron_hw_dma_queue_error(q->nd, q->engine, q->queue);
		neuron_dev_exit(q->nd, idx);
	}
	spin_lock_irq(&q->lock);
	/* Only this work moves the count of a marker queue (a reset cancels it first). */
	q->done_idx = i;
	if (err && !q->error)
		q->error = err;
	more = q->done_idx != q->published && !q->error && !q->stopped;
	q->poll_us = i != done ? NEURON_DMA_POLL_MIN_US :
		     min_t(u32, 2 * q->poll_us, NEURON_DMA_POLL_MAX_US);
	us = q->poll_us;
	spin_unlock_irq(&q->lock);
	if (i != done || err) {
		schedule_work(&q->retire_work);
		wake_up_all(&q->wait);
	}
	if (more)
		neuron_dma_poll_arm(q, us);
}

/* Stop the marker poll; it starts again at the next kick. */
static void neuron_dma_poll_stop(struct neuron_dma_queue *q)
{
	hrtimer_cancel(&q->poll_timer);
	cancel_work_sync(&q->poll_work);
	/* The work re-arms only while work is due, which the caller ended. */
	hrtimer_cancel(&q->poll_timer);
}

/*
 * Wait until nothing that takes the engine's progress runs: its interrupt
 * handler, or the marker poll (which a later kick starts again).
 */
static void neuron_dma_progress_sync(struct neuron_dma_queue *q)
{
	if (q->marker)
		neuron_dma_poll_stop(q);
	else
		neuron_hw_irq_sync(q->nd, NEURON_IRQ_DMA(q->nc->index));
}

/*
 * After a device error or a hang: reset the NC's queue through the ops
 * (stop the engine, wait for its interrupt to finish), fail every job
 * still pending on it (the engine halted inside the first of them) and
 * start afresh. Only this NC's jobs fail. After a hang the backend also
 * resets the NC itself (ndhal_ops.nc_reset: the firmware on PCI, seconds
 * at worst) before the queue starts again; submitters wait on submit_lock
 * meanwhile. If the NC reset fails or the queue cannot be started again
 * the NC is failed: later submissions get -EIO.
 */
static void neuron_dma_queue_reset(struct neuron_dma_queue *q)
{
	struct neuron_device *nd = q->nd;
	struct neuron_nc *nc = q->nc;
	struct neuron_dma_status *st = q->status.va;
	int idx, ret;
	u32 err;

	WRITE_ONCE(q->resetting, true);
	mutex_lock(&q->submit_lock);
	if (!neuron_dev_enter(nd, &idx)) {
		/* Removal stops the queue and fails its jobs. */
		mutex_unlock(&q->submit_lock);
		WRITE_ONCE(q->resetting, false);
		return;
	}
	neuron_hw_dma_queue_stop(nd, q->engine, q->queue);
	neuron_dma_progress_sync(q);
	cancel_delayed_work(&q->hang_work);
	spin_lock_irq(&q->lock);
	err = q->error;
	spin_unlock_irq(&q->lock);
	if (err == NEURON_DMA_ERR_HUNG)
		dev_warn_ratelimited(&nd->dev, "DMA hang on NC %u, queue reset\n",
				     nc->index);
	else
		dev_warn_ratelimited(&nd->dev, "DMA error %u on NC %u at packet %u, queue reset\n",
				     err, nc->index, le32_to_cpu(READ_ONCE(st->error_index)));
	/* Before the jobs fail: the waiters they wake see the reset. */
	atomic64_inc(&nc->resets);
	trace_neuron_nc_reset(nd->minor, nc->index,
			      err == NEURON_DMA_ERR_HUNG ? NEURON_RESET_DMA_HANG :
			      NEURON_RESET_DMA_ERROR);
	neuron_dma_fail_pending_locked(q, -EIO);
	/*
	 * After a hang the NC itself is reset too, if the backend can; its
	 * notification queues are halted first (neuron_notify_nc_halt()).
	 */
	ret = 0;
	if (err == NEURON_DMA_ERR_HUNG && neuron_hw_has_nc_reset(nd)) {
		neuron_notify_nc_halt(nd, nc->index);
		ret = neuron_hw_nc_reset(nd, nc->index);
	}
	if (!ret)
		ret = neuron_dma_queue_program_locked(q);
	if (ret) {
		/* Removal (-ENODEV) stops the queue and fails what comes. */
		if (ret != -ENODEV)
			dev_err_ratelimited(&nd->dev, "NC %u: DMA queue does not restart (%d): NC out of service\n",
					    nc->index, ret);
		spin_lock_irq(&q->lock);
		q->stopped = true;
		spin_unlock_irq(&q->lock);
		if (ret != -ENODEV)
			WRITE_ONCE(q->failed, true);
	}
	neuron_dev_exit(nd, idx);
	mutex_unlock(&q->submit_lock);
	WRITE_ONCE(q->resetting, false);
	wake_up_all(&q->wait);
	/* The netlink events (process context, no lock held). */
	if (err != NEURON_DMA_ERR_HUNG)
		neuron_nl_event(nd, NEURON_EVENT_DMA_FAULT, nc->index, err);
	neuron_nl_event(nd, NEURON_EVENT_NC_RESET, nc->index,
			err == NEURON_DMA_ERR_HUNG ? NEURON_RESET_DMA_HANG :
						     NEURON_RESET_DMA_ERROR);
}

static void neuron_dma_retire_work(struct work_struct *work)
{
	struct neuron_dma_queue *q = container_of(work, struct neuron_dma_queue,
						  retire_work);
	struct neuron_dma_req *req, *tmp;
	LIST_HEAD(done);
	u32 err;

	/* A reset takes submit_lock: tell lockdep on every run, not only then. */
	might_lock(&q->submit_lock);
	spin_lock_irq(&q->lock);
	list_for_each_entry_safe(req, tmp, &q->pending, job.node) {
		if (neuron_dma_before(q->done_idx, req->end))
			break;
		list_move_tail(&req->job.node, &done);
	}
	err = q->error;
	spin_unlock_irq(&q->lock);

	list_for_each_entry_safe(req, tmp, &done, job.node) {
		list_del_init(&req->job.node);
		neuron_dma_req_end(q, req, 0);
	}
	if (err)
		neuron_dma_queue_reset(q);
	wake_up_all(&q->wait);
}

/*
 * The hang timer: a queue with work whose completed count did not move for
 * a whole period (job_timeout_ms since @progress_at: its last move, or the
 * doorbell that gave an idle queue work) is hung, and is reset as after a
 * device error. Doorbells on a busy queue do not restart the period: a
 * hung engine that is fed is still hung.
 */
static void neuron_dma_hang_work(struct work_struct *work)
{
	struct neuron_dma_queue *q = container_of(to_delayed_work(work),
						  struct neuron_dma_queue, hang_work);
	unsigned long now = jiffies, due;
	bool hung = false, busy;

	spin_lock_irq(&q->lock);
	busy = !list_empty(&q->pending) && !q->stopped;
	if (q->done_idx != q->progress) {
		q->progress = q->done_idx;
		q->progress_at = now;
	}
	due = q->progress_at + neuron_job_timeout();
	if (busy && !q->error && q->done_idx != q->published &&
	    time_after_eq(now, due)) {
		q->error = NEURON_DMA_ERR_HUNG;
		hung = true;
	}
	spin_unlock_irq(&q->lock);
	if (hung) {
		wake_up_all(&q->wait);
		schedule_work(&q->retire_work);
	} else if (busy) {
		/* (A doorbell may have armed it already: then that stays.) */
		schedule_delayed_work(&q->hang_work, time_after(due, now) ? due - now :
						     neuron_job_timeout());
	}
}

/* Give the queue's memory back to the backend (the engine is stopped). */
static void neuron_dma_queue_hw_free(struct neuron_dma_queue *q)
{
	struct neuron_device *nd = q->nd;

	if (q->pattern) {
		neuron_hw_dma_unmap(nd, 1, &q->pattern_iova);
		__free_page(q->pattern);
		q->pattern = NULL;
		q->pattern_byte = -1;
	}
	if (q->marker) {
		neuron_ring_free(nd, &q->mark_src);
		neuron_ring_free(nd, &q->marks);
	}
	neuron_ring_free(nd, &q->status);
	neuron_ring_free(nd, &q->rx);
	neuron_ring_free(nd, &q->tx);
}

/* Called inside the removal guard, with nc->lock held (then submit_lock). */
static struct neuron_dma_queue *neuron_dma_queue_create_locked(struct neuron_nc *nc)
{
	struct neuron_device *nd = nc->nd;
	struct neuron_dma_queue *q;
	int ret;

	lockdep_assert_held(&nc->lock);
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return ERR_PTR(-ENOMEM);
	q->nd = nd;
	q->nc = nc;
	neuron_hw_dma_copy_queue(nd, nc->index, &q->engine, &q->queue);
	q->pattern_byte = -1;
	q->marker = neuron_hw_dma_marker(nd);
	mutex_init(&q->submit_lock);
	spin_lock_init(&q->lock);
	neuron_timeline_init(&q->timeline, &q->lock);
	INIT_LIST_HEAD(&q->pending);
	init_waitqueue_head(&q->wait);
	INIT_WORK(&q->retire_work, neuron_dma_retire_work);
	INIT_DELAYED_WORK(&q->hang_work, neuron_dma_hang_work);
	INIT_WORK(&q->poll_work, neuron_dma_poll_work);
	hrtimer_setup(&q->poll_timer, neuron_dma_poll_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL);

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
	if (q->marker) {
		ret = neuron_ring_alloc(nd, &q->marks, NEURON_DMA_RING_ENTRIES,
					sizeof(__le32));
		if (ret)
			goto err_status;
		ret = neuron_ring_alloc(nd, &q->mark_src, 1, sizeof(__le32));
		if (ret)
			goto err_marks;
		*(__le32 *)q->mark_src.va = cpu_to_le32(NEURON_DMA_MARK);
	} else {
		ret = neuron_hw_irq_request(nd, NEURON_IRQ_DMA(nc->index),
					    neuron_dma_irq, q);
		if (ret)
			goto err_status;
	}
	mutex_lock(&q->submit_lock);
	ret = neuron_dma_queue_program_locked(q);
	mutex_unlock(&q->submit_lock);
	if (ret)
		goto err_irq;
	return q;

err_irq:
	if (!q->marker)
		neuron_hw_irq_free(nd, NEURON_IRQ_DMA(nc->index));
	else
		neuron_ring_free(nd, &q->mark_src);
err_marks:
	if (q->marker)
		neuron_ring_free(nd, &q->marks);
err_status:
	neuron_ring_free(nd, &q->status);
err_rx:
	neuron_ring_free(nd, &q->rx);
err_tx:
	neuron_ring_free(nd, &q->tx);
err_free:
	mutex_destroy(&q->submit_lock);
	kfree(q);
	return ERR_PTR(ret);
}

/**
 * neuron_dma_queue_get() - the kernel DMA queue of a NeuronCore
 * @nc: the NC.
 *
 * Creates the queue on first use. Takes the removal guard itself.
 * Return: the queue (valid as long as the device structure), or an
 * ERR_PTR: -ENODEV once removed, -EIO when the NC failed, -ENOMEM...
 * A failed creation leaves nothing behind: the next call tries again.
 */
struct neuron_dma_queue *neuron_dma_queue_get(struct neuron_nc *nc)
{
	struct neuron_dma_queue *q;
	int idx;

	if (!neuron_dev_enter(nc->nd, &idx))
		return ERR_PTR(-ENODEV);
	mutex_lock(&nc->lock);
	q = nc->dma;
	if (q && READ_ONCE(q->failed)) {
		q = ERR_PTR(-EIO);
	} else if (!q) {
		q = neuron_dma_queue_create_locked(nc);
		if (!IS_ERR(q))
			nc->dma = q;
	}
	mutex_unlock(&nc->lock);
	neuron_dev_exit(nc->nd, idx);
	return q;
}

/*
 * What the NC's state says of its DMA queue (neuron_nc_state_locked()): a
 * reset in progress, or a queue that could not restart (the NC is out of
 * service). @q may be NULL (no queue yet). Hints: read without a lock.
 */
bool neuron_dma_queue_resetting(struct neuron_dma_queue *q)
{
	return q && READ_ONCE(q->resetting);
}

bool neuron_dma_queue_failed(struct neuron_dma_queue *q)
{
	return q && READ_ONCE(q->failed);
}

/* ---- submission ---- */

/*
 * Packets that may still be written: NEURON_DMA_RING_GAP slots stay empty,
 * and one more is kept for the marker of a marker queue. Called with
 * submit_lock or q->lock held.
 */
static u32 neuron_dma_room(const struct neuron_dma_queue *q)
{
	u32 keep = NEURON_DMA_RING_GAP + (q->marker ? 1 : 0);
	u32 used = q->prod - q->done_idx;

	return used + keep >= NEURON_DMA_RING_ENTRIES ? 0 :
	       NEURON_DMA_RING_ENTRIES - keep - used;
}

/*
 * Can the submitter go on: room for one more packet and the pattern free
 * when @need_idle, or something that ends the wait (an error, the queue
 * stopped, the device gone)?
 */
static bool neuron_dma_can_go(struct neuron_dma_queue *q, bool need_idle)
{
	bool ok;

	spin_lock_irq(&q->lock);
	if (need_idle)
		ok = q->done_idx == q->prod;
	else
		ok = neuron_dma_room(q) > 0;
	ok = ok || q->error || q->stopped;
	spin_unlock_irq(&q->lock);
	return ok || neuron_dev_unplugged(q->nd);
}

static void neuron_dma_write_marker_locked(struct neuron_dma_queue *q);

/*
 * Hand the descriptors written so far to the engine. The descriptors are
 * ordinary (coherent) memory and the doorbell may be an MMIO write: wmb()
 * orders the first before the second on every arch (dma_wmb() does not
 * cover MMIO). Backends that ring a register must use writel() (not the
 * _relaxed form). Called inside the removal guard, submit_lock held.
 */
static void neuron_dma_kick_locked(struct neuron_dma_queue *q)
{
	bool idle;
	u32 added;

	lockdep_assert_held(&q->submit_lock);
	if (q->marker && q->prod != q->published)
		neuron_dma_write_marker_locked(q);
	added = q->prod - q->published;
	spin_lock_irq(&q->lock);
	/* An idle queue given work: the hang period starts now. */
	idle = q->done_idx == q->published;
	if (idle && added) {
		q->progress = q->done_idx;
		q->progress_at = jiffies;
	}
	q->published = q->prod;
	spin_unlock_irq(&q->lock);
	/* Descriptors (coherent memory) before the doorbell, MMIO included. */
	wmb();
	if (added)
		neuron_hw_dma_queue_kick(q->nd, q->engine, q->queue, q->prod, added);
	/* A busy queue's period goes on (if armed): a doorbell is no progress. */
	if (idle && added)
		mod_delayed_work(system_wq, &q->hang_work, neuron_job_timeout());
	else
		schedule_delayed_work(&q->hang_work, neuron_job_timeout());
	if (q->marker && added) {
		spin_lock_irq(&q->lock);
		q->poll_us = NEURON_DMA_POLL_MIN_US;
		spin_unlock_irq(&q->lock);
		neuron_dma_poll_arm(q, NEURON_DMA_POLL_MIN_US);
	}
}

/*
 * Sleep (killable, outside the removal guard) until neuron_dma_can_go().
 * Called with submit_lock held, inside the guard; returns 0 inside it, or
 * -EINTR (fatal signal) or -ENODEV (device gone) outside it.
 */
static int neuron_dma_wait_room_locked(struct neuron_dma_queue *q, int *idx,
				       bool need_idle)
{
	struct neuron_device *nd = q->nd;

	lockdep_assert_held(&q->submit_lock);
	neuron_dma_kick_locked(q);
	neuron_dev_exit(nd, *idx);
	if (wait_event_killable(q->wait, neuron_dma_can_go(q, need_idle)))
		return -EINTR;
	if (!neuron_dev_enter(nd, idx))
		return -ENODEV;
	return 0;
}

/*
 * Write one packet of @req at q->prod (@last: its last); the caller made
 * sure there is room.
 */
static void neuron_dma_write_packet(struct neuron_dma_queue *q,
				    const struct neuron_dma_req *req, u64 src,
				    u64 dst, u32 len, bool irq, bool last)
{
	q->last = (struct ndhal_dma_packet){
		.src = src,
		.dst = dst,
		.len = len,
		.lap = neuron_ring_gen(NEURON_DMA_RING_ENTRIES, q->prod),
		.irq = irq && !q->marker,
		.key = req->key & NEURON_DESC_KEY,
		.tag = req->key ? req->tag : 0,
		.end = req->key && last && req->report,
	};
	neuron_hw_dma_desc(q->nd, neuron_ring_entry(&q->tx, q->prod),
			   neuron_ring_entry(&q->rx, q->prod), &q->last);
	q->prod++;
}

/*
 * Before the doorbell of a marker queue: the last data packet gets the
 * write barrier (it is not the engine's yet), and a marker packet follows
 * it, copying NEURON_DMA_MARK into the slot of the marker's index. The
 * room for it was kept (neuron_dma_room()).
 */
static void neuron_dma_write_marker_locked(struct neuron_dma_queue *q)
{
	u32 at = q->prod - 1;
	struct ndhal_dma_packet p = q->last;

	lockdep_assert_held(&q->submit_lock);
	p.barrier = true;
	neuron_hw_dma_desc(q->nd, neuron_ring_entry(&q->tx, at),
			   neuron_ring_entry(&q->rx, at), &p);
	p = (struct ndhal_dma_packet){
		.src = q->mark_src.iova,
		.dst = q->marks.iova + (u64)neuron_ring_slot(NEURON_DMA_RING_ENTRIES, q->prod) *
				       sizeof(__le32),
		.len = sizeof(__le32),
		.lap = neuron_ring_gen(NEURON_DMA_RING_ENTRIES, q->prod),
	};
	neuron_hw_dma_desc(q->nd, neuron_ring_entry(&q->tx, q->prod),
			   neuron_ring_entry(&q->rx, q->prod), &p);
	q->prod++;
}

/*
 * The device address of byte @off of @s; shortens *@len so that a packet
 * stays inside one run of host pages the device sees as contiguous.
 */
static u64 neuron_dma_side_at(const struct neuron_dma_side *s, u64 off, u32 *len)
{
	u64 at = s->addr + off;
	unsigned long i = at >> PAGE_SHIFT, j;
	u32 run;

	if (!s->pages)
		return at;
	if (WARN_ON_ONCE(i >= s->npages)) {
		*len = 0;
		return 0;
	}
	run = PAGE_SIZE - offset_in_page(at);
	for (j = i; run < *len && j + 1 < s->npages &&
	     s->pages[j + 1] == s->pages[j] + PAGE_SIZE; j++)
		run += PAGE_SIZE;
	*len = min(*len, run);
	return s->pages[i] + offset_in_page(at);
}

/*
 * The memset source: one page of @value per queue, mapped once. It is
 * refilled only when no queued packet reads it (the queue is idle).
 * Called inside the guard with submit_lock held; on error the guard is
 * left when the return is -ENODEV or a signal (as neuron_dma_wait_room_locked()).
 */
static int neuron_dma_pattern_locked(struct neuron_dma_queue *q, u8 value, int *idx)
{
	struct neuron_device *nd = q->nd;
	int ret;

	lockdep_assert_held(&q->submit_lock);
	if (q->pattern_byte == value)
		return 0;
	if (!q->pattern) {
		q->pattern = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!q->pattern)
			return -ENOMEM;
		ret = neuron_hw_dma_map(nd, &q->pattern, 1, &q->pattern_iova);
		if (ret) {
			__free_page(q->pattern);
			q->pattern = NULL;
			return ret;
		}
		q->pattern_byte = 0;
		if (!value)
			return 0;
	}
	if (!neuron_dma_can_go(q, true) || q->prod != q->done_idx) {
		ret = neuron_dma_wait_room_locked(q, idx, true);
		if (ret)
			return ret;
		if (q->error || q->stopped)
			return -EIO;
	}
	memset_page(q->pattern, 0, value, PAGE_SIZE);
	q->pattern_byte = value;
	return 0;
}

/*
 * Queue @req (its packets end at q->prod, @bytes moved); see
 * neuron_dma_submit(). Called with submit_lock held.
 */
static void neuron_dma_queue_req_locked(struct neuron_dma_queue *q,
					struct neuron_dma_req *req, u64 bytes)
{
	bool stopped;

	lockdep_assert_held(&q->submit_lock);
	req->end = q->prod;
	spin_lock_irq(&q->lock);
	stopped = q->stopped;
	/* The seqno in the queue's order, and the queue's reference. */
	neuron_job_queued_locked(&req->job, &q->timeline);
	if (!stopped) {
		list_add_tail(&req->job.node, &q->pending);
		/* Under the lock: before the request can end. */
		trace_neuron_dma_submit(q->nd->minor, q->nc->index,
					req->job.fence.seqno, bytes);
	}
	spin_unlock_irq(&q->lock);
	atomic64_inc(&q->nc->jobs);
	/* The engine is stopped for good: nothing reads the packets. */
	if (stopped)
		neuron_dma_req_end(q, req, -ENODEV);
}

/**
 * neuron_dma_submit() - queue a transfer
 * @q: the queue.
 * @req: the request; the queue takes a reference until it ends.
 * @seg: what to move; with @seg->src_fixed the source is the queue's
 *	memset pattern of byte @seg->value.
 *
 * Call outside the removal guard: this enters it, and leaves it while it
 * sleeps for ring space. Splits @seg in packets of at most 64 KiB (one
 * page for a memset). Once a packet is written, @req is queued whatever
 * happens next, and fails with the error returned: its resources are never
 * dropped while the engine may still use them.
 *
 * Return: 0; or -ENODEV, -EIO, -EINTR (fatal signal), -ENOMEM. On an
 * error the request may have been queued (then it ends with that error).
 */
int neuron_dma_submit(struct neuron_dma_queue *q, struct neuron_dma_req *req,
		      const struct neuron_dma_seg *seg)
{
	struct neuron_device *nd = q->nd;
	u32 max = seg->src_fixed ? PAGE_SIZE : NEURON_DESC_MAX_LEN;
	u32 first;
	u64 src = 0, dst, off = 0;
	bool in = true;
	int idx, ret;

	ret = mutex_lock_killable(&q->submit_lock);
	if (ret)
		return ret;
	first = q->prod;
	if (!neuron_dev_enter(nd, &idx)) {
		ret = -ENODEV;
		in = false;
		goto out;
	}
	if (q->stopped) {
		ret = -EIO;
		goto out;
	}
	if (seg->src_fixed) {
		ret = neuron_dma_pattern_locked(q, seg->value, &idx);
		if (ret == -ENODEV || ret == -EINTR)
			in = false;
		if (ret)
			goto out;
		src = q->pattern_iova;
	}
	while (off < seg->len) {
		u32 len = min_t(u64, seg->len - off, max);
		bool last, irq;

		if (!seg->src_fixed)
			src = neuron_dma_side_at(&seg->src, off, &len);
		dst = neuron_dma_side_at(&seg->dst, off, &len);
		if (!len) {
			ret = -EINVAL;
			break;
		}
		last = off + len == seg->len;
		/* A marker queue hears of its work only at the markers. */
		if (q->marker && q->prod - q->published >= NEURON_DMA_MARK_BATCH)
			neuron_dma_kick_locked(q);
		if (!neuron_dma_can_go(q, false) || !neuron_dma_room(q)) {
			ret = neuron_dma_wait_room_locked(q, &idx, false);
			if (ret) {
				in = false;
				break;
			}
		}
		if (q->error || q->stopped) {
			ret = -EIO;
			break;
		}
		irq = last || !((q->prod + 1) % NEURON_DMA_INT_EVERY);
		neuron_dma_write_packet(q, req, src, dst, len, irq, last);
		off += len;
	}
out:
	if (q->prod != first) {
		req->error = ret;
		neuron_dma_queue_req_locked(q, req, off);
		if (in)
			neuron_dma_kick_locked(q);
	}
	if (in)
		neuron_dev_exit(nd, idx);
	mutex_unlock(&q->submit_lock);
	return ret;
}

/* ---- removal ---- */

/*
 * The device is unplugged (no guard section runs any more): stop every
 * engine, fail what is pending (its resources are dropped now), free the
 * interrupts, give the rings back. The queue structures stay until the
 * device's release, so that a submitter that slept outside the guard finds
 * them on waking.
 */
void neuron_dma_unplug(struct neuron_device *nd)
{
	struct neuron_dma_queue *q;
	u32 i;

	for (i = 0; i < nd->hal->arch->nc_count; i++) {
		q = nd->nc[i].dma;
		if (!q)
			continue;
		spin_lock_irq(&q->lock);
		q->stopped = true;
		spin_unlock_irq(&q->lock);
		wake_up_all(&q->wait);
		/*
		 * No kick or reset runs (they are guard sections). From here
		 * on no completion is taken: the interrupt goes first, then
		 * everything that could retire or reset, without submit_lock
		 * (a reset waiting for it would deadlock the cancel); then the
		 * engine stops and every job not retired fails with -ENODEV.
		 */
		if (q->marker)
			neuron_dma_poll_stop(q);
		else
			neuron_hw_irq_free(nd, NEURON_IRQ_DMA(i));
		cancel_delayed_work_sync(&q->hang_work);
		cancel_work_sync(&q->retire_work);
		neuron_hw_dma_queue_stop(nd, q->engine, q->queue);
		mutex_lock(&q->submit_lock);
		neuron_dma_fail_pending_locked(q, -ENODEV);
		neuron_dma_queue_hw_free(q);
		mutex_unlock(&q->submit_lock);
	}
}

/*
 * The device's release: nobody uses the queues any more, and removal gave
 * their memory back (a device is always removed before its release).
 */
void neuron_dma_release(struct neuron_device *nd)
{
	struct neuron_dma_queue *q;
	u32 i;

	for (i = 0; i < NEURON_MAX_NC; i++) {
		q = nd->nc[i].dma;
		if (!q)
			continue;
		mutex_destroy(&q->submit_lock);
		kfree(q);
		nd->nc[i].dma = NULL;
	}
}
