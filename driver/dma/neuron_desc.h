/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: the 16-byte UDMA descriptor (docs/hw-facts.md, "DMA").
 *
 * Control word: bits 15:0 length (0 encodes 64 KiB; silicon's engines are
 * set up so in ndhal_udma_engine_init()), 25:24 ring id, 26 first, 27 last,
 * 28 interrupt, 30 barrier. The ring id is the ring's wrap count modulo 4:
 * an engine that finds another value is looking at a stale descriptor.
 */
#ifndef _NEURON_DESC_H
#define _NEURON_DESC_H

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/sizes.h>
#include <linux/types.h>

/**
 * struct neuron_udma_desc - one descriptor, as the engine reads it
 * @ctrl: length and control bits (NEURON_DESC_*).
 * @meta: TX: metadata (NEURON_DESC_META_*); RX: low word of a second
 *	buffer, unused: zero.
 * @addr: buffer address, device DRAM or a host address the device maps.
 */
struct neuron_udma_desc {
	__le32 ctrl;
	__le32 meta;
	__le64 addr;
};

static_assert(sizeof(struct neuron_udma_desc) == 16);

#define NEURON_DESC_LEN		GENMASK(15, 0)
#define NEURON_DESC_RING_ID	GENMASK(25, 24)
#define NEURON_DESC_FIRST	BIT(26)
#define NEURON_DESC_LAST	BIT(27)
#define NEURON_DESC_INT		BIT(28)
#define NEURON_DESC_MAX_LEN	SZ_64K

/*
 * Word 1 of the descriptors in our simulator's model (docs/hw-model.md),
 * for the NC's COMPLETION and ERROR notification queues: the RX word holds
 * the submitting file's notification key (NEURON_DESC_KEY, never 0), with
 * NEURON_DESC_KEY_END on the last packet of a job; the TX word holds the
 * job's tag. The engine posts a COMPLETION entry (data = the tag) after a
 * packet with the END bit, and an ERROR entry (data = the tag) for a
 * packet that fails, each only into a queue that was set up with the same
 * key: a file's queues hear of its own work only, and tell it nothing of
 * other files'.
 */
#define NEURON_DESC_KEY		GENMASK(30, 0)
#define NEURON_DESC_KEY_END	BIT(31)

static inline void neuron_desc_encode(struct neuron_udma_desc *d, u64 addr,
				      u32 len, u32 ring_id, u32 flags)
{
	d->ctrl = cpu_to_le32(FIELD_PREP(NEURON_DESC_LEN, len & 0xffff) |
			      FIELD_PREP(NEURON_DESC_RING_ID, ring_id & 3) | flags);
	d->meta = 0;
	d->addr = cpu_to_le64(addr);
}

/* Length in bytes, 1 to 64 KiB. */
static inline u32 neuron_desc_len(u32 ctrl)
{
	u32 len = FIELD_GET(NEURON_DESC_LEN, ctrl);

	return len ? len : NEURON_DESC_MAX_LEN;
}

static inline u32 neuron_desc_ring_id(u32 ctrl)
{
	return FIELD_GET(NEURON_DESC_RING_ID, ctrl);
}

#endif /* _NEURON_DESC_H */
