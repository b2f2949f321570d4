// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: mmap offsets of memory objects (docs/uapi.md, "mmap()").
 * Offsets come from a per-device allocator, not from the handle number, so
 * that every object of a file with thousands of handles can be mapped, by a
 * 64-bit program and by a 32-bit one (this file is also built -m32, as
 * neuron_mmap_32: mmap64() there is the mmap2 syscall, whose page offset is
 * 32 bits wide). Checked: offsets lie in the documented range and never
 * overlap, handles 16, 17 and the last of a few thousand map to their own
 * memory (whole and page ranges), a freed object's offset maps nothing, an
 * offset is reused only once its object is gone (freed and unmapped), and
 * another file cannot map our offsets. Runs on a v2 and a v3 device.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>

#include "neuron_test.h"

#define MEM_MB		64
/* Offsets of memory objects: from 128 MiB to 16 TiB (2^32 pages). */
#define MMAP_MEM_START	(128ULL << 20)
#define MMAP_END	0x100000000000ULL
/* Objects of the many-handle test: more than 16, a few thousand. */
#define MANY		3000

FIXTURE(mmap) {
	struct neuron_node node;
	struct neuron_device_info info;
	size_t page;
	__u32 *handles;
	__u64 *offsets;
};

FIXTURE_VARIANT(mmap) NEURON_ARCH_VARIANT;
FIXTURE_VARIANT_ADD(mmap, v2) NEURON_ARCH_V2_VARIANT;
FIXTURE_VARIANT_ADD(mmap, v3) NEURON_ARCH_V3_VARIANT;

FIXTURE_SETUP(mmap)
{
	int err;

	self->page = sysconf(_SC_PAGESIZE);
	self->handles = calloc(MANY, sizeof(*self->handles));
	self->offsets = calloc(MANY, sizeof(*self->offsets));
	ASSERT_TRUE(self->handles && self->offsets);
	neuron_setup_node(_metadata, &self->node, variant->name, MEM_MB);
	err = neuron_query_info(self->node.fd, &self->info, NULL);
	if (err)
		neuron_node_release(&self->node);
	ASSERT_EQ(0, err) TH_LOG("query: %s", strerror(-err));
}

FIXTURE_TEARDOWN(mmap)
{
	neuron_node_release(&self->node);
	free(self->handles);
	free(self->offsets);
}

/* MEM_ALLOC of @pages pages or fail the test; @offset gets its offset. */
static __u32 alloc_pages(struct __test_metadata *_metadata,
			 struct _test_data_mmap *self, int fd, __u32 kind,
			 size_t pages, __u64 *offset)
{
	struct neuron_mem_alloc a;
	int err = neuron_mem_alloc(fd, kind, pages * self->page, 0, &a);

	EXPECT_EQ(0, err) TH_LOG("MEM_ALLOC %zu pages: %s", pages, strerror(-err));
	if (err)
		return 0;
	/* Page aligned, past the rings, the whole object below 2^32 pages. */
	EXPECT_EQ(0ULL, a.mmap_offset % self->page);
	EXPECT_LE(MMAP_MEM_START, a.mmap_offset);
	EXPECT_GE(MMAP_END, a.mmap_offset + pages * self->page)
		TH_LOG("handle %u offset %#llx", a.handle, (unsigned long long)a.mmap_offset);
	*offset = a.mmap_offset;
	return a.handle;
}

/* mmap64(): on a 32-bit build too, the offset is not cut to 32 bits. */
static unsigned char *map(int fd, __u64 offset, size_t len, int prot)
{
	void *p = mmap64(NULL, len, prot, MAP_SHARED, fd, (off64_t)offset);

	return p == MAP_FAILED ? NULL : p;
}

/* Map @len bytes at @offset read-write or fail the test. */
static unsigned char *map_ok(struct __test_metadata *_metadata, int fd,
			     __u64 offset, size_t len)
{
	unsigned char *p = map(fd, offset, len, PROT_READ | PROT_WRITE);

	EXPECT_NE(NULL, p) TH_LOG("mmap offset %#llx len %zu: %s",
				  (unsigned long long)offset, len, strerror(errno));
	return p;
}

/* mmap() of @offset must fail with EINVAL. */
static void expect_no_map(struct __test_metadata *_metadata, int fd, __u64 offset,
			  size_t len)
{
	unsigned char *p = map(fd, offset, len, PROT_READ);

	EXPECT_EQ(NULL, p) TH_LOG("offset %#llx mapped", (unsigned long long)offset);
	if (p)
		munmap(p, len);
	else
		EXPECT_EQ(EINVAL, errno) TH_LOG("offset %#llx", (unsigned long long)offset);
}

static unsigned char pattern(__u32 seed, size_t i)
{
	return (unsigned char)(seed * 131 + i * 7 + (i >> 12) * 13 + 1);
}

/* Write a pattern of @seed through one mapping, read it through another. */
static void write_read_back(struct __test_metadata *_metadata, int fd,
			    __u64 offset, size_t len, __u32 seed)
{
	unsigned char *w = map_ok(_metadata, fd, offset, len), *r;
	size_t i, bad = 0;

	ASSERT_NE(NULL, w);
	for (i = 0; i < len; i++)
		w[i] = pattern(seed, i);
	ASSERT_EQ(0, munmap(w, len));
	r = map_ok(_metadata, fd, offset, len);
	ASSERT_NE(NULL, r);
	for (i = 0; i < len; i++)
		bad += r[i] != pattern(seed, i);
	EXPECT_EQ(0U, bad) TH_LOG("offset %#llx: %zu bytes differ",
				  (unsigned long long)offset, bad);
	munmap(r, len);
}

/* The data of @len bytes at @offset is the pattern of @seed. */
static void expect_pattern(struct __test_metadata *_metadata, int fd,
			   __u64 offset, size_t len, __u32 seed, size_t base)
{
	unsigned char *r = map(fd, offset, len, PROT_READ);
	size_t i, bad = 0;

	ASSERT_NE(NULL, r) TH_LOG("mmap offset %#llx: %s", (unsigned long long)offset,
				  strerror(errno));
	for (i = 0; i < len; i++)
		bad += r[i] != pattern(seed, base + i);
	EXPECT_EQ(0U, bad) TH_LOG("offset %#llx: %zu bytes differ",
				  (unsigned long long)offset, bad);
	munmap(r, len);
}

/*
 * A few thousand objects of one page (host memory; every 64th device
 * memory): all offsets distinct, and handles 16, 17 and the last map to
 * their own memory.
 */
TEST_F(mmap, many_handles)
{
	const int picks[] = { 15, 16, MANY - 1 };
	size_t page = self->page;
	unsigned int i, j, dups = 0;

	if (neuron_skip_no_mem(_metadata, &self->node, self->info.caps))
		return;
	for (i = 0; i < MANY; i++) {
		__u32 kind = i % 64 == 63 ? NEURON_MEM_DEVICE : NEURON_MEM_HOST;

		self->handles[i] = alloc_pages(_metadata, self, self->node.fd, kind, 1,
					       &self->offsets[i]);
		ASSERT_NE(0U, self->handles[i]) TH_LOG("object %u", i);
	}
	/* A fresh file numbers its handles from 1. */
	EXPECT_EQ(16U, self->handles[15]);
	EXPECT_EQ(17U, self->handles[16]);
	/* One-page objects: distinct offsets never overlap. */
	for (i = 0; i < MANY; i++)
		for (j = i + 1; j < MANY; j++)
			dups += self->offsets[i] == self->offsets[j];
	EXPECT_EQ(0U, dups);
	for (i = 0; i < ARRAY_SIZE(picks); i++)
		write_read_back(_metadata, self->node.fd, self->offsets[picks[i]], page,
				self->handles[picks[i]]);
	/* Each kept its own data. */
	for (i = 0; i < ARRAY_SIZE(picks); i++)
		expect_pattern(_metadata, self->node.fd, self->offsets[picks[i]], page,
			       self->handles[picks[i]], 0);
	/* Handle 16 freed: its offset maps nothing, 17's still works. */
	EXPECT_EQ(0, neuron_mem_free(self->node.fd, self->handles[15]));
	expect_no_map(_metadata, self->node.fd, self->offsets[15], page);
	expect_pattern(_metadata, self->node.fd, self->offsets[16], page,
		       self->handles[16], 0);
}

/* Multi-page objects past handle 16: page ranges map the right pages. */
TEST_F(mmap, page_ranges)
{
	size_t page = self->page, len = 8 * page;
	__u64 off = 0, prev = 0;
	unsigned int i;
	__u32 h = 0;

	if (neuron_skip_no_mem(_metadata, &self->node, self->info.caps))
		return;
	for (i = 0; i < 20; i++) {
		prev = off;
		h = alloc_pages(_metadata, self, self->node.fd,
				i % 2 ? NEURON_MEM_DEVICE : NEURON_MEM_HOST, 8, &off);
		ASSERT_NE(0U, h);
		/* No overlap with the previous object. */
		if (prev)
			EXPECT_TRUE(off >= prev + len || off + len <= prev);
		write_read_back(_metadata, self->node.fd, off, len, h);
	}
	EXPECT_EQ(20U, h);
	/* Pages 3..5 of handle 20, and its last page alone. */
	expect_pattern(_metadata, self->node.fd, off + 3 * page, 3 * page, h, 3 * page);
	expect_pattern(_metadata, self->node.fd, off + 7 * page, page, h, 7 * page);
	/* Past the end: refused, also where the next object follows at once. */
	expect_no_map(_metadata, self->node.fd, off + 7 * page, 2 * page);
	expect_no_map(_metadata, self->node.fd, prev + 7 * page, 2 * page);
	expect_no_map(_metadata, self->node.fd, prev, len + page);
	expect_pattern(_metadata, self->node.fd, prev + 7 * page, page, h - 1, 7 * page);
	expect_no_map(_metadata, self->node.fd, off + 1, page);
}

/*
 * Offsets are reused lowest first, and only once the object is gone: a
 * freed, unmapped object's offset goes to the next object of its size; a
 * mapped one keeps its offset (which maps nothing new) until unmapped.
 */
TEST_F(mmap, freed_offsets)
{
	size_t page = self->page, len = 2 * page;
	__u64 off_a, off_b, off_c, off_d, off_e, off_f;
	unsigned char *p;
	__u32 a, d;
	int i;

	if (neuron_skip_no_sim(_metadata, &self->node, self->info.caps))
		return;
	/* Past handle 16 first. */
	for (i = 0; i < 16; i++)
		ASSERT_NE(0U, alloc_pages(_metadata, self, self->node.fd, NEURON_MEM_HOST,
					  1, &off_b));
	a = alloc_pages(_metadata, self, self->node.fd, NEURON_MEM_HOST, 2, &off_a);
	ASSERT_NE(0U, a);
	ASSERT_NE(0U, alloc_pages(_metadata, self, self->node.fd, NEURON_MEM_HOST, 2, &off_b));
	/* Freed without a mapping: gone, and its offset is the next one given. */
	EXPECT_EQ(0, neuron_mem_free(self->node.fd, a));
	expect_no_map(_metadata, self->node.fd, off_a, len);
	ASSERT_NE(0U, alloc_pages(_metadata, self, self->node.fd, NEURON_MEM_DEVICE, 2, &off_c));
	EXPECT_EQ(off_a, off_c);
	write_read_back(_metadata, self->node.fd, off_c, len, 3);

	/* Freed while mapped: the mapping works, the offset maps nothing. */
	d = alloc_pages(_metadata, self, self->node.fd, NEURON_MEM_HOST, 2, &off_d);
	ASSERT_NE(0U, d);
	p = map_ok(_metadata, self->node.fd, off_d, len);
	ASSERT_NE(NULL, p);
	p[0] = 0x5a;
	p[len - 1] = 0xa5;
	EXPECT_EQ(0, neuron_mem_free(self->node.fd, d));
	expect_no_map(_metadata, self->node.fd, off_d, len);
	EXPECT_EQ(0x5a, p[0]);
	EXPECT_EQ(0xa5, p[len - 1]);
	/* Not reused while mapped, even by the same handle number. */
	ASSERT_EQ(d, alloc_pages(_metadata, self, self->node.fd, NEURON_MEM_HOST, 2, &off_e));
	EXPECT_NE(off_d, off_e);
	expect_no_map(_metadata, self->node.fd, off_d, len);
	EXPECT_EQ(0x5a, p[0]);
	/* Unmapped: the object is gone, its offset goes to the next one. */
	ASSERT_EQ(0, munmap(p, len));
	ASSERT_NE(0U, alloc_pages(_metadata, self, self->node.fd, NEURON_MEM_HOST, 2, &off_f));
	EXPECT_EQ(off_d, off_f);
	/* Fresh memory behind the old offset: zeroed. */
	p = map_ok(_metadata, self->node.fd, off_f, len);
	ASSERT_NE(NULL, p);
	EXPECT_EQ(0, p[0]);
	EXPECT_EQ(0, p[len - 1]);
	munmap(p, len);
}

/*
 * Offsets belong to the file that made the object: another file of the
 * device gets other offsets for its own handles and cannot map ours, not
 * even with a handle of the same number alive.
 */
TEST_F(mmap, other_file)
{
	size_t page = self->page;
	__u64 off[18], off2[18];
	unsigned int i;
	int fd2;

	if (neuron_skip_no_mem(_metadata, &self->node, self->info.caps))
		return;
	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	for (i = 0; i < 18; i++) {
		ASSERT_EQ(i + 1, alloc_pages(_metadata, self, self->node.fd,
					     NEURON_MEM_HOST, 1, &off[i]));
		ASSERT_EQ(i + 1, alloc_pages(_metadata, self, fd2, NEURON_MEM_DEVICE,
					     1, &off2[i]));
		EXPECT_NE(off[i], off2[i]);
	}
	for (i = 15; i < 18; i++) {
		write_read_back(_metadata, self->node.fd, off[i], page, i);
		write_read_back(_metadata, fd2, off2[i], page, 100 + i);
		expect_no_map(_metadata, fd2, off[i], page);
		expect_no_map(_metadata, self->node.fd, off2[i], page);
	}
	/* Still each file's own data. */
	expect_pattern(_metadata, self->node.fd, off[16], page, 16, 0);
	expect_pattern(_metadata, fd2, off2[16], page, 116, 0);
	close(fd2);
	/* fd2 closed: its objects are gone, their offsets still map nothing. */
	expect_no_map(_metadata, self->node.fd, off2[16], page);
}

TEST_HARNESS_MAIN
