/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: descriptor rings. A ring has a power-of-two number of entries;
 * producer and consumer indices run freely (u32, wrapping) and are reduced
 * to a slot only to address memory. Ring memory is coherent DMA memory
 * from the backend (ndhal_ops.coherent_alloc): the CPU and the device see
 * each other's writes without cache maintenance, also behind a
 * non-coherent IOMMU; ordering is still the caller's (wmb() before a
 * doorbell, acquire/READ_ONCE on what the device writes).
 */
#ifndef _NEURON_RING_H
#define _NEURON_RING_H

#include <linux/log2.h>
#include <linux/types.h>

struct neuron_device;

/**
 * struct neuron_ring - ring memory
 * @va: the CPU's view.
 * @iova: the device's view.
 * @cookie: the backend's handle of the memory.
 * @size: bytes, a multiple of PAGE_SIZE.
 * @entries: power of two.
 * @esize: bytes per entry.
 */
struct neuron_ring {
	void *va;
	u64 iova;
	void *cookie;
	size_t size;
	u32 entries;
	u32 esize;
};

/* Slot of free-running index @idx. */
static inline u32 neuron_ring_slot(u32 entries, u32 idx)
{
	return idx & (entries - 1);
}

/* Wrap count of @idx modulo 4: the descriptors' ring id. */
static inline u32 neuron_ring_gen(u32 entries, u32 idx)
{
	return (idx >> ilog2(entries)) & 3;
}

/* Free entries between consumer @cons and producer @prod. */
static inline u32 neuron_ring_space(u32 entries, u32 prod, u32 cons)
{
	return entries - (prod - cons);
}

/*
 * Is @idx, an index reported by the device, between @cons and @prod
 * (both included)? Indices from the device are untrusted.
 */
static inline bool neuron_ring_index_valid(u32 cons, u32 prod, u32 idx)
{
	return idx - cons <= prod - cons;
}

static inline void *neuron_ring_entry(struct neuron_ring *r, u32 idx)
{
	return r->va + (size_t)neuron_ring_slot(r->entries, idx) * r->esize;
}

int neuron_ring_alloc(struct neuron_device *nd, struct neuron_ring *r,
		      u32 entries, u32 esize);
void neuron_ring_free(struct neuron_device *nd, struct neuron_ring *r);

#endif /* _NEURON_RING_H */
