/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron simulator: internal definitions. The simulator is the "hardware"
 * behind the sim ndhal backend: it owns its DRAM, an IOMMU through which it
 * reaches host memory, its DMA queues and its interrupt lines. Everything
 * it reads from host memory (descriptors) is untrusted.
 */
#ifndef _NEURON_SIM_H
#define _NEURON_SIM_H

#include <linux/device.h>
#include <linux/highmem.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/maple_tree.h>
#include <linux/mutex.h>
#include <linux/xarray.h>

#include "neuron_compat.h"
#include "neuron_device.h"
#include "neuron_mem.h"
#include "neuron_nc.h"

/*
 * Host addresses the device uses are IOVAs of the simulated IOMMU, all at
 * or above NEURON_SIM_IOVA_BASE; device DRAM addresses are below the DRAM
 * size. Our own choice (docs/hw-model.md).
 */
#define NEURON_SIM_IOVA_BASE	BIT_ULL(48)
#define NEURON_SIM_IOVA_SIZE	BIT_ULL(47)

/* Room for the semaphores and events of one NC of any arch. */
#define NEURON_SIM_SEMS		256

/**
 * struct neuron_sim_iommu - the simulated IOMMU
 * @lock: guards @maps (external lock of the maple tree).
 * @maps: IOVA page number range -> struct neuron_sim_map.
 */
struct neuron_sim_iommu {
	struct mutex lock;		/* guards @maps */
	struct maple_tree maps;
};

struct neuron_sim_dma;
struct neuron_sim_notify;
struct neuron_sim_tpb;

/**
 * struct neuron_sim_irq - one interrupt line of the simulated device
 * @handler: the driver's handler, NULL while none is requested.
 * @data: its argument.
 * @vector: the line's number.
 * @work: raises the interrupt: runs @handler in hard interrupt context.
 */
struct neuron_sim_irq {
	irq_handler_t handler;
	void *data;
	unsigned int vector;
	struct irq_work work;
};

/**
 * struct neuron_sim_dev - one simulated device
 * @dev: the device on the neuron_sim bus, parent of /dev/neuronN.
 * @list: entry in neuron_sim_devs.
 * @id: ID given by root.
 * @hal: arch table of the device, chosen at creation.
 * @dram_size: its device memory in bytes, chosen at creation.
 * @probe_ret: result of the last probe (1 before the first).
 * @nd: the neuron device of the current binding (made by the driver's
 *	probe, removed by its remove), NULL while unbound.
 * @dram: the simulated DRAM: device page number -> page, for the pages
 *	that back allocated device memory; an entry is only ever erased by
 *	the memory object whose page it holds.
 * @iommu: translation of host addresses.
 * @irq: interrupt lines, see ndhal.h for their numbering.
 * @dma: DMA engine state (sim_dma.c).
 * @notify: notification queues (sim_notify.c, declared in sim_notify.h).
 * @tpb: the compute engines of each NC and their executors (sim_tpb.c).
 * @sem_lock: guards @sems.
 * @sems: the semaphores and events of every NC, NEURON_SIM_SEMS of each
 *	kind per NC (the arch's counts of them are used; events are 0 or 1);
 *	cleared when a binding starts.
 * @gone: the driver tore the backend of the current binding down
 *	(ndhal_ops.fini): any later call of the driver into it is a bug (on
 *	silicon, a use of freed state), reported with a WARN and refused.
 *	Cleared when a new binding starts.
 *
 * The structure is the simulated hardware and belongs to the bus device:
 * made by new_device, freed at the release of @dev. It outlives every
 * binding: the memory objects of files opened on an earlier binding (their
 * neuron device holds @dev) may still unmap and free through it. A new
 * binding starts from an empty view all the same (docs/hw-model.md, "The
 * neuron_sim bus").
 */
struct neuron_sim_dev {
	struct device dev;
	struct list_head list;
	u32 id;
	const struct ndhal *hal;
	u64 dram_size;
	int probe_ret;
	struct neuron_device *nd;
	struct xarray dram;
	struct neuron_sim_iommu iommu;
	struct neuron_sim_irq irq[NEURON_IRQ_COUNT];
	struct neuron_sim_dma *dma;
	struct neuron_sim_notify *notify;
	struct neuron_sim_tpb *tpb;
	bool gone;
	spinlock_t sem_lock;		/* guards @sems */
	u32 *sems;
};

/* Copy @n bytes between @buf and @page at @off: to the page when @write. */
static inline void neuron_sim_page_xfer(struct page *page, size_t off,
					void *buf, size_t n, bool write)
{
	void *va = kmap_local_page(page);

	if (write)
		memcpy(va + off, buf, n);
	else
		memcpy(buf, va + off, n);
	kunmap_local(va);
}

/* Is the backend of @nd torn down? WARNs: the driver must not call then. */
static inline bool neuron_sim_gone(struct neuron_device *nd)
{
	struct neuron_sim_dev *sd = nd->backend;

	return WARN_ONCE(READ_ONCE(sd->gone),
			 "neuron_sim%u: backend called after its removal\n", sd->id);
}

/* sim.c */
void neuron_sim_raise_irq(struct neuron_sim_dev *sd, unsigned int vector);

/* sim_dma.c */
extern const struct attribute_group neuron_sim_dma_group;
int neuron_sim_dma_init(struct neuron_sim_dev *sd);
void neuron_sim_dma_fini(struct neuron_sim_dev *sd);
void neuron_sim_dma_desc(struct neuron_device *nd, struct neuron_udma_desc *tx,
			 struct neuron_udma_desc *rx, const struct ndhal_dma_packet *p);
int neuron_sim_dma_queue_start(struct neuron_device *nd,
			       const struct ndhal_dma_queue_cfg *cfg);
void neuron_sim_dma_queue_kick(struct neuron_device *nd, u32 engine, u32 queue,
			       u32 prod, u32 added);
void neuron_sim_dma_queue_stop(struct neuron_device *nd, u32 engine, u32 queue);

/* sim_tpb.c */
extern const struct attribute_group neuron_sim_tpb_group;
int neuron_sim_tpb_init(struct neuron_sim_dev *sd);
void neuron_sim_tpb_fini(struct neuron_sim_dev *sd);
void neuron_sim_tpb_stop_all(struct neuron_sim_dev *sd);
int neuron_sim_exec_start(struct neuron_device *nd, const struct ndhal_exec *e);
void neuron_sim_exec_reset(struct neuron_device *nd, u32 nc, u32 code);
int neuron_sim_exec_drive(struct neuron_device *nd, u32 nc);

/* sim_iommu.c */
void neuron_sim_iommu_init(struct neuron_sim_iommu *mmu);
void neuron_sim_iommu_fini(struct neuron_sim_iommu *mmu);
int neuron_sim_iommu_map(struct neuron_sim_iommu *mmu, struct page **pages,
			 unsigned long npages, u64 *iova);
void neuron_sim_iommu_unmap(struct neuron_sim_iommu *mmu, u64 iova);
int neuron_sim_iommu_write(struct neuron_sim_iommu *mmu, u64 iova,
			   const void *src, size_t len);
int neuron_sim_iommu_read(struct neuron_sim_iommu *mmu, u64 iova, void *dst,
			  size_t len);
int neuron_sim_iommu_write32(struct neuron_sim_iommu *mmu, u64 iova, u32 val);
struct neuron_sim_map;
struct page *neuron_sim_iommu_page_locked(struct neuron_sim_iommu *mmu, u64 iova,
					  struct neuron_sim_map **cache);

#endif /* _NEURON_SIM_H */
