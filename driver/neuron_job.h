/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: jobs (neuron_job.c), the device work of every kind: a DMA request
 * (dma/neuron_dma.h) or an execution (neuron_exec.h) embeds a struct
 * neuron_job and gives it a small ops table; the job layer knows neither.
 *
 * A job carries a dma_fence, signalled when the job ends, with its error
 * set first when it failed; whoever waits for a job holds a reference of
 * its own on it (the fence's), never on the queue. Its fences are numbered
 * on the timeline of the queue that runs it. An asynchronous call names its
 * job by a sequence number of its file (never 0) until WAIT collects it or
 * the file is released. A job holds its device and its submitting file by
 * reference: the file's address is never another file's while the job
 * lives.
 */
#ifndef _NEURON_JOB_H
#define _NEURON_JOB_H

#include <linux/dma-fence.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/spinlock.h>

#include "neuron_common.h"

/**
 * struct neuron_job_ops - what a kind of job does at the points the job
 *	layer knows
 * @timeline: the name of its fences' timeline ("dma", "exec").
 * @retire: optional: at the job's end, before its fence is signalled, give
 *	back what it holds for the device (pinned pages, bound objects), so
 *	that nothing is held once a waiter sees it done; also at the last
 *	put of a job that never ended. Process context.
 * @free: free the object the job is embedded in, after an RCU grace
 *	period (the fence may still be read under RCU).
 * @wait: optional: how a waiter waits for the job (an execution's waiter
 *	lends the NC its CPU, neuron_exec_wait()); NULL: on the fence.
 */
struct neuron_job_ops {
	const char *timeline;
	void (*retire)(struct neuron_job *job);
	void (*free)(struct neuron_job *job);
	int (*wait)(struct neuron_job *job, ktime_t deadline, bool intr);
};

/**
 * struct neuron_timeline - the fences of one queue
 * @lock: the lock of the fences (the queue's own).
 * @context: their dma_fence context.
 * @seqno: the last seqno given; under @lock.
 */
struct neuron_timeline {
	spinlock_t *lock;		/* the queue's lock */
	u64 context;
	u64 seqno;
};

/**
 * struct neuron_job - a piece of device work, from submission to its end
 * @fence: signalled at the end; its refcount is the job's (the
 *	submitter's, the queue's until the end, a file's while the caller
 *	may still WAIT for it).
 * @node: entry in its queue's list of pending jobs.
 * @ops: what its kind does.
 * @nd: the device (a reference).
 * @nf: the submitting file (a reference), NULL for the driver's own work.
 * @nc: the NeuronCore it runs on.
 * @retired: @ops->retire has run.
 */
struct neuron_job {
	struct dma_fence fence;
	struct list_head node;
	const struct neuron_job_ops *ops;
	struct neuron_device *nd;
	struct neuron_file *nf;
	struct neuron_nc *nc;
	bool retired;
};

void neuron_timeline_init(struct neuron_timeline *tl, spinlock_t *lock);
void neuron_job_init(struct neuron_job *job, const struct neuron_job_ops *ops,
		     struct neuron_timeline *tl, struct neuron_nc *nc,
		     struct neuron_file *nf);
void neuron_job_queued_locked(struct neuron_job *job, struct neuron_timeline *tl);
void neuron_job_end(struct neuron_job *job, int err);
void neuron_job_put(struct neuron_job *job);
int neuron_job_wait(struct neuron_job *job, ktime_t deadline, bool intr);

static inline struct neuron_job *neuron_job_get(struct neuron_job *job)
{
	dma_fence_get(&job->fence);
	return job;
}

/*
 * True once @job is queued (neuron_job_queued_locked() gave it its seqno, from
 * 1): only a queued job ends. Read by its submitter after the submission.
 */
static inline bool neuron_job_queued(const struct neuron_job *job)
{
	return job->fence.seqno;
}

/* True once @job ended; its fence's error is then final. */
static inline bool neuron_job_done(struct neuron_job *job)
{
	return dma_fence_is_signaled(&job->fence);
}

/* 0 or the negative errno the job ended with; valid once done. */
static inline int neuron_job_status(struct neuron_job *job)
{
	int status = dma_fence_get_status(&job->fence);

	return status < 0 ? status : 0;
}

/* Asynchronous calls: the sequence numbers of a file (nf->reqs). */
void neuron_file_jobs_release(struct neuron_file *nf);
int neuron_job_seq_reserve(struct neuron_file *nf, u64 *seqno);
void neuron_job_seq_unreserve(struct neuron_file *nf, u64 seqno);
void neuron_job_seq_publish(struct neuron_file *nf, u64 seqno,
			    struct neuron_job *job);

#endif /* _NEURON_JOB_H */
