// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: mmap() of memory objects.
 *
 * Offsets are fake (as DRM's): each memory object gets a range of page
 * offsets of its size from the device's allocator (nd->offsets, a maple
 * tree under nd->offset_lock, lowest free range first) when it is
 * allocated, and gives it back with its last reference, so a range is never
 * reused while a mapping of it lives. Ranges lie between
 * NEURON_MMAP_MEM_START (below: the notification rings) and
 * NEURON_MMAP_PGOFF_MAX, the largest page offset of a 32-bit mmap2().
 *
 * mmap() finds the object at the offset, then looks its handle up among
 * the calling file's handles: another file's object, or one whose handle
 * was freed, is refused as an unknown offset. A mapping must be shared and
 * not executable, may cover the whole object or a page range of it, and
 * holds a reference on the object, so freeing the handle does not free
 * mapped memory. Pages are inserted on fault.
 *
 * nd->offset_lock is a leaf, taken under mmap_lock (mmap, vm_close) and
 * around nothing but the tree: never across a user copy, a fault or
 * another lock.
 *
 * Every open file of a device uses the mapping of one anonymous inode of
 * the device (nd->inode), so removing the device zaps all user mappings at
 * once; a later fault sees the device unplugged and raises SIGBUS, never
 * touching freed memory (the object's pages live until the mapping goes).
 */
#include <linux/fs.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/pseudo_fs.h>
#include <kunit/visibility.h>

#include "neuron_common.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_mem.h"
#include "neuron_notify.h"
#include "neuron_hw.h"
#include "neuron_compat.h"

#define NEURON_FS_MAGIC		0x6e65726e	/* "nern" */

static struct vfsmount *neuron_mnt;
static int neuron_mnt_count;

static int neuron_fs_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, NEURON_FS_MAGIC) ? 0 : -ENOMEM;
}

/*
 * No .owner: the mount pinned while any device exists would then hold a
 * reference on this module and forbid rmmod. The mount never outlives the
 * module: a device's inode (and so the mount) is released with the device,
 * and open files and mappings keep the module loaded through neuron_fops.
 */
static struct file_system_type neuron_fs_type = {
	.name = "neuron",
	.init_fs_context = neuron_fs_init_fs_context,
	.kill_sb = kill_anon_super,
};

int neuron_device_inode_init(struct neuron_device *nd)
{
	struct inode *inode;
	int ret;

	ret = simple_pin_fs(&neuron_fs_type, &neuron_mnt, &neuron_mnt_count);
	if (ret)
		return ret;
	inode = alloc_anon_inode(neuron_mnt->mnt_sb);
	if (IS_ERR(inode)) {
		simple_release_fs(&neuron_mnt, &neuron_mnt_count);
		return PTR_ERR(inode);
	}
	nd->inode = inode;
	return 0;
}

void neuron_device_inode_fini(struct neuron_device *nd)
{
	iput(nd->inode);
	simple_release_fs(&neuron_mnt, &neuron_mnt_count);
}

void neuron_device_zap_mappings(struct neuron_device *nd)
{
	unmap_mapping_range(nd->inode->i_mapping, 0, 0, 1);
}

/**
 * neuron_mmap_offset_alloc() - give @mem its range of mmap page offsets
 * @nd: the device.
 * @mem: the object; @mem->npages set, @mem->mmap_pgoff 0.
 *
 * Return: 0 with @mem->mmap_pgoff set, -ENOSPC when the offset space has
 * no free range of @mem's size, -ENOMEM.
 */
int neuron_mmap_offset_alloc(struct neuron_device *nd, struct neuron_mem *mem)
{
	MA_STATE(mas, &nd->offsets, 0, 0);
	int ret;

	mutex_lock(&nd->offset_lock);
	ret = mas_empty_area(&mas, NEURON_MMAP_MEM_START, NEURON_MMAP_PGOFF_MAX,
			     mem->npages);
	/* 6.1's search of an empty tree does not check the size: do it here. */
	if (!ret && mem->npages - 1 > NEURON_MMAP_PGOFF_MAX - mas.index)
		ret = -EBUSY;
	if (!ret) {
		mas_set_range(&mas, mas.index, mas.index + mem->npages - 1);
		ret = mas_store_gfp(&mas, mem, GFP_KERNEL_ACCOUNT);
		if (!ret)
			mem->mmap_pgoff = mas.index;
	}
	mutex_unlock(&nd->offset_lock);
	return ret == -EBUSY ? -ENOSPC : ret;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_mmap_offset_alloc);

/* Give @mem's range back (its last reference is gone); no-op without one. */
void neuron_mmap_offset_free(struct neuron_device *nd, struct neuron_mem *mem)
{
	MA_STATE(mas, &nd->offsets, mem->mmap_pgoff, mem->mmap_pgoff);

	if (!mem->mmap_pgoff)
		return;
	mutex_lock(&nd->offset_lock);
	mas_erase(&mas);
	mutex_unlock(&nd->offset_lock);
	mem->mmap_pgoff = 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_mmap_offset_free);

/**
 * neuron_mmap_offset_find() - the object whose range holds a page offset
 * @nd: the device.
 * @pgoff: the page offset.
 * @handle: the object's handle (0: none yet), read under the lock.
 *
 * Return: the object, or NULL. No reference is taken: the pointer may only
 * be compared once the lock is dropped, and @handle is what callers use.
 */
VISIBLE_IF_KUNIT struct neuron_mem *
neuron_mmap_offset_find(struct neuron_device *nd, unsigned long pgoff, u32 *handle)
{
	MA_STATE(mas, &nd->offsets, pgoff, pgoff);
	struct neuron_mem *mem;

	mutex_lock(&nd->offset_lock);
	mem = mas_walk(&mas);
	*handle = mem ? READ_ONCE(mem->handle) : 0;
	mutex_unlock(&nd->offset_lock);
	return mem;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_mmap_offset_find);

/*
 * The calling file's live object whose range holds @pgoff, with a
 * reference, or NULL. The handle found under the lock is looked up among
 * the file's handles, and the object found there must own @pgoff: a
 * reference keeps its range reserved, so this also rules out an object
 * freed (and its memory reused) since the lock was dropped.
 */
static struct neuron_mem *neuron_mmap_lookup(struct neuron_file *nf,
					     unsigned long pgoff)
{
	struct neuron_mem *mem;
	u32 handle;

	neuron_mmap_offset_find(nf->nd, pgoff, &handle);
	if (!handle)
		return NULL;
	mem = neuron_mem_lookup(nf, handle);
	if (mem && (pgoff < mem->mmap_pgoff || pgoff - mem->mmap_pgoff >= mem->npages)) {
		neuron_mem_put(mem);
		mem = NULL;
	}
	return mem;
}

static void neuron_vm_open(struct vm_area_struct *vma)
{
	struct neuron_mem *mem = vma->vm_private_data;

	kref_get(&mem->ref);
}

static void neuron_vm_close(struct vm_area_struct *vma)
{
	neuron_mem_put(vma->vm_private_data);
}

/**
 * neuron_vm_fault_page() - answer a fault with page @i of @pages
 * @vmf: the fault.
 * @nd: the device the pages belong to.
 * @pages: the mapped pages (kept alive by the mapping's reference).
 * @npages: entries in @pages.
 * @i: the page asked for.
 *
 * Return: VM_FAULT_NOPAGE with the page mapped, VM_FAULT_OOM, or
 * VM_FAULT_SIGBUS once the device is unplugged or past the end: never
 * freed memory.
 */
vm_fault_t neuron_vm_fault_page(struct vm_fault *vmf, struct neuron_device *nd,
				struct page **pages, unsigned long npages,
				unsigned long i)
{
	vm_fault_t ret = VM_FAULT_SIGBUS;
	int idx;

	/*
	 * The page is installed inside the guard: removal's zap, which runs
	 * after every guard section ended, cannot miss it.
	 */
	if (!neuron_dev_enter(nd, &idx))
		return VM_FAULT_SIGBUS;
	if (i < npages)
		ret = vmf_insert_page(vmf->vma, vmf->address, pages[i]);
	neuron_dev_exit(nd, idx);
	return ret;
}

/*
 * Finish a mapping the caller checked: @priv (whose reference now belongs
 * to the mapping) and @ops; never executable, never widened by mremap, not
 * in core dumps; @clear drops more VM_MAY* rights.
 */
void neuron_vma_setup(struct vm_area_struct *vma, vm_flags_t clear,
		      const struct vm_operations_struct *ops, void *priv)
{
	vm_flags_clear(vma, VM_MAYEXEC | clear);
	/* VM_MIXEDMAP: faults insert the pages themselves (vm_insert_page). */
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_MIXEDMAP);
	vma->vm_private_data = priv;
	vma->vm_ops = ops;
}

static vm_fault_t neuron_vm_fault(struct vm_fault *vmf)
{
	struct neuron_mem *mem = vmf->vma->vm_private_data;

	return neuron_vm_fault_page(vmf, mem->nd, mem->pages, mem->npages,
				    vmf->pgoff - mem->mmap_pgoff);
}

static const struct vm_operations_struct neuron_vm_ops = {
	.open = neuron_vm_open,
	.close = neuron_vm_close,
	.fault = neuron_vm_fault,
};

/*
 * Device memory without pages (a BAR, ndhal_ops.dram_pfn): the backend's
 * page frame, inserted inside the guard as for pages.
 */
static vm_fault_t neuron_vm_fault_pfn(struct vm_fault *vmf)
{
	struct neuron_mem *mem = vmf->vma->vm_private_data;
	unsigned long i = vmf->pgoff - mem->mmap_pgoff, pfn;
	vm_fault_t ret = VM_FAULT_SIGBUS;
	int idx;

	if (!neuron_dev_enter(mem->nd, &idx))
		return VM_FAULT_SIGBUS;
	pfn = i < mem->npages ? neuron_hw_dram_pfn(mem->nd, mem, i) : 0;
	if (pfn)
		ret = vmf_insert_pfn(vmf->vma, vmf->address, pfn);
	neuron_dev_exit(mem->nd, idx);
	return ret;
}

static const struct vm_operations_struct neuron_vm_pfn_ops = {
	.open = neuron_vm_open,
	.close = neuron_vm_close,
	.fault = neuron_vm_fault_pfn,
};

int neuron_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct neuron_file *nf = file->private_data;
	unsigned long count = vma_pages(vma), first;
	struct neuron_mem *mem;
	int idx;

	/* The low offsets are the notification queues' (read-only). */
	if (vma->vm_pgoff < NEURON_MMAP_MEM_START)
		return neuron_notify_mmap(file, vma);
	/* VM_MAYSHARE: MAP_SHARED, also on a file opened read-only. */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;

	if (!neuron_dev_enter(nf->nd, &idx))
		return -ENODEV;
	mem = neuron_mmap_lookup(nf, vma->vm_pgoff);
	neuron_dev_exit(nf->nd, idx);
	if (!mem)
		return -EINVAL;
	first = vma->vm_pgoff - mem->mmap_pgoff;
	if (count > mem->npages - first) {
		neuron_mem_put(mem);
		return -EINVAL;
	}

	/* The reference taken by the lookup now belongs to the mapping. */
	if (mem->kind == NEURON_MEM_DEVICE && neuron_hw_dram_is_bar(nf->nd)) {
		/* A BAR: page frames without struct pages, write-combined. */
		vm_flags_clear(vma, VM_MAYEXEC);
		vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
		vma->vm_page_prot = pgprot_writecombine(vma->vm_page_prot);
		vma->vm_private_data = mem;
		vma->vm_ops = &neuron_vm_pfn_ops;
		return 0;
	}
	neuron_vma_setup(vma, 0, &neuron_vm_ops, mem);
	return 0;
}
