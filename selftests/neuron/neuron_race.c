// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: every pair of calls racing on one file.
 *
 * The calls: QUERY, MEM_ALLOC, MEM_FREE, COPY (synchronous and
 * asynchronous), MEMSET, WAIT, NOTIFY_SETUP, NOTIFY_WAIT, NOTIFY_TEARDOWN,
 * NC_RESERVE, NC_RELEASE, NC_SEM, MODEL_LOAD, MODEL_UNLOAD, EXECUTE
 * (waiting and asynchronous) and mmap() of a memory object (touched, then
 * unmapped). Their arguments come from pools the threads share: a few
 * memory handles (device and host), models and sequence numbers, each
 * possibly freed, unloaded or spent by the other thread meanwhile.
 *
 * For each unordered pair of calls (a call with itself included), two
 * threads run them in a loop for RACE_MS on a new file. Every call must end
 * with 0 or one of the errnos its documentation gives for what the other
 * thread can do to it (a handle freed under it, an NC released, a queue
 * torn down...); any other errno, or a status other than OK or CANCELLED
 * from an execution, is a failure. Then the file is closed, and the
 * device's memory in use, its NCs' state and the process's pinned pages
 * must be back at their baseline; at the end a new file must still compute
 * a matmul right. On the debug kernel KASAN, lockdep and kmemleak watch
 * all of it (the VM's verdict fails on any report).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "neuron_test.h"

#define RACE_MS		40
#define OBJ_SIZE	65536ULL
#define POOL		4	/* handles; models and seqnos have as many */
#define MM		NEURON_TEST_MM

enum op {
	OP_QUERY, OP_ALLOC, OP_FREE, OP_COPY, OP_COPY_ASYNC, OP_MEMSET, OP_WAIT,
	OP_NOTIFY_SETUP, OP_NOTIFY_WAIT, OP_NOTIFY_TEARDOWN, OP_RESERVE,
	OP_RELEASE, OP_SEM, OP_LOAD, OP_UNLOAD, OP_EXECUTE, OP_EXECUTE_ASYNC,
	OP_MMAP, OP_COUNT
};

static const char *const op_name[OP_COUNT] = {
	"QUERY", "MEM_ALLOC", "MEM_FREE", "COPY", "COPY_ASYNC", "MEMSET",
	"WAIT", "NOTIFY_SETUP", "NOTIFY_WAIT", "NOTIFY_TEARDOWN", "NC_RESERVE",
	"NC_RELEASE", "NC_SEM", "MODEL_LOAD", "MODEL_UNLOAD", "EXECUTE",
	"EXECUTE_ASYNC", "mmap",
};

/*
 * What the other thread may do to each call: the errnos it may cause. A
 * call that finds its pool slot empty fills it instead (MEM_FREE and mmap
 * allocate, MODEL_UNLOAD loads, WAIT makes a MEMSET to wait for later), so
 * it may also end as that call may.
 */
static const int op_errnos[OP_COUNT][6] = {
	[OP_QUERY] = { 0 },
	[OP_ALLOC] = { ENOSPC },
	[OP_FREE] = { ENOENT, ENOSPC },
	[OP_COPY] = { ENOENT },
	[OP_COPY_ASYNC] = { ENOENT, EAGAIN },
	[OP_MEMSET] = { ENOENT, EAGAIN },
	/* An execution cancelled by NC_RELEASE; a number waited for already. */
	[OP_WAIT] = { ENOENT, ECANCELED, ETIME, EAGAIN },
	[OP_NOTIFY_SETUP] = { EBUSY, ENOSPC },
	[OP_NOTIFY_WAIT] = { ENOENT, ETIME },
	[OP_NOTIFY_TEARDOWN] = { ENOENT, EBUSY, ENOSPC },
	[OP_RESERVE] = { 0 },
	/* All or none: one NC of the mask not held. */
	[OP_RELEASE] = { ENOENT },
	[OP_SEM] = { EACCES },
	[OP_LOAD] = { EACCES, ENOSPC },
	[OP_UNLOAD] = { ENOENT, EACCES, ENOSPC },
	/* Host memory or a freed handle bound; the NC released; queue full. */
	[OP_EXECUTE] = { ENOENT, EINVAL, EACCES, EAGAIN },
	[OP_EXECUTE_ASYNC] = { ENOENT, EINVAL, EACCES, EAGAIN },
	/* An offset whose object was freed. */
	[OP_MMAP] = { EINVAL, ENOSPC },
};

/* What two threads share on one file. */
struct pools {
	int fd;
	__u32 nc_count;
	__u32 handle[POOL];
	__u64 offset[POOL];	/* mmap offset of handle[i] */
	__u32 model[POOL];
	__u64 seqno[POOL];
	int stop;
};

struct racer {
	struct pools *p;
	enum op op;
	__u32 rnd;
	unsigned int calls, refused, bad;
	int last_err;		/* the last refusal */
	int bad_err;		/* the first unexpected result */
	bool mixed;		/* each call drawn at random (@op changes) */
};

static __u32 next_rnd(struct racer *r)
{
	r->rnd ^= r->rnd << 13;
	r->rnd ^= r->rnd >> 17;
	r->rnd ^= r->rnd << 5;
	return r->rnd;
}

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define XCHG(x, v)	__atomic_exchange_n(&(x), (v), __ATOMIC_RELAXED)

static int op_alloc(struct racer *r)
{
	struct pools *p = r->p;
	struct neuron_mem_alloc a;
	unsigned int i = next_rnd(r) % POOL;
	__u32 old;
	int ret;

	/* Slot 0 is always host memory: executions bound to it fail. */
	ret = neuron_mem_alloc(p->fd, i ? NEURON_MEM_DEVICE : NEURON_MEM_HOST, OBJ_SIZE,
			       next_rnd(r) % p->nc_count, &a);
	if (ret)
		return ret;
	STORE(p->offset[i], a.mmap_offset);
	old = XCHG(p->handle[i], a.handle);
	/* The slot's previous object; freed by the other thread maybe. */
	ret = old ? neuron_mem_free(p->fd, old) : 0;
	return ret == -ENOENT ? 0 : ret;
}

static int op_copy(struct racer *r, bool async)
{
	struct pools *p = r->p;
	__u32 src = LOAD(p->handle[next_rnd(r) % POOL]);
	__u32 dst = LOAD(p->handle[next_rnd(r) % POOL]);
	static char buf[4096];
	__u64 seq = 0;
	int ret;

	if (!dst || (async && !src))
		return 0;	/* an empty slot */
	if (async) {
		ret = neuron_copy_op(p->fd, src, 0, dst, 8192, NULL, NULL, 4096,
				     NEURON_COPY_ASYNC, &seq);
		if (!ret)
			STORE(p->seqno[next_rnd(r) % POOL], seq);
		return ret;
	}
	return neuron_copy_op(p->fd, 0, 0, dst, 0, buf, NULL, sizeof(buf), 0, NULL);
}

static int op_memset(struct racer *r)
{
	struct neuron_memset m = {
		.handle = LOAD(r->p->handle[next_rnd(r) % POOL]),
		.value = 0x5a, .size = 4096, .flags = NEURON_COPY_ASYNC,
	};
	int ret;

	if (!m.handle)
		return 0;
	ret = nio_ioctl(r->p->fd, NEURON_IOCTL_MEMSET, &m);
	if (!ret)
		STORE(r->p->seqno[next_rnd(r) % POOL], m.seqno);
	return ret;
}

static int op_wait(struct racer *r)
{
	/* Taken out of the pool: a number is waited for once. */
	__u64 seq = XCHG(r->p->seqno[next_rnd(r) % POOL], 0);

	if (!seq)
		return op_memset(r);	/* something to wait for next time */
	return neuron_wait_seq(r->p->fd, seq, neuron_now_ns() + 20 * 1000000LL);
}

static int op_notify(struct racer *r, enum op op)
{
	struct neuron_notify_setup s = {
		.nc = next_rnd(r) % 2, .type = NEURON_NOTIFY_COMPLETION, .entries = 16,
		.eventfd = -1,
	};
	struct neuron_notify_wait w = { .nc = s.nc, .type = s.type };
	struct neuron_notify_teardown t = { .nc = s.nc, .type = s.type };
	int ret;

	/*
	 * The pools set the queues up: a setup alone would only ever find
	 * its queue there (-EBUSY). Half the time it takes it down first, so
	 * that setups get through however the threads are scheduled (on 7.x
	 * none did in the other thread's short teardown-to-setup window).
	 */
	if (op == OP_NOTIFY_SETUP) {
		if (next_rnd(r) % 2)
			nio_notify_teardown(r->p->fd, t.nc, t.type);
		return nio_notify_setup_req(r->p->fd, &s);
	}
	if (op == OP_NOTIFY_WAIT)
		return nio_notify_wait_req(r->p->fd, &w);
	/* Torn down, then set up again for the other thread to find. */
	ret = nio_notify_teardown(r->p->fd, t.nc, t.type);
	sched_yield();
	if (!ret)
		ret = nio_notify_setup_req(r->p->fd, &s);
	return ret;
}

/* NC_RESERVE; or NC_RELEASE, mostly followed by NC_RESERVE again. */
static int op_reserve(struct racer *r, bool reserve)
{
	__u64 mask = 1 + next_rnd(r) % 3;
	int ret;

	if (reserve)
		return neuron_reserve(r->p->fd, mask);
	/* Held again soon: the other thread meets both states. */
	ret = neuron_release(r->p->fd, mask);
	sched_yield();
	if (neuron_reserve(r->p->fd, mask))
		return -EPROTO;
	return ret;
}

static int op_sem(struct racer *r)
{
	struct neuron_nc_sem s = {
		.nc = next_rnd(r) % 2, .kind = NEURON_SEM_KIND_SEMAPHORE,
		.index = next_rnd(r) % 4,
		.op = next_rnd(r) % 2 ? NEURON_SEM_INC : NEURON_SEM_READ, .value = 1,
	};

	return nio_nc_sem_req(r->p->fd, &s);
}

static int op_load(struct racer *r)
{
	struct pools *p = r->p;
	unsigned int i = next_rnd(r) % POOL;
	__u32 handle, old;
	int ret;

	ret = neuron_mm_model_load(p->fd, next_rnd(r) % 2, &handle);
	if (ret)
		return ret;
	old = XCHG(p->model[i], handle);
	if (old) {
		ret = neuron_model_unload(p->fd, old);
		if (ret && ret != -ENOENT)
			return -EPROTO;
	}
	return 0;
}

static int op_execute(struct racer *r, bool wait)
{
	struct pools *p = r->p;
	/* Mostly device objects (slots 1 to 3); the host one at times. */
	__u32 bind[2] = {
		LOAD(p->handle[1 + next_rnd(r) % (POOL - 1)]),
		LOAD(p->handle[next_rnd(r) % 8 ? 1 + next_rnd(r) % (POOL - 1) : 0]),
	};
	struct neuron_execute x = {
		.model = LOAD(p->model[next_rnd(r) % POOL]),
		.flags = wait ? NEURON_EXEC_WAIT : 0,
		.bindings = (uintptr_t)bind, .nbindings = 2,
	};
	int ret;

	ret = nio_execute_req(p->fd, &x);
	if (ret)
		return ret;
	if (!wait) {
		STORE(p->seqno[next_rnd(r) % POOL], x.seqno);
		return 0;
	}
	/* Ended, or cancelled by the other thread's NC_RELEASE. */
	return x.status == NEURON_EXEC_OK || x.status == NEURON_EXEC_CANCELLED ?
	       0 : -EPROTO;
}

static int op_mmap(struct racer *r)
{
	unsigned int i = next_rnd(r) % POOL;
	__u64 off = LOAD(r->p->offset[i]);
	unsigned char *m;
	unsigned char c;

	if (!off)
		return op_alloc(r);
	m = mmap(NULL, OBJ_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, r->p->fd, off);
	if (m == MAP_FAILED)
		return -errno;
	/* The mapping keeps the object alive, even if freed meanwhile. */
	c = __atomic_load_n(&m[100], __ATOMIC_RELAXED);
	__atomic_store_n(&m[101], c, __ATOMIC_RELAXED);
	munmap(m, OBJ_SIZE);
	return 0;
}

static int run_op(struct racer *r)
{
	struct pools *p = r->p;
	struct neuron_query q;
	unsigned char buf[512];
	__u32 h;

	switch (r->op) {
	case OP_QUERY:
		neuron_query_prep(&q, next_rnd(r) % NEURON_QUERY_COUNT, buf, sizeof(buf));
		return nio_ioctl(p->fd, NEURON_IOCTL_QUERY, &q);
	case OP_ALLOC:
		return op_alloc(r);
	case OP_FREE:
		/* An empty slot is filled again: the pool never runs dry. */
		h = XCHG(p->handle[next_rnd(r) % POOL], 0);
		return h ? neuron_mem_free(p->fd, h) : op_alloc(r);
	case OP_COPY:
	case OP_COPY_ASYNC:
		return op_copy(r, r->op == OP_COPY_ASYNC);
	case OP_MEMSET:
		return op_memset(r);
	case OP_WAIT:
		return op_wait(r);
	case OP_NOTIFY_SETUP:
	case OP_NOTIFY_WAIT:
	case OP_NOTIFY_TEARDOWN:
		return op_notify(r, r->op);
	case OP_RESERVE:
	case OP_RELEASE:
		return op_reserve(r, r->op == OP_RESERVE);
	case OP_SEM:
		return op_sem(r);
	case OP_LOAD:
		return op_load(r);
	case OP_UNLOAD: {
		struct neuron_model_unload u = {
			.handle = XCHG(p->model[next_rnd(r) % POOL], 0),
		};

		return u.handle ? nio_ioctl(p->fd, NEURON_IOCTL_MODEL_UNLOAD, &u) :
				  op_load(r);
	}
	case OP_EXECUTE:
	case OP_EXECUTE_ASYNC:
		return op_execute(r, r->op == OP_EXECUTE);
	case OP_MMAP:
		return op_mmap(r);
	case OP_COUNT:
		break;
	}
	return -EPROTO;
}

static bool expected(enum op op, int ret)
{
	unsigned int i;

	if (!ret)
		return true;
	for (i = 0; i < 6 && op_errnos[op][i]; i++)
		if (-ret == op_errnos[op][i])
			return true;
	return false;
}

/* One call of @r, counted. */
static void race_once(struct racer *r)
{
	int ret;

	if (r->mixed)
		r->op = next_rnd(r) % OP_COUNT;
	ret = run_op(r);

	r->calls++;
	if (ret) {
		r->refused++;
		r->last_err = ret;
	}
	if (!expected(r->op, ret) && !r->bad++)
		r->bad_err = ret;
}

static void *racer_fn(void *arg)
{
	struct racer *r = arg;

	while (!LOAD(r->p->stop))
		race_once(r);
	return NULL;
}

/*
 * Each pool starts full: a host object and three device objects, NC 0
 * and 1 reserved, a model in each slot (on NC 0 and 1), the COMPLETION
 * queues of NC 0 and 1.
 */
static int pools_fill(struct pools *p)
{
	struct neuron_nc_reserve n = { .nc_mask = 3 };
	struct neuron_mem_alloc a;
	unsigned int i;
	int ret;

	for (i = 0; i < POOL; i++) {
		ret = neuron_mem_alloc(p->fd, i ? NEURON_MEM_DEVICE : NEURON_MEM_HOST,
				       OBJ_SIZE, i % 2, &a);
		if (ret)
			return ret;
		p->handle[i] = a.handle;
		p->offset[i] = a.mmap_offset;
	}
	ret = nio_ioctl(p->fd, NEURON_IOCTL_NC_RESERVE, &n);
	for (i = 0; i < POOL && !ret; i++)
		ret = neuron_mm_model_load(p->fd, i % 2, &p->model[i]);
	for (i = 0; i < 2 && !ret; i++) {
		struct neuron_notify_setup s = {
			.nc = i, .type = NEURON_NOTIFY_COMPLETION, .entries = 16,
			.eventfd = -1,
		};

		ret = nio_notify_setup_req(p->fd, &s);
	}
	return ret;
}

FIXTURE(race) {
	struct neuron_node node;
	struct neuron_device_info info;
};

FIXTURE_SETUP(race)
{
	neuron_setup_node(_metadata, &self->node, "v2", 64);
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &self->info, NULL));
	if (!(self->info.caps & NEURON_CAP_EXEC) || self->info.nc_count < 2) {
		neuron_node_release(&self->node);
		NEURON_SKIP_SETUP("needs NEURON_CAP_EXEC and two NCs");
	}
}

FIXTURE_TEARDOWN(race)
{
	neuron_node_release(&self->node);
}

/* The device's memory in use (from the fixture's file). */
static long long device_bytes(int fd)
{
	struct neuron_mem_usage_buf b;

	if (neuron_query_mem_usage(fd, &b, NULL))
		return -1;
	return (long long)(b.u.device_bytes + b.u.host_bytes);
}

/* Whether every NC is free (from the fixture's file). */
static bool ncs_free(int fd, __u32 nc_count)
{
	struct {
		struct neuron_nc_states h;
		struct neuron_nc_state nc[NEURON_TEST_MAX_NC];
	} s;
	__u32 i;

	if (neuron_query_into(fd, NEURON_QUERY_NC_STATE, &s, sizeof(s), NULL))
		return false;
	for (i = 0; i < nc_count && i < NEURON_TEST_MAX_NC; i++)
		if (s.nc[i].state != NEURON_NC_FREE)
			return false;
	return true;
}

/* Poll up to 5 s for the baseline: releases may end after close(). */
static bool back_to_baseline(int fd, __u32 nc_count, long long bytes, long pin_kb)
{
	int i;

	for (i = 0; i < 500; i++) {
		if (device_bytes(fd) == bytes && ncs_free(fd, nc_count) &&
		    neuron_vm_pinned_kb() == pin_kb)
			return true;
		neuron_sleep_ms(10);
	}
	return false;
}

/* Run @r (this thread) against @other (a new one) for RACE_MS. */
static int race_pair(struct racer *r, struct racer *other)
{
	__s64 end = neuron_now_ns() + RACE_MS * 1000000LL;
	pthread_t t;
	int ret;

	ret = pthread_create(&t, NULL, racer_fn, other);
	if (ret)
		return -ret;
	while (neuron_now_ns() < end)
		race_once(r);
	STORE(r->p->stop, 1);
	pthread_join(t, NULL);
	return 0;
}

/* On a new file: out = 2 * in through the model; 0, or what went wrong. */
static int still_computes(const char *path)
{
	struct neuron_nc_reserve n = { .nc_mask = 1 };
	float in[MM * MM], out[MM * MM];
	struct neuron_mem_alloc ma;
	__u32 bind[2], i;
	struct neuron_execute x = {
		.flags = NEURON_EXEC_WAIT, .bindings = (uintptr_t)bind, .nbindings = 2,
	};
	int fd, ret;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = nio_ioctl(fd, NEURON_IOCTL_NC_RESERVE, &n);
	if (!ret)
		ret = neuron_mm_model_load(fd, 0, &x.model);
	for (i = 0; i < 2 && !ret; i++) {
		ret = neuron_mem_alloc(fd, NEURON_MEM_DEVICE, sizeof(in), 0, &ma);
		bind[i] = ma.handle;
	}
	for (i = 0; i < MM * MM; i++)
		in[i] = (float)i;
	if (!ret)
		ret = neuron_copy_op(fd, 0, 0, bind[0], 0, in, NULL, sizeof(in), 0, NULL);
	if (!ret)
		ret = nio_execute_req(fd, &x);
	if (!ret && x.status != NEURON_EXEC_OK)
		ret = -EIO;
	if (!ret)
		ret = neuron_copy_op(fd, bind[1], 0, 0, 0, NULL, out, sizeof(out), 0, NULL);
	for (i = 0; i < MM * MM && !ret; i++)
		if (out[i] != 2.0f * in[i])
			ret = -EDOM;
	close(fd);
	return ret;
}

TEST_F_TIMEOUT(race, every_pair, 280)
{
	unsigned int a, b, k, pairs = 0, failed = 0;
	unsigned long long calls[OP_COUNT] = { 0 }, refused[OP_COUNT] = { 0 };
	int last_err[OP_COUNT] = { 0 };
	long long bytes = device_bytes(self->node.fd);
	long pin_kb = neuron_vm_pinned_kb();
	__s64 t0 = neuron_now_ns();
	int ret;

	ASSERT_LE(0, bytes);
	ASSERT_TRUE(ncs_free(self->node.fd, self->info.nc_count));
	for (a = 0; a < OP_COUNT; a++) {
		for (b = a; b < OP_COUNT; b++) {
			struct pools p = { .nc_count = self->info.nc_count };
			struct racer r[2] = {
				{ .p = &p, .op = a, .rnd = 2463534242U + a },
				{ .p = &p, .op = b, .rnd = 88675123U + b },
			};

			p.fd = open(self->node.path, O_RDWR | O_CLOEXEC);
			ASSERT_LE(0, p.fd);
			ret = pools_fill(&p);
			ASSERT_EQ(0, ret) TH_LOG("setting up: %s", strerror(-ret));
			ret = race_pair(&r[0], &r[1]);
			ASSERT_EQ(0, ret) TH_LOG("pthread_create: %s", strerror(-ret));
			close(p.fd);
			pairs++;
			for (k = 0; k < 2; k++) {
				calls[r[k].op] += r[k].calls;
				refused[r[k].op] += r[k].refused;
				if (r[k].last_err)
					last_err[r[k].op] = r[k].last_err;
				if (!r[k].bad)
					continue;
				failed++;
				TH_LOG("%s against %s: %u of %u calls of %s ended %d (%s)",
				       op_name[a], op_name[b], r[k].bad, r[k].calls,
				       op_name[r[k].op], r[k].bad_err, strerror(-r[k].bad_err));
			}
			if (back_to_baseline(self->node.fd, self->info.nc_count, bytes, pin_kb))
				continue;
			failed++;
			TH_LOG("%s against %s: not back to the baseline after close", op_name[a],
			       op_name[b]);
			TH_LOG("%lld bytes in use (was %lld), NCs %s, VmPin %ld kB (was %ld)",
			       device_bytes(self->node.fd), bytes,
			       ncs_free(self->node.fd, self->info.nc_count) ? "free" : "not free",
			       neuron_vm_pinned_kb(), pin_kb);
		}
	}
	for (a = 0; a < OP_COUNT; a++) {
		TH_LOG("%-16s %9llu calls, %9llu refused (the last: %s)", op_name[a], calls[a],
		       refused[a], last_err[a] ? strerror(-last_err[a]) : "-");
		/* Each call ran, and got through at least once. */
		EXPECT_LT(refused[a], calls[a]);
	}
	TH_LOG("%u pairs in %lld ms", pairs, (long long)((neuron_now_ns() - t0) / 1000000));
	EXPECT_EQ(OP_COUNT * (OP_COUNT + 1) / 2, (int)pairs);
	EXPECT_EQ(0U, failed);
	ret = still_computes(self->node.path);
	EXPECT_EQ(0, ret) TH_LOG("a matmul on a new file: %s", strerror(-ret));
}

#define KILL_ROUNDS	24U

/*
 * A process making random calls from two threads is killed (SIGKILL) at a
 * random point, KILL_ROUNDS times: each time, once it is reaped, the
 * device's memory in use and the NCs' state are back at their baseline,
 * and at the end a new file still computes.
 */
TEST_F_TIMEOUT(race, sigkill_mid_call, 120)
{
	long long bytes = device_bytes(self->node.fd);
	long pin_kb = neuron_vm_pinned_kb();
	unsigned int round, killed = 0;
	int status, ret;
	pid_t pid;

	ASSERT_LE(0, bytes);
	for (round = 0; round < KILL_ROUNDS; round++) {
		pid = neuron_fork(_metadata);
		if (!pid) {
			struct pools p = { .nc_count = self->info.nc_count };
			struct racer r[2] = {
				{ .p = &p, .rnd = 2463534242U + round, .mixed = true },
				{ .p = &p, .rnd = 88675123U + round, .mixed = true },
			};
			pthread_t t;

			p.fd = open(self->node.path, O_RDWR | O_CLOEXEC);
			if (p.fd < 0 || pools_fill(&p) ||
			    pthread_create(&t, NULL, racer_fn, &r[1]))
				_exit(2);
			for (;;)
				race_once(&r[0]);
		}
		/* 10 to 70 ms into its calls (it needs some to set up). */
		neuron_sleep_ms(10 + (round * 37) % 61);
		ASSERT_EQ(0, kill(pid, SIGKILL));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		killed += WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
		EXPECT_TRUE(WIFSIGNALED(status))
			TH_LOG("round %u: the child exited with %d", round, WEXITSTATUS(status));
		if (!back_to_baseline(self->node.fd, self->info.nc_count, bytes, pin_kb)) {
			TH_LOG("round %u: %lld bytes in use (was %lld), NCs %s", round,
			       device_bytes(self->node.fd), bytes,
			       ncs_free(self->node.fd, self->info.nc_count) ? "free" : "not free");
			EXPECT_TRUE(false);
		}
	}
	EXPECT_EQ(KILL_ROUNDS, killed);
	ret = still_computes(self->node.path);
	EXPECT_EQ(0, ret) TH_LOG("a matmul on a new file: %s", strerror(-ret));
}

TEST_HARNESS_MAIN
