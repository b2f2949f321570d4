// SPDX-License-Identifier: GPL-2.0
/*
 * neuron-bench: ratios against baselines measured in the same run, so the
 * figures mean something on a shared or emulated machine.
 *
 *   copy ioctl, 64 MiB host->device and device->host  vs memcpy of 64 MiB
 *   mmap of device memory, the same two directions     vs memcpy of 64 MiB
 *   NEURON_IOCTL_QUERY                                 vs getppid()
 *   MEM_ALLOC + MEM_FREE with 100k live handles        vs with 1k
 *
 * Each ratio compares the best of several rounds that time the baseline
 * and the subject back to back. Usage: neuron-bench [/dev/neuronN]
 * The device needs NEURON_CAP_MEM and _COPY and about 600 MiB of memory.
 * Without an argument, neuron-bench creates a simulated v2 device of
 * 1536 MiB for the run (root, neuron_sim.ko loaded; a simulated device has
 * at most the RAM) and deletes it afterwards.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <neuron.h>

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
#define SIM_BUS		"/sys/bus/neuron_sim"
#define SIM_ID		"9000"

static int fd;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

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

	if (ioctl(fd, NEURON_IOCTL_MEM_ALLOC, &a))
		die("MEM_ALLOC");
	return a;
}

static void mem_free(__u32 handle)
{
	struct neuron_mem_free f = { .handle = handle };

	if (ioctl(fd, NEURON_IOCTL_MEM_FREE, &f))
		die("MEM_FREE");
}

static void copy(__u32 src, __u32 dst, const void *sptr, void *dptr)
{
	struct neuron_copy c = {
		.src_handle = src, .dst_handle = dst,
		.src_ptr = (uintptr_t)sptr, .dst_ptr = (uintptr_t)dptr,
		.size = SIZE,
	};

	if (ioctl(fd, NEURON_IOCTL_COPY, &c))
		die("COPY");
}

/*
 * Each ratio is measured in ROUNDS rounds that time the baseline and the
 * subject back to back, and compares the best of each: a slow spell of a
 * shared machine then hits both sides alike.
 */
struct best {
	double base;
	double subject;
};

static void best_add(struct best *b, double base, double subject)
{
	if (!b->base || base < b->base)
		b->base = base;
	if (!b->subject || subject < b->subject)
		b->subject = subject;
}

static double time_memcpy(void *dst, const void *src)
{
	double t = now();

	memcpy(dst, src, SIZE);
	return now() - t;
}

static double time_copy(__u32 src, __u32 dst, const void *sptr, void *dptr)
{
	double t = now();

	copy(src, dst, sptr, dptr);
	return now() - t;
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
	if (ioctl(fd, NEURON_IOCTL_QUERY, q))
		die("QUERY");
}

/* Time per call of @call, over CALLS calls. */
static double per_call(void (*call)(struct neuron_query *q, int null),
		       struct neuron_query *q, int null)
{
	double t = now();
	int i;

	for (i = 0; i < CALLS; i++)
		call(q, null);
	return (now() - t) / CALLS;
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
	double t = now();
	int i;

	for (i = 0; i < ALLOC_PAIRS; i++)
		mem_free(alloc(NEURON_MEM_DEVICE, 4096).handle);
	return (now() - t) / ALLOC_PAIRS;
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

	sysfs_write(SIM_BUS "/new_device", SIM_ID " v2 1536");
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

static void line(const char *what, double ratio, const char *note)
{
	printf("bench: %-34s %6.2f   (%s)\n", what, ratio, note);
}

int main(int argc, char **argv)
{
	char path[300] = "";
	struct neuron_mem_alloc dev;
	unsigned char *slots, *slot, *a, *b, *m;
	struct best h2d, d2h, mh2d, md2h, q, al;
	double floor;

	if (argc > 1)
		snprintf(path, sizeof(path), "%s", argv[1]);
	else
		sim_create(path, sizeof(path));
	fd = open(path, O_RDWR);
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
	dev = alloc(NEURON_MEM_DEVICE, SIZE);
	m = slot_map(slot + 2 * SPACING, fd, dev.mmap_offset);
	memset(m, 0, SIZE);	/* fault the mapping in, as for the buffers */

	h2d = bench_copy(0, dev.handle, a, b, a, NULL);
	d2h = bench_copy(dev.handle, 0, a, b, NULL, b);
	mh2d = bench_memcpy(b, a, m, b);
	md2h = bench_memcpy(a, b, b, m);
	q = bench_query(&floor);
	al = bench_alloc();

	printf("bench: baselines (best of %d rounds): memcpy 64 MiB %.2f ms,",
	       ROUNDS, h2d.base * 1e3);
	printf(" getppid %.0f ns, alloc+free %.0f ns with 1k handles\n",
	       q.base * 1e9, al.base * 1e9);
	line("copy ioctl host->device / memcpy", h2d.base / h2d.subject, "target >= 0.8");
	line("copy ioctl device->host / memcpy", d2h.base / d2h.subject, "target >= 0.8");
	line("mmap host->device / memcpy", mh2d.base / mh2d.subject, "target >= 0.95");
	line("mmap device->host / memcpy", md2h.base / md2h.subject, "target >= 0.95");
	line("query / getppid (time per call)", q.subject / q.base, "target <= 1.5");
	line("empty ioctl on /dev/null / getppid", floor / q.base,
	     "context: the least an ioctl costs");
	line("alloc+free 100k / 1k live handles", al.subject / al.base, "target <= 1.5");
	munmap(slots, 4 * SPACING);
	close(fd);
	if (argc == 1)
		sysfs_write(SIM_BUS "/del_device", SIM_ID);
	return 0;
}
