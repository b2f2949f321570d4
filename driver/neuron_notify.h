/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: notification queues, driver side (neuron_notify.c): the queues a
 * file sets up on an NC, the layout of their mmap offsets, and the pure
 * functions the KUnit suite reaches.
 */
#ifndef _NEURON_NOTIFY_H
#define _NEURON_NOTIFY_H

#include <linux/build_bug.h>
#include <linux/mm_types.h>
#include <linux/types.h>

#include <neuron.h>

#include "ndhal/ndhal.h"
#include "neuron_common.h"

/*
 * mmap offsets: the queues live below the memory objects' offsets
 * (NEURON_MMAP_MEM_START, 128 MiB). Queue (nc, type) is slot 1 + nc *
 * NEURON_NOTIFY_TYPES + type, at slot << NEURON_NOTIFY_MMAP_SHIFT (2 MiB
 * slots: the largest ring is 1 MiB and a page).
 */
#define NEURON_NOTIFY_MMAP_SHIFT	21
#define NEURON_NOTIFY_SLOTS		(NEURON_MAX_NC * NEURON_NOTIFY_TYPES)

/* Every slot lies below the memory objects, every ring fits in its slot. */
static_assert(((u64)NEURON_NOTIFY_SLOTS + 1) << NEURON_NOTIFY_MMAP_SHIFT <=
	      (u64)NEURON_MMAP_MEM_START << PAGE_SHIFT);
static_assert(NEURON_NOTIFY_ENTRY_OFFSET + (u64)NEURON_NOTIFY_MAX_ENTRIES *
	      sizeof(struct neuron_notify_entry) <= BIT_ULL(NEURON_NOTIFY_MMAP_SHIFT));

/* The published layouts. */
static_assert(sizeof(struct neuron_notify_entry) == 16);
static_assert(sizeof(struct neuron_notify_header) == 64);
static_assert(sizeof(struct neuron_notify_header) <= NEURON_NOTIFY_ENTRY_OFFSET);
static_assert(sizeof(struct neuron_notify_setup) == 56);
static_assert(sizeof(struct neuron_notify_wait) == 48);
static_assert(sizeof(struct neuron_notify_teardown) == 16);

int neuron_notify_device_init(struct neuron_device *nd);
void neuron_notify_device_fini(struct neuron_device *nd);
void neuron_notify_unplug(struct neuron_device *nd);
void neuron_notify_nc_halt(struct neuron_device *nd, u32 nci);
void neuron_notify_file_release(struct neuron_file *nf);
void neuron_notify_nc_revoke_locked(struct neuron_device *nd, u32 nci,
				    struct neuron_file *keep);
int neuron_notify_mmap(struct file *file, struct vm_area_struct *vma);

#if IS_ENABLED(CONFIG_KUNIT)
int neuron_notify_setup_check(const struct neuron_notify_setup *s,
			      const struct ndhal_arch *arch);
u64 neuron_notify_ring_size(u32 entries);
u64 neuron_notify_mmap_offset(u32 nci, u32 type);
int neuron_notify_mmap_slot(unsigned long pgoff, u32 *nc, u32 *type,
			    unsigned long *first);
bool neuron_notify_head_valid(u32 tail, u32 old_head, u32 new_head,
			      u32 entries);
bool neuron_notify_consume_valid(u32 tail, u32 head, u32 consumed);
#endif

#endif /* _NEURON_NOTIFY_H */
