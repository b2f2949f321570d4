// SPDX-License-Identifier: GPL-2.0
/*
 * neuron-bench: ratios against baselines measured in the same run, so the
 * figures mean something on a shared or emulated machine.
 *
 *   copy ioctl, 64 MiB host->device and device->host  vs memcpy of 64 MiB
 *   mmap of device memory, the same two directions     vs memcpy of 64 MiB
 *   NEURON_IOCTL_QUERY                                 vs getppid()
 *   MEM_ALLOC + MEM_FREE with 100k live handles        vs with 1k
 *   EXECUTE (submit and wait) of an empty model        vs the empty ioctl
 *                                                         and QUERY
 *   the same with the simulator's tpb_instant knob     vs the empty ioctl
 *   (the execution ends at once: the driver's own cost)
 *   executions per second on 2 NCs (threads of one file) and in 2
 *   processes                                          vs on 1 NC
 *   a 2-layer MLP on the simulated core                vs on the host CPU
 *
 * Each ratio compares the best of several rounds that time the baseline
 * and the subject back to back. Usage: neuron-bench [-c] [/dev/neuronN]
 * The device needs NEURON_CAP_MEM and _COPY and about 600 MiB of memory.
 * With -c, only the copy ioctl against memcpy (also device->device, which
 * pins and maps no user pages), with the throughputs, and a check that the
 * data went there and back (a device with no mapping or
 * execution: the PCI device of `make bench`).
 * Without an argument, neuron-bench creates a simulated v3 device of
 * 1536 MiB for the run (root, neuron_sim.ko loaded; a simulated device has
 * at most the RAM) and deletes it afterwards.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <neuron.h>
#include <neuron_io.h>
#include <neuron_bench.h>

#define SIZE		(64UL << 20)
/* 2 MiB aligned (huge pages), at a distance that is no power of two. */
#define SLOT_ALIGN	(2UL << 20)
#define SPACING		(SIZE + SLOT_ALIGN + 34 * 4096UL)
#define ROUNDS		7
#define CALLS		20000
#define ALLOC_PAIRS	5000
#define ALLOC_ROUNDS	3
#define LIVE_FEW	1000
#define LIVE_MANY	100000
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define SIM_BUS		"/sys/bus/neuron_sim"
#define SIM_ID		"9000"

static int fd;

static void die(const char *what)
{
	fprintf(stderr, "neuron-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static struct neuron_mem_alloc alloc(__u32 kind, __u64 size)
{
	struct neuron_mem_alloc a = {
		.size = size, .kind = kind,
		.channel = kind == NEURON_MEM_DEVICE ? NEURON_MEM_CHANNEL_ANY : 0,
	};

	if (nio_mem_alloc_req(fd, &a))
		die("MEM_ALLOC");
	return a;
}

static void mem_free(__u32 handle)
{
	if (nio_mem_free(fd, handle))
		die("MEM_FREE");
}

/* COPY of @size bytes between a handle and a pointer, or two handles. */
static void copy_n(__u32 src, __u32 dst, const void *sptr, void *dptr, __u64 size)
{
	if (nio_copy(fd, src, 0, dst, 0, sptr, dptr, size, 0, NULL))
		die("COPY");
}

static void copy(__u32 src, __u32 dst, const void *sptr, void *dptr)
{
	copy_n(src, dst, sptr, dptr, SIZE);
}

static double time_memcpy(void *dst, const void *src)
{
	double t = bench_now();

	memcpy(dst, src, SIZE);
	return bench_now() - t;
}

static double time_copy(__u32 src, __u32 dst, const void *sptr, void *dptr)
{
	double t = bench_now();

	copy(src, dst, sptr, dptr);
	return bench_now() - t;
}

/* The copy ioctl of SIZE bytes against memcpy(b, a). */
static struct best bench_copy(__u32 src, __u32 dst, void *a, void *b,
			      const void *sptr, void *dptr)
{
	struct best r = { 0 };
	int i;

	for (i = 0; i < ROUNDS; i++)
		best_add(&r, time_memcpy(b, a), time_copy(src, dst, sptr, dptr));
	return r;
}

/* memcpy(dst, src) against memcpy(bdst, bsrc). */
static struct best bench_memcpy(void *bdst, const void *bsrc, void *dst,
				const void *src)
{
	struct best r = { 0 };
	int i;

	for (i = 0; i < ROUNDS; i++)
		best_add(&r, time_memcpy(bdst, bsrc), time_memcpy(dst, src));
	return r;
}

static void call_getppid(struct neuron_query *q, int null)
{
	(void)q;
	(void)null;
	syscall(SYS_getppid);
}

/* An ioctl the kernel turns down at once: an unknown command on /dev/null. */
static void call_empty_ioctl(struct neuron_query *q, int null)
{
	ioctl(null, NEURON_IOCTL_QUERY, q);
}

static void call_query(struct neuron_query *q, int null)
{
	(void)null;
	q->size = sizeof(struct neuron_device_info);
	if (nio_ioctl(fd, NEURON_IOCTL_QUERY, q))
		die("QUERY");
}

/* Time per call of @call, over CALLS calls. */
static double per_call(void (*call)(struct neuron_query *q, int null),
		       struct neuron_query *q, int null)
{
	double t = bench_now();
	int i;

	for (i = 0; i < CALLS; i++)
		call(q, null);
	return (bench_now() - t) / CALLS;
}

/*
 * Time per NEURON_IOCTL_QUERY (device info) against time per getppid();
 * @floor gets the best time per empty ioctl, the least any ioctl costs.
 */
static struct best bench_query(double *floor)
{
	struct neuron_device_info info;
	struct neuron_query q = {
		.op = NEURON_QUERY_DEVICE, .data = (uintptr_t)&info,
	};
	int null = open("/dev/null", O_RDONLY);
	struct best r = { 0 }, z = { 0 };
	double g;
	int n;

	if (null < 0)
		die("/dev/null");
	for (n = 0; n < ROUNDS; n++) {
		g = per_call(call_getppid, &q, null);
		best_add(&z, g, per_call(call_empty_ioctl, &q, null));
		best_add(&r, g, per_call(call_query, &q, null));
	}
	close(null);
	*floor = z.subject;
	return r;
}

/* Time per MEM_ALLOC + MEM_FREE pair, with the live handles there are. */
static double time_alloc_free(void)
{
	double t = bench_now();
	int i;

	for (i = 0; i < ALLOC_PAIRS; i++)
		mem_free(alloc(NEURON_MEM_DEVICE, 4096).handle);
	return (bench_now() - t) / ALLOC_PAIRS;
}

#define MAX_HANDLES	"/sys/module/neuron/parameters/max_handles"

/*
 * Set the per-file handle limit (root, docs/uapi.md) to @val; its old value
 * goes to @old (left empty when the parameter cannot be read).
 */
static void max_handles_set(const char *val, char *old, size_t len)
{
	FILE *f = fopen(MAX_HANDLES, "r");

	if (old && (!f || !fgets(old, len, f)))
		old[0] = '\0';
	if (f)
		fclose(f);
	f = fopen(MAX_HANDLES, "w");
	if (!f || fputs(val, f) < 0 || fclose(f))
		die(MAX_HANDLES);
}

/*
 * Allocation cost with LIVE_MANY live handles against LIVE_FEW; the extra
 * handles are made and freed again in every round. The per-file handle
 * limit (65536 by default) is lifted for it, then put back.
 */
static struct best bench_alloc(void)
{
	__u32 *h = malloc(LIVE_MANY * sizeof(*h));
	struct best r = { 0 };
	char old[32];
	unsigned int i;
	double few;
	int n;

	if (!h)
		die("malloc");
	max_handles_set("0", old, sizeof(old));
	for (i = 0; i < LIVE_FEW; i++)
		h[i] = alloc(NEURON_MEM_DEVICE, 4096).handle;
	for (n = 0; n < ALLOC_ROUNDS; n++) {
		few = time_alloc_free();
		for (i = LIVE_FEW; i < LIVE_MANY; i++)
			h[i] = alloc(NEURON_MEM_DEVICE, 4096).handle;
		best_add(&r, few, time_alloc_free());
		for (i = LIVE_FEW; i < LIVE_MANY; i++)
			mem_free(h[i]);
	}
	for (i = 0; i < LIVE_FEW; i++)
		mem_free(h[i]);
	free(h);
	if (old[0])
		max_handles_set(old, NULL, 0);
	return r;
}

/* Map SIZE bytes at @addr: anonymous memory, or @fd at @off. */
static unsigned char *slot_map(unsigned char *addr, int fd, __u64 off)
{
	void *p = mmap(addr, SIZE, PROT_READ | PROT_WRITE,
		       MAP_FIXED | (fd < 0 ? MAP_PRIVATE | MAP_ANONYMOUS : MAP_SHARED),
		       fd, off);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

static void sysfs_write(const char *file, const char *text)
{
	int f = open(file, O_WRONLY);

	if (f < 0 || write(f, text, strlen(text)) < 0)
		die(file);
	close(f);
}

/* Create the simulated device SIM_ID and find its node. */
static void sim_create(char *path, size_t len)
{
	const char *dir = SIM_BUS "/devices/neuron_sim" SIM_ID "/neuron";
	struct dirent *e;
	DIR *d;
	int i;

	sysfs_write(SIM_BUS "/new_device", SIM_ID " v3 1536");
	d = opendir(dir);
	if (!d)
		die(dir);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "neuron", 6))
			snprintf(path, len, "/dev/%s", e->d_name);
	closedir(d);
	for (i = 0; i < 500 && access(path, F_OK); i++)
		usleep(10000);
}

/* ---- execution ---- */

#define EXEC_SECONDS	1.0
#define MLP_B		32	/* batch */
#define MLP_I		128	/* inputs */
#define MLP_H		128	/* hidden */
#define MLP_O		32	/* outputs */

static void nc_reserve(int f, __u64 mask)
{
	if (nio_nc_reserve(f, mask))
		die("NC_RESERVE");
}

static __u32 load(int f, __u32 nc, const struct neuron_model_block *blocks,
		  __u32 nblocks, const struct neuron_model_slot *slots,
		  __u32 nslots, const void *data, __u64 data_size, __u64 scratch)
{
	struct neuron_model_load l = {
		.nc = nc, .blocks = (uintptr_t)blocks, .nblocks = nblocks,
		.slots = (uintptr_t)slots, .nslots = nslots,
		.data = (uintptr_t)data, .data_size = data_size,
		.scratch_size = scratch,
	};

	if (nio_model_load(f, &l))
		die("MODEL_LOAD");
	return l.handle;
}

/* The empty model: one END on SP. */
static __u32 load_empty(int f, __u32 nc)
{
	static const struct neuron_tpb_insn end = { .opcode = NEURON_TPB_END };
	struct neuron_model_block b = { .insns = (uintptr_t)&end, .count = 1,
					.engine = NEURON_ENGINE_SP };

	return load(f, nc, &b, 1, NULL, 0, NULL, 0, 0);
}

/* One submit-and-wait: one ioctl. */
static void run(int f, __u32 model, const __u32 *bind, __u32 nbind)
{
	__u32 status;

	if (nio_execute_wait(f, model, bind, nbind, 0, &status) ||
	    status != NEURON_EXEC_OK)
		die("EXECUTE");
}

static __u32 model_for_call;
static void call_execute(struct neuron_query *q, int null)
{
	(void)q;
	(void)null;
	run(fd, model_for_call, NULL, 0);
}

struct exec_arg {
	int fd;
	__u32 model;
	long count;
};

/* Empty executions for EXEC_SECONDS: how many. */
static void *exec_loop(void *p)
{
	struct exec_arg *a = p;
	double end = bench_now() + EXEC_SECONDS;

	for (a->count = 0; bench_now() < end; a->count++)
		run(a->fd, a->model, NULL, 0);
	return NULL;
}

/* Executions per second: @n threads on NCs 0..n-1 of one file. */
static double rate_threads(const __u32 *models, int n)
{
	struct exec_arg a[2];
	pthread_t t[2];
	double total = 0;
	int i;

	for (i = 0; i < n; i++) {
		a[i] = (struct exec_arg){ .fd = fd, .model = models[i] };
		if (pthread_create(&t[i], NULL, exec_loop, &a[i]))
			die("pthread_create");
	}
	for (i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		total += a[i].count;
	}
	return total / EXEC_SECONDS;
}

/* Executions per second of 2 processes, each with its file and NC. */
static double rate_processes(const char *path)
{
	int pipes[2][2], i;
	double total = 0;
	long count;

	for (i = 0; i < 2; i++) {
		if (pipe(pipes[i]))
			die("pipe");
		if (fork() == 0) {
			struct exec_arg a = { .fd = nio_open_path(path, O_RDWR) };

			if (a.fd < 0)
				die(path);
			nc_reserve(a.fd, 1ULL << (2 + i));
			a.model = load_empty(a.fd, 2 + i);
			exec_loop(&a);
			if (write(pipes[i][1], &a.count, sizeof(a.count)) < 0)
				_exit(1);
			_exit(0);
		}
	}
	for (i = 0; i < 2; i++) {
		if (read(pipes[i][0], &count, sizeof(count)) != sizeof(count))
			die("child");
		total += count;
		wait(NULL);
	}
	return total / EXEC_SECONDS;
}

static __u32 dev_tensor(__u64 size, const void *data)
{
	struct neuron_mem_alloc m = alloc(NEURON_MEM_DEVICE, size);

	if (data)
		copy_n(0, m.handle, data, NULL, size);
	return m.handle;
}

#define REF(r, o)	{ .region = (r), .offset = (o) }

/*
 * The MLP on NC @nc: time of one submit-and-wait over the time of the
 * same computation on the host (best of ROUNDS each).
 */
static struct best bench_mlp(__u32 nc)
{
	/* data: W1 [I x H], b1 [H], W2 [H x O], b2 [O]; scratch: h [B x H] */
	enum { W1 = 0, B1 = W1 + 4 * MLP_I * MLP_H, W2 = B1 + 4 * MLP_H,
	       B2 = W2 + 4 * MLP_H * MLP_O, DATA_SIZE = B2 + 4 * MLP_O };
	static float data[DATA_SIZE / 4], x[MLP_B * MLP_I], h[MLP_B * MLP_H];
	static float y[MLP_B * MLP_O], yd[MLP_B * MLP_O];
	const struct neuron_tpb_insn pe[] = {
		{ .opcode = NEURON_TPB_MATMUL, .m = MLP_B, .k = MLP_I, .n = MLP_H,
		  .dst = REF(NEURON_REGION_SCRATCH, 0), .a = REF(NEURON_REGION_SLOT(0), 0),
		  .b = REF(NEURON_REGION_DATA, W1) },
		{ .opcode = NEURON_TPB_SEM_SIGNAL, .index = 0, .imm = 1 },
		{ .opcode = NEURON_TPB_SEM_WAIT, .index = 1, .imm = 1 },
		{ .opcode = NEURON_TPB_MATMUL, .m = MLP_B, .k = MLP_H, .n = MLP_O,
		  .dst = REF(NEURON_REGION_SLOT(1), 0), .a = REF(NEURON_REGION_SCRATCH, 0),
		  .b = REF(NEURON_REGION_DATA, W2) },
		{ .opcode = NEURON_TPB_SEM_SIGNAL, .index = 2, .imm = 1 },
		{ .opcode = NEURON_TPB_END },
	};
	const struct neuron_tpb_insn dve[] = {
		{ .opcode = NEURON_TPB_SEM_WAIT, .index = 0, .imm = 1 },
		{ .opcode = NEURON_TPB_TT, .func = NEURON_ALU_ADD | NEURON_TPB_BCAST,
		  .m = MLP_B, .n = MLP_H, .dst = REF(NEURON_REGION_SCRATCH, 0),
		  .a = REF(NEURON_REGION_SCRATCH, 0), .b = REF(NEURON_REGION_DATA, B1) },
		{ .opcode = NEURON_TPB_SEM_SIGNAL, .index = 3, .imm = 1 },
		{ .opcode = NEURON_TPB_SEM_WAIT, .index = 2, .imm = 1 },
		{ .opcode = NEURON_TPB_TT, .func = NEURON_ALU_ADD | NEURON_TPB_BCAST,
		  .m = MLP_B, .n = MLP_O, .dst = REF(NEURON_REGION_SLOT(1), 0),
		  .a = REF(NEURON_REGION_SLOT(1), 0), .b = REF(NEURON_REGION_DATA, B2) },
		{ .opcode = NEURON_TPB_END },
	};
	const struct neuron_tpb_insn act[] = {
		{ .opcode = NEURON_TPB_SEM_WAIT, .index = 3, .imm = 1 },
		{ .opcode = NEURON_TPB_ACT, .func = NEURON_ACT_RELU, .n = MLP_B * MLP_H,
		  .dst = REF(NEURON_REGION_SCRATCH, 0), .a = REF(NEURON_REGION_SCRATCH, 0) },
		{ .opcode = NEURON_TPB_SEM_SIGNAL, .index = 1, .imm = 1 },
		{ .opcode = NEURON_TPB_END },
	};
	const struct neuron_model_block blocks[] = {
		{ (uintptr_t)pe, ARRAY_SIZE(pe), NEURON_ENGINE_PE },
		{ (uintptr_t)dve, ARRAY_SIZE(dve), NEURON_ENGINE_DVE },
		{ (uintptr_t)act, ARRAY_SIZE(act), NEURON_ENGINE_ACT },
	};
	const struct neuron_model_slot slots[] = {
		{ .size = sizeof(x), .kind = NEURON_SLOT_INPUT },
		{ .size = sizeof(y), .kind = NEURON_SLOT_OUTPUT },
	};
	struct best r = { 0 };
	__u32 model, bind[2];
	double t, host;
	unsigned int i;
	int n;

	srand(1);
	for (i = 0; i < DATA_SIZE / 4; i++)
		data[i] = (float)rand() / RAND_MAX - 0.5f;
	for (i = 0; i < MLP_B * MLP_I; i++)
		x[i] = (float)rand() / RAND_MAX - 0.5f;
	model = load(fd, nc, blocks, 3, slots, 2, data, DATA_SIZE, sizeof(h));
	bind[0] = dev_tensor(sizeof(x), x);
	bind[1] = dev_tensor(sizeof(y), NULL);
	for (n = 0; n < ROUNDS; n++) {
		t = bench_now();
		host_mlp(x, data + W1 / 4, data + B1 / 4, data + W2 / 4,
			 data + B2 / 4, h, y, MLP_B, MLP_I, MLP_H, MLP_O);
		host = bench_now() - t;
		t = bench_now();
		run(fd, model, bind, 2);
		best_add(&r, host, bench_now() - t);
	}
	/* The device's answer is the host's, to rounding. */
	copy_n(bind[1], 0, NULL, yd, sizeof(yd));
	for (i = 0; i < MLP_B * MLP_O; i++) {
		float d = yd[i] - y[i];

		if (d > 0.0001f || d < -0.0001f)
			die("MLP: the device's result differs from the host's");
	}
	return r;
}

static void line(const char *what, double ratio, const char *note)
{
	printf("bench: %-34s %6.2f   (%s)\n", what, ratio, note);
}

/*
 * The copy ioctl only (-c): host->device from a, device->host into b, each
 * against memcpy(b, a); then b must hold what a holds.
 */
static int copy_only(unsigned char *a, unsigned char *b)
{
	struct neuron_mem_alloc dev = alloc(NEURON_MEM_DEVICE, SIZE);
	struct neuron_mem_alloc dev2 = alloc(NEURON_MEM_DEVICE, SIZE);
	struct best h2d, d2h, d2d;

	h2d = bench_copy(0, dev.handle, a, b, a, NULL);
	d2h = bench_copy(dev.handle, 0, a, b, NULL, b);
	d2d = bench_copy(dev.handle, dev2.handle, a, b, NULL, NULL);
	mem_free(dev2.handle);
	memset(b, 0xa5, SIZE);
	copy(dev.handle, 0, NULL, b);
	if (memcmp(a, b, SIZE)) {
		fprintf(stderr, "neuron-bench: the data read back differs\n");
		return 1;
	}
	mem_free(dev.handle);
	printf("bench: copy baselines (best of %d rounds): memcpy 64 MiB %.2f ms (%.0f MB/s)\n",
	       ROUNDS, h2d.base * 1e3, SIZE / h2d.base / 1e6);
	printf("bench: copy ioctl 64 MiB: host->device %.2f ms (%.0f MB/s),",
	       h2d.subject * 1e3, SIZE / h2d.subject / 1e6);
	printf(" device->host %.2f ms (%.0f MB/s), device->device %.2f ms (%.0f MB/s)\n",
	       d2h.subject * 1e3, SIZE / d2h.subject / 1e6,
	       d2d.subject * 1e3, SIZE / d2d.subject / 1e6);
	line("copy ioctl host->device / memcpy", h2d.base / h2d.subject, "target >= 0.8");
	line("copy ioctl device->host / memcpy", d2h.base / d2h.subject, "target >= 0.8");
	line("copy ioctl device->device / memcpy", d2d.base / d2d.subject,
	     "context: no user pages to pin and map");
	return 0;
}

int main(int argc, char **argv)
{
	char path[300] = "";
	int copy_mode = 0;
	struct neuron_mem_alloc dev;
	unsigned char *slots, *slot, *a, *b, *m;
	struct best h2d, d2h, mh2d, md2h, q, al, ex = { 0 }, exi = { 0 }, mlp;
	double floor, rate1, rate2, ratep;

	if (argc > 1 && !strcmp(argv[1], "-c")) {
		copy_mode = 1;
		argc--;
		argv++;
	}
	if (argc > 1)
		snprintf(path, sizeof(path), "%s", argv[1]);
	else
		sim_create(path, sizeof(path));
	fd = nio_open_path(path, O_RDWR);
	if (fd < 0)
		die(path);
	printf("bench: %s\n", path);
	/*
	 * a, b and the device mapping m lie SPACING apart, and each memcpy()
	 * is compared with one across the same distance in the same
	 * direction (b <- a with m <- b, a <- b with b <- m): under emulation,
	 * memcpy() speed depends on that distance (docs/performance.md).
	 */
	slots = mmap(NULL, 4 * SPACING, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (slots == MAP_FAILED)
		die("mmap");
	slot = (unsigned char *)(((uintptr_t)slots + SLOT_ALIGN - 1) & ~(SLOT_ALIGN - 1));
	a = slot_map(slot, -1, 0);
	b = slot_map(slot + SPACING, -1, 0);
	memset(a, 0x5a, SIZE);
	memset(b, 0xa5, SIZE);
	if (copy_mode) {
		int rc = copy_only(a, b);

		munmap(slots, 4 * SPACING);
		close(fd);
		if (argc == 1)
			sysfs_write(SIM_BUS "/del_device", SIM_ID);
		return rc;
	}
	dev = alloc(NEURON_MEM_DEVICE, SIZE);
	m = slot_map(slot + 2 * SPACING, fd, dev.mmap_offset);
	memset(m, 0, SIZE);	/* fault the mapping in, as for the buffers */

	h2d = bench_copy(0, dev.handle, a, b, a, NULL);
	d2h = bench_copy(dev.handle, 0, a, b, NULL, b);
	mh2d = bench_memcpy(b, a, m, b);
	md2h = bench_memcpy(a, b, b, m);
	q = bench_query(&floor);
	al = bench_alloc();
	nc_reserve(fd, 3);
	{
		__u32 models[2] = { load_empty(fd, 0), load_empty(fd, 1) };
		struct neuron_query qq = { 0 };
		int n;

		model_for_call = models[0];
		for (n = 0; n < ROUNDS; n++)
			best_add(&ex, q.subject, per_call(call_execute, &qq, 0));
		/* Only on the device the bench made (its knobs are known). */
		if (argc == 1) {
			sysfs_write(SIM_BUS "/devices/neuron_sim" SIM_ID "/tpb_instant", "1");
			for (n = 0; n < ROUNDS; n++)
				best_add(&exi, q.subject, per_call(call_execute, &qq, 0));
			sysfs_write(SIM_BUS "/devices/neuron_sim" SIM_ID "/tpb_instant", "0");
		}
		rate1 = rate_threads(models, 1);
		rate2 = rate_threads(models, 2);
		ratep = rate_processes(path);
	}
	mlp = bench_mlp(1);

	printf("bench: baselines (best of %d rounds): memcpy 64 MiB %.2f ms,",
	       ROUNDS, h2d.base * 1e3);
	printf(" getppid %.0f ns, alloc+free %.0f ns with 1k handles\n",
	       q.base * 1e9, al.base * 1e9);
	line("copy ioctl host->device / memcpy", h2d.base / h2d.subject, "target >= 0.8");
	line("copy ioctl device->host / memcpy", d2h.base / d2h.subject, "target >= 0.8");
	line("mmap host->device / memcpy", mh2d.base / mh2d.subject, "target >= 0.95");
	line("mmap device->host / memcpy", md2h.base / md2h.subject, "target >= 0.95");
	line("query / getppid (time per call)", q.subject / q.base, "context");
	line("query / empty ioctl (time per call)", q.subject / floor, "target <= 1.2");
	line("empty ioctl on /dev/null / getppid", floor / q.base,
	     "context: the least an ioctl costs");
	line("alloc+free 100k / 1k live handles", al.subject / al.base, "target <= 1.5");
	printf("bench: execute: empty model %.1f us per submit-and-wait (1 ioctl),",
	       ex.subject * 1e6);
	printf(" %.0f/s on 1 NC\n", rate1);
	line("execute / empty ioctl (time per call)", ex.subject / floor,
	     "target: towards 40; one round trip through the core");
	if (exi.subject > 0)
		line("execute, instant core / empty ioctl", exi.subject / floor,
		     "target <= 3: the driver's own cost");
	line("execute / query (time per call)", ex.subject / q.subject, "context");
	line("executions/s 2 NCs (threads) / 1 NC", rate2 / rate1, "ideal 2; 2 CPUs");
	line("executions/s 2 processes / 1 NC", ratep / rate1, "ideal 2; 2 CPUs");
	line("MLP on the simulated core / on the host", mlp.subject / mlp.base,
	     "context: the simulator's cost");
	munmap(slots, 4 * SPACING);
	close(fd);
	if (argc == 1)
		sysfs_write(SIM_BUS "/del_device", SIM_ID);
	return 0;
}
