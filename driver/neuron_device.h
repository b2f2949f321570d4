/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: one device (neuron_device.c): its life from creation to release,
 * its removal guard, the backend resources it tracks; and the interfaces
 * that show it (sysfs, debugfs, netlink) and bind it (PCI).
 */
#ifndef _NEURON_DEVICE_H
#define _NEURON_DEVICE_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/ktime.h>
#include <linux/maple_tree.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/srcu.h>

#include <neuron.h>
#include <neuron_netlink.h>

#include "ndhal/ndhal.h"
#include "neuron_common.h"
#include "neuron_nc.h"

struct neuron_vsysfs;

/**
 * struct neuron_device - one /dev/neuronN
 * @dev: the class device; its refcount keeps this structure alive (open
 *	files and the char device hold references) and its release frees it.
 * @cdev: the char device, registered with @dev by cdev_device_add().
 * @hal: arch geometry and backend ops, chosen at probe, never changed.
 * @product: product name ("trn1", "inf2", ..., "sim").
 * @minor: minor number, index of the device.
 * @unplugged: set once when the device goes away; read by
 *	neuron_dev_enter(), written before synchronize_srcu() in
 *	neuron_device_remove().
 * @unplug_srcu: the device's removal guard (neuron_dev_enter()): removal
 *	waits for the sections in flight on this device only.
 * @pdev: the PCI device for silicon, NULL when simulated.
 * @sim_id: ID of a simulated device.
 * @dram_size: device memory in bytes, an equal share per DRAM channel.
 * @dram_base: the device address of the first byte of each DRAM channel's
 *	share (device memory's @dev_addr is on the device's own map).
 * @info: the answer of NEURON_QUERY_DEVICE, made once at creation (none of
 *	it changes).
 * @backend: private data of the backend (PCI or simulator).
 * @parent: the PCI or simulated device, referenced until the release.
 * @inode: anonymous inode whose mapping every open file uses, so that
 *	removal can zap all user mappings of the device at once.
 * @dram_lock: guards @dram.
 * @dram: allocated device memory, by page number, to its neuron_mem.
 * @offset_lock: guards @offsets. A leaf: nothing else is taken under it.
 * @offsets: mmap page offset ranges of the memory objects alive, to their
 *	neuron_mem (neuron_mmap.c).
 * @usage: memory alive on the device, all files.
 * @res_lock: guards @res_list, serialises giving resources back.
 * @res_list: backend resources held (struct neuron_hw_res): removal gives
 *	back what is still held, so that no object alive after the removal
 *	ever calls into the backend.
 * @nc: the NeuronCores (the first hal->arch->nc_count entries are used).
 * @notify: notification queues (neuron_notify.c), NULL when the device
 *	has no NEURON_CAP_NOTIFY.
 * @groups: the class device's sysfs attribute groups, NULL-terminated
 *	(neuron_sysfs.c): the device's, ecc/ when it has a firmware, and
 *	one per NC it has.
 * @debugfs: its debugfs directory (neuron_debugfs.c), or NULL.
 * @vsysfs: its tree in the vendor's sysfs layout (neuron_vsysfs.c), or
 *	NULL.
 * @next_key: the last notification key given to a file (neuron_open()).
 * @setup_task: the thread creating the device (until it is exposed) or
 *	removing it (from the start of the removal on): it may call the
 *	backend outside the removal guard (neuron_hw_assert()).
 */
struct neuron_device {
	struct device dev;
	struct cdev cdev;
	const struct ndhal *hal;
	const char *product;
	int minor;
	bool unplugged;
	struct srcu_struct unplug_srcu;
	struct pci_dev *pdev;
	u32 sim_id;
	u64 dram_size;
	u64 dram_base[NEURON_MAX_DRAM_CHANNELS];
	struct neuron_device_info info;
	void *backend;
	struct device *parent;
	struct inode *inode;
	struct mutex dram_lock;		/* guards @dram */
	struct maple_tree dram;
	struct mutex offset_lock;	/* guards @offsets */
	struct maple_tree offsets;
	struct neuron_mem_counter usage;
	struct neuron_mem_by_usage by_usage;
	struct mutex res_lock;		/* guards @res_list */
	struct list_head res_list;
	struct neuron_nc nc[NEURON_MAX_NC];
	struct neuron_notify_dev *notify;
	const struct attribute_group *groups[NEURON_MAX_NC + 3];
	struct dentry *debugfs;
	struct neuron_vsysfs *vsysfs;
	atomic_t next_key;
	struct task_struct *setup_task;
};

/**
 * struct neuron_device_desc - what a backend passes to create a device
 * @parent: the PCI or simulated device the class device hangs under.
 * @hal: arch table.
 * @product: product name.
 * @pdev: PCI device or NULL.
 * @sim_id: ID of a simulated device.
 * @dram_size: device memory in bytes, an equal share per DRAM channel.
 * @dram_base: the device address where each channel's share starts, or
 *	NULL: channel c at c times its share (a simulated device).
 * @backend: backend private data, stored in &neuron_device.backend.
 */
struct neuron_device_desc {
	struct device *parent;
	const struct ndhal *hal;
	const char *product;
	struct pci_dev *pdev;
	u32 sim_id;
	u64 dram_size;
	const u64 *dram_base;
	void *backend;
};

/* neuron_device.c */
int neuron_chrdev_init(void);
void neuron_chrdev_exit(void);
struct neuron_device *neuron_device_create(const struct neuron_device_desc *desc);
void neuron_device_remove(struct neuron_device *nd);
struct neuron_device *neuron_device_get_next(unsigned long *minor);

/*
 * The removal guard, per device (DRM's drm_dev_enter()): a section between
 * neuron_dev_enter() and neuron_dev_exit() may call into the backend, and
 * neuron_device_remove() waits for every such section of its device before
 * it tears the backend down. Never sleep inside one for an event (a wait
 * for the device, a deadline): drop the guard, sleep with a reference of
 * your own, and re-enter; removal wakes every such sleeper. The one
 * exception is a poll of the device's registers that must stay inside
 * (the PCI firmware's mailbox and resets): it sleeps in steps of 1-2 ms
 * and stops at the first neuron_dev_unplugged(), so removal, which sets
 * the flag before it waits, waits one step at most.
 */

/**
 * neuron_dev_enter() - enter the removal guard of @nd
 * @nd: the device.
 * @idx: where to keep the SRCU index for neuron_dev_exit().
 *
 * Return: true inside the guard of a device still present; false (and
 * not inside) once the device is unplugged.
 */
static inline bool neuron_dev_enter(struct neuron_device *nd, int *idx)
{
	*idx = srcu_read_lock(&nd->unplug_srcu);
	/*
	 * The guard is left and re-entered around sleeps, which sparse's
	 * context tracking cannot follow: the helpers are neutral to it
	 * (lockdep still sees the SRCU read sections).
	 */
	__release(&nd->unplug_srcu);
	if (!READ_ONCE(nd->unplugged))
		return true;
	__acquire(&nd->unplug_srcu);
	srcu_read_unlock(&nd->unplug_srcu, *idx);
	return false;
}

static inline void neuron_dev_exit(struct neuron_device *nd, int idx)
{
	__acquire(&nd->unplug_srcu);
	srcu_read_unlock(&nd->unplug_srcu, idx);
}

/* True once the device is removed (a hint outside the guard). */
static inline bool neuron_dev_unplugged(struct neuron_device *nd)
{
	return READ_ONCE(nd->unplugged);
}

/* NeuronCore @nc of @nd, @nc checked by the caller (bounded speculation). */
static inline struct neuron_nc *neuron_nc_get(struct neuron_device *nd, u32 nci)
{
	return &nd->nc[array_index_nospec(nci, nd->hal->arch->nc_count)];
}

int neuron_wait_step(ktime_t deadline, bool intr);
void neuron_hw_res_add(struct neuron_device *nd, struct neuron_hw_res *res,
		       void (*release)(struct neuron_device *nd,
				       struct neuron_hw_res *res));
void neuron_hw_res_put(struct neuron_device *nd, struct neuron_hw_res *res);

/* neuron_sysfs.c */
const struct attribute_group **neuron_sysfs_groups(struct neuron_device *nd);

/* neuron_vsysfs.c: the vendor's layout, class neuron_device */
int neuron_vsysfs_init(void);
void neuron_vsysfs_exit(void);
int neuron_vsysfs_add(struct neuron_device *nd);
void neuron_vsysfs_remove(struct neuron_device *nd);

/* neuron_debugfs.c */
void neuron_debugfs_init(void);
void neuron_debugfs_exit(void);
void neuron_debugfs_device_add(struct neuron_device *nd);
void neuron_debugfs_device_remove(struct neuron_device *nd);

/* neuron_netlink.c, built with CONFIG_NET only */
#if IS_ENABLED(CONFIG_NET)
int neuron_netlink_init(void);
void neuron_netlink_exit(void);
void neuron_nl_event(struct neuron_device *nd, u32 type, int nc, u32 code);
#else
static inline int neuron_netlink_init(void) { return 0; }
static inline void neuron_netlink_exit(void) { }
static inline void neuron_nl_event(struct neuron_device *nd, u32 type, int nc,
				   u32 code) { }
#endif

/* neuron_pci.c */
int neuron_pci_init(void);
void neuron_pci_exit(void);

#if IS_ENABLED(CONFIG_KUNIT)
int neuron_sim_parse(char *spec, char sep, const struct ndhal **hal,
		     u32 *mem_mb);
#endif

#endif /* _NEURON_DEVICE_H */
