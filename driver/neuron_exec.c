// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: EXECUTE. Each NeuronCore has a queue of executions (struct
 * neuron_exec_queue, made on first use) and runs one at a time: an
 * execution is a job (neuron_job.h) whose fence is signalled when it
 * ends, with the error that tells how (docs/uapi.md). At most
 * exec_queue_depth executions are queued or running per NC (-EAGAIN).
 *
 * The driver hands the core the model's regions and blocks
 * (ndhal_ops.exec_start); the core writes a struct neuron_exec_hw_status
 * into host memory and raises NEURON_IRQ_EXEC. That status is untrusted:
 * only the number of the running execution counts, and anything but OK or
 * BAD_INPUT is a device error. An execution still running when its
 * timeout passes makes the driver reset the NC (ndhal_ops.exec_reset): it
 * fails with -ETIMEDOUT, the ones queued behind it with -ECANCELED, and
 * the NC takes new work at once. Executions of a file that releases the
 * NC or closes are cancelled the same way, so its cores are free at once.
 *
 * Locking: run_lock (a mutex) serialises what changes the running
 * execution: start, completion (done_work), timeout (timeout_work), the
 * cancelling of a file's work and removal; lock (a spinlock, the fences'
 * lock) guards the pending list and the depth. run_lock comes before lock.
 * nc->lock is taken only to make the queue (neuron_exec_queue_get()),
 * never under run_lock: the NC's state is derived from the queue's flags
 * (neuron_nc_state_locked(), docs/locking.md).
 */
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "neuron_common.h"
#include "neuron_nc.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_mem.h"
#include "neuron_ioctl.h"
#include "neuron_job.h"
#include "neuron_exec.h"
#include "neuron_hw.h"
#include "neuron_trace.h"
#include "ndhal/ndhal.h"

#define NEURON_EXEC_MAX_TIMEOUT_MS	600000U

/* The parameters refuse a write out of their range with -EINVAL. */
static int neuron_exec_timeout_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 10, NEURON_EXEC_MAX_TIMEOUT_MS);
}

static const struct kernel_param_ops neuron_exec_timeout_ops = {
	.set = neuron_exec_timeout_set,
	.get = param_get_uint,
};

unsigned int neuron_exec_timeout_ms = 5000;
module_param_cb(exec_timeout_ms, &neuron_exec_timeout_ops, &neuron_exec_timeout_ms, 0644);
MODULE_PARM_DESC(exec_timeout_ms,
		 "an execution that runs longer is stopped and its NC reset (ms, 10..600000), unless EXECUTE gives its own");

static int neuron_exec_depth_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 1024);
}

static const struct kernel_param_ops neuron_exec_depth_ops = {
	.set = neuron_exec_depth_set,
	.get = param_get_uint,
};

unsigned int neuron_exec_queue_depth = 16;
module_param_cb(exec_queue_depth, &neuron_exec_depth_ops, &neuron_exec_queue_depth, 0644);
MODULE_PARM_DESC(exec_queue_depth,
		 "executions queued or running per NeuronCore (1..1024)");

static unsigned int neuron_exec_spin_us = 20;
module_param_named(exec_spin_us, neuron_exec_spin_us, uint, 0644);
MODULE_PARM_DESC(exec_spin_us,
		 "a waiter polls for the end of an execution this long before it sleeps (us, 0..1000)");
/* The NEURON_EXEC_* status of an execution that ended with @err. */
static u32 neuron_exec_status(int err)
{
	switch (err) {
	case 0:
		return NEURON_EXEC_OK;
	case -EDOM:
		return NEURON_EXEC_BAD_INPUT;
	case -ETIMEDOUT:
		return NEURON_EXEC_TIMEOUT;
	case -ECANCELED:
		return NEURON_EXEC_CANCELLED;
	}
	return NEURON_EXEC_DEVICE_ERROR;
}

/* Give back the model and the bound objects (neuron_job_ops.retire). */
static void neuron_exec_job_retire(struct neuron_job *job)
{
	struct neuron_exec_job *ej = neuron_job_to_exec(job);
	u32 i;

	for (i = 0; i < ej->nbound; i++)
		neuron_mem_put(ej->bound[i]);
	ej->nbound = 0;
	if (ej->model)
		neuron_model_put(ej->model);
	ej->model = NULL;
}

static void neuron_exec_job_free(struct neuron_job *job)
{
	struct neuron_exec_job *ej = neuron_job_to_exec(job);

	kfree_rcu(ej, job.fence.rcu);
}

static int neuron_exec_job_wait(struct neuron_job *job, ktime_t deadline, bool intr);

static const struct neuron_job_ops neuron_exec_job_ops = {
	.timeline = "exec",
	.retire = neuron_exec_job_retire,
	.free = neuron_exec_job_free,
	.wait = neuron_exec_job_wait,
};

/* @job ended with @err: end it (the job layer), drop the queue's reference. */
static void neuron_exec_finish(struct neuron_exec_queue *eq,
			       struct neuron_job *job, int err)
{
	struct neuron_exec_job *ej = neuron_job_to_exec(job);
	u64 started = ej->started, now = ktime_get_ns();

	/* Room in the queue before anyone learns that the job ended. */
	spin_lock_irq(&eq->lock);
	eq->depth--;
	spin_unlock_irq(&eq->lock);
	atomic64_inc(&eq->nc->executions);
	if (err)
		atomic64_inc(&eq->nc->exec_errors);
	neuron_nc_count_exec(eq->nc, neuron_exec_status(err),
			     started ? now - started : 0, now - ej->submitted);
	trace_neuron_exec_complete(eq->nc->nd->minor, eq->nc->index,
				   job->fence.seqno, neuron_exec_status(err),
				   started);
	neuron_job_end(job, err);
	neuron_nc_wake(eq->nc);
}

/* Hand @job to the core. run_lock held. */
static int neuron_exec_start_locked(struct neuron_exec_queue *eq, struct neuron_job *job)
{
	struct neuron_exec_job *ej = neuron_job_to_exec(job);
	struct neuron_model *model = ej->model;
	struct neuron_device *nd = eq->nc->nd;
	struct ndhal_exec *e = &eq->hw;
	u64 base = model->mem->dev_addr;
	int idx, ret;
	u32 i;

	lockdep_assert_held(&eq->run_lock);
	memset(e, 0, sizeof(*e));
	e->nc = eq->nc->index;
	e->seq = ++eq->seq;
	e->nregions = 2 + model->nslots;
	e->regions[NEURON_REGION_DATA].addr = base + model->data_off;
	e->regions[NEURON_REGION_DATA].size = model->data_size;
	e->regions[NEURON_REGION_SCRATCH].addr = base + model->scratch_off;
	e->regions[NEURON_REGION_SCRATCH].size = model->scratch_size;
	e->regions[NEURON_REGION_SCRATCH].writable = true;
	for (i = 0; i < model->nslots; i++) {
		struct ndhal_exec_region *r = &e->regions[NEURON_REGION_SLOT(i)];

		r->addr = ej->bound[i]->dev_addr;
		r->size = model->slots[i].size;
		r->writable = model->slots[i].kind == NEURON_SLOT_OUTPUT;
	}
	for (i = 0; i < NEURON_ENGINES; i++) {
		if (!model->block_count[i])
			continue;
		e->block_addr[i] = base + model->block_off[i];
		e->block_count[i] = model->block_count[i];
	}
	e->status_iova = eq->status_iova;
	WRITE_ONCE(eq->status->seq, 0);

	if (!neuron_dev_enter(nd, &idx))
		return -ENODEV;
	ret = neuron_hw_exec_start(nd, e);
	neuron_dev_exit(nd, idx);
	if (ret)
		return ret;
	eq->started = ktime_get_ns();
	ej->started = eq->started;
	/* One jiffy more: the current one is partly gone, never time out early. */
	eq->deadline = jiffies + msecs_to_jiffies(ej->timeout_ms) + 1;
	/*
	 * The timer is armed for the earliest deadline only: a pending one
	 * due before this deadline re-arms itself for the rest (and an
	 * idle queue lets it lapse), so back-to-back executions cost no
	 * timer operation each.
	 */
	if (!delayed_work_pending(&eq->timeout_work) ||
	    time_before(eq->deadline, eq->timer_at)) {
		eq->timer_at = eq->deadline;
		mod_delayed_work(system_wq, &eq->timeout_work, eq->deadline - jiffies);
	}
	/* Its waiters may compute it now (neuron_exec_wait()). */
	neuron_nc_wake(eq->nc);
	return 0;
}

/*
 * The running execution ends: its time goes to the NC's busy time. The
 * clock is the monotonic one: local_clock() is per CPU, and the start and
 * the end are often taken on different CPUs.
 */
static void neuron_exec_busy_add_locked(struct neuron_exec_queue *eq)
{
	lockdep_assert_held(&eq->run_lock);
	atomic64_add(ktime_get_ns() - eq->started, &eq->nc->busy_ns);
}

/**
 * neuron_exec_queue_busy() - is the NC's core busy (NEURON_NC_RUNNING)?
 * @eq: the NC's execution queue, or NULL (no queue yet).
 *
 * While an execution is queued or running: the depth drops before a job's
 * waiters are woken, so they see the NC idle once their last job ended.
 * Also whether a reset of the core is in progress (NEURON_NC_RESETTING).
 * Hints for the NC's state (neuron_nc_state_locked()): read without a lock.
 */
bool neuron_exec_queue_busy(struct neuron_exec_queue *eq)
{
	return eq && READ_ONCE(eq->depth);
}

bool neuron_exec_queue_resetting(struct neuron_exec_queue *eq)
{
	return eq && READ_ONCE(eq->resetting);
}

/*
 * Start queued executions while the core is idle. run_lock held. A job
 * whose file no longer holds the NC is not started: the file released it
 * and its cancel (under run_lock, after the owner was cleared) is on its
 * way; the job fails with -ECANCELED as the cancel would fail it.
 */
static void neuron_exec_start_next_locked(struct neuron_exec_queue *eq)
{
	struct neuron_job *job;
	int ret;

	lockdep_assert_held(&eq->run_lock);
	while (!eq->running) {
		spin_lock_irq(&eq->lock);
		job = list_first_entry_or_null(&eq->pending, struct neuron_job, node);
		if (job)
			list_del_init(&job->node);
		spin_unlock_irq(&eq->lock);
		if (job && READ_ONCE(eq->nc->owner) != job->nf) {
			neuron_exec_finish(eq, job, -ECANCELED);
			continue;
		}
		if (!job)
			return;
		eq->running = job;
		ret = neuron_exec_start_locked(eq, job);
		if (ret) {
			eq->running = NULL;
			neuron_exec_finish(eq, job, ret == -ENODEV ? -ENODEV : -EIO);
		}
	}
}

/*
 * Has the core reported the end of the running execution? Then complete
 * it. run_lock held. Return: true if it had ended.
 */
static bool neuron_exec_collect_locked(struct neuron_exec_queue *eq)
{
	struct neuron_job *job = eq->running;
	u32 status;

	lockdep_assert_held(&eq->run_lock);
	if (!job || le32_to_cpu(READ_ONCE(eq->status->seq)) != eq->seq)
		return false;
	/* The status is written before the number that publishes it. */
	dma_rmb();
	status = le32_to_cpu(READ_ONCE(eq->status->status));
	neuron_exec_busy_add_locked(eq);
	eq->running = NULL;
	neuron_exec_finish(eq, job, status == NEURON_EXEC_OK ? 0 :
			   status == NEURON_EXEC_BAD_INPUT ? -EDOM : -EIO);
	return true;
}

/*
 * Has the running execution ended? Then collect it and start the next.
 * Called inside the removal guard (the status memory lives until
 * removal); looks without run_lock first. Return: true if one ended.
 */
static bool neuron_exec_poll(struct neuron_exec_queue *eq)
{
	bool done;

	if (le32_to_cpu(READ_ONCE(eq->status->seq)) != READ_ONCE(eq->seq))
		return false;
	mutex_lock(&eq->run_lock);
	done = neuron_exec_collect_locked(eq);
	if (done)
		neuron_exec_start_next_locked(eq);
	mutex_unlock(&eq->run_lock);
	return done;
}

/*
 * Lend the caller to NC @nc's core once: collect an execution that ended,
 * or compute the running one for a slice where the core computes on the
 * host (ndhal_ops.exec_drive). Return: true if something moved (look
 * again at once), false if nothing can be done now (sleep until woken).
 */
static bool neuron_exec_drive(struct neuron_nc *nc)
{
	/* Pairs with the release of neuron_exec_queue_get(). */
	struct neuron_exec_queue *eq = smp_load_acquire(&nc->exec);
	struct neuron_device *nd = nc->nd;
	bool moved = true;
	int idx, ret;

	if (!eq || !neuron_dev_enter(nd, &idx))
		return false;
	if (!neuron_exec_poll(eq)) {
		ret = neuron_hw_exec_drive(nd, nc->index);
		if (!ret)
			neuron_exec_poll(eq);
		moved = !ret || ret == -EINPROGRESS;
	}
	neuron_dev_exit(nd, idx);
	return moved;
}

/**
 * neuron_exec_wait() - wait for a condition of NC @nc, lending it the caller
 * @nc: the NC.
 * @check: the condition: > 0 met, 0 not yet, < 0 an error to return. Called
 *	in the caller's context, not in a wait state (it may sleep on a lock).
 * @arg: its argument.
 * @deadline: absolute CLOCK_MONOTONIC, KTIME_MAX for none.
 * @intr: interruptible (-ERESTARTSYS on a signal: deadlines are absolute,
 *	a restarted call waits no longer) or only killable (-EINTR).
 *
 * The one wait for an execution's end, a semaphore or a notification of an
 * NC. Where the cores compute on the host (the simulator) the waiter
 * computes the NC's running execution meanwhile, on its own CPU time, so
 * nice, the cpu cgroup and RLIMIT_CPU of the process that wants the result
 * see it; elsewhere it polls the execution's status for exec_spin_us (the
 * latency of a short execution is then not that of a wake-up) and sleeps
 * on the NC's event_wait. Whatever changes a condition calls
 * neuron_nc_wake(); @event_gen is read before @check, so a change between
 * the two is never slept through. On a backend whose device changes
 * semaphores unannounced (ndhal_ops.sem_poll_us) each sleep ends after
 * that long at most.
 *
 * Return: 0 (met), the error of @check, -ETIME, -ERESTARTSYS or -EINTR.
 */
int neuron_exec_wait(struct neuron_nc *nc, int (*check)(void *arg), void *arg,
		     ktime_t deadline, bool intr)
{
	u32 poll_us = neuron_hw_sem_poll_us(nc->nd);
	ktime_t spin_end = 0, until;
	bool drove = false;
	DEFINE_WAIT(wait);
	int gen, ret;

	for (;;) {
		gen = atomic_read(&nc->event_gen);
		ret = check(arg);
		if (ret) {
			ret = ret < 0 ? ret : 0;
			break;
		}
		if (intr ? signal_pending(current) : fatal_signal_pending(current)) {
			ret = intr ? -ERESTARTSYS : -EINTR;
			break;
		}
		/* No clock read for a wait without a deadline. */
		if (deadline != KTIME_MAX && ktime_compare(ktime_get(), deadline) >= 0) {
			ret = -ETIME;
			break;
		}
		if (neuron_exec_drive(nc)) {
			drove = true;
			cond_resched();
			continue;
		}
		if (!neuron_hw_exec_drives(nc->nd)) {
			if (!spin_end)
				spin_end = ktime_add_us(ktime_get(),
							min(READ_ONCE(neuron_exec_spin_us), 1000U));
			if (ktime_before(ktime_get(), spin_end)) {
				cpu_relax();
				continue;
			}
		}
		prepare_to_wait(&nc->event_wait, &wait,
				intr ? TASK_INTERRUPTIBLE : TASK_KILLABLE);
		if (atomic_read(&nc->event_gen) == gen) {
			/* A device whose changes nobody reports: look again soon. */
			until = poll_us ? min(deadline, ktime_add_us(ktime_get(), poll_us)) :
					  deadline;
			ret = neuron_wait_step(until, intr);
			if (ret == -ETIME && until != deadline)
				ret = 0;
		}
		finish_wait(&nc->event_wait, &wait);
		if (ret)
			break;
	}
	/* Another waiter may compute the core now. */
	if (drove)
		neuron_nc_wake(nc);
	return ret;
}

static int neuron_exec_job_check(void *arg)
{
	return neuron_job_done(arg);
}

/* The wait of an execution's job (neuron_job_wait() of its waiters). */
static int neuron_exec_job_wait(struct neuron_job *job, ktime_t deadline, bool intr)
{
	int ret = neuron_exec_wait(job->nc, neuron_exec_job_check, job, deadline, intr);

	return ret ? ret : neuron_job_status(job);
}

static void neuron_exec_done_work(struct work_struct *work)
{
	struct neuron_exec_queue *eq = container_of(work, struct neuron_exec_queue,
						    done_work);

	mutex_lock(&eq->run_lock);
	if (neuron_exec_collect_locked(eq))
		neuron_exec_start_next_locked(eq);
	mutex_unlock(&eq->run_lock);
}

static irqreturn_t neuron_exec_irq(int irq, void *data)
{
	struct neuron_exec_queue *eq = data;

	queue_work(system_wq, &eq->done_work);
	return IRQ_HANDLED;
}

/* Which queued executions neuron_exec_stop_locked() cancels. */
enum neuron_exec_which {
	NEURON_EXEC_ALL,	/* every one */
	NEURON_EXEC_OF,		/* those of the owner given */
	NEURON_EXEC_NOT_OF,	/* those of any other file */
};

static bool neuron_exec_matches(const struct neuron_job *job,
				enum neuron_exec_which which,
				const struct neuron_file *owner)
{
	if (which == NEURON_EXEC_ALL)
		return true;
	return (job->nf == owner) == (which == NEURON_EXEC_OF);
}

/*
 * Stop @job, the running execution, if not NULL (the core is reset; @code:
 * the ERROR notification it posts, 0 for none): it fails with @err. The
 * queued executions @which selects (with @owner) fail with -ECANCELED.
 * run_lock held.
 */
static void neuron_exec_stop_locked(struct neuron_exec_queue *eq, struct neuron_job *job,
				    int err, enum neuron_exec_which which,
				    const struct neuron_file *owner, u32 code)
{
	struct neuron_device *nd = eq->nc->nd;
	struct neuron_job *j, *tmp;
	LIST_HEAD(cancel);
	int idx;

	lockdep_assert_held(&eq->run_lock);
	if (job) {
		if (neuron_dev_enter(nd, &idx)) {
			neuron_hw_exec_reset(nd, eq->nc->index, code);
			neuron_dev_exit(nd, idx);
		}
		neuron_exec_busy_add_locked(eq);
		eq->running = NULL;
		cancel_delayed_work(&eq->timeout_work);
	}
	spin_lock_irq(&eq->lock);
	list_for_each_entry_safe(j, tmp, &eq->pending, node)
		if (neuron_exec_matches(j, which, owner))
			list_move_tail(&j->node, &cancel);
	spin_unlock_irq(&eq->lock);
	if (job)
		neuron_exec_finish(eq, job, err);
	list_for_each_entry_safe(j, tmp, &cancel, node) {
		list_del_init(&j->node);
		neuron_exec_finish(eq, j, -ECANCELED);
	}
}

static void neuron_exec_timeout_work(struct work_struct *work)
{
	struct neuron_exec_queue *eq = container_of(to_delayed_work(work),
						    struct neuron_exec_queue,
						    timeout_work);
	struct neuron_nc *nc = eq->nc;

	mutex_lock(&eq->run_lock);
	if (!eq->running || neuron_exec_collect_locked(eq))
		goto out;
	if (time_before(jiffies, eq->deadline)) {
		eq->timer_at = eq->deadline;
		mod_delayed_work(system_wq, &eq->timeout_work, eq->deadline - jiffies);
		goto out;
	}
	dev_warn_ratelimited(&nc->nd->dev,
			     "execution on NC %u overran its timeout, NC reset\n",
			     nc->index);
	WRITE_ONCE(eq->resetting, true);
	/*
	 * Counted and traced before the stop finishes the job: a waiter woken
	 * by its fence sees the reset (the reset itself is done first, inside
	 * the stop, before the fence).
	 */
	atomic64_inc(&nc->resets);
	trace_neuron_nc_reset(nc->nd->minor, nc->index, NEURON_RESET_EXEC_TIMEOUT);
	neuron_exec_stop_locked(eq, eq->running, -ETIMEDOUT, NEURON_EXEC_ALL, NULL,
				NEURON_NOTIFY_EXEC_TIMEOUT);
	WRITE_ONCE(eq->resetting, false);
	/* run_lock is a mutex: the events may sleep under it. */
	neuron_nl_event(nc->nd, NEURON_EVENT_EXEC_TIMEOUT, nc->index, 0);
	neuron_nl_event(nc->nd, NEURON_EVENT_NC_RESET, nc->index,
			NEURON_RESET_EXEC_TIMEOUT);
out:
	neuron_exec_start_next_locked(eq);
	mutex_unlock(&eq->run_lock);
}

static struct neuron_exec_queue *neuron_exec_queue_get(struct neuron_nc *nc)
{
	struct neuron_device *nd = nc->nd;
	struct neuron_exec_queue *eq;
	void *va;
	int idx, ret;

	/* Pairs with the release below: a queue seen is fully set up. */
	eq = smp_load_acquire(&nc->exec);
	if (eq)
		return eq;
	mutex_lock(&nc->lock);
	eq = nc->exec;
	if (eq)
		goto out;
	eq = kzalloc(sizeof(*eq), GFP_KERNEL);
	if (!eq) {
		eq = ERR_PTR(-ENOMEM);
		goto out;
	}
	eq->nc = nc;
	spin_lock_init(&eq->lock);
	mutex_init(&eq->run_lock);
	INIT_LIST_HEAD(&eq->pending);
	INIT_WORK(&eq->done_work, neuron_exec_done_work);
	INIT_DELAYED_WORK(&eq->timeout_work, neuron_exec_timeout_work);
	neuron_timeline_init(&eq->timeline, &eq->lock);
	/*
	 * A core that computes in its waiters' threads (exec_drive) ends
	 * only in one of them, which collects the execution at once: only
	 * other cores interrupt.
	 */
	eq->irq = !neuron_hw_exec_drives(nd);
	ret = -ENODEV;
	if (!neuron_dev_enter(nd, &idx))
		goto err_free;
	ret = neuron_hw_coherent_alloc(nd, sizeof(*eq->status), &va,
				       &eq->status_iova, &eq->status_cookie);
	if (ret)
		goto err_exit;
	eq->status = va;
	if (eq->irq) {
		ret = neuron_hw_irq_request(nd, NEURON_IRQ_EXEC(nc->index),
					    neuron_exec_irq, eq);
		if (ret)
			goto err_status;
	}
	/*
	 * Published inside the guard, so removal sees it. Pairs with the
	 * acquires of neuron_exec_queue_get(), the cancel and removal: a
	 * queue seen is fully set up.
	 */
	smp_store_release(&nc->exec, eq);
	neuron_dev_exit(nd, idx);
	goto out;

err_status:
	neuron_hw_coherent_free(nd, sizeof(*eq->status), va, eq->status_iova,
				eq->status_cookie);
err_exit:
	neuron_dev_exit(nd, idx);
err_free:
	mutex_destroy(&eq->run_lock);
	kfree(eq);
	eq = ERR_PTR(ret);
out:
	mutex_unlock(&nc->lock);
	return eq;
}

/*
 * Queue @job (the queue takes a reference); start it if the core is idle.
 * The caller holds the NC (neuron_nc_enter()): the file cannot lose it
 * before the job is queued; a release after that cancels it.
 */
static int neuron_exec_queue_job(struct neuron_exec_queue *eq, struct neuron_job *job)
{
	u32 max = READ_ONCE(neuron_exec_queue_depth);
	int ret = 0;

	spin_lock_irq(&eq->lock);
	if (eq->dead) {
		ret = -ENODEV;
	} else if (eq->depth >= max) {
		ret = -EAGAIN;
	} else {
		eq->depth++;
		/* The seqno in the queue's order, and the queue's reference. */
		neuron_job_queued_locked(job, &eq->timeline);
		list_add_tail(&job->node, &eq->pending);
		trace_neuron_exec_submit(eq->nc->nd->minor, eq->nc->index,
					 job->fence.seqno);
	}
	spin_unlock_irq(&eq->lock);
	if (ret)
		return ret;
	mutex_lock(&eq->run_lock);
	neuron_exec_start_next_locked(eq);
	mutex_unlock(&eq->run_lock);
	return 0;
}

/**
 * neuron_exec_job_new() - the one constructor of an execution (a job)
 * @nf: the submitting file.
 * @x: the EXECUTE request (its bindings are read from user memory).
 * @model: the model; its reference passes to the execution, whatever
 *	happens.
 * @eq: the queue of the model's NC.
 * @ncs: gets the NCs the bound objects are charged to, besides the
 *	model's.
 *
 * Looks the bound objects up (references), checks them against the
 * slots. Return: the execution (the caller's reference; neuron_job_put()
 * gives everything back), or an ERR_PTR (-ENOMEM, -EFAULT, -ENOENT,
 * -EINVAL).
 */
static struct neuron_exec_job *neuron_exec_job_new(struct neuron_file *nf,
						   struct neuron_execute *x,
						   struct neuron_model *model,
						   struct neuron_exec_queue *eq,
						   u64 *ncs)
{
	u32 handles[NEURON_MAX_SLOTS];
	struct neuron_exec_job *ej;
	int ret = -EFAULT;
	u32 i;

	ej = kzalloc(struct_size(ej, bound, model->nslots), GFP_KERNEL);
	if (!ej) {
		neuron_model_put(model);
		return ERR_PTR(-ENOMEM);
	}
	ej->model = model;
	ej->submitted = ktime_get_ns();
	ej->timeout_ms = x->timeout_ms ?: READ_ONCE(neuron_exec_timeout_ms);
	/* From here on the job gives back what it holds itself. */
	neuron_job_init(&ej->job, &neuron_exec_job_ops, &eq->timeline, eq->nc, nf);
	*ncs = BIT_ULL(model->nc);
	if (model->nslots &&
	    copy_from_user(handles, u64_to_user_ptr(x->bindings),
			   model->nslots * sizeof(handles[0])))
		goto err;
	for (i = 0; i < model->nslots; i++) {
		struct neuron_mem *mem = neuron_mem_lookup(nf, handles[i]);

		ret = -ENOENT;
		if (!mem)
			goto err;
		ej->bound[ej->nbound++] = mem;
		ret = -EINVAL;
		if (mem->kind != NEURON_MEM_DEVICE || mem->size < model->slots[i].size)
			goto err;
		*ncs |= BIT_ULL(mem->nc);
	}
	return ej;

err:
	neuron_job_put(&ej->job);
	return ERR_PTR(ret);
}

int neuron_ioctl_execute(struct neuron_file *nf, void *arg)
{
	struct neuron_execute *x = arg;
	struct neuron_device *nd = nf->nd;
	bool wait = x->flags & NEURON_EXEC_WAIT;
	struct neuron_exec_queue *eq;
	struct neuron_exec_job *ej;
	struct neuron_model *model;
	struct neuron_job *job;
	u64 seqno = 0, ncs;
	int ret;

	x->seqno = 0;
	x->status = 0;
	if (!(nd->hal->caps & NEURON_CAP_EXEC))
		return -EOPNOTSUPP;
	if ((x->flags & ~NEURON_EXEC_WAIT) || x->pad ||
	    x->timeout_ms > NEURON_EXEC_MAX_TIMEOUT_MS)
		return -EINVAL;
	model = neuron_model_lookup(nf, x->model);
	if (!model)
		return -ENOENT;
	ret = -EINVAL;
	if (x->nbindings != model->nslots)
		goto err_model;
	eq = neuron_exec_queue_get(neuron_nc_get(nd, model->nc));
	if (IS_ERR(eq)) {
		ret = PTR_ERR(eq);
		goto err_model;
	}
	ej = neuron_exec_job_new(nf, x, model, eq, &ncs);	/* takes the model */
	if (IS_ERR(ej))
		return PTR_ERR(ej);
	job = &ej->job;
	/*
	 * The model's NC is the file's, and the bound objects' NCs nobody
	 * else's, until the execution is queued: then a release cancels it.
	 */
	ret = neuron_nc_enter(nf, ncs, BIT_ULL(eq->nc->index));
	if (ret)
		goto out;
	if (!wait) {
		ret = neuron_job_seq_reserve(nf, &seqno);
		if (ret)
			goto out_nc;
	}
	ret = neuron_exec_queue_job(eq, job);
	if (ret) {
		if (!wait)
			neuron_job_seq_unreserve(nf, seqno);
		goto out_nc;
	}
	neuron_nc_exit(nf, ncs);
	if (!wait) {
		neuron_job_seq_publish(nf, seqno, job);
		x->seqno = seqno;
		goto out;
	}
	/* Bounded by the execution's timeout: only a fatal signal ends it. */
	ret = neuron_job_wait(job, KTIME_MAX, false);
	if (ret != -EINTR && ret != -ENODEV) {
		x->status = neuron_exec_status(ret);
		ret = 0;
	}
	goto out;

out_nc:
	neuron_nc_exit(nf, ncs);
out:
	neuron_job_put(job);
	return ret;

err_model:
	neuron_model_put(model);
	return ret;
}

/*
 * Cancel what @owner (a file) left on NC @nci: it released the NC or
 * closed. Its running execution is stopped (the core reset, no
 * notification), its queued ones fail; other files' work goes on.
 */
void neuron_exec_cancel_file(struct neuron_device *nd, u32 nci,
			     const struct neuron_file *owner)
{
	/* Pairs with the release of neuron_exec_queue_get(). */
	struct neuron_exec_queue *eq = smp_load_acquire(&nd->nc[nci].exec);
	struct neuron_job *run;

	if (!eq)
		return;
	mutex_lock(&eq->run_lock);
	neuron_exec_collect_locked(eq);
	run = eq->running;
	if (run && !neuron_exec_matches(run, NEURON_EXEC_OF, owner))
		run = NULL;	/* someone else's: it goes on */
	neuron_exec_stop_locked(eq, run, -ECANCELED, NEURON_EXEC_OF, owner, 0);
	neuron_exec_start_next_locked(eq);
	mutex_unlock(&eq->run_lock);
}

/**
 * neuron_exec_handover_locked() - NC @nci changed hands: @owner reserved it
 * @nd: the device.
 * @nci: the NC.
 * @owner: the new owner.
 *
 * Called by NC_RESERVE with the NC's hold taken for writing: no call of
 * any file acts on the NC meanwhile. Whatever another file left on it
 * (its cancel at release or close may not have run yet) is stopped, and
 * the NC's semaphores and events are cleared, under run_lock so that no
 * execution runs in between: the new owner starts from a clean core and
 * learns nothing of the one before.
 */
void neuron_exec_handover_locked(struct neuron_device *nd, u32 nci,
				 const struct neuron_file *owner)
{
	/* Pairs with the release of neuron_exec_queue_get(). */
	struct neuron_exec_queue *eq = smp_load_acquire(&nd->nc[nci].exec);
	struct neuron_job *run;

	lockdep_assert_held_write(&nd->nc[nci].hold);
	if (!eq) {
		/* No execution ever ran. */
		neuron_nc_sem_clear(nd, nci);
		return;
	}
	mutex_lock(&eq->run_lock);
	neuron_exec_collect_locked(eq);
	run = eq->running;
	if (run && !neuron_exec_matches(run, NEURON_EXEC_NOT_OF, owner))
		run = NULL;	/* the new owner's own (it held the NC before) */
	neuron_exec_stop_locked(eq, run, -ECANCELED, NEURON_EXEC_NOT_OF, owner, 0);
	if (!eq->running)
		neuron_nc_sem_clear(nd, nci);
	neuron_exec_start_next_locked(eq);
	mutex_unlock(&eq->run_lock);
}

/* The file is gone: cancel what it left on any NC. */
void neuron_exec_file_release(struct neuron_file *nf)
{
	u32 i;

	for (i = 0; i < nf->nd->hal->arch->nc_count; i++)
		neuron_exec_cancel_file(nf->nd, i, nf);
}

/*
 * The device is going: stop every core, fail what is queued or running
 * with -ENODEV, give the interrupt and the status memory back. After the
 * guard's last section ended, before the backend's teardown.
 */
void neuron_exec_unplug(struct neuron_device *nd)
{
	u32 i;

	for (i = 0; i < nd->hal->arch->nc_count; i++) {
		/* Pairs with the release of neuron_exec_queue_get(). */
		struct neuron_exec_queue *eq = smp_load_acquire(&nd->nc[i].exec);
		struct neuron_job *job, *tmp;
		LIST_HEAD(fail);

		if (!eq)
			continue;
		spin_lock_irq(&eq->lock);
		eq->dead = true;
		spin_unlock_irq(&eq->lock);
		cancel_delayed_work_sync(&eq->timeout_work);
		mutex_lock(&eq->run_lock);
		job = eq->running;
		eq->running = NULL;
		if (job) {
			/* The removal path may call the backend until its fini. */
			neuron_hw_exec_reset(nd, i, 0);
			neuron_exec_finish(eq, job, -ENODEV);
		}
		spin_lock_irq(&eq->lock);
		list_splice_init(&eq->pending, &fail);
		spin_unlock_irq(&eq->lock);
		list_for_each_entry_safe(job, tmp, &fail, node) {
			list_del_init(&job->node);
			neuron_exec_finish(eq, job, -ENODEV);
		}
		mutex_unlock(&eq->run_lock);
		if (eq->irq)
			neuron_hw_irq_free(nd, NEURON_IRQ_EXEC(i));
		cancel_work_sync(&eq->done_work);
		cancel_delayed_work_sync(&eq->timeout_work);
		neuron_hw_coherent_free(nd, sizeof(*eq->status), eq->status,
					eq->status_iova, eq->status_cookie);
		eq->status = NULL;
	}
}

/* The device is released: free the queues (nothing uses them any more). */
void neuron_exec_release(struct neuron_device *nd)
{
	u32 i;

	for (i = 0; i < NEURON_MAX_NC; i++) {
		struct neuron_exec_queue *eq = nd->nc[i].exec;

		if (!eq)
			continue;
		mutex_destroy(&eq->run_lock);
		kfree(eq);
		nd->nc[i].exec = NULL;
	}
}
