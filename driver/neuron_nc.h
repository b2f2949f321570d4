/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: a NeuronCore of a device (neuron_nc.c): its reservation, the one
 * rule for every call that acts on it (neuron_nc_enter()), its semaphores
 * and events, its waiters.
 */
#ifndef _NEURON_NC_H
#define _NEURON_NC_H

#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rwsem.h>
#include <linux/uidgid.h>
#include <linux/wait.h>

#include "neuron_common.h"

/* The NEURON_EXEC_* statuses (uapi/neuron.h) an execution ends with. */
#define NEURON_NC_EXEC_STATUSES		(NEURON_EXEC_CANCELLED + 1)
/* Buckets of the latency histogram: 2^39 ns (9 min) and more in the last. */
#define NEURON_NC_LATENCY_BUCKETS	40

/**
 * struct neuron_nc - one NeuronCore of a device
 * @nd: the device (not a reference: the NC lives inside it).
 * @index: its number on the device.
 * @hold: who may act on the NC (neuron_nc_enter()): a call that does work
 *	on the NC holds it for reading from its ownership check to the
 *	commit of its work; NC_RESERVE, NC_RELEASE and a file's release
 *	change the owner holding it for writing. Taken before every other
 *	lock of the driver.
 * @lock: guards @owner, @owner_pid, @owner_uid and the creation of @dma;
 *	taken before the DMA queue's submit_lock (docs/locking.md). The
 *	NC's state (NEURON_NC_*) is not kept: neuron_nc_state_locked()
 *	derives it from the owner and what the queues say of themselves.
 * @owner: the file that reserved the NC, NULL while none (neuron_nc.c);
 *	written under @hold (for writing) and @lock; stable for a holder of
 *	@hold; otherwise read only as a hint (READ_ONCE).
 * @owner_pid: the thread group that reserved it (a reference), or NULL.
 * @owner_uid: the reserver's effective uid.
 * @dma: the driver's DMA queue of this NC, made on first use; once set it
 *	stays until the device is released (removal only stops it).
 * @notify: the NC's notification queues (NEURON_NOTIFY_TYPES of them), or
 *	NULL when the device has no NEURON_CAP_NOTIFY.
 * @exec: the NC's execution queue (neuron_exec.c), made on first use;
 *	stays until the device is released.
 * @event_gen: bumped before @event_wait is woken (neuron_nc_wake()).
 * @event_wait: the threads waiting for something of the NC (NC_SEM WAIT,
 *	the end of an execution, a notification); woken by neuron_nc_wake()
 *	when a semaphore or event, the owner, a job or a notification queue
 *	of the NC changes, and by removal.
 * @usage: memory alive that is charged to this NC.
 * @by_usage: the same by usage, with peaks (the vendor's sysfs).
 * @jobs: DMA jobs submitted to this NC.
 * @jobs_failed: DMA jobs that completed with an error.
 * @resets: resets of this NC (DMA errors and hangs, execution timeouts).
 * @models: models loaded for this NC (handles alive).
 * @model_loads: MODEL_LOAD calls that loaded a model for this NC.
 * @executions: executions that ended (however they ended).
 * @exec_errors: executions that did not end NEURON_EXEC_OK.
 * @busy_ns: time the NC's core spent executing.
 * @exec_status: executions that ended, by their NEURON_EXEC_* status.
 * @exec_latency: executions that ran on the core, by their time on it:
 *	bucket i counts those of 2^i to 2^(i+1) - 1 ns (bucket 0 from 0 ns,
 *	the last one with no end).
 * @exec_total_latency: executions that ended, by their time from their
 *	submission to their end (the buckets of @exec_latency).
 */
struct neuron_nc {
	struct neuron_device *nd;
	u32 index;
	struct rw_semaphore hold;	/* see above */
	struct mutex lock;		/* guards @state, @dma creation */
	struct neuron_file *owner;
	struct pid *owner_pid;
	kuid_t owner_uid;
	struct neuron_dma_queue *dma;
	struct neuron_notify_queue *notify;
	struct neuron_exec_queue *exec;
	atomic_t event_gen;
	wait_queue_head_t event_wait;
	struct neuron_mem_counter usage;
	struct neuron_mem_by_usage by_usage;
	atomic64_t jobs;
	atomic64_t jobs_failed;
	atomic64_t resets;
	atomic_t models;
	atomic64_t model_loads;
	atomic64_t executions;
	atomic64_t exec_errors;
	atomic64_t busy_ns;
	atomic64_t exec_status[NEURON_NC_EXEC_STATUSES];
	atomic64_t exec_latency[NEURON_NC_LATENCY_BUCKETS];
	atomic64_t exec_total_latency[NEURON_NC_LATENCY_BUCKETS];
};

/* The latency bucket of @ns (0 ns in bucket 0). */
static inline u32 neuron_nc_latency_bucket(u64 ns)
{
	return ns ? min_t(u32, ilog2(ns), NEURON_NC_LATENCY_BUCKETS - 1) : 0;
}

/*
 * An execution on @nc ended with NEURON_EXEC_* @status after @ns on the
 * core (0 when it never ran) and @total_ns after its submission.
 */
static inline void neuron_nc_count_exec(struct neuron_nc *nc, u32 status,
					u64 ns, u64 total_ns)
{
	atomic64_inc(&nc->exec_status[min_t(u32, status, NEURON_NC_EXEC_STATUSES - 1)]);
	if (ns)
		atomic64_inc(&nc->exec_latency[neuron_nc_latency_bucket(ns)]);
	atomic64_inc(&nc->exec_total_latency[neuron_nc_latency_bucket(total_ns)]);
}

int neuron_nc_enter(struct neuron_file *nf, u64 mask, u64 mine);
void neuron_nc_exit(struct neuron_file *nf, u64 mask);
void neuron_nc_file_release(struct neuron_file *nf);
void neuron_nc_unplug(struct neuron_device *nd);
void neuron_nc_sem_changed(struct neuron_device *nd, u32 nci);
void neuron_nc_sem_clear(struct neuron_device *nd, u32 nci);
u32 neuron_nc_state_locked(struct neuron_nc *nc);
bool neuron_nc_owner_visible_locked(struct neuron_nc *nc);
pid_t neuron_nc_owner_pid_locked(struct neuron_nc *nc);
void neuron_nc_wake(struct neuron_nc *nc);

#endif /* _NEURON_NC_H */
