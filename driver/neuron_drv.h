/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: internal definitions shared by the core, the PCI driver, the
 * per-arch layer (ndhal) and the simulator.
 */
#ifndef _NEURON_DRV_H
#define _NEURON_DRV_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/srcu.h>
#include <linux/types.h>

#include <neuron.h>

#include "ndhal/ndhal.h"

#define NEURON_MAX_DEVICES	64

#ifndef NEURON_DRIVER_VERSION
#define NEURON_DRIVER_VERSION	"unknown"
#endif

/**
 * struct neuron_device - one /dev/neuronN
 * @dev: the class device; its refcount keeps this structure alive (open
 *	files and the char device hold references) and its release frees it.
 * @cdev: the char device, registered with @dev by cdev_device_add().
 * @hal: arch geometry and backend ops, chosen at probe, never changed.
 * @product: product name ("trn1", "inf2", ..., "sim").
 * @minor: minor number, index of the device.
 * @unplugged: set once when the device goes away; read inside
 *	neuron_dev_enter(), written before synchronize_srcu() in
 *	neuron_device_remove().
 * @pdev: the PCI device for silicon, NULL when simulated.
 * @sim_id: ID of a simulated device.
 * @dram_size: device memory in bytes.
 * @backend: private data of the backend (PCI or simulator).
 */
struct neuron_device {
	struct device dev;
	struct cdev cdev;
	const struct ndhal *hal;
	const char *product;
	int minor;
	bool unplugged;
	struct pci_dev *pdev;
	u32 sim_id;
	u64 dram_size;
	void *backend;
};

/**
 * struct neuron_file - state of one open file of a device
 * @nd: the device; a reference is held from open to release.
 */
struct neuron_file {
	struct neuron_device *nd;
};

/**
 * struct neuron_device_desc - what a backend passes to create a device
 * @parent: the PCI or simulated device the class device hangs under.
 * @hal: arch table.
 * @product: product name.
 * @pdev: PCI device or NULL.
 * @sim_id: ID of a simulated device.
 * @dram_size: device memory in bytes.
 * @backend: backend private data, stored in &neuron_device.backend.
 */
struct neuron_device_desc {
	struct device *parent;
	const struct ndhal *hal;
	const char *product;
	struct pci_dev *pdev;
	u32 sim_id;
	u64 dram_size;
	void *backend;
};

/* neuron_device.c */
int neuron_chrdev_init(void);
void neuron_chrdev_exit(void);
struct neuron_device *neuron_device_create(const struct neuron_device_desc *desc);
void neuron_device_remove(struct neuron_device *nd);

extern struct srcu_struct neuron_unplug_srcu;

/*
 * neuron_dev_enter() - start a section that uses a device's backend; check
 * neuron_dev_unplugged() inside it. Return: the SRCU index for the exit.
 */
static inline int neuron_dev_enter(void)
	__acquires(&neuron_unplug_srcu)
{
	return srcu_read_lock(&neuron_unplug_srcu);
}

static inline void neuron_dev_exit(int idx)
	__releases(&neuron_unplug_srcu)
{
	srcu_read_unlock(&neuron_unplug_srcu, idx);
}

/* True once the device is removed; stable inside a neuron_dev_enter(). */
static inline bool neuron_dev_unplugged(struct neuron_device *nd)
{
	return READ_ONCE(nd->unplugged);
}

/* neuron_cdev.c */
extern const struct file_operations neuron_fops;

/* The ioctl needs CAP_SYS_ADMIN. */
#define NEURON_IOCTL_ADMIN	BIT(0)
/* Room for the largest ioctl argument structure. */
#define NEURON_IOCTL_ARG_MAX	128

/**
 * struct neuron_ioctl_desc - one ioctl of the dispatch table
 * @cmd: the command with the size of the current argument structure.
 * @min_size: size of the first version of the argument structure.
 * @flags: NEURON_IOCTL_* flags.
 * @fn: handler; gets the argument in kernel memory.
 */
struct neuron_ioctl_desc {
	unsigned int cmd;
	unsigned int min_size;
	unsigned int flags;
	int (*fn)(struct neuron_file *nf, void *arg);
};

/*
 * Internal functions with no other user than the KUnit suites
 * (driver/tests/): static unless CONFIG_KUNIT, see <kunit/visibility.h>.
 */
#if IS_ENABLED(CONFIG_KUNIT)
const struct neuron_ioctl_desc *neuron_ioctl_lookup(unsigned int cmd);
int neuron_query_check(const struct neuron_query *q);
void neuron_query_device(struct neuron_device *nd,
			 struct neuron_device_info *info);
int neuron_sim_parse(char *spec, char sep, const struct ndhal **hal,
		     u32 *mem_mb);
#endif

/* neuron_query.c */
int neuron_ioctl_query(struct neuron_file *nf, void *arg);

/* neuron_pci.c */
int neuron_pci_init(void);
void neuron_pci_exit(void);

/* sim/sim.c */
int neuron_sim_init(void);
void neuron_sim_exit(void);

#endif /* _NEURON_DRV_H */
