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
#include <linux/ktime.h>
#include <linux/maple_tree.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/rwsem.h>
#include <linux/sizes.h>
#include <linux/srcu.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include <neuron.h>
#include <neuron_netlink.h>

#include "neuron_compat.h"

#define NEURON_MAX_DEVICES	64
/* Largest NeuronCore count of any arch: sizes per-NC arrays. */
#define NEURON_MAX_NC		8

#include "ndhal/ndhal.h"

struct neuron_dma_queue;
struct neuron_notify_dev;
struct neuron_notify_queue;
struct neuron_exec_queue;

/**
 * struct neuron_pin_charge - pages charged to a process's pinned memory
 * @mm: the address space whose pinned_vm (VmPin) holds the charge, with a
 *	reference (mmgrab) so that the uncharge works after the process
 *	exited; NULL when nothing is charged.
 * @pages: pages charged to @mm.
 *
 * Memory that userspace makes the driver hold and that cannot be swapped
 * (host memory objects, notification rings, user pages pinned by an
 * asynchronous copy) is charged by neuron_pin_charge() and returned by
 * neuron_pin_uncharge() when it is really freed.
 */
struct neuron_pin_charge {
	struct mm_struct *mm;
	unsigned long pages;
};

/*
 * Per-file limits (module parameters, root-tunable in
 * /sys/module/neuron/parameters/, docs/uapi.md "Per-file limits"); 0 means
 * no limit.
 */
extern unsigned int neuron_max_handles;
extern unsigned long long neuron_max_mem_bytes;
extern unsigned int neuron_max_notify_queues;
extern unsigned int neuron_max_async;

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
 * struct neuron_hw_res - something the backend holds for the driver (device
 *	memory, an IOMMU mapping) until the driver gives it back
 * @node: entry in the device's list while held, empty once given back.
 * @release: gives it back; called once, with the device's res_lock held,
 *	at the resource's last use or at the device's removal, whichever
 *	comes first (neuron_hw_res_put(), neuron_hw_res_revoke_all()).
 */
struct neuron_hw_res {
	struct list_head node;
	void (*release)(struct neuron_device *nd, struct neuron_hw_res *res);
};

/**
 * struct neuron_mem_counter - memory in use, in bytes
 * @device: device memory.
 * @host: host memory.
 */
struct neuron_mem_counter {
	atomic64_t device;
	atomic64_t host;
};

/**
 * struct neuron_nc - one NeuronCore of a device
 * @nd: the device (not a reference: the NC lives inside it).
 * @index: its number on the device.
 * @hold: who may act on the NC (neuron_nc_enter()): a call that does work
 *	on the NC holds it for reading from its ownership check to the
 *	commit of its work; NC_RESERVE, NC_RELEASE and a file's release
 *	change the owner holding it for writing. Taken before every other
 *	lock of the driver.
 * @lock: guards @state, @owner, @owner_pid, @owner_uid and the creation
 *	of @dma; taken before the DMA queue's submit_lock (docs/locking.md).
 * @state: NEURON_NC_* of uapi/neuron.h (free, reserved, running,
 *	resetting, failed).
 * @owner: the file that reserved the NC, NULL while none (neuron_nc.c);
 *	written under @hold (for writing) and @lock; stable for a holder of
 *	@hold; otherwise read only as a hint (READ_ONCE).
 * @owner_pid: the thread group that reserved it (a reference), or NULL.
 * @owner_uid: the reserver's effective uid.
 * @dma: the driver's DMA queue of this NC, made on first use; once set it
 *	stays until the device is released (removal only stops it).
 * @notify: the NC's notification queues (NEURON_NOTIFY_TYPES of them), or
 *	NULL when the device has no NEURON_CAP_NOTIFY.
 * @exec: the NC's execution queue (neuron_exec.c), made on first use;
 *	stays until the device is released.
 * @event_gen: bumped before @event_wait is woken (neuron_nc_wake()).
 * @event_wait: the threads waiting for something of the NC (NC_SEM WAIT,
 *	the end of an execution, a notification); woken by neuron_nc_wake()
 *	when a semaphore or event, the owner, a job or a notification queue
 *	of the NC changes, and by removal.
 * @usage: memory alive that is charged to this NC.
 * @jobs: DMA jobs submitted to this NC.
 * @jobs_failed: DMA jobs that completed with an error.
 * @resets: resets of this NC (DMA errors and hangs, execution timeouts).
 * @models: models loaded for this NC (handles alive).
 * @executions: executions that ended (however they ended).
 * @exec_errors: executions that did not end NEURON_EXEC_OK.
 * @busy_ns: time the NC's core spent executing.
 */
struct neuron_nc {
	struct neuron_device *nd;
	u32 index;
	struct rw_semaphore hold;	/* see above */
	struct mutex lock;		/* guards @state, @dma creation */
	u32 state;
	struct neuron_file *owner;
	struct pid *owner_pid;
	kuid_t owner_uid;
	struct neuron_dma_queue *dma;
	struct neuron_notify_queue *notify;
	struct neuron_exec_queue *exec;
	atomic_t event_gen;
	wait_queue_head_t event_wait;
	struct neuron_mem_counter usage;
	atomic64_t jobs;
	atomic64_t jobs_failed;
	atomic64_t resets;
	atomic_t models;
	atomic64_t executions;
	atomic64_t exec_errors;
	atomic64_t busy_ns;
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
 * @unplugged: set once when the device goes away; read by
 *	neuron_dev_enter(), written before synchronize_srcu() in
 *	neuron_device_remove().
 * @unplug_srcu: the device's removal guard (neuron_dev_enter()): removal
 *	waits for the sections in flight on this device only.
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
 * @res_lock: guards @res_list, serialises giving resources back.
 * @res_list: backend resources held (struct neuron_hw_res): removal gives
 *	back what is still held, so that no object alive after the removal
 *	ever calls into the backend.
 * @nc: the NeuronCores (the first hal->arch->nc_count entries are used).
 * @notify: notification queues (dma/neuron_notify.c), NULL when the device
 *	has no NEURON_CAP_NOTIFY.
 * @groups: the class device's sysfs attribute groups, NULL-terminated
 *	(neuron_sysfs.c): the device's and one per NC it has.
 * @debugfs: its debugfs directory (neuron_debugfs.c), or NULL.
 * @next_key: the last notification key given to a file (neuron_open()).
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
	struct neuron_device_info info;
	void *backend;
	struct device *parent;
	struct inode *inode;
	struct mutex dram_lock;		/* guards @dram */
	struct maple_tree dram;
	struct mutex offset_lock;	/* guards @offsets */
	struct maple_tree offsets;
	struct neuron_mem_counter usage;
	struct mutex res_lock;		/* guards @res_list */
	struct list_head res_list;
	struct neuron_nc nc[NEURON_MAX_NC];
	struct neuron_notify_dev *notify;
	const struct attribute_group *groups[NEURON_MAX_NC + 2];
	struct dentry *debugfs;
	atomic_t next_key;
};

/**
 * struct neuron_file - state of one open file of a device
 * @ref: references: the open file's, and one per object that outlives it
 *	and must still find it: a memory object or model charged to it (its
 *	counters), a job it submitted (its identity for cancelling). The
 *	file's tables are emptied at its release; the structure goes with
 *	the last reference, so its address is never another file's while
 *	anything still names it.
 * @nd: the device; a reference is held until the last reference goes.
 * @handles: handle -> struct neuron_mem; each entry holds a reference.
 * @nhandles: entries in @handles.
 * @usage: memory the file allocated that is still alive: charged at
 *	allocation, returned when the memory is freed (its handle gone and
 *	no mapping, transfer or execution using it), within the per-file
 *	limits.
 * @reqs: sequence number -> struct neuron_job of asynchronous calls
 *	not yet collected by WAIT; each entry holds a reference.
 * @next_seqno: cursor of the cyclic sequence number allocation.
 * @nreqs: entries in @reqs.
 * @nqueues: notification queues the file owns; under the device's
 *	notification lock (dma/neuron_notify.c).
 * @key: the file's notification key, unique on the device (never 0): its
 *	DMA work is tagged with it, and its notification queues report only
 *	work with its key (struct neuron_udma_desc).
 * @models: handle -> struct neuron_model loaded by the file (neuron_model.c);
 *	each entry holds a reference.
 */
struct neuron_file {
	struct kref ref;
	struct neuron_device *nd;
	struct xarray handles;
	atomic64_t nhandles;
	struct neuron_mem_counter usage;
	struct xarray reqs;
	u32 next_seqno;
	atomic_t nreqs;
	unsigned int nqueues;
	u32 key;
	struct xarray models;
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
 * @pages: the backing pages (device memory of the simulator: its pages,
 *	given back with @res).
 * @res: the backend's part: the device memory, or the host memory's
 *	mapping for the device.
 * @charge: host memory: its charge to the allocating process's pinned
 *	memory, returned when the memory is freed.
 * @owner: the file whose limits the memory is charged to (a reference),
 *	or NULL for the driver's own memory; @size returns to its counters
 *	when the memory is freed.
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
	struct neuron_hw_res res;
	struct neuron_pin_charge charge;
	struct neuron_file *owner;
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
struct neuron_device *neuron_device_get_next(unsigned long *minor);

/*
 * The removal guard, per device (DRM's drm_dev_enter()): a section between
 * neuron_dev_enter() and neuron_dev_exit() may call into the backend, and
 * neuron_device_remove() waits for every such section of its device before
 * it tears the backend down. Never sleep inside one for an event (a wait
 * for the device, a deadline): drop the guard, sleep with a reference of
 * your own, and re-enter; removal wakes every such sleeper.
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

static inline void neuron_nc_set_state(struct neuron_nc *nc, u32 state)
{
	mutex_lock(&nc->lock);
	nc->state = state;
	mutex_unlock(&nc->lock);
}

/* NeuronCore @nc of @nd, @nc checked by the caller (bounded speculation). */
static inline struct neuron_nc *neuron_nc_get(struct neuron_device *nd, u32 nc)
{
	return &nd->nc[array_index_nospec(nc, nd->hal->arch->nc_count)];
}

int neuron_wait_step(ktime_t deadline, bool intr);
void neuron_hw_res_add(struct neuron_device *nd, struct neuron_hw_res *res,
		       void (*release)(struct neuron_device *nd,
				       struct neuron_hw_res *res));
void neuron_hw_res_put(struct neuron_device *nd, struct neuron_hw_res *res);

/* neuron_cdev.c */
void neuron_file_put(struct neuron_file *nf);

static inline struct neuron_file *neuron_file_get(struct neuron_file *nf)
{
	kref_get(&nf->ref);
	return nf;
}

/* neuron_nc.c */

int neuron_nc_enter(struct neuron_file *nf, u64 mask, u64 mine);
void neuron_nc_exit(struct neuron_file *nf, u64 mask);
void neuron_nc_file_release(struct neuron_file *nf);
int neuron_ioctl_nc_reserve(struct neuron_file *nf, void *arg);
int neuron_ioctl_nc_release(struct neuron_file *nf, void *arg);
int neuron_ioctl_nc_sem(struct neuron_file *nf, void *arg);
void neuron_nc_unplug(struct neuron_device *nd);
void neuron_nc_sem_changed(struct neuron_device *nd, u32 nc);
void neuron_nc_sem_clear(struct neuron_device *nd, u32 nci);
int neuron_query_nc_state(struct neuron_file *nf, struct neuron_query *q);
void neuron_nc_reset_done(struct neuron_nc *nc, bool ok);
void neuron_nc_set_running(struct neuron_nc *nc, bool running);
bool neuron_nc_owner_visible(struct neuron_nc *nc);
pid_t neuron_nc_owner_pid_locked(struct neuron_nc *nc);
void neuron_nc_wake(struct neuron_nc *nc);

/* neuron_cdev.c */
extern const struct file_operations neuron_fops;

/* The ioctl needs a file opened for writing (FMODE_WRITE), else -EBADF. */
#define NEURON_IOCTL_WRITE	BIT(0)
/*
 * The handler manages the removal guard itself (it sleeps): the
 * dispatcher does not enter it around the call.
 */
#define NEURON_IOCTL_UNGUARDED	BIT(1)
/*
 * The Out fields are copied back even when the handler fails (it sets
 * them for that case too).
 */
#define NEURON_IOCTL_OUT_ALWAYS	BIT(2)
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
int neuron_query_answer(struct neuron_query *q, const void *answer, u32 len);
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
struct neuron_mem *neuron_mem_new(struct neuron_device *nd,
				  struct neuron_file *owner, u32 kind, u32 nc,
				  u32 channel, u64 align, u64 size);
int neuron_file_handle_get(struct neuron_file *nf);
void neuron_file_handle_put(struct neuron_file *nf);
void neuron_dram_channel_usage(struct neuron_device *nd, u64 *used, u32 n);
void neuron_mem_put(struct neuron_mem *mem);
struct page **neuron_pages_alloc(unsigned long npages);
void neuron_pages_free(struct page **pages, unsigned long npages);
int neuron_pin_charge(struct neuron_pin_charge *charge, unsigned long npages);
void neuron_pin_uncharge(struct neuron_pin_charge *charge);

/* neuron_copy.c */
int neuron_ioctl_copy(struct neuron_file *nf, void *arg);
int neuron_ioctl_memset(struct neuron_file *nf, void *arg);
int neuron_ioctl_wait(struct neuron_file *nf, void *arg);
void neuron_file_copy_init(struct neuron_file *nf);
void neuron_file_copy_release(struct neuron_file *nf);
int neuron_copy_mem(struct neuron_mem *src, u64 soff, struct neuron_mem *dst,
		    u64 doff, u64 len);
struct neuron_job;
int neuron_async_reserve(struct neuron_file *nf, u64 *seqno);
void neuron_async_unreserve(struct neuron_file *nf, u64 seqno);
void neuron_async_publish(struct neuron_file *nf, u64 seqno,
			  struct neuron_job *job);
bool neuron_async_remove(struct neuron_file *nf, u64 seqno,
			 struct neuron_job *job);

/* dma/neuron_notify.c */
int neuron_notify_device_init(struct neuron_device *nd);
void neuron_notify_device_fini(struct neuron_device *nd);
void neuron_notify_unplug(struct neuron_device *nd);
void neuron_notify_file_release(struct neuron_file *nf);
void neuron_notify_nc_revoke_locked(struct neuron_device *nd, u32 nc,
				    struct neuron_file *keep);
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

/* neuron_sysfs.c */
const struct attribute_group **neuron_sysfs_groups(struct neuron_device *nd);

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

#endif /* _NEURON_DRV_H */
