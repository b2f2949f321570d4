/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: internal definitions shared by the core, the PCI driver, the
 * per-arch layer (ndhal) and the simulator.
 */
#ifndef _NEURON_DRV_H
#define _NEURON_DRV_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/kref.h>
#include <linux/maple_tree.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/srcu.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include <neuron.h>

#define NEURON_MAX_DEVICES	64
/* Largest NeuronCore count of any arch: sizes per-NC arrays. */
#define NEURON_MAX_NC		8

#include "ndhal/ndhal.h"

struct neuron_dma_queue;
struct neuron_notify_dev;

/*
 * mmap offsets, in pages (neuron_mmap.c): below NEURON_MMAP_MEM_START (128
 * MiB) the notification rings' (dma/neuron_notify.h); from there to
 * NEURON_MMAP_PGOFF_MAX one range per memory object, given by the device's
 * offset allocator. The last page offset fits in 32 bits: what mmap2() of a
 * 32-bit program passes.
 */
#define NEURON_MMAP_MEM_START	(SZ_128M >> PAGE_SHIFT)
#define NEURON_MMAP_PGOFF_MAX	((unsigned long)U32_MAX)
/*
 * Largest memory object: above the memory of any device (trn2: 96 GiB) and
 * 1/16 of the offset space, so that offsets never run out before memory.
 */
#define NEURON_MEM_MAX_SIZE	SZ_1T
/* Handles are __u32; 0 is never one (COPY's "user pointer"). */
#define NEURON_MAX_HANDLE	U32_MAX

/**
 * struct neuron_mem_counter - memory in use, in bytes
 * @device: device memory.
 * @host: host memory.
 */
struct neuron_mem_counter {
	atomic64_t device;
	atomic64_t host;
};

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
 * @nc_usage: the same per NeuronCore.
 * @dma_lock: guards the creation of @dma_queue entries.
 * @dma_queue: the driver's DMA queue of each NeuronCore, made on first use.
 * @notify: notification queues (dma/neuron_notify.c), NULL when the device
 *	has no NEURON_CAP_NOTIFY.
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
	struct neuron_device_info info;
	void *backend;
	struct device *parent;
	struct inode *inode;
	struct mutex dram_lock;		/* guards @dram */
	struct maple_tree dram;
	struct mutex offset_lock;	/* guards @offsets */
	struct maple_tree offsets;
	struct neuron_mem_counter usage;
	struct neuron_mem_counter nc_usage[NEURON_MAX_NC];
	struct mutex dma_lock;		/* guards @dma_queue creation */
	struct neuron_dma_queue *dma_queue[NEURON_MAX_NC];
	struct neuron_notify_dev *notify;
};

/**
 * struct neuron_file - state of one open file of a device
 * @nd: the device; a reference is held from open to release.
 * @handles: handle -> struct neuron_mem; each entry holds a reference.
 * @nhandles: entries in @handles.
 * @usage: memory of the file's live handles.
 * @reqs: sequence number -> struct neuron_dma_req of asynchronous calls
 *	not yet collected by WAIT; each entry holds a reference.
 * @next_seqno: cursor of the cyclic sequence number allocation.
 * @nreqs: entries in @reqs.
 */
struct neuron_file {
	struct neuron_device *nd;
	struct xarray handles;
	atomic64_t nhandles;
	struct neuron_mem_counter usage;
	struct xarray reqs;
	u32 next_seqno;
	atomic_t nreqs;
};

/**
 * struct neuron_mem - a memory object (host or device memory)
 * @ref: references: the owning file's handle, each mapping, each user of
 *	the object in flight. The last put frees the memory.
 * @nd: the device; a reference is held for the object's life.
 * @kind: NEURON_MEM_HOST or NEURON_MEM_DEVICE.
 * @nc: NeuronCore the memory is charged to.
 * @channel: DRAM channel of device memory.
 * @size: bytes, a multiple of PAGE_SIZE.
 * @dev_addr: device memory: its address on the device.
 * @iova: host memory: its address for the device (ndhal_ops.dma_map).
 * @npages: entries in @pages.
 * @pages: the backing pages (device memory of the simulator: its pages).
 * @handle: the handle in the owning file, 0 until it has one; never
 *	changes after. Read by mmap under &neuron_device.offset_lock.
 * @mmap_pgoff: first mmap page offset of the object, 0 while it has none;
 *	held from allocation to the last reference.
 */
struct neuron_mem {
	struct kref ref;
	struct neuron_device *nd;
	u32 kind;
	u32 nc;
	u32 channel;
	u64 size;
	u64 dev_addr;
	u64 iova;
	unsigned long npages;
	struct page **pages;
	u32 handle;
	unsigned long mmap_pgoff;
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
int neuron_sim_parse(char *spec, char sep, const struct ndhal **hal,
		     u32 *mem_mb);
int neuron_mem_check(const struct neuron_mem_alloc *a,
		     const struct ndhal_arch *arch);
int neuron_copy_check(const struct neuron_copy *c);
int neuron_dram_place(struct neuron_device *nd, struct neuron_mem *mem,
		      u32 channel, unsigned long align);
void neuron_dram_unplace(struct neuron_device *nd, struct neuron_mem *mem);
struct neuron_mem *neuron_mmap_offset_find(struct neuron_device *nd,
					   unsigned long pgoff, u32 *handle);
#endif

/* neuron_query.c */
void neuron_query_device(struct neuron_device *nd,
			 struct neuron_device_info *info);
int neuron_ioctl_query(struct neuron_file *nf, void *arg);

/* neuron_mem.c */
void neuron_file_mem_init(struct neuron_file *nf);
void neuron_file_mem_release(struct neuron_file *nf);
void neuron_device_mem_init(struct neuron_device *nd);
void neuron_device_mem_fini(struct neuron_device *nd);
int neuron_ioctl_mem_alloc(struct neuron_file *nf, void *arg);
int neuron_ioctl_mem_free(struct neuron_file *nf, void *arg);
struct neuron_mem *neuron_mem_lookup(struct neuron_file *nf, u32 handle);
void neuron_mem_put(struct neuron_mem *mem);
struct page **neuron_pages_alloc(unsigned long npages);
void neuron_pages_free(struct page **pages, unsigned long npages);

/* neuron_copy.c */
int neuron_ioctl_copy(struct neuron_file *nf, void *arg);
int neuron_ioctl_memset(struct neuron_file *nf, void *arg);
int neuron_ioctl_wait(struct neuron_file *nf, void *arg);
void neuron_file_copy_init(struct neuron_file *nf);
void neuron_file_copy_release(struct neuron_file *nf);

/* dma/neuron_notify.c */
int neuron_notify_device_init(struct neuron_device *nd);
void neuron_notify_device_fini(struct neuron_device *nd);
void neuron_notify_unplug(struct neuron_device *nd);
void neuron_notify_file_release(struct neuron_file *nf);
int neuron_notify_mmap(struct file *file, struct vm_area_struct *vma);
int neuron_ioctl_notify_setup(struct neuron_file *nf, void *arg);
int neuron_ioctl_notify_wait(struct neuron_file *nf, void *arg);
int neuron_ioctl_notify_teardown(struct neuron_file *nf, void *arg);

/* neuron_mmap.c */
int neuron_device_inode_init(struct neuron_device *nd);
void neuron_device_inode_fini(struct neuron_device *nd);
void neuron_device_zap_mappings(struct neuron_device *nd);
int neuron_mmap_offset_alloc(struct neuron_device *nd, struct neuron_mem *mem);
void neuron_mmap_offset_free(struct neuron_device *nd, struct neuron_mem *mem);
int neuron_mmap(struct file *file, struct vm_area_struct *vma);
vm_fault_t neuron_vm_fault_page(struct vm_fault *vmf, struct neuron_device *nd,
				struct page **pages, unsigned long npages,
				unsigned long i);
void neuron_vma_setup(struct vm_area_struct *vma, vm_flags_t clear,
		      const struct vm_operations_struct *ops, void *priv);

/* neuron_pci.c */
int neuron_pci_init(void);
void neuron_pci_exit(void);

/* sim/sim.c */
int neuron_sim_init(void);
void neuron_sim_exit(void);

#endif /* _NEURON_DRV_H */
