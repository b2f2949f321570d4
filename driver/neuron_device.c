// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: device lifecycle. A neuron_device is created by a backend (PCI or
 * simulator), exposed as /dev/neuronN, and removed by the same backend.
 *
 * Lifetime: the class device's refcount owns the structure. The char device
 * holds a reference while registered, every open file and every memory
 * object holds one, so a removed device stays readable (but unplugged)
 * until its last user is gone; it holds its parent (the PCI or simulated
 * device) as long.
 *
 * Unplug: every call into the backend runs between neuron_dev_enter() and
 * neuron_dev_exit(), a read section of the device's own SRCU, and none
 * starts once the device is unplugged. neuron_device_remove() sets
 * @unplugged, wakes every sleeper of the device (none sleeps inside the
 * guard, so this only speeds them up) and waits for the sections in flight
 * with synchronize_srcu() on this device only: the removal of one device
 * never waits for another's waiters. After that the engines are stopped,
 * pending jobs fail with -ENODEV and the backend is torn down; the queues'
 * memory stays until the device's release.
 */
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/hrtimer.h>
#include <linux/kdev_t.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/srcu.h>

#include "neuron_common.h"
#include "neuron_nc.h"
#include "neuron_device.h"
#include "neuron_mem.h"
#include "neuron_ioctl.h"
#include "neuron_exec.h"
#include "neuron_notify.h"
#include "neuron_hw.h"
#include "neuron_compat.h"
#include "dma/neuron_dma.h"
#include "ndhal/ndhal.h"

static DEFINE_IDA(neuron_minor_ida);
/*
 * The devices by minor, for the netlink family (neuron_netlink.c): an
 * entry from just before /dev/neuronN appears to the end of the removal;
 * it holds no reference (the backend's is held all that time). Readers
 * take theirs under the xarray's lock (neuron_device_get_next()).
 */
static DEFINE_XARRAY(neuron_devices);
static dev_t neuron_devt;

static struct class neuron_class = {
	.name = "neuron",
};

static void neuron_device_release(struct device *dev)
{
	struct neuron_device *nd = container_of(dev, struct neuron_device, dev);
	int i;

	if (nd->inode)
		neuron_device_inode_fini(nd);
	neuron_exec_release(nd);
	neuron_dma_release(nd);
	neuron_notify_device_fini(nd);
	neuron_device_mem_fini(nd);
	for (i = 0; i < NEURON_MAX_NC; i++)
		mutex_destroy(&nd->nc[i].lock);
	mutex_destroy(&nd->res_lock);
	cleanup_srcu_struct(&nd->unplug_srcu);
	ida_free(&neuron_minor_ida, nd->minor);
	put_device(nd->parent);
	kfree(nd);
}

/**
 * neuron_wait_step() - one round of a wait with an absolute deadline
 * @deadline: CLOCK_MONOTONIC, KTIME_MAX for none.
 * @intr: stop on any signal (-ERESTARTSYS: deadlines are absolute, so a
 *	restarted call waits no longer), else only on a fatal one (-EINTR).
 *
 * The caller set its task state (TASK_INTERRUPTIBLE or TASK_KILLABLE) and
 * found its condition false; whoever makes it true wakes the task.
 * Return: 0 after a sleep (check the condition again), -ERESTARTSYS,
 * -EINTR or -ETIME.
 */
int neuron_wait_step(ktime_t deadline, bool intr)
{
	if (intr ? signal_pending(current) : fatal_signal_pending(current))
		return intr ? -ERESTARTSYS : -EINTR;
	if (ktime_compare(ktime_get(), deadline) >= 0)
		return -ETIME;
	schedule_hrtimeout_range(&deadline, current->timer_slack_ns,
				 HRTIMER_MODE_ABS);
	return 0;
}

/**
 * neuron_hw_res_add() - record a resource the backend now holds for @nd
 * @nd: the device.
 * @res: the resource.
 * @release: how to give it back (called once, see struct neuron_hw_res).
 *
 * Called inside the removal guard, right after the backend made it.
 */
void neuron_hw_res_add(struct neuron_device *nd, struct neuron_hw_res *res,
		       void (*release)(struct neuron_device *nd,
				       struct neuron_hw_res *res))
{
	res->release = release;
	mutex_lock(&nd->res_lock);
	list_add_tail(&res->node, &nd->res_list);
	mutex_unlock(&nd->res_lock);
}

/*
 * Give @res back at its last use, unless the device's removal already did.
 * Any context that may sleep, inside the guard or not.
 */
void neuron_hw_res_put(struct neuron_device *nd, struct neuron_hw_res *res)
{
	mutex_lock(&nd->res_lock);
	if (!list_empty(&res->node)) {
		res->release(nd, res);
		list_del_init(&res->node);
	}
	mutex_unlock(&nd->res_lock);
}

/* Removal: give back everything still held, before the backend goes. */
static void neuron_hw_res_revoke_all(struct neuron_device *nd)
{
	struct neuron_hw_res *res, *tmp;

	mutex_lock(&nd->res_lock);
	list_for_each_entry_safe(res, tmp, &nd->res_list, node) {
		res->release(nd, res);
		list_del_init(&res->node);
	}
	mutex_unlock(&nd->res_lock);
}

/*
 * Every op that a capability of @hal needs is there: checked once here, so
 * that no caller tests for them.
 */
static int neuron_hal_check(const struct ndhal *hal)
{
	const struct ndhal_ops *ops = hal->ops;

	if ((hal->caps & NEURON_CAP_MEM) &&
	    (!ops->dram_alloc || !ops->dram_free || !ops->dma_map || !ops->dma_unmap))
		return -EINVAL;
	if ((hal->caps & NEURON_CAP_COPY) &&
	    (!(hal->caps & NEURON_CAP_MEM) || !ops->coherent_alloc ||
	     !ops->coherent_free || !ops->dma_desc || !ops->dma_queue_start ||
	     !ops->dma_queue_kick || !ops->dma_queue_stop))
		return -EINVAL;
	/* An engine that reports does so by interrupt. */
	if ((hal->caps & NEURON_CAP_COPY) && !ops->dma_marker &&
	    (!ops->irq_request || !ops->irq_free || !ops->irq_sync))
		return -EINVAL;
	if ((hal->caps & NEURON_CAP_SEM) && !ops->sem_update)
		return -EINVAL;
	/* A model's device memory is not cleared by MEM_ALLOC's memset. */
	if ((hal->caps & NEURON_CAP_EXEC) &&
	    (!ops->exec_start || !ops->exec_reset || !ops->coherent_alloc ||
	     !ops->irq_request || !(hal->caps & NEURON_CAP_COPY) ||
	     ops->dram_uncleared))
		return -EINVAL;
	if (hal->arch->dram_channels > NEURON_MAX_DRAM_CHANNELS)
		return -EINVAL;
	if ((hal->caps & NEURON_CAP_NOTIFY) &&
	    (!ops->notify_init || !ops->notify_fini || !ops->dma_map ||
	     (ops->notify_polled && (!ops->dma_map_block || !ops->dma_unmap_block)) ||
	     (!ops->notify_polled && (!ops->notify_consume || !ops->irq_request))))
		return -EINVAL;
	return 0;
}

/**
 * neuron_device_create() - create and expose a device
 * @desc: what the backend knows of it.
 *
 * Runs the backend's init, then registers /dev/neuronN. Return: the device,
 * or an ERR_PTR (-ENOSPC when all minors are taken).
 */
struct neuron_device *neuron_device_create(const struct neuron_device_desc *desc)
{
	struct neuron_device *nd;
	int i, minor, ret;

	if (WARN_ON(neuron_hal_check(desc->hal)))
		return ERR_PTR(-EINVAL);
	minor = ida_alloc_max(&neuron_minor_ida, NEURON_MAX_DEVICES - 1, GFP_KERNEL);
	if (minor < 0)
		return ERR_PTR(minor);

	nd = kzalloc(sizeof(*nd), GFP_KERNEL);
	if (!nd) {
		ida_free(&neuron_minor_ida, minor);
		return ERR_PTR(-ENOMEM);
	}
	ret = init_srcu_struct(&nd->unplug_srcu);
	if (ret) {
		kfree(nd);
		ida_free(&neuron_minor_ida, minor);
		return ERR_PTR(ret);
	}
	nd->setup_task = current;
	nd->minor = minor;
	nd->hal = desc->hal;
	nd->product = desc->product;
	nd->pdev = desc->pdev;
	nd->sim_id = desc->sim_id;
	nd->dram_size = desc->dram_size;
	for (i = 0; i < desc->hal->arch->dram_channels; i++)
		nd->dram_base[i] = desc->dram_base ? desc->dram_base[i] :
				   i * div_u64(desc->dram_size, desc->hal->arch->dram_channels);
	nd->backend = desc->backend;
	neuron_query_device(nd, &nd->info);
	neuron_device_mem_init(nd);
	mutex_init(&nd->res_lock);
	INIT_LIST_HEAD(&nd->res_list);
	for (i = 0; i < NEURON_MAX_NC; i++) {
		nd->nc[i].nd = nd;
		nd->nc[i].index = i;
		init_rwsem(&nd->nc[i].hold);
		mutex_init(&nd->nc[i].lock);
		init_waitqueue_head(&nd->nc[i].event_wait);
	}

	/* From here on, put_device() frees nd and its minor. */
	device_initialize(&nd->dev);
	nd->dev.class = &neuron_class;
	nd->dev.parent = desc->parent;
	/*
	 * The backend's device (its IOMMU, its DRAM) must outlive every
	 * memory object: device_del() drops the class device's reference on
	 * its parent, so hold one of our own until the release.
	 */
	nd->parent = get_device(desc->parent);
	nd->dev.devt = MKDEV(MAJOR(neuron_devt), minor);
	nd->dev.release = neuron_device_release;
	dev_set_drvdata(&nd->dev, nd);
	nd->dev.groups = neuron_sysfs_groups(nd);
	ret = dev_set_name(&nd->dev, "neuron%d", minor);
	if (ret)
		goto err_put;
	ret = neuron_device_inode_init(nd);
	if (ret)
		goto err_put;
	ret = neuron_notify_device_init(nd);
	if (ret)
		goto err_put;

	ret = neuron_hw_init(nd);
	if (ret)
		goto err_put;

	ret = xa_insert(&neuron_devices, minor, nd, GFP_KERNEL);
	if (ret)
		goto err_fini;
	cdev_init(&nd->cdev, &neuron_fops);
	nd->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&nd->cdev, &nd->dev);
	if (ret) {
		xa_erase(&neuron_devices, minor);
		goto err_fini;
	}
	/* Not fatal: the vendor's layout is an addition to ours. */
	ret = neuron_vsysfs_add(nd);
	if (ret)
		dev_warn(&nd->dev, "no neuron_device sysfs tree: %d\n", ret);
	neuron_nl_event(nd, NEURON_EVENT_DEV_ADDED, -1, 0);

	neuron_debugfs_device_add(nd);
	dev_info(&nd->dev, "%s %s device (%s backend)\n", nd->product,
		 nd->hal->arch->name, neuron_hw_name(nd));
	WRITE_ONCE(nd->setup_task, NULL);
	return nd;

err_fini:
	neuron_hw_fini(nd);
err_put:
	put_device(&nd->dev);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_NS_GPL(neuron_device_create, NEURON_NS);

/**
 * neuron_device_remove() - unplug and unregister a device
 * @nd: device made by neuron_device_create().
 *
 * Waits for the ioctls and faults in flight, zaps every user mapping (a
 * later access gets SIGBUS), removes /dev/neuronN, stops the engines,
 * gives back every resource the backend still holds for live objects (their
 * later release calls nothing in the backend), tears the backend down and
 * drops the backend's reference. Open files keep the structure alive and
 * get -ENODEV from then on.
 */
void neuron_device_remove(struct neuron_device *nd)
{
	WRITE_ONCE(nd->setup_task, current);
	/*
	 * Unplugged first: removing the vendor's sysfs tree and debugfs waits
	 * for their readers, and a reader asking the firmware stops at once
	 * when it sees the flag (neuron_hw_fw_info()) instead of waiting out
	 * its attempts.
	 */
	WRITE_ONCE(nd->unplugged, true);
	neuron_vsysfs_remove(nd);
	neuron_debugfs_device_remove(nd);
	neuron_nc_unplug(nd);
	neuron_notify_unplug(nd);
	synchronize_srcu(&nd->unplug_srcu);
	neuron_device_zap_mappings(nd);
	cdev_device_del(&nd->cdev, &nd->dev);
	neuron_exec_unplug(nd);
	neuron_dma_unplug(nd);
	neuron_hw_res_revoke_all(nd);
	neuron_hw_fini(nd);
	xa_erase(&neuron_devices, nd->minor);
	neuron_nl_event(nd, NEURON_EVENT_DEV_REMOVED, -1, 0);
	put_device(&nd->dev);
}
EXPORT_SYMBOL_NS_GPL(neuron_device_remove, NEURON_NS);

/**
 * neuron_device_get_next() - the first device from a minor on
 * @minor: the minor to start from; set to the device's.
 *
 * Return: the device of the lowest minor >= *@minor, with a reference
 * (put_device() it), or NULL when there is none. A device being removed
 * is found until the end of its removal (see neuron_dev_unplugged()).
 */
struct neuron_device *neuron_device_get_next(unsigned long *minor)
{
	struct neuron_device *nd;

	xa_lock(&neuron_devices);
	nd = xa_find(&neuron_devices, minor, ULONG_MAX, XA_PRESENT);
	if (nd)
		get_device(&nd->dev);
	xa_unlock(&neuron_devices);
	return nd;
}

int neuron_chrdev_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&neuron_devt, 0, NEURON_MAX_DEVICES, "neuron");
	if (ret)
		return ret;
	ret = class_register(&neuron_class);
	if (ret)
		goto err_region;
	ret = neuron_vsysfs_init();
	if (ret)
		goto err_class;
	return 0;

err_class:
	class_unregister(&neuron_class);
err_region:
	unregister_chrdev_region(neuron_devt, NEURON_MAX_DEVICES);
	return ret;
}

void neuron_chrdev_exit(void)
{
	neuron_vsysfs_exit();
	class_unregister(&neuron_class);
	unregister_chrdev_region(neuron_devt, NEURON_MAX_DEVICES);
}
