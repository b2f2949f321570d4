/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: the calls from the core into a device's backend (PCI or the
 * simulator), one small wrapper per op of struct ndhal_ops, so that no
 * caller reaches into nd->hal->ops itself. The ops a capability needs are
 * checked once when the device is created (neuron_hal_check()); the
 * optional ones (init, fini) are tested here. Calls that may reach the
 * hardware are made inside the removal guard (docs/locking.md), except the
 * release paths listed there; each wrapper asserts it (neuron_hw_assert()).
 */
#ifndef _NEURON_HW_H
#define _NEURON_HW_H

#include <linux/lockdep.h>
#include <linux/sched.h>
#include <linux/srcu.h>

#include "neuron_device.h"
#include "neuron_mem.h"

/*
 * A call into the backend is made inside @nd's removal guard, or on a
 * path that may reach it outside: the thread creating or removing the
 * device (nd->setup_task), or the giving back of a backend resource
 * (nd->res_lock held, neuron_hw_res_put()). Checked under lockdep only
 * (srcu_read_lock_held() knows nothing without it).
 */
static inline void neuron_hw_assert(struct neuron_device *nd)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	WARN_ON_ONCE(debug_locks && !srcu_read_lock_held(&nd->unplug_srcu) &&
		     READ_ONCE(nd->setup_task) != current &&
		     !lockdep_is_held(&nd->res_lock));
#endif
}

static inline const char *neuron_hw_name(struct neuron_device *nd)
{
	return nd->hal->ops->name;
}

/* What the backend is like (constant for a device; no call, no assertion). */
static inline bool neuron_hw_dram_uncleared(const struct neuron_device *nd)
{
	return nd->hal->ops->dram_uncleared;
}

static inline bool neuron_hw_dram_is_bar(const struct neuron_device *nd)
{
	return nd->hal->ops->dram_pfn;
}

static inline bool neuron_hw_dma_marker(const struct neuron_device *nd)
{
	return nd->hal->ops->dma_marker;
}

static inline bool neuron_hw_exec_drives(const struct neuron_device *nd)
{
	return nd->hal->ops->exec_drive;
}

static inline u32 neuron_hw_sem_poll_us(const struct neuron_device *nd)
{
	return nd->hal->ops->sem_poll_us;
}

static inline bool neuron_hw_notify_polled(const struct neuron_device *nd)
{
	return nd->hal->ops->notify_polled;
}

static inline int neuron_hw_init(struct neuron_device *nd)
{
	neuron_hw_assert(nd);
	return nd->hal->ops->init ? nd->hal->ops->init(nd) : 0;
}

static inline void neuron_hw_fini(struct neuron_device *nd)
{
	neuron_hw_assert(nd);
	if (nd->hal->ops->fini)
		nd->hal->ops->fini(nd);
}

static inline int neuron_hw_dram_alloc(struct neuron_device *nd,
				       struct neuron_mem *mem)
{
	neuron_hw_assert(nd);
	return nd->hal->ops->dram_alloc(nd, mem);
}

static inline void neuron_hw_dram_free(struct neuron_device *nd,
				       struct neuron_mem *mem)
{
	neuron_hw_assert(nd);
	nd->hal->ops->dram_free(nd, mem);
}

/* Optional: 0 (no page frame) for a backend whose memory has pages. */
static inline unsigned long neuron_hw_dram_pfn(struct neuron_device *nd,
					       struct neuron_mem *mem,
					       unsigned long i)
{
	neuron_hw_assert(nd);
	return nd->hal->ops->dram_pfn ? nd->hal->ops->dram_pfn(nd, mem, i) : 0;
}

static inline int neuron_hw_dma_map(struct neuron_device *nd, struct page **pages,
				    unsigned long npages, u64 *addrs)
{
	neuron_hw_assert(nd);
	return nd->hal->ops->dma_map(nd, pages, npages, addrs);
}

static inline int neuron_hw_dma_map_block(struct neuron_device *nd, struct page *page,
					  unsigned long npages, u64 *addr)
{
	neuron_hw_assert(nd);
	return nd->hal->ops->dma_map_block(nd, page, npages, addr);
}

static inline void neuron_hw_dma_unmap_block(struct neuron_device *nd,
					     unsigned long npages, u64 addr)
{
	neuron_hw_assert(nd);
	nd->hal->ops->dma_unmap_block(nd, npages, addr);
}

static inline void neuron_hw_dma_unmap(struct neuron_device *nd,
				       unsigned long npages, const u64 *addrs)
{
	neuron_hw_assert(nd);
	nd->hal->ops->dma_unmap(nd, npages, addrs);
}

static inline int neuron_hw_coherent_alloc(struct neuron_device *nd, size_t size,
					   void **va, u64 *iova, void **cookie)
{
	neuron_hw_assert(nd);
	return nd->hal->ops->coherent_alloc(nd, size, va, iova, cookie);
}

static inline void neuron_hw_coherent_free(struct neuron_device *nd, size_t size,
					   void *va, u64 iova, void *cookie)
{
	neuron_hw_assert(nd);
	nd->hal->ops->coherent_free(nd, size, va, iova, cookie);
}

static inline int neuron_hw_irq_request(struct neuron_device *nd,
					unsigned int vector,
					irq_handler_t handler, void *data)
{
	neuron_hw_assert(nd);
	return nd->hal->ops->irq_request(nd, vector, handler, data);
}

static inline void neuron_hw_irq_free(struct neuron_device *nd,
				      unsigned int vector)
{
	neuron_hw_assert(nd);
	nd->hal->ops->irq_free(nd, vector);
}

static inline void neuron_hw_irq_sync(struct neuron_device *nd,
				      unsigned int vector)
{
	neuron_hw_assert(nd);
	nd->hal->ops->irq_sync(nd, vector);
}

static inline int neuron_hw_dma_queue_start(struct neuron_device *nd,
					    const struct ndhal_dma_queue_cfg *cfg)
{
	neuron_hw_assert(nd);
	return nd->hal->ops->dma_queue_start(nd, cfg);
}

static inline void neuron_hw_dma_desc(struct neuron_device *nd,
				      struct neuron_udma_desc *tx,
				      struct neuron_udma_desc *rx,
				      const struct ndhal_dma_packet *p)
{
	neuron_hw_assert(nd);
	nd->hal->ops->dma_desc(nd, tx, rx, p);
}

/* Optional: queue 0 of the NC's first engine for a backend without it. */
static inline void neuron_hw_dma_copy_queue(struct neuron_device *nd, u32 nci,
					    u32 *engine, u32 *queue)
{
	neuron_hw_assert(nd);
	if (nd->hal->ops->dma_copy_queue) {
		nd->hal->ops->dma_copy_queue(nd, nci, engine, queue);
	} else {
		*engine = nci * nd->hal->arch->dma_engines_per_nc;
		*queue = 0;
	}
}

static inline void neuron_hw_dma_queue_kick(struct neuron_device *nd, u32 engine,
					    u32 queue, u32 prod, u32 added)
{
	neuron_hw_assert(nd);
	nd->hal->ops->dma_queue_kick(nd, engine, queue, prod, added);
}

/* Optional: 0 (no error known) for a backend that reports its own. */
static inline u32 neuron_hw_dma_queue_error(struct neuron_device *nd, u32 engine,
					    u32 queue)
{
	neuron_hw_assert(nd);
	return nd->hal->ops->dma_queue_error ?
	       nd->hal->ops->dma_queue_error(nd, engine, queue) : 0;
}

static inline void neuron_hw_dma_queue_stop(struct neuron_device *nd, u32 engine,
					    u32 queue)
{
	neuron_hw_assert(nd);
	nd->hal->ops->dma_queue_stop(nd, engine, queue);
}

static inline int neuron_hw_notify_init(struct neuron_device *nd, u32 nci,
					u32 type, u64 iova, u32 entries, u32 key)
{
	neuron_hw_assert(nd);
	return nd->hal->ops->notify_init(nd, nci, type, iova, entries, key);
}

static inline bool neuron_hw_has_nc_reset(const struct neuron_device *nd)
{
	return nd->hal->ops->nc_reset;
}

/* Optional: 0 (nothing more to do) for a backend with no NC reset. */
static inline int neuron_hw_nc_reset(struct neuron_device *nd, u32 nci)
{
	neuron_hw_assert(nd);
	return nd->hal->ops->nc_reset ? nd->hal->ops->nc_reset(nd, nci) : 0;
}

static inline void neuron_hw_notify_fini(struct neuron_device *nd, u32 nci,
					 u32 type)
{
	neuron_hw_assert(nd);
	nd->hal->ops->notify_fini(nd, nci, type);
}

static inline int neuron_hw_notify_consume(struct neuron_device *nd, u32 nci,
					   u32 type, u32 tail)
{
	neuron_hw_assert(nd);
	return nd->hal->ops->notify_consume(nd, nci, type, tail);
}

static inline int neuron_hw_sem_update(struct neuron_device *nd, u32 nci,
				       u32 kind, u32 index, u32 op, u32 val,
				       u32 *out)
{
	neuron_hw_assert(nd);
	return nd->hal->ops->sem_update(nd, nci, kind, index, op, val, out);
}

static inline int neuron_hw_exec_start(struct neuron_device *nd,
				       const struct ndhal_exec *e)
{
	neuron_hw_assert(nd);
	return nd->hal->ops->exec_start(nd, e);
}

static inline void neuron_hw_exec_reset(struct neuron_device *nd, u32 nci,
					u32 code)
{
	neuron_hw_assert(nd);
	nd->hal->ops->exec_reset(nd, nci, code);
}

/* Optional: -EAGAIN (nothing to do) for a backend without it. */
static inline int neuron_hw_exec_drive(struct neuron_device *nd, u32 nci)
{
	neuron_hw_assert(nd);
	return nd->hal->ops->exec_drive ? nd->hal->ops->exec_drive(nd, nci) : -EAGAIN;
}

/*
 * A firmware to ask (the serial number, the ECC counters): a backend with
 * fw_info whose engines are driven (the mailbox's buffers are DMA).
 */
static inline bool neuron_hw_has_fw(const struct neuron_device *nd)
{
	return nd->hal->ops->fw_info && !(nd->hal->flags & NEURON_DEV_ENGINES_OFF);
}

/*
 * Ask the firmware, inside the removal guard (it may take seconds):
 * -EOPNOTSUPP without one, -ENODEV once the device is going.
 */
static inline int neuron_hw_fw_info(struct neuron_device *nd, struct ndhal_fw_info *info)
{
	int idx, ret;

	if (!neuron_hw_has_fw(nd))
		return -EOPNOTSUPP;
	if (!neuron_dev_enter(nd, &idx))
		return -ENODEV;
	ret = nd->hal->ops->fw_info(nd, info);
	neuron_dev_exit(nd, idx);
	return ret;
}

#endif /* _NEURON_HW_H */
