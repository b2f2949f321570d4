// SPDX-License-Identifier: GPL-2.0
/*
 * bench_nrt: what libnrt.so.1 itself costs, as ratios against baselines
 * measured in the same run (docs/performance.md, "libnrt"):
 *
 *   nrt_tensor_write, nrt_tensor_read of 64 MiB        vs memcpy of 64 MiB
 *     (a DEVICE tensor; context: memcpy to and from its mapping directly)
 *   nrt_execute of a model whose only instruction is END on SP
 *                                                     vs NEURON_IOCTL_EXECUTE
 *     with NEURON_EXEC_WAIT of the same program, loaded with MODEL_LOAD on
 *     the same file and NC (the library's, found in /proc/self/fd)
 *
 * Each ratio compares the best of ROUNDS rounds that time the baseline and
 * the subject back to back, as tools/neuron-bench.c does; the executions
 * alternate call by call. libnrt gets NC 0 of /dev/neuron0
 * (NEURON_RT_VISIBLE_CORES=0: the first device in minor order). Run as
 * root, with the simulator's default devices (or any device with
 * NEURON_CAP_EXEC and 128 MiB of memory as /dev/neuron0).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <dirent.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <neuron.h>
#include <neuron_bench.h>

#include "nrt_test.h"

#define DEV		"/dev/neuron0"
#define SIZE		(64UL << 20)
/* As in neuron-bench: 2 MiB units, a distance that is no power of two. */
#define SLOT_ALIGN	(2UL << 20)
#define SPACING		(SIZE + SLOT_ALIGN + 34 * 4096UL)
#define ROUNDS		7
#define EXEC_CALLS	500

static void die(const char *what)
{
	fprintf(stderr, "bench_nrt: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void die_nrt(const char *what, NRT_STATUS s)
{
	fprintf(stderr, "bench_nrt: %s: %s (%d)\n", what, nrt_get_status_as_str(s), (int)s);
	exit(1);
}

static void line(const char *what, double ratio, const char *note)
{
	printf("bench: %-34s %6.2f   (%s)\n", what, ratio, note);
}

/* SIZE bytes of anonymous memory exactly at @addr, faulted in. */
static unsigned char *anon_at(unsigned char *addr, int fill)
{
	void *p = mmap(addr, SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (p != addr) {
		munmap(p, SIZE);	/* a kernel without MAP_FIXED_NOREPLACE */
		errno = EEXIST;
		return NULL;
	}
	memset(p, fill, SIZE);
	return p;
}

static double time_memcpy(void *dst, const void *src)
{
	double t = bench_now();

	memcpy(dst, src, SIZE);
	return bench_now() - t;
}

static double time_write(nrt_tensor_t *t, const void *buf)
{
	double t0 = bench_now();
	NRT_STATUS s = nrt_tensor_write(t, buf, 0, SIZE);

	if (s)
		die_nrt("nrt_tensor_write", s);
	return bench_now() - t0;
}

static double time_read(const nrt_tensor_t *t, void *buf)
{
	double t0 = bench_now();
	NRT_STATUS s = nrt_tensor_read(t, buf, 0, SIZE);

	if (s)
		die_nrt("nrt_tensor_read", s);
	return bench_now() - t0;
}

/*
 * The caller's buffer u lies at distance d from the tensor's mapping (after
 * it, or before it when that is taken), and the baseline's buffers a and b
 * at the same distance, b = a + d, with a at the mapping's offset in a
 * 2 MiB unit: each memcpy() of the baseline then goes the same way across
 * the same distance as the copy it is compared with (under emulation the
 * speed of a copy depends on both, docs/performance.md).
 */
struct geometry {
	unsigned char *va, *u, *a, *b, *region;
	size_t region_len;
};

static void place(struct geometry *g)
{
	uintptr_t unit, base;
	long d;

	g->u = anon_at(g->va + SPACING, 0x11);
	if (!g->u)
		g->u = anon_at(g->va - SPACING, 0x11);
	if (!g->u)
		die("no room for a buffer at the bench's distance from the tensor");
	d = g->u - g->va;
	g->region_len = 4 * SPACING;
	g->region = mmap(NULL, g->region_len, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (g->region == MAP_FAILED)
		die("mmap");
	unit = ((uintptr_t)g->region + SLOT_ALIGN - 1) & ~(SLOT_ALIGN - 1);
	base = unit + ((uintptr_t)g->va & (SLOT_ALIGN - 1)) + (d < 0 ? SPACING : 0);
	munmap(g->region, g->region_len);	/* a and b go in its place */
	g->region = NULL;
	g->a = anon_at((unsigned char *)base, 0x5a);
	g->b = g->a ? anon_at(g->a + d, 0xa5) : NULL;
	if (!g->a || !g->b)
		die("mmap of the baseline's buffers");
}

/* An nrt container whose one block is END on SP, and no tensor. */
static void end_model(struct mbuf *out, struct neuron_tpb_insn *end)
{
	static const char man[] = "neuron-model 1\narch v2\nblock sp end.bin\n";
	struct mbuf tar = { 0 };

	memset(end, 0, sizeof(*end));
	end->opcode = NEURON_TPB_END;
	tar_add(&tar, "manifest", man, strlen(man));
	tar_add(&tar, "end.bin", end, sizeof(*end));
	tar_end(&tar);
	memset(out, 0, sizeof(*out));
	gzip_stored(out, tar.p, tar.len);
	free(tar.p);
}

/*
 * The file libnrt opened on DEV: the one descriptor of this process open
 * on it (nrt_init opens each device once). -1 if there is not exactly one.
 */
static int nrt_file(void)
{
	char target[64];
	struct dirent *e;
	int fd = -1, n = 0;
	ssize_t len;
	DIR *d;

	d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		len = readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = 0;
		if (!strcmp(target, DEV)) {
			fd = atoi(e->d_name);
			n++;
		}
	}
	closedir(d);
	return n == 1 ? fd : -1;
}

/* The same program through MODEL_LOAD, on NC @nc held by file @fd. */
static __u32 raw_load(int fd, __u32 nc, const struct neuron_tpb_insn *end)
{
	struct neuron_model_block b = { .insns = (uintptr_t)end, .count = 1,
					.engine = NEURON_ENGINE_SP };
	struct neuron_model_load l = { .nc = nc, .blocks = (uintptr_t)&b, .nblocks = 1 };

	if (ioctl(fd, NEURON_IOCTL_MODEL_LOAD, &l))
		die("MODEL_LOAD");
	return l.handle;
}

static double time_raw(int fd, __u32 model)
{
	struct neuron_execute x;
	double t = bench_now();

	memset(&x, 0, sizeof(x));
	x.model = model;
	x.flags = NEURON_EXEC_WAIT;
	if (ioctl(fd, NEURON_IOCTL_EXECUTE, &x) || x.status != NEURON_EXEC_OK)
		die("EXECUTE");
	return bench_now() - t;
}

static double time_nrt(nrt_model_t *m, nrt_tensor_set_t *in, nrt_tensor_set_t *out)
{
	double t = bench_now();
	NRT_STATUS s = nrt_execute(m, in, out);

	if (s)
		die_nrt("nrt_execute", s);
	return bench_now() - t;
}

/* nrt_execute - raw EXECUTE of each alternated pair of calls */
static double pair_diff[ROUNDS * EXEC_CALLS];
static int npairs;

/*
 * One round: EXEC_CALLS calls of each, alternating one by one (and which
 * goes first), so that a slow spell of the machine hits both alike; the
 * mean time per call of each side. With @keep, the difference of each
 * pair is kept for the median.
 */
static void exec_round(struct best *ex, int fd, __u32 raw, nrt_model_t *m,
		       nrt_tensor_set_t *in, nrt_tensor_set_t *out, int keep)
{
	double tr = 0, tn = 0, r, n;
	int i;

	for (i = 0; i < EXEC_CALLS; i++) {
		if (i % 2) {
			n = time_nrt(m, in, out);
			r = time_raw(fd, raw);
		} else {
			r = time_raw(fd, raw);
			n = time_nrt(m, in, out);
		}
		tr += r;
		tn += n;
		if (keep && npairs < ROUNDS * EXEC_CALLS)
			pair_diff[npairs++] = n - r;
	}
	best_add(ex, tr / EXEC_CALLS, tn / EXEC_CALLS);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(void)
{
	struct best wr = { 0 }, rd = { 0 }, mwr = { 0 }, mrd = { 0 }, ex = { 0 }, warm = { 0 };
	nrt_tensor_set_t *in = NULL, *out = NULL;
	struct neuron_tpb_insn end;
	struct geometry g = { 0 };
	nrt_tensor_t *t = NULL;
	nrt_model_t *m = NULL;
	struct mbuf model;
	NRT_STATUS s;
	__u32 raw;
	int fd, i;
	size_t k;

	setenv("NEURON_RT_VISIBLE_CORES", "0", 1);
	s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
	if (s)
		die_nrt("nrt_init", s);
	printf("bench: libnrt on %s NC 0; the raw ioctls on its file and NC\n", DEV);

	/* ---- tensor I/O ---- */
	s = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, SIZE, "t", &t);
	if (s)
		die_nrt("nrt_tensor_allocate", s);
	g.va = nrt_tensor_get_va(t);
	if (!g.va)
		die("the tensor has no mapping (libnrt moves its bytes with COPY)");
	place(&g);
	if (time_write(t, g.u) <= 0)	/* fault the tensor's pages in */
		die("clock");
	for (i = 0; i < ROUNDS; i++) {
		best_add(&wr, time_memcpy(g.a, g.b), time_write(t, g.u));
		best_add(&mwr, time_memcpy(g.a, g.b), time_memcpy(g.va, g.u));
		best_add(&rd, time_memcpy(g.b, g.a), time_read(t, g.u));
		best_add(&mrd, time_memcpy(g.b, g.a), time_memcpy(g.u, g.va));
	}
	/* what was written is what is read */
	memset(g.b, 0x3c, SIZE);
	for (k = 0; k < SIZE; k += 4096)
		g.b[k] = (unsigned char)(k >> 12);
	s = nrt_tensor_write(t, g.b, 0, SIZE);
	if (!s)
		s = nrt_tensor_read(t, g.u, 0, SIZE);
	if (s)
		die_nrt("write and read back", s);
	if (memcmp(g.u, g.b, SIZE))
		die("the tensor read back differs from what was written");
	nrt_tensor_free(&t);
	munmap(g.u, SIZE);
	munmap(g.a, SIZE);
	munmap(g.b, SIZE);

	/* ---- execution ---- */
	end_model(&model, &end);
	s = nrt_load(model.p, model.len, 0, -1, &m);
	if (s)
		die_nrt("nrt_load", s);
	free(model.p);
	s = nrt_allocate_tensor_set(&in);
	if (!s)
		s = nrt_allocate_tensor_set(&out);
	if (s)
		die_nrt("nrt_allocate_tensor_set", s);
	fd = nrt_file();
	if (fd < 0)
		die("libnrt's file of " DEV " not found in /proc/self/fd");
	raw = raw_load(fd, 0, &end);
	exec_round(&warm, fd, raw, m, in, out, 0);
	for (i = 0; i < ROUNDS; i++)
		exec_round(&ex, fd, raw, m, in, out, 1);
	qsort(pair_diff, npairs, sizeof(pair_diff[0]), cmp_double);
	nrt_unload(m);
	nrt_destroy_tensor_set(&in);
	nrt_destroy_tensor_set(&out);
	nrt_close();

	printf("bench: libnrt baselines (best of %d rounds): memcpy 64 MiB %.2f ms,",
	       ROUNDS, wr.base * 1e3);
	printf(" raw EXECUTE (submit and wait, empty model) %.1f us\n", ex.base * 1e6);
	line("nrt_tensor_write 64 MiB / memcpy", wr.base / wr.subject, "target >= 0.9");
	line("nrt_tensor_read 64 MiB / memcpy", rd.base / rd.subject, "target >= 0.9");
	line("memcpy into its mapping / memcpy", mwr.base / mwr.subject,
	     "context: the mapping without libnrt");
	line("memcpy out of its mapping / memcpy", mrd.base / mrd.subject,
	     "context: the mapping without libnrt");
	line("nrt_execute / raw EXECUTE (per call)", ex.subject / ex.base, "target <= 1.1");
	printf("bench: nrt_execute - raw EXECUTE: %+.1f us per call (best rounds),",
	       (ex.subject - ex.base) * 1e6);
	printf(" median of %d pairs %+.1f us (context: libnrt's own cost)\n",
	       npairs, pair_diff[npairs / 2] * 1e6);
	return 0;
}
