// SPDX-License-Identifier: GPL-2.0
/*
 * neuron simulator: notification queues, device side.
 *
 * Per (NeuronCore, type) the device has a set of registers the driver
 * programs through the ndhal notify ops: base address, size, and the
 * consumer index (tail). The device keeps the producer index (head) and
 * an overflow count. To post a notification it writes the entry at
 * head % entries through the IOMMU, advances head, writes head and
 * overflow into the header at the base address, and raises the NC's
 * NEURON_IRQ_NOTIFY interrupt. When head - tail == entries the ring is
 * full: the notification is dropped and counted, never written over an
 * unread entry. What the driver hands the device (nc, type, sizes, the
 * tail) is checked before use, as hardware registers would be.
 *
 * Test knobs (root only, on /sys/bus/neuron_sim/devices/neuron_simID/):
 *   inject_notify       "NC TYPE CODE DATA [COUNT]": post COUNT (default
 *                       1, at most NEURON_SIM_NOTIFY_MAX_COUNT)
 *                       notifications, the i-th (from 0) with data DATA + i
 *   inject_notify_head  "NC TYPE HEAD": a faulty device: write HEAD into
 *                       the header (the device's own head is unchanged)
 *                       and raise the interrupt
 * Both fail with -ENXIO when the queue is not set up.
 *
 * Locking: one mutex per queue serialises the driver's register writes
 * and the posting of notifications (which may sleep in the IOMMU).
 */
#include <linux/device.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include <neuron.h>

#include "neuron_common.h"
#include "neuron_device.h"
#include "ndhal/ndhal.h"
#include "sim/sim.h"
#include "sim/sim_notify.h"

/**
 * struct neuron_sim_notify_q - one queue of the device
 * @lock: guards @regs and the writes to the queue's memory.
 * @regs: its registers.
 */
struct neuron_sim_notify_q {
	struct mutex lock;		/* guards @regs */
	struct neuron_sim_notify_regs regs;
};

/**
 * struct neuron_sim_notify - the notification block of a simulated device
 * @q: the queues, by NeuronCore and type.
 */
struct neuron_sim_notify {
	struct neuron_sim_notify_q q[NEURON_MAX_NC][NEURON_NOTIFY_TYPES];
};

/* ---- pure functions (KUnit) ---- */

/*
 * Is there room for one more entry? If not, count the dropped one. The
 * caller writes the entry at @r->head and then advances it.
 */
VISIBLE_IF_KUNIT bool neuron_sim_notify_room(struct neuron_sim_notify_regs *r)
{
	if (r->head - r->tail >= r->entries) {
		r->overflow++;
		return false;
	}
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_sim_notify_room);

/* A tail from the driver must lie between the current tail and head. */
VISIBLE_IF_KUNIT bool neuron_sim_notify_tail_ok(const struct neuron_sim_notify_regs *r,
						u32 tail)
{
	return tail - r->tail <= r->head - r->tail;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_sim_notify_tail_ok);

/**
 * neuron_sim_notify_parse() - split a knob's text into numbers
 * @text: blank-separated numbers (decimal, or hex with 0x); changed.
 * @val: where the numbers go.
 * @max: room in @val.
 *
 * Return: how many numbers were read, or -EINVAL for something that is not
 * a 32-bit number or for more than @max numbers.
 */
VISIBLE_IF_KUNIT int neuron_sim_notify_parse(char *text, u32 *val, int max)
{
	char *s = strim(text), *tok;
	int n = 0;

	while ((tok = strsep(&s, " \t")) != NULL) {
		if (!*tok)
			continue;
		if (n == max || kstrtou32(tok, 0, &val[n]))
			return -EINVAL;
		n++;
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_sim_notify_parse);

/* ---- the device ---- */

static int neuron_sim_notify_write_field(struct neuron_sim_dev *sd,
					 const struct neuron_sim_notify_regs *r,
					 size_t offset, u32 val)
{
	return neuron_sim_iommu_write32(&sd->iommu, r->iova + offset, val);
}

#define NEURON_SIM_HDR(field)	offsetof(struct neuron_notify_header, field)

static struct neuron_sim_notify_q *neuron_sim_notify_q(struct neuron_sim_dev *sd,
						       u32 nc, u32 type)
{
	if (!sd->notify || nc >= NEURON_MAX_NC || type >= NEURON_NOTIFY_TYPES)
		return NULL;
	return &sd->notify->q[nc][type];
}

int neuron_sim_notify_queue_init(struct neuron_device *nd, u32 nc, u32 type,
				 u64 iova, u32 entries, u32 key)
{
	struct neuron_sim_dev *sd = nd->backend;
	struct neuron_sim_notify_q *q = neuron_sim_notify_q(sd, nc, type);
	struct neuron_sim_notify_regs *r;
	int ret;

	if (!q || nc >= nd->hal->arch->nc_count || !is_power_of_2(entries) ||
	    entries < NEURON_NOTIFY_MIN_ENTRIES || entries > NEURON_NOTIFY_MAX_ENTRIES ||
	    !PAGE_ALIGNED(iova))
		return -EINVAL;
	mutex_lock(&q->lock);
	r = &q->regs;
	r->iova = iova;
	r->entries = entries;
	r->head = 0;
	r->tail = 0;
	r->overflow = 0;
	r->key = key;
	ret = neuron_sim_notify_write_field(sd, r, NEURON_SIM_HDR(head), 0);
	if (!ret)
		ret = neuron_sim_notify_write_field(sd, r, NEURON_SIM_HDR(tail), 0);
	if (!ret)
		ret = neuron_sim_notify_write_field(sd, r, NEURON_SIM_HDR(overflow), 0);
	if (!ret)
		ret = neuron_sim_notify_write_field(sd, r, NEURON_SIM_HDR(entries),
						    entries);
	r->enabled = !ret;
	mutex_unlock(&q->lock);
	return ret;
}

void neuron_sim_notify_queue_fini(struct neuron_device *nd, u32 nc, u32 type)
{
	struct neuron_sim_notify_q *q = neuron_sim_notify_q(nd->backend, nc, type);

	if (!q)
		return;
	mutex_lock(&q->lock);
	q->regs.enabled = false;
	mutex_unlock(&q->lock);
}

int neuron_sim_notify_queue_consume(struct neuron_device *nd, u32 nc, u32 type,
				    u32 tail)
{
	struct neuron_sim_dev *sd = nd->backend;
	struct neuron_sim_notify_q *q = neuron_sim_notify_q(sd, nc, type);
	int ret;

	if (!q)
		return -EINVAL;
	mutex_lock(&q->lock);
	if (!q->regs.enabled) {
		ret = -ENXIO;
	} else if (!neuron_sim_notify_tail_ok(&q->regs, tail)) {
		ret = -EINVAL;
	} else {
		q->regs.tail = tail;
		ret = neuron_sim_notify_write_field(sd, &q->regs, NEURON_SIM_HDR(tail), tail);
	}
	mutex_unlock(&q->lock);
	return ret;
}

/* Post (@code, @data) into queue (@nc, @type); with @key != 0 only if its key. */
static int neuron_sim_notify_post(struct neuron_sim_dev *sd, u32 nc, u32 type,
				  u32 key, u32 code, u32 data)
{
	struct neuron_sim_notify_q *q = neuron_sim_notify_q(sd, nc, type);
	struct neuron_sim_notify_regs *r;
	struct neuron_notify_entry e;
	int ret = 0;

	if (!q)
		return -EINVAL;
	mutex_lock(&q->lock);
	r = &q->regs;
	if (!r->enabled || (key && r->key != key)) {
		ret = -ENXIO;
		goto out;
	}
	if (neuron_sim_notify_room(r)) {
		e.seq = r->head;
		e.type = type;
		e.nc = nc;
		e.code = code;
		e.data = data;
		ret = neuron_sim_iommu_write(&sd->iommu, r->iova + NEURON_NOTIFY_ENTRY_OFFSET +
					     (u64)(r->head & (r->entries - 1)) * sizeof(e),
					     &e, sizeof(e));
		if (ret)
			goto out;
		r->head++;
	}
	/* The entry is in memory before the head that publishes it. */
	smp_wmb();
	ret = neuron_sim_notify_write_field(sd, r, NEURON_SIM_HDR(overflow), r->overflow);
	if (!ret)
		ret = neuron_sim_notify_write_field(sd, r, NEURON_SIM_HDR(head), r->head);
	neuron_sim_raise_irq(sd, NEURON_IRQ_NOTIFY(nc));
out:
	mutex_unlock(&q->lock);
	return ret;
}

int neuron_sim_notify(struct neuron_sim_dev *sd, u32 nc, u32 type, u32 code,
		      u32 data)
{
	return neuron_sim_notify_post(sd, nc, type, 0, code, data);
}

int neuron_sim_notify_keyed(struct neuron_sim_dev *sd, u32 nc, u32 type,
			    u32 key, u32 code, u32 data)
{
	return key ? neuron_sim_notify_post(sd, nc, type, key, code, data) : -ENXIO;
}

int neuron_sim_notify_alloc(struct neuron_sim_dev *sd)
{
	unsigned int nc, t;

	sd->notify = kzalloc(sizeof(*sd->notify), GFP_KERNEL);
	if (!sd->notify)
		return -ENOMEM;
	for (nc = 0; nc < NEURON_MAX_NC; nc++)
		for (t = 0; t < NEURON_NOTIFY_TYPES; t++)
			mutex_init(&sd->notify->q[nc][t].lock);
	return 0;
}

void neuron_sim_notify_free(struct neuron_sim_dev *sd)
{
	unsigned int nc, t;

	if (!sd->notify)
		return;
	for (nc = 0; nc < NEURON_MAX_NC; nc++)
		for (t = 0; t < NEURON_NOTIFY_TYPES; t++)
			mutex_destroy(&sd->notify->q[nc][t].lock);
	kfree(sd->notify);
	sd->notify = NULL;
}

/* ---- test knobs ---- */

/* Parse a knob's text (at most @max numbers) into @val: count or -errno. */
static int neuron_sim_notify_knob(const char *buf, size_t count, u32 *val, int max)
{
	char *text;
	int n;

	text = kstrndup(buf, count, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	n = neuron_sim_notify_parse(text, val, max);
	kfree(text);
	return n;
}

static ssize_t inject_notify_store(struct device *dev, struct device_attribute *attr,
				   const char *buf, size_t count)
{
	struct neuron_sim_dev *sd = container_of(dev, struct neuron_sim_dev, dev);
	u32 v[5] = { 0, 0, 0, 0, 1 };
	u32 i;
	int n, ret;

	n = neuron_sim_notify_knob(buf, count, v, ARRAY_SIZE(v));
	if (n < 0)
		return n;
	if (n < 4 || !v[4] || v[4] > NEURON_SIM_NOTIFY_MAX_COUNT)
		return -EINVAL;
	for (i = 0; i < v[4]; i++) {
		ret = neuron_sim_notify(sd, v[0], v[1], v[2], v[3] + i);
		if (ret)
			return ret;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return count;
}
static DEVICE_ATTR_WO(inject_notify);

static ssize_t inject_notify_head_store(struct device *dev,
					struct device_attribute *attr,
					const char *buf, size_t count)
{
	struct neuron_sim_dev *sd = container_of(dev, struct neuron_sim_dev, dev);
	struct neuron_sim_notify_q *q;
	u32 v[3];
	int n, ret;

	n = neuron_sim_notify_knob(buf, count, v, ARRAY_SIZE(v));
	if (n < 0)
		return n;
	q = n == 3 ? neuron_sim_notify_q(sd, v[0], v[1]) : NULL;
	if (!q)
		return -EINVAL;
	mutex_lock(&q->lock);
	ret = -ENXIO;
	if (q->regs.enabled)
		ret = neuron_sim_notify_write_field(sd, &q->regs, NEURON_SIM_HDR(head), v[2]);
	if (!ret)
		neuron_sim_raise_irq(sd, NEURON_IRQ_NOTIFY(v[0]));
	mutex_unlock(&q->lock);
	return ret ? ret : count;
}
static DEVICE_ATTR_WO(inject_notify_head);

static struct attribute *neuron_sim_notify_attrs[] = {
	&dev_attr_inject_notify.attr,
	&dev_attr_inject_notify_head.attr,
	NULL,
};

const struct attribute_group neuron_sim_notify_group = {
	.attrs = neuron_sim_notify_attrs,
};
