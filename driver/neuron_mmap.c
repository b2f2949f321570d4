// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: mmap() of memory objects.
 *
 * The offset of an object is its handle << NEURON_MMAP_SHIFT (a fake
 * offset, as DRM does), looked up among the calling file's handles only.
 * A mapping must be shared and not executable, may cover the whole object
 * or a page range of it, and holds a reference on the object, so freeing
 * the handle does not free mapped memory. Pages are inserted on fault.
 *
 * Every open file of a device uses the mapping of one anonymous inode of
 * the device (nd->inode), so removing the device zaps all user mappings at
 * once; a later fault sees the device unplugged and raises SIGBUS, never
 * touching freed memory (the object's pages live until the mapping goes).
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/pseudo_fs.h>

#include "neuron_compat.h"
#include "neuron_drv.h"

#define NEURON_FS_MAGIC		0x6e65726e	/* "nern" */
#define NEURON_MMAP_PGSHIFT	(NEURON_MMAP_SHIFT - PAGE_SHIFT)
#define NEURON_MMAP_PGMASK	((1UL << NEURON_MMAP_PGSHIFT) - 1)

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
				    vmf->pgoff & NEURON_MMAP_PGMASK);
}

static const struct vm_operations_struct neuron_vm_ops = {
	.open = neuron_vm_open,
	.close = neuron_vm_close,
	.fault = neuron_vm_fault,
};

int neuron_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct neuron_file *nf = file->private_data;
	unsigned long handle = vma->vm_pgoff >> NEURON_MMAP_PGSHIFT;
	unsigned long first = vma->vm_pgoff & NEURON_MMAP_PGMASK;
	unsigned long count = vma_pages(vma);
	struct neuron_mem *mem = NULL;
	int idx, ret = 0;

	/* Handle 0's offsets are the notification queues' (read-only). */
	if (!handle)
		return neuron_notify_mmap(file, vma);
	/* VM_MAYSHARE: MAP_SHARED, also on a file opened read-only. */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;

	if (!neuron_dev_enter(nf->nd, &idx))
		return -ENODEV;
	if (handle <= NEURON_MAX_HANDLE)
		mem = neuron_mem_lookup(nf, handle);
	neuron_dev_exit(nf->nd, idx);
	if (ret)
		return ret;
	if (!mem)
		return -EINVAL;
	if (first >= mem->npages || count > mem->npages - first) {
		neuron_mem_put(mem);
		return -EINVAL;
	}

	/* The reference taken by the lookup now belongs to the mapping. */
	neuron_vma_setup(vma, 0, &neuron_vm_ops, mem);
	return 0;
}
