// SPDX-License-Identifier: GPL-2.0
/*
 * neuron simulator: the IOMMU. The driver maps arrays of host pages for
 * the device (ndhal_ops.dma_map); each mapping gets a contiguous range of
 * IOVAs. The simulated device reaches host memory only through these
 * translations: an address that is not mapped is a DMA fault, never an
 * access to some other memory.
 */
#include <linux/highmem.h>
#include <linux/slab.h>

#include "sim/sim.h"

/**
 * struct neuron_sim_map - one mapping
 * @first: first IOVA page number.
 * @npages: pages mapped.
 * @pages: the host pages, owned by the caller of neuron_sim_iommu_map().
 */
struct neuron_sim_map {
	unsigned long first;
	unsigned long npages;
	struct page **pages;
};

void neuron_sim_iommu_init(struct neuron_sim_iommu *mmu)
{
	mutex_init(&mmu->lock);
	mt_init_flags(&mmu->maps, MT_FLAGS_ALLOC_RANGE | MT_FLAGS_LOCK_EXTERN);
	mt_set_external_lock(&mmu->maps, &mmu->lock);
}

/* Every mapping was undone by its owner before the device went away. */
void neuron_sim_iommu_fini(struct neuron_sim_iommu *mmu)
{
	mutex_lock(&mmu->lock);
	WARN_ON(!mtree_empty(&mmu->maps));
	__mt_destroy(&mmu->maps);
	mutex_unlock(&mmu->lock);
	mutex_destroy(&mmu->lock);
}

int neuron_sim_iommu_map(struct neuron_sim_iommu *mmu, struct page **pages,
			 unsigned long npages, u64 *iova)
{
	MA_STATE(mas, &mmu->maps, 0, 0);
	struct neuron_sim_map *map;
	int ret;

	if (!npages)
		return -EINVAL;
	map = kmalloc(sizeof(*map), GFP_KERNEL);
	if (!map)
		return -ENOMEM;
	map->npages = npages;
	map->pages = pages;

	mutex_lock(&mmu->lock);
	ret = mas_empty_area(&mas, NEURON_SIM_IOVA_BASE >> PAGE_SHIFT,
			     (NEURON_SIM_IOVA_BASE + NEURON_SIM_IOVA_SIZE - 1) >> PAGE_SHIFT,
			     npages);
	if (!ret) {
		map->first = mas.index;
		mas_set_range(&mas, map->first, map->first + npages - 1);
		ret = mas_store_gfp(&mas, map, GFP_KERNEL);
	}
	mutex_unlock(&mmu->lock);
	if (ret) {
		kfree(map);
		return ret == -EBUSY ? -ENOMEM : ret;
	}
	*iova = (u64)map->first << PAGE_SHIFT;
	return 0;
}

void neuron_sim_iommu_unmap(struct neuron_sim_iommu *mmu, u64 iova)
{
	MA_STATE(mas, &mmu->maps, iova >> PAGE_SHIFT, iova >> PAGE_SHIFT);
	struct neuron_sim_map *map;

	mutex_lock(&mmu->lock);
	map = mas_erase(&mas);
	mutex_unlock(&mmu->lock);
	WARN_ON(!map || map->first != iova >> PAGE_SHIFT);
	kfree(map);
}

/**
 * neuron_sim_iommu_page_locked() - the page behind an IOVA
 * @mmu: the IOMMU, its lock held (mappings cannot go meanwhile).
 * @iova: the address.
 * @cache: the mapping found last, or NULL; a walk over the pages of one
 *	mapping then looks it up once.
 *
 * Return: the page, or NULL if @iova is not mapped.
 */
struct page *neuron_sim_iommu_page_locked(struct neuron_sim_iommu *mmu, u64 iova,
					  struct neuron_sim_map **cache)
{
	struct neuron_sim_map *map = *cache;
	unsigned long pfn;

	lockdep_assert_held(&mmu->lock);
	if (iova < NEURON_SIM_IOVA_BASE ||
	    iova - NEURON_SIM_IOVA_BASE >= NEURON_SIM_IOVA_SIZE)
		return NULL;
	pfn = iova >> PAGE_SHIFT;
	if (!map || pfn < map->first || pfn - map->first >= map->npages) {
		map = mtree_load(&mmu->maps, pfn);
		*cache = map;
		if (!map)
			return NULL;
	}
	return map->pages[pfn - map->first];
}

/*
 * Copy @len bytes to (@write) or from host memory at @iova, page by page,
 * under the lock: no mapping goes meanwhile (owners free their pages only
 * after unmapping them).
 */
static int neuron_sim_iommu_xfer(struct neuron_sim_iommu *mmu, u64 iova,
				 void *buf, size_t len, bool write)
{
	struct neuron_sim_map *map = NULL;
	int ret = 0;

	mutex_lock(&mmu->lock);
	while (len) {
		size_t off = offset_in_page(iova);
		size_t n = min_t(size_t, len, PAGE_SIZE - off);
		struct page *page = neuron_sim_iommu_page_locked(mmu, iova, &map);

		if (!page) {
			ret = -EFAULT;
			break;
		}
		neuron_sim_page_xfer(page, off, buf, n, write);
		iova += n;
		buf += n;
		len -= n;
	}
	mutex_unlock(&mmu->lock);
	return ret;
}

/*
 * Write a 32-bit word of host memory at @iova as one store, so that a
 * reader never sees half of it. Return: 0, or -EFAULT (unaligned or not
 * mapped).
 */
int neuron_sim_iommu_write32(struct neuron_sim_iommu *mmu, u64 iova, u32 val)
{
	struct neuron_sim_map *map = NULL;
	struct page *page;
	void *va;

	if (!IS_ALIGNED(iova, sizeof(u32)))
		return -EFAULT;
	mutex_lock(&mmu->lock);
	page = neuron_sim_iommu_page_locked(mmu, iova, &map);
	if (page) {
		va = kmap_local_page(page);
		WRITE_ONCE(*(u32 *)(va + offset_in_page(iova)), val);
		kunmap_local(va);
	}
	mutex_unlock(&mmu->lock);
	return page ? 0 : -EFAULT;
}

int neuron_sim_iommu_write(struct neuron_sim_iommu *mmu, u64 iova,
			   const void *src, size_t len)
{
	return neuron_sim_iommu_xfer(mmu, iova, (void *)src, len, true);
}

int neuron_sim_iommu_read(struct neuron_sim_iommu *mmu, u64 iova, void *dst,
			  size_t len)
{
	return neuron_sim_iommu_xfer(mmu, iova, dst, len, false);
}
