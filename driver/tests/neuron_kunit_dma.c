// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: KUnit suites for the DMA path's pure logic (part of
 * neuron_kunit.ko):
 *   neuron_ring - free-running index math, wrap count, device index checks
 *   neuron_desc - descriptor encoding and decoding
 *   neuron_copy - validation of COPY requests
 *   neuron_dram - placement of device memory in DRAM channels
 *   neuron_mmap - the allocator of mmap offsets
 */
#include <kunit/test.h>
#include <linux/sizes.h>

#include <neuron.h>

#include "neuron_common.h"
#include "tests/neuron_kunit.h"
#include "neuron_device.h"
#include "neuron_mem.h"
#include "neuron_copy.h"
#include "dma/neuron_ring.h"
#include "dma/neuron_desc.h"
#include "ndhal/ndhal.h"

static void ring_slot_and_gen(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, neuron_ring_slot(16, 0), 0);
	KUNIT_EXPECT_EQ(test, neuron_ring_slot(16, 17), 1);
	KUNIT_EXPECT_EQ(test, neuron_ring_slot(4096, 0xffffffff), 4095);
	KUNIT_EXPECT_EQ(test, neuron_ring_gen(16, 15), 0);
	KUNIT_EXPECT_EQ(test, neuron_ring_gen(16, 16), 1);
	KUNIT_EXPECT_EQ(test, neuron_ring_gen(16, 64), 0);
	KUNIT_EXPECT_EQ(test, neuron_ring_gen(4096, 3 * 4096 + 5), 3);
	/* The u32 wrap keeps the generation sequence: ...3, then 0. */
	KUNIT_EXPECT_EQ(test, neuron_ring_gen(4096, 0xffffffff), 3);
	KUNIT_EXPECT_EQ(test, neuron_ring_gen(4096, 0), 0);
}

static void ring_space(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, neuron_ring_space(16, 0, 0), 16);
	KUNIT_EXPECT_EQ(test, neuron_ring_space(16, 16, 0), 0);
	KUNIT_EXPECT_EQ(test, neuron_ring_space(16, 20, 10), 6);
	/* Across the u32 wrap. */
	KUNIT_EXPECT_EQ(test, neuron_ring_space(16, 3, 0xfffffffe), 11);
}

static void ring_index_valid(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, neuron_ring_index_valid(10, 20, 10));
	KUNIT_EXPECT_TRUE(test, neuron_ring_index_valid(10, 20, 20));
	KUNIT_EXPECT_TRUE(test, neuron_ring_index_valid(10, 20, 15));
	KUNIT_EXPECT_FALSE(test, neuron_ring_index_valid(10, 20, 9));
	KUNIT_EXPECT_FALSE(test, neuron_ring_index_valid(10, 20, 21));
	KUNIT_EXPECT_FALSE(test, neuron_ring_index_valid(10, 20, 0x80000000));
	KUNIT_EXPECT_TRUE(test, neuron_ring_index_valid(0xfffffff0, 5, 2));
	KUNIT_EXPECT_FALSE(test, neuron_ring_index_valid(0xfffffff0, 5, 6));
	KUNIT_EXPECT_FALSE(test, neuron_ring_index_valid(0xfffffff0, 5, 0xffffffef));
}

NEURON_KUNIT_SUITE(neuron_ring,
		   KUNIT_CASE(ring_slot_and_gen),
		   KUNIT_CASE(ring_space),
		   KUNIT_CASE(ring_index_valid));

static void desc_encode_fields(struct kunit *test)
{
	struct neuron_udma_desc d;
	u32 ctrl;

	neuron_desc_encode(&d, 0x1000123456789abcULL, 4096, 2,
			   NEURON_DESC_FIRST | NEURON_DESC_LAST | NEURON_DESC_INT);
	ctrl = le32_to_cpu(d.ctrl);
	KUNIT_EXPECT_EQ(test, ctrl & 0xffff, 4096);
	KUNIT_EXPECT_EQ(test, (ctrl >> 24) & 3, 2);
	KUNIT_EXPECT_TRUE(test, ctrl & BIT(26));
	KUNIT_EXPECT_TRUE(test, ctrl & BIT(27));
	KUNIT_EXPECT_TRUE(test, ctrl & BIT(28));
	KUNIT_EXPECT_FALSE(test, ctrl & BIT(30));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d.meta), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(d.addr), 0x1000123456789abcULL);
	KUNIT_EXPECT_EQ(test, neuron_desc_len(ctrl), 4096);
	KUNIT_EXPECT_EQ(test, neuron_desc_ring_id(ctrl), 2);
}

static void desc_len_limits(struct kunit *test)
{
	struct neuron_udma_desc d;
	u32 len;

	for (len = 1; len <= NEURON_DESC_MAX_LEN; len = len * 2 + 1) {
		neuron_desc_encode(&d, 0, len, 0, 0);
		KUNIT_EXPECT_EQ(test, neuron_desc_len(le32_to_cpu(d.ctrl)), len);
	}
	/* 64 KiB is encoded as 0 and decodes back. */
	neuron_desc_encode(&d, 0, NEURON_DESC_MAX_LEN, 0, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d.ctrl) & 0xffff, 0);
	KUNIT_EXPECT_EQ(test, neuron_desc_len(le32_to_cpu(d.ctrl)), NEURON_DESC_MAX_LEN);
	/* The ring id cannot spill into the flags. */
	neuron_desc_encode(&d, 0, 1, 7, 0);
	KUNIT_EXPECT_EQ(test, neuron_desc_ring_id(le32_to_cpu(d.ctrl)), 3);
	KUNIT_EXPECT_FALSE(test, le32_to_cpu(d.ctrl) & NEURON_DESC_FIRST);
}

NEURON_KUNIT_SUITE(neuron_desc,
		   KUNIT_CASE(desc_encode_fields),
		   KUNIT_CASE(desc_len_limits));

static void copy_check_good(struct kunit *test)
{
	struct neuron_copy c = { .src_handle = 1, .dst_handle = 2, .size = 1 };

	KUNIT_EXPECT_EQ(test, neuron_copy_check(&c), 0);
	c.flags = NEURON_COPY_ASYNC;
	c.src_offset = 5;
	KUNIT_EXPECT_EQ(test, neuron_copy_check(&c), 0);
	c = (struct neuron_copy){ .src_ptr = 0x1000, .dst_handle = 2, .dst_offset = 3,
				  .size = 7 };
	KUNIT_EXPECT_EQ(test, neuron_copy_check(&c), 0);
	c = (struct neuron_copy){ .src_handle = 1, .dst_ptr = 0x1000, .size = 7 };
	KUNIT_EXPECT_EQ(test, neuron_copy_check(&c), 0);
	c.flags = NEURON_COPY_ASYNC;
	KUNIT_EXPECT_EQ(test, neuron_copy_check(&c), 0);
}

static void copy_check_bad(struct kunit *test)
{
	static const struct {
		const char *what;
		struct neuron_copy c;
	} bad[] = {
		{ "size 0", { .src_handle = 1, .dst_handle = 2 } },
		{ "flags", { .src_handle = 1, .dst_handle = 2, .size = 1, .flags = 2 } },
		{ "pad", { .src_handle = 1, .dst_handle = 2, .size = 1, .pad = 1 } },
		{ "reserved[0]", { .src_handle = 1, .dst_handle = 2, .size = 1,
				   .reserved = { 1, 0 } } },
		{ "reserved[1]", { .src_handle = 1, .dst_handle = 2, .size = 1,
				   .reserved = { 0, 1 } } },
		{ "two pointers", { .src_ptr = 1, .dst_ptr = 2, .size = 1 } },
		{ "no side", { .size = 1 } },
		{ "handle and pointer", { .src_handle = 1, .src_ptr = 8, .dst_handle = 2,
					  .size = 1 } },
		{ "pointer with offset", { .src_ptr = 8, .src_offset = 1, .dst_handle = 2,
					   .size = 1 } },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, neuron_copy_check(&bad[i].c), -EINVAL,
				    "%s", bad[i].what);
}

NEURON_KUNIT_SUITE(neuron_copy,
		   KUNIT_CASE(copy_check_good),
		   KUNIT_CASE(copy_check_bad));

/* A v3 device (4 channels) of 64 MiB: 4096 pages per channel. */
#define DRAM_CH_PAGES	(SZ_16M >> PAGE_SHIFT)

static struct neuron_device *dram_device(struct kunit *test)
{
	struct neuron_device *nd = kunit_kzalloc(test, sizeof(*nd), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, nd);
	nd->hal = &ndhal_sim_v3;
	nd->dram_size = SZ_64M;
	/* As neuron_device_create() sets them without a backend's bases. */
	for (i = 0; i < 4; i++)
		nd->dram_base[i] = (u64)i * SZ_16M;
	neuron_device_mem_init(nd);
	return nd;
}

static struct neuron_mem *dram_mem(struct kunit *test, unsigned long npages)
{
	struct neuron_mem *mem = kunit_kzalloc(test, sizeof(*mem), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mem);
	mem->npages = npages;
	return mem;
}

static u64 dram_place(struct kunit *test, struct neuron_device *nd,
		      struct neuron_mem *mem, u32 channel, unsigned long align)
{
	KUNIT_ASSERT_EQ(test, neuron_dram_place(nd, mem, channel, align), 0);
	return mem->dev_addr;
}

static void dram_channels_and_alignment(struct kunit *test)
{
	struct neuron_device *nd = dram_device(test);
	struct neuron_mem *a = dram_mem(test, 1), *b = dram_mem(test, 3);
	struct neuron_mem *c = dram_mem(test, 1);

	KUNIT_EXPECT_EQ(test, dram_place(test, nd, a, 1, 1), (u64)SZ_16M);
	KUNIT_EXPECT_EQ(test, a->channel, 1);
	/* Next free page, then the next 256-page (1 MiB) boundary. */
	KUNIT_EXPECT_EQ(test, dram_place(test, nd, b, 1, 1), (u64)SZ_16M + PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, dram_place(test, nd, c, 1, 256), (u64)SZ_16M + SZ_1M);
	neuron_dram_unplace(nd, a);
	neuron_dram_unplace(nd, b);
	neuron_dram_unplace(nd, c);
	neuron_device_mem_fini(nd);
}

static void dram_full_and_exact_fit(struct kunit *test)
{
	struct neuron_device *nd = dram_device(test);
	struct neuron_mem *whole = dram_mem(test, DRAM_CH_PAGES);
	struct neuron_mem *one = dram_mem(test, 1);
	struct neuron_mem *big = dram_mem(test, DRAM_CH_PAGES + 1);

	/* A whole channel aligned to its own size fits exactly. */
	KUNIT_EXPECT_EQ(test, dram_place(test, nd, whole, 2, DRAM_CH_PAGES),
			(u64)SZ_32M);
	KUNIT_EXPECT_EQ(test, neuron_dram_place(nd, one, 2, 1), -ENOMEM);
	/* Larger than a channel, or aligned past the channel's end: no room. */
	KUNIT_EXPECT_EQ(test, neuron_dram_place(nd, big, 0, 1), -ENOMEM);
	KUNIT_EXPECT_EQ(test, neuron_dram_place(nd, one, 3, 2 * DRAM_CH_PAGES), -ENOMEM);
	/* Never outside the channel asked for. */
	KUNIT_EXPECT_EQ(test, dram_place(test, nd, one, 3, DRAM_CH_PAGES), (u64)SZ_32M + SZ_16M);
	neuron_dram_unplace(nd, whole);
	neuron_dram_unplace(nd, one);
	neuron_device_mem_fini(nd);
}

static void dram_reuses_holes(struct kunit *test)
{
	struct neuron_device *nd = dram_device(test);
	struct neuron_mem *m[3], *again = dram_mem(test, 1);
	int i;

	for (i = 0; i < 3; i++) {
		m[i] = dram_mem(test, 1);
		KUNIT_EXPECT_EQ(test, dram_place(test, nd, m[i], 0, 1), (u64)i * PAGE_SIZE);
	}
	neuron_dram_unplace(nd, m[1]);
	KUNIT_EXPECT_EQ(test, dram_place(test, nd, again, 0, 1), (u64)PAGE_SIZE);
	neuron_dram_unplace(nd, m[0]);
	neuron_dram_unplace(nd, again);
	neuron_dram_unplace(nd, m[2]);
	neuron_device_mem_fini(nd);
}

/*
 * A backend's own channel bases (the PCI backend's start past a carve-out,
 * at addresses unrelated to the channel's index): addresses come from the
 * channel's base, and unplacing finds the range again.
 */
static void dram_backend_bases(struct kunit *test)
{
	struct neuron_device *nd = dram_device(test);
	struct neuron_mem *a = dram_mem(test, 2), *b = dram_mem(test, 1);
	struct neuron_mem *again = dram_mem(test, 2);
	u64 base2 = 0x2000000000ULL + SZ_16M;

	nd->dram_base[2] = base2;
	KUNIT_EXPECT_EQ(test, dram_place(test, nd, a, 2, 1), base2);
	KUNIT_EXPECT_EQ(test, dram_place(test, nd, b, 2, 1), base2 + 2 * PAGE_SIZE);
	neuron_dram_unplace(nd, a);
	/* a's range is free again: the lowest fit is where it was. */
	KUNIT_EXPECT_EQ(test, dram_place(test, nd, again, 2, 1), base2);
	neuron_dram_unplace(nd, b);
	neuron_dram_unplace(nd, again);
	neuron_device_mem_fini(nd);
}

NEURON_KUNIT_SUITE(neuron_dram,
		   KUNIT_CASE(dram_channels_and_alignment),
		   KUNIT_CASE(dram_backend_bases),
		   KUNIT_CASE(dram_full_and_exact_fit),
		   KUNIT_CASE(dram_reuses_holes));

/* ---- neuron_mmap ---- */

static u64 offset_alloc(struct kunit *test, struct neuron_device *nd,
			struct neuron_mem *mem)
{
	KUNIT_ASSERT_EQ(test, neuron_mmap_offset_alloc(nd, mem), 0);
	KUNIT_EXPECT_GE(test, mem->mmap_pgoff, NEURON_MMAP_MEM_START);
	KUNIT_EXPECT_LE(test, mem->mmap_pgoff + mem->npages - 1, NEURON_MMAP_PGOFF_MAX);
	return mem->mmap_pgoff;
}

/* Lowest free range first, above the rings; found by any page inside. */
static void mmap_offsets_lowest_first(struct kunit *test)
{
	struct neuron_device *nd = dram_device(test);
	struct neuron_mem *a = dram_mem(test, 1), *b = dram_mem(test, 3);
	struct neuron_mem *c = dram_mem(test, 2);
	const unsigned long start = NEURON_MMAP_MEM_START;
	u32 handle;

	a->handle = 1;
	b->handle = 2;
	KUNIT_EXPECT_EQ(test, offset_alloc(test, nd, a), start);
	KUNIT_EXPECT_EQ(test, offset_alloc(test, nd, b), start + 1);
	KUNIT_EXPECT_PTR_EQ(test, neuron_mmap_offset_find(nd, start, &handle), a);
	KUNIT_EXPECT_EQ(test, handle, 1);
	KUNIT_EXPECT_PTR_EQ(test, neuron_mmap_offset_find(nd, start + 3, &handle), b);
	KUNIT_EXPECT_EQ(test, handle, 2);
	KUNIT_EXPECT_NULL(test, neuron_mmap_offset_find(nd, start + 4, &handle));
	KUNIT_EXPECT_EQ(test, handle, 0);
	KUNIT_EXPECT_NULL(test, neuron_mmap_offset_find(nd, start - 1, &handle));
	/* A freed range is free again: c (2 pages) does not fit a's hole. */
	neuron_mmap_offset_free(nd, a);
	KUNIT_EXPECT_EQ(test, a->mmap_pgoff, 0);
	KUNIT_EXPECT_NULL(test, neuron_mmap_offset_find(nd, start, &handle));
	KUNIT_EXPECT_EQ(test, offset_alloc(test, nd, c), start + 4);
	KUNIT_EXPECT_EQ(test, offset_alloc(test, nd, a), start);
	/* Freeing an object without a range does nothing. */
	neuron_mmap_offset_free(nd, a);
	neuron_mmap_offset_free(nd, a);
	neuron_mmap_offset_free(nd, b);
	neuron_mmap_offset_free(nd, c);
	neuron_device_mem_fini(nd);
}

/* The space ends at the last page offset of a 32-bit mmap2(). */
static void mmap_offsets_end_of_space(struct kunit *test)
{
	unsigned long room = NEURON_MMAP_PGOFF_MAX - NEURON_MMAP_MEM_START + 1;
	struct neuron_device *nd = dram_device(test);
	struct neuron_mem *big = dram_mem(test, room - 1), *one = dram_mem(test, 1);
	struct neuron_mem *two = dram_mem(test, 2), *all = dram_mem(test, room);
	struct neuron_mem *over = dram_mem(test, room + 1);

	KUNIT_EXPECT_EQ(test, neuron_mmap_offset_alloc(nd, over), -ENOSPC);
	KUNIT_EXPECT_EQ(test, over->mmap_pgoff, 0);
	KUNIT_EXPECT_EQ(test, offset_alloc(test, nd, all), NEURON_MMAP_MEM_START);
	KUNIT_EXPECT_EQ(test, neuron_mmap_offset_alloc(nd, one), -ENOSPC);
	neuron_mmap_offset_free(nd, all);
	KUNIT_EXPECT_EQ(test, offset_alloc(test, nd, big), NEURON_MMAP_MEM_START);
	KUNIT_EXPECT_EQ(test, neuron_mmap_offset_alloc(nd, two), -ENOSPC);
	KUNIT_EXPECT_EQ(test, offset_alloc(test, nd, one), NEURON_MMAP_PGOFF_MAX);
	neuron_mmap_offset_free(nd, big);
	neuron_mmap_offset_free(nd, one);
	neuron_device_mem_fini(nd);
}

NEURON_KUNIT_SUITE(neuron_mmap,
		   KUNIT_CASE(mmap_offsets_lowest_first),
		   KUNIT_CASE(mmap_offsets_end_of_space));

kunit_test_suites(&neuron_ring_suite, &neuron_desc_suite, &neuron_copy_suite,
		  &neuron_dram_suite, &neuron_mmap_suite);
