/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: kernel-driven DMA. The driver owns one DMA queue per NeuronCore
 * (the first queue of the NC's first engine) and builds every descriptor
 * itself from objects the caller owns; userspace never writes descriptors
 * or addresses.
 *
 * A transfer is split in packets of one TX and one RX descriptor of equal
 * length (at most 64 KiB). The last packet of a request, and at least one
 * packet in every NEURON_DMA_INT_EVERY, asks for an interrupt; the engine
 * then writes how many packets it completed into struct neuron_dma_status
 * in host memory and raises the NC's DMA interrupt. That count is
 * untrusted: it must lie between what was already known and what was
 * submitted.
 */
#ifndef _NEURON_DMA_H
#define _NEURON_DMA_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "neuron_ring.h"

#define NEURON_DMA_RING_ENTRIES	4096
#define NEURON_DMA_INT_EVERY	(NEURON_DMA_RING_ENTRIES / 4)

/**
 * struct neuron_dma_status - written by the engine into host memory
 * @completed: packets completed, free running; written after each packet
 *	that asked for an interrupt, and on an error.
 * @error: NEURON_DMA_ERR_*, 0 while none; the queue then halts.
 * @error_index: index of the packet that failed.
 * @pad: zero.
 */
struct neuron_dma_status {
	__le32 completed;
	__le32 error;
	__le32 error_index;
	__le32 pad;
};

#define NEURON_DMA_ERR_DESC	1	/* malformed or stale descriptor */
#define NEURON_DMA_ERR_ADDR	2	/* address the device cannot reach */
#define NEURON_DMA_ERR_INJECTED	3	/* test knob of the simulator */
#define NEURON_DMA_ERR_BOGUS	4	/* driver side: nonsense in the status */

struct mm_struct;
struct neuron_device;
struct neuron_mem;

/**
 * struct neuron_dma_seg - a piece of a transfer
 * @src: device address read (TX side).
 * @dst: device address written (RX side).
 * @len: bytes.
 * @src_fixed: every packet reads from @src (memset from a pattern buffer).
 */
struct neuron_dma_seg {
	u64 src;
	u64 dst;
	u64 len;
	bool src_fixed;
};

/**
 * struct neuron_dma_req - one request, from submission to retirement
 * @ref: the submitter's, the queue's until retired, a file's while async.
 * @node: entry in the queue's pending list.
 * @nd: the device.
 * @q: the queue it goes to; valid while the device is plugged.
 * @end: queue index after the request's last packet.
 * @status: 0 or a negative errno, valid once @done.
 * @done: set (with release ordering) once retired.
 * @mem: memory objects the transfer uses (references).
 * @pages: host pages the transfer uses (pinned user pages or a pattern).
 * @npages: entries in @pages.
 * @pinned: @pages are pinned user pages (else driver-allocated).
 * @dirty: the device wrote @pages.
 * @iova: device address of @pages, 0 when not mapped.
 * @pin_mm: the address space whose pinned_vm holds @pin_charged pages of
 *	this request (asynchronous copies of user memory), else NULL.
 * @pin_charged: pages charged to @pin_mm.
 */
struct neuron_dma_req {
	struct kref ref;
	struct list_head node;
	struct neuron_device *nd;
	struct neuron_dma_queue *q;
	u32 end;
	int status;
	bool done;
	struct neuron_mem *mem[2];
	struct page **pages;
	unsigned long npages;
	bool pinned;
	bool dirty;
	u64 iova;
	struct mm_struct *pin_mm;
	unsigned long pin_charged;
};

/**
 * struct neuron_dma_queue - a DMA queue the driver owns
 * @nd: the device.
 * @nc: its NeuronCore.
 * @engine: engine index.
 * @tx: TX descriptor ring.
 * @rx: RX descriptor ring.
 * @status: one struct neuron_dma_status written by the engine.
 * @submit_lock: serialises submitters and queue resets.
 * @lock: guards @pending, @published, @done_idx and @error; taken in the
 *	interrupt handler.
 * @prod: packets written; under @submit_lock.
 * @published: @prod as last handed to the engine.
 * @done_idx: packets the engine completed, validated.
 * @error: NEURON_DMA_ERR_* seen, 0 when none.
 * @pending: requests not retired, in submission order.
 * @wait: waiters for ring space and for requests.
 * @retire_work: retires completed requests, resets the queue on error.
 */
struct neuron_dma_queue {
	struct neuron_device *nd;
	u32 nc;
	u32 engine;
	struct neuron_ring tx;
	struct neuron_ring rx;
	struct neuron_ring status;
	struct mutex submit_lock;	/* see above */
	spinlock_t lock;		/* see above */
	u32 prod;
	u32 published;
	u32 done_idx;
	u32 error;
	struct list_head pending;
	wait_queue_head_t wait;
	struct work_struct retire_work;
};

struct neuron_dma_queue *neuron_dma_queue_get(struct neuron_device *nd, u32 nc);
struct neuron_dma_req *neuron_dma_req_alloc(struct neuron_device *nd);
void neuron_dma_req_put(struct neuron_dma_req *req);
int neuron_dma_submit(struct neuron_dma_queue *q, struct neuron_dma_req *req,
		      const struct neuron_dma_seg *seg);
int neuron_dma_wait(struct neuron_dma_queue *q, struct neuron_dma_req *req);
void neuron_dma_unplug(struct neuron_device *nd);
void neuron_dma_fini(struct neuron_device *nd);

/* True once @req is retired; its @status is then valid. */
static inline bool neuron_dma_req_done(struct neuron_dma_req *req)
{
	/* Pairs with the release in neuron_dma_req_finish(): @status is set. */
	return smp_load_acquire(&req->done);
}

#endif /* _NEURON_DMA_H */
