/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: memory objects (neuron_mem.c): host and device memory a file
 * allocates, reference counted, charged to its file, its NC and its
 * process; their mmap offsets and mappings (neuron_mmap.c).
 */
#ifndef _NEURON_MEM_H
#define _NEURON_MEM_H

#include <linux/kref.h>
#include <linux/mm_types.h>

#include "neuron_common.h"

/**
 * struct neuron_mem - a memory object (host or device memory)
 * @ref: references: the owning file's handle, each mapping, each user of
 *	the object in flight. The last put frees the memory.
 * @nd: the device; a reference is held for the object's life.
 * @kind: NEURON_MEM_HOST or NEURON_MEM_DEVICE.
 * @nc: NeuronCore the memory is charged to.
 * @channel: DRAM channel of device memory.
 * @usage: NEURON_MEM_USAGE_*, what the owner said it is for.
 * @size: bytes, a multiple of PAGE_SIZE.
 * @dev_addr: device memory: its address on the device.
 * @dma: host memory: the device address of each page (ndhal_ops.dma_map),
 *	@npages entries; NULL while not mapped.
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
	u32 usage;
	u64 size;
	u64 dev_addr;
	u64 *dma;
	unsigned long npages;
	struct page **pages;
	struct neuron_hw_res res;
	struct neuron_pin_charge charge;
	struct neuron_file *owner;
	u32 handle;
	unsigned long mmap_pgoff;
};

void neuron_file_mem_release(struct neuron_file *nf);
void neuron_device_mem_init(struct neuron_device *nd);
void neuron_device_mem_fini(struct neuron_device *nd);
struct neuron_mem *neuron_mem_lookup(struct neuron_file *nf, u32 handle);
struct neuron_mem *neuron_mem_new(struct neuron_device *nd,
				  struct neuron_file *owner, u32 kind, u32 usage,
				  u32 nci, u32 channel, u64 align, u64 size);
int neuron_file_handle_get(struct neuron_file *nf);
void neuron_file_handle_put(struct neuron_file *nf);
void neuron_dram_channel_usage(struct neuron_device *nd, u64 *used, u32 n);
void neuron_mem_put(struct neuron_mem *mem);
struct page **neuron_pages_alloc(unsigned long npages);
struct page **neuron_pages_alloc_block(unsigned long npages, unsigned long first);
void neuron_pages_free(struct page **pages, unsigned long npages);
int neuron_pin_charge(struct neuron_pin_charge *charge, unsigned long npages);
int neuron_pages_dma_map(struct neuron_device *nd, struct page **pages,
			 unsigned long npages, u64 **addrs);
void neuron_pages_dma_unmap(struct neuron_device *nd, unsigned long npages,
			    u64 **addrs);
bool neuron_dma_contiguous(const u64 *addrs, unsigned long npages);
void neuron_pin_uncharge(struct neuron_pin_charge *charge);

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

/*
 * Internal functions with no other user than the KUnit suites
 * (driver/tests/): static unless CONFIG_KUNIT, see <kunit/visibility.h>.
 */
#if IS_ENABLED(CONFIG_KUNIT)
int neuron_mem_check(const struct neuron_mem_alloc *a,
		     const struct ndhal_arch *arch);
int neuron_dram_place(struct neuron_device *nd, struct neuron_mem *mem,
		      u32 channel, unsigned long align);
void neuron_dram_unplace(struct neuron_device *nd, struct neuron_mem *mem);
struct neuron_mem *neuron_mmap_offset_find(struct neuron_device *nd,
					   unsigned long pgoff, u32 *handle);
#endif

#endif /* _NEURON_MEM_H */
