// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: ring memory (see neuron_ring.h).
 */
#include <linux/log2.h>
#include <linux/mm.h>

#include "neuron_device.h"
#include "neuron_hw.h"
#include "dma/neuron_ring.h"

int neuron_ring_alloc(struct neuron_device *nd, struct neuron_ring *r,
		      u32 entries, u32 esize)
{
	if (!entries || !is_power_of_2(entries) || !esize)
		return -EINVAL;
	r->entries = entries;
	r->esize = esize;
	r->size = PAGE_ALIGN((size_t)entries * esize);
	return neuron_hw_coherent_alloc(nd, r->size, &r->va, &r->iova,
					    &r->cookie);
}

void neuron_ring_free(struct neuron_device *nd, struct neuron_ring *r)
{
	neuron_hw_coherent_free(nd, r->size, r->va, r->iova, r->cookie);
}
