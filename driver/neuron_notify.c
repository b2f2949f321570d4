// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: notification queues, driver side.
 *
 * Each NeuronCore has one queue of each NEURON_NOTIFY_* type. A file sets
 * a queue up (NOTIFY_SETUP) and owns it until NOTIFY_TEARDOWN or its
 * release; the driver allocates the ring in host pages, maps them for the
 * device (ndhal dma_map) and programs the device (ndhal notify_init). The
 * device writes entries and then the header's head, and raises the NC's
 * NEURON_IRQ_NOTIFY interrupt. The owner maps the ring read-only and
 * gives entries back through NOTIFY_WAIT, which also sleeps for new ones.
 *
 * The header is written by the device and so untrusted: each time the
 * driver reads head it checks that head did not move backwards and lies
 * at most @entries past the consumer index the driver gave the device. A
 * queue whose device broke that rule is dead (-EIO) until torn down.
 *
 * A device that writes only the entries (ndhal_ops.notify_polled: PCI)
 * has neither header nor interrupt: the driver keeps the header (entries,
 * tail, head), finds head from the entries' seq (each is read once, for
 * that word only), and a delayed work (nn->poll) does what the interrupt
 * handler does, every sem_poll_us, while a queue of the device is set up.
 *
 * Locking:
 *  - nn->lock (mutex) serialises setup, teardown, consume, mmap lookups,
 *    file release and unplug; it guards the owner, ring and mapping of every
 *    queue, the interrupt reference counts and nn->dead, and is held
 *    across every call into the backend.
 *  - q->lock (spinlock, taken in the hard interrupt handler) guards what
 *    the handler and the waiters read: active, gen, entries, hdr, eventfd,
 *    head, tail, overflow, error. Fields written under both locks may be
 *    read under either.
 *  - NOTIFY_WAIT gives entries back to the device inside the removal guard
 *    (neuron_dev_enter()) and sleeps outside it, among the NC's waiters
 *    (neuron_exec_wait(), woken by neuron_nc_wake()): its queue lives as
 *    long as the device structure, which the file holds. Removal wakes the
 *    sleepers, who then see the device unplugged.
 *
 * Lifetimes: the ring's pages are reference counted (the queue and each
 * mapping hold one), so a mapping outlives teardown and close and reads
 * the frozen ring; removal of the device zaps the mappings (the file's
 * f_mapping is the device inode's, see neuron_mmap.c) and later faults get
 * SIGBUS.
 *
 * Accounting: the ring's pages are charged to the memory cgroup and the
 * pinned memory (RLIMIT_MEMLOCK) of the process that set the queue up,
 * until the last reference frees them. A file owns at most
 * neuron_max_notify_queues queues (nf->nqueues, under nn->lock).
 */
#include <linux/eventfd.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "neuron_common.h"
#include "neuron_nc.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_mem.h"
#include "neuron_ioctl.h"
#include "neuron_exec.h"
#include "neuron_notify.h"
#include "neuron_hw.h"
#include "neuron_trace.h"
#include "neuron_compat.h"
#include "ndhal/ndhal.h"

#define NEURON_NOTIFY_SLOT_PGSHIFT	(NEURON_NOTIFY_MMAP_SHIFT - PAGE_SHIFT)
#define NEURON_NOTIFY_SLOT_PGMASK	((1UL << NEURON_NOTIFY_SLOT_PGSHIFT) - 1)

/**
 * struct neuron_notify_ring - the host pages of one ring
 * @ref: the queue's reference and one per mapping.
 * @nd: the device; a reference is held for the ring's life.
 * @npages: entries in @pages.
 * @pages: header page first, then the entries.
 * @charge: the pages' charge to the pinned memory of the process that set
 *	the queue up.
 */
struct neuron_notify_ring {
	struct kref ref;
	struct neuron_device *nd;
	unsigned long npages;
	struct page **pages;
	struct neuron_pin_charge charge;
};

/**
 * struct neuron_notify_queue - one queue (nc, type) of a device
 * @nd: the device.
 * @nc: its NeuronCore.
 * @type: its NEURON_NOTIFY_* type.
 * @owner: the file that set it up, NULL while free. Under nn->lock.
 * @ring: the ring while set up. Under nn->lock.
 * @dma: the device address of each page of @ring (one range for the
 *	device); NULL on a polled device. Under nn->lock.
 * @iova: the device address of the ring (of its entries on a polled
 *	device). Under nn->lock.
 * @halted: the device no longer writes the ring: its NC was reset
 *	(neuron_notify_nc_halt()); teardown does not stop it again. Under
 *	nn->lock.
 * @lock: guards the fields below (see the top of the file).
 * @active: set up and readable by the handler.
 * @gen: bumped at every setup and teardown: a waiter that sees it change
 *	knows its queue went away.
 * @entries: ring size.
 * @hdr: the header, in @ring's first page.
 * @pages: @ring's pages (the entries of a polled device are read).
 * @eventfd: signalled when @head, @overflow or @error change; or NULL.
 * @head: producer index last read from @hdr and found valid.
 * @tail: consumer index given to the device.
 * @overflow: overflow count last read from @hdr.
 * @overflow_event: @overflow grew and the netlink event is not sent yet
 *	(by nn->overflow_work, in process context).
 * @error: 0, or -EIO once the device wrote an impossible head or the
 *	queue was halted by a reset of its NC.
 */
struct neuron_notify_queue {
	struct neuron_device *nd;
	u32 nc;
	u32 type;
	struct neuron_file *owner;
	struct neuron_notify_ring *ring;
	u64 *dma;
	u64 iova;
	bool halted;
	spinlock_t lock;		/* see above */
	bool active;
	u32 gen;
	u32 entries;
	struct neuron_notify_header *hdr;
	struct page **pages;
	struct eventfd_ctx *eventfd;
	u32 head;
	u32 tail;
	u32 overflow;
	bool overflow_event;
	int error;
};

/**
 * struct neuron_notify_dev - the notification queues of a device
 * @lock: see the top of the file.
 * @dead: the device is unplugged: no more setups.
 * @irq_users: active queues of each NC; its interrupt is requested while
 *	non-zero.
 * @overflow_work: sends the NEURON_EVENT_NOTIFY_OVERFLOW events of the
 *	queues whose @overflow_event is set (the handler runs in hard
 *	interrupt context, where no netlink message can be sent).
 * @polled: active queues of the device, for a polled device (the sum of
 *	@irq_users); @poll runs while non-zero.
 * @poll: a polled device's stand-in for the interrupt.
 * @q: the queues.
 */
struct neuron_notify_dev {
	struct mutex lock;		/* see above */
	bool dead;
	unsigned int irq_users[NEURON_MAX_NC];
	struct work_struct overflow_work;
	unsigned int polled;
	struct delayed_work poll;
	struct neuron_notify_queue q[NEURON_MAX_NC][NEURON_NOTIFY_TYPES];
};

/* ---- pure functions (KUnit) ---- */

/**
 * neuron_notify_setup_check() - validate a NOTIFY_SETUP request
 * @s: the request.
 * @arch: geometry of the device.
 *
 * Return: 0, or -EINVAL for a field out of range or not zero. The eventfd
 * itself is checked when it is looked up.
 */
VISIBLE_IF_KUNIT int neuron_notify_setup_check(const struct neuron_notify_setup *s,
					       const struct ndhal_arch *arch)
{
	if (s->flags || s->pad || s->reserved[0] || s->reserved[1])
		return -EINVAL;
	if (s->nc >= arch->nc_count || s->type >= NEURON_NOTIFY_TYPES)
		return -EINVAL;
	if (!is_power_of_2(s->entries) || s->entries < NEURON_NOTIFY_MIN_ENTRIES ||
	    s->entries > NEURON_NOTIFY_MAX_ENTRIES)
		return -EINVAL;
	if (s->eventfd < -1)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_notify_setup_check);

/* Bytes of the mapping of a ring of @entries: header page and entries. */
VISIBLE_IF_KUNIT u64 neuron_notify_ring_size(u32 entries)
{
	return PAGE_ALIGN(NEURON_NOTIFY_ENTRY_OFFSET +
			  (u64)entries * sizeof(struct neuron_notify_entry));
}
EXPORT_SYMBOL_IF_KUNIT(neuron_notify_ring_size);

VISIBLE_IF_KUNIT u64 neuron_notify_mmap_offset(u32 nc, u32 type)
{
	return (1 + (u64)nc * NEURON_NOTIFY_TYPES + type) << NEURON_NOTIFY_MMAP_SHIFT;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_notify_mmap_offset);

/**
 * neuron_notify_mmap_slot() - decode an mmap page offset of the rings
 * @pgoff: the page offset.
 * @nc: NeuronCore of the queue.
 * @type: type of the queue.
 * @first: first page of the ring to map.
 *
 * Return: 0, or -EINVAL for an offset that names no queue (slot 0, a slot
 * past the last NC, or an offset of the memory objects).
 */
VISIBLE_IF_KUNIT int neuron_notify_mmap_slot(unsigned long pgoff, u32 *nc,
					     u32 *type, unsigned long *first)
{
	unsigned long slot = pgoff >> NEURON_NOTIFY_SLOT_PGSHIFT;

	if (!slot || slot > NEURON_NOTIFY_SLOTS)
		return -EINVAL;
	*nc = (slot - 1) / NEURON_NOTIFY_TYPES;
	*type = (slot - 1) % NEURON_NOTIFY_TYPES;
	*first = pgoff & NEURON_NOTIFY_SLOT_PGMASK;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_notify_mmap_slot);

/**
 * neuron_notify_head_valid() - may the device have written this head?
 * @tail: consumer index the driver gave the device.
 * @old_head: the head last accepted.
 * @new_head: the head just read.
 * @entries: ring size.
 *
 * Indexes run free modulo 2^32. The device never moves head backwards and
 * never runs more than @entries ahead of the consumer: counted from @tail,
 * @new_head must lie between @old_head and @tail + @entries.
 */
VISIBLE_IF_KUNIT bool neuron_notify_head_valid(u32 tail, u32 old_head,
					       u32 new_head, u32 entries)
{
	u32 before = old_head - tail, after = new_head - tail;

	return before <= after && after <= entries;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_notify_head_valid);

/* A new consumer index lies between the current one and head. */
VISIBLE_IF_KUNIT bool neuron_notify_consume_valid(u32 tail, u32 head, u32 consumed)
{
	return consumed - tail <= head - tail;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_notify_consume_valid);

/* ---- rings ---- */

static struct neuron_notify_ring *neuron_notify_ring_alloc(struct neuron_device *nd,
							   u32 entries)
{
	struct neuron_notify_ring *ring;

	ring = kzalloc(sizeof(*ring), GFP_KERNEL_ACCOUNT);
	if (!ring)
		return NULL;
	ring->npages = neuron_notify_ring_size(entries) >> PAGE_SHIFT;
	if (neuron_pin_charge(&ring->charge, ring->npages)) {
		kfree(ring);
		return NULL;
	}
	/* A polled device writes the entries only: one block of them. */
	ring->pages = neuron_hw_notify_polled(nd) ?
		      neuron_pages_alloc_block(ring->npages, 1) :
		      neuron_pages_alloc(ring->npages);
	if (!ring->pages) {
		neuron_pin_uncharge(&ring->charge);
		kfree(ring);
		return NULL;
	}
	kref_init(&ring->ref);
	ring->nd = nd;
	get_device(&nd->dev);
	return ring;
}

static void neuron_notify_ring_release(struct kref *ref)
{
	struct neuron_notify_ring *ring = container_of(ref, struct neuron_notify_ring, ref);

	neuron_pages_free(ring->pages, ring->npages);
	neuron_pin_uncharge(&ring->charge);
	put_device(&ring->nd->dev);
	kfree(ring);
}

static void neuron_notify_ring_put(struct neuron_notify_ring *ring)
{
	kref_put(&ring->ref, neuron_notify_ring_release);
}

/* Entry @i of a ring of @entries in @pages. */
static struct neuron_notify_entry *
neuron_notify_entry_at(struct page **pages, u32 entries, u32 i)
{
	size_t off = NEURON_NOTIFY_ENTRY_OFFSET +
		     (size_t)(i & (entries - 1)) * sizeof(struct neuron_notify_entry);

	return page_address(pages[off >> PAGE_SHIFT]) + offset_in_page(off);
}

/*
 * For a polled device, which writes no header: the driver writes it, and
 * gives entry i the seq of the lap before (i - @entries), so that none
 * looks written before the device wrote it.
 */
static void neuron_notify_ring_prime(struct neuron_notify_ring *ring, u32 entries)
{
	struct neuron_notify_header *hdr = page_address(ring->pages[0]);
	u32 i;

	hdr->entries = entries;
	for (i = 0; i < entries; i++)
		neuron_notify_entry_at(ring->pages, entries, i)->seq = i - entries;
}

/*
 * Map the ring for the device, as one range: all of it, or a polled
 * device's entries only. Its device address in *@iova; *@dma for
 * neuron_notify_dma_unmap(). Under nn->lock.
 */
static int neuron_notify_dma_map(struct neuron_device *nd,
				 struct neuron_notify_ring *ring, u64 **dma, u64 *iova)
{
	int ret;

	if (neuron_hw_notify_polled(nd)) {
		*dma = NULL;
		return neuron_hw_dma_map_block(nd, ring->pages[1], ring->npages - 1, iova);
	}
	ret = neuron_pages_dma_map(nd, ring->pages, ring->npages, dma);
	if (ret)
		return ret;
	if (!neuron_dma_contiguous(*dma, ring->npages)) {
		neuron_pages_dma_unmap(nd, ring->npages, dma);
		return -ENOMEM;
	}
	*iova = (*dma)[0];
	return 0;
}

static void neuron_notify_dma_unmap(struct neuron_device *nd,
				    struct neuron_notify_ring *ring, u64 **dma, u64 iova)
{
	if (neuron_hw_notify_polled(nd))
		neuron_hw_dma_unmap_block(nd, ring->npages - 1, iova);
	else
		neuron_pages_dma_unmap(nd, ring->npages, dma);
}

/* ---- the interrupt ---- */

/*
 * A polled device's head: from the last one accepted, each entry whose
 * seq is its index was written. One entry past tail + entries at most is
 * looked at: a device that overwrote an unread entry gives a head the
 * caller rejects. Called with q->lock held.
 */
static u32 neuron_notify_scan_locked(struct neuron_notify_queue *q)
{
	const struct neuron_notify_entry *e;
	u32 head = q->head;

	lockdep_assert_held(&q->lock);
	while (head - q->tail <= q->entries) {
		e = neuron_notify_entry_at(q->pages, q->entries, head);
		/* Pairs with the device's ordered write of seq after the rest. */
		if (smp_load_acquire(&e->seq) != head)
			break;
		head++;
	}
	return head;
}

/*
 * Read head and overflow from the header (a polled device: from the
 * entries) and accept them if head is possible. Called with q->lock
 * held. Return: true if what waiters see changed (head, overflow, or the
 * queue just failed).
 */
static bool neuron_notify_refresh_locked(struct neuron_notify_queue *q)
{
	bool polled = neuron_hw_notify_polled(q->nd);
	u32 head, overflow;

	lockdep_assert_held(&q->lock);
	if (!q->active || q->error)
		return false;
	if (polled) {
		head = neuron_notify_scan_locked(q);
		overflow = q->overflow;
	} else {
		head = READ_ONCE(q->hdr->head);
		overflow = READ_ONCE(q->hdr->overflow);
	}
	if (!neuron_notify_head_valid(q->tail, q->head, head, q->entries)) {
		q->error = -EIO;
		dev_err_ratelimited(&q->nd->dev,
				    "notification queue nc %u type %u: device %s head %u (tail %u, head %u, %u entries); queue stopped\n",
				    q->nc, q->type,
				    polled ? "overwrote an unread entry:" : "wrote",
				    head, q->tail, q->head, q->entries);
		trace_neuron_notify(q->nd->minor, q->nc, q->type, head, q->tail,
				    overflow, q->error);
		return true;
	}
	if (head == q->head && overflow == q->overflow)
		return false;
	q->head = head;
	if (polled) {
		/* Entries below head are whole: pairs with readers' acquire. */
		smp_store_release(&q->hdr->head, head);
	}
	if ((s32)(overflow - q->overflow) > 0 && !q->overflow_event) {
		q->overflow_event = true;
		schedule_work(&q->nd->notify->overflow_work);
	}
	q->overflow = overflow;
	trace_neuron_notify(q->nd->minor, q->nc, q->type, head, q->tail,
			    overflow, 0);
	return true;
}

/* NEURON_IRQ_NOTIFY(nc): @data is the NC's row of queues. Hard IRQ. */
static irqreturn_t neuron_notify_irq(int irq, void *data)
{
	struct neuron_notify_queue *row = data;
	unsigned int t;
	bool changed;

	for (t = 0; t < NEURON_NOTIFY_TYPES; t++) {
		struct neuron_notify_queue *q = &row[t];

		spin_lock(&q->lock);
		changed = neuron_notify_refresh_locked(q);
		if (changed && q->eventfd)
			neuron_eventfd_signal(q->eventfd);
		spin_unlock(&q->lock);
		if (changed)
			neuron_nc_wake(&q->nd->nc[q->nc]);
	}
	return IRQ_HANDLED;
}

/* How often a polled device's queues are looked at: sem_poll_us. */
static unsigned long neuron_notify_poll_jiffies(struct neuron_device *nd)
{
	return max(usecs_to_jiffies(neuron_hw_sem_poll_us(nd)), 1UL);
}

/*
 * A polled device: what the interrupt handler does, for each NC with a
 * queue, with interrupts off as in the handler (q->lock is taken there
 * without disabling them).
 */
static void neuron_notify_poll(struct work_struct *work)
{
	struct neuron_notify_dev *nn = container_of(to_delayed_work(work),
						    struct neuron_notify_dev, poll);
	struct neuron_device *nd = nn->q[0][0].nd;
	unsigned int nc;

	for (nc = 0; nc < nd->hal->arch->nc_count; nc++) {
		if (!READ_ONCE(nn->irq_users[nc]))
			continue;
		local_irq_disable();
		neuron_notify_irq(0, nn->q[nc]);
		local_irq_enable();
	}
	if (READ_ONCE(nn->polled))
		schedule_delayed_work(&nn->poll, neuron_notify_poll_jiffies(nd));
}

/* Take a reference on the interrupt of @nc. Under nn->lock. */
static int neuron_notify_irq_get_locked(struct neuron_device *nd,
					struct neuron_notify_dev *nn, u32 nci)
{
	int ret;

	lockdep_assert_held(&nn->lock);
	if (neuron_hw_notify_polled(nd)) {
		WRITE_ONCE(nn->irq_users[nci], nn->irq_users[nci] + 1);
		WRITE_ONCE(nn->polled, nn->polled + 1);
		if (nn->polled == 1)
			schedule_delayed_work(&nn->poll, neuron_notify_poll_jiffies(nd));
		return 0;
	}
	if (nn->irq_users[nci]++)
		return 0;
	ret = neuron_hw_irq_request(nd, NEURON_IRQ_NOTIFY(nci), neuron_notify_irq,
				    nn->q[nci]);
	if (ret)
		nn->irq_users[nci]--;
	return ret;
}

static void neuron_notify_irq_put_locked(struct neuron_device *nd,
					 struct neuron_notify_dev *nn, u32 nci)
{
	lockdep_assert_held(&nn->lock);
	if (neuron_hw_notify_polled(nd)) {
		WRITE_ONCE(nn->irq_users[nci], nn->irq_users[nci] - 1);
		WRITE_ONCE(nn->polled, nn->polled - 1);
		/* The work takes no nn->lock; it re-arms no more. */
		if (!nn->polled)
			cancel_delayed_work_sync(&nn->poll);
		return;
	}
	if (!--nn->irq_users[nci])
		neuron_hw_irq_free(nd, NEURON_IRQ_NOTIFY(nci));
}

/* ---- setup and teardown ---- */

/* Stop the handler and the waiters from using the queue. */
static struct eventfd_ctx *neuron_notify_deactivate(struct neuron_notify_queue *q)
{
	struct eventfd_ctx *efd;

	spin_lock_irq(&q->lock);
	/* What a polled device wrote so far shows in the frozen header. */
	if (neuron_hw_notify_polled(q->nd))
		neuron_notify_refresh_locked(q);
	q->active = false;
	q->gen++;
	efd = q->eventfd;
	q->eventfd = NULL;
	q->hdr = NULL;
	q->pages = NULL;
	spin_unlock_irq(&q->lock);
	neuron_nc_wake(&q->nd->nc[q->nc]);
	return efd;
}

/*
 * Tear a queue down: the device stops writing, the interrupt is dropped
 * with its last queue, the ring is unmapped for the device and loses the
 * queue's reference (mappings keep theirs). With @signal (unplug), the
 * eventfd is signalled so that epoll users look and get -ENODEV. Under
 * nn->lock.
 */
static void neuron_notify_stop_locked(struct neuron_notify_dev *nn,
				      struct neuron_notify_queue *q, bool signal)
{
	struct neuron_device *nd = q->nd;
	struct eventfd_ctx *efd;

	lockdep_assert_held(&nn->lock);
	efd = neuron_notify_deactivate(q);
	if (!q->halted)
		neuron_hw_notify_fini(nd, q->nc, q->type);
	q->halted = false;
	neuron_notify_irq_put_locked(nd, nn, q->nc);
	neuron_notify_dma_unmap(nd, q->ring, &q->dma, q->iova);
	neuron_notify_ring_put(q->ring);
	q->ring = NULL;
	/* A file released during the removal left its queue ownerless. */
	if (q->owner)
		q->owner->nqueues--;
	q->owner = NULL;
	if (efd) {
		if (signal)
			neuron_eventfd_signal(efd);
		eventfd_ctx_put(efd);
	}
}

int neuron_ioctl_notify_setup(struct neuron_file *nf, void *arg)
{
	struct neuron_notify_setup *s = arg;
	struct neuron_device *nd = nf->nd;
	struct neuron_notify_dev *nn = nd->notify;
	struct neuron_notify_ring *ring;
	struct eventfd_ctx *efd = NULL;
	struct neuron_notify_queue *q;
	unsigned int max_queues;
	u64 *dma = NULL, iova = 0;
	int idx, ret;

	if (!nn)
		return -EOPNOTSUPP;
	ret = neuron_notify_setup_check(s, nd->hal->arch);
	if (ret)
		return ret;
	if (s->eventfd >= 0) {
		efd = eventfd_ctx_fdget(s->eventfd);
		if (IS_ERR(efd))
			return PTR_ERR(efd);
	}
	ring = neuron_notify_ring_alloc(nd, s->entries);
	if (!ring) {
		ret = -ENOMEM;
		goto err_efd;
	}
	/*
	 * Queues of an NC another file reserved are its owner's alone: held
	 * until the queue is set up, so a reservation comes before (-EBUSY)
	 * or after (it takes the queue down).
	 */
	ret = neuron_nc_enter(nf, BIT_ULL(s->nc), 0);
	if (ret)
		goto err_ring;
	if (!neuron_dev_enter(nd, &idx)) {
		ret = -ENODEV;
		goto err_nc;
	}

	q = &nn->q[neuron_nc_get(nd, s->nc)->index]
		  [array_index_nospec(s->type, NEURON_NOTIFY_TYPES)];
	mutex_lock(&nn->lock);
	ret = -ENODEV;
	if (nn->dead)
		goto err_unlock;
	ret = -EBUSY;
	if (q->owner)
		goto err_unlock;
	max_queues = READ_ONCE(neuron_max_notify_queues);
	ret = -ENOSPC;
	if (max_queues && nf->nqueues >= max_queues)
		goto err_unlock;
	/* The device writes the ring as one range. */
	ret = neuron_notify_dma_map(nd, ring, &dma, &iova);
	if (ret)
		goto err_unlock;
	ret = neuron_notify_irq_get_locked(nd, nn, s->nc);
	if (ret)
		goto err_unmap;

	if (neuron_hw_notify_polled(nd))
		neuron_notify_ring_prime(ring, s->entries);
	/* Ready for the handler before the device may write. */
	spin_lock_irq(&q->lock);
	q->entries = s->entries;
	q->hdr = page_address(ring->pages[0]);
	q->pages = ring->pages;
	q->head = 0;
	q->tail = 0;
	q->overflow = 0;
	q->error = 0;
	q->eventfd = efd;
	q->gen++;
	q->active = true;
	spin_unlock_irq(&q->lock);
	ret = neuron_hw_notify_init(nd, s->nc, s->type, iova, s->entries, nf->key);
	if (ret) {
		/* Undo by hand: the eventfd is still the caller's to drop. */
		neuron_notify_deactivate(q);
		neuron_hw_notify_fini(nd, s->nc, s->type);
		neuron_notify_irq_put_locked(nd, nn, s->nc);
		goto err_unmap;
	}
	q->owner = nf;
	nf->nqueues++;
	q->ring = ring;
	q->dma = dma;
	q->iova = iova;
	mutex_unlock(&nn->lock);
	neuron_dev_exit(nd, idx);
	neuron_nc_exit(nf, BIT_ULL(s->nc));

	/*
	 * Not from the ring: another thread of the file may tear the queue
	 * down (and the ring go) as soon as nn->lock is dropped.
	 */
	s->mmap_offset = neuron_notify_mmap_offset(s->nc, s->type);
	s->mmap_size = neuron_notify_ring_size(s->entries);
	return 0;

err_unmap:
	neuron_notify_dma_unmap(nd, ring, &dma, iova);
err_unlock:
	mutex_unlock(&nn->lock);
	neuron_dev_exit(nd, idx);
err_nc:
	neuron_nc_exit(nf, BIT_ULL(s->nc));
err_ring:
	neuron_notify_ring_put(ring);
err_efd:
	if (efd)
		eventfd_ctx_put(efd);
	return ret;
}

int neuron_ioctl_notify_teardown(struct neuron_file *nf, void *arg)
{
	struct neuron_notify_teardown *t = arg;
	struct neuron_notify_dev *nn = nf->nd->notify;
	struct neuron_notify_queue *q;
	int ret = -ENOENT;

	if (!nn)
		return -EOPNOTSUPP;
	if (t->flags || t->pad || t->nc >= nf->nd->hal->arch->nc_count ||
	    t->type >= NEURON_NOTIFY_TYPES)
		return -EINVAL;
	q = &nn->q[neuron_nc_get(nf->nd, t->nc)->index]
		  [array_index_nospec(t->type, NEURON_NOTIFY_TYPES)];
	mutex_lock(&nn->lock);
	if (nn->dead) {
		ret = -ENODEV;
	} else if (q->owner == nf) {
		neuron_notify_stop_locked(nn, q, false);
		ret = 0;
	}
	mutex_unlock(&nn->lock);
	return ret;
}

/* ---- waiting ---- */

/*
 * Has the queue something for a waiter that consumed up to @consumed?
 * Return: 1 (head moved: @head and @overflow are set), 0 (not yet), or
 * -ENODEV, -ENOENT (torn down since generation @gen), -EIO.
 */
static int neuron_notify_check(struct neuron_notify_queue *q, u32 gen,
			       u32 consumed, u32 *head, u32 *overflow)
{
	int ret;

	if (neuron_dev_unplugged(q->nd))
		return -ENODEV;
	spin_lock_irq(&q->lock);
	if (q->gen != gen) {
		ret = -ENOENT;
	} else {
		neuron_notify_refresh_locked(q);
		ret = q->error ? q->error : q->head != consumed;
		*head = q->head;
		*overflow = q->overflow;
	}
	spin_unlock_irq(&q->lock);
	return ret;
}

/* What a NOTIFY_WAIT looks at (neuron_exec_wait()). */
struct neuron_notify_waiter {
	struct neuron_notify_queue *q;
	u32 gen;
	u32 consumed;
	u32 head;
	u32 overflow;
};

static int neuron_notify_check_waiter(void *arg)
{
	struct neuron_notify_waiter *w = arg;

	return neuron_notify_check(w->q, w->gen, w->consumed, &w->head, &w->overflow);
}

/*
 * Wait until neuron_notify_check() says something or @deadline passes, on
 * the NC's waiters (a program of the NC that posts may be computed by
 * this thread meanwhile: neuron_exec_wait()).
 */
static int neuron_notify_sleep(struct neuron_notify_queue *q, u32 gen,
			       u32 consumed, ktime_t deadline, u32 *head,
			       u32 *overflow)
{
	struct neuron_notify_waiter w = { .q = q, .gen = gen, .consumed = consumed };
	int ret;

	ret = neuron_exec_wait(&q->nd->nc[q->nc], neuron_notify_check_waiter, &w,
			       deadline, true);
	if (!ret) {
		*head = w.head;
		*overflow = w.overflow;
	}
	return ret;
}

int neuron_ioctl_notify_wait(struct neuron_file *nf, void *arg)
{
	struct neuron_notify_wait *w = arg;
	struct neuron_device *nd = nf->nd;
	struct neuron_notify_dev *nn = nd->notify;
	struct neuron_notify_queue *q;
	bool advance = false;
	int idx, ret;
	u32 gen;

	if (!nn)
		return -EOPNOTSUPP;
	if (w->flags || w->reserved[0] || w->reserved[1] ||
	    w->nc >= nd->hal->arch->nc_count || w->type >= NEURON_NOTIFY_TYPES)
		return -EINVAL;
	q = &nn->q[neuron_nc_get(nd, w->nc)->index]
		  [array_index_nospec(w->type, NEURON_NOTIFY_TYPES)];

	/* Giving entries back is a call into the backend: inside the guard. */
	if (!neuron_dev_enter(nd, &idx))
		return -ENODEV;
	mutex_lock(&nn->lock);
	if (q->owner != nf) {
		ret = nn->dead ? -ENODEV : -ENOENT;
		goto out_unlock;
	}
	spin_lock_irq(&q->lock);
	neuron_notify_refresh_locked(q);
	ret = q->error;
	if (!ret && !neuron_notify_consume_valid(q->tail, q->head, w->consumed))
		ret = -EINVAL;
	if (!ret && w->consumed != q->tail) {
		/*
		 * The driver's tail moves first: the handler then checks head
		 * against a tail at least as far as the device's, never a
		 * stale one the device already left behind.
		 */
		q->tail = w->consumed;
		advance = true;
	}
	gen = q->gen;
	spin_unlock_irq(&q->lock);
	if (advance && neuron_hw_notify_polled(nd)) {
		/* The driver keeps a polled device's header. */
		WRITE_ONCE(q->hdr->tail, w->consumed);
	} else if (advance && neuron_hw_notify_consume(nd, w->nc, w->type, w->consumed)) {
		/* The device refused an index the driver found valid. */
		spin_lock_irq(&q->lock);
		q->error = -EIO;
		spin_unlock_irq(&q->lock);
		ret = -EIO;
	}
out_unlock:
	mutex_unlock(&nn->lock);
	neuron_dev_exit(nd, idx);
	if (ret)
		return ret;

	if (!w->timeout_ns) {
		ret = neuron_notify_check(q, gen, w->consumed, &w->head, &w->overflow);
		return ret < 0 ? ret : 0;
	}
	return neuron_notify_sleep(q, gen, w->consumed,
				   ns_to_ktime(max_t(s64, w->timeout_ns, 0)),
				   &w->head, &w->overflow);
}

/* ---- mmap ---- */

static void neuron_notify_vm_open(struct vm_area_struct *vma)
{
	struct neuron_notify_ring *ring = vma->vm_private_data;

	kref_get(&ring->ref);
}

static void neuron_notify_vm_close(struct vm_area_struct *vma)
{
	neuron_notify_ring_put(vma->vm_private_data);
}

static vm_fault_t neuron_notify_vm_fault(struct vm_fault *vmf)
{
	struct neuron_notify_ring *ring = vmf->vma->vm_private_data;

	return neuron_vm_fault_page(vmf, ring->nd, ring->pages, ring->npages,
				    vmf->pgoff & NEURON_NOTIFY_SLOT_PGMASK);
}

static const struct vm_operations_struct neuron_notify_vm_ops = {
	.open = neuron_notify_vm_open,
	.close = neuron_notify_vm_close,
	.fault = neuron_notify_vm_fault,
};

/**
 * neuron_notify_mmap() - map a queue's ring (offsets below NEURON_MMAP_MEM_START)
 * @file: the file; it must own the queue.
 * @vma: the mapping: shared, read-only, inside the ring.
 *
 * Return: 0; -EINVAL (private, not a queue of this file, past the ring);
 * -EPERM (writable or executable); -ENODEV.
 */
int neuron_notify_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct neuron_file *nf = file->private_data;
	struct neuron_device *nd = nf->nd;
	struct neuron_notify_dev *nn = nd->notify;
	struct neuron_notify_ring *ring = NULL;
	unsigned long first;
	u32 nc, type;
	int idx, ret = 0;

	/* VM_MAYSHARE: MAP_SHARED, also on a file opened read-only. */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	if (neuron_notify_mmap_slot(vma->vm_pgoff, &nc, &type, &first))
		return -EINVAL;

	if (!neuron_dev_enter(nd, &idx)) {
		ret = -ENODEV;
	} else {
		if (nn && nc < nd->hal->arch->nc_count) {
			struct neuron_notify_queue *q;

			q = &nn->q[neuron_nc_get(nd, nc)->index]
				  [array_index_nospec(type, NEURON_NOTIFY_TYPES)];
			mutex_lock(&nn->lock);
			if (q->owner == nf) {
				ring = q->ring;
				kref_get(&ring->ref);
			}
			mutex_unlock(&nn->lock);
		}
		neuron_dev_exit(nd, idx);
	}
	if (ret)
		return ret;
	if (!ring)
		return -EINVAL;
	if (first >= ring->npages || vma_pages(vma) > ring->npages - first) {
		neuron_notify_ring_put(ring);
		return -EINVAL;
	}

	/* The reference taken above now belongs to the mapping: read-only. */
	neuron_vma_setup(vma, VM_MAYWRITE, &neuron_notify_vm_ops, ring);
	return 0;
}

/* ---- files and devices ---- */

/**
 * neuron_notify_nc_revoke_locked() - NC @nci changed hands: its queues are its owner's
 * @nd: the device.
 * @nci: the NC, just reserved by @keep (neuron_ioctl_nc_reserve(), which
 *	holds its hold for writing: nobody sets a queue up meanwhile).
 * @keep: the new owner, whose own queues stay.
 *
 * Every other file's queue of the NC is torn down as by NOTIFY_TEARDOWN:
 * the device stops writing it, its waiters return -ENOENT, its eventfd is
 * signalled so that a poller looks, its mappings keep the frozen ring
 * (what the device wrote before the new owner had the NC).
 */
void neuron_notify_nc_revoke_locked(struct neuron_device *nd, u32 nci,
				    struct neuron_file *keep)
{
	struct neuron_notify_dev *nn = nd->notify;
	unsigned int t;
	int idx;

	lockdep_assert_held_write(&nd->nc[nci].hold);
	/* Once the device is unplugged, its removal takes every queue down. */
	if (!nn || !neuron_dev_enter(nd, &idx))
		return;
	mutex_lock(&nn->lock);
	for (t = 0; t < NEURON_NOTIFY_TYPES; t++) {
		struct neuron_notify_queue *q = &nn->q[nci][t];

		if (q->owner && q->owner != keep)
			neuron_notify_stop_locked(nn, q, true);
	}
	mutex_unlock(&nn->lock);
	neuron_dev_exit(nd, idx);
}

/**
 * neuron_notify_nc_halt() - an NC is about to be reset: halt its queues
 * @nd: the device.
 * @nci: the NC.
 *
 * The facts halt every notification queue of an NC before the firmware
 * resets it (docs/hw-facts.md, "Reset", step 1). Each queue set up on
 * @nci stops at the device here and is dead for its owner until torn
 * down: NOTIFY_WAIT returns -EIO (sleepers wake, the eventfd is signalled
 * so that a poller looks); the ring and its mappings stay, frozen with
 * what the device wrote before. The owner tears it down and sets it up
 * again. Called inside the removal guard, before the NC's reset.
 */
void neuron_notify_nc_halt(struct neuron_device *nd, u32 nci)
{
	struct neuron_notify_dev *nn = nd->notify;
	unsigned int t;

	if (!nn)
		return;
	mutex_lock(&nn->lock);
	for (t = 0; t < NEURON_NOTIFY_TYPES; t++) {
		struct neuron_notify_queue *q = &nn->q[nci][t];
		struct eventfd_ctx *efd;

		if (!q->ring || q->halted)
			continue;
		neuron_hw_notify_fini(nd, nci, t);
		q->halted = true;
		spin_lock_irq(&q->lock);
		/* What the device wrote before the halt stays readable. */
		if (neuron_hw_notify_polled(nd))
			neuron_notify_refresh_locked(q);
		if (!q->error)
			q->error = -EIO;
		/* Put only by a teardown, under nn->lock, which is held. */
		efd = q->eventfd;
		spin_unlock_irq(&q->lock);
		if (efd)
			neuron_eventfd_signal(efd);
	}
	mutex_unlock(&nn->lock);
	neuron_nc_wake(&nd->nc[nci]);
}

/*
 * The file is gone: tear down the queues it owns, inside the removal
 * guard. Once the device is being removed, the removal tears every queue
 * down: the file's are only left ownerless (nothing of the file is
 * touched after its release).
 */
void neuron_notify_file_release(struct neuron_file *nf)
{
	struct neuron_notify_dev *nn = nf->nd->notify;
	unsigned int nc, t;
	bool in;
	int idx;

	if (!nn)
		return;
	in = neuron_dev_enter(nf->nd, &idx);
	mutex_lock(&nn->lock);
	for (nc = 0; nc < NEURON_MAX_NC; nc++) {
		for (t = 0; t < NEURON_NOTIFY_TYPES; t++) {
			struct neuron_notify_queue *q = &nn->q[nc][t];

			if (q->owner != nf)
				continue;
			if (in) {
				neuron_notify_stop_locked(nn, q, false);
			} else {
				nf->nqueues--;
				q->owner = NULL;
			}
		}
	}
	mutex_unlock(&nn->lock);
	if (in)
		neuron_dev_exit(nf->nd, idx);
}

/*
 * The device is going away (unplugged is set, synchronize_srcu() not yet
 * called): tear every queue down while the backend is still there, and
 * wake the waiters, who then return -ENODEV.
 */
void neuron_notify_unplug(struct neuron_device *nd)
{
	struct neuron_notify_dev *nn = nd->notify;
	unsigned int nc, t;

	if (!nn)
		return;
	mutex_lock(&nn->lock);
	nn->dead = true;
	/* Also those a file released during the removal left ownerless. */
	for (nc = 0; nc < NEURON_MAX_NC; nc++)
		for (t = 0; t < NEURON_NOTIFY_TYPES; t++)
			if (nn->q[nc][t].ring)
				neuron_notify_stop_locked(nn, &nn->q[nc][t], true);
	mutex_unlock(&nn->lock);
}

/* Send the overflow events the interrupt handler left (process context). */
static void neuron_notify_overflow_work(struct work_struct *work)
{
	struct neuron_notify_dev *nn = container_of(work, struct neuron_notify_dev,
						    overflow_work);
	unsigned int nc, t;
	bool send;

	for (nc = 0; nc < NEURON_MAX_NC; nc++) {
		for (t = 0; t < NEURON_NOTIFY_TYPES; t++) {
			struct neuron_notify_queue *q = &nn->q[nc][t];

			spin_lock_irq(&q->lock);
			send = q->overflow_event;
			q->overflow_event = false;
			spin_unlock_irq(&q->lock);
			if (send)
				neuron_nl_event(q->nd, NEURON_EVENT_NOTIFY_OVERFLOW,
						nc, t);
		}
	}
}

/* Called at device creation: queues only for backends that have them. */
int neuron_notify_device_init(struct neuron_device *nd)
{
	struct neuron_notify_dev *nn;
	unsigned int nc, t;

	if (!(nd->hal->caps & NEURON_CAP_NOTIFY))
		return 0;
	nn = kzalloc(sizeof(*nn), GFP_KERNEL);
	if (!nn)
		return -ENOMEM;
	mutex_init(&nn->lock);
	INIT_WORK(&nn->overflow_work, neuron_notify_overflow_work);
	INIT_DELAYED_WORK(&nn->poll, neuron_notify_poll);
	for (nc = 0; nc < NEURON_MAX_NC; nc++) {
		for (t = 0; t < NEURON_NOTIFY_TYPES; t++) {
			struct neuron_notify_queue *q = &nn->q[nc][t];

			q->nd = nd;
			q->nc = nc;
			q->type = t;
			nd->nc[nc].notify = nn->q[nc];
			spin_lock_init(&q->lock);
		}
	}
	nd->notify = nn;
	return 0;
}

/* Called from the device's release: every queue is torn down. */
void neuron_notify_device_fini(struct neuron_device *nd)
{
	struct neuron_notify_dev *nn = nd->notify;

	if (!nn)
		return;
	cancel_delayed_work_sync(&nn->poll);
	cancel_work_sync(&nn->overflow_work);
	mutex_destroy(&nn->lock);
	kfree(nn);
	nd->notify = NULL;
}
