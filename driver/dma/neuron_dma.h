/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: kernel-driven DMA. The driver owns one DMA queue per NeuronCore
 * (the first queue of the NC's first engine) and builds every descriptor
 * itself from objects the caller owns; userspace never writes descriptors
 * or addresses.
 *
 * A transfer is a request (struct neuron_dma_req), which is a job of the
 * job layer (neuron_job.h): its fence is signalled when it ends; whoever
 * waits for it (WAIT, a synchronous copy) waits on that fence with a
 * reference of its own, never on the queue.
 *
 * A transfer is split in packets of one TX and one RX descriptor of equal
 * length (at most 64 KiB, and never across a break in the device's view
 * of host pages); the backend writes the descriptors in its engine's
 * format (ndhal_ops.dma_desc). How the driver learns of progress depends
 * on the backend:
 *  - an engine that reports (the simulator): the last packet of a
 *    request, and at least one packet in every NEURON_DMA_INT_EVERY, asks
 *    for an interrupt; the engine then writes how many packets it
 *    completed into struct neuron_dma_status in host memory and raises the
 *    NC's DMA interrupt;
 *  - an engine that does not (silicon, ndhal_ops.dma_marker): every
 *    doorbell is preceded by a marker packet that copies a magic word
 *    (NEURON_DMA_MARK) into the marker slot of its index, in host memory;
 *    the last data packet before it carries the write barrier, so the
 *    marker lands after the data. A poll (a delayed work, every jiffy while
 *    the queue has work) takes the newest marker that landed as the
 *    completed count, and asks the backend whether the engine stopped on
 *    an error when nothing moved.
 * The count is untrusted: it must lie between what was already known and
 * what was submitted. A queue that makes no progress for
 * neuron_job_timeout_ms while it has work is hung: it is reset like a
 * queue that reported an error. NEURON_DMA_RING_GAP slots are always kept
 * empty (the engines' free-slot rule, docs/hw-facts.md).
 */
#ifndef _NEURON_DMA_H
#define _NEURON_DMA_H

#include <linux/dma-fence.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "neuron_common.h"
#include "neuron_job.h"
#include "dma/neuron_ring.h"
#include "ndhal/ndhal.h"

#define NEURON_DMA_RING_ENTRIES	4096
#define NEURON_DMA_INT_EVERY	(NEURON_DMA_RING_ENTRIES / 4)
/* Slots kept empty between the producer and the consumer. */
#define NEURON_DMA_RING_GAP	16
/* Data packets between two markers at most: half the ring, less the gap and the marker. */
#define NEURON_DMA_MARK_BATCH	(NEURON_DMA_RING_ENTRIES / 2 - NEURON_DMA_RING_GAP - 1)
/* The marker poll's period: from a doorbell on, doubled while nothing lands. */
#define NEURON_DMA_POLL_MIN_US	20
#define NEURON_DMA_POLL_MAX_US	2000
/* What a marker packet copies into its slot. */
#define NEURON_DMA_MARK		0xabcdef01

/**
 * struct neuron_dma_status - written by the engine into host memory
 * @completed: packets completed, free running; written after each packet
 *	that asked for an interrupt, and on an error.
 * @error: NEURON_DMA_ERR_*, 0 while none; the queue then halts.
 * @error_index: index of the packet that failed (logged; the driver
 *	fails every job not completed).
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
#define NEURON_DMA_ERR_HUNG	5	/* driver side: no progress in time */

/**
 * struct neuron_dma_side - one side of a transfer
 * @addr: without @pages, a device address (device DRAM); with @pages, the
 *	byte offset of the transfer's start in those host pages.
 * @pages: the device address of each host page (neuron_pages_dma_map()),
 *	or NULL.
 * @npages: entries in @pages.
 */
struct neuron_dma_side {
	u64 addr;
	const u64 *pages;
	unsigned long npages;
};

/**
 * struct neuron_dma_seg - a piece of a transfer
 * @src: what is read (TX side).
 * @dst: what is written (RX side).
 * @len: bytes; the caller checked that both sides hold them.
 * @src_fixed: a memset: every packet reads the queue's pattern page of
 *	@value (@src is ignored).
 * @value: the memset byte.
 */
struct neuron_dma_seg {
	struct neuron_dma_side src;
	struct neuron_dma_side dst;
	u64 len;
	bool src_fixed;
	u8 value;
};

/**
 * struct neuron_dma_req - a transfer, from submission to its end (a job)
 * @job: the job (neuron_job.h): its fence, its file, its NC.
 * @end: queue index after the request's last packet.
 * @error: an error known at submission (it was cut short): its status at
 *	the end even if the engine did what it got.
 * @key: the submitting file's notification key (struct neuron_file.key),
 *	0 for the driver's own transfers: the engine reports the request
 *	only into the NC's queues of that file (struct neuron_udma_desc).
 * @report: its end is worth a COMPLETION entry (a synchronous copy of
 *	user memory has one, at its last window's end).
 * @tag: what the request's COMPLETION or ERROR entry carries as its data:
 *	the sequence number of an asynchronous call, 0 for a synchronous one.
 * @mem: memory objects the transfer uses (references).
 * @pages: host pages the transfer uses (pinned user pages).
 * @npages: entries in @pages.
 * @dirty: the device wrote @pages.
 * @dma: the device address of each of @pages, NULL when not mapped.
 * @dma_res: the mapping as a backend resource (given back at the end or
 *	at the device's removal).
 * @charge: the charge of @pages to the caller's pinned memory
 *	(asynchronous copies of user memory), returned with them.
 */
struct neuron_dma_req {
	struct neuron_job job;
	u32 end;
	int error;
	u32 key;
	bool report;
	u32 tag;
	struct neuron_mem *mem[2];
	struct page **pages;
	unsigned long npages;
	bool dirty;
	u64 *dma;
	struct neuron_hw_res dma_res;
	struct neuron_pin_charge charge;
};

static inline struct neuron_dma_req *neuron_job_to_dma(struct neuron_job *job)
{
	return container_of(job, struct neuron_dma_req, job);
}

/**
 * struct neuron_dma_queue - a DMA queue the driver owns
 * @nd: the device.
 * @nc: its NeuronCore.
 * @engine: engine index.
 * @queue: queue index in the engine.
 * @tx: TX descriptor ring.
 * @rx: RX descriptor ring.
 * @status: one struct neuron_dma_status written by the engine (engines
 *	that report).
 * @marks: marker slots, one per ring index (marker backends).
 * @mark_src: the word every marker packet copies, NEURON_DMA_MARK.
 * @marker: the backend is a marker one (ndhal_ops.dma_marker).
 * @last: the last data packet written, for the barrier of a marker.
 * @pattern: one page, mapped for the device, of the byte last used by a
 *	MEMSET; under @submit_lock.
 * @pattern_iova: its device address.
 * @pattern_byte: the byte it holds, -1 before the first MEMSET.
 * @submit_lock: serialises submitters, queue resets and removal.
 * @lock: guards @pending, @published, @done_idx, @progress, @progress_at,
 *	@error, @stopped and the timeline's seqno; taken in the interrupt
 *	handler. Also the fences' lock.
 * @prod: packets written; under @submit_lock.
 * @published: @prod as last handed to the engine.
 * @done_idx: packets the engine completed, validated.
 * @progress: @done_idx when the hang timer last saw it move.
 * @progress_at: when (jiffies) @done_idx last moved, or an idle queue was
 *	given work: the start of the hang period.
 * @error: NEURON_DMA_ERR_* seen, 0 when none.
 * @stopped: the device is gone or the queue could not be restarted: no
 *	more submissions, every pending request failed.
 * @resetting: a reset after an error or a hang is in progress (the NC
 *	shows NEURON_NC_RESETTING).
 * @failed: the queue could not be restarted after a reset: the NC is out
 *	of service (NEURON_NC_FAILED) for good.
 * @timeline: the fences of the queue's requests (their lock: @lock).
 * @pending: requests not ended, in submission order.
 * @wait: submitters waiting for ring space.
 * @retire_work: retires completed jobs, resets the queue on error.
 * @hang_work: declares the queue hung when it stops making progress.
 * @poll_work: marker backends: looks for markers while there is work.
 * @poll_timer: starts @poll_work: soon after a doorbell, then less and
 *	less often while nothing lands (@poll_us, NEURON_DMA_POLL_MIN_US to
 *	NEURON_DMA_POLL_MAX_US).
 * @poll_us: the poll's period now; under @lock.
 */
struct neuron_dma_queue {
	struct neuron_device *nd;
	struct neuron_nc *nc;
	u32 engine;
	u32 queue;
	struct neuron_ring tx;
	struct neuron_ring rx;
	struct neuron_ring status;
	struct neuron_ring marks;
	struct neuron_ring mark_src;
	bool marker;
	struct ndhal_dma_packet last;
	struct page *pattern;
	u64 pattern_iova;
	int pattern_byte;
	struct mutex submit_lock;	/* see above */
	spinlock_t lock;		/* see above */
	u32 prod;
	u32 published;
	u32 done_idx;
	u32 progress;
	unsigned long progress_at;
	u32 error;
	bool stopped;
	bool resetting;
	bool failed;
	struct neuron_timeline timeline;
	struct list_head pending;
	wait_queue_head_t wait;
	struct work_struct retire_work;
	struct delayed_work hang_work;
	struct work_struct poll_work;
	struct hrtimer poll_timer;
	u32 poll_us;
};

extern unsigned int neuron_job_timeout_ms;

struct neuron_dma_queue *neuron_dma_queue_get(struct neuron_nc *nc);
struct neuron_dma_req *neuron_dma_req_new(struct neuron_dma_queue *q,
					  struct neuron_file *nf);
int neuron_dma_req_map(struct neuron_dma_req *req);
bool neuron_dma_queue_resetting(struct neuron_dma_queue *q);
bool neuron_dma_queue_failed(struct neuron_dma_queue *q);
int neuron_dma_submit(struct neuron_dma_queue *q, struct neuron_dma_req *req,
		      const struct neuron_dma_seg *seg);
void neuron_dma_unplug(struct neuron_device *nd);
void neuron_dma_release(struct neuron_device *nd);

#endif /* _NEURON_DMA_H */
