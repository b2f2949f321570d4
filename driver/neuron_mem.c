// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: memory objects. A file allocates host or device memory and gets
 * a handle that only it can use; the object is reference counted (handle,
 * mappings, users in flight) and freed with its last reference. Memory is
 * zeroed before anyone can see it.
 *
 * Device memory is placed in the device's address space by a maple tree of
 * allocated page ranges (nd->dram, under nd->dram_lock); each DRAM channel
 * is an equal slice of that space. The backend provides the memory behind
 * an address range (ndhal_ops.dram_alloc): the simulator's own pages.
 *
 * Accounting: the device's counters and the allocating file's follow
 * memory alive (charged at allocation, returned with the last reference,
 * wherever it was: a mapping, a transfer, an execution); the file's bytes
 * are bounded by neuron_max_mem_bytes, its handles (memory objects and
 * models) by neuron_max_handles. The object holds a reference on the
 * file's structure for that (struct neuron_file.ref). Host memory cannot be swapped: its pages are
 * charged to the allocating process's memory cgroup (__GFP_ACCOUNT) and to
 * its pinned memory (neuron_pin_charge(), within RLIMIT_MEMLOCK) until
 * they are freed with the last reference, wherever that reference was
 * (a mapping in another process, a transfer in flight).
 */
#include <linux/align.h>
#include <linux/log2.h>
#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "neuron_common.h"
#include "neuron_nc.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_mem.h"
#include "neuron_ioctl.h"
#include "neuron_copy.h"
#include "neuron_hw.h"
#include "neuron_compat.h"
#include "ndhal/ndhal.h"

/*
 * User-sized allocations (memory objects, models, rings) may fail: the
 * caller gets -ENOMEM and can retry smaller, as with a GPU buffer. No OOM
 * killer runs for them, in the system or in the caller's memory cgroup
 * (__GFP_RETRY_MAYFAIL), and a fatal signal stops a long one.
 */
#define NEURON_GFP_USER	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/**
 * neuron_pages_alloc() - @npages zeroed pages for a user's object
 * @npages: how many.
 *
 * Charged to the caller's memory cgroup; never invokes the OOM killer.
 * Return: the array of pages (free with neuron_pages_free()), or NULL.
 */
struct page **neuron_pages_alloc(unsigned long npages)
{
	struct page **pages;
	unsigned long i;

	pages = kvcalloc(npages, sizeof(*pages), NEURON_GFP_USER);
	if (!pages)
		return NULL;
	for (i = 0; i < npages; i++) {
		pages[i] = alloc_page(NEURON_GFP_USER | __GFP_ZERO);
		if (!pages[i] || fatal_signal_pending(current)) {
			neuron_pages_free(pages, pages[i] ? i + 1 : i);
			return NULL;
		}
		if (!(i % 1024))
			cond_resched();
	}
	return pages;
}
EXPORT_SYMBOL_NS_GPL(neuron_pages_alloc, NEURON_NS);

/**
 * neuron_pages_alloc_block() - neuron_pages_alloc(), from page @first on contiguous
 * @npages: how many.
 * @first: pages before the block; the @npages - @first others, a power of
 *	two, are physically contiguous (one block, split into single pages).
 *
 * Return: the array of pages (free with neuron_pages_free()), or NULL.
 */
struct page **neuron_pages_alloc_block(unsigned long npages, unsigned long first)
{
	unsigned int order = ilog2(npages - first);
	struct page **pages, *block;
	unsigned long i;

	if (WARN_ON_ONCE(first >= npages || !is_power_of_2(npages - first)))
		return NULL;
	pages = kvcalloc(npages, sizeof(*pages), NEURON_GFP_USER);
	if (!pages)
		return NULL;
	block = alloc_pages(NEURON_GFP_USER | __GFP_ZERO, order);
	if (!block) {
		kvfree(pages);
		return NULL;
	}
	split_page(block, order);
	for (i = first; i < npages; i++)
		pages[i] = block + (i - first);
	for (i = 0; i < first; i++) {
		pages[i] = alloc_page(NEURON_GFP_USER | __GFP_ZERO);
		if (!pages[i])
			break;
	}
	if (i < first) {
		while (i--)
			__free_page(pages[i]);
		for (i = first; i < npages; i++)
			__free_page(pages[i]);
		kvfree(pages);
		return NULL;
	}
	return pages;
}

/**
 * neuron_pages_dma_map() - map host pages for the device
 * @nd: the device.
 * @pages: the pages.
 * @npages: how many.
 * @addrs: gets an array of the device address of each page (charged to
 *	the caller's memory cgroup), for neuron_pages_dma_unmap().
 *
 * Called where the backend may be called (neuron_hw.h). Return: 0,
 * -ENOMEM or the backend's error (nothing is mapped then).
 */
int neuron_pages_dma_map(struct neuron_device *nd, struct page **pages,
			 unsigned long npages, u64 **addrs)
{
	u64 *a = kvmalloc_array(npages, sizeof(*a), GFP_KERNEL_ACCOUNT);
	int ret;

	if (!a)
		return -ENOMEM;
	ret = neuron_hw_dma_map(nd, pages, npages, a);
	if (ret) {
		kvfree(a);
		return ret;
	}
	*addrs = a;
	return 0;
}

/* Undo neuron_pages_dma_map() (nothing if *@addrs is NULL). */
void neuron_pages_dma_unmap(struct neuron_device *nd, unsigned long npages,
			    u64 **addrs)
{
	if (!*addrs)
		return;
	neuron_hw_dma_unmap(nd, npages, *addrs);
	kvfree(*addrs);
	*addrs = NULL;
}

/* Do the @npages pages at @addrs form one range for the device? */
bool neuron_dma_contiguous(const u64 *addrs, unsigned long npages)
{
	unsigned long i;

	for (i = 1; i < npages; i++)
		if (addrs[i] != addrs[0] + i * PAGE_SIZE)
			return false;
	return true;
}

void neuron_pages_free(struct page **pages, unsigned long npages)
{
	unsigned long i;

	for (i = 0; i < npages; i++)
		__free_page(pages[i]);
	kvfree(pages);
}
EXPORT_SYMBOL_NS_GPL(neuron_pages_free, NEURON_NS);

/**
 * neuron_pin_charge() - charge pages to the calling process's pinned memory
 * @charge: an empty charge (@charge->mm NULL), filled on success.
 * @npages: pages the driver holds for the caller and cannot swap.
 *
 * Adds @npages to the pinned_vm of the caller's mm (VmPin in
 * /proc/PID/status), which may not pass RLIMIT_MEMLOCK unless the caller
 * has CAP_IPC_LOCK (the rule of RDMA memory registrations). The mm is
 * grabbed (mmgrab(), not its address space): neuron_pin_uncharge() works
 * from any process context, also after the process exited. A caller
 * without an mm (kernel thread) is charged nothing.
 *
 * Return: 0, or -ENOMEM past RLIMIT_MEMLOCK.
 */
int neuron_pin_charge(struct neuron_pin_charge *charge, unsigned long npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct mm_struct *mm = current->mm;

	if (!mm || !npages)
		return 0;
	if (atomic64_add_return(npages, &mm->pinned_vm) > limit &&
	    !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	mmgrab(mm);
	charge->mm = mm;
	charge->pages = npages;
	return 0;
}

/**
 * neuron_pin_uncharge() - return what neuron_pin_charge() charged
 * @charge: the charge; empty afterwards (a second call does nothing).
 *
 * Call it when the pages are really freed. Process context.
 */
void neuron_pin_uncharge(struct neuron_pin_charge *charge)
{
	if (!charge->mm)
		return;
	atomic64_sub(charge->pages, &charge->mm->pinned_vm);
	mmdrop(charge->mm);
	charge->mm = NULL;
	charge->pages = 0;
}

static void neuron_counter_add(struct neuron_mem_counter *c, u32 kind, s64 bytes)
{
	atomic64_add(bytes, kind == NEURON_MEM_DEVICE ? &c->device : &c->host);
}

/* Raise @peak to @v if it is below. */
static void neuron_peak_raise(atomic64_t *peak, s64 v)
{
	s64 old = atomic64_read(peak);

	while (v > old && !atomic64_try_cmpxchg(peak, &old, v))
		;
}

/* @bytes (< 0: returned) of @mem's kind and usage in @u. */
static void neuron_by_usage_add(struct neuron_mem_by_usage *u,
				const struct neuron_mem *mem, s64 bytes)
{
	u32 k = mem->kind == NEURON_MEM_DEVICE;

	neuron_peak_raise(&u->peak[k][mem->usage],
			  atomic64_add_return(bytes, &u->now[k][mem->usage]));
	neuron_peak_raise(&u->total_peak[k],
			  atomic64_add_return(bytes, &u->total[k]));
	if (bytes > 0) {
		atomic64_add(bytes, &u->allocated[k][mem->usage]);
		atomic64_add(bytes, &u->total_allocated[k]);
	}
}

/*
 * @mem's bytes (@sign 1) or their return (-1) in the figures by usage of
 * its device, its NC and its owner on that NC.
 */
static void neuron_mem_by_usage_add(struct neuron_mem *mem, s64 sign)
{
	s64 bytes = sign * (s64)mem->size;

	neuron_by_usage_add(&mem->nd->by_usage, mem, bytes);
	neuron_by_usage_add(&mem->nd->nc[mem->nc].by_usage, mem, bytes);
	if (mem->owner)
		neuron_by_usage_add(&mem->owner->by_usage[mem->nc], mem, bytes);
}

void neuron_device_mem_init(struct neuron_device *nd)
{
	mutex_init(&nd->dram_lock);
	mt_init_flags(&nd->dram, MT_FLAGS_ALLOC_RANGE | MT_FLAGS_LOCK_EXTERN);
	mt_set_external_lock(&nd->dram, &nd->dram_lock);
	mutex_init(&nd->offset_lock);
	mt_init_flags(&nd->offsets, MT_FLAGS_ALLOC_RANGE | MT_FLAGS_LOCK_EXTERN);
	mt_set_external_lock(&nd->offsets, &nd->offset_lock);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_device_mem_init);

/* Called from the device's release: every memory object is gone. */
void neuron_device_mem_fini(struct neuron_device *nd)
{
	mutex_lock(&nd->dram_lock);
	__mt_destroy(&nd->dram);
	mutex_unlock(&nd->dram_lock);
	mutex_destroy(&nd->dram_lock);
	mutex_lock(&nd->offset_lock);
	__mt_destroy(&nd->offsets);
	mutex_unlock(&nd->offset_lock);
	mutex_destroy(&nd->offset_lock);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_device_mem_fini);

/*
 * Find room for @mem in @channel at a multiple of @align pages: the lowest
 * free range of the right size from each aligned candidate on; a free
 * range that starts unaligned moves the candidate up to the next multiple.
 */
VISIBLE_IF_KUNIT int neuron_dram_place(struct neuron_device *nd,
				       struct neuron_mem *mem, u32 channel,
				       unsigned long align)
{
	MA_STATE(mas, &nd->dram, 0, 0);
	unsigned long ch_pages = div_u64(nd->dram_size, nd->hal->arch->dram_channels)
				 >> PAGE_SHIFT;
	unsigned long lo = channel * ch_pages, hi = lo + ch_pages - 1;
	unsigned long start = ALIGN(lo, align);
	int ret = -ENOMEM;

	mutex_lock(&nd->dram_lock);
	while (start >= lo && start <= hi && hi - start + 1 >= mem->npages) {
		mas_reset(&mas);
		if (mas_empty_area(&mas, start, hi, mem->npages))
			break;
		if (!IS_ALIGNED(mas.index, align)) {
			start = ALIGN(mas.index, align);
			continue;
		}
		mas_set_range(&mas, mas.index, mas.index + mem->npages - 1);
		ret = mas_store_gfp(&mas, mem, GFP_KERNEL);
		if (!ret) {
			mem->dev_addr = nd->dram_base[channel] +
					((u64)(mas.index - lo) << PAGE_SHIFT);
			mem->channel = channel;
		}
		break;
	}
	mutex_unlock(&nd->dram_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_dram_place);

VISIBLE_IF_KUNIT void neuron_dram_unplace(struct neuron_device *nd,
					  struct neuron_mem *mem)
{
	unsigned long ch_pages = div_u64(nd->dram_size, nd->hal->arch->dram_channels)
				 >> PAGE_SHIFT;
	unsigned long first = mem->channel * ch_pages +
			      ((mem->dev_addr - nd->dram_base[mem->channel]) >> PAGE_SHIFT);
	MA_STATE(mas, &nd->dram, first, first);

	mutex_lock(&nd->dram_lock);
	mas_erase(&mas);
	mutex_unlock(&nd->dram_lock);
}
EXPORT_SYMBOL_IF_KUNIT(neuron_dram_unplace);

/**
 * neuron_dram_channel_usage() - device memory placed in each DRAM channel
 * @nd: the device.
 * @used: gets the bytes placed in channels 0 to @n - 1.
 * @n: channels to count, at most the arch's.
 *
 * Sums the ranges of the placement tree (what neuron_dram_place() put
 * there) under dram_lock; a range lies in one channel.
 */
void neuron_dram_channel_usage(struct neuron_device *nd, u64 *used, u32 n)
{
	unsigned long ch_pages = div_u64(nd->dram_size, nd->hal->arch->dram_channels)
				 >> PAGE_SHIFT;
	MA_STATE(mas, &nd->dram, 0, 0);
	unsigned long ch;
	void *entry;

	memset(used, 0, n * sizeof(*used));
	if (!ch_pages)
		return;
	mutex_lock(&nd->dram_lock);
	mas_for_each(&mas, entry, ULONG_MAX) {
		ch = mas.index / ch_pages;
		if (ch < n)
			used[ch] += (u64)(mas.last - mas.index + 1) << PAGE_SHIFT;
	}
	mutex_unlock(&nd->dram_lock);
}

/* Give the backend's part of @mem back (struct neuron_hw_res). */
static void neuron_mem_res_release(struct neuron_device *nd,
				   struct neuron_hw_res *res)
{
	struct neuron_mem *mem = container_of(res, struct neuron_mem, res);

	if (mem->kind == NEURON_MEM_DEVICE) {
		neuron_hw_dram_free(nd, mem);
		/* The backend's pages went with it: a fault now only SIGBUSes. */
		mem->pages = NULL;
	} else {
		neuron_pages_dma_unmap(nd, mem->npages, &mem->dma);
	}
}

/*
 * Place device memory: in @channel, or with NEURON_MEM_CHANNEL_ANY in the
 * channel nearest the NeuronCore first, then in the others in turn.
 */
static int neuron_dram_alloc(struct neuron_device *nd, struct neuron_mem *mem,
			     u32 channel, u64 align)
{
	u32 channels = nd->hal->arch->dram_channels;
	unsigned long align_pages = align ? align >> PAGE_SHIFT : 1;
	u32 first, i;
	int ret = -ENOMEM;

	if (channel != NEURON_MEM_CHANNEL_ANY) {
		ret = neuron_dram_place(nd, mem, channel, align_pages);
	} else {
		first = mem->nc * channels / nd->hal->arch->nc_count;
		for (i = 0; i < channels && ret == -ENOMEM; i++)
			ret = neuron_dram_place(nd, mem, (first + i) % channels,
						align_pages);
	}
	if (ret)
		return ret;
	ret = neuron_hw_dram_alloc(nd, mem);
	if (ret) {
		neuron_dram_unplace(nd, mem);
		return ret;
	}
	neuron_hw_res_add(nd, &mem->res, neuron_mem_res_release);
	return 0;
}

/*
 * Host memory: zeroed pages, charged to the caller (memcg, pinned_vm)
 * before any is allocated, mapped for the device when it does DMA.
 */
static int neuron_host_alloc(struct neuron_device *nd, struct neuron_mem *mem)
{
	int ret;

	if (mem->npages > totalram_pages())
		return -ENOMEM;
	ret = neuron_pin_charge(&mem->charge, mem->npages);
	if (ret)
		return ret;
	ret = -ENOMEM;
	mem->pages = neuron_pages_alloc(mem->npages);
	if (!mem->pages)
		goto err_uncharge;
	ret = neuron_pages_dma_map(nd, mem->pages, mem->npages, &mem->dma);
	if (ret) {
		neuron_pages_free(mem->pages, mem->npages);
		goto err_uncharge;
	}
	neuron_hw_res_add(nd, &mem->res, neuron_mem_res_release);
	return 0;

err_uncharge:
	neuron_pin_uncharge(&mem->charge);
	return ret;
}

/*
 * Charge @size bytes of @kind to the file's counters, within
 * neuron_max_mem_bytes (0: no limit). Return: 0 or -ENOSPC. Two racing
 * callers near the limit may both fail; neither passes it.
 */
static int neuron_file_charge(struct neuron_file *nf, u32 kind, u64 size)
{
	u64 max_bytes = READ_ONCE(neuron_max_mem_bytes);
	atomic64_t *mine = kind == NEURON_MEM_DEVICE ? &nf->usage.device : &nf->usage.host;
	atomic64_t *other = kind == NEURON_MEM_DEVICE ? &nf->usage.host : &nf->usage.device;
	u64 bytes;

	bytes = atomic64_add_return(size, mine);
	if (!max_bytes || bytes + atomic64_read(other) <= max_bytes)
		return 0;
	atomic64_sub(size, mine);
	return -ENOSPC;
}

static void neuron_mem_release(struct kref *ref)
{
	struct neuron_mem *mem = container_of(ref, struct neuron_mem, ref);
	struct neuron_device *nd = mem->nd;

	neuron_mmap_offset_free(nd, mem);
	neuron_counter_add(&nd->usage, mem->kind, -mem->size);
	neuron_counter_add(&nd->nc[mem->nc].usage, mem->kind, -mem->size);
	neuron_mem_by_usage_add(mem, -1);
	if (mem->owner) {
		neuron_counter_add(&mem->owner->usage, mem->kind, -mem->size);
		neuron_file_put(mem->owner);
	}
	/* Unless the device's removal already gave it back. */
	neuron_hw_res_put(nd, &mem->res);
	if (mem->kind == NEURON_MEM_DEVICE) {
		neuron_dram_unplace(nd, mem);
	} else {
		neuron_pages_free(mem->pages, mem->npages);
		neuron_pin_uncharge(&mem->charge);
	}
	put_device(&nd->dev);
	kfree(mem);
}

void neuron_mem_put(struct neuron_mem *mem)
{
	/* The last put gives the backend's part back: lockdep, know it always. */
	might_lock(&mem->nd->res_lock);
	kref_put(&mem->ref, neuron_mem_release);
}

/* Take a reference on the object behind one of the file's handles. */
struct neuron_mem *neuron_mem_lookup(struct neuron_file *nf, u32 handle)
{
	struct neuron_mem *mem;

	xa_lock(&nf->handles);
	mem = xa_load(&nf->handles, handle);
	if (mem)
		kref_get(&mem->ref);
	xa_unlock(&nf->handles);
	return mem;
}

/**
 * neuron_mem_check() - validate a MEM_ALLOC request against an arch
 * @a: the request.
 * @arch: geometry of the device.
 *
 * Return: 0, or -EINVAL for anything out of range.
 */
VISIBLE_IF_KUNIT int neuron_mem_check(const struct neuron_mem_alloc *a,
				      const struct ndhal_arch *arch)
{
	if (a->flags || a->usage >= NEURON_MEM_USAGE_COUNT ||
	    a->reserved[0] || a->reserved[1])
		return -EINVAL;
	if (!a->size || a->size > NEURON_MEM_MAX_SIZE || a->nc >= arch->nc_count)
		return -EINVAL;
	switch (a->kind) {
	case NEURON_MEM_HOST:
		return a->align || a->channel ? -EINVAL : 0;
	case NEURON_MEM_DEVICE:
		if (a->align && (!is_power_of_2(a->align) || a->align < PAGE_SIZE ||
				 a->align > SZ_1G))
			return -EINVAL;
		if (a->channel >= arch->dram_channels &&
		    a->channel != NEURON_MEM_CHANNEL_ANY)
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_mem_check);

/*
 * A handle of the file (memory object or model), within
 * neuron_max_handles (0: no limit). Return: 0 or -ENOSPC.
 */
int neuron_file_handle_get(struct neuron_file *nf)
{
	u32 max_handles = READ_ONCE(neuron_max_handles);

	if (atomic64_inc_return(&nf->nhandles) > max_handles && max_handles) {
		atomic64_dec(&nf->nhandles);
		return -ENOSPC;
	}
	return 0;
}

void neuron_file_handle_put(struct neuron_file *nf)
{
	atomic64_dec(&nf->nhandles);
}

/**
 * neuron_mem_new() - a new memory object, with no handle yet
 * @nd: the device.
 * @owner: the file whose limits the memory is charged to until it is
 *	freed (the object takes a reference), or NULL (the driver's own).
 * @kind: NEURON_MEM_HOST or NEURON_MEM_DEVICE.
 * @usage: NEURON_MEM_USAGE_* (below NEURON_MEM_USAGE_COUNT), counted in
 *	@owner's figures by usage.
 * @nci: the NeuronCore it is charged to, checked by the caller.
 * @channel: DRAM channel or NEURON_MEM_CHANNEL_ANY (device memory).
 * @align: alignment of device memory (0: a page).
 * @size: bytes, at most NEURON_MEM_MAX_SIZE; rounded up to pages.
 *
 * Called inside the removal guard. The memory is zeroed; host memory is
 * charged to the caller (neuron_host_alloc()). The caller owns the one
 * reference. Return: the object or an ERR_PTR (-ENOSPC past the owner's
 * limit, -ENOMEM, the backend's).
 */
struct neuron_mem *neuron_mem_new(struct neuron_device *nd,
				  struct neuron_file *owner, u32 kind, u32 usage,
				  u32 nci, u32 channel, u64 align, u64 size)
{
	struct neuron_mem *mem;
	int ret;

	mem = kzalloc(sizeof(*mem), GFP_KERNEL_ACCOUNT);
	if (!mem)
		return ERR_PTR(-ENOMEM);
	mem->kind = kind;
	mem->usage = array_index_nospec(usage, NEURON_MEM_USAGE_COUNT);
	mem->nc = array_index_nospec(nci, nd->hal->arch->nc_count);
	mem->size = PAGE_ALIGN(size);
	mem->npages = mem->size >> PAGE_SHIFT;
	ret = owner ? neuron_file_charge(owner, kind, mem->size) : 0;
	if (ret)
		goto err_free;
	if (mem->kind == NEURON_MEM_HOST)
		ret = neuron_host_alloc(nd, mem);
	else
		ret = neuron_dram_alloc(nd, mem, channel, align);
	if (ret)
		goto err_uncharge;

	/* From here on the object frees itself with its last reference. */
	kref_init(&mem->ref);
	mem->nd = nd;
	mem->owner = owner ? neuron_file_get(owner) : NULL;
	get_device(&nd->dev);
	neuron_counter_add(&nd->usage, mem->kind, mem->size);
	neuron_counter_add(&nd->nc[mem->nc].usage, mem->kind, mem->size);
	neuron_mem_by_usage_add(mem, 1);
	return mem;

err_uncharge:
	if (owner)
		neuron_counter_add(&owner->usage, kind, -mem->size);
err_free:
	kfree(mem);
	return ERR_PTR(ret);
}

int neuron_ioctl_mem_alloc(struct neuron_file *nf, void *arg)
{
	struct neuron_mem_alloc *a = arg;
	struct neuron_device *nd = nf->nd;
	struct neuron_mem *mem;
	u64 offset = 0;
	u32 handle;
	int idx, ret;

	if (!(nd->hal->caps & NEURON_CAP_MEM))
		return -EOPNOTSUPP;
	ret = neuron_mem_check(a, nd->hal->arch);
	if (ret)
		return ret;
	/*
	 * Memory charged to an NC: while nobody else holds it, until the
	 * handle exists. The NC first, then the removal guard.
	 */
	ret = neuron_nc_enter(nf, BIT_ULL(a->nc), 0);
	if (ret)
		return ret;
	if (!neuron_dev_enter(nd, &idx)) {
		ret = -ENODEV;
		goto out_nc;
	}
	ret = neuron_file_handle_get(nf);
	if (ret)
		goto out;
	mem = neuron_mem_new(nd, nf, a->kind, a->usage, a->nc, a->channel,
			     a->align, a->size);
	if (IS_ERR(mem)) {
		ret = PTR_ERR(mem);
		goto err_handle;
	}
	/* Device memory that may hold old data: zeroed, outside the guard. */
	if (mem->kind == NEURON_MEM_DEVICE && neuron_hw_dram_uncleared(nd)) {
		neuron_dev_exit(nd, idx);
		ret = neuron_copy_clear(mem);
		if (!neuron_dev_enter(nd, &idx)) {
			neuron_mem_put(mem);
			neuron_file_handle_put(nf);
			ret = -ENODEV;
			goto out_nc;
		}
		if (ret)
			goto err_mem;
	}
	ret = neuron_mmap_offset_alloc(nd, mem);
	if (ret)
		goto err_mem;
	/*
	 * A MEM_FREE may come as soon as the handle is stored: set
	 * mem->handle under the lock, touch mem no more after it.
	 */
	offset = (u64)mem->mmap_pgoff << PAGE_SHIFT;
	xa_lock(&nf->handles);
	ret = __xa_alloc(&nf->handles, &handle, mem,
			 XA_LIMIT(1, NEURON_MAX_HANDLE), GFP_KERNEL_ACCOUNT);
	if (!ret)
		WRITE_ONCE(mem->handle, handle);
	xa_unlock(&nf->handles);
	if (ret)
		goto err_mem;
	a->handle = handle;
	a->mmap_offset = offset;
	goto out;

err_mem:
	neuron_mem_put(mem);
err_handle:
	neuron_file_handle_put(nf);
	if (ret == -EBUSY)
		ret = -ENOSPC;
out:
	neuron_dev_exit(nd, idx);
out_nc:
	neuron_nc_exit(nf, BIT_ULL(a->nc));
	return ret;
}

int neuron_ioctl_mem_free(struct neuron_file *nf, void *arg)
{
	struct neuron_mem_free *f = arg;
	struct neuron_mem *mem;

	if (f->flags)
		return -EINVAL;
	mem = xa_erase(&nf->handles, f->handle);
	if (!mem)
		return -ENOENT;
	/* The bytes stay charged to the file until the memory is freed. */
	neuron_file_handle_put(nf);
	neuron_mem_put(mem);
	return 0;
}

/* The file is gone: drop every handle it still has. */
void neuron_file_mem_release(struct neuron_file *nf)
{
	struct neuron_mem *mem;
	unsigned long handle;

	/* Nobody else uses the file now: drop the entries, then the tree. */
	xa_for_each(&nf->handles, handle, mem)
		neuron_mem_put(mem);
	xa_destroy(&nf->handles);
}
