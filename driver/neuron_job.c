// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: the job layer (see neuron_job.h): a job's fence and its
 * timeline, its end, the wait for it, and the sequence numbers of
 * asynchronous calls with WAIT, which collects them.
 *
 * A sequence number is reserved first and the job published under it only
 * once it is fully built and queued: a WAIT on a number it cannot see yet
 * gets -ENOENT. At most max_async numbers are live per file (-EAGAIN).
 */
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "neuron_common.h"
#include "neuron_nc.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_ioctl.h"
#include "neuron_job.h"

/* ---- fences ---- */

static const char *neuron_fence_driver_name(struct dma_fence *f)
{
	return "neuron";
}

static const char *neuron_fence_timeline_name(struct dma_fence *f)
{
	return container_of(f, struct neuron_job, fence)->ops->timeline;
}

/* Give back what the job holds for the device, once. Process context. */
static void neuron_job_retire(struct neuron_job *job)
{
	if (job->retired)
		return;
	job->retired = true;
	if (job->ops->retire)
		job->ops->retire(job);
}

/* The fence's last reference: the job's end of life. */
static void neuron_fence_release(struct dma_fence *f)
{
	struct neuron_job *job = container_of(f, struct neuron_job, fence);
	struct neuron_device *nd = job->nd;

	neuron_job_retire(job);
	if (job->nf)
		neuron_file_put(job->nf);
	/* Frees the object after an RCU grace period (dma_fence_free()). */
	job->ops->free(job);
	put_device(&nd->dev);
}

static const struct dma_fence_ops neuron_fence_ops = {
	.get_driver_name = neuron_fence_driver_name,
	.get_timeline_name = neuron_fence_timeline_name,
	.release = neuron_fence_release,
};

/**
 * neuron_timeline_init() - a queue's timeline
 * @tl: the timeline.
 * @lock: the queue's lock, which its fences take.
 */
void neuron_timeline_init(struct neuron_timeline *tl, spinlock_t *lock)
{
	tl->lock = lock;
	tl->context = dma_fence_context_alloc(1);
	tl->seqno = 0;
}

/**
 * neuron_job_init() - a new job of the caller (one reference)
 * @job: the job, embedded in its kind's object (zeroed).
 * @ops: its kind's ops.
 * @tl: the timeline of the queue that will run it.
 * @nc: the NC it runs on.
 * @nf: the submitting file (the job takes a reference), or NULL.
 *
 * The job holds a reference on @nc's device. Its seqno is given when it
 * is queued (neuron_job_queued_locked()): until then nobody else sees it.
 */
void neuron_job_init(struct neuron_job *job, const struct neuron_job_ops *ops,
		     struct neuron_timeline *tl, struct neuron_nc *nc,
		     struct neuron_file *nf)
{
	dma_fence_init(&job->fence, &neuron_fence_ops, tl->lock, tl->context, 0);
	INIT_LIST_HEAD(&job->node);
	job->ops = ops;
	job->nc = nc;
	job->nd = nc->nd;
	get_device(&job->nd->dev);
	job->nf = nf ? neuron_file_get(nf) : NULL;
}

/**
 * neuron_job_queued_locked() - @job is queued on the queue of @tl
 * @job: the job.
 * @tl: its queue's timeline; its lock held.
 *
 * Gives the job its seqno (fences of one context signal in order: the
 * queue's order) and the queue its reference, dropped by neuron_job_end().
 */
void neuron_job_queued_locked(struct neuron_job *job, struct neuron_timeline *tl)
{
	lockdep_assert_held(tl->lock);
	job->fence.seqno = ++tl->seqno;
	neuron_job_get(job);
}

/**
 * neuron_job_end() - @job ended with @err (0: done)
 * @job: the job, off its queue's list, the queue's lock not held.
 * @err: its status.
 *
 * Gives back what it held (before anyone learns that it ended), sets the
 * error, signals the fence, drops the queue's reference. Process context.
 */
void neuron_job_end(struct neuron_job *job, int err)
{
	neuron_job_retire(job);
	if (err)
		dma_fence_set_error(&job->fence, err);
	dma_fence_signal(&job->fence);
	neuron_job_put(job);
}

void neuron_job_put(struct neuron_job *job)
{
	dma_fence_put(&job->fence);
}

/* ---- waiting ---- */

struct neuron_job_waiter {
	struct dma_fence_cb cb;
	struct task_struct *task;
};

static void neuron_job_wake(struct dma_fence *f, struct dma_fence_cb *cb)
{
	wake_up_process(container_of(cb, struct neuron_job_waiter, cb)->task);
}

/**
 * neuron_job_wait() - wait for a job, holding no guard and no lock
 * @job: the job; the caller holds a reference.
 * @deadline: absolute CLOCK_MONOTONIC time, KTIME_MAX for none.
 * @intr: interruptible (-ERESTARTSYS on a signal) or only killable
 *	(-EINTR on a fatal signal; the job goes on).
 *
 * A kind with its own wait (@job->ops->wait) waits its way. Removal of the
 * device ends every job still pending, so this returns then too.
 * Return: the job's status, -ETIME, -ERESTARTSYS or -EINTR.
 */
int neuron_job_wait(struct neuron_job *job, ktime_t deadline, bool intr)
{
	struct neuron_job_waiter w = { .task = current };
	int ret = 0;

	if (job->ops->wait)
		return job->ops->wait(job, deadline, intr);
	if (dma_fence_add_callback(&job->fence, &w.cb, neuron_job_wake))
		return neuron_job_status(job);
	for (;;) {
		set_current_state(intr ? TASK_INTERRUPTIBLE : TASK_KILLABLE);
		if (neuron_job_done(job))
			break;
		ret = neuron_wait_step(deadline, intr);
		if (ret)
			break;
	}
	__set_current_state(TASK_RUNNING);
	dma_fence_remove_callback(&job->fence, &w.cb);
	return ret ? ret : neuron_job_status(job);
}

/* ---- sequence numbers of asynchronous calls ---- */

/* Reserve a sequence number in @nf for a job not built yet. */
int neuron_job_seq_reserve(struct neuron_file *nf, u64 *seqno)
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

void neuron_job_seq_unreserve(struct neuron_file *nf, u64 seqno)
{
	xa_release(&nf->reqs, seqno);
	atomic_dec(&nf->nreqs);
}

/* Publish the queued @job under its reserved @seqno (the file's reference). */
void neuron_job_seq_publish(struct neuron_file *nf, u64 seqno,
			    struct neuron_job *job)
{
	/* The slot exists: storing into it allocates nothing, cannot fail. */
	WARN_ON(xa_err(xa_store(&nf->reqs, seqno, neuron_job_get(job), GFP_KERNEL)));
}

/* Drop @seqno from @nf if it still names @job. */
static bool neuron_job_seq_remove(struct neuron_file *nf, u64 seqno,
				  struct neuron_job *job)
{
	if (xa_cmpxchg(&nf->reqs, seqno, job, NULL, 0) != job)
		return false;
	atomic_dec(&nf->nreqs);
	neuron_job_put(job);
	return true;
}

/*
 * WAIT: sleeps on the job (neuron_job_wait()) with a reference of its
 * own, outside the removal guard; removal ends the job (-ENODEV) and so
 * the wait.
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
		ret = neuron_job_seq_remove(nf, w->seqno, job) ? neuron_job_status(job) :
								 -ENOENT;
	neuron_job_put(job);
	return ret;
}

/* The file is gone: forget its sequence numbers; the jobs end alone. */
void neuron_file_jobs_release(struct neuron_file *nf)
{
	struct neuron_job *job;
	unsigned long seqno;

	/* Nobody else uses the file now: drop the entries, then the tree. */
	xa_for_each(&nf->reqs, seqno, job)
		neuron_job_put(job);
	xa_destroy(&nf->reqs);
}
