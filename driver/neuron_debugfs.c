// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: debugfs (docs/debugfs.md), for root only. Not an ABI.
 *
 *   /sys/kernel/debug/neuron/neuronN/ncM/dma	the NC's kernel DMA queue
 *   /sys/kernel/debug/neuron/neuronN/ncM/exec	the NC's execution queue
 *
 * Made when the device is created, removed (debugfs_remove_recursive(),
 * which waits for the reads in flight) first thing at its removal. The
 * driver never depends on debugfs: every failure is ignored, and without
 * CONFIG_DEBUG_FS the calls are stubs.
 *
 * The queues are read under their own locks (docs/locking.md): the DMA
 * queue's submit_lock then its spinlock, the execution queue's run_lock
 * then its spinlock; the mutexes are taken interruptibly (a submitter may
 * hold submit_lock while it waits for ring space).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "neuron_nc.h"
#include "neuron_device.h"
#include "neuron_job.h"
#include "neuron_exec.h"
#include "dma/neuron_dma.h"

static struct dentry *neuron_debugfs_root;

static int neuron_debugfs_dma_show(struct seq_file *m, void *unused)
{
	struct neuron_nc *nc = m->private;
	struct neuron_dma_queue *q;
	struct neuron_dma_req *req;
	u32 prod, published, done_idx, error, pending = 0;
	u64 fence_seqno;
	bool stopped;
	int ret;

	mutex_lock(&nc->lock);
	q = nc->dma;
	mutex_unlock(&nc->lock);
	if (!q) {
		seq_puts(m, "created: 0\n");
		return 0;
	}
	ret = mutex_lock_interruptible(&q->submit_lock);
	if (ret)
		return ret;
	prod = q->prod;
	spin_lock_irq(&q->lock);
	published = q->published;
	done_idx = q->done_idx;
	error = q->error;
	stopped = q->stopped;
	fence_seqno = q->timeline.seqno;
	list_for_each_entry(req, &q->pending, job.node)
		pending++;
	spin_unlock_irq(&q->lock);
	mutex_unlock(&q->submit_lock);

	seq_puts(m, "created: 1\n");
	seq_printf(m, "engine: %u\n", q->engine);
	seq_printf(m, "ring_entries: %u\n", NEURON_DMA_RING_ENTRIES);
	seq_printf(m, "prod: %u\n", prod);
	seq_printf(m, "published: %u\n", published);
	seq_printf(m, "done_idx: %u\n", done_idx);
	seq_printf(m, "pending_jobs: %u\n", pending);
	seq_printf(m, "last_seqno: %llu\n", fence_seqno);
	seq_printf(m, "error: %u\n", error);
	seq_printf(m, "stopped: %d\n", stopped);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(neuron_debugfs_dma);

static int neuron_debugfs_exec_show(struct seq_file *m, void *unused)
{
	struct neuron_nc *nc = m->private;
	struct neuron_exec_queue *eq;
	struct neuron_job *job;
	u32 depth, pending = 0, seq;
	u64 running = 0, fence_seqno;
	bool dead;
	int ret;

	/* Pairs with the release of the queue's creation (neuron_exec.c). */
	eq = smp_load_acquire(&nc->exec);
	if (!eq) {
		seq_puts(m, "created: 0\n");
		return 0;
	}
	ret = mutex_lock_interruptible(&eq->run_lock);
	if (ret)
		return ret;
	seq = eq->seq;
	if (eq->running)
		running = eq->running->fence.seqno;
	spin_lock_irq(&eq->lock);
	depth = eq->depth;
	dead = eq->dead;
	fence_seqno = eq->timeline.seqno;
	list_for_each_entry(job, &eq->pending, node)
		pending++;
	spin_unlock_irq(&eq->lock);
	mutex_unlock(&eq->run_lock);

	seq_puts(m, "created: 1\n");
	seq_printf(m, "depth: %u\n", depth);
	seq_printf(m, "max_depth: %u\n", READ_ONCE(neuron_exec_queue_depth));
	seq_printf(m, "pending: %u\n", pending);
	seq_printf(m, "running_seqno: %llu\n", running);
	seq_printf(m, "hw_seq: %u\n", seq);
	seq_printf(m, "last_seqno: %llu\n", fence_seqno);
	seq_printf(m, "dead: %d\n", dead);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(neuron_debugfs_exec);

/**
 * neuron_debugfs_device_add() - make /sys/kernel/debug/neuron/neuronN/
 * @nd: the device, registered.
 */
void neuron_debugfs_device_add(struct neuron_device *nd)
{
	struct dentry *dir, *ncdir;
	char name[16];
	u32 i;

	if (IS_ERR_OR_NULL(neuron_debugfs_root))
		return;
	dir = debugfs_create_dir(dev_name(&nd->dev), neuron_debugfs_root);
	if (IS_ERR(dir))
		return;
	nd->debugfs = dir;
	for (i = 0; i < nd->hal->arch->nc_count; i++) {
		snprintf(name, sizeof(name), "nc%u", i);
		ncdir = debugfs_create_dir(name, dir);
		debugfs_create_file("dma", 0400, ncdir, &nd->nc[i],
				    &neuron_debugfs_dma_fops);
		debugfs_create_file("exec", 0400, ncdir, &nd->nc[i],
				    &neuron_debugfs_exec_fops);
	}
}

/* Remove the device's directory; reads in flight end first. */
void neuron_debugfs_device_remove(struct neuron_device *nd)
{
	debugfs_remove_recursive(nd->debugfs);
	nd->debugfs = NULL;
}

void neuron_debugfs_init(void)
{
	neuron_debugfs_root = debugfs_create_dir("neuron", NULL);
}

void neuron_debugfs_exit(void)
{
	debugfs_remove_recursive(neuron_debugfs_root);
	neuron_debugfs_root = NULL;
}
