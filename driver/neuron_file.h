/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: one open file of a device (neuron_cdev.c): its tables and
 * counters, and the reference that keeps its structure for the objects
 * that outlive it.
 */
#ifndef _NEURON_FILE_H
#define _NEURON_FILE_H

#include <linux/kref.h>
#include <linux/xarray.h>

#include "neuron_common.h"

/**
 * struct neuron_file - state of one open file of a device
 * @ref: references: the open file's, and one per object that outlives it
 *	and must still find it: a memory object or model charged to it (its
 *	counters), a job it submitted (its identity for cancelling). The
 *	file's tables are emptied at its release; the structure goes with
 *	the last reference, so its address is never another file's while
 *	anything still names it.
 * @nd: the device; a reference is held until the last reference goes.
 * @handles: handle -> struct neuron_mem; each entry holds a reference.
 * @nhandles: entries in @handles.
 * @usage: memory the file allocated that is still alive: charged at
 *	allocation, returned when the memory is freed (its handle gone and
 *	no mapping, transfer or execution using it), within the per-file
 *	limits.
 * @reqs: sequence number -> struct neuron_job of asynchronous calls
 *	not yet collected by WAIT; each entry holds a reference.
 * @next_seqno: cursor of the cyclic sequence number allocation.
 * @nreqs: entries in @reqs.
 * @nqueues: notification queues the file owns; under the device's
 *	notification lock (neuron_notify.c).
 * @key: the file's notification key, unique on the device (never 0): its
 *	DMA work is tagged with it, and its notification queues report only
 *	work with its key (struct neuron_udma_desc).
 * @models: handle -> struct neuron_model loaded by the file (neuron_model.c);
 *	each entry holds a reference.
 * @by_usage: the memory alive charged to each NC by usage (what the
 *	netlink family tells the NC's reserver, docs/netlink.md).
 */
/* A file's notification key has 31 bits (the descriptors' word 1, dma/neuron_desc.h). */
#define NEURON_FILE_KEY_MASK	GENMASK(30, 0)

struct neuron_file {
	struct kref ref;
	struct neuron_device *nd;
	struct xarray handles;
	atomic64_t nhandles;
	struct neuron_mem_counter usage;
	struct xarray reqs;
	u32 next_seqno;
	atomic_t nreqs;
	unsigned int nqueues;
	u32 key;
	struct xarray models;
	struct neuron_mem_by_usage by_usage[NEURON_MAX_NC];
};

void neuron_file_put(struct neuron_file *nf);

static inline struct neuron_file *neuron_file_get(struct neuron_file *nf)
{
	kref_get(&nf->ref);
	return nf;
}

#endif /* _NEURON_FILE_H */
