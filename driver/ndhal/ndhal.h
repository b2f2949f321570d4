/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndhal: the per-arch layer. Each arch is described by one const table of
 * geometry (struct ndhal_arch) and each backend (silicon of an arch, or the
 * simulator) by one const ops table; a device points at a const struct ndhal
 * chosen at probe. What varies by arch (geometry, and where the registers
 * are: ndhal_regs.h) lives in the arch table; what varies by platform (PCI
 * or simulator) lives in the ops. Nothing here is global or mutable, so devices of several
 * archs coexist. Sources of the numbers: docs/hw-facts.md.
 */
#ifndef _NEURON_NDHAL_H
#define _NEURON_NDHAL_H

#include <linux/interrupt.h>
#include <linux/types.h>

#include <neuron.h>

#include "neuron_common.h"

/*
 * Interrupt vectors of a device: one per NeuronCore for its DMA queues,
 * then one per NeuronCore for its notification queues.
 */
#define NEURON_IRQ_DMA(nc)	(nc)
#define NEURON_IRQ_NOTIFY(nc)	(NEURON_MAX_NC + (nc))
#define NEURON_IRQ_EXEC(nc)	(2 * NEURON_MAX_NC + (nc))
#define NEURON_IRQ_COUNT	(3 * NEURON_MAX_NC)

struct neuron_device;
struct neuron_mem;
struct neuron_udma_desc;
struct ndhal_arch_regs;
struct ndhal_silicon;

/**
 * struct ndhal_arch - geometry of one arch
 * @arch: NEURON_ARCH_* value.
 * @name: "v1", "v2", "v3".
 * @nc_count: NeuronCores per device.
 * @dma_engines: DMA engines per device.
 * @dma_engines_per_nc: DMA engines belonging to each NeuronCore (the first
 *	nc_count * dma_engines_per_nc engines; the rest move host data).
 * @dma_queues_per_engine: queues of one DMA engine.
 * @dram_channels: device DRAM channels.
 * @semaphores_per_nc: semaphores of one NeuronCore.
 * @events_per_nc: events of one NeuronCore.
 * @bar_mask: the PCI BARs the arch uses (bit n = BAR n).
 * @reg_bar: the BAR holding the registers.
 * @dram_bar: the BAR exposing device DRAM.
 * @regs: where the registers are in @reg_bar, for a backend that programs
 *	the silicon; reach it through the accessors of ndhal_regs.h only.
 *	NULL if the arch has no register map.
 * @silicon: what else drives the arch's engines (ndhal_silicon.h), NULL
 *	if the PCI backend does not drive them (v1).
 */
struct ndhal_arch {
	u32 arch;
	const char *name;
	u32 nc_count;
	u32 dma_engines;
	u32 dma_engines_per_nc;
	u32 dma_queues_per_engine;
	u32 dram_channels;
	u32 semaphores_per_nc;
	u32 events_per_nc;
	u32 bar_mask;
	u8 reg_bar;
	u8 dram_bar;
	const struct ndhal_arch_regs *regs;
	const struct ndhal_silicon *silicon;
};

/**
 * struct ndhal_dma_queue_cfg - how the driver sets up one DMA queue
 * @engine: engine index.
 * @queue: queue index within the engine.
 * @nc: NeuronCore the engine belongs to.
 * @entries: descriptors in each ring, a power of two.
 * @tx_iova: device address of the TX (read side) descriptor ring.
 * @rx_iova: device address of the RX (write side) descriptor ring.
 * @status_iova: device address where the engine writes its struct
 *	neuron_dma_status (not for ndhal_ops.dma_marker backends).
 * @vector: interrupt raised when @status changes (likewise).
 */
struct ndhal_dma_queue_cfg {
	u32 engine;
	u32 queue;
	u32 nc;
	u32 entries;
	u64 tx_iova;
	u64 rx_iova;
	u64 status_iova;
	unsigned int vector;
};

/**
 * struct ndhal_dma_packet - one packet of a transfer, as the DMA layer
 *	hands it to the backend (ndhal_ops.dma_desc)
 * @src: device address read (the TX side): device DRAM, or a host address
 *	from @dma_map or @coherent_alloc.
 * @dst: device address written (the RX side), likewise.
 * @len: bytes, 1 to 64 KiB.
 * @lap: how many times the rings wrapped before the packet's index,
 *	modulo 4 (the backend derives the descriptors' ring id from it).
 * @irq: the engine reports its progress after this packet (backends
 *	that report, not marker ones).
 * @barrier: the last data packet before a marker: its data must have
 *	landed before the engine writes anything after it.
 * @key: the submitting file's notification key, 0 for the driver's own
 *	work (see struct neuron_udma_desc).
 * @tag: what the packet's COMPLETION or ERROR entry carries.
 * @end: the last packet of a request whose end is reported (COMPLETION).
 */
struct ndhal_dma_packet {
	u64 src;
	u64 dst;
	u32 len;
	u32 lap;
	bool irq;
	bool barrier;
	u32 key;
	u32 tag;
	bool end;
};

/**
 * struct ndhal_exec_region - one region an execution may touch
 * @addr: device address of its first byte.
 * @size: bytes; 0 for a region the model does not have.
 * @writable: the program may write it.
 */
struct ndhal_exec_region {
	u64 addr;
	u64 size;
	bool writable;
};

/**
 * struct neuron_exec_hw_status - what a core writes into host memory when
 *	an execution ends: @status first, then @seq, then the interrupt
 * @seq: the execution's ndhal_exec.seq.
 * @status: NEURON_EXEC_OK, _BAD_INPUT or _DEVICE_ERROR.
 */
struct neuron_exec_hw_status {
	__le32 seq;
	__le32 status;
};

/* ECC counters of struct ndhal_fw_info: SRAM, then HBM 0 to 3. */
#define NDHAL_FW_ECC_COUNTERS	5

/**
 * struct ndhal_fw_info - what the firmware reports of the device
 * @serial: the device's serial number.
 * @ecc: the ECC counters, [0] SRAM and [1 + i] HBM i, each with the
 *	corrected errors in bits 31:16 and the uncorrected in bits 15:0.
 */
struct ndhal_fw_info {
	u64 serial;
	u32 ecc[NDHAL_FW_ECC_COUNTERS];
};

/**
 * struct ndhal_exec - one execution handed to a core (ndhal_ops.exec_start)
 * @nc: the NeuronCore.
 * @seq: the driver's number of the execution, written back with its status.
 * @nregions: used entries of @regions: 2 + the model's slots.
 * @regions: indexed by NEURON_REGION_* (uapi/neuron.h).
 * @block_addr: device address of each engine's instruction block (in
 *	region-less model memory), indexed by NEURON_ENGINE_*.
 * @block_count: instructions in each block; 0: the engine has no program
 *	(it counts as ended).
 * @status_iova: host memory (coherent) for one struct neuron_exec_hw_status.
 *
 * The core copies what it needs before exec_start returns. Everything the
 * program asks for is checked against @regions by the core itself as it
 * runs (docs/sim-isa.md).
 */
struct ndhal_exec {
	u32 nc;
	u32 seq;
	u32 nregions;
	struct ndhal_exec_region regions[2 + NEURON_MAX_SLOTS];
	u64 block_addr[NEURON_ENGINES];
	u32 block_count[NEURON_ENGINES];
	u64 status_iova;
};

/**
 * struct ndhal_ops - what a backend does for a device
 * @name: backend name, for messages.
 * @init: optional; bring the backend up for a device, before userspace
 *	sees it.
 * @fini: optional; undo @init; called after the device is unplugged and no ioctl
 *	runs on it any more.
 * @dram_alloc: back device memory @mem (its @dev_addr and @size are set)
 *	with zeroed memory and fill its @pages; needed for NEURON_CAP_MEM.
 * @dram_free: undo @dram_alloc; called when the last user of @mem is gone,
 *	possibly after the device was removed.
 * @dram_pfn: optional: the page frame of page @i of device memory @mem,
 *	for a user mapping (write-combined), for a backend whose device
 *	memory is a BAR and has no pages (@mem->pages NULL); 0: none.
 * @dram_uncleared: device memory from @dram_alloc may hold old data: the
 *	core clears it with a DMA memset before anyone sees it.
 * @dma_map: make @npages host pages reachable by the device: the device
 *	address of page i goes to @addrs[i]; pages need not be contiguous
 *	for the device (the DMA layer splits packets where they are not).
 *	The mapping must be coherent (the CPU and the device see each
 *	other's writes without cache maintenance, as on x86 PCIe): userspace
 *	reads and writes mapped host objects and notification rings
 *	directly, with no point where the driver could sync. Descriptor
 *	rings and status words use @coherent_alloc.
 * @dma_unmap: undo @dma_map of the @npages pages at @addrs.
 * @dma_map_block: make @npages physically contiguous host pages from
 *	@page reachable by the device as one range, from *@addr (coherent
 *	as for @dma_map). Needed with @notify_polled.
 * @dma_unmap_block: undo @dma_map_block of the @npages pages at @addr.
 * @irq_request: call @handler (hard interrupt context) when the device
 *	raises interrupt @vector (NEURON_IRQ_*).
 * @irq_free: undo @irq_request; on return the handler no longer runs.
 * @irq_sync: wait until a handler of @vector that started has returned
 *	(synchronize_irq()); needed for NEURON_CAP_COPY.
 * @coherent_alloc: zeroed memory that the CPU (@va) and the device
 *	(@iova) both see without cache maintenance (dma_alloc_coherent() on
 *	silicon), for descriptor rings and status words; @cookie is the
 *	backend's, handed back to @coherent_free. Needed for NEURON_CAP_COPY.
 * @coherent_free: undo @coherent_alloc.
 * @dma_marker: the engine reports neither progress nor errors by itself
 *	(silicon): the DMA layer appends a marker packet at each doorbell,
 *	copying a magic word into host memory, and polls for it; no
 *	interrupt and no status word are used for DMA.
 * @dma_desc: write the TX and RX descriptors of packet @p at @tx and @rx,
 *	in the engine's format. Needed for NEURON_CAP_COPY.
 * @dma_copy_queue: optional: the engine and queue of NC @nc's kernel copy
 *	queue; without it, queue 0 of the NC's first engine.
 * @dma_queue_start: program a DMA queue; its rings start at index 0.
 *	Return: 0 or a negative errno (the queue is then not started).
 * @dma_queue_kick: doorbell: @added more descriptors, those below @prod
 *	(free running), are ready in both rings. The caller issued wmb()
 *	after writing them; a register doorbell is written with writel()
 *	(not _relaxed).
 * @dma_queue_stop: stop a queue; on return the engine no longer reads its
 *	rings nor writes its status.
 * @dma_queue_error: optional (marker backends): the NEURON_DMA_ERR_* the
 *	queue's engine stopped on, 0 if it did not; asked while a queue
 *	with work makes no progress.
 * @notify_init: optional (NEURON_CAP_NOTIFY needs it); program notification
 *	queue (@nc, @type): its header at device address @iova, a ring of
 *	@entries slots (a power of two) from @iova + NEURON_NOTIFY_ENTRY_OFFSET;
 *	head, tail and overflow start at 0 and the device writes the header.
 *	@key: the owner's notification key (never 0): a device that reports
 *	the driver's DMA work in the queue reports there only the packets
 *	tagged with it (struct neuron_udma_desc); others may ignore it.
 * @notify_fini: undo @notify_init; on return the device no longer writes
 *	the queue's memory.
 * @notify_polled: the device writes a queue's entries only: no header, no
 *	consumer index, no interrupt (silicon: the facts give none). The core
 *	then keeps the header itself (@entries at setup, @tail at each
 *	NOTIFY_WAIT), finds head by reading the entries' @seq (entry i of the
 *	ring has @seq == i once written: struct neuron_notify_entry, the layout
 *	the device model writes), looks for new ones every @sem_poll_us (at
 *	least one jiffy) while a queue is set up, and uses neither
 *	@notify_consume nor @irq_request. Such a device cannot drop an entry
 *	when the ring is full: an unread entry it overwrote shows as a head
 *	past tail + entries, and the queue fails (-EIO). Only the entries are
 *	mapped for the device, as one block (@dma_map_block): the @iova of
 *	@notify_init is then their address, not the header's.
 * @sem_update: apply @op (NEURON_SEM_*) with @val to semaphore or event
 *	(@kind NEURON_SEM_KIND_*) @index of NC @nc, atomically, and return
 *	the value after it in *@out (-EAGAIN: a decrement at 0; -EOVERFLOW:
 *	an increment past U32_MAX; nothing changes then). Indices are checked
 *	by the caller. Needed for NEURON_CAP_SEM.
 * @sem_poll_us: semaphores and events may change on the device with no
 *	interrupt to say so (silicon): a thread waiting for a value reads
 *	it again at least this often. 0: every change wakes the waiters.
 * @notify_consume: tell the device the consumer index is now @tail; it
 *	ignores (-EINVAL) a @tail outside its current tail..head and writes
 *	the new tail into the header. Not used with @notify_polled.
 * @exec_start: start execution @e on core @e->nc, which is idle (the
 *	driver runs one execution per core at a time). The core copies what
 *	it needs of @e; when the program ends (or faults) it writes a struct
 *	neuron_exec_hw_status at @e->status_iova and raises
 *	NEURON_IRQ_EXEC(@e->nc). Only with NEURON_CAP_EXEC.
 * @exec_reset: stop the execution running on core @nc, if any, and return
 *	once its engines are stopped and will write nothing more (no status,
 *	no interrupt for it); post an ERROR notification with @code (0: none);
 *	the core is then idle and takes new work. An execution that ends
 *	with a device error also posts one, NEURON_NOTIFY_EXEC_FAULT.
 * @exec_drive: optional, for cores that compute on the host (the
 *	simulator): compute the execution running on core @nc in the
 *	caller's context (a thread waiting for the NC's work, inside the
 *	removal guard) for a bounded slice, stopping between two pieces of
 *	work at a reset or the device's removal. Return: 0 (it ended: status
 *	written, interrupt raised), -EINPROGRESS (call again), -EAGAIN
 *	(nothing to compute now), -ENODEV.
 * @nc_reset: optional: after a hang of NC @nc's DMA queue, which the
 *	caller stopped (inside the removal guard, the queue's submit_lock
 *	held), reset the NC through the device's own means (the firmware on
 *	silicon) and set the engines of its copy queue up again; the caller
 *	then starts the queue afresh. May take seconds (then it polls for
 *	removal every 1-2 ms); no spinlock held. 0, -ETIMEDOUT (the firmware
 *	did not take the reset), -EIO (it did not complete), -ENODEV (the
 *	device is being removed). NULL: a queue reset is all (the simulator).
 * @fw_info: read what the firmware reports of the device (struct
 *	ndhal_fw_info) through its mailbox; may sleep for seconds. 0, or
 *	-ETIMEDOUT when the firmware does not answer, -EIO when it refuses,
 *	-EPROTO for an answer that is not one, -EOPNOTSUPP. NULL: no
 *	firmware (the simulator); with NEURON_DEV_ENGINES_OFF it is not
 *	called (no bus mastering, no mailbox buffers).
 */
struct ndhal_ops {
	const char *name;
	int (*init)(struct neuron_device *nd);
	void (*fini)(struct neuron_device *nd);
	int (*dram_alloc)(struct neuron_device *nd, struct neuron_mem *mem);
	void (*dram_free)(struct neuron_device *nd, struct neuron_mem *mem);
	unsigned long (*dram_pfn)(struct neuron_device *nd, struct neuron_mem *mem,
				  unsigned long i);
	bool dram_uncleared;
	int (*dma_map)(struct neuron_device *nd, struct page **pages,
		       unsigned long npages, u64 *addrs);
	void (*dma_unmap)(struct neuron_device *nd, unsigned long npages,
			  const u64 *addrs);
	int (*dma_map_block)(struct neuron_device *nd, struct page *page,
			     unsigned long npages, u64 *addr);
	void (*dma_unmap_block)(struct neuron_device *nd, unsigned long npages,
				u64 addr);
	int (*irq_request)(struct neuron_device *nd, unsigned int vector,
			   irq_handler_t handler, void *data);
	void (*irq_free)(struct neuron_device *nd, unsigned int vector);
	void (*irq_sync)(struct neuron_device *nd, unsigned int vector);
	int (*coherent_alloc)(struct neuron_device *nd, size_t size, void **va,
			      u64 *iova, void **cookie);
	void (*coherent_free)(struct neuron_device *nd, size_t size, void *va,
			      u64 iova, void *cookie);
	bool dma_marker;
	void (*dma_desc)(struct neuron_device *nd, struct neuron_udma_desc *tx,
			 struct neuron_udma_desc *rx, const struct ndhal_dma_packet *p);
	void (*dma_copy_queue)(struct neuron_device *nd, u32 nc, u32 *engine,
			       u32 *queue);
	int (*dma_queue_start)(struct neuron_device *nd,
			       const struct ndhal_dma_queue_cfg *cfg);
	void (*dma_queue_kick)(struct neuron_device *nd, u32 engine, u32 queue,
			       u32 prod, u32 added);
	void (*dma_queue_stop)(struct neuron_device *nd, u32 engine, u32 queue);
	u32 (*dma_queue_error)(struct neuron_device *nd, u32 engine, u32 queue);
	int (*notify_init)(struct neuron_device *nd, u32 nc, u32 type, u64 iova,
			   u32 entries, u32 key);
	void (*notify_fini)(struct neuron_device *nd, u32 nc, u32 type);
	bool notify_polled;
	int (*notify_consume)(struct neuron_device *nd, u32 nc, u32 type, u32 tail);
	u32 sem_poll_us;
	int (*sem_update)(struct neuron_device *nd, u32 nc, u32 kind, u32 index,
			  u32 op, u32 val, u32 *out);
	int (*exec_start)(struct neuron_device *nd, const struct ndhal_exec *e);
	void (*exec_reset)(struct neuron_device *nd, u32 nc, u32 code);
	int (*exec_drive)(struct neuron_device *nd, u32 nc);
	int (*nc_reset)(struct neuron_device *nd, u32 nc);
	int (*fw_info)(struct neuron_device *nd, struct ndhal_fw_info *info);
};

/**
 * struct ndhal - arch table plus backend, as a device uses it
 * @arch: geometry.
 * @ops: backend.
 * @caps: NEURON_CAP_* of what works with this backend.
 * @flags: NEURON_DEV_* flags the device reports.
 */
struct ndhal {
	const struct ndhal_arch *arch;
	const struct ndhal_ops *ops;
	u64 caps;
	u32 flags;
};

/* Backends. */
extern const struct ndhal_ops neuron_pci_ops;
extern const struct ndhal_ops neuron_sim_ops;

extern const struct ndhal_arch ndhal_arch_v1;
extern const struct ndhal_arch ndhal_arch_v2;
extern const struct ndhal_arch ndhal_arch_v3;

/*
 * Silicon: the arch tables with the PCI backend, engines off (the query
 * only), and, for neuron.pci_engines=1, with the engines driven.
 */
extern const struct ndhal ndhal_v1;
extern const struct ndhal ndhal_v2;
extern const struct ndhal ndhal_v3;
extern const struct ndhal ndhal_v2_engines;
extern const struct ndhal ndhal_v3_engines;

/* The simulator impersonating an arch. */
extern const struct ndhal ndhal_sim_v2;
extern const struct ndhal ndhal_sim_v3;

#endif /* _NEURON_NDHAL_H */
