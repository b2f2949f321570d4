// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: ring memory (see neuron_ring.h).
 */
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include "../neuron_drv.h"
#include "neuron_ring.h"

int neuron_ring_alloc(struct neuron_device *nd, struct neuron_ring *r,
		      u32 entries, u32 esize)
{
	int ret;

	if (!entries || !is_power_of_2(entries) || !esize)
		return -EINVAL;
	r->entries = entries;
	r->esize = esize;
	r->npages = DIV_ROUND_UP((size_t)entries * esize, PAGE_SIZE);
	r->pages = neuron_pages_alloc(r->npages);
	if (!r->pages)
		return -ENOMEM;
	r->va = vmap(r->pages, r->npages, VM_MAP, PAGE_KERNEL);
	if (!r->va) {
		ret = -ENOMEM;
		goto err_pages;
	}
	ret = nd->hal->ops->dma_map(nd, r->pages, r->npages, &r->iova);
	if (ret)
		goto err_vunmap;
	return 0;

err_vunmap:
	vunmap(r->va);
err_pages:
	neuron_pages_free(r->pages, r->npages);
	return ret;
}

void neuron_ring_free(struct neuron_device *nd, struct neuron_ring *r)
{
	nd->hal->ops->dma_unmap(nd, r->iova);
	vunmap(r->va);
	neuron_pages_free(r->pages, r->npages);
}
