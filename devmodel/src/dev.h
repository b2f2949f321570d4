/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device: PCI config space, the BAR0 register file, BAR4 device DRAM,
 * the UDMA engines, notification blocks, semaphores/events, misc RAM with
 * the firmware mailbox, readiness and reset, and fault injection.
 *
 * Locking (outer to inner): dev->lock (config space, every BAR0 access, misc
 * RAM, notification blocks, semaphores, IRQ state, firmware state) ->
 * engine->lock (one engine's registers and queue state) -> dma.lock (read
 * side while touching client memory). Engine workers take only their
 * engine's lock and the DMA read lock. Statistics are atomics.
 */
#ifndef DM_DEV_H
#define DM_DEV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dmamap.h"
#include "pers.h"

#define CFG_SIZE 4096
#define ENGINE_WINDOW 0x40000u
#define SDMA_WRAPPER 0x7000u
#define NQ_BLOCK 0x1000u
#define NQ_SLOTS 96
#define SEMA_OFFSET 0x2700000u
#define SEMA_BLOCK 0x2000u
#define MISC_SIZE 0x1000u
#define NEVER UINT64_MAX

/* vfio PCI region and IRQ indices */
enum { REG_BAR0 = 0, REG_BAR4 = 4, REG_ROM = 6, REG_CONFIG = 7, NUM_REGIONS = 9 };
enum { IRQ_INTX = 0, IRQ_MSI = 1, IRQ_MSIX = 2, IRQ_ERR = 3, IRQ_REQ = 4, NUM_IRQS = 5 };

/* Why a queue stopped (model's own codes; cause bits in docs/devmodel.md). */
enum q_err {
	QE_NONE = 0,
	QE_CONFIG,	/* ring base not 256-byte aligned / length out of range */
	QE_ADDR,	/* descriptor or ring address reaches no memory */
	QE_LENGTH,	/* data range crosses a region end / zero length not allowed */
	QE_RINGID,	/* descriptor ring id differs from the lap's */
	QE_FORMAT,	/* first/last-of-packet bits inconsistent */
	QE_OVERRUN,	/* tail increment beyond the ring */
	QE_INJECTED,	/* desc-error fault injection */
	QE_COUNT
};

const char *q_err_str(enum q_err e);

enum { SIDE_M2S = 0, SIDE_S2M = 1 };

struct udma_side {
	uint32_t head, tail, pending;	/* indexes and descriptors posted */
	uint8_t head_rid, tail_rid;
	uint8_t err;			/* enum q_err */
	uint64_t err_addr;		/* device address involved, if any */
};

struct udma_queue {
	struct udma_side s[2];
};

struct dev;

struct engine {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	pthread_t thr;
	bool thr_started, stop;
	struct dev *dev;
	unsigned id;
	uint64_t base;			/* BAR0 offset */
	uint32_t nc_mask;
	uint32_t *regs;			/* ENGINE_WINDOW / 4 words */
	struct udma_queue q[QUEUES_PER_ENGINE];
	uint16_t kick;			/* queues with new work */
	bool forced_abort, disabled;	/* change-state register */
	uint64_t gen;			/* bumped by every reset */
	uint64_t fw_resets;		/* reset by a TPB or device reset */
	uint32_t setup_writes;		/* host writes outside the queues since a reset */
	/* fault injection */
	bool hang, inject_err;
	uint32_t slow_us;
};

enum nq_owner { NQO_NC, NQO_TOPSP, NQO_SDMA };

struct nq_slot {
	bool valid;
	uint32_t seq;			/* next entry the model writes */
	char why[64];			/* validation result */
};

struct nq_block {
	uint64_t base;
	uint8_t owner;			/* enum nq_owner */
	uint16_t owner_idx;		/* NC, TopSP or engine */
	uint32_t regs[NQ_BLOCK / 4];
	struct nq_slot slot[NQ_SLOTS];
};

struct sema_block {
	uint32_t ev[256];
	uint32_t sem[256];
};

enum blk_kind { BLK_ENGINE, BLK_SDMA, BLK_NQ, BLK_SEMA, BLK_MISC };

struct blk {
	uint64_t base, size;
	uint8_t kind;
	uint16_t idx;
	uint32_t sub;			/* offset of this piece inside its storage */
};

struct dev_opts {
	const char *pers;
	int64_t not_ready_ms;		/* from power-on and each PCI reset; < 0: forever */
	bool sync;			/* run engines inline (tests, fuzzing) */
	uint32_t routing_id;
	uint64_t serial;
	uint32_t fw_api_version;
	uint32_t reset_busy_ms;
	bool no_bus_master_check;
};

struct dev_stats {
	_Atomic uint64_t descs, packets, bytes, errors, doorbells;
	_Atomic uint64_t tpb_resets, dev_resets, pci_resets, resets_refused;
	_Atomic uint64_t mbox_req, mbox_bad, mbox_ignored, markers_dropped;
	_Atomic uint64_t nq_writes, unknown_reads, unknown_writes;
	_Atomic uint64_t last_tpb_map;	/* the map of the last TPB reset taken */
	_Atomic uint64_t reset_requests;	/* doorbells that carried a reset request */
	_Atomic uint64_t tpb_reset_ncs;	/* NCs (TPB bits) of the TPB resets taken */
	_Atomic uint64_t vanished_reads, vanished_writes;	/* BAR0, while vanished */
};

struct dev {
	const struct pers *p;
	struct dev_opts o;
	pthread_mutex_t lock;

	/* PCI */
	uint8_t cfg[CFG_SIZE];
	uint8_t cfg_wmask[CFG_SIZE];
	atomic_bool bus_master;
	uint64_t bar4_size;

	/* memory */
	int dram_fd;
	uint8_t *dram;
	struct dmamap dma;

	/* register file */
	struct engine *eng;
	uint32_t **sdma;		/* per engine, NULL if none */
	struct nq_block *nq;
	unsigned n_nq;
	struct sema_block *sema;
	uint32_t misc[MISC_SIZE / 4];
	struct blk *blk;
	unsigned n_blk;

	/* firmware */
	uint64_t ready_at;		/* ms; NEVER = not ready for ever */
	bool reset_pending;
	uint32_t pend_req, pend_map;
	uint64_t take_at, busy_until;
	bool mbox_silent, reset_refuse;
	uint32_t reset_delay_ms;
	_Atomic uint32_t lost_completion;

	/* `vanish on`: BAR0 reads all ones, writes dropped, engines and
	 * firmware still (a device that no longer answers: docs/devmodel.md) */
	atomic_bool vanished;

	/* INTx */
	int intx_fd;
	bool intx_masked;

	struct dev_stats st;
};

struct dev *dev_create(const struct dev_opts *o);
void dev_destroy(struct dev *d);

/* Region access from the client. Return 0 or a negative errno. */
int dev_region_rw(struct dev *d, unsigned region, uint64_t off, void *buf, uint32_t len, bool write);
uint64_t dev_region_size(const struct dev *d, unsigned region);

/* 32-bit BAR0 accesses (take dev->lock). */
uint32_t dev_bar0_read32(struct dev *d, uint64_t off);
void dev_bar0_write32(struct dev *d, uint64_t off, uint32_t val);

/* VFIO_USER_DEVICE_RESET: back to power-on state (DRAM content kept). */
void dev_pci_reset(struct dev *d);

/* `vanish on|off` (control socket): on, the device stops answering; off,
 * it comes back in the state of a PCI reset, config space untouched. */
void dev_vanish(struct dev *d, bool on);

/* Client gone: forget its DMA maps and IRQ file descriptors. */
void dev_client_gone(struct dev *d);

/* Stop and join engine workers (before destroy, or in tests). */
void dev_stop_workers(struct dev *d);

/* Device address -> host pointer for DMA; host addresses need the DMA read
 * lock held. Returns 0 or the enum q_err that the access would raise. */
/* The same for the part of the range that one DMA map (or the DRAM channel)
 * holds from devaddr on: *avail gets its length. A data transfer may go on
 * through adjacent maps: the caller asks again at devaddr + *avail. */
int dev_xlate_part(struct dev *d, uint64_t devaddr, uint64_t len, bool write, void **ptr,
		   uint64_t *avail, const char **why);
int dev_xlate(struct dev *d, uint64_t devaddr, uint64_t len, bool write, void **ptr,
	      const char **why);

/* config space (pcicfg.c) */
void cfg_init(struct dev *d);
void cfg_reset(struct dev *d);
void cfg_write(struct dev *d, uint32_t off, const uint8_t *buf, uint32_t len);

/* engines (udma.c) */
int udma_init(struct dev *d);
void udma_fini(struct dev *d);
void udma_engine_reset(struct engine *e);
uint32_t udma_read(struct engine *e, uint32_t off);
void udma_write(struct engine *e, uint32_t off, uint32_t val);
void udma_stop_workers(struct dev *d);
/* Run pending work of all queues of e now (engine lock held). */
void udma_run(struct engine *e);

/* notification blocks, semaphores (nq.c) */
uint32_t nq_read(struct dev *d, struct nq_block *b, uint32_t off);
void nq_write(struct dev *d, struct nq_block *b, uint32_t off, uint32_t val);
void nq_reset(struct nq_block *b);
int nq_notify(struct dev *d, unsigned blk, unsigned slot, uint16_t type, uint16_t nc,
	      uint32_t code, uint32_t data, char *err, size_t errlen);
uint32_t sema_read(struct sema_block *s, uint32_t off);
void sema_write(struct sema_block *s, uint32_t off, uint32_t val);

/* misc RAM, firmware (misc.c); dev->lock held */
void misc_reset(struct dev *d, bool power_on);
uint32_t misc_read(struct dev *d, uint32_t off);
void misc_write(struct dev *d, uint32_t off, uint32_t val);
void fw_poll(struct dev *d);
bool fw_ready(struct dev *d);
void dev_reset_ncs(struct dev *d, uint32_t map, bool whole_device);

/* Internal 32-bit BAR0 access with dev->lock held. */
uint32_t bar0_read32_locked(struct dev *d, uint64_t off);

/* INTx: raise the interrupt (control socket). Returns false when no eventfd. */
bool dev_intx_raise(struct dev *d);

#endif
