// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: notification queues (NEURON_CAP_NOTIFY).
 *
 * NOTIFY_SETUP, NOTIFY_WAIT and NOTIFY_TEARDOWN: success and each
 * validation failure; the read-only mapping of a ring and who may map it;
 * entries in order with their sequence numbers, wrap around, overflow
 * (counted, unread entries never overwritten); WAIT deadlines, wakeups from
 * another thread and another process, signals, eventfd with epoll;
 * teardown on close; a faulty device head; removal of the device while
 * waiting and while mapped. Notifications are posted through the simulated
 * device's inject_notify knob, or on a PCI device model through its control
 * channel (NEURON_DEVMODEL_CTL: the pci tier), whose `notify` command writes
 * an entry into a slot of the NC's notification block; other devices skip.
 * The PCI backend polls its queues (docs/uapi.md): after a post the tests
 * give it POLL_MS to see the entries, and skip what only the simulator can
 * do (overflow counting, a faulty head, removal).
 */
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "neuron_test.h"

#define NSEC_PER_MSEC	1000000LL
/* How late a wakeup or a deadline may be, in ms (QEMU without KVM). */
#define LATE_MS		2000
#define CODE(type)	(0xc0de0000U + (type))
/* Rings' mmap offsets are 2 MiB apart (our layout, docs/uapi.md). */
#define NOTIFY_SLOT_SIZE	(2ULL << 20)
/* ... and lie below 128 MiB, where memory objects' offsets start. */
#define NOTIFY_MMAP_END		(128ULL << 20)
/* On PCI: how long after a post the driver has surely looked (1 ms polls). */
#define POLL_MS			200

/*
 * The notification slot of each queue type on PCI: the driver's choice,
 * type x 16 with the facts' type numbers (docs/hw-facts.md, [inferred]).
 */
static const unsigned int pci_slot[NEURON_NOTIFY_TYPES] = {
	[NEURON_NOTIFY_COMPLETION] = 16,
	[NEURON_NOTIFY_EVENT] = 32,
	[NEURON_NOTIFY_ERROR] = 48,
	[NEURON_NOTIFY_TRACE] = 0,
};

/* Set by the fixture: posts go to the device model (a PCI device). */
static bool on_pci;
static __u32 pci_nc_count;

FIXTURE(notify) {
	struct neuron_node node;
	struct neuron_device_info info;
	size_t page;
	bool restore_max_queues;	/* put saved_max_queues back */
	unsigned long long saved_max_queues;
};

FIXTURE_VARIANT(notify) NEURON_ARCH_VARIANT;
FIXTURE_VARIANT_ADD(notify, v2) NEURON_ARCH_V2_VARIANT;
FIXTURE_VARIANT_ADD(notify, v3) NEURON_ARCH_V3_VARIANT;

/*
 * The tests post notifications through the simulated device: they need
 * one, with NEURON_CAP_NOTIFY (the cap fixture below checks any device).
 */
FIXTURE_SETUP(notify)
{
	self->page = sysconf(_SC_PAGESIZE);
	neuron_setup_node(_metadata, &self->node, variant->name, 0);
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &self->info, NULL));
	on_pci = !self->node.created && neuron_env_devmodel_ctl() &&
		 !(self->info.flags & NEURON_DEV_SIMULATED);
	pci_nc_count = self->info.nc_count;
	if ((!self->node.created && !on_pci) || !(self->info.caps & NEURON_CAP_NOTIFY)) {
		neuron_node_release(&self->node);
		NEURON_SKIP_SETUP("needs a simulated device or a model with NEURON_CAP_NOTIFY");
	}
}

/* In a test body: skip (and return true) on PCI, saying why. */
#define SKIP_ON_PCI(why) ({ \
	bool _pci = on_pci; \
	if (_pci) \
		SKIP(, "PCI: %s", why); \
	_pci; \
})

FIXTURE_TEARDOWN(notify)
{
	neuron_node_release(&self->node);
	if (self->restore_max_queues)
		EXPECT_EQ(0, neuron_param_set("max_notify_queues", self->saved_max_queues));
}

/* Any device: what it does matches its caps. */
FIXTURE(cap) {
	struct neuron_node node;
	struct neuron_device_info info;
};

FIXTURE_SETUP(cap)
{
	neuron_setup_node(_metadata, &self->node, NULL, 0);
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &self->info, NULL));
}

FIXTURE_TEARDOWN(cap)
{
	neuron_node_release(&self->node);
}

/* ---- helpers ---- */

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void setup_prep(struct neuron_notify_setup *s, __u32 nc, __u32 type,
		       __u32 entries)
{
	memset(s, 0, sizeof(*s));
	s->nc = nc;
	s->type = type;
	s->entries = entries;
	s->eventfd = -1;
}

static int setup_req(int fd, struct neuron_notify_setup *s)
{
	return neuron_ioctl(fd, NEURON_IOCTL_NOTIFY_SETUP, s);
}

static int setup_q(int fd, __u32 nc, __u32 type, __u32 entries)
{
	struct neuron_notify_setup s;

	setup_prep(&s, nc, type, entries);
	return setup_req(fd, &s);
}

/* A queue of 16 entries with an eventfd. */
static int setup_efd(int fd, __u32 nc, __u32 type, int efd)
{
	struct neuron_notify_setup s;

	setup_prep(&s, nc, type, 16);
	s.eventfd = efd;
	return setup_req(fd, &s);
}

static void wait_prep(struct neuron_notify_wait *w, __u32 nc, __u32 type,
		      __u32 consumed, long long deadline)
{
	memset(w, 0, sizeof(*w));
	w->nc = nc;
	w->type = type;
	w->consumed = consumed;
	w->timeout_ns = deadline;
}

/* NOTIFY_WAIT: 0 or -errno; @head and @overflow (may be NULL) on success. */
static int wait_q(int fd, __u32 nc, __u32 type, __u32 consumed,
		  long long deadline, __u32 *head, __u32 *overflow)
{
	struct neuron_notify_wait w;
	int err;

	wait_prep(&w, nc, type, consumed, deadline);
	err = neuron_ioctl(fd, NEURON_IOCTL_NOTIFY_WAIT, &w);
	if (!err && head)
		*head = w.head;
	if (!err && overflow)
		*overflow = w.overflow;
	return err;
}

static int knob(unsigned int sim_id, const char *name, const char *text)
{
	char path[128];

	snprintf(path, sizeof(path), NEURON_SIM_BUS "/devices/neuron_sim%u/%s",
		 sim_id, name);
	return neuron_sysfs_write(path, text);
}

/*
 * On PCI: the model's `notify nc NC SLOT TYPE CODE DATA`, @count times, then
 * POLL_MS for the driver to look. A slot the driver did not program (no
 * queue) is -ENXIO, as for the simulator's knob.
 */
static int inject_pci(__u32 nc, __u32 type, __u32 data, __u32 count)
{
	char cmd[128];
	__u32 i;
	int err;

	if (type >= NEURON_NOTIFY_TYPES || nc >= pci_nc_count)
		return -EINVAL;
	for (i = 0; i < count; i++) {
		snprintf(cmd, sizeof(cmd), "notify nc %u %u %u %u %u", nc, pci_slot[type],
			 type, CODE(type), data + i);
		err = neuron_devmodel_cmd(cmd);
		if (err)
			return err == -EIO ? -ENXIO : err;
	}
	neuron_sleep_ms(POLL_MS);
	return 0;
}

/* Post @count notifications, data @data, @data + 1, ...: 0 or -errno. */
static int inject(unsigned int sim_id, __u32 nc, __u32 type, __u32 data,
		  __u32 count)
{
	char text[96];

	if (on_pci)
		return inject_pci(nc, type, data, count);
	snprintf(text, sizeof(text), "%u %u %u %u %u\n", nc, type, CODE(type),
		 data, count);
	return knob(sim_id, "inject_notify", text);
}

/* A faulty device writes @head into the header: 0 or -errno. */
static int inject_head(unsigned int sim_id, __u32 nc, __u32 type, __u32 head)
{
	char text[64];

	snprintf(text, sizeof(text), "%u %u %u\n", nc, type, head);
	return knob(sim_id, "inject_notify_head", text);
}

static const struct neuron_notify_header *hdr(const struct nio_notify_queue *r)
{
	return r->hdr;
}

/*
 * Entries [@from, @to) hold seq i and data @data0 + (i - @from); the count
 * of bad entries is returned and the first one logged.
 */
static unsigned int check_entries(struct __test_metadata *_metadata,
				  const struct nio_notify_queue *r, __u32 from, __u32 to,
				  __u32 data0)
{
	unsigned int bad = 0;
	__u32 i;

	for (i = from; i != to; i++) {
		const struct neuron_notify_entry *e = neuron_ring_entry(r, i);

		if (e->seq == i && e->type == r->type && e->nc == r->nc &&
		    e->code == CODE(r->type) && e->data == data0 + (i - from))
			continue;
		if (!bad++)
			TH_LOG("entry %u: seq %u type %u nc %u code %#x data %u, want data %u",
			       i, e->seq, e->type, e->nc, e->code, e->data,
			       data0 + (i - from));
	}
	return bad;
}

/* ---- capability and SETUP ---- */

/* SETUP works exactly when the device says NEURON_CAP_NOTIFY. */
TEST_F(cap, matches_behaviour)
{
	int err = setup_q(self->node.fd, 0, NEURON_NOTIFY_COMPLETION, 16);

	if (self->info.caps & NEURON_CAP_NOTIFY) {
		EXPECT_EQ(0, err) TH_LOG("%s", strerror(-err));
	} else {
		EXPECT_EQ(-EOPNOTSUPP, err);
		EXPECT_EQ(-EOPNOTSUPP, wait_q(self->node.fd, 0, 0, 0, 0, NULL, NULL));
		EXPECT_EQ(-EOPNOTSUPP, neuron_notify_teardown(self->node.fd, 0, 0));
	}
	if (self->info.flags & NEURON_DEV_SIMULATED)
		EXPECT_TRUE(!!(self->info.caps & NEURON_CAP_NOTIFY));
}

/*
 * Every queue of every NC on one file (with the per-file limit lifted):
 * distinct offsets, the header as documented.
 */
TEST_F(notify, setup_every_queue)
{
	struct nio_notify_queue r[NEURON_TEST_MAX_NC * NEURON_NOTIFY_TYPES];
	__u32 nc, t, i, j = 0, n = 0, entries;	/* j: gcc -m32 -O2 false alarm */

	ASSERT_GE((__u32)NEURON_TEST_MAX_NC, self->info.nc_count);
	/* More queues than a file may hold by default: no limit (root). */
	ASSERT_EQ(0, neuron_param_get("max_notify_queues", &self->saved_max_queues));
	self->restore_max_queues = true;
	ASSERT_EQ(0, neuron_param_set("max_notify_queues", 0));
	for (nc = 0; nc < self->info.nc_count; nc++) {
		for (t = 0; t < NEURON_NOTIFY_TYPES; t++, n++) {
			entries = NEURON_NOTIFY_MIN_ENTRIES << (nc + t);
			neuron_ring_open_ok(_metadata, self->node.fd, nc, t, entries, -1, &r[n]);
			EXPECT_EQ(0U, r[n].mmap_offset % self->page);
			/* Below the memory objects' offsets (docs/uapi.md). */
			EXPECT_GE(NOTIFY_MMAP_END, r[n].mmap_offset + r[n].map_size);
			EXPECT_EQ(0U, r[n].map_size % self->page);
			EXPECT_LE(NEURON_NOTIFY_ENTRY_OFFSET + entries *
				  sizeof(struct neuron_notify_entry), r[n].map_size);
			EXPECT_GT(NEURON_NOTIFY_ENTRY_OFFSET + entries *
				  sizeof(struct neuron_notify_entry) + self->page,
				  r[n].map_size);
			EXPECT_EQ(0U, hdr(&r[n])->head);
			EXPECT_EQ(0U, hdr(&r[n])->tail);
			EXPECT_EQ(0U, hdr(&r[n])->overflow);
			EXPECT_EQ(entries, hdr(&r[n])->entries);
		}
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			EXPECT_NE(r[i].mmap_offset, r[j].mmap_offset) TH_LOG("queues %u and %u", i,
									     j);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0, neuron_notify_teardown(self->node.fd, r[i].nc, r[i].type));
		neuron_ring_unmap(&r[i]);
	}
}

/* The largest ring. */
TEST_F(notify, setup_max_entries)
{
	struct nio_notify_queue r;

	neuron_ring_open_ok(_metadata, self->node.fd, 0, NEURON_NOTIFY_TRACE,
			    NEURON_NOTIFY_MAX_ENTRIES, -1, &r);
	EXPECT_EQ((__u32)NEURON_NOTIFY_MAX_ENTRIES, hdr(&r)->entries);
	ASSERT_EQ(0, inject(self->node.sim_id, 0, NEURON_NOTIFY_TRACE, 0, 3));
	EXPECT_EQ(3U, neuron_ring_head(&r));
	EXPECT_EQ(0U, check_entries(_metadata, &r, 0, 3, 0));
	neuron_ring_unmap(&r);
}

#define EXPECT_SETUP_FAILS(err, tweak) do { \
	struct neuron_notify_setup s; \
	setup_prep(&s, 0, NEURON_NOTIFY_EVENT, 16); \
	tweak; \
	EXPECT_EQ(-(err), setup_req(self->node.fd, &s)) TH_LOG("%s", #tweak); \
} while (0)

TEST_F(notify, setup_flags_nonzero)
{
	EXPECT_SETUP_FAILS(EINVAL, s.flags = 1);
	EXPECT_SETUP_FAILS(EINVAL, s.flags = 0x80000000U);
}

TEST_F(notify, setup_pad_nonzero)
{
	EXPECT_SETUP_FAILS(EINVAL, s.pad = 1);
}

TEST_F(notify, setup_reserved_nonzero)
{
	EXPECT_SETUP_FAILS(EINVAL, s.reserved[0] = 1);
	EXPECT_SETUP_FAILS(EINVAL, s.reserved[1] = 1ULL << 63);
}

TEST_F(notify, setup_bad_nc)
{
	EXPECT_SETUP_FAILS(EINVAL, s.nc = self->info.nc_count);
	EXPECT_SETUP_FAILS(EINVAL, s.nc = 8);
	EXPECT_SETUP_FAILS(EINVAL, s.nc = 0xffffffffU);
	/* The last NC is fine. */
	EXPECT_EQ(0, setup_q(self->node.fd, self->info.nc_count - 1, 0, 16));
}

TEST_F(notify, setup_bad_type)
{
	EXPECT_SETUP_FAILS(EINVAL, s.type = NEURON_NOTIFY_TYPES);
	EXPECT_SETUP_FAILS(EINVAL, s.type = 0xffffffffU);
}

TEST_F(notify, setup_entries_not_power_of_two)
{
	EXPECT_SETUP_FAILS(EINVAL, s.entries = 24);
	EXPECT_SETUP_FAILS(EINVAL, s.entries = 17);
	EXPECT_SETUP_FAILS(EINVAL, s.entries = 65535);
}

TEST_F(notify, setup_entries_too_small)
{
	EXPECT_SETUP_FAILS(EINVAL, s.entries = 0);
	EXPECT_SETUP_FAILS(EINVAL, s.entries = 1);
	EXPECT_SETUP_FAILS(EINVAL, s.entries = 8);
}

TEST_F(notify, setup_entries_too_big)
{
	EXPECT_SETUP_FAILS(EINVAL, s.entries = 2 * NEURON_NOTIFY_MAX_ENTRIES);
	EXPECT_SETUP_FAILS(EINVAL, s.entries = 0x80000000U);
}

TEST_F(notify, setup_bad_eventfd)
{
	int fd;

	EXPECT_SETUP_FAILS(EINVAL, s.eventfd = -2);
	/* An fd number that is not open. */
	fd = dup(self->node.fd);
	ASSERT_LE(0, fd);
	close(fd);
	EXPECT_SETUP_FAILS(EBADF, s.eventfd = fd);
	/* An open file that is not an eventfd. */
	EXPECT_SETUP_FAILS(EINVAL, s.eventfd = self->node.fd);
	/* None of these left the queue owned. */
	EXPECT_EQ(0, setup_q(self->node.fd, 0, NEURON_NOTIFY_EVENT, 16));
}

/* One owner per queue: the same file or another one gets EBUSY. */
TEST_F(notify, setup_busy)
{
	int fd2;

	ASSERT_EQ(0, setup_q(self->node.fd, 0, NEURON_NOTIFY_ERROR, 16));
	EXPECT_EQ(-EBUSY, setup_q(self->node.fd, 0, NEURON_NOTIFY_ERROR, 16));
	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-EBUSY, setup_q(fd2, 0, NEURON_NOTIFY_ERROR, 32));
	/* Other queues are free. */
	EXPECT_EQ(0, setup_q(fd2, 0, NEURON_NOTIFY_EVENT, 16));
	EXPECT_EQ(0, setup_q(fd2, self->info.nc_count - 1, NEURON_NOTIFY_ERROR, 16));
	/* After a teardown the queue is free for anyone. */
	EXPECT_EQ(0, neuron_notify_teardown(self->node.fd, 0, NEURON_NOTIFY_ERROR));
	EXPECT_EQ(0, setup_q(fd2, 0, NEURON_NOTIFY_ERROR, 16));
	close(fd2);
}

/* A newer caller's longer structure: its extra bytes must be zero. */
TEST_F(notify, setup_longer_struct)
{
	struct {
		struct neuron_notify_setup s;
		__u64 extra;
	} big;
	unsigned long cmd = _IOC(_IOC_READ | _IOC_WRITE, NEURON_IOCTL_MAGIC,
				 _IOC_NR(NEURON_IOCTL_NOTIFY_SETUP), sizeof(big));

	memset(&big, 0, sizeof(big));
	setup_prep(&big.s, 0, NEURON_NOTIFY_COMPLETION, 16);
	big.extra = 1;
	EXPECT_EQ(-E2BIG, neuron_ioctl(self->node.fd, cmd, &big));
	big.extra = 0;
	EXPECT_EQ(0, neuron_ioctl(self->node.fd, cmd, &big));
	EXPECT_NE(0ULL, big.s.mmap_offset);
}

/* ---- WAIT and TEARDOWN validation ---- */

TEST_F(notify, wait_not_set_up)
{
	int fd2;

	EXPECT_EQ(-ENOENT, wait_q(self->node.fd, 0, NEURON_NOTIFY_EVENT, 0, 0, NULL, NULL));
	/* Another file's queue is not this file's. */
	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, setup_q(fd2, 0, NEURON_NOTIFY_EVENT, 16));
	EXPECT_EQ(-ENOENT, wait_q(self->node.fd, 0, NEURON_NOTIFY_EVENT, 0, 0, NULL, NULL));
	EXPECT_EQ(0, wait_q(fd2, 0, NEURON_NOTIFY_EVENT, 0, 0, NULL, NULL));
	close(fd2);
	/* Torn down with the file. */
	EXPECT_EQ(0, setup_q(self->node.fd, 0, NEURON_NOTIFY_EVENT, 16));
}

TEST_F(notify, wait_bad_fields)
{
	struct neuron_notify_wait w;

	ASSERT_EQ(0, setup_q(self->node.fd, 0, NEURON_NOTIFY_EVENT, 16));
	wait_prep(&w, 0, NEURON_NOTIFY_EVENT, 0, 0);
	w.flags = 1;
	EXPECT_EQ(-EINVAL, neuron_ioctl(self->node.fd, NEURON_IOCTL_NOTIFY_WAIT, &w));
	wait_prep(&w, 0, NEURON_NOTIFY_EVENT, 0, 0);
	w.reserved[0] = 1;
	EXPECT_EQ(-EINVAL, neuron_ioctl(self->node.fd, NEURON_IOCTL_NOTIFY_WAIT, &w));
	wait_prep(&w, 0, NEURON_NOTIFY_EVENT, 0, 0);
	w.reserved[1] = 1;
	EXPECT_EQ(-EINVAL, neuron_ioctl(self->node.fd, NEURON_IOCTL_NOTIFY_WAIT, &w));
	EXPECT_EQ(-EINVAL, wait_q(self->node.fd, self->info.nc_count, 0, 0, 0, NULL, NULL));
	EXPECT_EQ(-EINVAL, wait_q(self->node.fd, 0, NEURON_NOTIFY_TYPES, 0, 0, NULL, NULL));
	EXPECT_EQ(0, wait_q(self->node.fd, 0, NEURON_NOTIFY_EVENT, 0, 0, NULL, NULL));
}

/* consumed must lie between the tail and head. */
TEST_F(notify, wait_consumed_beyond_head)
{
	__u32 head = 99, overflow = 99;
	struct nio_notify_queue r;

	neuron_ring_open_ok(_metadata, self->node.fd, 0, NEURON_NOTIFY_COMPLETION, 16, -1, &r);
	EXPECT_EQ(-EINVAL, wait_q(self->node.fd, 0, r.type, 1, 0, NULL, NULL));
	EXPECT_EQ(-EINVAL, wait_q(self->node.fd, 0, r.type, 0xffffffffU, 0, NULL, NULL));
	ASSERT_EQ(0, inject(self->node.sim_id, 0, r.type, 0, 3));
	EXPECT_EQ(-EINVAL, wait_q(self->node.fd, 0, r.type, 4, 0, NULL, NULL));
	EXPECT_EQ(0, wait_q(self->node.fd, 0, r.type, 2, 0, &head, &overflow));
	EXPECT_EQ(3U, head);
	EXPECT_EQ(0U, overflow);
	EXPECT_EQ(2U, hdr(&r)->tail);
	/* Backwards from the tail. */
	EXPECT_EQ(-EINVAL, wait_q(self->node.fd, 0, r.type, 1, 0, NULL, NULL));
	EXPECT_EQ(0, wait_q(self->node.fd, 0, r.type, 3, 0, &head, NULL));
	EXPECT_EQ(3U, hdr(&r)->tail);
	neuron_ring_unmap(&r);
}

TEST_F(notify, teardown_checks)
{
	struct neuron_notify_teardown t;
	int fd2;

	EXPECT_EQ(-ENOENT, neuron_notify_teardown(self->node.fd, 0, 0));
	ASSERT_EQ(0, setup_q(self->node.fd, 0, 0, 16));
	memset(&t, 0, sizeof(t));
	t.flags = 1;
	EXPECT_EQ(-EINVAL, neuron_ioctl(self->node.fd, NEURON_IOCTL_NOTIFY_TEARDOWN, &t));
	t.flags = 0;
	t.pad = 1;
	EXPECT_EQ(-EINVAL, neuron_ioctl(self->node.fd, NEURON_IOCTL_NOTIFY_TEARDOWN, &t));
	EXPECT_EQ(-EINVAL, neuron_notify_teardown(self->node.fd, self->info.nc_count, 0));
	EXPECT_EQ(-EINVAL, neuron_notify_teardown(self->node.fd, 0, NEURON_NOTIFY_TYPES));
	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-ENOENT, neuron_notify_teardown(fd2, 0, 0));
	close(fd2);
	EXPECT_EQ(0, neuron_notify_teardown(self->node.fd, 0, 0));
	EXPECT_EQ(-ENOENT, neuron_notify_teardown(self->node.fd, 0, 0));
	EXPECT_EQ(-ENOENT, wait_q(self->node.fd, 0, 0, 0, 0, NULL, NULL));
}

/* Posting to a queue nobody set up fails (and writes nothing). */
TEST_F(notify, inject_without_queue)
{
	EXPECT_EQ(-ENXIO, inject(self->node.sim_id, 0, NEURON_NOTIFY_EVENT, 0, 1));
	EXPECT_EQ(-EINVAL, inject(self->node.sim_id, 0, NEURON_NOTIFY_TYPES, 0, 1));
	if (SKIP_ON_PCI("the rest checks the simulator's knob"))
		return;
	EXPECT_EQ(-EINVAL, knob(self->node.sim_id, "inject_notify", "0 0 1\n"));
	EXPECT_EQ(-EINVAL, knob(self->node.sim_id, "inject_notify", "0 0 1 2 0\n"));
	EXPECT_EQ(-EINVAL, knob(self->node.sim_id, "inject_notify", "0 0 1 2 3 4\n"));
	EXPECT_EQ(-EINVAL, knob(self->node.sim_id, "inject_notify", "0 0 x 2\n"));
}

/* ---- mmap ---- */

TEST_F(notify, mmap_read_only)
{
	struct neuron_notify_setup s;
	unsigned char *p, v = 0x5a;
	int memfd;

	setup_prep(&s, 0, NEURON_NOTIFY_EVENT, 64);
	ASSERT_EQ(0, setup_req(self->node.fd, &s));
	p = mmap(NULL, s.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, self->node.fd,
		 s.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, s.mmap_size, PROT_READ | PROT_EXEC, MAP_SHARED, self->node.fd,
		 s.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, s.mmap_size, PROT_READ, MAP_PRIVATE, self->node.fd, s.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* Past the ring. */
	p = mmap(NULL, s.mmap_size + self->page, PROT_READ, MAP_SHARED, self->node.fd,
		 s.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->node.fd,
		 s.mmap_offset + s.mmap_size);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);

	p = mmap(NULL, s.mmap_size, PROT_READ, MAP_SHARED, self->node.fd, s.mmap_offset);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(64U, ((struct neuron_notify_header *)p)->entries);
	EXPECT_EQ(-1, mprotect(p, s.mmap_size, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(-1, mprotect(p, s.mmap_size, PROT_READ | PROT_EXEC));
	EXPECT_EQ(SIGSEGV, neuron_probe(p, &v, true));
	EXPECT_EQ(SIGSEGV, neuron_probe(p + NEURON_NOTIFY_ENTRY_OFFSET, &v, true));
	/* Nor through /proc/self/mem (a forced write). */
	memfd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	if (memfd >= 0) {
		unsigned char v = 0x77;

		EXPECT_NE(1, pwrite(memfd, &v, 1, (off_t)(uintptr_t)p));
		close(memfd);
	}
	EXPECT_EQ(64U, ((struct neuron_notify_header *)p)->entries);
	EXPECT_EQ(0U, ((struct neuron_notify_header *)p)->head);
	EXPECT_EQ(0, munmap(p, s.mmap_size));

	/* A page range inside the ring maps. */
	p = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->node.fd,
		 s.mmap_offset + s.mmap_size - self->page);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, neuron_probe(p, &v, false));
	EXPECT_EQ(0, munmap(p, self->page));
}

/* Only the owner maps its ring; offsets of free queues map nothing. */
TEST_F(notify, mmap_other_file)
{
	struct neuron_notify_setup s;
	void *p;
	int fd2;

	setup_prep(&s, 0, NEURON_NOTIFY_EVENT, 16);
	ASSERT_EQ(0, setup_req(self->node.fd, &s));
	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	p = mmap(NULL, s.mmap_size, PROT_READ, MAP_SHARED, fd2, s.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	close(fd2);
	/* The slot of a queue not set up, slot 0, and a past-the-end slot. */
	p = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->node.fd,
		 s.mmap_offset + NOTIFY_SLOT_SIZE);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->node.fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->node.fd,
		 33 * NOTIFY_SLOT_SIZE);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
}

/*
 * A mapping outlives teardown, frozen. A mapping also keeps its file alive
 * after close(): the file (and its queues) is released with the last one.
 */
TEST_F(notify, mapping_survives_teardown)
{
	struct nio_notify_queue r, r2;
	int fd2;

	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	neuron_ring_open_ok(_metadata, fd2, 0, NEURON_NOTIFY_COMPLETION, 16, -1, &r);
	ASSERT_EQ(0, inject(self->node.sim_id, 0, r.type, 100, 5));
	EXPECT_EQ(0, neuron_notify_teardown(fd2, 0, r.type));
	EXPECT_EQ(5U, neuron_ring_head(&r));
	EXPECT_EQ(0U, check_entries(_metadata, &r, 0, 5, 100));
	EXPECT_EQ(-ENXIO, inject(self->node.sim_id, 0, r.type, 0, 1));
	neuron_ring_open_ok(_metadata, fd2, 0, NEURON_NOTIFY_COMPLETION, 16, -1, &r2);
	ASSERT_EQ(0, inject(self->node.sim_id, 0, r.type, 7, 2));
	close(fd2);
	/* The mappings hold the file: its new queue still works. */
	EXPECT_EQ(-EBUSY, setup_q(self->node.fd, 0, NEURON_NOTIFY_COMPLETION, 16));
	ASSERT_EQ(0, inject(self->node.sim_id, 0, r.type, 9, 1));
	EXPECT_EQ(3U, neuron_ring_head(&r2));
	EXPECT_EQ(0U, check_entries(_metadata, &r2, 0, 2, 7));
	/* The old ring did not see that. */
	EXPECT_EQ(5U, neuron_ring_head(&r));
	EXPECT_EQ(0U, check_entries(_metadata, &r, 0, 5, 100));
	neuron_ring_unmap(&r2);
	EXPECT_EQ(-EBUSY, setup_q(self->node.fd, 0, NEURON_NOTIFY_COMPLETION, 16));
	/* The last mapping goes: the file is released, the queue is free. */
	neuron_ring_unmap(&r);
	EXPECT_EQ(0, setup_q(self->node.fd, 0, NEURON_NOTIFY_COMPLETION, 16));
}

/* ---- order, wrap, overflow ---- */

TEST_F(notify, order)
{
	__u32 head = 0, overflow = 1;
	struct nio_notify_queue r;
	__u32 t;

	for (t = 0; t < NEURON_NOTIFY_TYPES; t++) {
		neuron_ring_open_ok(_metadata, self->node.fd, self->info.nc_count - 1, t, 64, -1,
				    &r);
		ASSERT_EQ(0, inject(self->node.sim_id, r.nc, t, 1000 * t, 40));
		EXPECT_EQ(0, wait_q(self->node.fd, r.nc, t, 0, now_ns() + 5000 * NSEC_PER_MSEC,
				    &head, &overflow));
		EXPECT_EQ(40U, head);
		EXPECT_EQ(0U, overflow);
		EXPECT_EQ(40U, neuron_ring_head(&r));
		EXPECT_EQ(0U, hdr(&r)->overflow);
		EXPECT_EQ(0U, check_entries(_metadata, &r, 0, 40, 1000 * t));
		EXPECT_EQ(0, wait_q(self->node.fd, r.nc, t, 40, 0, &head, NULL));
		EXPECT_EQ(40U, hdr(&r)->tail);
		neuron_ring_unmap(&r);
	}
}

/* Queues are independent: one type's posts do not show in another. */
TEST_F(notify, queues_independent)
{
	struct nio_notify_queue a, b;
	__u32 head = 9;

	neuron_ring_open_ok(_metadata, self->node.fd, 0, NEURON_NOTIFY_EVENT, 16, -1, &a);
	neuron_ring_open_ok(_metadata, self->node.fd, 0, NEURON_NOTIFY_ERROR, 16, -1, &b);
	ASSERT_EQ(0, inject(self->node.sim_id, 0, NEURON_NOTIFY_EVENT, 0, 4));
	EXPECT_EQ(0, wait_q(self->node.fd, 0, NEURON_NOTIFY_ERROR, 0, 0, &head, NULL));
	EXPECT_EQ(0U, head);
	EXPECT_EQ(0U, neuron_ring_head(&b));
	EXPECT_EQ(-ETIME, wait_q(self->node.fd, 0, NEURON_NOTIFY_ERROR, 0,
				 now_ns() + 50 * NSEC_PER_MSEC, NULL, NULL));
	EXPECT_EQ(4U, neuron_ring_head(&a));
	neuron_ring_unmap(&a);
	neuron_ring_unmap(&b);
}

/* 100 entries through a ring of 16, consumed in steps of 7. */
TEST_F(notify, wrap)
{
	__u32 tail = 0, head = 0, overflow = 0, n;
	struct nio_notify_queue r;

	neuron_ring_open_ok(_metadata, self->node.fd, 0, NEURON_NOTIFY_COMPLETION, 16, -1, &r);
	while (tail < 100) {
		n = tail + 7 > 100 ? 100 - tail : 7;
		ASSERT_EQ(0, inject(self->node.sim_id, 0, r.type, tail, n));
		ASSERT_EQ(0, wait_q(self->node.fd, 0, r.type, tail,
				    now_ns() + 5000 * NSEC_PER_MSEC, &head, &overflow));
		ASSERT_EQ(tail + n, head);
		ASSERT_EQ(0U, check_entries(_metadata, &r, tail, head, tail));
		tail = head;
	}
	EXPECT_EQ(0, wait_q(self->node.fd, 0, r.type, tail, 0, &head, &overflow));
	EXPECT_EQ(100U, head);
	EXPECT_EQ(0U, overflow);
	EXPECT_EQ(100U, hdr(&r)->tail);
	neuron_ring_unmap(&r);
}

/* A full ring drops and counts; unread entries stay as they were. */
TEST_F(notify, overflow)
{
	__u32 head = 0, overflow = 0;
	struct nio_notify_queue r;

	if (SKIP_ON_PCI("the device overwrites a full ring (overwrite_fails_queue)"))
		return;
	neuron_ring_open_ok(_metadata, self->node.fd, 0, NEURON_NOTIFY_TRACE, 16, -1, &r);
	ASSERT_EQ(0, inject(self->node.sim_id, 0, r.type, 0, 40));
	EXPECT_EQ(0, wait_q(self->node.fd, 0, r.type, 0, 0, &head, &overflow));
	EXPECT_EQ(16U, head);
	EXPECT_EQ(24U, overflow);
	EXPECT_EQ(16U, neuron_ring_head(&r));
	EXPECT_EQ(24U, hdr(&r)->overflow);
	EXPECT_EQ(0U, check_entries(_metadata, &r, 0, 16, 0));
	/* Give 10 back: the next 10 go in, the rest overflow. */
	ASSERT_EQ(0, wait_q(self->node.fd, 0, r.type, 10, 0, &head, &overflow));
	ASSERT_EQ(0, inject(self->node.sim_id, 0, r.type, 500, 12));
	EXPECT_EQ(0, wait_q(self->node.fd, 0, r.type, 10, 0, &head, &overflow));
	EXPECT_EQ(26U, head);
	EXPECT_EQ(26U, overflow);
	EXPECT_EQ(0U, check_entries(_metadata, &r, 10, 16, 10));
	EXPECT_EQ(0U, check_entries(_metadata, &r, 16, 26, 500));
	neuron_ring_unmap(&r);
}

/*
 * PCI: the device model writes entry after entry, over unread ones (no
 * consumer index): the driver sees head pass tail + entries and stops the
 * queue (EIO) until teardown; the mapping keeps the entries it accepted.
 */
TEST_F(notify, overwrite_fails_queue)
{
	struct nio_notify_queue r;
	__u32 head = 0;

	if (!on_pci)
		SKIP(return, "the PCI backend's behaviour (the simulator drops and counts)");
	neuron_ring_open_ok(_metadata, self->node.fd, 0, NEURON_NOTIFY_ERROR, 16, -1, &r);
	ASSERT_EQ(0, inject(self->node.sim_id, 0, r.type, 0, 16));
	ASSERT_EQ(0, wait_q(self->node.fd, 0, r.type, 0, 0, &head, NULL));
	EXPECT_EQ(16U, head);
	EXPECT_EQ(16U, neuron_ring_head(&r));
	ASSERT_EQ(0, inject(self->node.sim_id, 0, r.type, 16, 1));
	EXPECT_EQ(-EIO, wait_q(self->node.fd, 0, r.type, 0, 0, NULL, NULL));
	EXPECT_EQ(-EIO, wait_q(self->node.fd, 0, r.type, 0,
			       now_ns() + 1000 * NSEC_PER_MSEC, NULL, NULL));
	EXPECT_EQ(16U, neuron_ring_head(&r));
	/* Teardown and a new setup bring it back. */
	EXPECT_EQ(0, neuron_notify_teardown(self->node.fd, 0, r.type));
	neuron_ring_unmap(&r);
	neuron_ring_open_ok(_metadata, self->node.fd, 0, NEURON_NOTIFY_ERROR, 16, -1, &r);
	ASSERT_EQ(0, inject(self->node.sim_id, 0, r.type, 7, 2));
	EXPECT_EQ(0, wait_q(self->node.fd, 0, r.type, 0, 0, &head, NULL));
	EXPECT_EQ(2U, head);
	EXPECT_EQ(0U, check_entries(_metadata, &r, 0, 2, 7));
	neuron_ring_unmap(&r);
}

/* ---- waiting ---- */

TEST_F(notify, wait_timeout)
{
	long long deadline, t0, late;
	__u32 head = 7;
	int err;

	ASSERT_EQ(0, setup_q(self->node.fd, 0, NEURON_NOTIFY_EVENT, 16));
	/* 0: no wait, just the state. */
	EXPECT_EQ(0, wait_q(self->node.fd, 0, NEURON_NOTIFY_EVENT, 0, 0, &head, NULL));
	EXPECT_EQ(0U, head);
	/* A deadline already past. */
	t0 = now_ns();
	EXPECT_EQ(-ETIME, wait_q(self->node.fd, 0, NEURON_NOTIFY_EVENT, 0, 1, NULL, NULL));
	EXPECT_EQ(-ETIME, wait_q(self->node.fd, 0, NEURON_NOTIFY_EVENT, 0, -5, NULL, NULL));
	EXPECT_GT(t0 + LATE_MS * NSEC_PER_MSEC, now_ns());
	/* 300 ms from now: not before, not much after. */
	deadline = now_ns() + 300 * NSEC_PER_MSEC;
	err = wait_q(self->node.fd, 0, NEURON_NOTIFY_EVENT, 0, deadline, NULL, NULL);
	late = now_ns() - deadline;
	EXPECT_EQ(-ETIME, err);
	EXPECT_LE(0, late);
	EXPECT_GT(LATE_MS * NSEC_PER_MSEC, late);
	TH_LOG("returned %lld us after the deadline", late / 1000);
}

/* Unread entries below head: WAIT returns at once. */
TEST_F(notify, wait_returns_with_unread)
{
	long long t0;
	__u32 head = 0;

	ASSERT_EQ(0, setup_q(self->node.fd, 0, NEURON_NOTIFY_EVENT, 16));
	ASSERT_EQ(0, inject(self->node.sim_id, 0, NEURON_NOTIFY_EVENT, 0, 2));
	t0 = now_ns();
	EXPECT_EQ(0, wait_q(self->node.fd, 0, NEURON_NOTIFY_EVENT, 1,
			    t0 + 10000 * NSEC_PER_MSEC, &head, NULL));
	EXPECT_EQ(2U, head);
	EXPECT_GT(t0 + LATE_MS * NSEC_PER_MSEC, now_ns());
}

struct waiter {
	int fd;
	__u32 nc;
	__u32 type;
	long long deadline;
	int err;
	__u32 head;
	long long done;
};

static void *waiter_thread(void *arg)
{
	struct waiter *w = arg;

	w->err = wait_q(w->fd, w->nc, w->type, 0, w->deadline, &w->head, NULL);
	w->done = now_ns();
	return NULL;
}

/* A waiting thread is woken by a post from another thread. */
TEST_F(notify, wait_woken_by_thread)
{
	struct waiter w = { .fd = self->node.fd, .type = NEURON_NOTIFY_COMPLETION };
	long long posted;
	pthread_t th;

	w.nc = self->info.nc_count - 1;
	ASSERT_EQ(0, setup_q(self->node.fd, w.nc, w.type, 16));
	w.deadline = now_ns() + 20000 * NSEC_PER_MSEC;
	ASSERT_EQ(0, pthread_create(&th, NULL, waiter_thread, &w));
	neuron_sleep_ms(200);
	posted = now_ns();
	ASSERT_EQ(0, inject(self->node.sim_id, w.nc, w.type, 0, 1));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(0, w.err) TH_LOG("%s", strerror(-w.err));
	EXPECT_EQ(1U, w.head);
	EXPECT_GT(posted + LATE_MS * NSEC_PER_MSEC, w.done);
	TH_LOG("woken %lld us after the post", (w.done - posted) / 1000);
}

/* A waiter is woken by a post from another process. */
TEST_F(notify, wait_woken_by_process)
{
	__u32 head = 0;
	long long t0;
	int status;
	pid_t pid;

	ASSERT_EQ(0, setup_q(self->node.fd, 0, NEURON_NOTIFY_ERROR, 16));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		neuron_sleep_ms(200);
		_exit(inject(self->node.sim_id, 0, NEURON_NOTIFY_ERROR, 9, 3) ? 1 : 0);
	}
	t0 = now_ns();
	EXPECT_EQ(0, wait_q(self->node.fd, 0, NEURON_NOTIFY_ERROR, 0,
			    t0 + 20000 * NSEC_PER_MSEC, &head, NULL));
	EXPECT_LE(1U, head);
	EXPECT_GT(t0 + 10000 * NSEC_PER_MSEC, now_ns());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
}

static int alarms;

static void alarm_handler(int sig)
{
	(void)sig;
	__atomic_fetch_add(&alarms, 1, __ATOMIC_RELAXED);
}

/*
 * Arm an alarm in 100 ms and wait for an event of NC 0 until @ms from now
 * (@deadline): the result of the wait. alarms counts the signals.
 */
static int wait_alarmed(struct __test_metadata *_metadata, int fd, long long ms,
			long long *deadline)
{
	struct itimerval it = { .it_value = { 0, 100000 } };

	__atomic_store_n(&alarms, 0, __ATOMIC_RELAXED);
	*deadline = now_ns() + ms * NSEC_PER_MSEC;
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	return wait_q(fd, 0, NEURON_NOTIFY_EVENT, 0, *deadline, NULL, NULL);
}

/*
 * A signal: without SA_RESTART the wait ends with EINTR; with it the call
 * restarts with the same absolute deadline and ends there with ETIME.
 */
TEST_F(notify, wait_signal)
{
	struct sigaction sa, old;
	long long deadline;
	int err;

	ASSERT_EQ(0, setup_q(self->node.fd, 0, NEURON_NOTIFY_EVENT, 16));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = alarm_handler;
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, &old));
	err = wait_alarmed(_metadata, self->node.fd, 5000, &deadline);
	EXPECT_EQ(-EINTR, err);
	EXPECT_EQ(1, __atomic_load_n(&alarms, __ATOMIC_RELAXED));
	EXPECT_GT(deadline, now_ns());

	sa.sa_flags = SA_RESTART;
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	err = wait_alarmed(_metadata, self->node.fd, 600, &deadline);
	EXPECT_EQ(-ETIME, err);
	EXPECT_EQ(1, __atomic_load_n(&alarms, __ATOMIC_RELAXED));
	EXPECT_LE(deadline, now_ns());
	EXPECT_GT(deadline + LATE_MS * NSEC_PER_MSEC, now_ns());
	sigaction(SIGALRM, &old, NULL);
}

/* eventfd: epoll reports the queue readable after a post. */
TEST_F(notify, eventfd_epoll)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	__u64 count = 0;
	int efd, ep;
	struct nio_notify_queue r;

	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ASSERT_LE(0, efd);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev));
	neuron_ring_open_ok(_metadata, self->node.fd, 0, NEURON_NOTIFY_EVENT, 16, efd, &r);
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	ASSERT_EQ(0, inject(self->node.sim_id, 0, r.type, 0, 1));
	EXPECT_EQ(1, epoll_wait(ep, &out, 1, LATE_MS));
	EXPECT_EQ(sizeof(count), (size_t)read(efd, &count, sizeof(count)));
	EXPECT_LE(1ULL, count);
	EXPECT_EQ(1U, neuron_ring_head(&r));
	/* Drained: nothing until the next post. */
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	ASSERT_EQ(0, wait_q(self->node.fd, 0, r.type, 1, 0, NULL, NULL));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 50));
	ASSERT_EQ(0, inject(self->node.sim_id, 0, r.type, 1, 3));
	EXPECT_EQ(1, epoll_wait(ep, &out, 1, LATE_MS));
	/* Another queue's posts do not signal it. */
	EXPECT_EQ(sizeof(count), (size_t)read(efd, &count, sizeof(count)));
	ASSERT_EQ(0, setup_q(self->node.fd, 0, NEURON_NOTIFY_ERROR, 16));
	ASSERT_EQ(0, inject(self->node.sim_id, 0, NEURON_NOTIFY_ERROR, 0, 1));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 50));
	neuron_ring_unmap(&r);
	close(ep);
	close(efd);
}

/* The eventfd stays with the queue after the caller closed it. */
TEST_F(notify, eventfd_closed_by_caller)
{
	__u32 head = 0;
	int efd;

	efd = eventfd(0, EFD_CLOEXEC);
	ASSERT_LE(0, efd);
	ASSERT_EQ(0, setup_efd(self->node.fd, 0, NEURON_NOTIFY_EVENT, efd));
	close(efd);
	ASSERT_EQ(0, inject(self->node.sim_id, 0, NEURON_NOTIFY_EVENT, 0, 2));
	EXPECT_EQ(0, wait_q(self->node.fd, 0, NEURON_NOTIFY_EVENT, 0, 0, &head, NULL));
	EXPECT_EQ(2U, head);
}

/* ---- faulty device ---- */

/* A head the device cannot have written kills the queue: EIO. */
TEST_F(notify, bad_device_head)
{
	static const __u32 bad[] = { 17, 0xffffffffU, 2 };
	__u32 head = 0, i;
	struct nio_notify_queue r;

	if (SKIP_ON_PCI("no head to fake: the driver reads the entries (overwrite_fails_queue)"))
		return;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		neuron_ring_open_ok(_metadata, self->node.fd, 0, NEURON_NOTIFY_ERROR, 16, -1, &r);
		ASSERT_EQ(0, inject(self->node.sim_id, 0, r.type, 0, 3));
		ASSERT_EQ(0, wait_q(self->node.fd, 0, r.type, 0, 0, &head, NULL));
		ASSERT_EQ(3U, head);
		/* 17 is more than entries past the tail; the others go back. */
		ASSERT_EQ(0, inject_head(self->node.sim_id, 0, r.type, bad[i]));
		EXPECT_EQ(-EIO, wait_q(self->node.fd, 0, r.type, 0,
				       now_ns() + 5000 * NSEC_PER_MSEC, NULL, NULL))
			TH_LOG("head %u", bad[i]);
		EXPECT_EQ(-EIO, wait_q(self->node.fd, 0, r.type, 0, 0, NULL, NULL));
		/* Teardown and a new setup bring it back. */
		EXPECT_EQ(0, neuron_notify_teardown(self->node.fd, 0, r.type));
		neuron_ring_unmap(&r);
	}
	/* A head exactly entries past the tail is fine (a full ring). */
	neuron_ring_open_ok(_metadata, self->node.fd, 0, NEURON_NOTIFY_ERROR, 16, -1, &r);
	ASSERT_EQ(0, inject_head(self->node.sim_id, 0, r.type, 16));
	EXPECT_EQ(0, wait_q(self->node.fd, 0, r.type, 0, 0, &head, NULL));
	EXPECT_EQ(16U, head);
	neuron_ring_unmap(&r);
}

/* A faulty device wakes a sleeping waiter with EIO. */
TEST_F(notify, bad_device_head_wakes)
{
	struct waiter w = { .fd = self->node.fd, .type = NEURON_NOTIFY_TRACE };
	pthread_t th;

	if (SKIP_ON_PCI("no head to fake"))
		return;
	ASSERT_EQ(0, setup_q(self->node.fd, 0, w.type, 16));
	w.deadline = now_ns() + 20000 * NSEC_PER_MSEC;
	ASSERT_EQ(0, pthread_create(&th, NULL, waiter_thread, &w));
	neuron_sleep_ms(200);
	ASSERT_EQ(0, inject_head(self->node.sim_id, 0, w.type, 1000));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(-EIO, w.err);
	EXPECT_GT(w.deadline - 10000 * NSEC_PER_MSEC, w.done);
}

/* ---- close and removal ---- */

/* Closing the owner frees its queues for others. */
TEST_F(notify, teardown_on_close)
{
	int fd2, fd3;
	__u32 t;

	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	for (t = 0; t < NEURON_NOTIFY_TYPES; t++)
		ASSERT_EQ(0, setup_q(fd2, 0, t, 16));
	EXPECT_EQ(-EBUSY, setup_q(self->node.fd, 0, NEURON_NOTIFY_COMPLETION, 16));
	/* A dup shares the file: still the owner. */
	fd3 = dup(fd2);
	ASSERT_LE(0, fd3);
	close(fd2);
	EXPECT_EQ(0, wait_q(fd3, 0, NEURON_NOTIFY_EVENT, 0, 0, NULL, NULL));
	EXPECT_EQ(-EBUSY, setup_q(self->node.fd, 0, NEURON_NOTIFY_COMPLETION, 16));
	close(fd3);
	for (t = 0; t < NEURON_NOTIFY_TYPES; t++)
		EXPECT_EQ(0, setup_q(self->node.fd, 0, t, 16)) TH_LOG("type %u", t);
	EXPECT_EQ(0, inject(self->node.sim_id, 0, NEURON_NOTIFY_EVENT, 0, 1));
}

/* Removal of the device ends a wait with ENODEV. */
TEST_F(notify, remove_while_waiting)
{
	struct waiter w = { .fd = self->node.fd, .type = NEURON_NOTIFY_EVENT };
	long long t0;
	pthread_t th;

	if (SKIP_ON_PCI("removal of the PCI device: neuron_pci_ready unbinds it"))
		return;
	ASSERT_EQ(0, setup_q(self->node.fd, 0, w.type, 16));
	w.deadline = now_ns() + 30000 * NSEC_PER_MSEC;
	ASSERT_EQ(0, pthread_create(&th, NULL, waiter_thread, &w));
	neuron_sleep_ms(200);
	t0 = now_ns();
	ASSERT_EQ(0, neuron_sim_remove(&self->node));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(-ENODEV, w.err) TH_LOG("%s", strerror(-w.err));
	EXPECT_GT(t0 + 10000 * NSEC_PER_MSEC, w.done);
	EXPECT_EQ(-ENODEV, wait_q(self->node.fd, 0, w.type, 0, 0, NULL, NULL));
	EXPECT_EQ(-ENODEV, setup_q(self->node.fd, 0, w.type, 16));
	EXPECT_EQ(-ENODEV, neuron_notify_teardown(self->node.fd, 0, w.type));
}

/* Removal with an eventfd: epoll users are told to look (and get ENODEV). */
TEST_F(notify, remove_signals_eventfd)
{
	__u64 count = 0;
	struct pollfd pfd;
	int efd;

	if (SKIP_ON_PCI("removal of the PCI device: neuron_pci_ready unbinds it"))
		return;
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ASSERT_LE(0, efd);
	ASSERT_EQ(0, setup_efd(self->node.fd, 0, NEURON_NOTIFY_ERROR, efd));
	pfd.fd = efd;
	pfd.events = POLLIN;
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(0, neuron_sim_remove(&self->node));
	EXPECT_EQ(1, poll(&pfd, 1, LATE_MS));
	EXPECT_EQ(sizeof(count), (size_t)read(efd, &count, sizeof(count)));
	EXPECT_EQ(-ENODEV, wait_q(self->node.fd, 0, NEURON_NOTIFY_ERROR, 0, 0, NULL, NULL));
	close(efd);
}

/* Removal of a mapped ring: SIGBUS on access, munmap and close work. */
TEST_F(notify, remove_while_mapped)
{
	struct nio_notify_queue r, r2;
	unsigned char v;
	void *p;

	if (SKIP_ON_PCI("removal of the PCI device: neuron_pci_ready unbinds it"))
		return;
	neuron_ring_open_ok(_metadata, self->node.fd, 0, NEURON_NOTIFY_COMPLETION, 16, -1, &r);
	ASSERT_EQ(0, inject(self->node.sim_id, 0, r.type, 0, 2));
	EXPECT_EQ(2U, neuron_ring_head(&r));
	/* A second ring, already torn down, still mapped. */
	neuron_ring_open_ok(_metadata, self->node.fd, 0, NEURON_NOTIFY_EVENT, 16, -1, &r2);
	EXPECT_EQ(0, neuron_notify_teardown(self->node.fd, 0, r2.type));
	ASSERT_EQ(0, neuron_sim_remove(&self->node));
	EXPECT_EQ(SIGBUS, neuron_probe(r.map, &v, false));
	EXPECT_EQ(SIGBUS, neuron_probe((unsigned char *)r.map + NEURON_NOTIFY_ENTRY_OFFSET,
				       &v, false));
	EXPECT_EQ(SIGBUS, neuron_probe(r2.map, &v, false));
	p = mmap(NULL, r.map_size, PROT_READ, MAP_SHARED, self->node.fd, r.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENODEV, errno);
	neuron_ring_unmap(&r);
	neuron_ring_unmap(&r2);
	EXPECT_EQ(0, close(self->node.fd));
	self->node.fd = -1;
}

TEST_HARNESS_MAIN
