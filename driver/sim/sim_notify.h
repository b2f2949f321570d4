/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron simulator: notification queues, device side (sim_notify.c).
 */
#ifndef _NEURON_SIM_NOTIFY_H
#define _NEURON_SIM_NOTIFY_H

#include <linux/bits.h>
#include <linux/sysfs.h>
#include <linux/types.h>

struct neuron_device;
struct neuron_sim_dev;

/* Largest COUNT of one write to inject_notify. */
#define NEURON_SIM_NOTIFY_MAX_COUNT	BIT(20)

/**
 * struct neuron_sim_notify_regs - the "registers" of one queue
 * @iova: device address of the header; entries from
 *	@iova + NEURON_NOTIFY_ENTRY_OFFSET.
 * @entries: ring size, a power of two.
 * @head: producer index, free running.
 * @tail: consumer index the driver gave.
 * @overflow: notifications dropped because the ring was full.
 * @key: the owner's notification key: the DMA engines report here only
 *	the packets tagged with it.
 * @enabled: programmed by the driver and not stopped.
 */
struct neuron_sim_notify_regs {
	u64 iova;
	u32 entries;
	u32 head;
	u32 tail;
	u32 overflow;
	u32 key;
	bool enabled;
};

int neuron_sim_notify_alloc(struct neuron_sim_dev *sd);
void neuron_sim_notify_free(struct neuron_sim_dev *sd);

/* ndhal ops of the simulator (neuron_sim_ops). */
int neuron_sim_notify_queue_init(struct neuron_device *nd, u32 nc, u32 type,
				 u64 iova, u32 entries, u32 key);
void neuron_sim_notify_queue_fini(struct neuron_device *nd, u32 nc, u32 type);
int neuron_sim_notify_queue_consume(struct neuron_device *nd, u32 nc, u32 type,
				    u32 tail);

/*
 * The device posts a notification to queue (@nc, @type) and raises
 * NEURON_IRQ_NOTIFY(@nc). Process context (it may sleep). Return: 0
 * (written, or dropped and counted because the ring was full), -ENXIO
 * (the queue is not set up: dropped), -EINVAL, -EFAULT (IOMMU fault).
 */
int neuron_sim_notify(struct neuron_sim_dev *sd, u32 nc, u32 type, u32 code,
		      u32 data);
/* The same for a DMA packet tagged with @key: only into the queue of @key. */
int neuron_sim_notify_keyed(struct neuron_sim_dev *sd, u32 nc, u32 type,
			    u32 key, u32 code, u32 data);

/* Attributes of the simulated device: inject_notify, inject_notify_head. */
extern const struct attribute_group neuron_sim_notify_group;

#if IS_ENABLED(CONFIG_KUNIT)
bool neuron_sim_notify_room(struct neuron_sim_notify_regs *r);
bool neuron_sim_notify_tail_ok(const struct neuron_sim_notify_regs *r, u32 tail);
int neuron_sim_notify_parse(char *text, u32 *val, int max);
#endif

#endif /* _NEURON_SIM_NOTIFY_H */
