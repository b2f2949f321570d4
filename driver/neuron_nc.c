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
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/uidgid.h>

#include "neuron_drv.h"

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
}

int neuron_ioctl_nc_reserve(struct neuron_file *nf, void *arg)
{
	struct neuron_nc_reserve *r = arg;
	struct neuron_device *nd = nf->nd;
	struct neuron_nc *nc;
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
	}
	neuron_nc_unlock_mask(nd, r->nc_mask);
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
	return ret;
}

/* The file is gone: every NC it holds is free again. */
void neuron_nc_file_release(struct neuron_file *nf)
{
	struct neuron_device *nd = nf->nd;
	u32 i;

	for (i = 0; i < nd->hal->arch->nc_count; i++) {
		struct neuron_nc *nc = &nd->nc[i];

		if (READ_ONCE(nc->owner) != nf)
			continue;
		mutex_lock(&nc->lock);
		if (nc->owner == nf)
			neuron_nc_disown(nc);
		mutex_unlock(&nc->lock);
	}
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

/* May the caller see who holds @nc (same uid, or CAP_SYS_ADMIN)? */
static bool neuron_nc_owner_visible(struct neuron_nc *nc)
{
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
