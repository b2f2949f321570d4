// SPDX-License-Identifier: GPL-2.0
/*
 * neuron simulator: the DMA engines. A queue is programmed with its two
 * descriptor rings and a status address (ndhal_ops.dma_queue_start); the
 * doorbell (dma_queue_kick) hands it a new producer index and wakes its
 * work item, which consumes packets the way docs/hw-model.md describes:
 * read the TX and RX descriptors from host memory through the IOMMU, check
 * them (ring id, first/last, equal lengths), move the bytes between device
 * DRAM and host memory, and after a packet that asks for an interrupt,
 * write the completed count into the status and raise the NC's interrupt.
 * Anything malformed or unreachable halts the queue with an error in the
 * status: a DMA fault, never a kernel crash. Descriptors are untrusted.
 *
 * Knobs (sysfs of the simulated device, root): dma_latency_us added per
 * interrupting packet, dma_bandwidth_mbps (0: as fast as memcpy),
 * dma_fail_next (the next packet fails with an injected error),
 * dma_hang_nc (N + 1: the next packet on NeuronCore N is never completed,
 * the queue hangs there until it is stopped; 0: off).
 */
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "neuron_common.h"
#include "neuron_device.h"
#include "dma/neuron_dma.h"
#include "dma/neuron_ring.h"
#include "dma/neuron_desc.h"
#include "ndhal/ndhal.h"
#include "sim/sim.h"
#include "sim/sim_notify.h"

/**
 * struct neuron_sim_queue - state of one simulated DMA queue
 * @sd: the device.
 * @cfg: as programmed by the driver.
 * @head: next packet to process.
 * @prod: doorbell value (written by the driver side).
 * @stopped: set when the driver stops the queue.
 * @halted: set on an error, until the queue is programmed again.
 * @hung: the hang knob caught this queue: it consumes nothing more.
 * @work: processes packets.
 */
struct neuron_sim_queue {
	struct neuron_sim_dev *sd;
	struct ndhal_dma_queue_cfg cfg;
	u32 head;
	u32 prod;
	bool stopped;
	bool halted;
	bool hung;
	struct work_struct work;
};

/**
 * struct neuron_sim_dma - the DMA engines of a simulated device
 * @wq: runs the queues' work.
 * @lock: guards @queues.
 * @queues: engine * queues_per_engine + queue -> struct neuron_sim_queue.
 * @latency_us: knob.
 * @bandwidth_mbps: knob.
 * @fail_next: knob.
 * @hang_nc: knob.
 */
struct neuron_sim_dma {
	struct workqueue_struct *wq;
	struct mutex lock;		/* guards @queues */
	struct xarray queues;
	u32 latency_us;
	u32 bandwidth_mbps;
	u32 fail_next;
	u32 hang_nc;
};

/*
 * The page behind device address @addr: DRAM below, IOMMU above (its lock
 * held; @map caches the last mapping).
 */
static struct page *neuron_sim_page_locked(struct neuron_sim_dev *sd, u64 addr,
					   struct neuron_sim_map **map)
{
	lockdep_assert_held(&sd->iommu.lock);
	if (addr < NEURON_SIM_IOVA_BASE) {
		if (addr >= sd->nd->dram_size)
			return NULL;
		return xa_load(&sd->dram, addr >> PAGE_SHIFT);
	}
	return neuron_sim_iommu_page_locked(&sd->iommu, addr, map);
}

/*
 * Move @len bytes from @src to @dst, both device addresses. The IOMMU lock
 * is held throughout: no mapping goes, and so no mapped page is unmapped, mid-copy.
 */
static int neuron_sim_move(struct neuron_sim_dev *sd, u64 src, u64 dst, u32 len)
{
	struct neuron_sim_map *smap = NULL, *dmap = NULL;
	int ret = 0;

	mutex_lock(&sd->iommu.lock);
	while (len) {
		u32 n = min3(len, (u32)(PAGE_SIZE - offset_in_page(src)),
			     (u32)(PAGE_SIZE - offset_in_page(dst)));
		struct page *sp = neuron_sim_page_locked(sd, src, &smap);
		struct page *dp = neuron_sim_page_locked(sd, dst, &dmap);
		void *s, *d;

		if (!sp || !dp) {
			ret = NEURON_DMA_ERR_ADDR;
			break;
		}
		d = kmap_local_page(dp);
		s = kmap_local_page(sp);
		memcpy(d + offset_in_page(dst), s + offset_in_page(src), n);
		kunmap_local(s);
		kunmap_local(d);
		src += n;
		dst += n;
		len -= n;
	}
	mutex_unlock(&sd->iommu.lock);
	return ret;
}

/* Read descriptor @idx of the ring at @ring_iova. */
static int neuron_sim_read_desc(struct neuron_sim_queue *sq, u64 ring_iova,
				u32 idx, struct neuron_udma_desc *d)
{
	u64 at = ring_iova + (u64)neuron_ring_slot(sq->cfg.entries, idx) * sizeof(*d);

	return neuron_sim_iommu_read(&sq->sd->iommu, at, d, sizeof(*d));
}

/**
 * struct neuron_sim_pkt - what the engine learnt of a packet
 * @irq: its RX descriptor asks for an interrupt.
 * @bytes: its length.
 * @key: the notification key it is tagged with, 0 for none.
 * @end: the last packet of its job: worth a COMPLETION entry.
 * @tag: the job's tag, the entries' data.
 */
struct neuron_sim_pkt {
	bool irq;
	u32 bytes;
	u32 key;
	bool end;
	u32 tag;
};

/* One packet: returns 0, or a NEURON_DMA_ERR_* code; fills @p. */
static int neuron_sim_packet(struct neuron_sim_queue *sq, struct neuron_sim_pkt *p)
{
	u32 want = NEURON_DESC_FIRST | NEURON_DESC_LAST;
	u32 gen = neuron_ring_gen(sq->cfg.entries, sq->head);
	struct neuron_udma_desc tx, rx;
	u32 tctl, rctl, word;

	if (neuron_sim_read_desc(sq, sq->cfg.tx_iova, sq->head, &tx) ||
	    neuron_sim_read_desc(sq, sq->cfg.rx_iova, sq->head, &rx))
		return NEURON_DMA_ERR_ADDR;
	tctl = le32_to_cpu(tx.ctrl);
	rctl = le32_to_cpu(rx.ctrl);
	word = le32_to_cpu(rx.meta);
	p->key = word & NEURON_DESC_KEY;
	p->end = p->key && (word & NEURON_DESC_KEY_END);
	p->tag = le32_to_cpu(tx.meta);
	if ((tctl & want) != want || (rctl & want) != want ||
	    neuron_desc_ring_id(tctl) != gen || neuron_desc_ring_id(rctl) != gen ||
	    neuron_desc_len(tctl) != neuron_desc_len(rctl))
		return NEURON_DMA_ERR_DESC;
	if (READ_ONCE(sq->sd->dma->fail_next)) {
		WRITE_ONCE(sq->sd->dma->fail_next, 0);
		return NEURON_DMA_ERR_INJECTED;
	}
	if (READ_ONCE(sq->sd->dma->hang_nc) == sq->cfg.nc + 1 &&
	    cmpxchg(&sq->sd->dma->hang_nc, sq->cfg.nc + 1, 0) == sq->cfg.nc + 1) {
		sq->hung = true;
		return 0;
	}
	p->irq = rctl & NEURON_DESC_INT;
	p->bytes = neuron_desc_len(rctl);
	return neuron_sim_move(sq->sd, le64_to_cpu(tx.addr), le64_to_cpu(rx.addr),
			       p->bytes);
}

/*
 * Tell the NC's notification queues of the file the packet is tagged for,
 * if it set them up (COMPLETION for the last packet of a job: code =
 * engine, data = the job's tag; ERROR for a packet that failed: code =
 * NEURON_DMA_ERR_*, data = the tag), then write the status and raise the
 * interrupt. An untagged packet, or one whose descriptors could not be
 * read, is reported in no queue.
 */
static void neuron_sim_dma_report(struct neuron_sim_queue *sq, u32 err,
				  const struct neuron_sim_pkt *p)
{
	struct neuron_dma_status st = {
		.completed = cpu_to_le32(sq->head),
		.error = cpu_to_le32(err),
		.error_index = cpu_to_le32(err ? sq->head : 0),
	};

	/*
	 * The notification first: whoever the interrupt wakes (a copy that
	 * returns to userspace) must find it written.
	 */
	if (err)
		neuron_sim_notify_keyed(sq->sd, sq->cfg.nc, NEURON_NOTIFY_ERROR,
					p->key, err, p->tag);
	else if (p->end)
		neuron_sim_notify_keyed(sq->sd, sq->cfg.nc, NEURON_NOTIFY_COMPLETION,
					p->key, sq->cfg.engine, p->tag);
	/* An unreachable status address is the driver's bug: nothing to do. */
	if (neuron_sim_iommu_write(&sq->sd->iommu, sq->cfg.status_iova, &st,
				   sizeof(st)))
		return;
	neuron_sim_raise_irq(sq->sd, sq->cfg.vector);
}

/* Model time: latency per interrupting packet, and bandwidth. */
static void neuron_sim_dma_delay(struct neuron_sim_dma *dma, u64 bytes,
				 ktime_t start)
{
	u32 bw = READ_ONCE(dma->bandwidth_mbps);
	u64 us = READ_ONCE(dma->latency_us);
	s64 spent = ktime_us_delta(ktime_get(), start);

	if (bw)
		us += div_u64(bytes, bw);	/* MB/s is bytes per microsecond */
	if ((s64)us > spent)
		fsleep(us - spent);
}

static u32 neuron_sim_queue_prod(struct neuron_sim_queue *sq)
{
	/* Pairs with the kick's release: the descriptors below are written. */
	return smp_load_acquire(&sq->prod);
}

static void neuron_sim_queue_work(struct work_struct *work)
{
	struct neuron_sim_queue *sq = container_of(work, struct neuron_sim_queue, work);
	ktime_t start = ktime_get();
	u64 bytes = 0;
	u32 err = 0;

	while (!READ_ONCE(sq->stopped) && !sq->halted && !sq->hung &&
	       sq->head != neuron_sim_queue_prod(sq)) {
		struct neuron_sim_pkt p = {};

		err = neuron_sim_packet(sq, &p);
		if (sq->hung)
			break;
		if (err) {
			sq->halted = true;
			neuron_sim_dma_report(sq, err, &p);
			break;
		}
		sq->head++;
		bytes += p.bytes;
		if (p.irq) {
			neuron_sim_dma_delay(sq->sd->dma, bytes, start);
			neuron_sim_dma_report(sq, 0, &p);
			start = ktime_get();
			bytes = 0;
		}
		cond_resched();
	}
}

static unsigned long neuron_sim_qid(struct neuron_device *nd, u32 engine, u32 queue)
{
	return (unsigned long)engine * nd->hal->arch->dma_queues_per_engine + queue;
}

/*
 * The descriptors of our model (docs/hw-model.md): both sides first and
 * last of a one-descriptor packet, the ring id the ring's lap, the
 * interrupt bit on RX; word 1 carries the submitting file's key and the
 * job's tag (NEURON_DESC_KEY) for the notification queues.
 */
void neuron_sim_dma_desc(struct neuron_device *nd, struct neuron_udma_desc *tx,
			 struct neuron_udma_desc *rx, const struct ndhal_dma_packet *p)
{
	u32 flags = NEURON_DESC_FIRST | NEURON_DESC_LAST;

	neuron_desc_encode(tx, p->src, p->len, p->lap, flags);
	if (p->irq)
		flags |= NEURON_DESC_INT;
	neuron_desc_encode(rx, p->dst, p->len, p->lap, flags);
	if (p->key) {
		tx->meta = cpu_to_le32(p->tag);
		rx->meta = cpu_to_le32((p->key & NEURON_DESC_KEY) |
				       (p->end ? NEURON_DESC_KEY_END : 0));
	}
}

int neuron_sim_dma_queue_start(struct neuron_device *nd,
			       const struct ndhal_dma_queue_cfg *cfg)
{
	struct neuron_sim_dev *sd = nd->backend;
	struct neuron_sim_dma *dma = sd->dma;
	struct neuron_sim_queue *sq;
	int ret;

	if (neuron_sim_gone(nd))
		return -ENODEV;
	if (cfg->engine >= nd->hal->arch->dma_engines ||
	    cfg->queue >= nd->hal->arch->dma_queues_per_engine ||
	    !is_power_of_2(cfg->entries))
		return -EINVAL;
	sq = kzalloc(sizeof(*sq), GFP_KERNEL);
	if (!sq)
		return -ENOMEM;
	sq->sd = sd;
	sq->cfg = *cfg;
	INIT_WORK(&sq->work, neuron_sim_queue_work);
	mutex_lock(&dma->lock);
	ret = xa_insert(&dma->queues, neuron_sim_qid(nd, cfg->engine, cfg->queue),
			sq, GFP_KERNEL);
	mutex_unlock(&dma->lock);
	if (ret)
		kfree(sq);
	return ret;
}

void neuron_sim_dma_queue_kick(struct neuron_device *nd, u32 engine, u32 queue,
			       u32 prod, u32 added)
{
	struct neuron_sim_dev *sd = nd->backend;
	struct neuron_sim_queue *sq;

	if (neuron_sim_gone(nd))
		return;
	mutex_lock(&sd->dma->lock);
	sq = xa_load(&sd->dma->queues, neuron_sim_qid(nd, engine, queue));
	if (sq) {
		/* Pairs with the acquire in neuron_sim_queue_work(). */
		smp_store_release(&sq->prod, prod);
		queue_work(sd->dma->wq, &sq->work);
	}
	mutex_unlock(&sd->dma->lock);
}

void neuron_sim_dma_queue_stop(struct neuron_device *nd, u32 engine, u32 queue)
{
	struct neuron_sim_dev *sd = nd->backend;
	struct neuron_sim_queue *sq;

	if (neuron_sim_gone(nd))
		return;
	mutex_lock(&sd->dma->lock);
	sq = xa_erase(&sd->dma->queues, neuron_sim_qid(nd, engine, queue));
	mutex_unlock(&sd->dma->lock);
	if (!sq)
		return;
	WRITE_ONCE(sq->stopped, true);
	cancel_work_sync(&sq->work);
	kfree(sq);
}

/**
 * struct neuron_sim_knob - a u32 knob of struct neuron_sim_dma in sysfs
 * @attr: the attribute.
 * @off: offset of the knob in struct neuron_sim_dma.
 * @max: largest value accepted.
 */
struct neuron_sim_knob {
	struct device_attribute attr;
	size_t off;
	u32 max;
};

static u32 *neuron_sim_knob_ptr(struct device *dev, struct device_attribute *attr,
				const struct neuron_sim_knob **knob)
{
	struct neuron_sim_dev *sd = container_of(dev, struct neuron_sim_dev, dev);

	*knob = container_of(attr, struct neuron_sim_knob, attr);
	return (void *)sd->dma + (*knob)->off;
}

static ssize_t neuron_sim_knob_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	const struct neuron_sim_knob *knob;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*neuron_sim_knob_ptr(dev, attr, &knob)));
}

static ssize_t neuron_sim_knob_store(struct device *dev,
				     struct device_attribute *attr,
				     const char *buf, size_t count)
{
	const struct neuron_sim_knob *knob;
	u32 *ptr = neuron_sim_knob_ptr(dev, attr, &knob);
	u32 val;

	if (kstrtou32(buf, 10, &val) || val > knob->max)
		return -EINVAL;
	WRITE_ONCE(*ptr, val);
	return count;
}

static struct neuron_sim_knob neuron_sim_knob_latency = {
	.attr = __ATTR(dma_latency_us, 0644, neuron_sim_knob_show, neuron_sim_knob_store),
	.off = offsetof(struct neuron_sim_dma, latency_us),
	.max = USEC_PER_SEC,
};

static struct neuron_sim_knob neuron_sim_knob_bandwidth = {
	.attr = __ATTR(dma_bandwidth_mbps, 0644, neuron_sim_knob_show,
		       neuron_sim_knob_store),
	.off = offsetof(struct neuron_sim_dma, bandwidth_mbps),
	.max = 1000000,
};

static struct neuron_sim_knob neuron_sim_knob_fail = {
	.attr = __ATTR(dma_fail_next, 0644, neuron_sim_knob_show, neuron_sim_knob_store),
	.off = offsetof(struct neuron_sim_dma, fail_next),
	.max = 1,
};

static struct neuron_sim_knob neuron_sim_knob_hang = {
	.attr = __ATTR(dma_hang_nc, 0644, neuron_sim_knob_show, neuron_sim_knob_store),
	.off = offsetof(struct neuron_sim_dma, hang_nc),
	.max = NEURON_MAX_NC,
};

static struct attribute *neuron_sim_dma_attrs[] = {
	&neuron_sim_knob_latency.attr.attr,
	&neuron_sim_knob_bandwidth.attr.attr,
	&neuron_sim_knob_fail.attr.attr,
	&neuron_sim_knob_hang.attr.attr,
	NULL,
};

const struct attribute_group neuron_sim_dma_group = {
	.attrs = neuron_sim_dma_attrs,
};

int neuron_sim_dma_init(struct neuron_sim_dev *sd)
{
	struct neuron_sim_dma *dma = kzalloc(sizeof(*dma), GFP_KERNEL);

	if (!dma)
		return -ENOMEM;
	dma->wq = alloc_workqueue("neuron_sim%u", WQ_UNBOUND, 0, sd->id);
	if (!dma->wq) {
		kfree(dma);
		return -ENOMEM;
	}
	mutex_init(&dma->lock);
	xa_init(&dma->queues);
	sd->dma = dma;
	return 0;
}

/* Called when the simulated device is released: every queue is stopped. */
void neuron_sim_dma_fini(struct neuron_sim_dev *sd)
{
	struct neuron_sim_dma *dma = sd->dma;

	if (!dma)
		return;
	WARN_ON(!xa_empty(&dma->queues));
	xa_destroy(&dma->queues);
	destroy_workqueue(dma->wq);
	mutex_destroy(&dma->lock);
	kfree(dma);
}
