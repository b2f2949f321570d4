/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: models and their execution on a NeuronCore (neuron_model.c,
 * neuron_exec.c; the instruction set is docs/sim-isa.md).
 */
#ifndef _NEURON_EXEC_H
#define _NEURON_EXEC_H

#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <neuron.h>

#include "ndhal/ndhal.h"
#include "neuron_common.h"
#include "neuron_job.h"

/**
 * struct neuron_model - a loaded model
 * @ref: references: the file's handle, each execution queued or running.
 * @nd: the device (its memory object holds a reference on it).
 * @nc: the NeuronCore the model was loaded for.
 * @mem: device memory of the model: the blocks, then the data, then the
 *	scratch, each part starting on a page.
 * @counted: the model is counted in its NC's models and its file's
 *	handles (while its handle is). Its memory is charged to the file
 *	(neuron_mem_new()) until freed.
 * @block_off: offset in @mem of each engine's block (NEURON_ENGINE_*).
 * @block_count: instructions of each engine's block, 0 if none.
 * @data_off: offset of the data in @mem.
 * @data_size: bytes of data (region NEURON_REGION_DATA).
 * @scratch_off: offset of the scratch in @mem.
 * @scratch_size: bytes of scratch (region NEURON_REGION_SCRATCH).
 * @nslots: entries of @slots.
 * @slots: the I/O slots as loaded (checked).
 */
struct neuron_model {
	struct kref ref;
	struct neuron_device *nd;
	u32 nc;
	struct neuron_mem *mem;
	bool counted;
	u64 block_off[NEURON_ENGINES];
	u32 block_count[NEURON_ENGINES];
	u64 data_off;
	u64 data_size;
	u64 scratch_off;
	u64 scratch_size;
	u32 nslots;
	struct neuron_model_slot slots[];
};

/**
 * struct neuron_exec_job - an execution (a job: neuron_job.h)
 * @job: the job: its fence, its file (whose release cancels what it left
 *	queued or running, and whose NC's new owner cancels what any other
 *	file left), its NC.
 * @model: the model (a reference).
 * @timeout_ms: how long it may run once started.
 * @started: when it was handed to the core (local_clock(), ns: cheap where
 *	the clocksource is slow to read, as HPET under emulation), 0 before
 *	(its duration in the neuron_exec_complete trace event).
 * @submitted: when EXECUTE made it (ktime_get_ns()): its total latency.
 * @nbound: entries of @bound.
 * @bound: the memory objects bound to the slots (references).
 */
struct neuron_exec_job {
	struct neuron_job job;
	struct neuron_model *model;
	u32 timeout_ms;
	u64 started;
	u64 submitted;
	u32 nbound;
	struct neuron_mem *bound[];
};

static inline struct neuron_exec_job *neuron_job_to_exec(struct neuron_job *job)
{
	return container_of(job, struct neuron_exec_job, job);
}

/**
 * struct neuron_exec_queue - the executions of one NeuronCore
 * @nc: the NeuronCore.
 * @lock: guards @pending, @depth and @dead; the fences' lock.
 * @run_lock: serialises starting, completing, resetting and cancelling;
 *	guards @running, @seq and @deadline. Taken before @lock.
 * @pending: jobs queued, not started, in order.
 * @running: the job the core runs, or NULL.
 * @depth: jobs queued or running (at most exec_queue_depth).
 * @dead: the device is going: no more submissions.
 * @resetting: the core is being reset (an execution overran its timeout).
 * @seq: number of the execution handed to the core last.
 * @deadline: jiffies when @running overruns its timeout.
 * @started: when @running was handed to the core (local_clock(), ns: its
 *	busy time).
 * @timer_at: jiffies when @timeout_work is due while it is pending.
 * @timeline: the fences of the NC's executions (their lock: @lock).
 * @hw: what the core is handed (neuron_exec_start_locked(); under @run_lock).
 * @status: host memory the core writes its struct neuron_exec_hw_status
 *	into (coherent, see ndhal_ops.coherent_alloc).
 * @status_iova: its device address.
 * @status_cookie: the backend's handle of it.
 * @irq: the core interrupts at the end of an execution (NEURON_IRQ_EXEC):
 *	not when it computes in its waiters' threads (ndhal_ops.exec_drive),
 *	which collect the execution themselves (neuron_exec_wait()).
 * @done_work: completes @running after the core's interrupt.
 * @timeout_work: resets the NC when @running overruns.
 */
struct neuron_exec_queue {
	struct neuron_nc *nc;
	spinlock_t lock;		/* see above */
	struct mutex run_lock;		/* see above */
	struct list_head pending;
	struct neuron_job *running;
	u32 depth;
	bool dead;
	bool resetting;
	u32 seq;
	unsigned long deadline;
	u64 started;
	unsigned long timer_at;
	struct neuron_timeline timeline;
	struct ndhal_exec hw;
	struct neuron_exec_hw_status *status;
	u64 status_iova;
	void *status_cookie;
	bool irq;
	struct work_struct done_work;
	struct delayed_work timeout_work;
};

extern unsigned int neuron_exec_timeout_ms;
extern unsigned int neuron_exec_queue_depth;

/**
 * struct neuron_tpb_limits - what the validator checks a block against
 * @region_size: bytes of each region (0: the region does not exist).
 * @region_ro: the program may not write the region.
 * @nregions: entries used in @region_size and @region_ro.
 * @sems: semaphores per NC.
 * @events: events per NC.
 */
struct neuron_tpb_limits {
	u64 region_size[2 + NEURON_MAX_SLOTS];
	bool region_ro[2 + NEURON_MAX_SLOTS];
	u32 nregions;
	u32 sems;
	u32 events;
};

/* neuron_model.c */
struct neuron_model *neuron_model_lookup(struct neuron_file *nf, u32 handle);
void neuron_model_put(struct neuron_model *model);
void neuron_file_model_release(struct neuron_file *nf);
#if IS_ENABLED(CONFIG_KUNIT)
int neuron_model_slot_check(const struct neuron_model_slot *s);
int neuron_tpb_check_block(const struct neuron_tpb_insn *insns, u32 count,
			   u32 engine, const struct neuron_tpb_limits *lim,
			   u32 *bad);
#endif

/* neuron_exec.c */
int neuron_exec_wait(struct neuron_nc *nc, int (*check)(void *arg), void *arg,
		     ktime_t deadline, bool intr);
void neuron_exec_cancel_file(struct neuron_device *nd, u32 nci,
			     const struct neuron_file *owner);
void neuron_exec_file_release(struct neuron_file *nf);
void neuron_exec_handover_locked(struct neuron_device *nd, u32 nci,
				 const struct neuron_file *owner);
void neuron_exec_unplug(struct neuron_device *nd);
void neuron_exec_release(struct neuron_device *nd);
bool neuron_exec_queue_busy(struct neuron_exec_queue *eq);
bool neuron_exec_queue_resetting(struct neuron_exec_queue *eq);

#endif /* _NEURON_EXEC_H */
