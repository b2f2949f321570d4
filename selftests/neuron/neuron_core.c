// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: the core's completion model and removal guard.
 *  - WAIT racing the asynchronous COPY that creates its sequence number
 *    (a job is visible only once fully built);
 *  - removal of one device while another device, or the device itself,
 *    has a waiter with an infinite deadline (the guard is per device and
 *    never held across a sleep);
 *  - a hung DMA queue (the simulator's dma_hang_nc knob) is declared hung
 *    after job_timeout_ms, reset, and serves again, while another NC's
 *    copies never fail;
 *  - a submitter blocked on a hung queue's full ring dies at once on
 *    SIGKILL;
 *  - the COMPLETION notifications of a NeuronCore's queue report only the
 *    work of the file that owns the queue (another process of another uid
 *    copies on the same NC unseen);
 *  - removal with live objects of every kind (mapped host and device
 *    memory, a copy in flight with pinned user pages, a notification ring):
 *    everything then fails cleanly, and nothing calls into the removed
 *    backend afterwards (the simulator WARNs if anything does, which fails
 *    the VM's verdict).
 * Simulated devices only (the knobs are the simulator's).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "neuron_test.h"

#define TIMEOUT_PARAM	"/sys/module/neuron/parameters/job_timeout_ms"
#define OBJ		(1024 * 1024)

FIXTURE(core) {
	struct neuron_node node;
	__u32 dev[2], dev_b[2];		/* two objects on each of NC 0 and 1 */
	char timeout[32];		/* job_timeout_ms before the test */
};

FIXTURE_SETUP(core)
{
	struct neuron_mem_alloc a;
	int nc;

	neuron_node_init(&self->node);
	neuron_require_sim(_metadata);
	ASSERT_EQ(0, neuron_sim_create(&self->node, "v2", 64));
	ASSERT_EQ(0, neuron_node_open(&self->node));
	for (nc = 0; nc < 2; nc++) {
		ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE,
					      OBJ, nc, &a));
		self->dev[nc] = a.handle;
		ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE,
					      OBJ, nc, &a));
		self->dev_b[nc] = a.handle;
	}
}

/* Set job_timeout_ms for this test (the teardown puts it back). */
static int set_timeout(struct _test_data_core *self, const char *ms)
{
	int ret = neuron_read_text(TIMEOUT_PARAM, self->timeout,
				   sizeof(self->timeout));

	return ret ? ret : neuron_sysfs_write(TIMEOUT_PARAM, ms);
}

FIXTURE_TEARDOWN(core)
{
	if (self->timeout[0])
		neuron_sysfs_write(TIMEOUT_PARAM, self->timeout);
	neuron_node_release(&self->node);
}

/* ---- WAIT racing COPY ---- */

struct race {
	int fd;
	unsigned int n;
	unsigned int bad;
	int last_err;
};

/* Collect sequence numbers 1..n, each as soon as it exists. */
static void *race_waiter(void *arg)
{
	struct race *r = arg;
	unsigned int seq;
	int ret;

	for (seq = 1; seq <= r->n; seq++) {
		do {
			ret = neuron_wait_seq(r->fd, seq,
					      neuron_now_ns() + 5000000000LL);
		} while (ret == -ENOENT);
		if (ret) {
			r->bad++;
			r->last_err = ret;
		}
	}
	return NULL;
}

/*
 * Sequence numbers are predictable (1, 2, ... on a new file): a thread
 * waits on each one before the COPY that makes it has returned. It must
 * see -ENOENT until the job is fully built, then its real completion.
 */
TEST_F_TIMEOUT(core, wait_races_copy, 120)
{
	struct race r = { .n = 2000 };
	struct neuron_mem_alloc a, b;
	unsigned int round, i;
	pthread_t t;
	__u64 seq;

	for (round = 0; round < 3; round++) {
		r.fd = open(self->node.path, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, r.fd);
		ASSERT_EQ(0, neuron_mem_alloc(r.fd, NEURON_MEM_DEVICE, 8192, 0, &a));
		ASSERT_EQ(0, neuron_mem_alloc(r.fd, NEURON_MEM_DEVICE, 8192, 0, &b));
		ASSERT_EQ(0, pthread_create(&t, NULL, race_waiter, &r));
		for (i = 1; i <= r.n; i++) {
			ASSERT_EQ(0, neuron_copy_op(r.fd, a.handle, 0, b.handle, 0,
						    NULL, NULL, 4096 + i % 4096,
						    NEURON_COPY_ASYNC, &seq));
			ASSERT_EQ((__u64)i, seq);
		}
		ASSERT_EQ(0, pthread_join(t, NULL));
		EXPECT_EQ(0U, r.bad) TH_LOG("last error %d", r.last_err);
		close(r.fd);
	}
}

/* ---- removal with waiters ---- */

struct nwaiter {
	int fd;
	int ret;
	int done;	/* __atomic: set once the wait returned */
};

/* NOTIFY_WAIT on (NC 0, COMPLETION) with no deadline. */
static void *notify_waiter(void *arg)
{
	struct nwaiter *w = arg;
	struct neuron_notify_wait nw = {
		.nc = 0, .type = NEURON_NOTIFY_COMPLETION,
		.timeout_ns = INT64_MAX,
	};

	w->ret = neuron_ioctl(w->fd, NEURON_IOCTL_NOTIFY_WAIT, &nw);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int notify_setup(int fd)
{
	struct neuron_notify_setup s = {
		.nc = 0, .type = NEURON_NOTIFY_COMPLETION, .entries = 64,
		.eventfd = -1,
	};

	return neuron_ioctl(fd, NEURON_IOCTL_NOTIFY_SETUP, &s);
}

/* Fork a child that deletes sim device @id; 0 if it finished within @ms. */
static int del_within(unsigned int id, unsigned int ms, pid_t *child)
{
	unsigned int waited;
	int status;

	*child = fork();
	if (!*child)
		_exit(neuron_sim_del(id) ? 1 : 0);
	for (waited = 0; waited < ms; waited += 10) {
		if (waitpid(*child, &status, WNOHANG) == *child) {
			*child = 0;
			return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
		}
		neuron_sleep_ms(10);
	}
	return -ETIMEDOUT;
}

/*
 * Device B (the fixture's) has a waiter with no deadline; device A is
 * removed: that must not wait for B's waiter, which goes on sleeping.
 * (With one guard for all devices, A's removal waited for it forever.)
 * Then B itself is removed: done at once, the waiter gets ENODEV.
 */
TEST_F_TIMEOUT(core, unplug_with_waiters, 60)
{
	struct neuron_node a;
	struct nwaiter w = { .fd = self->node.fd };
	pthread_t t;
	pid_t child;
	int ret;

	ASSERT_EQ(0, notify_setup(self->node.fd));
	ASSERT_EQ(0, pthread_create(&t, NULL, notify_waiter, &w));
	neuron_sleep_ms(200);
	ASSERT_FALSE(__atomic_load_n(&w.done, __ATOMIC_ACQUIRE));

	ASSERT_EQ(0, neuron_sim_create(&a, "v3", 16));
	ret = del_within(a.sim_id, 3000, &child);
	if (ret == -ETIMEDOUT) {
		/* Let the waiter go (a completion on B) so the test can end. */
		neuron_copy_op(self->node.fd, self->dev[0], 0, self->dev_b[0], 0,
			       NULL, NULL, 4096, 0, NULL);
		waitpid(child, NULL, 0);
		pthread_join(t, NULL);
	}
	a.created = false;
	ASSERT_EQ(0, ret) TH_LOG("removing device A waited for B's waiter");
	EXPECT_FALSE(__atomic_load_n(&w.done, __ATOMIC_ACQUIRE))
		TH_LOG("B's waiter returned %d", w.ret);

	/* B itself goes: its waiter returns at once. */
	EXPECT_EQ(0, del_within(self->node.sim_id, 3000, &child));
	self->node.created = false;
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(-ENODEV, w.ret);
}

/* ---- hangs ---- */

struct nc1_load {
	int fd;
	__u32 src, dst;
	int stop;	/* __atomic */
	unsigned int ok, failed;
	int err;
};

/* Copies on NC 1 for as long as the test runs: none may fail. */
static void *nc1_copies(void *arg)
{
	struct nc1_load *l = arg;
	int ret;

	while (!__atomic_load_n(&l->stop, __ATOMIC_ACQUIRE)) {
		ret = neuron_copy_op(l->fd, l->src, 0, l->dst, 0, NULL, NULL,
				     65536, 0, NULL);
		if (ret) {
			l->failed++;
			l->err = ret;
		} else {
			l->ok++;
		}
	}
	return NULL;
}

/*
 * NC 0's queue hangs: its job fails with EIO once job_timeout_ms passed
 * without progress, the queue is reset and the next copies on NC 0 move
 * the right bytes; NC 1 kept working throughout.
 */
TEST_F_TIMEOUT(core, hung_queue_reset, 60)
{
	struct nc1_load l = {
		.fd = self->node.fd, .src = self->dev[1], .dst = self->dev_b[1],
	};
	static unsigned char in[65536], out[65536];
	__s64 t0, spent;
	pthread_t t;
	__u64 seq;
	size_t i;

	ASSERT_EQ(0, set_timeout(self, "300"));
	ASSERT_EQ(0, pthread_create(&t, NULL, nc1_copies, &l));

	/* Asynchronous: WAIT reports the hang. */
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "dma_hang_nc", "1"));
	t0 = neuron_now_ns();
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, self->dev[0], 0,
				    self->dev_b[0], 0, NULL, NULL, OBJ,
				    NEURON_COPY_ASYNC, &seq));
	EXPECT_EQ(-EIO, neuron_wait_seq(self->node.fd, seq,
					neuron_now_ns() + 20000000000LL));
	spent = (neuron_now_ns() - t0) / 1000000;
	EXPECT_LE(250, spent);
	EXPECT_GT(10000, spent);

	/* Synchronous: the copy itself returns EIO, not never. */
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "dma_hang_nc", "1"));
	EXPECT_EQ(-EIO, neuron_copy_op(self->node.fd, self->dev[0], 0,
				       self->dev_b[0], 0, NULL, NULL, OBJ, 0, NULL));

	/* Back in service: the right bytes. */
	for (i = 0; i < sizeof(in); i++)
		in[i] = i * 7 + 3;
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, 0, 0, self->dev[0], 4096,
				    in, NULL, sizeof(in), 0, NULL));
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, self->dev[0], 4096,
				    self->dev_b[0], 0, NULL, NULL, sizeof(in), 0,
				    NULL));
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, self->dev_b[0], 0, 0, 0,
				    NULL, out, sizeof(out), 0, NULL));
	EXPECT_EQ(0, memcmp(in, out, sizeof(in)));

	__atomic_store_n(&l.stop, 1, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0U, l.failed) TH_LOG("NC 1: %u copies failed (%d)", l.failed, l.err);
	EXPECT_LT(0U, l.ok);
}

/*
 * A MEMSET of 24 MiB (6144 packets of a page) on a hung NC fills the
 * 4096-entry ring and its caller waits for room:
 * SIGKILL ends it at once (the wait was uninterruptible before).
 */
TEST_F_TIMEOUT(core, hung_submitter_killable, 60)
{
	unsigned int waited;
	int status = 0;
	pid_t child;

	ASSERT_EQ(0, set_timeout(self, "60000"));
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "dma_hang_nc", "1"));
	child = neuron_fork(_metadata);
	if (!child) {
		struct neuron_mem_alloc a;
		struct neuron_memset m = { .value = 0x5a, .size = 24ULL << 20 };

		if (neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE, m.size, 0, &a))
			_exit(2);
		m.handle = a.handle;
		neuron_ioctl(self->node.fd, NEURON_IOCTL_MEMSET, &m);
		_exit(3);
	}
	neuron_sleep_ms(1000);
	ASSERT_EQ(0, kill(child, SIGKILL));
	for (waited = 0; waited < 3000; waited += 10) {
		if (waitpid(child, &status, WNOHANG) == child)
			break;
		neuron_sleep_ms(10);
	}
	EXPECT_GT(3000U, waited) TH_LOG("the submitter did not die on SIGKILL");
	if (waited >= 3000) {
		/* Unblock it the way removal does, then reap it. */
		neuron_sim_del(self->node.sim_id);
		self->node.created = false;
		waitpid(child, &status, 0);
	}
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

/* ---- removal with live objects ---- */

TEST_F_TIMEOUT(core, remove_with_live_objects, 60)
{
	struct neuron_notify_setup ns = {
		.nc = 1, .type = NEURON_NOTIFY_COMPLETION, .entries = 64,
		.eventfd = -1,
	};
	struct neuron_mem_alloc h, d;
	unsigned char *hp, *dp, *ring, v = 0x77, *user;
	int fd = self->node.fd;
	__u64 seq;

	ASSERT_EQ(0, neuron_mem_alloc(fd, NEURON_MEM_HOST, OBJ, 0, &h));
	ASSERT_EQ(0, neuron_mem_alloc(fd, NEURON_MEM_DEVICE, OBJ, 1, &d));
	hp = mmap(NULL, OBJ, PROT_READ | PROT_WRITE, MAP_SHARED, fd, h.mmap_offset);
	dp = mmap(NULL, OBJ, PROT_READ | PROT_WRITE, MAP_SHARED, fd, d.mmap_offset);
	ASSERT_NE(MAP_FAILED, hp);
	ASSERT_NE(MAP_FAILED, dp);
	hp[0] = 1;
	dp[0] = 2;
	ASSERT_EQ(0, neuron_ioctl(fd, NEURON_IOCTL_NOTIFY_SETUP, &ns));
	ring = mmap(NULL, ns.mmap_size, PROT_READ, MAP_SHARED, fd, ns.mmap_offset);
	ASSERT_NE(MAP_FAILED, ring);

	/* A copy from pinned user memory that stays in flight (NC 0 hangs). */
	ASSERT_EQ(0, set_timeout(self, "60000"));
	user = malloc(OBJ);
	ASSERT_NE(NULL, user);
	memset(user, 0x33, OBJ);
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "dma_hang_nc", "1"));
	ASSERT_EQ(0, neuron_copy_op(fd, 0, 0, self->dev[0], 0, user, NULL, OBJ,
				    NEURON_COPY_ASYNC, &seq));

	ASSERT_EQ(0, neuron_sim_remove(&self->node));

	EXPECT_EQ(-ENODEV, neuron_wait_seq(fd, seq, neuron_now_ns() + 5000000000LL));
	EXPECT_EQ(-ENODEV, neuron_mem_free(fd, h.handle));
	EXPECT_EQ(SIGBUS, neuron_probe(hp, &v, false));
	EXPECT_EQ(SIGBUS, neuron_probe(dp, &v, true));
	EXPECT_EQ(SIGBUS, neuron_probe(ring, &v, false));
	/* Everything goes now, after the backend: nothing may call it. */
	EXPECT_EQ(0, munmap(hp, OBJ));
	EXPECT_EQ(0, munmap(dp, OBJ));
	EXPECT_EQ(0, munmap(ring, ns.mmap_size));
	EXPECT_EQ(0, close(fd));
	self->node.fd = -1;
	free(user);
}

/* ---- whose completions ---- */

/*
 * The fixture's file owns NC 0's COMPLETION queue. A child that is
 * another uid copies on NC 0 through a file of its own: nothing of it
 * reaches the queue. Then the owner's own copy does.
 */
TEST_F(core, completions_private)
{
	struct neuron_notify_setup s = {
		.nc = 0, .type = NEURON_NOTIFY_COMPLETION, .entries = 64,
		.eventfd = -1,
	};
	const struct neuron_notify_header *hdr;
	int status;
	pid_t child;
	void *map;

	ASSERT_EQ(0, neuron_ioctl(self->node.fd, NEURON_IOCTL_NOTIFY_SETUP, &s));
	map = mmap(NULL, s.mmap_size, PROT_READ, MAP_SHARED, self->node.fd,
		   s.mmap_offset);
	ASSERT_NE(MAP_FAILED, map);
	hdr = map;

	child = neuron_fork(_metadata);
	if (!child) {
		struct neuron_mem_alloc a, b;
		int fd = open(self->node.path, O_RDWR | O_CLOEXEC), i;

		if (fd < 0 || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(2);
		if (neuron_mem_alloc(fd, NEURON_MEM_DEVICE, 65536, 0, &a) ||
		    neuron_mem_alloc(fd, NEURON_MEM_DEVICE, 65536, 0, &b))
			_exit(3);
		for (i = 0; i < 10; i++)
			if (neuron_copy_op(fd, a.handle, 0, b.handle, 0, NULL, NULL,
					   65536, 0, NULL))
				_exit(4);
		_exit(0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0U, __atomic_load_n(&hdr->head, __ATOMIC_ACQUIRE))
		TH_LOG("another uid's copies were reported");

	ASSERT_EQ(0, neuron_copy_op(self->node.fd, self->dev[0], 0,
				    self->dev_b[0], 0, NULL, NULL, 4096, 0, NULL));
	EXPECT_EQ(1U, __atomic_load_n(&hdr->head, __ATOMIC_ACQUIRE));
	munmap(map, s.mmap_size);
}

TEST_HARNESS_MAIN
