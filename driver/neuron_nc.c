// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: NeuronCore reservation (NC_RESERVE, NC_RELEASE,
 * NEURON_QUERY_NC_STATE).
 *
 * A file reserves NCs for itself alone: nc->owner is that file. One rule,
 * one mechanism: every call that acts on an NC enters it with
 * neuron_nc_enter(), which checks the caller against the owner and holds
 * nc->hold for reading until the call's work is committed (a model placed
 * and its handle made, an execution queued, a copy submitted, a queue set
 * up, a semaphore changed); a change of owner (NC_RESERVE, NC_RELEASE, a
 * file's release) holds it for writing, so it comes wholly before or after
 * each such call, never in the middle. Calls that need the reservation
 * (models, executions, semaphores) get -EACCES without it; calls that may
 * share an NC nobody reserved (memory charged to it, copies through it,
 * its notification queues) get -EBUSY once another file holds it.
 * While it still holds nc->hold, NC_RESERVE makes the NC clean for its new
 * owner: other files' work on it is stopped, their notification queues on
 * it are taken down, its semaphores and events are cleared. The
 * reservation ends with NC_RELEASE or the file's release, which for a
 * killed owner happens at its exit. The reserving process (a struct pid)
 * and its uid are kept for the query, which shows them only to the same
 * uid or to CAP_SYS_ADMIN, the pid as the reader's pid namespace sees it.
 *
 * NC_SEM: the semaphores and events of an NC, for its reserving file only.
 * A change wakes the NC's waiters (neuron_nc_wake()); a WAIT reads the
 * value inside the NC and the removal guard and waits outside both
 * (neuron_exec_wait()); removal wakes the waiters.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/wait.h>
#include <linux/uidgid.h>

#include "dma/neuron_dma.h"
#include "neuron_common.h"
#include "neuron_nc.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_ioctl.h"
#include "neuron_exec.h"
#include "neuron_notify.h"
#include "neuron_hw.h"
#include "neuron_compat.h"
#include "ndhal/ndhal.h"

/**
 * neuron_nc_enter() - start acting on the NCs of @mask for @nf
 * @nf: the calling file.
 * @mask: the NCs (each below the arch's count, checked by the caller).
 * @mine: those of @mask the call needs the reservation of (models,
 *	executions, semaphores); on the others (memory charged to them,
 *	copies through them, their notification queues) it may share an NC
 *	that nobody reserved.
 *
 * Holds each NC's @hold for reading, in index order (one call for all the
 * NCs of a call: the one order), outside the removal guard, and checks
 * @nf against the owner, which then cannot change until neuron_nc_exit():
 * the caller commits its work before it calls that. Never sleep for an
 * event in between (a wait for the device, a deadline); a bounded wait
 * for the work itself (a copy) is fine.
 *
 * Return: 0 (held); -EACCES (an NC of @mine that @nf does not hold),
 * -EBUSY (another NC that another file holds), -EINTR (a fatal signal);
 * nothing is held then.
 */
int neuron_nc_enter(struct neuron_file *nf, u64 mask, u64 mine)
{
	struct neuron_device *nd = nf->nd;
	u64 held = 0;
	int ret = 0;
	u32 i;

	for (i = 0; i < nd->hal->arch->nc_count && !ret; i++) {
		struct neuron_nc *nc = &nd->nc[i];

		if (!(mask & BIT_ULL(i)))
			continue;
		if (down_read_killable_nested(&nc->hold, i)) {
			ret = -EINTR;
			break;
		}
		held |= BIT_ULL(i);
		if ((mine & BIT_ULL(i)) && nc->owner != nf)
			ret = -EACCES;
		else if (nc->owner && nc->owner != nf)
			ret = -EBUSY;
	}
	if (ret)
		neuron_nc_exit(nf, held);
	return ret;
}

/* End what neuron_nc_enter() started on the NCs of @mask. */
void neuron_nc_exit(struct neuron_file *nf, u64 mask)
{
	u32 i;

	for (i = 0; i < nf->nd->hal->arch->nc_count; i++)
		if (mask & BIT_ULL(i))
			up_read(&nf->nd->nc[i].hold);
}

/*
 * Hold the NCs of @mask for a change of owner: @hold for writing (every
 * call acting on them has committed), then @lock, each in index order (the
 * one order, so two reservers of overlapping masks cannot deadlock).
 * Return: 0, or -EINTR (a fatal signal; nothing held).
 */
static int neuron_nc_lock_mask(struct neuron_device *nd, u64 mask)
{
	u64 held = 0;
	u32 i;

	for (i = 0; i < nd->hal->arch->nc_count; i++) {
		if (!(mask & BIT_ULL(i)))
			continue;
		if (down_write_killable_nested(&nd->nc[i].hold, i)) {
			for (i = 0; i < nd->hal->arch->nc_count; i++)
				if (held & BIT_ULL(i))
					up_write(&nd->nc[i].hold);
			return -EINTR;
		}
		held |= BIT_ULL(i);
	}
	for (i = 0; i < nd->hal->arch->nc_count; i++)
		if (mask & BIT_ULL(i))
			mutex_lock_nested(&nd->nc[i].lock, i);
	return 0;
}

/*
 * Checks common to NC_RESERVE and NC_RELEASE (a mask of valid NCs), then
 * the NCs of the mask held for the change (neuron_nc_lock_mask()).
 */
static int neuron_nc_mask_check_lock(struct neuron_file *nf,
				     const struct neuron_nc_reserve *r)
{
	u32 count = nf->nd->hal->arch->nc_count;

	if (!(nf->nd->hal->caps & NEURON_CAP_RESERVE))
		return -EOPNOTSUPP;
	if (r->flags || r->pad || !r->nc_mask)
		return -EINVAL;
	if (count < 64 && (r->nc_mask >> count))
		return -EINVAL;
	return neuron_nc_lock_mask(nf->nd, r->nc_mask);
}

/* Drop @lock of the NCs of @mask; their @hold stays (neuron_nc_unhold_mask()). */
static void neuron_nc_unlock_mask(struct neuron_device *nd, u64 mask)
{
	u32 i;

	for (i = 0; i < nd->hal->arch->nc_count; i++)
		if (mask & BIT_ULL(i))
			mutex_unlock(&nd->nc[i].lock);
}

static void neuron_nc_unhold_mask(struct neuron_device *nd, u64 mask)
{
	u32 i;

	for (i = 0; i < nd->hal->arch->nc_count; i++)
		if (mask & BIT_ULL(i))
			up_write(&nd->nc[i].hold);
}

/**
 * neuron_nc_wake() - something a waiter of NC @nc looks at changed
 * @nc: the NC.
 *
 * A semaphore or event, the owner, a job of the NC ended or started, a
 * notification came, the device goes: bumps @event_gen, then wakes
 * @event_wait. A waiter reads @event_gen before it checks its condition
 * and sleeps only if it did not move (neuron_exec_wait()). Any context.
 */
void neuron_nc_wake(struct neuron_nc *nc)
{
	atomic_inc(&nc->event_gen);
	/* Orders the bump before the look at the queue (wq_has_sleeper()). */
	if (wq_has_sleeper(&nc->event_wait))
		wake_up_all(&nc->event_wait);
}

/* Called with nc->hold (for writing) and nc->lock held. */
static void neuron_nc_disown_locked(struct neuron_nc *nc)
{
	lockdep_assert_held_write(&nc->hold);
	lockdep_assert_held(&nc->lock);
	put_pid(nc->owner_pid);
	nc->owner_pid = NULL;
	WRITE_ONCE(nc->owner, NULL);
	/* An NC_SEM WAIT of the old owner ends with -EACCES. */
	neuron_nc_wake(nc);
}

/* Send @type for each NC of @mask (after the NCs' locks are dropped). */
static void neuron_nc_event_mask(struct neuron_device *nd, u64 mask, u32 type)
{
	u32 i;

	for (i = 0; i < nd->hal->arch->nc_count; i++)
		if (mask & BIT_ULL(i))
			neuron_nl_event(nd, type, i, 0);
}

int neuron_ioctl_nc_reserve(struct neuron_file *nf, void *arg)
{
	struct neuron_nc_reserve *r = arg;
	struct neuron_device *nd = nf->nd;
	struct neuron_nc *nc;
	u64 added = 0;
	int ret;
	u32 i;

	ret = neuron_nc_mask_check_lock(nf, r);
	if (ret)
		return ret;
	for (i = 0; i < nd->hal->arch->nc_count && !ret; i++) {
		if (!(r->nc_mask & BIT_ULL(i)))
			continue;
		nc = &nd->nc[i];
		if (nc->owner && nc->owner != nf)
			ret = -EBUSY;
		else if (neuron_nc_state_locked(nc) == NEURON_NC_FAILED)
			ret = -EIO;
	}
	for (i = 0; i < nd->hal->arch->nc_count && !ret; i++) {
		nc = &nd->nc[i];
		if (!(r->nc_mask & BIT_ULL(i)) || nc->owner == nf)
			continue;
		nc->owner_pid = get_pid(task_tgid(current));
		nc->owner_uid = current_euid();
		WRITE_ONCE(nc->owner, nf);
		added |= BIT_ULL(i);
	}
	neuron_nc_unlock_mask(nd, r->nc_mask);
	/*
	 * A new owner starts from a clean core, before anyone may act on it:
	 * still under @hold, no call of any file is half done on it.
	 */
	for (i = 0; i < nd->hal->arch->nc_count; i++) {
		if (!(added & BIT_ULL(i)))
			continue;
		neuron_exec_handover_locked(nd, i, nf);
		neuron_notify_nc_revoke_locked(nd, i, nf);
	}
	neuron_nc_unhold_mask(nd, r->nc_mask);
	neuron_nc_event_mask(nd, added, NEURON_EVENT_NC_RESERVED);
	return ret;
}

int neuron_ioctl_nc_release(struct neuron_file *nf, void *arg)
{
	struct neuron_nc_reserve *r = arg;
	struct neuron_device *nd = nf->nd;
	int ret;
	u32 i;

	ret = neuron_nc_mask_check_lock(nf, r);
	if (ret)
		return ret;
	for (i = 0; i < nd->hal->arch->nc_count && !ret; i++)
		if ((r->nc_mask & BIT_ULL(i)) && nd->nc[i].owner != nf)
			ret = -ENOENT;
	for (i = 0; i < nd->hal->arch->nc_count && !ret; i++)
		if (r->nc_mask & BIT_ULL(i))
			neuron_nc_disown_locked(&nd->nc[i]);
	neuron_nc_unlock_mask(nd, r->nc_mask);
	/* The file's executions on them end with the reservation. */
	for (i = 0; i < nd->hal->arch->nc_count && !ret; i++)
		if (r->nc_mask & BIT_ULL(i))
			neuron_exec_cancel_file(nd, i, nf);
	neuron_nc_unhold_mask(nd, r->nc_mask);
	if (!ret)
		neuron_nc_event_mask(nd, r->nc_mask, NEURON_EVENT_NC_RELEASED);
	return ret;
}

/* The file is gone: every NC it holds is free again. */
void neuron_nc_file_release(struct neuron_file *nf)
{
	struct neuron_device *nd = nf->nd;
	u64 released = 0;
	u32 i;

	for (i = 0; i < nd->hal->arch->nc_count; i++) {
		struct neuron_nc *nc = &nd->nc[i];

		if (READ_ONCE(nc->owner) != nf)
			continue;
		/* No call of this file runs any more: only others' are waited for. */
		down_write_nested(&nc->hold, i);
		mutex_lock(&nc->lock);
		if (nc->owner == nf) {
			neuron_nc_disown_locked(nc);
			released |= BIT_ULL(i);
		}
		mutex_unlock(&nc->lock);
		up_write(&nc->hold);
	}
	neuron_nc_event_mask(nd, released, NEURON_EVENT_NC_RELEASED);
}

/**
 * neuron_nc_state_locked() - the state of @nc, NEURON_NC_* of the uapi
 * @nc: the NC; its lock held.
 *
 * Derived, not kept: out of service when its DMA queue could not restart
 * (FAILED), RESETTING while a queue recovers from an error, a hang or a
 * timeout, RUNNING while executions are queued or running on its core,
 * else RESERVED or FREE by its owner. What the queues say of themselves
 * are hints read without their locks: the state is a snapshot.
 */
u32 neuron_nc_state_locked(struct neuron_nc *nc)
{
	/* Pairs with the release of neuron_exec_queue_get(). */
	struct neuron_exec_queue *eq = smp_load_acquire(&nc->exec);

	lockdep_assert_held(&nc->lock);
	if (neuron_dma_queue_failed(nc->dma))
		return NEURON_NC_FAILED;
	if (neuron_dma_queue_resetting(nc->dma) || neuron_exec_queue_resetting(eq))
		return NEURON_NC_RESETTING;
	if (neuron_exec_queue_busy(eq))
		return NEURON_NC_RUNNING;
	return nc->owner ? NEURON_NC_RESERVED : NEURON_NC_FREE;
}

/*
 * May the caller see who holds @nc (same uid, or CAP_SYS_ADMIN)? Called
 * with nc->lock held (NEURON_QUERY_NC_STATE, the netlink NC_GET).
 */
bool neuron_nc_owner_visible_locked(struct neuron_nc *nc)
{
	lockdep_assert_held(&nc->lock);
	return uid_eq(nc->owner_uid, current_euid()) || capable(CAP_SYS_ADMIN);
}

/**
 * neuron_nc_owner_pid_locked() - the reserving process's pid, for the caller
 * @nc: the NC; its lock held.
 *
 * The pid as the caller's pid namespace sees it, 0 when the process is
 * gone (its file may outlive it, passed to another process) or not
 * visible there (a container does not see a host pid). The NC keeps a
 * reference on the struct pid, not the number, so a number taken by a
 * later process never names that process as the owner.
 */
pid_t neuron_nc_owner_pid_locked(struct neuron_nc *nc)
{
	pid_t nr = 0;

	lockdep_assert_held(&nc->lock);
	rcu_read_lock();
	if (nc->owner_pid && pid_task(nc->owner_pid, PIDTYPE_TGID))
		nr = pid_vnr(nc->owner_pid);
	rcu_read_unlock();
	return nr;
}

/* Answer NEURON_QUERY_NC_STATE (its own frame: zeroed only when used). */
noinline int neuron_query_nc_state(struct neuron_file *nf, struct neuron_query *q)
{
	struct neuron_device *nd = nf->nd;
	u32 i, count = nd->hal->arch->nc_count;
	struct {
		struct neuron_nc_states h;
		struct neuron_nc_state nc[NEURON_MAX_NC];
	} a;

	if (!(nd->hal->caps & NEURON_CAP_RESERVE))
		return -EOPNOTSUPP;
	memset(&a, 0, sizeof(a));
	a.h.nc_count = count;
	for (i = 0; i < count; i++) {
		struct neuron_nc *nc = &nd->nc[i];

		mutex_lock(&nc->lock);
		a.nc[i].state = neuron_nc_state_locked(nc);
		if (nc->owner == nf)
			a.nc[i].flags |= NEURON_NC_STATE_MINE;
		if (nc->owner && neuron_nc_owner_visible_locked(nc)) {
			a.nc[i].flags |= NEURON_NC_STATE_OWNER;
			a.nc[i].owner_pid = neuron_nc_owner_pid_locked(nc);
			a.nc[i].owner_uid = from_kuid_munged(current_user_ns(),
							     nc->owner_uid);
		}
		mutex_unlock(&nc->lock);
	}
	return neuron_query_answer(q, &a, sizeof(a.h) + count * sizeof(a.nc[0]));
}

/* ---- semaphores and events ---- */

/* Check @s; *@index gets its index, bounded under speculation too. */
static int neuron_nc_sem_check(struct neuron_file *nf,
			       const struct neuron_nc_sem *s, u32 *index)
{
	const struct ndhal_arch *arch = nf->nd->hal->arch;
	u32 count;

	if (!(nf->nd->hal->caps & NEURON_CAP_SEM))
		return -EOPNOTSUPP;
	if (s->flags || s->nc >= arch->nc_count || s->kind > NEURON_SEM_KIND_EVENT ||
	    s->op > NEURON_SEM_WAIT)
		return -EINVAL;
	count = s->kind == NEURON_SEM_KIND_EVENT ? arch->events_per_nc :
						   arch->semaphores_per_nc;
	if (s->index >= count)
		return -EINVAL;
	if (s->kind == NEURON_SEM_KIND_EVENT &&
	    (s->op == NEURON_SEM_INC || s->op == NEURON_SEM_DEC || s->value > 1))
		return -EINVAL;
	if (s->op != NEURON_SEM_WAIT && s->timeout_ns)
		return -EINVAL;
	*index = array_index_nospec(s->index, count);
	return 0;
}

/*
 * One operation of the NC's owner (a WAIT is a READ here): inside the NC
 * (neuron_nc_enter(), so the owner cannot change before it is done) and
 * the removal guard.
 */
static int neuron_nc_sem_op(struct neuron_file *nf, struct neuron_nc *nc,
			    const struct neuron_nc_sem *s, u32 index, u32 op,
			    u32 *out)
{
	int idx, ret;

	ret = neuron_nc_enter(nf, BIT_ULL(nc->index), BIT_ULL(nc->index));
	if (ret)
		return ret;
	if (neuron_dev_enter(nf->nd, &idx)) {
		ret = neuron_hw_sem_update(nf->nd, nc->index, s->kind, index, op,
					   s->value, out);
		neuron_dev_exit(nf->nd, idx);
	} else {
		ret = -ENODEV;
	}
	neuron_nc_exit(nf, BIT_ULL(nc->index));
	if (!ret && op != NEURON_SEM_READ)
		neuron_nc_wake(nc);
	return ret;
}

/**
 * neuron_nc_sem_clear() - set every semaphore and event of NC @nci to 0
 * @nd: the device.
 * @nci: the NC, which just changed hands (neuron_exec_handover_locked()).
 */
void neuron_nc_sem_clear(struct neuron_device *nd, u32 nci)
{
	const struct ndhal_arch *arch = nd->hal->arch;
	u32 i, out;
	int idx;

	if (!(nd->hal->caps & NEURON_CAP_SEM) || !neuron_dev_enter(nd, &idx))
		return;
	for (i = 0; i < arch->semaphores_per_nc; i++)
		neuron_hw_sem_update(nd, nci, NEURON_SEM_KIND_SEMAPHORE, i,
				     NEURON_SEM_SET, 0, &out);
	for (i = 0; i < arch->events_per_nc; i++)
		neuron_hw_sem_update(nd, nci, NEURON_SEM_KIND_EVENT, i,
				     NEURON_SEM_SET, 0, &out);
	neuron_dev_exit(nd, idx);
	neuron_nc_wake(&nd->nc[nci]);
}

static bool neuron_nc_sem_reached(const struct neuron_nc_sem *s, u32 v)
{
	return s->kind == NEURON_SEM_KIND_EVENT ? v == s->value : v >= s->value;
}

/* What an NC_SEM WAIT looks at (neuron_exec_wait()). */
struct neuron_nc_sem_wait {
	struct neuron_file *nf;
	struct neuron_nc *nc;
	const struct neuron_nc_sem *s;
	u32 index;
	u32 value;
};

static int neuron_nc_sem_check_value(void *arg)
{
	struct neuron_nc_sem_wait *w = arg;
	int ret;

	ret = neuron_nc_sem_op(w->nf, w->nc, w->s, w->index, NEURON_SEM_READ, &w->value);
	if (ret)
		return ret;
	return neuron_nc_sem_reached(w->s, w->value);
}

int neuron_ioctl_nc_sem(struct neuron_file *nf, void *arg)
{
	struct neuron_nc_sem *s = arg;
	struct neuron_nc_sem_wait w = { .nf = nf, .s = s };
	u32 v = 0;
	int ret;

	ret = neuron_nc_sem_check(nf, s, &w.index);
	if (ret)
		return ret;
	w.nc = neuron_nc_get(nf->nd, s->nc);
	if (s->op != NEURON_SEM_WAIT) {
		ret = neuron_nc_sem_op(nf, w.nc, s, w.index, s->op, &v);
		if (!ret)
			s->value = v;
		return ret;
	}
	/*
	 * Each read holds the NC and the guard; the wait holds neither, and
	 * computes the NC's program meanwhile where the core is simulated.
	 */
	ret = neuron_exec_wait(w.nc, neuron_nc_sem_check_value, &w,
			       ns_to_ktime(max_t(s64, s->timeout_ns, 0)), true);
	if (!ret)
		s->value = w.value;
	return ret;
}

/**
 * neuron_nc_sem_changed() - the device changed a semaphore or event of NC @nci
 * @nd: the device.
 * @nci: the NeuronCore, below the arch's count.
 *
 * Called by a backend when a program running on the core changed one (the
 * simulator's SEM_SIGNAL, SEM_WAIT, EVENT_SET): wakes the NC_SEM waiters.
 * Any context but hard interrupt.
 */
void neuron_nc_sem_changed(struct neuron_device *nd, u32 nci)
{
	if (nci < nd->hal->arch->nc_count)
		neuron_nc_wake(neuron_nc_get(nd, nci));
}
EXPORT_SYMBOL_NS_GPL(neuron_nc_sem_changed, NEURON_NS);

/* The device is going away: wake every NC_SEM waiter (they see it gone). */
void neuron_nc_unplug(struct neuron_device *nd)
{
	u32 i;

	for (i = 0; i < NEURON_MAX_NC; i++)
		neuron_nc_wake(&nd->nc[i]);
}
