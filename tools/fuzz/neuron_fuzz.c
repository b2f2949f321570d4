// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_fuzz: a coverage-guided fuzzer of the driver's userspace API, run
 * inside a VM of the debug test kernel (docs/testing.md, "Fuzzing").
 *
 * The engine is libFuzzer; the feedback is the kernel's own coverage. The
 * calling thread has KCOV enabled (/sys/kernel/debug/kcov, KCOV_TRACE_PC):
 * only neuron.ko and neuron_sim.ko are instrumented (the Kbuild switch
 * NEURON_KCOV=1), so every PC in the buffer is the driver's. After each
 * input the PCs, and the pairs of consecutive PCs, are hashed into an array
 * in the section libFuzzer reads as extra counters, which makes a new
 * kernel path a new feature of the input.
 *
 * An input is a program: a sequence of calls decoded from its bytes. Every
 * ioctl of uapi/neuron.h with structured arguments, mmap() of the offsets
 * they return (touched under a SIGSEGV/SIGBUS guard), the generic netlink
 * family's commands, open, dup, close, fork (the child uses the inherited
 * files and exits) and the removal of a simulated device (neuron_sim's
 * del_device knob). Handles, models, sequence numbers and mmap offsets are
 * taken from earlier calls (a selector byte picks one, or a raw value).
 *
 * An input fails (abort(): libFuzzer keeps it as crash-*) on:
 *   - a kernel splat: a new /dev/kmsg record that reads like a report
 *     (BUG, WARNING, KASAN, UBSAN, lockdep, ...), or a new taint bit;
 *   - a hang: one call longer than NEURON_FUZZ_CALL_MS (default 20000 ms,
 *     TCG under load), seen by a watchdog thread; a forked child that does
 *     not end in that time;
 *   - accounting: after the sequence, with every file closed, the devices'
 *     memory (NEURON_QUERY_MEM_USAGE: device and host bytes), the NC
 *     states (NEURON_QUERY_NC_STATE) and the models loaded per NC (netlink
 *     NEURON_CMD_NC_GET) are not back to the values before the run.
 * NEURON_FUZZ_LEAK=1 keeps one file with 4 KiB of host memory open after
 * each sequence, so the accounting check must fail (the check's proof that
 * it can).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/kcov.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "neuron.h"
#include "neuron_netlink.h"
#include "neuron_lib.h"

/* ---- KCOV into libFuzzer's extra counters ---- */

#define NF_COUNTERS	65536
#define NF_COVER	262144	/* PCs per input kept by KCOV */
#define NF_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

__attribute__((section("__libfuzzer_extra_counters"), used))
static uint8_t nf_counters[NF_COUNTERS];

static unsigned long *nf_cover;	/* [0]: count, then the PCs */
static unsigned long nf_pcs_total, nf_pcs_max;

static int nf_kcov_open(void)
{
	int fd = open("/sys/kernel/debug/kcov", O_RDWR);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, KCOV_INIT_TRACE, NF_COVER))
		return -errno;
	nf_cover = mmap(NULL, NF_COVER * sizeof(unsigned long), PROT_READ | PROT_WRITE,
			MAP_SHARED, fd, 0);
	if (nf_cover == MAP_FAILED)
		return -errno;
	if (ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
		return -errno;
	return 0;
}

static inline uint32_t nf_hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (uint32_t)x;
}

static void nf_kcov_start(void)
{
	if (nf_cover)
		__atomic_store_n(&nf_cover[0], 0, __ATOMIC_RELAXED);
}

/* Each PC and each pair (previous, this) bumps one counter. */
static void nf_kcov_collect(void)
{
	unsigned long n, i, prev = 0;

	if (!nf_cover)
		return;
	n = __atomic_load_n(&nf_cover[0], __ATOMIC_RELAXED);
	if (n > NF_COVER - 1)
		n = NF_COVER - 1;
	for (i = 0; i < n; i++) {
		unsigned long pc = nf_cover[i + 1];
		uint32_t a = nf_hash(pc) % NF_COUNTERS;
		uint32_t e = (nf_hash(pc) ^ (nf_hash(prev) >> 1)) % NF_COUNTERS;

		if (nf_counters[a] < 255)
			nf_counters[a]++;
		if (nf_counters[e] < 255)
			nf_counters[e]++;
		prev = pc;
	}
	nf_pcs_total += n;
	if (n > nf_pcs_max)
		nf_pcs_max = n;
}

/* ---- failing ---- */

static __attribute__((noreturn, format(printf, 1, 2))) void nf_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "neuron_fuzz: FAIL: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* The watchdog: one call may take at most nf_call_ms. */
static unsigned long nf_call_ms = 20000;
/* Shared with the watchdog thread: atomic loads and stores. */
static const char *nf_call_name;
static uint64_t nf_call_start;	/* ms, 0: not in a call */

static uint64_t nf_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t nf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *nf_watchdog(void *arg)
{
	(void)arg;
	for (;;) {
		uint64_t s = __atomic_load_n(&nf_call_start, __ATOMIC_RELAXED);

		if (s && nf_now_ms() - s > nf_call_ms) {
			fprintf(stderr, "neuron_fuzz: FAIL: hang: %s did not return in %lu ms\n",
				__atomic_load_n(&nf_call_name, __ATOMIC_RELAXED), nf_call_ms);
			abort();
		}
		usleep(100000);
	}
	return NULL;
}

#define NF_CALL(name, expr) ({				\
	long __r;					\
	__atomic_store_n(&nf_call_name, (name), __ATOMIC_RELAXED);	\
	__atomic_store_n(&nf_call_start, nf_now_ms(), __ATOMIC_RELAXED);	\
	__r = (expr);					\
	__atomic_store_n(&nf_call_start, 0, __ATOMIC_RELAXED);	\
	__r; })

/* Kernel reports: new /dev/kmsg records and taint bits. */
static int nf_kmsg = -1;
static unsigned long nf_taint0;

static unsigned long nf_taint(void)
{
	char buf[32] = "";

	neuron_read_text("/proc/sys/kernel/tainted", buf, sizeof(buf));
	return strtoul(buf, NULL, 10);
}

static const char *const nf_splats[] = {
	"BUG:", "WARNING:", "KASAN", "UBSAN", "kernel BUG", "Oops", "general protection",
	"possible circular locking", "possible recursive locking", "inconsistent lock state",
	"suspicious RCU usage", "lock held when returning", "ODEBUG", "refcount_t:",
	"list_add corruption", "list_del corruption", "INFO: task", "hung task",
	"Unable to handle", "stack-protector", "rcu_sched detected stall",
	"sleeping function called from invalid context", "BUG kmalloc",
};

static void nf_splat_check(void)
{
	char rec[2048];
	ssize_t n;
	unsigned long t;
	size_t i;

	while (nf_kmsg >= 0 && (n = read(nf_kmsg, rec, sizeof(rec) - 1)) != 0) {
		if (n < 0) {
			if (errno == EPIPE)	/* records overwritten: go on */
				continue;
			break;	/* EAGAIN: nothing new */
		}
		rec[n] = '\0';
		for (i = 0; i < NF_ARRAY_SIZE(nf_splats); i++)
			if (strstr(rec, nf_splats[i]))
				nf_fail("kernel splat: %s", rec);
	}
	t = nf_taint();
	if (t != nf_taint0)
		nf_fail("kernel taint changed: %lu -> %lu", nf_taint0, t);
}

/* ---- decoding ---- */

struct nf_in {
	const uint8_t *p;
	size_t n;
};

static uint64_t nf_bytes(struct nf_in *in, size_t k)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < k && in->n; i++, in->p++, in->n--)
		v |= (uint64_t)*in->p << (8 * i);
	return v;
}

#define U8(in)	((uint8_t)nf_bytes(in, 1))
#define U16(in)	((uint16_t)nf_bytes(in, 2))
#define U32(in)	((uint32_t)nf_bytes(in, 4))
#define U64(in)	(nf_bytes(in, 8))

/* Mostly one of @tab, sometimes a raw value. */
static uint64_t nf_pick64(struct nf_in *in, const uint64_t *tab, size_t n)
{
	uint8_t s = U8(in);

	if (s >= 0xf0)
		return U64(in);
	return tab[s % n];
}

#define PICK(in, t) nf_pick64(in, t, NF_ARRAY_SIZE(t))

/* A byte below @mod, or (0xff) a raw 32-bit value. */
static uint32_t nf_small(struct nf_in *in, uint32_t mod)
{
	uint8_t s = U8(in);

	return s == 0xff ? U32(in) : s % mod;
}

/* A zero field, rarely not: the must-be-zero checks. */
static uint32_t nf_rare(struct nf_in *in)
{
	uint8_t s = U8(in);

	return s >= 0xfa ? U32(in) | 1 : 0;
}

/* A deadline: past, now, or a few ms ahead (never a long wait). */
static int64_t nf_deadline(struct nf_in *in)
{
	switch (U8(in) % 5) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return nf_now_ns();
	case 3:
		return nf_now_ns() + 1000000LL * (U8(in) % 20);
	default:
		return -(int64_t)U32(in);
	}
}

/* ---- the state of one input ---- */

#define NF_DEVS		2
#define NF_FDS		4
#define NF_OBJS		16
#define NF_MAPS		8
#define NF_CHILD_MS	20000

static struct neuron_node nf_dev[NF_DEVS];
static bool nf_removed[NF_DEVS];
static const char *const nf_arch[NF_DEVS] = { "v2", "v3" };

struct nf_obj {
	uint32_t id;		/* handle, model or 0 */
	uint64_t off, size;	/* mmap offset and size of memory and rings */
	uint64_t seqno;
};

static struct nf_state {
	int fd[NF_FDS];
	int efd;
	struct nf_obj mem[NF_OBJS], model[NF_OBJS], ring[NF_OBJS];
	uint64_t seq[NF_OBJS];
	unsigned int nmem, nmodel, nring, nseq;
	struct { void *p; size_t len; } map[NF_MAPS];
} st;

static int nf_nl = -1;
static uint16_t nf_family;
static uint8_t nf_buf[65536];	/* user memory the calls point into */

static void nf_add(struct nf_obj *tab, unsigned int *n, struct nf_obj o)
{
	tab[*n % NF_OBJS] = o;
	(*n)++;
}

static struct nf_obj nf_get(struct nf_in *in, const struct nf_obj *tab, unsigned int n)
{
	uint8_t s = U8(in);
	struct nf_obj o = { 0 };

	if (s >= 0xf0 || !n) {
		o.id = s >= 0xf8 ? U32(in) : U8(in);
		o.off = (uint64_t)U16(in) << 12;
		o.size = 4096;
		return o;
	}
	return tab[s % (n < NF_OBJS ? n : NF_OBJS)];
}

static int nf_fd(struct nf_in *in)
{
	uint8_t s = U8(in);

	if (s == 0xff)
		return -1;
	return st.fd[s % NF_FDS];
}

static int nf_ioctl(const char *name, int fd, unsigned long cmd, void *arg)
{
	if (fd < 0)
		return -EBADF;
	return NF_CALL(name, ioctl(fd, cmd, arg)) ? -errno : 0;
}

/* ---- generic netlink ---- */

static int nf_nl_send(uint8_t cmd, uint16_t flags, const void *attrs, size_t alen)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		uint8_t a[256];
	} m;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	if (alen > sizeof(m.a))
		alen = sizeof(m.a);
	memset(&m, 0, sizeof(m));
	m.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + alen);
	m.n.nlmsg_type = nf_family;
	m.n.nlmsg_flags = NLM_F_REQUEST | flags;
	m.g.cmd = cmd;
	m.g.version = NEURON_GENL_VERSION;
	memcpy(m.a, attrs, alen);
	return sendto(nf_nl, &m, m.n.nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to)) < 0 ?
		-errno : 0;
}

/*
 * Read the answers until NLMSG_DONE or an error message (or nothing more),
 * calling @fn for each message of the family.
 */
static int nf_nl_recv(void (*fn)(const struct nlmsghdr *, void *), void *ctx)
{
	static uint8_t buf[32768];
	int err = 0;

	for (;;) {
		struct pollfd p = { .fd = nf_nl, .events = POLLIN };
		struct nlmsghdr *h;
		ssize_t n;

		if (poll(&p, 1, 2000) <= 0)
			return -ETIMEDOUT;
		n = recv(nf_nl, buf, sizeof(buf), 0);
		if (n < 0)
			return -errno;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return err;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				return e->error;
			}
			if (fn)
				fn(h, ctx);
			if (!(h->nlmsg_flags & NLM_F_MULTI))
				return 0;
		}
	}
}

/* Append attribute @type with @len bytes of @data at @p; its new end. */
static uint8_t *nf_attr(uint8_t *p, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)p;

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy(p + NLA_HDRLEN, data, len);
	return p + NLA_ALIGN(a->nla_len);
}

/*
 * The value of attribute @type (at least @size bytes) of the generic netlink
 * message @h, or NULL.
 */
static const void *nf_attr_get(const struct nlmsghdr *h, uint16_t type, int size)
{
	const uint8_t *p = (const uint8_t *)NLMSG_DATA(h) + GENL_HDRLEN;
	int len = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const void *)p;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
			return NULL;
		if (a->nla_type == type && a->nla_len >= NLA_HDRLEN + size)
			return p + NLA_HDRLEN;
		len -= NLA_ALIGN(a->nla_len);
		p += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

static void nf_family_cb(const struct nlmsghdr *h, void *ctx)
{
	const uint16_t *id = nf_attr_get(h, CTRL_ATTR_FAMILY_ID, 2);

	if (id)
		*(uint16_t *)ctx = *id;
}

static int nf_nl_open(void)
{
	uint8_t attrs[64], *e;
	uint16_t fam = 0;
	uint16_t saved;

	nf_nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nf_nl < 0)
		return -errno;
	e = nf_attr(attrs, CTRL_ATTR_FAMILY_NAME, NEURON_GENL_NAME, sizeof(NEURON_GENL_NAME));
	saved = nf_family;
	nf_family = GENL_ID_CTRL;
	if (nf_nl_send(CTRL_CMD_GETFAMILY, 0, attrs, e - attrs) ||
	    nf_nl_recv(nf_family_cb, &fam) || !fam) {
		nf_family = saved;
		return -ENOENT;
	}
	nf_family = fam;
	return 0;
}

/* ---- accounting ---- */

struct nf_acct {
	uint64_t dev_bytes[NF_DEVS], host_bytes[NF_DEVS];
	uint32_t busy_ncs[NF_DEVS];
	uint64_t models;	/* NEURON_A_NC_MODELS over the NCs of our devices */
};

static void nf_models_cb(const struct nlmsghdr *h, void *ctx)
{
	const uint32_t *dev = nf_attr_get(h, NEURON_A_DEV_INDEX, 4);
	const uint32_t *models = nf_attr_get(h, NEURON_A_NC_MODELS, 4);
	int i;

	for (i = 0; dev && models && i < NF_DEVS; i++)
		if (*dev == nf_dev[i].minor)
			*(uint64_t *)ctx += *models;
}

static int nf_acct_read(struct nf_acct *a)
{
	struct neuron_mem_usage_buf mu;
	struct neuron_nc_states_buf ns;
	unsigned int i, j;
	__u32 size;
	int fd, r;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < NF_DEVS; i++) {
		fd = open(nf_dev[i].path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		r = neuron_query_mem_usage(fd, &mu, &size);
		if (!r)
			r = neuron_query_nc_states(fd, &ns, &size);
		close(fd);
		if (r)
			return r;
		a->dev_bytes[i] = mu.u.device_bytes;
		a->host_bytes[i] = mu.u.host_bytes;
		for (j = 0; j < ns.h.nc_count && j < NEURON_TEST_MAX_NC; j++)
			a->busy_ncs[i] += ns.nc[j].state != NEURON_NC_FREE;
	}
	if (nf_nl < 0)
		return 0;
	r = nf_nl_send(NEURON_CMD_NC_GET, NLM_F_DUMP, NULL, 0);
	return r ? r : nf_nl_recv(nf_models_cb, &a->models);
}

static struct nf_acct nf_base;

static void nf_acct_check(void)
{
	struct nf_acct a;
	unsigned int i;
	int r, tries;

	/* Memory a finished job or execution held is freed by a worker: wait. */
	for (tries = 0; tries < 100; tries++) {
		r = nf_acct_read(&a);
		if (r)
			nf_fail("accounting: cannot read the counters (%d)", r);
		if (!memcmp(&a, &nf_base, sizeof(a)))
			return;
		usleep(20000);
	}
	for (i = 0; i < NF_DEVS; i++)
		fprintf(stderr,
			"neuron_fuzz: %s: device bytes %llu (%llu before), host bytes %llu (%llu before), NCs not free %u (%u before)\n",
			nf_dev[i].path, (unsigned long long)a.dev_bytes[i],
			(unsigned long long)nf_base.dev_bytes[i],
			(unsigned long long)a.host_bytes[i],
			(unsigned long long)nf_base.host_bytes[i], a.busy_ncs[i],
			nf_base.busy_ncs[i]);
	fprintf(stderr, "neuron_fuzz: models loaded %llu (before %llu)\n",
		(unsigned long long)a.models, (unsigned long long)nf_base.models);
	nf_fail("accounting: not back to the baseline 2 s after the sequence");
}

/* ---- the calls ---- */

static void op_open(struct nf_in *in)
{
	static const int modes[] = { O_RDWR, O_RDONLY, O_WRONLY, O_RDWR | O_NONBLOCK };
	unsigned int d = U8(in) % NF_DEVS, slot = U8(in) % NF_FDS;
	int fd;

	if (st.fd[slot] >= 0 || nf_removed[d])
		return;
	fd = NF_CALL("open", open(nf_dev[d].path, modes[U8(in) % 4] | O_CLOEXEC));
	st.fd[slot] = fd;
}

static void op_close(struct nf_in *in)
{
	unsigned int slot = U8(in) % NF_FDS;

	if (st.fd[slot] >= 0)
		NF_CALL("close", close(st.fd[slot]));
	st.fd[slot] = -1;
}

static void op_dup(struct nf_in *in)
{
	unsigned int from = U8(in) % NF_FDS, to = U8(in) % NF_FDS;

	if (st.fd[from] >= 0 && st.fd[to] < 0)
		st.fd[to] = dup(st.fd[from]);
}

static void op_query(struct nf_in *in)
{
	static const uint64_t sizes[] = { 0, 4, 8, 16, sizeof(struct neuron_device_info),
		sizeof(struct neuron_mem_usage), 64, 4096 };
	struct neuron_query q = { 0 };
	unsigned int i;

	q.op = U8(in) % (NEURON_QUERY_COUNT + 1);
	q.flags = nf_rare(in);
	q.size = PICK(in, sizes);
	if (q.size > sizeof(nf_buf))
		q.size = sizeof(nf_buf);
	q.data = U8(in) == 0xff ? 0 : (uintptr_t)nf_buf;
	q.pad = nf_rare(in);
	i = U8(in) & 1;
	q.reserved[i] = nf_rare(in);
	nf_ioctl("QUERY", nf_fd(in), NEURON_IOCTL_QUERY, &q);
}

static void op_mem_alloc(struct nf_in *in)
{
	static const uint64_t sizes[] = { 1, 4096, 8192, 65536, 1 << 20, 4 << 20, 0,
		~0ULL, 12345 };
	static const uint64_t aligns[] = { 0, 4096, 65536, 2 << 20, 3, 1ULL << 30 };
	static const uint64_t chans[] = { NEURON_MEM_CHANNEL_ANY, 0, 1, 2, 3, 4 };
	struct neuron_mem_alloc a = { 0 };
	int fd;

	a.size = PICK(in, sizes);
	a.align = PICK(in, aligns);
	a.kind = U8(in) % 3;
	a.nc = U8(in) % 10;
	a.channel = PICK(in, chans);
	a.flags = nf_rare(in);
#ifdef NEURON_MEM_USAGE_COUNT
	a.usage = nf_small(in, NEURON_MEM_USAGE_COUNT + 1);	/* uapi 1.1: the category */
#else
	a.pad = nf_rare(in);
#endif
	fd = nf_fd(in);
	if (!nf_ioctl("MEM_ALLOC", fd, NEURON_IOCTL_MEM_ALLOC, &a))
		nf_add(st.mem, &st.nmem, (struct nf_obj){ a.handle, a.mmap_offset, a.size, 0 });
}

static void op_mem_free(struct nf_in *in)
{
	struct neuron_mem_free f = { 0 };

	f.handle = nf_get(in, st.mem, st.nmem).id;
	f.flags = nf_rare(in);
	nf_ioctl("MEM_FREE", nf_fd(in), NEURON_IOCTL_MEM_FREE, &f);
}

/* A user pointer: into nf_buf, NULL, or an address nothing is mapped at. */
static uint64_t nf_uptr(struct nf_in *in)
{
	uint8_t s = U8(in);

	if (s == 0xff)
		return 0;
	if (s == 0xfe)
		return 0xdead0000;
	return (uintptr_t)nf_buf + (U16(in) % 4096);
}

static uint64_t nf_off(struct nf_in *in)
{
	static const uint64_t offs[] = { 0, 4, 4096, 8192, 65536, 1 << 20, ~0ULL, ~0ULL - 4095 };

	return PICK(in, offs);
}

static uint64_t nf_size(struct nf_in *in)
{
	static const uint64_t sizes[] = { 0, 1, 4, 4096, 8192, 65536, 60000, ~0ULL };

	return PICK(in, sizes);
}

static void op_copy(struct nf_in *in)
{
	struct neuron_copy c = { 0 };
	uint8_t how = U8(in);

	c.src_handle = how & 1 ? nf_get(in, st.mem, st.nmem).id : 0;
	c.dst_handle = how & 2 ? nf_get(in, st.mem, st.nmem).id : 0;
	c.src_offset = nf_off(in);
	c.dst_offset = nf_off(in);
	c.src_ptr = how & 1 && !(how & 4) ? 0 : nf_uptr(in);
	c.dst_ptr = how & 2 && !(how & 8) ? 0 : nf_uptr(in);
	c.size = nf_size(in);
	if (c.size > 4096 && (c.src_ptr || c.dst_ptr) && c.size != ~0ULL)
		c.size = 4096;	/* the buffer's room */
	c.flags = (how >> 4) & 1 ? NEURON_COPY_ASYNC : nf_rare(in);
	c.pad = nf_rare(in);
	if (!nf_ioctl("COPY", nf_fd(in), NEURON_IOCTL_COPY, &c) && c.seqno)
		st.seq[st.nseq++ % NF_OBJS] = c.seqno;
}

static void op_memset(struct nf_in *in)
{
	struct neuron_memset m = { 0 };

	m.handle = nf_get(in, st.mem, st.nmem).id;
	m.value = nf_small(in, 256);
	m.offset = nf_off(in);
	m.size = nf_size(in);
	m.flags = U8(in) & 1 ? NEURON_COPY_ASYNC : nf_rare(in);
	m.pad = nf_rare(in);
	if (!nf_ioctl("MEMSET", nf_fd(in), NEURON_IOCTL_MEMSET, &m) && m.seqno)
		st.seq[st.nseq++ % NF_OBJS] = m.seqno;
}

static void op_wait(struct nf_in *in)
{
	struct neuron_wait w = { 0 };
	uint8_t s = U8(in);

	if (s < 0xf0 && st.nseq)
		w.seqno = st.seq[s % (st.nseq < NF_OBJS ? st.nseq : NF_OBJS)];
	else
		w.seqno = U64(in);
	w.timeout_ns = nf_deadline(in);
	w.flags = nf_rare(in);
	w.pad = nf_rare(in);
	nf_ioctl("WAIT", nf_fd(in), NEURON_IOCTL_WAIT, &w);
}

static void op_notify_setup(struct nf_in *in)
{
	static const uint64_t entries[] = { NEURON_NOTIFY_MIN_ENTRIES, 32, 1024,
		NEURON_NOTIFY_MAX_ENTRIES, 0, 17, 1 << 20 };
	struct neuron_notify_setup s = { 0 };

	s.nc = U8(in) % 10;
	s.type = U8(in) % (NEURON_NOTIFY_TYPES + 1);
	s.entries = PICK(in, entries);
	s.flags = nf_rare(in);
	switch (U8(in) % 4) {
	case 0:
		s.eventfd = st.efd;
		break;
	case 1:
		s.eventfd = 0;	/* not an eventfd */
		break;
	case 2:
		s.eventfd = 1000;	/* not open */
		break;
	default:
		s.eventfd = -1;
		break;
	}
	s.pad = nf_rare(in);
	if (!nf_ioctl("NOTIFY_SETUP", nf_fd(in), NEURON_IOCTL_NOTIFY_SETUP, &s)) {
		struct nf_obj r = { s.nc | s.type << 8, s.mmap_offset, s.mmap_size, 0 };

		nf_add(st.ring, &st.nring, r);
	}
}

static void op_notify_wait(struct nf_in *in)
{
	struct neuron_notify_wait w = { 0 };
	struct nf_obj r = nf_get(in, st.ring, st.nring);

	w.nc = r.id & 0xff;
	w.type = r.id >> 8;
	w.consumed = nf_small(in, 256);
	w.flags = nf_rare(in);
	w.timeout_ns = nf_deadline(in);
	nf_ioctl("NOTIFY_WAIT", nf_fd(in), NEURON_IOCTL_NOTIFY_WAIT, &w);
}

static void op_notify_teardown(struct nf_in *in)
{
	struct neuron_notify_teardown t = { 0 };
	struct nf_obj r = nf_get(in, st.ring, st.nring);

	t.nc = r.id & 0xff;
	t.type = r.id >> 8;
	t.flags = nf_rare(in);
	t.pad = nf_rare(in);
	nf_ioctl("NOTIFY_TEARDOWN", nf_fd(in), NEURON_IOCTL_NOTIFY_TEARDOWN, &t);
}

static void op_nc_reserve(struct nf_in *in, bool release)
{
	struct neuron_nc_reserve r = { 0 };
	uint8_t s = U8(in);

	r.nc_mask = s == 0xff ? U64(in) : s;
	r.flags = nf_rare(in);
	r.pad = nf_rare(in);
	if (release)
		nf_ioctl("NC_RELEASE", nf_fd(in), NEURON_IOCTL_NC_RELEASE, &r);
	else
		nf_ioctl("NC_RESERVE", nf_fd(in), NEURON_IOCTL_NC_RESERVE, &r);
}

static void op_nc_sem(struct nf_in *in)
{
	struct neuron_nc_sem s = { 0 };

	s.nc = U8(in) % 10;
	s.kind = U8(in) % 3;
	s.index = U8(in) % 70;
	s.op = U8(in) % 6;
	s.value = nf_small(in, 8);
	s.flags = nf_rare(in);
	s.timeout_ns = s.op == NEURON_SEM_WAIT ? nf_deadline(in) : (int64_t)nf_rare(in);
	nf_ioctl("NC_SEM", nf_fd(in), NEURON_IOCTL_NC_SEM, &s);
}

static void op_model_load(struct nf_in *in)
{
	static const uint8_t ops[] = { NEURON_TPB_END, NEURON_TPB_JUMP, NEURON_TPB_COPY,
		NEURON_TPB_MATMUL, NEURON_TPB_ACT, NEURON_TPB_POOL, NEURON_TPB_TT, NEURON_TPB_TS,
		NEURON_TPB_SEM_SIGNAL, NEURON_TPB_SEM_WAIT, NEURON_TPB_EVENT_SET,
		NEURON_TPB_EVENT_WAIT, NEURON_TPB_NOTIFY, 0x00, 0xff };
	static struct neuron_tpb_insn insns[4][8];
	static struct neuron_model_block blocks[5];
	static struct neuron_model_slot slots[4];
	struct neuron_model_load l = { 0 };
	unsigned int b, i, nb = 1 + U8(in) % 4, ns = U8(in) % 5;

	memset(insns, 0, sizeof(insns));
	for (b = 0; b < nb && b < 4; b++) {
		unsigned int n = 1 + U8(in) % 8;

		for (i = 0; i < n; i++) {
			struct neuron_tpb_insn *x = &insns[b][i];

			x->opcode = i == n - 1 && U8(in) < 0xe0 ? NEURON_TPB_END :
				ops[U8(in) % sizeof(ops)];
			x->dtype = U8(in) % 3;
			x->func = U8(in);
			x->func = x->func >= 0xf0 ? (x->func % 6) | NEURON_TPB_BCAST : x->func % 6;
			x->flags = nf_rare(in);
			x->imm = nf_small(in, 16);
			x->m = U8(in) % 17;
			x->k = U8(in) % 17;
			x->n = U8(in) % 17;
			x->index = U8(in) % 66;
			x->dst.region = U8(in) % 7;
			x->dst.offset = (U16(in) % 1024) * 4;
			x->a.region = U8(in) % 7;
			x->a.offset = (U16(in) % 1024) * 4;
			x->b.region = U8(in) % 7;
			x->b.offset = (U16(in) % 1024) * 4;
		}
		blocks[b].insns = (uintptr_t)insns[b];
		blocks[b].count = U8(in) == 0xff ? U32(in) : n;
		blocks[b].engine = U8(in) % (NEURON_ENGINES + 1);
	}
	for (i = 0; i < ns; i++) {
		memset(&slots[i], 0, sizeof(slots[i]));
		slots[i].size = (U8(in) % 65) * 64;
		slots[i].kind = U8(in) % 3;
		slots[i].dtype = U8(in) % 3;
		slots[i].ndim = U8(in) % 6;
		slots[i].shape[0] = U8(in) % 33;
		slots[i].shape[1] = U8(in) % 33;
		slots[i].name = U32(in);
	}
	l.nc = U8(in) % 10;
	l.flags = nf_rare(in);
	l.blocks = U8(in) == 0xff ? 0 : (uintptr_t)blocks;
	l.nblocks = U8(in) == 0xff ? 6 : nb;
	l.slots = ns ? (uintptr_t)slots : 0;
	l.nslots = U8(in) == 0xff ? 65 : ns;
	l.data_size = (U8(in) % 17) * 256;
	l.data = l.data_size ? (uintptr_t)nf_buf : 0;
	l.scratch_size = (U8(in) % 17) * 1024;
	l.pad = nf_rare(in);
	if (!nf_ioctl("MODEL_LOAD", nf_fd(in), NEURON_IOCTL_MODEL_LOAD, &l))
		nf_add(st.model, &st.nmodel, (struct nf_obj){ l.handle, 0, 0, 0 });
}

static void op_model_unload(struct nf_in *in)
{
	struct neuron_model_unload u = { 0 };

	u.handle = nf_get(in, st.model, st.nmodel).id;
	u.flags = nf_rare(in);
	nf_ioctl("MODEL_UNLOAD", nf_fd(in), NEURON_IOCTL_MODEL_UNLOAD, &u);
}

static void op_execute(struct nf_in *in)
{
	struct neuron_execute e = { 0 };
	static uint32_t bind[9];
	unsigned int i, t, n = U8(in) % 9;

	e.model = nf_get(in, st.model, st.nmodel).id;
	for (i = 0; i < n; i++)
		bind[i] = nf_get(in, st.mem, st.nmem).id;
	e.flags = U8(in) & 1 ? NEURON_EXEC_WAIT : nf_rare(in);
	e.bindings = n ? (uintptr_t)bind : (U8(in) == 0xff ? 0xdead0000 : 0);
	e.nbindings = U8(in) == 0xff ? 65 : n;
	t = U8(in);
	e.timeout_ms = t == 0xff ? 600001 : t % 4 == 0 ? 0 : t % 200;
	e.pad = nf_rare(in);
	if (!nf_ioctl("EXECUTE", nf_fd(in), NEURON_IOCTL_EXECUTE, &e) && e.seqno)
		st.seq[st.nseq++ % NF_OBJS] = e.seqno;
}

static sigjmp_buf nf_touch_jmp;
static int nf_touching;	/* atomic: read by the signal handler */

static void nf_touch_fault(int sig)
{
	if (__atomic_load_n(&nf_touching, __ATOMIC_RELAXED))
		siglongjmp(nf_touch_jmp, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void op_mmap(struct nf_in *in)
{
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE, PROT_WRITE,
		PROT_READ | PROT_EXEC, PROT_NONE };
	unsigned int slot = U8(in) % NF_MAPS;
	uint8_t s = U8(in);
	struct nf_obj o = s & 1 ? nf_get(in, st.ring, st.nring) : nf_get(in, st.mem, st.nmem);
	size_t len = o.size ? o.size : 4096;
	int prot = prots[U8(in) % 5], fd = nf_fd(in);
	void *p;

	if (st.map[slot].p || fd < 0)
		return;
	if (s & 2)
		len = (U8(in) % 17) * 4096;
	if (s & 4)
		o.off += 4096;
	if (len > (64u << 20))
		len = 64u << 20;
	p = (void *)NF_CALL("mmap", (long)mmap(NULL, len, prot,
					       s & 8 ? MAP_PRIVATE : MAP_SHARED, fd, o.off));
	if (p == MAP_FAILED)
		return;
	st.map[slot].p = p;
	st.map[slot].len = len;
	if (len && (prot & PROT_READ)) {
		__atomic_store_n(&nf_touching, 1, __ATOMIC_RELAXED);
		if (!sigsetjmp(nf_touch_jmp, 1)) {
			uint8_t *b = p;
			uint8_t v = __atomic_load_n(&b[U16(in) % len], __ATOMIC_RELAXED);

			if (prot & PROT_WRITE)
				__atomic_store_n(&b[len - 1], v + 1, __ATOMIC_RELAXED);
		}
		__atomic_store_n(&nf_touching, 0, __ATOMIC_RELAXED);
	}
}

static void op_munmap(struct nf_in *in)
{
	unsigned int slot = U8(in) % NF_MAPS;

	if (st.map[slot].p)
		munmap(st.map[slot].p, st.map[slot].len);
	st.map[slot].p = NULL;
}

static void op_netlink(struct nf_in *in)
{
	uint8_t attrs[128], *e = attrs;
	uint8_t cmd = U8(in) % (NEURON_CMD_MAX + 2);
	uint16_t flags = U8(in) & 1 ? NLM_F_DUMP : 0;
	unsigned int i, n = U8(in) % 4;

	if (nf_nl < 0)
		return;
	for (i = 0; i < n; i++) {
		uint16_t type = U8(in) % (NEURON_A_PAD + 2);
		uint32_t v = U8(in);
		uint16_t len = 4;

		if (type == NEURON_A_DEV_INDEX && v < 0xf0)
			v = nf_dev[v % NF_DEVS].minor;
		else if (v >= 0xf0)
			v = U32(in);
		else
			v %= 10;
		if (U8(in) == 0xff)
			len = U8(in) % 9;
		e = nf_attr(e, type, &v, len > 4 ? 4 : len);
	}
	if (!NF_CALL("netlink send", nf_nl_send(cmd, flags, attrs, e - attrs)))
		NF_CALL("netlink recv", nf_nl_recv(NULL, NULL));
}

/* The child uses what it inherited, then closes it all and exits. */
static void op_fork(struct nf_in *in)
{
	struct neuron_mem_free f = { nf_get(in, st.mem, st.nmem).id, 0 };
	struct neuron_model_unload u = { nf_get(in, st.model, st.nmodel).id, 0 };
	int fd = nf_fd(in), status, i;
	uint64_t t0;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return;
	if (!pid) {
		char usage[256];
		struct neuron_query q = { NEURON_QUERY_MEM_USAGE, 0, (uintptr_t)usage,
					  sizeof(usage), 0, { 0, 0 } };

		if (fd >= 0) {
			ioctl(fd, NEURON_IOCTL_QUERY, &q);
			ioctl(fd, NEURON_IOCTL_MEM_FREE, &f);
			ioctl(fd, NEURON_IOCTL_MODEL_UNLOAD, &u);
		}
		for (i = 0; i < NF_FDS; i++)
			if (st.fd[i] >= 0)
				close(st.fd[i]);
		_exit(0);
	}
	t0 = nf_now_ms();
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (nf_now_ms() - t0 > NF_CHILD_MS) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			nf_fail("hang: a forked child did not end in %d ms", NF_CHILD_MS);
		}
		usleep(1000);
	}
}

/* Take a simulated device away (files open or not); it comes back after the run. */
static void op_remove(struct nf_in *in)
{
	unsigned int d = U8(in) % NF_DEVS;

	if (nf_removed[d] || U8(in) < 0xc0)	/* rare: it costs a re-creation */
		return;
	if (!NF_CALL("del_device", neuron_sim_remove(&nf_dev[d])))
		nf_removed[d] = true;
}

/* Any 'N' command number, any size and direction, a buffer of input bytes. */
static void op_raw_ioctl(struct nf_in *in)
{
	unsigned int nr = U8(in) % 0x20, size = U8(in), dir = U8(in) % 4, i;
	unsigned long cmd = _IOC(dir, NEURON_IOCTL_MAGIC, nr, size);

	for (i = 0; i < size; i++)
		nf_buf[i] = U8(in);
	if (U8(in) == 0xff)
		cmd = U32(in);
	nf_ioctl("ioctl", nf_fd(in), cmd, nf_buf);
}

typedef void (*nf_op)(struct nf_in *);

static void op_nc_reserve1(struct nf_in *in) { op_nc_reserve(in, false); }
static void op_nc_release1(struct nf_in *in) { op_nc_reserve(in, true); }

static const nf_op nf_ops[] = {
	op_open, op_close, op_dup, op_query, op_mem_alloc, op_mem_free, op_copy,
	op_memset, op_wait, op_notify_setup, op_notify_wait, op_notify_teardown,
	op_nc_reserve1, op_nc_release1, op_nc_sem, op_model_load, op_model_unload,
	op_execute, op_mmap, op_munmap, op_netlink, op_fork, op_remove, op_raw_ioctl,
};

#define NF_OPS	NF_ARRAY_SIZE(nf_ops)

/* ---- one input ---- */

static bool nf_leak;
static unsigned long nf_calls, nf_inputs, nf_max_calls;
static uint64_t nf_t0;

static void nf_report(void);

static void nf_cleanup(void)
{
	unsigned int i;

	for (i = 0; i < NF_MAPS; i++)
		if (st.map[i].p)
			munmap(st.map[i].p, st.map[i].len);
	for (i = 0; i < NF_FDS; i++)
		if (st.fd[i] >= 0)
			NF_CALL("close", close(st.fd[i]));
	for (i = 0; i < NF_DEVS; i++) {
		if (!nf_removed[i])
			continue;
		if (neuron_sim_create_id(&nf_dev[i], nf_dev[i].sim_id, nf_arch[i], 64))
			nf_fail("cannot create the simulated device %u again", nf_dev[i].sim_id);
		nf_removed[i] = false;
	}
	if (nf_leak) {
		static int leaked = -1;
		struct neuron_mem_alloc a;

		if (leaked < 0)
			leaked = open(nf_dev[0].path, O_RDWR);
		neuron_mem_alloc(leaked, NEURON_MEM_HOST, 4096, 0, &a);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nf_in in = { data, size };
	unsigned int n = 0, i;
	int efd = st.efd;

	memset(&st, 0, sizeof(st));
	st.efd = efd;
	for (i = 0; i < NF_FDS; i++)
		st.fd[i] = -1;
	/* Every input starts with one read-write file of each device. */
	st.fd[0] = open(nf_dev[0].path, O_RDWR | O_CLOEXEC);
	st.fd[1] = open(nf_dev[1].path, O_RDWR | O_CLOEXEC);
	nf_inputs++;
	nf_kcov_start();
	while (in.n && n++ < 64) {
		nf_ops[U8(&in) % NF_OPS](&in);
		nf_calls++;
	}
	nf_cleanup();
	nf_kcov_collect();
	nf_acct_check();
	nf_splat_check();
	if (nf_max_calls && nf_calls >= nf_max_calls) {
		/* libFuzzer ends after this input (SIGUSR1: a graceful exit). */
		nf_report();
		nf_max_calls = 0;
		kill(getpid(), SIGUSR1);
	}
	return 0;
}

static void nf_report(void)
{
	uint64_t ms = nf_now_ms() - nf_t0;

	fprintf(stderr,
		"neuron_fuzz: %lu inputs, %lu calls in %llu s (%llu calls/s), %lu kernel PCs traced (%lu at most in one input)\n",
		nf_inputs, nf_calls, (unsigned long long)ms / 1000,
		(unsigned long long)(nf_calls * 1000 / (ms ? ms : 1)), nf_pcs_total, nf_pcs_max);
}

/* At a normal exit: the simulated devices go (a crash leaves them: the caller cleans). */
static void nf_exit(void)
{
	unsigned int i;

	nf_report();
	for (i = 0; i < NF_DEVS; i++)
		if (!nf_removed[i])
			neuron_sim_remove(&nf_dev[i]);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *e;
	pthread_t t;
	unsigned int i;
	int r;

	(void)argc;
	(void)argv;
	e = getenv("NEURON_FUZZ_CALL_MS");
	if (e)
		nf_call_ms = strtoul(e, NULL, 10);
	nf_leak = getenv("NEURON_FUZZ_LEAK") && atoi(getenv("NEURON_FUZZ_LEAK"));
	e = getenv("NEURON_FUZZ_MAX_CALLS");
	if (e)
		nf_max_calls = strtoul(e, NULL, 10);
	signal(SIGSEGV, nf_touch_fault);
	signal(SIGBUS, nf_touch_fault);
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < NF_DEVS; i++) {
		neuron_node_init(&nf_dev[i]);
		r = neuron_sim_create(&nf_dev[i], nf_arch[i], 64);
		if (r) {
			fprintf(stderr, "neuron_fuzz: cannot create a simulated %s device: %d\n",
				nf_arch[i], r);
			exit(1);
		}
	}
	r = nf_nl_open();
	if (r)
		fprintf(stderr, "neuron_fuzz: no netlink family (%d): no netlink calls\n", r);
	st.efd = eventfd(0, EFD_CLOEXEC);
	if (nf_acct_read(&nf_base)) {
		fprintf(stderr, "neuron_fuzz: cannot read the accounting baseline\n");
		exit(1);
	}
	nf_kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (nf_kmsg >= 0)
		lseek(nf_kmsg, 0, SEEK_END);
	nf_taint0 = nf_taint();
	r = nf_kcov_open();
	if (r) {
		if (!getenv("NEURON_FUZZ_NO_KCOV")) {
			fprintf(stderr,
				"neuron_fuzz: KCOV: %s (NEURON_FUZZ_NO_KCOV=1: fuzz blind)\n",
				strerror(-r));
			exit(1);
		}
		nf_cover = NULL;
	}
	pthread_create(&t, NULL, nf_watchdog, NULL);
	atexit(nf_exit);
	nf_t0 = nf_now_ms();
	fprintf(stderr, "neuron_fuzz: %s and %s (sim %u, %u), KCOV %s, netlink family %u%s\n",
		nf_dev[0].path, nf_dev[1].path, nf_dev[0].sim_id, nf_dev[1].sim_id,
		nf_cover ? "on" : "off", nf_family, nf_leak ? ", leaking on purpose" : "");
	return 0;
}
