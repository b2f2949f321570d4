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
 * Each figure is the best of several runs. Usage: neuron-bench [/dev/neuronN]
 * The device needs NEURON_CAP_MEM and _COPY and about 600 MiB of memory.
 * Without an argument, neuron-bench creates a simulated v2 device of
 * 2048 MiB for the run (root, neuron.ko loaded) and deletes it afterwards.
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
#define RUNS		5
#define CALLS		100000
#define ALLOC_PAIRS	5000
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

/* Best time of RUNS memcpy()s of SIZE bytes. */
static double best_memcpy(void *dst, const void *src)
{
	double best = 1e9, t;
	int i;

	for (i = 0; i < RUNS; i++) {
		t = now();
		memcpy(dst, src, SIZE);
		t = now() - t;
		best = t < best ? t : best;
	}
	return best;
}

static double best_copy(__u32 src, __u32 dst, const void *sptr, void *dptr)
{
	double best = 1e9, t;
	int i;

	for (i = 0; i < RUNS; i++) {
		t = now();
		copy(src, dst, sptr, dptr);
		t = now() - t;
		best = t < best ? t : best;
	}
	return best;
}

static double per_call_query(void)
{
	struct neuron_device_info info;
	struct neuron_query q = {
		.op = NEURON_QUERY_DEVICE, .data = (uintptr_t)&info, .size = sizeof(info),
	};
	double t = now();
	int i;

	for (i = 0; i < CALLS; i++) {
		q.size = sizeof(info);
		if (ioctl(fd, NEURON_IOCTL_QUERY, &q))
			die("QUERY");
	}
	return (now() - t) / CALLS;
}

static double per_call_getppid(void)
{
	double t = now();
	int i;

	for (i = 0; i < CALLS; i++)
		syscall(SYS_getppid);
	return (now() - t) / CALLS;
}

/* Cost of one MEM_ALLOC + MEM_FREE pair with @live other handles alive. */
static double alloc_cost(unsigned int live)
{
	__u32 *h = malloc(live * sizeof(*h));
	double best = 1e9, t;
	unsigned int i;
	int r;

	if (!h)
		die("malloc");
	for (i = 0; i < live; i++)
		h[i] = alloc(NEURON_MEM_DEVICE, 4096).handle;
	for (r = 0; r < RUNS; r++) {
		t = now();
		for (i = 0; i < ALLOC_PAIRS; i++)
			mem_free(alloc(NEURON_MEM_DEVICE, 4096).handle);
		t = (now() - t) / ALLOC_PAIRS;
		best = t < best ? t : best;
	}
	for (i = 0; i < live; i++)
		mem_free(h[i]);
	free(h);
	return best;
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

	sysfs_write(SIM_BUS "/new_device", SIM_ID " v2 2048");
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

static void line(const char *what, double ratio, const char *target)
{
	printf("bench: %-34s %6.2f   (target %s)\n", what, ratio, target);
}

int main(int argc, char **argv)
{
	char path[300] = "";
	struct neuron_mem_alloc dev;
	unsigned char *a, *b, *m;
	double tm, h2d, d2h, mh2d, md2h, q, g, a1, a100;

	if (argc > 1)
		snprintf(path, sizeof(path), "%s", argv[1]);
	else
		sim_create(path, sizeof(path));
	fd = open(path, O_RDWR);
	if (fd < 0)
		die(path);
	printf("bench: %s\n", path);
	a = malloc(SIZE);
	b = malloc(SIZE);
	if (!a || !b)
		die("malloc");
	memset(a, 0x5a, SIZE);
	memset(b, 0xa5, SIZE);
	dev = alloc(NEURON_MEM_DEVICE, SIZE);
	m = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, dev.mmap_offset);
	if (m == MAP_FAILED)
		die("mmap");
	memset(m, 0, SIZE);	/* fault the mapping in, as for the buffers */

	tm = best_memcpy(b, a);
	h2d = best_copy(0, dev.handle, a, NULL);
	d2h = best_copy(dev.handle, 0, NULL, b);
	mh2d = best_memcpy(m, a);
	md2h = best_memcpy(b, m);
	g = per_call_getppid();
	q = per_call_query();
	a1 = alloc_cost(1000);
	a100 = alloc_cost(100000);

	printf("bench: baselines: memcpy 64 MiB %.2f ms, getppid %.0f ns,",
	       tm * 1e3, g * 1e9);
	printf(" alloc+free %.0f ns with 1k handles\n", a1 * 1e9);
	line("copy ioctl host->device / memcpy", tm / h2d, ">= 0.8");
	line("copy ioctl device->host / memcpy", tm / d2h, ">= 0.8");
	line("mmap host->device / memcpy", tm / mh2d, ">= 0.95");
	line("mmap device->host / memcpy", tm / md2h, ">= 0.95");
	line("query / getppid (time per call)", q / g, "<= 1.5");
	line("alloc+free 100k / 1k live handles", a100 / a1, "<= 1.5");
	munmap(m, SIZE);
	close(fd);
	if (argc == 1)
		sysfs_write(SIM_BUS "/del_device", SIM_ID);
	return 0;
}
