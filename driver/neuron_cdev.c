// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: file operations of /dev/neuronN and the ioctl dispatcher.
 *
 * The dispatcher owns everything the ioctls have in common: the command is
 * looked up in a table indexed by its number; the argument is read with
 * copy_struct_from_user() so that older (shorter) and newer (longer) callers
 * work, is handed to the handler in kernel memory, and is copied back for
 * _IOC_READ commands; the handler runs inside the device's removal guard
 * (neuron_dev_enter()) so a removed device answers -ENODEV, except the
 * handlers that sleep (NEURON_IOCTL_UNGUARDED), which enter it themselves
 * around their calls into the backend and never sleep inside it; among
 * them every handler that takes an NC's hold (neuron_nc_enter()), which
 * may wait for other calls, so is always taken outside the guard.
 *
 * A file opened read-only may only query (QUERY): every other ioctl
 * allocates, moves data or takes a queue and is flagged NEURON_IOCTL_WRITE,
 * refused with -EBADF (as write(2) on such a file).
 */
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include <neuron.h>

#include "neuron_nc.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_mem.h"
#include "neuron_ioctl.h"
#include "neuron_job.h"
#include "neuron_copy.h"
#include "neuron_exec.h"
#include "neuron_notify.h"

#define NEURON_IOCTL_DEF(_name, _fn, _first_member_end, _flags)	\
	[_IOC_NR(NEURON_IOCTL_##_name)] = {				\
		.cmd = NEURON_IOCTL_##_name,				\
		.min_size = _first_member_end,				\
		.flags = _flags,					\
		.fn = _fn,						\
	}

static const struct neuron_ioctl_desc neuron_ioctls[] = {
	/* Its answers are the driver's own state: no call into the backend. */
	NEURON_IOCTL_DEF(QUERY, neuron_ioctl_query,
			 offsetofend(struct neuron_query, reserved), NEURON_IOCTL_UNGUARDED),
	NEURON_IOCTL_DEF(MEM_ALLOC, neuron_ioctl_mem_alloc,
			 offsetofend(struct neuron_mem_alloc, reserved),
			 NEURON_IOCTL_WRITE | NEURON_IOCTL_UNGUARDED),
	NEURON_IOCTL_DEF(MEM_FREE, neuron_ioctl_mem_free,
			 offsetofend(struct neuron_mem_free, flags),
			 NEURON_IOCTL_WRITE),
	NEURON_IOCTL_DEF(COPY, neuron_ioctl_copy,
			 offsetofend(struct neuron_copy, reserved),
			 NEURON_IOCTL_WRITE | NEURON_IOCTL_UNGUARDED),
	NEURON_IOCTL_DEF(MEMSET, neuron_ioctl_memset,
			 offsetofend(struct neuron_memset, reserved),
			 NEURON_IOCTL_WRITE | NEURON_IOCTL_UNGUARDED),
	NEURON_IOCTL_DEF(WAIT, neuron_ioctl_wait,
			 offsetofend(struct neuron_wait, pad),
			 NEURON_IOCTL_WRITE | NEURON_IOCTL_UNGUARDED),
	NEURON_IOCTL_DEF(NOTIFY_SETUP, neuron_ioctl_notify_setup,
			 offsetofend(struct neuron_notify_setup, reserved),
			 NEURON_IOCTL_WRITE | NEURON_IOCTL_UNGUARDED),
	NEURON_IOCTL_DEF(NOTIFY_WAIT, neuron_ioctl_notify_wait,
			 offsetofend(struct neuron_notify_wait, reserved),
			 NEURON_IOCTL_WRITE | NEURON_IOCTL_UNGUARDED),
	NEURON_IOCTL_DEF(NC_RESERVE, neuron_ioctl_nc_reserve,
			 offsetofend(struct neuron_nc_reserve, pad),
			 NEURON_IOCTL_WRITE | NEURON_IOCTL_UNGUARDED),
	NEURON_IOCTL_DEF(NC_RELEASE, neuron_ioctl_nc_release,
			 offsetofend(struct neuron_nc_reserve, pad),
			 NEURON_IOCTL_WRITE | NEURON_IOCTL_UNGUARDED),
	NEURON_IOCTL_DEF(NC_SEM, neuron_ioctl_nc_sem,
			 offsetofend(struct neuron_nc_sem, timeout_ns),
			 NEURON_IOCTL_WRITE | NEURON_IOCTL_UNGUARDED),
	NEURON_IOCTL_DEF(NOTIFY_TEARDOWN, neuron_ioctl_notify_teardown,
			 offsetofend(struct neuron_notify_teardown, pad),
			 NEURON_IOCTL_WRITE),
	NEURON_IOCTL_DEF(MODEL_LOAD, neuron_ioctl_model_load,
			 offsetofend(struct neuron_model_load, pad),
			 NEURON_IOCTL_WRITE | NEURON_IOCTL_UNGUARDED |
			 NEURON_IOCTL_OUT_ALWAYS),
	NEURON_IOCTL_DEF(MODEL_UNLOAD, neuron_ioctl_model_unload,
			 offsetofend(struct neuron_model_unload, flags),
			 NEURON_IOCTL_WRITE),
	NEURON_IOCTL_DEF(EXECUTE, neuron_ioctl_execute,
			 offsetofend(struct neuron_execute, pad),
			 NEURON_IOCTL_WRITE | NEURON_IOCTL_UNGUARDED),
};

static_assert(sizeof(struct neuron_query) <= NEURON_IOCTL_ARG_MAX);
static_assert(sizeof(struct neuron_mem_alloc) <= NEURON_IOCTL_ARG_MAX);
static_assert(sizeof(struct neuron_mem_free) <= NEURON_IOCTL_ARG_MAX);
static_assert(sizeof(struct neuron_copy) <= NEURON_IOCTL_ARG_MAX);
static_assert(sizeof(struct neuron_memset) <= NEURON_IOCTL_ARG_MAX);
static_assert(sizeof(struct neuron_wait) <= NEURON_IOCTL_ARG_MAX);
static_assert(sizeof(struct neuron_notify_setup) <= NEURON_IOCTL_ARG_MAX);
static_assert(sizeof(struct neuron_notify_wait) <= NEURON_IOCTL_ARG_MAX);
static_assert(sizeof(struct neuron_notify_teardown) <= NEURON_IOCTL_ARG_MAX);
static_assert(sizeof(struct neuron_nc_reserve) <= NEURON_IOCTL_ARG_MAX);
static_assert(sizeof(struct neuron_nc_sem) <= NEURON_IOCTL_ARG_MAX);
static_assert(sizeof(struct neuron_model_load) <= NEURON_IOCTL_ARG_MAX);
static_assert(sizeof(struct neuron_model_unload) <= NEURON_IOCTL_ARG_MAX);
static_assert(sizeof(struct neuron_execute) <= NEURON_IOCTL_ARG_MAX);

/**
 * neuron_ioctl_lookup() - find the table entry of an ioctl command
 * @cmd: the command as the caller encoded it.
 *
 * Return: the entry, ERR_PTR(-ENOTTY) for a command that is not ours (other
 * magic, unknown number, wrong direction), ERR_PTR(-EINVAL) for an argument
 * shorter than the first version of its structure.
 */
VISIBLE_IF_KUNIT const struct neuron_ioctl_desc *
neuron_ioctl_lookup(unsigned int cmd)
{
	const struct neuron_ioctl_desc *desc;
	unsigned int nr = _IOC_NR(cmd);

	if (_IOC_TYPE(cmd) != NEURON_IOCTL_MAGIC || nr >= ARRAY_SIZE(neuron_ioctls))
		return ERR_PTR(-ENOTTY);
	desc = &neuron_ioctls[array_index_nospec(nr, ARRAY_SIZE(neuron_ioctls))];
	if (!desc->fn || _IOC_DIR(cmd) != _IOC_DIR(desc->cmd))
		return ERR_PTR(-ENOTTY);
	if (_IOC_SIZE(cmd) < desc->min_size)
		return ERR_PTR(-EINVAL);
	return desc;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_ioctl_lookup);

static long neuron_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct neuron_file *nf = file->private_data;
	void __user *uarg = (void __user *)arg;
	const struct neuron_ioctl_desc *desc;
	u64 karg[NEURON_IOCTL_ARG_MAX / sizeof(u64)];
	unsigned int usize = _IOC_SIZE(cmd);
	unsigned int ksize;
	int idx, ret;

	desc = neuron_ioctl_lookup(cmd);
	if (IS_ERR(desc))
		return PTR_ERR(desc);
	if ((desc->flags & NEURON_IOCTL_WRITE) && !(file->f_mode & FMODE_WRITE))
		return -EBADF;

	ksize = _IOC_SIZE(desc->cmd);
	ret = copy_struct_from_user(karg, ksize, uarg, usize);
	if (ret)
		return ret;

	if (desc->flags & NEURON_IOCTL_UNGUARDED) {
		ret = neuron_dev_unplugged(nf->nd) ? -ENODEV : desc->fn(nf, karg);
	} else if (neuron_dev_enter(nf->nd, &idx)) {
		ret = desc->fn(nf, karg);
		neuron_dev_exit(nf->nd, idx);
	} else {
		ret = -ENODEV;
	}

	if ((!ret || (desc->flags & NEURON_IOCTL_OUT_ALWAYS)) &&
	    (_IOC_DIR(cmd) & _IOC_READ) &&
	    copy_to_user(uarg, karg, min(usize, ksize)))
		ret = -EFAULT;
	return ret;
}

static int neuron_open(struct inode *inode, struct file *file)
{
	struct neuron_device *nd = container_of(inode->i_cdev,
						struct neuron_device, cdev);
	struct neuron_file *nf;
	int idx;

	/*
	 * Charged to the opener's memory cgroup: with its figures by usage per
	 * NC, a file's state is about 4 KiB, and opens are bounded only by
	 * RLIMIT_NOFILE.
	 */
	nf = kzalloc(sizeof(*nf), GFP_KERNEL_ACCOUNT);
	if (!nf)
		return -ENOMEM;
	if (!neuron_dev_enter(nd, &idx)) {
		kfree(nf);
		return -ENODEV;
	}
	kref_init(&nf->ref);
	get_device(&nd->dev);
	nf->nd = nd;
	/* 2^31 opens before a key comes back: by then its file is long gone. */
	do {
		nf->key = atomic_inc_return(&nd->next_key) & NEURON_FILE_KEY_MASK;
	} while (!nf->key);
	/* The file's handles, sequence numbers and models; 0 is never one. */
	xa_init_flags(&nf->handles, XA_FLAGS_ALLOC1);
	xa_init_flags(&nf->reqs, XA_FLAGS_ALLOC1);
	xa_init_flags(&nf->models, XA_FLAGS_ALLOC1);
	file->private_data = nf;
	/* All files of the device share one mapping: removal zaps them all. */
	file->f_mapping = nd->inode->i_mapping;
	neuron_dev_exit(nd, idx);
	return 0;
}

static void neuron_file_free(struct kref *ref)
{
	struct neuron_file *nf = container_of(ref, struct neuron_file, ref);

	put_device(&nf->nd->dev);
	kfree(nf);
}

/**
 * neuron_file_put() - drop a reference on a file's structure
 * @nf: the file.
 *
 * The last one (the open file's, or that of an object that outlived it)
 * frees it. Any context that may sleep.
 */
void neuron_file_put(struct neuron_file *nf)
{
	kref_put(&nf->ref, neuron_file_free);
}

/*
 * The file's last descriptor and mapping are gone: give up its NCs, cancel
 * its work, empty its tables; what still holds the structure (memory alive
 * elsewhere, work retiring) drops it later.
 */
static int neuron_release(struct inode *inode, struct file *file)
{
	struct neuron_file *nf = file->private_data;

	neuron_nc_file_release(nf);
	neuron_exec_file_release(nf);
	neuron_file_model_release(nf);
	neuron_notify_file_release(nf);
	neuron_file_jobs_release(nf);
	neuron_file_mem_release(nf);
	neuron_file_put(nf);
	return 0;
}

const struct file_operations neuron_fops = {
	.owner = THIS_MODULE,
	.open = neuron_open,
	.release = neuron_release,
	.unlocked_ioctl = neuron_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = neuron_mmap,
};
