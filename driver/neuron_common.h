/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: what every part of the driver shares: the sizes of things, the
 * small structures embedded in several objects (memory counters, pinned
 * memory charges, backend resources), the per-file limits.
 */
#ifndef _NEURON_COMMON_H
#define _NEURON_COMMON_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/list.h>
#include <linux/sizes.h>
#include <linux/types.h>

#include <neuron.h>

#include "neuron_compat.h"

#define NEURON_MAX_DEVICES	64
/* Largest NeuronCore count of any arch: sizes per-NC arrays. */
#define NEURON_MAX_NC		8
/* Largest DRAM channel count of any arch. */
#define NEURON_MAX_DRAM_CHANNELS	4

#ifndef NEURON_DRIVER_VERSION
#define NEURON_DRIVER_VERSION	"unknown"
#endif

struct mm_struct;
struct neuron_device;
struct neuron_dma_queue;
struct neuron_exec_queue;
struct neuron_file;
struct neuron_job;
struct neuron_mem;
struct neuron_nc;
struct neuron_notify_dev;
struct neuron_notify_queue;

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
 * MiB) the notification rings' (neuron_notify.h); from there to
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
 * struct neuron_mem_by_usage - memory by usage: of one file on one NC, of
 *	an NC (every file's and the driver's), of a device
 * @now: bytes alive, [0] host and [1] device memory, by NEURON_MEM_USAGE_*.
 * @peak: the highest of each @now since the file was opened (of an NC or
 *	a device: since the vendor's sysfs cleared it, neuron_vsysfs.c).
 * @allocated: bytes allocated of each, ever (they only grow).
 * @total: bytes alive of all usages, host and device.
 * @total_peak: the highest of each @total.
 * @total_allocated: bytes allocated of all usages, ever.
 *
 * Charged when the memory is made and returned when it is freed
 * (neuron_mem.c); read without a lock, so the figures may be a moment
 * apart. A peak is raised after its figure grows: a reader may see the
 * figure above the peak for that moment.
 */
struct neuron_mem_by_usage {
	atomic64_t now[2][NEURON_MEM_USAGE_COUNT];
	atomic64_t peak[2][NEURON_MEM_USAGE_COUNT];
	atomic64_t allocated[2][NEURON_MEM_USAGE_COUNT];
	atomic64_t total[2];
	atomic64_t total_peak[2];
	atomic64_t total_allocated[2];
};

#endif /* _NEURON_COMMON_H */
