// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: NeuronCore reservation (NC_RESERVE, NC_RELEASE,
 * NEURON_QUERY_NC_STATE).
 *
 * A file reserves NCs for itself alone: nc->owner is that file, under
 * nc->lock. Every call of another file that touches a reserved NC (memory
 * charged to it, a copy through it, its notification queues) gets -EBUSY
 * from neuron_nc_access(); an NC nobody reserved is open to every writable
 * file. The reservation ends with NC_RELEASE or the file's release, which
 * for a killed owner happens at its exit. The reserving process and its
 * uid are kept for the query, which shows them only to the same uid or to
 * CAP_SYS_ADMIN.
 *
 * NC_SEM: the semaphores and events of an NC, for its reserving file only.
 * A change wakes the NC's sem_wait; a WAIT reads the value inside the
 * removal guard and sleeps outside it; removal wakes the sleepers.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/wait.h>
#include <linux/uidgid.h>

#include "neuron_drv.h"
#include "neuron_hw.h"
#include "neuron_exec.h"

/* Is @nf allowed on NC @nc (in range, checked by the caller)? 0 or -EBUSY. */
int neuron_nc_access(struct neuron_file *nf, u32 nc)
{
	struct neuron_file *owner = READ_ONCE(neuron_nc_get(nf->nd, nc)->owner);

	return owner && owner != nf ? -EBUSY : 0;
}

/* Checks common to NC_RESERVE and NC_RELEASE; the mask of valid NCs. */
static int neuron_nc_mask_check(struct neuron_file *nf,
				const struct neuron_nc_reserve *r)
{
	u32 count = nf->nd->hal->arch->nc_count;

	if (!(nf->nd->hal->caps & NEURON_CAP_RESERVE))
		return -EOPNOTSUPP;
	if (r->flags || r->pad || !r->nc_mask)
		return -EINVAL;
	if (count < 64 && (r->nc_mask >> count))
		return -EINVAL;
	return 0;
}

/*
 * Lock the NCs of @mask in index order (the one order, so two reservers of
 * overlapping masks cannot deadlock).
 */
static void neuron_nc_lock_mask(struct neuron_device *nd, u64 mask)
{
	u32 i;

	for (i = 0; i < nd->hal->arch->nc_count; i++)
		if (mask & BIT_ULL(i))
			mutex_lock_nested(&nd->nc[i].lock, i);
}

static void neuron_nc_unlock_mask(struct neuron_device *nd, u64 mask)
{
	u32 i;

	for (i = 0; i < nd->hal->arch->nc_count; i++)
		if (mask & BIT_ULL(i))
			mutex_unlock(&nd->nc[i].lock);
}

/* Called with nc->lock held. */
static void neuron_nc_disown(struct neuron_nc *nc)
{
	lockdep_assert_held(&nc->lock);
	put_pid(nc->owner_pid);
	nc->owner_pid = NULL;
	WRITE_ONCE(nc->owner, NULL);
	if (nc->state == NEURON_NC_RESERVED)
		nc->state = NEURON_NC_FREE;
	/* An NC_SEM WAIT of the old owner ends with -EACCES. */
	wake_up_all(&nc->sem_wait);
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

	ret = neuron_nc_mask_check(nf, r);
	if (ret)
		return ret;
	neuron_nc_lock_mask(nd, r->nc_mask);
	for (i = 0; i < nd->hal->arch->nc_count && !ret; i++) {
		if (!(r->nc_mask & BIT_ULL(i)))
			continue;
		nc = &nd->nc[i];
		if (nc->owner && nc->owner != nf)
			ret = -EBUSY;
		else if (nc->state == NEURON_NC_FAILED)
			ret = -EIO;
	}
	for (i = 0; i < nd->hal->arch->nc_count && !ret; i++) {
		nc = &nd->nc[i];
		if (!(r->nc_mask & BIT_ULL(i)) || nc->owner == nf)
			continue;
		nc->owner_pid = get_pid(task_tgid(current));
		nc->owner_uid = current_euid();
		WRITE_ONCE(nc->owner, nf);
		if (nc->state == NEURON_NC_FREE)
			nc->state = NEURON_NC_RESERVED;
		added |= BIT_ULL(i);
	}
	neuron_nc_unlock_mask(nd, r->nc_mask);
	/* A new owner starts from a clean core. */
	for (i = 0; i < nd->hal->arch->nc_count; i++)
		if (added & BIT_ULL(i))
			neuron_exec_handover(nd, i, nf);
	neuron_nc_event_mask(nd, added, NEURON_EVENT_NC_RESERVED);
	return ret;
}

int neuron_ioctl_nc_release(struct neuron_file *nf, void *arg)
{
	struct neuron_nc_reserve *r = arg;
	struct neuron_device *nd = nf->nd;
	int ret;
	u32 i;

	ret = neuron_nc_mask_check(nf, r);
	if (ret)
		return ret;
	neuron_nc_lock_mask(nd, r->nc_mask);
	for (i = 0; i < nd->hal->arch->nc_count && !ret; i++)
		if ((r->nc_mask & BIT_ULL(i)) && nd->nc[i].owner != nf)
			ret = -ENOENT;
	for (i = 0; i < nd->hal->arch->nc_count && !ret; i++)
		if (r->nc_mask & BIT_ULL(i))
			neuron_nc_disown(&nd->nc[i]);
	neuron_nc_unlock_mask(nd, r->nc_mask);
	/* The file's executions on them end with the reservation. */
	for (i = 0; i < nd->hal->arch->nc_count && !ret; i++)
		if (r->nc_mask & BIT_ULL(i))
			neuron_exec_cancel_file(nd, i, nf);
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
		mutex_lock(&nc->lock);
		if (nc->owner == nf) {
			neuron_nc_disown(nc);
			released |= BIT_ULL(i);
		}
		mutex_unlock(&nc->lock);
	}
	neuron_nc_event_mask(nd, released, NEURON_EVENT_NC_RELEASED);
}

/*
 * The NC's core starts an execution (@running) or goes idle: its state
 * becomes NEURON_NC_RUNNING, or back to reserved or free. A resetting or
 * failed NC keeps its state.
 */
void neuron_nc_set_running(struct neuron_nc *nc, bool running)
{
	mutex_lock(&nc->lock);
	if (running && (nc->state == NEURON_NC_FREE || nc->state == NEURON_NC_RESERVED))
		nc->state = NEURON_NC_RUNNING;
	else if (!running && nc->state == NEURON_NC_RUNNING)
		nc->state = nc->owner ? NEURON_NC_RESERVED : NEURON_NC_FREE;
	mutex_unlock(&nc->lock);
}

/* A reset of the NC ended (@ok: it is back in service). */
void neuron_nc_reset_done(struct neuron_nc *nc, bool ok)
{
	mutex_lock(&nc->lock);
	if (!ok)
		nc->state = NEURON_NC_FAILED;
	else
		nc->state = nc->owner ? NEURON_NC_RESERVED : NEURON_NC_FREE;
	mutex_unlock(&nc->lock);
}

/*
 * May the caller see who holds @nc (same uid, or CAP_SYS_ADMIN)? Called
 * with nc->lock held (NEURON_QUERY_NC_STATE, the netlink NC_GET).
 */
bool neuron_nc_owner_visible(struct neuron_nc *nc)
{
	lockdep_assert_held(&nc->lock);
	return uid_eq(nc->owner_uid, current_euid()) || capable(CAP_SYS_ADMIN);
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
		a.nc[i].state = nc->state;
		if (nc->owner == nf)
			a.nc[i].flags |= NEURON_NC_STATE_MINE;
		if (nc->owner && neuron_nc_owner_visible(nc)) {
			a.nc[i].flags |= NEURON_NC_STATE_OWNER;
			a.nc[i].owner_pid = pid_vnr(nc->owner_pid);
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

/* One operation inside the removal guard (a WAIT is a READ here). */
static int neuron_nc_sem_op(struct neuron_file *nf, struct neuron_nc *nc,
			    const struct neuron_nc_sem *s, u32 index, u32 op,
			    u32 *out)
{
	int idx, ret;

	if (!neuron_dev_enter(nf->nd, &idx))
		return -ENODEV;
	ret = neuron_hw_sem_update(nf->nd, nc->index, s->kind, index, op,
				   s->value, out);
	neuron_dev_exit(nf->nd, idx);
	if (!ret && op != NEURON_SEM_READ)
		wake_up_all(&nc->sem_wait);
	return ret;
}

/**
 * neuron_nc_sem_clear() - set every semaphore and event of NC @nci to 0
 * @nd: the device.
 * @nci: the NC, which just changed hands (neuron_exec_handover()).
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
	wake_up_all(&nd->nc[nci].sem_wait);
}

static bool neuron_nc_sem_reached(const struct neuron_nc_sem *s, u32 v)
{
	return s->kind == NEURON_SEM_KIND_EVENT ? v == s->value : v >= s->value;
}

int neuron_ioctl_nc_sem(struct neuron_file *nf, void *arg)
{
	struct neuron_nc_sem *s = arg;
	struct neuron_nc *nc;
	DEFINE_WAIT(wait);
	ktime_t deadline;
	u32 index, v = 0;
	int ret;

	ret = neuron_nc_sem_check(nf, s, &index);
	if (ret)
		return ret;
	nc = neuron_nc_get(nf->nd, s->nc);
	if (READ_ONCE(nc->owner) != nf)
		return -EACCES;
	if (s->op != NEURON_SEM_WAIT) {
		ret = neuron_nc_sem_op(nf, nc, s, index, s->op, &v);
		if (!ret)
			s->value = v;
		return ret;
	}
	deadline = ns_to_ktime(max_t(s64, s->timeout_ns, 0));
	for (;;) {
		prepare_to_wait(&nc->sem_wait, &wait, TASK_INTERRUPTIBLE);
		if (READ_ONCE(nc->owner) != nf) {
			ret = -EACCES;
			break;
		}
		ret = neuron_nc_sem_op(nf, nc, s, index, NEURON_SEM_READ, &v);
		if (ret || neuron_nc_sem_reached(s, v))
			break;
		ret = neuron_wait_step(deadline, true);
		if (ret)
			break;
	}
	finish_wait(&nc->sem_wait, &wait);
	if (!ret)
		s->value = v;
	return ret;
}

/**
 * neuron_nc_sem_changed() - the device changed a semaphore or event of NC @nc
 * @nd: the device.
 * @nc: the NeuronCore, below the arch's count.
 *
 * Called by a backend when a program running on the core changed one (the
 * simulator's SEM_SIGNAL, SEM_WAIT, EVENT_SET): wakes the NC_SEM waiters.
 * Any context but hard interrupt.
 */
void neuron_nc_sem_changed(struct neuron_device *nd, u32 nc)
{
	if (nc < nd->hal->arch->nc_count)
		wake_up_all(&neuron_nc_get(nd, nc)->sem_wait);
}
EXPORT_SYMBOL_NS_GPL(neuron_nc_sem_changed, NEURON_NS);

/* The device is going away: wake every NC_SEM waiter (they see it gone). */
void neuron_nc_unplug(struct neuron_device *nd)
{
	u32 i;

	for (i = 0; i < NEURON_MAX_NC; i++)
		wake_up_all(&nd->nc[i].sem_wait);
}
