// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: copies through the DMA engines (NEURON_CAP_COPY):
 * NEURON_IOCTL_COPY in every direction (user memory, host and device
 * objects) with random data, unaligned offsets and sizes from 1 byte to
 * 64 MiB; NEURON_IOCTL_MEMSET; asynchronous calls and NEURON_IOCTL_WAIT
 * with absolute deadlines, also from user memory (pinned and charged to
 * RLIMIT_MEMLOCK until done); one test per rejected field; handles of other
 * files; a DMA fault injected in the simulator (-EIO, then the queue works
 * again); threads on one file; release of a file with copies in flight.
 * Runs on a v2 and a v3 device; skips without NEURON_CAP_COPY.
 */
#define _GNU_SOURCE
#include <linux/capability.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

#include "neuron_test.h"

/* Device memory of the fixture's device: less on a machine with less RAM. */
#define MEM_MB		512
#define BIG		(64ULL << 20)
/* Objects and buffers of the fixture; roundtrip_64m makes its own. */
#define SMALL		(2ULL << 20)

FIXTURE(copy) {
	struct neuron_node node;
	struct neuron_device_info info;
	__u32 host, dev, dev2;		/* handles of @size + 2 pages each */
	__u64 host_off;			/* mmap offset of @host */
	unsigned char *a, *b;		/* user buffers of @size + 64 bytes */
	__u64 size;
};

FIXTURE_VARIANT(copy) NEURON_ARCH_VARIANT;
FIXTURE_VARIANT_ADD(copy, v2) NEURON_ARCH_V2_VARIANT;
FIXTURE_VARIANT_ADD(copy, v3) NEURON_ARCH_V3_VARIANT;

static __u32 alloc_or_die(struct __test_metadata *_metadata, int fd, __u32 kind,
			  __u64 size, __u64 *off)
{
	struct neuron_mem_alloc a;

	ASSERT_EQ(0, neuron_mem_alloc(fd, kind, size, 0, &a));
	if (off)
		*off = a.mmap_offset;
	return a.handle;
}

/*
 * Helpers take the fixture data as struct _test_data_copy, which is what
 * FIXTURE_DATA(copy) stands for (spelled out so that checkpatch sees a type).
 *
 * Objects of @size + 2 pages and user buffers of random bytes.
 */
static void make_buffers(struct __test_metadata *_metadata,
			 struct _test_data_copy *self, __u64 size)
{
	__u64 x = 0x9e3779b97f4a7c15ULL ^ getpid(), *w;
	size_t i;

	self->size = size;
	self->host = alloc_or_die(_metadata, self->node.fd, NEURON_MEM_HOST,
				  size + 8192, &self->host_off);
	self->dev = alloc_or_die(_metadata, self->node.fd, NEURON_MEM_DEVICE,
				 size + 8192, NULL);
	self->dev2 = alloc_or_die(_metadata, self->node.fd, NEURON_MEM_DEVICE,
				  size + 8192, NULL);
	free(self->a);
	free(self->b);
	self->a = malloc(size + 64);
	self->b = calloc(1, size + 64);
	ASSERT_NE(NULL, self->a);
	ASSERT_NE(NULL, self->b);
	/* xorshift64: random enough, and fast under emulation. */
	for (i = 0, w = (__u64 *)self->a; i < (size + 64) / 8; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		w[i] = x;
	}
}

FIXTURE_SETUP(copy)
{
	neuron_setup_node(_metadata, &self->node, variant->name,
			  neuron_sim_mem_fit(MEM_MB));
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &self->info, NULL));
	if (!(self->info.caps & NEURON_CAP_COPY)) {
		neuron_node_release(&self->node);
		NEURON_SKIP_SETUP("%s has no NEURON_CAP_COPY", self->node.path);
	}
	self->a = NULL;
	self->b = NULL;
	make_buffers(_metadata, self, SMALL);
}

FIXTURE_TEARDOWN(copy)
{
	free(self->a);
	free(self->b);
	neuron_node_release(&self->node);
}

/*
 * user a -> host -> device -> device2 -> host -> user b, at odd offsets,
 * for @size bytes (every direction); then compare.
 */
static void roundtrip(struct __test_metadata *_metadata,
		      struct _test_data_copy *self, __u64 size)
{
	int fd = self->node.fd;

	memset(self->b, 0, size + 16 > self->size + 64 ? self->size + 64 : size + 16);
	ASSERT_LE(size + 16, self->size + 64);
	ASSERT_EQ(0, neuron_copy_op(fd, 0, 0, self->host, 7, self->a + 3, NULL, size, 0, NULL));
	ASSERT_EQ(0, neuron_copy_op(fd, self->host, 7, self->dev, 4093, NULL, NULL, size, 0, NULL));
	ASSERT_EQ(0, neuron_copy_op(fd, self->dev, 4093, self->dev2, 1, NULL, NULL, size, 0, NULL));
	ASSERT_EQ(0, neuron_copy_op(fd, self->dev2, 1, self->host, 4099, NULL, NULL, size, 0,
				    NULL));
	ASSERT_EQ(0, neuron_copy_op(fd, self->host, 4099, 0, 0, NULL, self->b + 5, size, 0, NULL));
	ASSERT_EQ(0, memcmp(self->a + 3, self->b + 5, size))
		TH_LOG("size %llu", (unsigned long long)size);
	/* Nothing written around the destination. */
	ASSERT_EQ(0, self->b[4]);
	ASSERT_EQ(0, self->b[5 + size]);
}

TEST_F(copy, roundtrip_small_sizes)
{
	static const __u64 sizes[] = { 1, 2, 15, 4095, 4096, 4097, 65535, 65536, 65537 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		roundtrip(_metadata, self, sizes[i]);
}

TEST_F(copy, roundtrip_1m_odd)
{
	roundtrip(_metadata, self, (1 << 20) + 12345);
}

/* 64 MiB user -> device -> user: slow under KASAN, hence the timeout. */
TEST_F_TIMEOUT(copy, roundtrip_64m, 240)
{
	unsigned char *a = malloc(BIG), *b = calloc(1, BIG);
	struct neuron_mem_alloc d;
	size_t i;

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	for (i = 0; i < BIG; i += 4096)
		memcpy(a + i, self->a + (i / 4096) % 4096, 4096);
	ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE, BIG + 4096, 0, &d));
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, 0, 0, d.handle, 4095, a, NULL, BIG, 0, NULL));
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, d.handle, 4095, 0, 0, NULL, b, BIG, 0, NULL));
	ASSERT_EQ(0, memcmp(a, b, BIG));
	free(a);
	free(b);
}

TEST_F(copy, host_to_host_and_mmap_coherent)
{
	__u64 off2;
	__u32 h2 = alloc_or_die(_metadata, self->node.fd, NEURON_MEM_HOST, 1 << 20, &off2);
	unsigned char *m;

	ASSERT_EQ(0, neuron_copy_op(self->node.fd, 0, 0, self->host, 0, self->a, NULL, 1 << 20, 0,
				    NULL));
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, self->host, 100, h2, 200, NULL, NULL, 5000, 0,
				    NULL));
	m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, self->node.fd, off2);
	ASSERT_NE(MAP_FAILED, m);
	ASSERT_EQ(0, memcmp(m + 200, self->a + 100, 5000));
	/* Writes through the mapping are what the device reads. */
	memset(m, 0x77, 4096);
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, h2, 0, 0, 0, NULL, self->b, 4096, 0, NULL));
	ASSERT_EQ(0x77, self->b[0]);
	ASSERT_EQ(0x77, self->b[4095]);
	munmap(m, 1 << 20);
}

TEST_F(copy, memset_range)
{
	struct neuron_memset ms = {
		.handle = self->dev, .value = 0xa5, .offset = 4097, .size = 200000,
	};

	ASSERT_EQ(0, neuron_copy_op(self->node.fd, 0, 0, self->dev, 0, self->a, NULL, 300000, 0,
				    NULL));
	ASSERT_EQ(0, neuron_ioctl(self->node.fd, NEURON_IOCTL_MEMSET, &ms));
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, self->dev, 0, 0, 0, NULL, self->b, 300000, 0,
				    NULL));
	ASSERT_EQ(0, memcmp(self->b, self->a, 4097));
	ASSERT_EQ(0xa5, self->b[4097]);
	ASSERT_EQ(0xa5, self->b[4097 + 199999]);
	ASSERT_EQ(0, memcmp(self->b + 4097 + 200000, self->a + 4097 + 200000,
			    300000 - 4097 - 200000));
}

TEST_F(copy, memset_bad_fields)
{
	struct neuron_memset ms = { .handle = self->dev, .size = 1 };

	ms.value = 256;
	EXPECT_EQ(-EINVAL, neuron_ioctl(self->node.fd, NEURON_IOCTL_MEMSET, &ms));
	ms.value = 0;
	ms.pad = 1;
	EXPECT_EQ(-EINVAL, neuron_ioctl(self->node.fd, NEURON_IOCTL_MEMSET, &ms));
	ms.pad = 0;
	ms.flags = 2;
	EXPECT_EQ(-EINVAL, neuron_ioctl(self->node.fd, NEURON_IOCTL_MEMSET, &ms));
	ms.flags = 0;
	ms.reserved[1] = 1;
	EXPECT_EQ(-EINVAL, neuron_ioctl(self->node.fd, NEURON_IOCTL_MEMSET, &ms));
	ms.reserved[1] = 0;
	ms.size = 0;
	EXPECT_EQ(-EINVAL, neuron_ioctl(self->node.fd, NEURON_IOCTL_MEMSET, &ms));
	ms.size = SMALL + 8193;
	EXPECT_EQ(-EINVAL, neuron_ioctl(self->node.fd, NEURON_IOCTL_MEMSET, &ms));
	ms.size = 1;
	ms.handle = 999;
	EXPECT_EQ(-ENOENT, neuron_ioctl(self->node.fd, NEURON_IOCTL_MEMSET, &ms));
}

/* One rejected field of COPY per case. */
TEST_F(copy, copy_bad_fields)
{
	int fd = self->node.fd;
	struct neuron_copy c;

#define BAD(expect, field, value) do { \
	memset(&c, 0, sizeof(c)); \
	c.src_handle = self->host; \
	c.dst_handle = self->dev; \
	c.size = 1; \
	c.field = value; \
	EXPECT_EQ(expect, neuron_ioctl(fd, NEURON_IOCTL_COPY, &c)) \
		TH_LOG("%s = %s", #field, #value); \
} while (0)
	BAD(-EINVAL, flags, 2);
	BAD(-EINVAL, pad, 1);
	BAD(-EINVAL, reserved[0], 1);
	BAD(-EINVAL, reserved[1], 1);
	BAD(-EINVAL, size, 0);
	BAD(-EINVAL, size, SMALL + 8193);
	BAD(-EINVAL, src_offset, SMALL + 8192);
	BAD(-EINVAL, dst_offset, ~0ULL);
	/* A pointer beside a handle, on either side. */
	BAD(-EINVAL, src_ptr, (uintptr_t)self->a);
	BAD(-EINVAL, dst_ptr, (uintptr_t)self->b);
	BAD(-ENOENT, src_handle, 12345);
	BAD(-ENOENT, dst_handle, 12345);
#undef BAD
	/* Two pointers, also asynchronously; a pointer with an offset. */
	EXPECT_EQ(-EINVAL, neuron_copy_op(fd, 0, 0, 0, 0, self->a, self->b, 1, 0, NULL));
	EXPECT_EQ(-EINVAL, neuron_copy_op(fd, 0, 0, 0, 0, self->a, self->b, 1, NEURON_COPY_ASYNC,
					  NULL));
	EXPECT_EQ(-EINVAL, neuron_copy_op(fd, 0, 1, self->dev, 0, self->a, NULL, 1, 0, NULL));
}

/* User pointers are pinned by the driver: bad ones fail, none reaches the device. */
TEST_F(copy, user_pointers_checked)
{
	int fd = self->node.fd;
	void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, ro);
	EXPECT_EQ(-EFAULT, neuron_copy_op(fd, 0, 0, self->dev, 0, (void *)16, NULL, 100, 0, NULL));
	/* A kernel address. */
	EXPECT_EQ(-EFAULT, neuron_copy_op(fd, 0, 0, self->dev, 0, (void *)0xffff888000000000ULL,
					  NULL, 100, 0, NULL));
	/* The device may not write a read-only page. */
	EXPECT_EQ(-EFAULT, neuron_copy_op(fd, self->dev, 0, 0, 0, NULL, ro, 100, 0, NULL));
	/* Reading from it is fine. */
	EXPECT_EQ(0, neuron_copy_op(fd, 0, 0, self->dev, 0, ro, NULL, 100, 0, NULL));
	munmap(ro, 4096);
}

/*
 * Handles are per file: the same number names each file's own object, and
 * a number only another file holds is unknown here.
 */
TEST_F(copy, handle_of_other_file)
{
	int fd2 = open(self->node.path, O_RDWR);
	unsigned char x[4096];
	__u32 h2;

	ASSERT_LE(0, fd2);
	h2 = alloc_or_die(_metadata, fd2, NEURON_MEM_HOST, 4096, NULL);
	ASSERT_EQ(self->host, h2);	/* both files' first handle */
	memset(x, 0xee, sizeof(x));
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, 0, 0, self->host, 0, self->a, NULL, 4096, 0,
				    NULL));
	ASSERT_EQ(0, neuron_copy_op(fd2, 0, 0, h2, 0, x, NULL, 4096, 0, NULL));
	/* Our handle 1 still holds our data, not what fd2 wrote to its own. */
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, self->host, 0, 0, 0, NULL, self->b, 4096, 0,
				    NULL));
	EXPECT_EQ(0, memcmp(self->a, self->b, 4096));
	/* Our handle 3 means nothing in fd2, in either position. */
	EXPECT_EQ(-ENOENT, neuron_copy_op(fd2, h2, 0, self->dev2, 0, NULL, NULL, 1, 0, NULL));
	EXPECT_EQ(-ENOENT, neuron_copy_op(fd2, self->dev2, 0, h2, 0, NULL, NULL, 1, 0, NULL));
	close(fd2);
}

TEST_F(copy, async_and_wait)
{
	__u64 seq[16];
	int i;

	for (i = 0; i < 16; i++) {
		ASSERT_EQ(0, neuron_copy_op(self->node.fd, 0, 0, self->host, i * 4096, self->a + i,
					    NULL, 4096, 0, NULL));
		ASSERT_EQ(0, neuron_copy_op(self->node.fd, self->host, i * 4096, self->dev,
					    i * 4096, NULL, NULL, 4096, NEURON_COPY_ASYNC,
					    &seq[i]));
		ASSERT_NE(0ULL, seq[i]);
		if (i)
			ASSERT_NE(seq[i - 1], seq[i]);
	}
	for (i = 15; i >= 0; i--)
		ASSERT_EQ(0, neuron_wait_seq(self->node.fd, seq[i],
					     neuron_now_ns() + 10000000000LL));
	/* Spent numbers, zero and numbers never issued are not pending. */
	EXPECT_EQ(-ENOENT, neuron_wait_seq(self->node.fd, seq[0], 0));
	EXPECT_EQ(-ENOENT, neuron_wait_seq(self->node.fd, 0, 0));
	EXPECT_EQ(-ENOENT, neuron_wait_seq(self->node.fd, seq[15] + 1000, 0));
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, self->dev, 0, 0, 0, NULL, self->b, 16 * 4096, 0,
				    NULL));
	for (i = 0; i < 16; i++)
		ASSERT_EQ(0, memcmp(self->b + i * 4096, self->a + i, 4096));
}

/* KiB of the pages that @len bytes at @p touch. */
static long span_kb(const void *p, size_t len)
{
	uintptr_t first = (uintptr_t)p & ~4095UL;
	uintptr_t end = ((uintptr_t)p + len + 4095) & ~4095UL;

	return (end - first) / 1024;
}

/*
 * Asynchronous copies from and to user memory, at odd offsets and over
 * many descriptors: the bytes arrive, the pages are charged to VmPin while
 * the copy is in flight and uncharged when it is done.
 */
/*
 * A sequence number is the file's: another file's pending number is
 * unknown here (-ENOENT) and stays pending for its own file.
 */
TEST_F(copy, wait_other_files_seqno)
{
	int fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	__u64 seq;
	__u32 h2;

	ASSERT_LE(0, fd2);
	h2 = alloc_or_die(_metadata, fd2, NEURON_MEM_DEVICE, 8192, NULL);
	ASSERT_EQ(0, neuron_copy_op(fd2, h2, 0, h2, 4096, NULL, NULL, 4096,
				    NEURON_COPY_ASYNC, &seq));
	EXPECT_EQ(-ENOENT, neuron_wait_seq(self->node.fd, seq, 0));
	EXPECT_EQ(-ENOENT, neuron_wait_seq(self->node.fd, seq,
					   neuron_now_ns() + 100000000LL));
	EXPECT_EQ(0, neuron_wait_seq(fd2, seq, neuron_now_ns() + 10000000000LL));
	close(fd2);
}

TEST_F(copy, async_user_pointers)
{
	int fd = self->node.fd;
	__u64 size = (1 << 20) + 12345, seq, seq2;
	long base = neuron_vm_pinned_kb();

	ASSERT_LE(0, base);
	ASSERT_EQ(0, neuron_copy_op(fd, 0, 0, self->dev, 4093, self->a + 3, NULL, size,
				    NEURON_COPY_ASYNC, &seq));
	ASSERT_NE(0ULL, seq);
	ASSERT_EQ(0, neuron_wait_seq(fd, seq, neuron_now_ns() + 10000000000LL));
	ASSERT_EQ(0, neuron_copy_op(fd, self->dev, 4093, 0, 0, NULL, self->b + 5, size,
				    NEURON_COPY_ASYNC, &seq2));
	ASSERT_NE(seq, seq2);
	ASSERT_EQ(0, neuron_wait_seq(fd, seq2, neuron_now_ns() + 10000000000LL));
	ASSERT_EQ(0, memcmp(self->a + 3, self->b + 5, size));
	EXPECT_EQ(0, self->b[4]);
	EXPECT_EQ(0, self->b[5 + size]);
	EXPECT_EQ(-ENOENT, neuron_wait_seq(fd, seq2, 0));
	EXPECT_EQ(base, neuron_vm_pinned_kb());
}

TEST_F(copy, async_user_pointer_charged_while_in_flight)
{
	int fd = self->node.fd, fd2;
	long base = neuron_vm_pinned_kb();
	__u64 seq;
	__u32 h;

	if (!self->node.created)
		SKIP(return, "needs the simulator's latency knob");
	ASSERT_LE(0, base);
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "dma_latency_us", "300000"));
	ASSERT_EQ(0, neuron_copy_op(fd, 0, 0, self->dev, 0, self->a + 100, NULL, 65536,
				    NEURON_COPY_ASYNC, &seq));
	EXPECT_EQ(base + span_kb(self->a + 100, 65536), neuron_vm_pinned_kb());
	ASSERT_EQ(0, neuron_wait_seq(fd, seq, neuron_now_ns() + 5000000000LL));
	EXPECT_EQ(base, neuron_vm_pinned_kb());
	/* A file released with the copy in flight: it completes, and uncharges. */
	fd2 = open(self->node.path, O_RDWR);
	ASSERT_LE(0, fd2);
	h = alloc_or_die(_metadata, fd2, NEURON_MEM_DEVICE, 8192, NULL);
	memset(self->b, 0xff, 8192);
	ASSERT_EQ(0, neuron_copy_op(fd2, h, 0, 0, 0, NULL, self->b, 8192, NEURON_COPY_ASYNC, &seq));
	EXPECT_EQ(base + span_kb(self->b, 8192), neuron_vm_pinned_kb());
	close(fd2);
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "dma_latency_us", "0"));
	EXPECT_EQ(base, neuron_vm_pinned_wait(base));
	/* The new object was zeroed, and the device wrote it to b. */
	EXPECT_EQ(0, self->b[0]);
	EXPECT_EQ(0, memcmp(self->b, self->b + 1, 8191));
}

/* A failed pin or a DMA fault returns the charge too. */
TEST_F(copy, async_user_pointer_failures_uncharge)
{
	int fd = self->node.fd;
	void *ro = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long base = neuron_vm_pinned_kb();
	__u64 seq;

	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_LE(0, base);
	/* The device may not write a read-only page. */
	EXPECT_EQ(-EFAULT, neuron_copy_op(fd, self->dev, 0, 0, 0, NULL, ro, 8192, NEURON_COPY_ASYNC,
					  &seq));
	EXPECT_EQ(-EFAULT, neuron_copy_op(fd, 0, 0, self->dev, 0, (void *)16, NULL, 100,
					  NEURON_COPY_ASYNC, &seq));
	EXPECT_EQ(base, neuron_vm_pinned_kb());
	munmap(ro, 8192);
	if (!self->node.created)
		return;
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "dma_fail_next", "1"));
	ASSERT_EQ(0, neuron_copy_op(fd, 0, 0, self->dev, 0, self->a, NULL, 65536, NEURON_COPY_ASYNC,
				    &seq));
	EXPECT_EQ(-EIO, neuron_wait_seq(fd, seq, neuron_now_ns() + 5000000000LL));
	EXPECT_EQ(base, neuron_vm_pinned_kb());
}

/* Drop CAP_IPC_LOCK from the effective set of this process. */
static int drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[0].effective &= ~(1U << CAP_IPC_LOCK);
	return syscall(SYS_capset, &h, d);
}

/*
 * Without CAP_IPC_LOCK, asynchronous copies of user memory stay within
 * RLIMIT_MEMLOCK (-ENOMEM past it); synchronous ones are not charged.
 */
TEST_F(copy, async_user_pointer_memlock_limit)
{
	struct rlimit lim = { .rlim_cur = 64 << 10, .rlim_max = 64 << 10 };
	int fd = self->node.fd, status;
	unsigned char *p;
	__u64 seq;
	pid_t pid;

	/* Page aligned: 64 KiB of it are 16 pages, exactly the limit. */
	p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	memset(p, 0x3c, 1 << 20);
	pid = neuron_fork(_metadata);
	if (!pid) {
		if (drop_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &lim) || neuron_vm_pinned_kb())
			_exit(10);
		if (neuron_copy_op(fd, 0, 0, self->dev, 0, p, NULL, 1 << 20, NEURON_COPY_ASYNC,
				   &seq) != -ENOMEM)
			_exit(11);
		if (neuron_copy_op(fd, 0, 0, self->dev, 0, p, NULL, 65536, NEURON_COPY_ASYNC,
				   &seq) ||
		    neuron_wait_seq(fd, seq, neuron_now_ns() + 5000000000LL))
			_exit(12);
		/* At an odd address the same size touches one page more. */
		if (neuron_copy_op(fd, 0, 0, self->dev, 0, p + 1, NULL, 65536, NEURON_COPY_ASYNC,
				   &seq) != -ENOMEM)
			_exit(13);
		if (neuron_copy_op(fd, 0, 0, self->dev, 0, p, NULL, 1 << 20, 0, NULL) ||
		    neuron_vm_pinned_kb())
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	munmap(p, 1 << 20);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_F(copy, wait_bad_fields)
{
	struct neuron_wait w = { .seqno = 1, .flags = 1 };

	EXPECT_EQ(-EINVAL, neuron_ioctl(self->node.fd, NEURON_IOCTL_WAIT, &w));
	w.flags = 0;
	w.pad = 1;
	EXPECT_EQ(-EINVAL, neuron_ioctl(self->node.fd, NEURON_IOCTL_WAIT, &w));
}

TEST_F(copy, wait_deadline)
{
	__u64 seq;
	__s64 t0, dt;

	if (!self->node.created)
		SKIP(return, "needs the simulator's latency knob");
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "dma_latency_us", "300000"));
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, self->host, 0, self->dev, 0, NULL, NULL, 4096,
				    NEURON_COPY_ASYNC, &seq));
	/* A deadline in the past only polls. */
	EXPECT_EQ(-ETIME, neuron_wait_seq(self->node.fd, seq, 0));
	t0 = neuron_now_ns();
	EXPECT_EQ(-ETIME, neuron_wait_seq(self->node.fd, seq, t0 + 50000000));
	dt = neuron_now_ns() - t0;
	EXPECT_GE(dt, 50000000);
	EXPECT_LT(dt, 250000000);
	EXPECT_EQ(0, neuron_wait_seq(self->node.fd, seq, neuron_now_ns() + 5000000000LL));
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "dma_latency_us", "0"));
}

static int alarms;

static void alarm_handler(int sig)
{
	(void)sig;
	__atomic_fetch_add(&alarms, 1, __ATOMIC_RELAXED);
}

/*
 * A signal during WAIT: without SA_RESTART the call ends with EINTR and the
 * copy is still pending; with SA_RESTART it restarts with the same absolute
 * deadline and returns when the copy is done.
 */
TEST_F(copy, wait_signal)
{
	struct itimerval it = { .it_value = { 0, 100000 } };
	struct neuron_wait w = { 0 };
	struct sigaction sa, old;
	__u64 seq, seq2;
	__s64 t0;

	if (!self->node.created)
		SKIP(return, "needs the simulator's latency knob");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = alarm_handler;
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, &old));
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "dma_latency_us", "500000"));
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, self->host, 0, self->dev, 0, NULL, NULL, 4096,
				    NEURON_COPY_ASYNC, &seq));
	__atomic_store_n(&alarms, 0, __ATOMIC_RELAXED);
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	/* The raw call: neuron_wait_seq() would restart it (libneuron). */
	w.seqno = seq;
	w.timeout_ns = neuron_now_ns() + 5000000000LL;
	EXPECT_EQ(-EINTR, neuron_ioctl(self->node.fd, NEURON_IOCTL_WAIT, &w));
	EXPECT_EQ(1, __atomic_load_n(&alarms, __ATOMIC_RELAXED));

	sa.sa_flags = SA_RESTART;
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, self->host, 0, self->dev, 0, NULL, NULL, 4096,
				    NEURON_COPY_ASYNC, &seq2));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	t0 = neuron_now_ns();
	/* The interrupted number is still pending; this WAIT gets the alarm. */
	EXPECT_EQ(0, neuron_wait_seq(self->node.fd, seq, neuron_now_ns() + 5000000000LL));
	EXPECT_EQ(0, neuron_wait_seq(self->node.fd, seq2, neuron_now_ns() + 5000000000LL));
	EXPECT_EQ(2, __atomic_load_n(&alarms, __ATOMIC_RELAXED));
	EXPECT_LT(t0 + 200000000LL, neuron_now_ns());
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "dma_latency_us", "0"));
	sigaction(SIGALRM, &old, NULL);
}

TEST_F(copy, dma_fault_then_recovery)
{
	if (!self->node.created)
		SKIP(return, "needs the simulator's fault knob");
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "dma_fail_next", "1"));
	EXPECT_EQ(-EIO, neuron_copy_op(self->node.fd, self->host, 0, self->dev, 0, NULL, NULL,
				       65536, 0, NULL));
	/* The queue was reset: copies work again and move the right bytes. */
	roundtrip(_metadata, self, 100000);
}

TEST_F(copy, async_fault_reported_by_wait)
{
	__u64 seq;

	if (!self->node.created)
		SKIP(return, "needs the simulator's fault knob");
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "dma_fail_next", "1"));
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, self->host, 0, self->dev, 0, NULL, NULL, 4096,
				    NEURON_COPY_ASYNC, &seq));
	EXPECT_EQ(-EIO, neuron_wait_seq(self->node.fd, seq, neuron_now_ns() + 5000000000LL));
	EXPECT_EQ(-ENOENT, neuron_wait_seq(self->node.fd, seq, 0));
}

/* Set up notification queue (nc 0, @type) and map it: the header. */
static const struct neuron_notify_header *
notify_queue(int fd, __u32 type)
{
	struct neuron_notify_setup ns = { .nc = 0, .type = type, .entries = 64,
					  .eventfd = -1 };
	void *m;

	if (neuron_ioctl(fd, NEURON_IOCTL_NOTIFY_SETUP, &ns))
		return NULL;
	m = mmap(NULL, ns.mmap_size, PROT_READ, MAP_SHARED, fd, ns.mmap_offset);
	return m == MAP_FAILED ? NULL : m;
}

static const struct neuron_notify_entry *
notify_entry(const struct neuron_notify_header *h, __u32 idx)
{
	return (const void *)h + NEURON_NOTIFY_ENTRY_OFFSET +
	       (idx % h->entries) * sizeof(struct neuron_notify_entry);
}

/* The simulated engine reports completions and faults on the NC's queues. */
TEST_F(copy, engine_posts_notifications)
{
	const struct neuron_notify_header *done, *err;
	const struct neuron_notify_entry *e;
	__u64 seq;

	if (!(self->info.caps & NEURON_CAP_NOTIFY) || !self->node.created)
		SKIP(return, "needs the simulator's notification queues");
	done = notify_queue(self->node.fd, NEURON_NOTIFY_COMPLETION);
	err = notify_queue(self->node.fd, NEURON_NOTIFY_ERROR);
	ASSERT_NE(NULL, done);
	ASSERT_NE(NULL, err);

	/* 200000 bytes to device memory of NC 0: 4 packets, one entry. */
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, self->host, 0, self->dev, 0, NULL, NULL, 200000,
				    0, NULL));
	ASSERT_EQ(1U, done->head);
	e = notify_entry(done, 0);
	EXPECT_EQ(0U, e->seq);
	EXPECT_EQ(NEURON_NOTIFY_COMPLETION, e->type);
	EXPECT_EQ(0U, e->nc);
	EXPECT_EQ(0U, e->code);		/* engine 0: NC 0's first */
	EXPECT_EQ(0U, e->data);		/* a synchronous call: tag 0 */
	EXPECT_EQ(0U, err->head);

	/* An asynchronous one: its entry carries its sequence number. */
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, self->host, 0, self->dev, 0, NULL, NULL, 200000,
				    NEURON_COPY_ASYNC, &seq));
	ASSERT_EQ(0, neuron_wait_seq(self->node.fd, seq, neuron_now_ns() + 10000000000LL));
	ASSERT_EQ(2U, done->head);
	EXPECT_EQ((__u32)seq, notify_entry(done, 1)->data);

	ASSERT_EQ(0, neuron_sim_knob(&self->node, "dma_fail_next", "1"));
	ASSERT_EQ(-EIO, neuron_copy_op(self->node.fd, self->host, 0, self->dev, 0, NULL, NULL, 4096,
				       0, NULL));
	ASSERT_EQ(1U, err->head);
	e = notify_entry(err, 0);
	EXPECT_EQ(NEURON_NOTIFY_ERROR, e->type);
	EXPECT_EQ(3U, e->code);		/* injected */
	EXPECT_EQ(0U, e->data);		/* the synchronous call's tag */
	EXPECT_EQ(2U, done->head);
}

struct worker {
	int fd;
	__u32 dev;
	unsigned int idx;
	int err;
};

static void *worker_fn(void *p)
{
	struct worker *w = p;
	unsigned char in[8192], out[8192];
	int i, j;

	for (i = 0; i < 50 && !w->err; i++) {
		for (j = 0; j < 8192; j++)
			in[j] = w->idx * 31 + i + j;
		w->err = neuron_copy_op(w->fd, 0, 0, w->dev, w->idx * 8192, in, NULL, 8192, 0,
					NULL);
		if (!w->err)
			w->err = neuron_copy_op(w->fd, w->dev, w->idx * 8192, 0, 0, NULL, out, 8192,
						0, NULL);
		if (!w->err && memcmp(in, out, 8192))
			w->err = -EBADMSG;
	}
	return NULL;
}

TEST_F(copy, threads_on_one_file)
{
	struct worker w[4];
	pthread_t t[4];
	int i;

	for (i = 0; i < 4; i++) {
		w[i] = (struct worker){ .fd = self->node.fd, .dev = self->dev, .idx = i };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, worker_fn, &w[i]));
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, w[i].err) TH_LOG("thread %d: %s", i, strerror(-w[i].err));
	}
}

TEST_F(copy, processes_on_own_files)
{
	pid_t pid[3];
	int i, status;

	for (i = 0; i < 3; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i]) {
			struct worker w = { .fd = open(self->node.path, O_RDWR), .idx = i };
			struct neuron_mem_alloc a;

			if (w.fd < 0 || neuron_mem_alloc(w.fd, NEURON_MEM_DEVICE, 65536, 0, &a))
				_exit(2);
			w.dev = a.handle;
			worker_fn(&w);
			_exit(w.err ? 1 : 0);
		}
	}
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	}
}

/* Closing a file with copies in flight loses nothing and frees everything. */
TEST_F(copy, release_with_copies_in_flight)
{
	struct neuron_mem_usage_buf u;
	int fd2, i;
	__u64 seq;
	__u32 h;

	if (!self->node.created)
		SKIP(return, "needs the simulator's latency knob");
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "dma_latency_us", "20000"));
	fd2 = open(self->node.path, O_RDWR);
	ASSERT_LE(0, fd2);
	h = alloc_or_die(_metadata, fd2, NEURON_MEM_DEVICE, 1 << 20, NULL);
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, neuron_copy_op(fd2, h, 0, h, 4096, NULL, NULL, 65536,
					    NEURON_COPY_ASYNC, &seq));
	close(fd2);
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "dma_latency_us", "0"));
	/* The memory of the closed file goes once its copies are done. */
	for (i = 0; i < 200; i++) {
		ASSERT_EQ(0, neuron_query_mem_usage(self->node.fd, &u, NULL));
		if (u.u.device_bytes == 2 * (SMALL + 8192))
			break;
		neuron_sleep_ms(10);
	}
	EXPECT_EQ(2 * (SMALL + 8192), u.u.device_bytes);
}

TEST_HARNESS_MAIN
