// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: PCI driver for Neuron silicon (vendor 0x1d0f, docs/hw-facts.md).
 *
 * Probe enables the device; the backend's init (neuron_pci_ops) checks and
 * claims the BARs of the arch before /dev/neuronN appears. By default
 * that is all: the device answers the query and reports
 * NEURON_DEV_ENGINES_OFF. With the module parameter pci_engines=1 the
 * backend also drives the DMA engines of v2 and v3 from the public
 * register facts: it maps the register BAR, waits for the firmware's
 * readiness, sets up the host-facing engines and programs each NC's kernel
 * copy queue (ndhal_udma.c), maps host memory for the device through the
 * DMA API with the arch's host window bit, and gives device memory from
 * the DRAM BAR at the channels' offsets, past the firmware's carve-out.
 * Completion is the marker the DMA layer polls for (no interrupt). The
 * device then has memory objects and copies (NEURON_CAP_MEM, _COPY) and
 * maps device memory write-combined, semaphores and events (_SEM) and
 * notification queues (_NOTIFY: a slot of the NC's notification block,
 * polled by the core, which keeps the header). None of this has run on silicon: it
 * runs on the device model of devmodel/, which was written from the same
 * facts by another hand (docs/devmodel.md).
 */
#include <linux/bitops.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>

#include "neuron_device.h"
#include "neuron_mem.h"
#include "dma/neuron_dma.h"
#include "ndhal/ndhal.h"
#include "ndhal/ndhal_regs.h"
#include "ndhal/ndhal_silicon.h"

static bool neuron_pci_engines;
module_param_named(pci_engines, neuron_pci_engines, bool, 0444);
MODULE_PARM_DESC(pci_engines,
		 "drive the DMA engines of v2/v3 PCI devices: memory and copies (never run on silicon; default off: the query only)");

static unsigned int neuron_pci_ready_ms = 20000;
module_param_named(pci_ready_ms, neuron_pci_ready_ms, uint, 0644);
MODULE_PARM_DESC(pci_ready_ms,
		 "with pci_engines: how long probe waits for the firmware to be ready (ms, default 20000); then the device is left unbound");

static unsigned int neuron_pci_mbox_tries = 15;
module_param_named(pci_mbox_tries, neuron_pci_mbox_tries, uint, 0644);
MODULE_PARM_DESC(pci_mbox_tries,
		 "with pci_engines: how many times a firmware mailbox request is sent before it fails (1 s each, default 15)");

static unsigned int neuron_pci_reset_ms;
module_param_named(pci_reset_timeout_ms, neuron_pci_reset_ms, uint, 0644);
MODULE_PARM_DESC(pci_reset_timeout_ms,
		 "with pci_engines: how long an NC reset waits for the firmware to take it before the NC fails (ms; default 0: the arch's, 120000 on v2, 480000 on v3)");

/*
 * How often the routing id is read while the device is not ready: ours;
 * the facts' driver reads it up to 20 times 1 s apart (docs/hw-facts.md).
 */
#define NEURON_PCI_READY_POLL_MS	100

/**
 * struct neuron_pci - PCI backend state of one device
 * @pdev: the PCI device.
 * @nd: the neuron device.
 * @io: the register BAR, mapped while the engines are driven.
 * @dram_phys: bus address of the DRAM BAR (user mappings of device memory).
 * @dram_base: the device address where the driver's share of each DRAM
 *	channel starts (past the firmware's carve-out).
 * @sem_lock: makes a semaphore's check and update one step
 *	(neuron_pci_sem_update()).
 * @mbox_lock: the firmware's doorbell: one mailbox request or one reset
 *	at a time (a reset request pending makes the doorbell a reset
 *	request); guards @mbox_seq and the buffers' contents.
 * @mbox_seq: the sequence number of the last request (1..255).
 * @mbox_req: the request buffer (coherent), NULL without the engines.
 * @mbox_req_iova: its device address.
 * @mbox_resp: the response buffer (coherent).
 * @mbox_resp_iova: its device address.
 * @reset_lock: guards @reset_list, @reset_busy and the waiters' results
 *	(neuron_pci_fw_reset()).
 * @reset_list: the reset requests waiting to be sent
 *	(struct neuron_pci_reset_wait), oldest first.
 * @reset_busy: a request is on its way to the firmware: its sender leads it
 *	and the requests of @reset_list wait for it.
 * @flags: NEURON_PCI_LIVE once the backend's init is done (set once; the
 *	device goes out right after), NEURON_PCI_LOST once it no longer
 *	answers (neuron_pci_lost()).
 * @lost: the work that unbinds a lost device, made at probe; whoever sets
 *	NEURON_PCI_LOST first owns it: the work it is queued as, or the
 *	removal, which frees it.
 */
struct neuron_pci {
	struct pci_dev *pdev;
	struct neuron_device *nd;
	struct ndhal_io io;
	resource_size_t dram_phys;
	u64 dram_base[NEURON_MAX_DRAM_CHANNELS];
	spinlock_t sem_lock; /* see @sem_lock above */
	struct mutex mbox_lock; /* see @mbox_lock above */
	u8 mbox_seq;
	u8 *mbox_req;
	u64 mbox_req_iova;
	u8 *mbox_resp;
	u64 mbox_resp_iova;
	spinlock_t reset_lock; /* see @reset_lock above */
	struct list_head reset_list;
	bool reset_busy;
	unsigned long flags;
	struct neuron_pci_lost *lost;
};

#define NEURON_PCI_LOST	0
#define NEURON_PCI_LIVE	1

/**
 * struct neuron_pci_lost - the unbinding of a device that no longer answers
 * @work: queued on neuron_pci_wq.
 * @pdev: the PCI device, referenced until the work is done.
 * @nd: the neuron device, referenced until the work is done.
 */
struct neuron_pci_lost {
	struct work_struct work;
	struct pci_dev *pdev;
	struct neuron_device *nd;
};

/* Runs the unbinding of lost devices; drained at module exit. */
static struct workqueue_struct *neuron_pci_wq;

/**
 * struct neuron_pci_product - what a PCI device id stands for
 * @hal: arch table with the PCI backend, engines off.
 * @hal_engines: the same with the engines driven (pci_engines=1), or NULL.
 * @name: product name.
 */
struct neuron_pci_product {
	const struct ndhal *hal;
	const struct ndhal *hal_engines;
	const char *name;
};

enum { NEURON_INF1, NEURON_TRN1, NEURON_INF2, NEURON_TRN2 };

static const struct neuron_pci_product neuron_pci_products[] = {
	[NEURON_INF1] = { &ndhal_v1, NULL, "inf1" },
	[NEURON_TRN1] = { &ndhal_v2, &ndhal_v2_engines, "trn1" },
	[NEURON_INF2] = { &ndhal_v2, &ndhal_v2_engines, "inf2" },
	[NEURON_TRN2] = { &ndhal_v3, &ndhal_v3_engines, "trn2" },
};

static const struct pci_device_id neuron_pci_ids[] = {
	{ PCI_VDEVICE(AMAZON, 0x7064), NEURON_INF1 },
	{ PCI_VDEVICE(AMAZON, 0x7065), NEURON_INF1 },
	{ PCI_VDEVICE(AMAZON, 0x7066), NEURON_INF1 },
	{ PCI_VDEVICE(AMAZON, 0x7067), NEURON_INF1 },
	{ PCI_VDEVICE(AMAZON, 0x7164), NEURON_TRN1 },
	{ PCI_VDEVICE(AMAZON, 0x7264), NEURON_INF2 },
	{ PCI_VDEVICE(AMAZON, 0x7364), NEURON_TRN2 },
	{ }
};
MODULE_DEVICE_TABLE(pci, neuron_pci_ids);

static int neuron_pci_check_bars(struct pci_dev *pdev,
				 const struct ndhal_arch *arch)
{
	int bar;

	for (bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
		if (!(arch->bar_mask & BIT(bar)))
			continue;
		if (!(pci_resource_flags(pdev, bar) & IORESOURCE_MEM) ||
		    !pci_resource_len(pdev, bar)) {
			dev_err(&pdev->dev, "BAR%d of a %s device is missing\n",
				bar, arch->name);
			return -ENODEV;
		}
	}
	return 0;
}

static bool neuron_pci_engines_on(const struct neuron_device *nd)
{
	return nd->hal->caps & NEURON_CAP_COPY;
}

/*
 * ---- surprise removal: a device that no longer answers ----
 *
 * A PCI device that is gone (pulled, powered off, its link down, or, under
 * QEMU, the process behind a vfio-user device killed: docs/devmodel.md,
 * "Hot removal") reads all ones at every register, and its writes are
 * lost; QEMU's case leaves the PCI core none the wiser
 * (pci_channel_offline() stays false). A read of all ones is checked
 * against the routing id of misc RAM, which is NDHAL_MISC_NOT_READY or
 * below NDHAL_ROUTING_ID_MAX on a device that answers [certain]: all ones
 * there is no answer. The registers whose all-ones reads are so checked:
 * the engine state (its fields are bits 1:0, 5:4, 9:8 and 13:12 [certain];
 * the bits between [inferred] read 0), the reset request (the driver
 * writes 0, 1 or 2 and the firmware clears it [inferred]: never all ones),
 * the firmware status, semaphores and events (all ones may be a value
 * there, hence the check). The mailbox's answer comes in host memory: its
 * wait reads the routing id itself every NEURON_PCI_ALIVE_MS.
 *
 * Then neuron_pci_lost(): one line, NEURON_PCI_LOST (calls that would wait
 * for the device end with -ENODEV at once) and a work that sends
 * NEURON_EVENT_DEV_LOST and unbinds the driver from the device (as NVMe
 * does with a dead controller), so that the removal ends every call,
 * fails the jobs and waits, and zaps the mappings. Binding again through
 * sysfs probes the device afresh.
 */

/* How often the mailbox's wait checks that the device answers. */
#define NEURON_PCI_ALIVE_MS	100

static void neuron_pci_lost_work(struct work_struct *work)
{
	struct neuron_pci_lost *l = container_of(work, struct neuron_pci_lost, work);

	neuron_nl_event(l->nd, NEURON_EVENT_DEV_LOST, -1, 0);
	/*
	 * Before the unbind: the device's release (its minor given back) is
	 * then the removal's or its users', not this work's after it.
	 */
	put_device(&l->nd->dev);
	/* Waits for a removal in flight; nothing to do if it ran. */
	device_release_driver(&l->pdev->dev);
	pci_dev_put(l->pdev);
	kfree(l);
}

/*
 * The device no longer answers (@what read all ones): mark it lost and
 * queue its unbinding, once. Any context (a spinlock may be held), inside
 * the removal guard or by the removing thread. Before the backend's init
 * is done (the reset at probe) only a line: the probe fails with -ENODEV.
 */
static void neuron_pci_lost(struct neuron_pci *np, const char *what)
{
	struct neuron_device *nd = np->nd;
	struct neuron_pci_lost *l = np->lost;

	if (!test_bit(NEURON_PCI_LIVE, &np->flags)) {
		dev_err(&np->pdev->dev,
			"%s and the routing id read all ones: the device does not answer\n", what);
		return;
	}
	if (test_and_set_bit(NEURON_PCI_LOST, &np->flags))
		return;
	dev_err(&np->pdev->dev,
		"device lost (%s): it reads all ones, the routing id too; failing its calls, unbinding the driver\n",
		what);
	l->pdev = pci_dev_get(np->pdev);
	l->nd = nd;
	get_device(&nd->dev);
	queue_work(neuron_pci_wq, &l->work);
}

/* Is the device marked lost? Then calls that need it end with -ENODEV. */
static bool neuron_pci_is_lost(struct neuron_pci *np)
{
	return test_bit(NEURON_PCI_LOST, &np->flags);
}

/* Does the device answer? A read of the routing id (see above). */
static bool neuron_pci_answers(struct neuron_pci *np)
{
	u64 reg = np->nd->hal->arch->silicon->misc_ram + NDHAL_MISC_ROUTING_ID;

	return !pci_channel_offline(np->pdev) && ndhal_rd(&np->io, reg) != U32_MAX;
}

/*
 * @v was read from @what: if it is all ones and the device does not answer,
 * it is lost (true).
 */
static bool neuron_pci_gone(struct neuron_pci *np, u32 v, const char *what)
{
	if (neuron_pci_is_lost(np))
		return true;
	if (v != U32_MAX || neuron_pci_answers(np))
		return false;
	neuron_pci_lost(np, what);
	return true;
}

/*
 * The firmware is ready once the routing id in its misc RAM no longer
 * reads NDHAL_MISC_NOT_READY; it must then be a device number below 64.
 * Read every NEURON_PCI_READY_POLL_MS for up to pci_ready_ms (read once
 * here); past that, one error line and -ENODEV: the device stays unbound
 * (the driver core says nothing more of -ENODEV), and a later bind through
 * sysfs or a reload of the module tries again. A device that needed to be
 * waited for says after how long.
 */
static int neuron_pci_wait_ready(struct neuron_pci *np, const struct ndhal_arch *arch)
{
	unsigned int bound = READ_ONCE(neuron_pci_ready_ms);
	u64 reg = arch->silicon->misc_ram + NDHAL_MISC_ROUTING_ID;
	unsigned long start = jiffies, end = start + msecs_to_jiffies(bound);
	bool waited = false;
	u32 id;

	for (;;) {
		id = ndhal_rd(&np->io, reg);
		if (id != NDHAL_MISC_NOT_READY)
			break;
		if (time_after(jiffies, end)) {
			dev_err(&np->pdev->dev,
				"firmware not ready after %u ms (routing id 0x%08x): no device (pci_ready_ms)\n",
				bound, id);
			return -ENODEV;
		}
		waited = true;
		msleep(NEURON_PCI_READY_POLL_MS);
	}
	if (id == U32_MAX) {
		dev_err(&np->pdev->dev, "routing id reads all ones: the device does not answer\n");
		return -ENODEV;
	}
	if (id >= NDHAL_ROUTING_ID_MAX) {
		dev_err(&np->pdev->dev, "routing id %u out of range: no device\n", id);
		return -ENODEV;
	}
	if (waited)
		dev_info(&np->pdev->dev, "firmware ready after %u ms\n",
			 jiffies_to_msecs(jiffies - start));
	return 0;
}

/* Set up the engine of each NC's copy queue, once each. */
static int neuron_pci_engines_init(struct neuron_pci *np, const struct ndhal_arch *arch)
{
	DECLARE_BITMAP(done, 256) = { 0 };
	u32 nc, engine, queue;
	int ret;

	for (nc = 0; nc < arch->nc_count; nc++) {
		arch->silicon->copy_queue(nc, &engine, &queue);
		if (WARN_ON_ONCE(engine >= 256))
			return -EINVAL;
		if (test_and_set_bit(engine, done))
			continue;
		ret = ndhal_udma_engine_init(&np->io, arch, engine);
		if (ret)
			return ret;
	}
	return 0;
}

static int neuron_pci_mbox_init(struct neuron_device *nd);
static void neuron_pci_mbox_fini(struct neuron_device *nd);
static int neuron_pci_fw_reset(struct neuron_pci *np, u32 req, u32 map);

/*
 * Claim the BARs of the arch; with the engines driven, map the register
 * BAR, wait for the firmware, reset the device through it (docs/hw-facts.md,
 * "Readiness": a failed reset fails the probe, with the reset's line) and
 * set the copy engines up.
 */
static int neuron_pci_hw_init(struct neuron_device *nd)
{
	const struct ndhal_arch *arch = nd->hal->arch;
	struct neuron_pci *np = nd->backend;
	struct pci_dev *pdev = np->pdev;
	int ret;

	/* Set by the probe once the device is made; the reset below needs it. */
	np->nd = nd;
	ret = neuron_pci_check_bars(pdev, arch);
	if (ret)
		return ret;
	ret = pci_request_selected_regions(pdev, arch->bar_mask, "neuron");
	if (ret || !neuron_pci_engines_on(nd))
		return ret;
	np->io.size = pci_resource_len(pdev, arch->reg_bar);
	np->io.base = pci_iomap(pdev, arch->reg_bar, 0);
	if (!np->io.base) {
		ret = -ENOMEM;
		goto err_regions;
	}
	ret = neuron_pci_mbox_init(nd);
	if (ret)
		goto err_unmap;
	/* Ready, then a device reset, then the engines: the facts' order. */
	ret = neuron_pci_wait_ready(np, arch);
	if (!ret)
		ret = neuron_pci_fw_reset(np, NDHAL_RESET_DEVICE, 0);
	if (!ret)
		ret = neuron_pci_engines_init(np, arch);
	if (ret)
		goto err_mbox;
	/* From here on a device that reads all ones is lost (and unbound). */
	set_bit(NEURON_PCI_LIVE, &np->flags);
	return 0;

err_mbox:
	neuron_pci_mbox_fini(nd);
err_unmap:
	pci_iounmap(pdev, np->io.base);
	np->io.base = NULL;
err_regions:
	pci_release_selected_regions(pdev, arch->bar_mask);
	return ret;
}

static void neuron_pci_hw_fini(struct neuron_device *nd)
{
	struct neuron_pci *np = nd->backend;

	if (np->io.base) {
		neuron_pci_mbox_fini(nd);
		pci_iounmap(np->pdev, np->io.base);
		np->io.base = NULL;
	}
	pci_release_selected_regions(np->pdev, nd->hal->arch->bar_mask);
}

/* ---- device memory: the DRAM BAR ---- */

/* Nothing to back: the memory is the device's; the core clears it. */
static int neuron_pci_dram_alloc(struct neuron_device *nd, struct neuron_mem *mem)
{
	return 0;
}

static void neuron_pci_dram_free(struct neuron_device *nd, struct neuron_mem *mem)
{
}

/* The DRAM BAR holds channel c at its offset, from the channel's start. */
static unsigned long neuron_pci_dram_pfn(struct neuron_device *nd,
					 struct neuron_mem *mem, unsigned long i)
{
	const struct ndhal_silicon *si = nd->hal->arch->silicon;
	struct neuron_pci *np = nd->backend;
	u32 c = mem->channel;
	u64 off = si->dram_bar[c] + (mem->dev_addr - si->dram_addr[c]) +
		  ((u64)i << PAGE_SHIFT);

	return PHYS_PFN(np->dram_phys + off);
}

/*
 * ---- host memory for the device: the DMA API, with the host window bit ----
 *
 * The facts OR the bit onto physical addresses; ORing it onto DMA API
 * addresses (an IOVA behind an IOMMU) is [inferred].
 */

static u64 neuron_pci_window(const struct neuron_device *nd)
{
	return nd->hal->arch->silicon->host_window;
}

static void neuron_pci_dma_unmap(struct neuron_device *nd, unsigned long npages,
				 const u64 *addrs)
{
	struct neuron_pci *np = nd->backend;
	unsigned long i;

	for (i = 0; i < npages; i++)
		dma_unmap_page(&np->pdev->dev, addrs[i] & ~neuron_pci_window(nd),
			       PAGE_SIZE, DMA_BIDIRECTIONAL);
}

static int neuron_pci_dma_map(struct neuron_device *nd, struct page **pages,
			      unsigned long npages, u64 *addrs)
{
	struct neuron_pci *np = nd->backend;
	unsigned long i;
	dma_addr_t a;

	for (i = 0; i < npages; i++) {
		a = dma_map_page(&np->pdev->dev, pages[i], 0, PAGE_SIZE,
				 DMA_BIDIRECTIONAL);
		if (dma_mapping_error(&np->pdev->dev, a)) {
			neuron_pci_dma_unmap(nd, i, addrs);
			return -ENOMEM;
		}
		addrs[i] = a | neuron_pci_window(nd);
	}
	return 0;
}

/* One mapping for a block of pages (notification rings' entries). */
static int neuron_pci_dma_map_block(struct neuron_device *nd, struct page *page,
				    unsigned long npages, u64 *addr)
{
	struct neuron_pci *np = nd->backend;
	dma_addr_t a;

	a = dma_map_page(&np->pdev->dev, page, 0, npages << PAGE_SHIFT,
			 DMA_BIDIRECTIONAL);
	if (dma_mapping_error(&np->pdev->dev, a))
		return -ENOMEM;
	*addr = a | neuron_pci_window(nd);
	return 0;
}

static void neuron_pci_dma_unmap_block(struct neuron_device *nd, unsigned long npages,
				       u64 addr)
{
	struct neuron_pci *np = nd->backend;

	dma_unmap_page(&np->pdev->dev, addr & ~neuron_pci_window(nd),
		       npages << PAGE_SHIFT, DMA_BIDIRECTIONAL);
}

static int neuron_pci_coherent_alloc(struct neuron_device *nd, size_t size,
				     void **va, u64 *iova, void **cookie)
{
	struct neuron_pci *np = nd->backend;
	dma_addr_t a;

	*va = dma_alloc_coherent(&np->pdev->dev, size, &a, GFP_KERNEL);
	if (!*va)
		return -ENOMEM;
	*iova = a | neuron_pci_window(nd);
	*cookie = NULL;
	return 0;
}

static void neuron_pci_coherent_free(struct neuron_device *nd, size_t size,
				     void *va, u64 iova, void *cookie)
{
	struct neuron_pci *np = nd->backend;

	dma_free_coherent(&np->pdev->dev, size, va, iova & ~neuron_pci_window(nd));
}

/*
 * One step of a wait for the device, inside the removal guard (the
 * mailbox's answer, a reset, another caller's reset): -ENODEV once the
 * device is being removed or is lost, -EINTR on a fatal signal if
 * @killable, else 0 after a sleep of 1-2 ms.
 */
static int neuron_pci_wait_step(struct neuron_pci *np, bool killable)
{
	if (neuron_dev_unplugged(np->nd) || neuron_pci_is_lost(np))
		return -ENODEV;
	if (killable && fatal_signal_pending(current))
		return -EINTR;
	usleep_range(1000, 2000);
	return 0;
}

/*
 * ---- the firmware's mailbox (docs/hw-facts.md, "The firmware mailbox") ----
 *
 * A request is a header and a payload in a host buffer, the answer comes
 * in another: their device addresses go into misc RAM, then a write of 1
 * to the doorbell; the firmware copies the answer in, its sequence byte
 * last [inferred: the facts poll that byte, so it must be written last].
 * Each attempt waits up to 1 s, polling every 1 ms; pci_mbox_tries
 * attempts (the facts: 15), then -ETIMEDOUT and one ratelimited line.
 * The wait runs inside the removal guard, so each poll also looks for
 * removal (-ENODEV) and a fatal signal (-EINTR): neither waits out the
 * attempts (15 s with the default).
 */

#define NEURON_MBOX_SIZE		SZ_64K
#define NEURON_MBOX_WAIT_MS		1000
#define NEURON_MBOX_CMD_READ_REGS	1
#define NEURON_MBOX_OK			0
#define NEURON_MBOX_FAILED		1
#define NEURON_MBOX_UNKNOWN		2

/**
 * struct neuron_mbox_req - the header of a mailbox request
 * @seq: the sequence number, 1..255.
 * @cmd: the command.
 * @size: bytes of the request, this header included.
 * @crc: CRC-32C of the request, computed with this field 0.
 */
struct neuron_mbox_req {
	u8 seq;
	u8 cmd;
	__le16 size;
	__le32 crc;
};

/**
 * struct neuron_mbox_resp - the header of a mailbox answer
 * @seq: the sequence number of the request it answers.
 * @status: NEURON_MBOX_OK, _FAILED or _UNKNOWN.
 * @size: bytes of the answer, this header included.
 */
struct neuron_mbox_resp {
	u8 seq;
	u8 status;
	__le16 size;
};

/* CRC-32C (Castagnoli): initial value and final XOR all ones. */
static u32 neuron_pci_crc32c(const void *p, size_t len)
{
	return ~neuron_crc32c_update(~0U, p, len);
}

/* The two buffers, before the device is exposed (np->nd is not set yet). */
static int neuron_pci_mbox_init(struct neuron_device *nd)
{
	struct neuron_pci *np = nd->backend;
	void *cookie;
	int ret;

	ret = neuron_pci_coherent_alloc(nd, NEURON_MBOX_SIZE, (void **)&np->mbox_req,
					&np->mbox_req_iova, &cookie);
	if (ret)
		return ret;
	ret = neuron_pci_coherent_alloc(nd, NEURON_MBOX_SIZE, (void **)&np->mbox_resp,
					&np->mbox_resp_iova, &cookie);
	if (ret) {
		neuron_pci_coherent_free(nd, NEURON_MBOX_SIZE, np->mbox_req,
					 np->mbox_req_iova, NULL);
		np->mbox_req = NULL;
	}
	return ret;
}

static void neuron_pci_mbox_fini(struct neuron_device *nd)
{
	struct neuron_pci *np = nd->backend;

	if (!np->mbox_req)
		return;
	neuron_pci_coherent_free(nd, NEURON_MBOX_SIZE, np->mbox_resp,
				 np->mbox_resp_iova, NULL);
	neuron_pci_coherent_free(nd, NEURON_MBOX_SIZE, np->mbox_req,
				 np->mbox_req_iova, NULL);
	np->mbox_req = NULL;
	np->mbox_resp = NULL;
}

/*
 * One attempt of the request in the buffer, its sequence @seq: 0 and
 * the answer's status in *@status, -ETIMEDOUT, or -ENODEV once the device
 * is being removed or is lost (the routing id is read every
 * NEURON_PCI_ALIVE_MS) and -EINTR on a fatal signal (seen within a poll,
 * 2 ms: the caller is inside the removal guard, which removal waits for).
 */
static int neuron_pci_mbox_attempt(struct neuron_pci *np, u8 seq, u8 *status)
{
	struct neuron_mbox_resp *resp = (struct neuron_mbox_resp *)np->mbox_resp;
	u64 misc = np->nd->hal->arch->silicon->misc_ram;
	unsigned long end, alive;
	int ret;

	ndhal_wr(&np->io, misc + NDHAL_MISC_REQ_HI, upper_32_bits(np->mbox_req_iova));
	ndhal_wr(&np->io, misc + NDHAL_MISC_REQ_LO, lower_32_bits(np->mbox_req_iova));
	ndhal_wr(&np->io, misc + NDHAL_MISC_RESP_HI, upper_32_bits(np->mbox_resp_iova));
	ndhal_wr(&np->io, misc + NDHAL_MISC_RESP_LO, lower_32_bits(np->mbox_resp_iova));
	WRITE_ONCE(resp->seq, 0);
	/* writel() orders the buffers' stores before the doorbell. */
	ndhal_wr(&np->io, misc + NDHAL_MISC_DOORBELL, 1);
	end = jiffies + msecs_to_jiffies(NEURON_MBOX_WAIT_MS);
	alive = jiffies + msecs_to_jiffies(NEURON_PCI_ALIVE_MS);
	for (;;) {
		if (READ_ONCE(resp->seq) == seq) {
			/* The rest of the answer is read after its sequence. */
			dma_rmb();
			*status = resp->status;
			return 0;
		}
		if (time_after(jiffies, alive)) {
			if (neuron_pci_gone(np, U32_MAX, "mailbox wait"))
				return -ENODEV;
			alive = jiffies + msecs_to_jiffies(NEURON_PCI_ALIVE_MS);
		}
		ret = neuron_pci_wait_step(np, true);
		if (ret)
			return ret;
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
	}
}

/*
 * Send request @cmd with @len bytes of @payload; the answer's payload, up
 * to @out_len bytes, into @out. Return: the bytes of the answer's
 * payload, or -ETIMEDOUT (no answer to any attempt), -EIO (the firmware
 * failed it each time), -EOPNOTSUPP (it does not know @cmd), -EPROTO (an
 * answer's size is no answer's), -ENODEV (no mailbox, or the device is
 * being removed or lost: the attempts stop at once), -EINTR (a fatal signal, also
 * while waiting for another caller's request).
 */
static int neuron_pci_mbox(struct neuron_pci *np, u8 cmd, const void *payload,
			   size_t len, void *out, size_t out_len)
{
	struct neuron_mbox_req *req = (struct neuron_mbox_req *)np->mbox_req;
	struct neuron_mbox_resp *resp = (struct neuron_mbox_resp *)np->mbox_resp;
	unsigned int tries = max(READ_ONCE(neuron_pci_mbox_tries), 1U), i;
	size_t size = sizeof(*req) + len, got;
	int ret = -ETIMEDOUT;
	u8 status = NEURON_MBOX_OK;

	if (!req || neuron_pci_is_lost(np))
		return -ENODEV;
	if (WARN_ON_ONCE(size > NEURON_MBOX_SIZE))
		return -EINVAL;
	if (mutex_lock_killable(&np->mbox_lock))
		return -EINTR;
	for (i = 0; i < tries; i++) {
		/* A new sequence for every attempt: a late answer is not taken. */
		np->mbox_seq = np->mbox_seq == U8_MAX ? 1 : np->mbox_seq + 1;
		req->seq = np->mbox_seq;
		req->cmd = cmd;
		req->size = cpu_to_le16(size);
		req->crc = 0;
		memcpy(req + 1, payload, len);
		req->crc = cpu_to_le32(neuron_pci_crc32c(req, size));
		ret = neuron_pci_mbox_attempt(np, req->seq, &status);
		if (ret == -ENODEV || ret == -EINTR)
			break;
		if (ret)
			continue;
		if (status == NEURON_MBOX_OK) {
			got = le16_to_cpu(resp->size);
			if (got < sizeof(*resp) || got - sizeof(*resp) > out_len) {
				ret = -EPROTO;
				break;
			}
			got -= sizeof(*resp);
			memcpy(out, resp + 1, got);
			ret = got;
			break;
		}
		ret = status == NEURON_MBOX_UNKNOWN ? -EOPNOTSUPP : -EIO;
		if (status == NEURON_MBOX_UNKNOWN)
			break;
	}
	mutex_unlock(&np->mbox_lock);
	if (ret < 0 && ret != -ENODEV && ret != -EINTR)
		dev_err_ratelimited(&np->pdev->dev,
				    "firmware mailbox: command %u: %s after %u attempts (%d)\n",
				    cmd, ret == -ETIMEDOUT ? "no answer" : "failed",
				    min(i + 1, tries), ret);
	return ret;
}

/*
 * The registers of misc RAM at @offs, read through the firmware's
 * read-registers request (device addresses in, 32-bit values out).
 */
static int neuron_pci_mbox_read(struct neuron_pci *np, const u32 *offs, u32 *vals, u32 n)
{
	u64 base = np->nd->hal->arch->silicon->misc_ram_dev;
	__le64 addr[NDHAL_FW_ECC_COUNTERS + 2];
	__le32 out[ARRAY_SIZE(addr)];
	u32 i;
	int ret;

	if (WARN_ON_ONCE(n > ARRAY_SIZE(addr)))
		return -EINVAL;
	for (i = 0; i < n; i++)
		addr[i] = cpu_to_le64(base + offs[i]);
	ret = neuron_pci_mbox(np, NEURON_MBOX_CMD_READ_REGS, addr, n * sizeof(addr[0]),
			      out, sizeof(out));
	if (ret < 0)
		return ret;
	if (ret != n * sizeof(out[0])) {
		dev_err_ratelimited(&np->pdev->dev,
				    "firmware mailbox: %d bytes for %u registers\n", ret, n);
		return -EPROTO;
	}
	for (i = 0; i < n; i++)
		vals[i] = le32_to_cpu(out[i]);
	return 0;
}

/* The serial number and the ECC counters, in one request. */
static int neuron_pci_fw_info(struct neuron_device *nd, struct ndhal_fw_info *info)
{
	static const u32 offs[] = {
		NDHAL_MISC_SERIAL_LO, NDHAL_MISC_SERIAL_HI,
		NDHAL_MISC_ECC, NDHAL_MISC_ECC + 4, NDHAL_MISC_ECC + 8,
		NDHAL_MISC_ECC + 12, NDHAL_MISC_ECC + 16,
	};
	u32 vals[ARRAY_SIZE(offs)];
	int ret;

	BUILD_BUG_ON(ARRAY_SIZE(offs) != 2 + NDHAL_FW_ECC_COUNTERS);
	ret = neuron_pci_mbox_read(nd->backend, offs, vals, ARRAY_SIZE(offs));
	if (ret)
		return ret;
	info->serial = (u64)vals[1] << 32 | vals[0];
	memcpy(info->ecc, &vals[2], sizeof(info->ecc));
	return 0;
}

/*
 * ---- resets through the firmware (docs/hw-facts.md, "Reset") ----
 *
 * The request (NDHAL_RESET_TPB with its map, or NDHAL_RESET_DEVICE) goes
 * into misc RAM, then the doorbell. The firmware has taken it when the
 * request register reads 0: it is read every 100 ms, the request is sent
 * again each 10 s (TPB) or 30 s (device) it is not taken, and the reset
 * fails after pci_reset_timeout_ms (the arch's bound by default, counted
 * from the first sending of the request that carries it) with -ETIMEDOUT
 * and one ratelimited line; the request is then withdrawn (written 0
 * [inferred]: the doorbell would otherwise take the next mailbox request
 * for a reset). Once taken, the reset is done when bit 3 of the firmware
 * status is clear, read up to 5 times 0, 100, 200, 300 and 400 ms apart;
 * else -EIO. After a TPB reset the host-copy engine of each reset NC is
 * set up again as at probe, before anyone is told: on v3 an engine that
 * two NCs share only when the request reset both (the facts; the firmware
 * resets such an engine only then [inferred, as the device model does],
 * and a set-up while the other NC's queue runs would stop that queue). A
 * device reset sets none up: it only comes at probe, which sets every
 * engine up next. The NCs' own engines are not the driver's.
 *
 * Requests that come while another is on its way are coalesced (the
 * facts, step 6): they wait in reset_list, and once the firmware is done
 * with the one in flight the first of them sends one request for all the
 * TPB resets waiting, with the OR of their maps; each of them gets that
 * request's result. A device reset is never merged with TPB resets, either
 * way: folded into a TPB request it would be lost (the request register
 * holds one kind), and TPB resets folded into it would be answered by a
 * reset of every NC, whose queues the driver may be running and did not
 * stop, after which no engine is set up (the probe does that). A device
 * reset comes at probe only, before any queue runs, so the two do not
 * meet today; the rule keeps them apart if they ever do. Device resets
 * waiting together are one request (the same meaning). The oldest request
 * waiting says which kind goes next. The sender holds mbox_lock while its
 * request is out: the mailbox waits meanwhile.
 *
 * It runs inside the removal guard (the DMA layer's reset, the probe):
 * every sleep is 1-2 ms steps that look for removal (-ENODEV at once); a
 * device that reads all ones there is lost (neuron_pci_gone(): -ENODEV at
 * once). A caller waiting for another's request also stops at a fatal
 * signal (-EINTR), as a mailbox caller waiting for mbox_lock does; the
 * sender itself sees its request through, for the others.
 */

#define NEURON_PCI_RESET_POLL_MS	100
#define NEURON_PCI_RESET_RESEND_TPB_MS	10000
#define NEURON_PCI_RESET_RESEND_DEV_MS	30000

/**
 * struct neuron_pci_reset_wait - one caller of neuron_pci_fw_reset()
 * @node: in np->reset_list while it waits to be sent, then in its sender's
 *	batch while that is out; unlinked once @done.
 * @req: NDHAL_RESET_TPB or NDHAL_RESET_DEVICE.
 * @map: the TPB map.
 * @ret: the result of the request that carried it.
 * @done: @ret holds (set under reset_lock).
 */
struct neuron_pci_reset_wait {
	struct list_head node;
	u32 req;
	u32 map;
	int ret;
	bool done;
};

/* Sleep @ms in 1-2 ms steps; -ENODEV as soon as the device is removed or lost. */
static int neuron_pci_reset_sleep(struct neuron_pci *np, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);
	int ret;

	do {
		ret = neuron_pci_wait_step(np, false);
	} while (!ret && time_before(jiffies, end));
	return ret;
}

static void neuron_pci_reset_send(struct neuron_pci *np, u32 req, u32 map)
{
	u64 misc = np->nd->hal->arch->silicon->misc_ram;

	if (req == NDHAL_RESET_TPB) {
		ndhal_wr(&np->io, misc + NDHAL_MISC_TPB_MAP, map);
		/* The facts' barrier between the map and the request. */
		wmb();
	}
	ndhal_wr(&np->io, misc + NDHAL_MISC_RESET, req);
	ndhal_wr(&np->io, misc + NDHAL_MISC_DOORBELL, 1);
}

/* One request to the firmware, and the wait for it: see above. */
static int neuron_pci_reset_request(struct neuron_pci *np, u32 req, u32 map)
{
	static const u16 done_ms[] = { 0, 100, 200, 300, 400 };
	const struct ndhal_silicon *si = np->nd->hal->arch->silicon;
	unsigned int bound = READ_ONCE(neuron_pci_reset_ms) ?: si->reset_give_up_ms;
	unsigned long resend = msecs_to_jiffies(req == NDHAL_RESET_TPB ?
						NEURON_PCI_RESET_RESEND_TPB_MS :
						NEURON_PCI_RESET_RESEND_DEV_MS);
	const char *what = req == NDHAL_RESET_TPB ? "TPB" : "device";
	unsigned long start, sent;
	u64 misc = si->misc_ram;
	int ret;
	u32 i, v;

	mutex_lock(&np->mbox_lock);
	neuron_pci_reset_send(np, req, map);
	start = jiffies;
	sent = start;
	while ((v = ndhal_rd(&np->io, misc + NDHAL_MISC_RESET))) {
		if (neuron_pci_gone(np, v, "reset request")) {
			ret = -ENODEV;
			goto out;
		}
		if (time_after_eq(jiffies, start + msecs_to_jiffies(bound))) {
			ndhal_wr(&np->io, misc + NDHAL_MISC_RESET, 0);
			dev_err_ratelimited(&np->pdev->dev,
					    "firmware did not take the %s reset (map %#x) in %u ms (pci_reset_timeout_ms)\n",
					    what, map, bound);
			ret = -ETIMEDOUT;
			goto out;
		}
		if (time_after_eq(jiffies, sent + resend)) {
			neuron_pci_reset_send(np, req, map);
			sent = jiffies;
		}
		ret = neuron_pci_reset_sleep(np, NEURON_PCI_RESET_POLL_MS);
		if (ret)
			goto out;
	}
	ret = -EIO;
	for (i = 0; i < ARRAY_SIZE(done_ms); i++) {
		int r = neuron_pci_reset_sleep(np, done_ms[i]);

		if (r) {
			ret = r;
			goto out;
		}
		v = ndhal_rd(&np->io, misc + NDHAL_MISC_FW_STATUS);
		if (neuron_pci_gone(np, v, "firmware status")) {
			ret = -ENODEV;
			goto out;
		}
		if (!(v & NDHAL_FW_STATUS_RESETTING)) {
			ret = 0;
			break;
		}
	}
	if (ret)
		dev_err_ratelimited(&np->pdev->dev,
				    "the %s reset (map %#x) was taken but is not done after 1 s\n",
				    what, map);
out:
	mutex_unlock(&np->mbox_lock);
	return ret;
}

/*
 * After a TPB reset of @map: the host-copy engine of each NC whose whole
 * map is in @map set up again, if every NC that shares it is in @map too
 * (see above), once.
 */
static int neuron_pci_reset_engines(struct neuron_pci *np, u32 map)
{
	const struct ndhal_arch *arch = np->nd->hal->arch;
	const struct ndhal_silicon *si = arch->silicon;
	u32 engine, queue, e, q, nc, i;
	int ret;

	for (nc = 0; nc < arch->nc_count; nc++) {
		bool all = true, first = true;

		si->copy_queue(nc, &engine, &queue);
		for (i = 0; i < arch->nc_count; i++) {
			si->copy_queue(i, &e, &q);
			if (e != engine)
				continue;
			if ((si->tpb_reset_map(i) & map) != si->tpb_reset_map(i))
				all = false;
			else if (i < nc)
				first = false;
		}
		/* Set up by the first NC of those that share it, as the facts' even NC. */
		if (!all || !first)
			continue;
		ret = ndhal_udma_engine_init(&np->io, arch, engine);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Send the oldest request waiting in reset_list, with every other of its
 * kind (the OR of the TPB maps), and tell each its result. Called with
 * reset_lock held and reset_busy clear; returns with it held, reset_busy
 * clear again.
 */
static void neuron_pci_reset_lead(struct neuron_pci *np)
	__must_hold(&np->reset_lock)
{
	struct neuron_pci_reset_wait *w, *tmp;
	LIST_HEAD(batch);
	u32 req, map = 0;
	int ret;

	req = list_first_entry(&np->reset_list, struct neuron_pci_reset_wait, node)->req;
	list_for_each_entry_safe(w, tmp, &np->reset_list, node) {
		if (w->req != req)
			continue;
		map |= w->map;
		list_move_tail(&w->node, &batch);
	}
	np->reset_busy = true;
	spin_unlock(&np->reset_lock);

	ret = neuron_pci_reset_request(np, req, req == NDHAL_RESET_TPB ? map : 0);
	if (!ret && req == NDHAL_RESET_TPB)
		ret = neuron_pci_reset_engines(np, map);

	spin_lock(&np->reset_lock);
	/* Those that stopped waiting (removal, a signal) have left the batch. */
	list_for_each_entry_safe(w, tmp, &batch, node) {
		w->ret = ret;
		w->done = true;
		list_del_init(&w->node);
	}
	np->reset_busy = false;
}

/*
 * Reset @req (map @map) through the firmware, merged with those waiting
 * with it (see above): 0, -ETIMEDOUT, -EIO, -ENODEV, or -EINTR (a fatal
 * signal while another's request was out).
 */
static int neuron_pci_fw_reset(struct neuron_pci *np, u32 req, u32 map)
{
	struct neuron_pci_reset_wait w = { .req = req, .map = map };
	int ret = 0;

	spin_lock(&np->reset_lock);
	list_add_tail(&w.node, &np->reset_list);
	while (!w.done) {
		if (!np->reset_busy) {
			neuron_pci_reset_lead(np);
			continue;
		}
		spin_unlock(&np->reset_lock);
		ret = neuron_pci_wait_step(np, true);
		spin_lock(&np->reset_lock);
		if (ret && !w.done) {
			/* Still waiting to be sent, or in the batch that is out. */
			list_del(&w.node);
			spin_unlock(&np->reset_lock);
			return ret;
		}
	}
	spin_unlock(&np->reset_lock);
	return w.ret;
}

/* NC @nc through a TPB reset (see above: its copy engine set up again). */
static int neuron_pci_nc_reset(struct neuron_device *nd, u32 nc)
{
	struct neuron_pci *np = nd->backend;

	return neuron_pci_fw_reset(np, NDHAL_RESET_TPB, nd->hal->arch->silicon->tpb_reset_map(nc));
}

/* ---- the copy queues ---- */

static void neuron_pci_dma_desc(struct neuron_device *nd, struct neuron_udma_desc *tx,
				struct neuron_udma_desc *rx,
				const struct ndhal_dma_packet *p)
{
	ndhal_udma_desc(tx, rx, p);
}

static void neuron_pci_dma_copy_queue(struct neuron_device *nd, u32 nc, u32 *engine,
				      u32 *queue)
{
	nd->hal->arch->silicon->copy_queue(nc, engine, queue);
}

static int neuron_pci_dma_queue_start(struct neuron_device *nd,
				      const struct ndhal_dma_queue_cfg *cfg)
{
	struct neuron_pci *np = nd->backend;

	return ndhal_udma_queue_start(&np->io, nd->hal->arch, cfg->engine, cfg->queue,
				      cfg->tx_iova, cfg->rx_iova, cfg->entries);
}

static void neuron_pci_dma_queue_kick(struct neuron_device *nd, u32 engine, u32 queue,
				      u32 prod, u32 added)
{
	struct neuron_pci *np = nd->backend;

	ndhal_udma_queue_kick(&np->io, nd->hal->arch, engine, queue, added);
}

static void neuron_pci_dma_queue_stop(struct neuron_device *nd, u32 engine, u32 queue)
{
	struct neuron_pci *np = nd->backend;

	ndhal_udma_queue_stop(&np->io, nd->hal->arch, engine, queue);
}

/*
 * An engine that stopped on an error reads "abort" in its state. On v3
 * two NCs share an engine: an error of one stops the other's queue too,
 * and both are reset [inferred: the facts abort the whole engine]. A state
 * of all ones is a lost device, not an error: no queue reset (it would
 * wait for the firmware), the removal that follows ends the queue's jobs
 * with -ENODEV.
 */
static u32 neuron_pci_dma_queue_error(struct neuron_device *nd, u32 engine, u32 queue)
{
	struct neuron_pci *np = nd->backend;

	if (neuron_pci_is_lost(np) ||
	    !ndhal_udma_engine_aborted(&np->io, nd->hal->arch, engine))
		return 0;
	if (neuron_pci_gone(np, ndhal_udma_engine_state(&np->io, nd->hal->arch, engine),
			    "engine state"))
		return 0;
	return NEURON_DMA_ERR_DESC;
}

/*
 * Semaphores and events of NC @nc through its window's semaphore block
 * (docs/hw-facts.md, "Semaphores and events"): events read and set at
 * +4i; a semaphore read at +0x1000 + 4i and set, added to or subtracted
 * from through the pages at +0x1400, +0x1800 and +0x1C00. What the
 * registers do past U32_MAX or below 0 is not public (the facts call the
 * values signed [inferred]), so the driver's rules are checked on a read
 * first, under sem_lock: the check and the write are one step for the
 * driver. A program on the NC could change the value in between; the PCI
 * backend runs none (no NEURON_CAP_EXEC), so only this function writes.
 * A read of all ones from a device that does not answer: -ENODEV
 * (neuron_pci_gone()), which ends an NC_SEM wait too.
 */
static int neuron_pci_sem_update(struct neuron_device *nd, u32 nc, u32 kind,
				 u32 index, u32 op, u32 val, u32 *out)
{
	static const u8 sema_op[] = {
		[NEURON_SEM_SET] = NDHAL_SEMA_SET,
		[NEURON_SEM_INC] = NDHAL_SEMA_INC,
		[NEURON_SEM_DEC] = NDHAL_SEMA_DEC,
	};
	const struct ndhal_arch *arch = nd->hal->arch;
	struct neuron_pci *np = nd->backend;
	const char *what = kind == NEURON_SEM_KIND_EVENT ? "event" : "semaphore";
	s64 rd, wr = -EINVAL;
	int ret = 0;
	u32 v;

	if (kind == NEURON_SEM_KIND_EVENT) {
		rd = ndhal_event_reg(arch, nc, index);
		wr = rd;
	} else {
		rd = ndhal_sema_reg(arch, nc, index, NDHAL_SEMA_READ);
		if (op == NEURON_SEM_SET || op == NEURON_SEM_INC || op == NEURON_SEM_DEC)
			wr = ndhal_sema_reg(arch, nc, index, sema_op[op]);
	}
	if (rd < 0 || (op != NEURON_SEM_READ && wr < 0))
		return -EINVAL;
	spin_lock(&np->sem_lock);
	v = ndhal_rd(&np->io, rd);
	if (neuron_pci_gone(np, v, what)) {
		ret = -ENODEV;
	} else if (op == NEURON_SEM_INC && v > U32_MAX - val) {
		ret = -EOVERFLOW;
	} else if (op == NEURON_SEM_DEC && v < val) {
		ret = -EAGAIN;
	} else if (op != NEURON_SEM_READ) {
		ndhal_wr(&np->io, wr, val);
		v = ndhal_rd(&np->io, rd);
		if (neuron_pci_gone(np, v, what))
			ret = -ENODEV;
	}
	spin_unlock(&np->sem_lock);
	*out = v;
	return ret;
}

/*
 * ---- notification queues ----
 *
 * Queue (nc, type) is a slot of NC nc's notification block. The facts give
 * two slot numberings that conflict (docs/hw-facts.md, "Notification
 * queues"): the queue's engine index, or type x 16 + index, where type is
 * the facts' (0 trace, 1 notify, 2 event, 3 error). The driver takes the
 * second, with index 0 and our types matched to theirs by name
 * [inferred]: COMPLETION -> notify, EVENT -> event, ERROR -> error,
 * TRACE -> trace; slots 16, 32, 48 and 0.
 */
static const u8 neuron_pci_nq_slot[NEURON_NOTIFY_TYPES] = {
	[NEURON_NOTIFY_COMPLETION] = 1 * 16,
	[NEURON_NOTIFY_EVENT] = 2 * 16,
	[NEURON_NOTIFY_ERROR] = 3 * 16,
	[NEURON_NOTIFY_TRACE] = 0 * 16,
};

/* How long a disabled slot's writes in flight may take [certain: 1 ms]. */
#define NEURON_PCI_NQ_DRAIN_US	1000

/* Program slot (nc, type): base high, base low, then size (0: disabled). */
static void neuron_pci_nq_write(struct neuron_device *nd, u32 nc, u32 type,
				u64 base, u32 size)
{
	const struct ndhal_arch *arch = nd->hal->arch;
	struct neuron_pci *np = nd->backend;
	u32 slot = neuron_pci_nq_slot[type];

	ndhal_wr(&np->io, ndhal_notify_slot_reg(arch, nc, slot, NDHAL_NQ_BASE_HI),
		 upper_32_bits(base));
	ndhal_wr(&np->io, ndhal_notify_slot_reg(arch, nc, slot, NDHAL_NQ_BASE_LO),
		 lower_32_bits(base));
	ndhal_wr(&np->io, ndhal_notify_slot_reg(arch, nc, slot, NDHAL_NQ_SIZE), size);
}

/*
 * The device writes the entries only (ndhal_ops.notify_polled): it is
 * given their address (@iova: they alone are mapped) and bytes. What
 * silicon writes there is not public (docs/uapi.md); the device model
 * writes struct neuron_notify_entry.
 */
static int neuron_pci_notify_init(struct neuron_device *nd, u32 nc, u32 type,
				  u64 iova, u32 entries, u32 key)
{
	neuron_pci_nq_write(nd, nc, type, iova,
			    entries * sizeof(struct neuron_notify_entry));
	return 0;
}

/*
 * Disable the slot (zeros in the same order), read its size back so the
 * writes have reached the device [inferred], and give writes in flight
 * the facts' 1 ms to land before the ring's memory goes: a bounded sleep,
 * nothing is waited for.
 */
static void neuron_pci_notify_fini(struct neuron_device *nd, u32 nc, u32 type)
{
	struct neuron_pci *np = nd->backend;

	neuron_pci_nq_write(nd, nc, type, 0, 0);
	ndhal_rd(&np->io, ndhal_notify_slot_reg(nd->hal->arch, nc,
						neuron_pci_nq_slot[type], NDHAL_NQ_SIZE));
	usleep_range(NEURON_PCI_NQ_DRAIN_US, 2 * NEURON_PCI_NQ_DRAIN_US);
}

const struct ndhal_ops neuron_pci_ops = {
	.name = "pci",
	.init = neuron_pci_hw_init,
	.fini = neuron_pci_hw_fini,
	.dram_alloc = neuron_pci_dram_alloc,
	.dram_free = neuron_pci_dram_free,
	.dram_pfn = neuron_pci_dram_pfn,
	.dram_uncleared = true,
	.dma_map = neuron_pci_dma_map,
	.dma_unmap = neuron_pci_dma_unmap,
	.dma_map_block = neuron_pci_dma_map_block,
	.dma_unmap_block = neuron_pci_dma_unmap_block,
	.coherent_alloc = neuron_pci_coherent_alloc,
	.coherent_free = neuron_pci_coherent_free,
	.dma_marker = true,
	.dma_desc = neuron_pci_dma_desc,
	.dma_copy_queue = neuron_pci_dma_copy_queue,
	.dma_queue_start = neuron_pci_dma_queue_start,
	.dma_queue_kick = neuron_pci_dma_queue_kick,
	.dma_queue_stop = neuron_pci_dma_queue_stop,
	.dma_queue_error = neuron_pci_dma_queue_error,
	.notify_init = neuron_pci_notify_init,
	.notify_fini = neuron_pci_notify_fini,
	.notify_polled = true,
	/* [inferred] 1 ms: the facts give no notice of a change, nor a rate. */
	.sem_poll_us = 1000,
	.sem_update = neuron_pci_sem_update,
	.nc_reset = neuron_pci_nc_reset,
	.fw_info = neuron_pci_fw_info,
};

/*
 * With the engines driven: the DRAM map of the arch must fit the DRAM BAR;
 * each channel's share starts past the carve-out. Return: the bytes the
 * driver may place, 0 if the BAR is too small.
 */
static u64 neuron_pci_dram_map(struct neuron_pci *np, const struct ndhal_arch *arch)
{
	const struct ndhal_silicon *si = arch->silicon;
	u64 bar = pci_resource_len(np->pdev, arch->dram_bar);
	u32 c;

	for (c = 0; c < arch->dram_channels; c++) {
		if (si->dram_bar[c] + si->dram_channel_size > bar) {
			dev_err(&np->pdev->dev,
				"DRAM BAR of %llu bytes holds no channel %u at %#llx\n",
				(u64)bar, c, si->dram_bar[c]);
			return 0;
		}
		np->dram_base[c] = si->dram_addr[c] + si->dram_carveout;
	}
	np->dram_phys = pci_resource_start(np->pdev, arch->dram_bar);
	return arch->dram_channels * (si->dram_channel_size - si->dram_carveout);
}

static int neuron_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	const struct neuron_pci_product *prod = &neuron_pci_products[id->driver_data];
	const struct ndhal *hal = prod->hal;
	struct neuron_device_desc desc = {};
	struct neuron_device *nd;
	struct neuron_pci *np;
	int ret;

	if (neuron_pci_engines && prod->hal_engines) {
		hal = prod->hal_engines;
		dev_warn_once(&pdev->dev,
			      "pci_engines=1: driving the DMA engines, which has never run on silicon\n");
	}
	/* Managed (devres): freed and disabled when the driver detaches. */
	np = devm_kzalloc(&pdev->dev, sizeof(*np), GFP_KERNEL);
	if (!np)
		return -ENOMEM;
	np->pdev = pdev;
	spin_lock_init(&np->sem_lock);
	mutex_init(&np->mbox_lock);
	spin_lock_init(&np->reset_lock);
	INIT_LIST_HEAD(&np->reset_list);

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	desc.dram_size = pci_resource_len(pdev, hal->arch->dram_bar);
	if (hal->caps & NEURON_CAP_COPY) {
		/* Host addresses must stay below the window bit [inferred]. */
		ret = dma_set_mask_and_coherent(&pdev->dev,
						DMA_BIT_MASK(hal->arch->silicon->dma_bits));
		desc.dram_size = neuron_pci_dram_map(np, hal->arch);
		desc.dram_base = np->dram_base;
		if (!ret && !desc.dram_size)
			ret = -ENODEV;
		pci_set_master(pdev);
	} else {
		ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	}
	if (ret) {
		dev_err(&pdev->dev, "no usable DMA mask or DRAM map (%d)\n", ret);
		return ret;
	}

	np->lost = kzalloc(sizeof(*np->lost), GFP_KERNEL);
	if (!np->lost)
		return -ENOMEM;
	INIT_WORK(&np->lost->work, neuron_pci_lost_work);
	desc.parent = &pdev->dev;
	desc.hal = hal;
	desc.product = prod->name;
	desc.pdev = pdev;
	desc.backend = np;
	nd = neuron_device_create(&desc);
	if (IS_ERR(nd)) {
		/* Unless lost after its init: then the work has it. */
		if (!test_and_set_bit(NEURON_PCI_LOST, &np->flags))
			kfree(np->lost);
		return PTR_ERR(nd);
	}
	np->nd = nd;
	pci_set_drvdata(pdev, np);
	return 0;
}

/*
 * The device goes: the core ends every call and gives the backend's
 * resources back (neuron_pci_hw_fini() included) before this returns;
 * devres then disables the device (bus mastering off) and frees @np.
 * Nothing calls the backend after neuron_device_remove(), so nothing marks
 * the device lost after it: the lost work is the removal's to free unless
 * it was queued (then it frees itself; it may be this removal's caller).
 */
static void neuron_pci_remove(struct pci_dev *pdev)
{
	struct neuron_pci *np = pci_get_drvdata(pdev);

	neuron_device_remove(np->nd);
	if (!test_and_set_bit(NEURON_PCI_LOST, &np->flags))
		kfree(np->lost);
}

static struct pci_driver neuron_pci_driver = {
	.name = "neuron",
	.id_table = neuron_pci_ids,
	.probe = neuron_pci_probe,
	.remove = neuron_pci_remove,
};

int neuron_pci_init(void)
{
	int ret;

	neuron_pci_wq = alloc_workqueue("neuron_pci_lost", WQ_UNBOUND, 0);
	if (!neuron_pci_wq)
		return -ENOMEM;
	ret = pci_register_driver(&neuron_pci_driver);
	if (ret)
		destroy_workqueue(neuron_pci_wq);
	return ret;
}

/* The devices are removed first; then the lost works still queued run (as no-ops). */
void neuron_pci_exit(void)
{
	pci_unregister_driver(&neuron_pci_driver);
	destroy_workqueue(neuron_pci_wq);
}
