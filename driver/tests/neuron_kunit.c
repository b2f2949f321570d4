// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: KUnit suites for the driver's pure logic. Built as the separate
 * module neuron_kunit.ko, only against a kernel with CONFIG_KUNIT (the debug
 * test kernel); it reaches the driver through EXPORT_SYMBOL_IF_KUNIT.
 *
 * Suites:
 *   neuron_ndhal - invariants of the per-arch tables
 *   neuron_ioctl - the dispatcher's command lookup
 *   neuron_query - query validation and the device answer
 *   neuron_sim   - parsing of simulated device specifications
 *   neuron_mem   - validation of memory allocation requests
 *   neuron_notify - notification queues: request checks, index math,
 *                  mmap offsets, the simulated device's ring logic
 */
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include <neuron.h>

#include "neuron_common.h"
#include "tests/neuron_kunit.h"
#include "neuron_device.h"
#include "neuron_mem.h"
#include "neuron_ioctl.h"
#include "neuron_notify.h"
#include "neuron_compat.h"
#include "ndhal/ndhal.h"
#include "sim/sim_notify.h"

static const struct ndhal_arch *const neuron_test_archs[] = {
	&ndhal_arch_v1, &ndhal_arch_v2, &ndhal_arch_v3,
};

/* ---- neuron_ndhal ---- */

static void ndhal_arch_ids(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ndhal_arch_v1.arch, NEURON_ARCH_V1);
	KUNIT_EXPECT_EQ(test, ndhal_arch_v2.arch, NEURON_ARCH_V2);
	KUNIT_EXPECT_EQ(test, ndhal_arch_v3.arch, NEURON_ARCH_V3);
	KUNIT_EXPECT_STREQ(test, ndhal_arch_v1.name, "v1");
	KUNIT_EXPECT_STREQ(test, ndhal_arch_v2.name, "v2");
	KUNIT_EXPECT_STREQ(test, ndhal_arch_v3.name, "v3");
}

static void ndhal_counts(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(neuron_test_archs); i++) {
		const struct ndhal_arch *a = neuron_test_archs[i];

		KUNIT_EXPECT_GT_MSG(test, a->nc_count, 0, "%s", a->name);
		/* Every NeuronCore has at least one DMA engine of its own. */
		KUNIT_EXPECT_GE_MSG(test, a->dma_engines, a->nc_count, "%s", a->name);
		KUNIT_EXPECT_TRUE_MSG(test, is_power_of_2(a->dma_queues_per_engine),
				      "%s", a->name);
		KUNIT_EXPECT_TRUE_MSG(test, is_power_of_2(a->dram_channels),
				      "%s", a->name);
		KUNIT_EXPECT_GT_MSG(test, a->semaphores_per_nc, 0, "%s", a->name);
		KUNIT_EXPECT_GT_MSG(test, a->events_per_nc, 0, "%s", a->name);
		/* The name fits the query's field with its NUL. */
		KUNIT_EXPECT_LT(test, strlen(a->name), NEURON_NAME_LEN / 2);
	}
}

static void ndhal_bars(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(neuron_test_archs); i++) {
		const struct ndhal_arch *a = neuron_test_archs[i];

		KUNIT_EXPECT_LT(test, a->reg_bar, PCI_STD_NUM_BARS);
		KUNIT_EXPECT_LT(test, a->dram_bar, PCI_STD_NUM_BARS);
		KUNIT_EXPECT_NE(test, a->reg_bar, a->dram_bar);
		KUNIT_EXPECT_TRUE(test, a->bar_mask & BIT(a->reg_bar));
		KUNIT_EXPECT_TRUE(test, a->bar_mask & BIT(a->dram_bar));
		KUNIT_EXPECT_EQ(test, a->bar_mask & ~GENMASK(PCI_STD_NUM_BARS - 1, 0), 0);
	}
	/* v1 has the AXI BAR2 besides registers and DRAM; v2/v3 do not. */
	KUNIT_EXPECT_EQ(test, ndhal_arch_v1.bar_mask, BIT(0) | BIT(2) | BIT(4));
	KUNIT_EXPECT_EQ(test, ndhal_arch_v2.bar_mask, BIT(0) | BIT(4));
	KUNIT_EXPECT_EQ(test, ndhal_arch_v3.bar_mask, BIT(0) | BIT(4));
}

static void ndhal_sim_tables(struct kunit *test)
{
	KUNIT_EXPECT_PTR_EQ(test, ndhal_sim_v2.arch, &ndhal_arch_v2);
	KUNIT_EXPECT_PTR_EQ(test, ndhal_sim_v3.arch, &ndhal_arch_v3);
	KUNIT_EXPECT_TRUE(test, ndhal_sim_v2.flags & NEURON_DEV_SIMULATED);
	KUNIT_EXPECT_TRUE(test, ndhal_sim_v3.flags & NEURON_DEV_SIMULATED);
	KUNIT_EXPECT_TRUE(test, ndhal_sim_v2.caps & NEURON_CAP_QUERY);
	KUNIT_EXPECT_PTR_EQ(test, ndhal_sim_v2.ops, ndhal_sim_v3.ops);
	KUNIT_EXPECT_STREQ(test, ndhal_sim_v2.ops->name, "sim");
}

NEURON_KUNIT_SUITE(neuron_ndhal,
		   KUNIT_CASE(ndhal_arch_ids),
		   KUNIT_CASE(ndhal_counts),
		   KUNIT_CASE(ndhal_bars),
		   KUNIT_CASE(ndhal_sim_tables));

/* ---- neuron_ioctl ---- */

static void ioctl_lookup_query(struct kunit *test)
{
	const struct neuron_ioctl_desc *d = neuron_ioctl_lookup(NEURON_IOCTL_QUERY);

	KUNIT_ASSERT_FALSE(test, IS_ERR(d));
	KUNIT_EXPECT_EQ(test, d->cmd, NEURON_IOCTL_QUERY);
	KUNIT_EXPECT_EQ(test, d->min_size, sizeof(struct neuron_query));
	KUNIT_EXPECT_NOT_NULL(test, d->fn);
	/* Its answers are the driver's own: no removal guard needed. */
	KUNIT_EXPECT_NE(test, d->flags & NEURON_IOCTL_UNGUARDED, 0);
	KUNIT_EXPECT_EQ(test, d->flags & NEURON_IOCTL_WRITE, 0);
}

/* A read-only file may query, nothing else (docs/uapi.md). */
static void ioctl_write_flags(struct kunit *test)
{
	static const unsigned int cmds[] = {
		NEURON_IOCTL_MEM_ALLOC, NEURON_IOCTL_MEM_FREE, NEURON_IOCTL_COPY,
		NEURON_IOCTL_MEMSET, NEURON_IOCTL_WAIT, NEURON_IOCTL_NOTIFY_SETUP,
		NEURON_IOCTL_NOTIFY_WAIT, NEURON_IOCTL_NOTIFY_TEARDOWN,
		NEURON_IOCTL_NC_RESERVE, NEURON_IOCTL_NC_RELEASE, NEURON_IOCTL_NC_SEM,
		NEURON_IOCTL_MODEL_LOAD, NEURON_IOCTL_MODEL_UNLOAD, NEURON_IOCTL_EXECUTE,
	};
	const struct neuron_ioctl_desc *d;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		d = neuron_ioctl_lookup(cmds[i]);
		KUNIT_ASSERT_FALSE(test, IS_ERR(d));
		KUNIT_EXPECT_EQ(test, d->flags & NEURON_IOCTL_WRITE,
				NEURON_IOCTL_WRITE);
	}
}

static void ioctl_lookup_sizes(struct kunit *test)
{
	unsigned int sz = sizeof(struct neuron_query);
	unsigned int rw = _IOC_READ | _IOC_WRITE;

	/* Longer (newer caller) is the handler's business: found. */
	KUNIT_EXPECT_FALSE(test, IS_ERR(neuron_ioctl_lookup(_IOC(rw, 'N', 0, sz + 8))));
	/* Shorter than the first version: -EINVAL. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(neuron_ioctl_lookup(_IOC(rw, 'N', 0, sz - 8))),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(neuron_ioctl_lookup(_IOC(rw, 'N', 0, 0))), -EINVAL);
}

static void ioctl_lookup_foreign(struct kunit *test)
{
	unsigned int sz = sizeof(struct neuron_query);

	/* Other magic, unknown numbers, wrong direction: not ours. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(neuron_ioctl_lookup(_IOWR('M', 0, struct neuron_query))),
			-ENOTTY);
	KUNIT_EXPECT_EQ(test, PTR_ERR(neuron_ioctl_lookup(_IOWR('N', 0x7f, struct neuron_query))),
			-ENOTTY);
	KUNIT_EXPECT_EQ(test, PTR_ERR(neuron_ioctl_lookup(_IOC(_IOC_WRITE, 'N', 0, sz))),
			-ENOTTY);
	KUNIT_EXPECT_EQ(test, PTR_ERR(neuron_ioctl_lookup(_IOC(_IOC_READ, 'N', 0, sz))),
			-ENOTTY);
	KUNIT_EXPECT_EQ(test, PTR_ERR(neuron_ioctl_lookup(_IO('N', 0))), -ENOTTY);
}

NEURON_KUNIT_SUITE(neuron_ioctl,
		   KUNIT_CASE(ioctl_lookup_query),
		   KUNIT_CASE(ioctl_write_flags),
		   KUNIT_CASE(ioctl_lookup_sizes),
		   KUNIT_CASE(ioctl_lookup_foreign));

/* ---- neuron_query ---- */

static void query_check_zero_fields(struct kunit *test)
{
	struct neuron_query q = { .op = NEURON_QUERY_DEVICE };

	KUNIT_EXPECT_EQ(test, neuron_query_check(&q), 0);
	q.flags = 1;
	KUNIT_EXPECT_EQ(test, neuron_query_check(&q), -EINVAL);
	q.flags = 0;
	q.pad = 1;
	KUNIT_EXPECT_EQ(test, neuron_query_check(&q), -EINVAL);
	q.pad = 0;
	q.reserved[0] = 1;
	KUNIT_EXPECT_EQ(test, neuron_query_check(&q), -EINVAL);
	q.reserved[0] = 0;
	q.reserved[1] = 1ULL << 63;
	KUNIT_EXPECT_EQ(test, neuron_query_check(&q), -EINVAL);
	q.reserved[1] = 0;
	q.op = NEURON_QUERY_COUNT;
	KUNIT_EXPECT_EQ(test, neuron_query_check(&q), -EINVAL);
	q.op = ~0U;
	KUNIT_EXPECT_EQ(test, neuron_query_check(&q), -EINVAL);
}

static void query_device_sim(struct kunit *test)
{
	struct neuron_device *nd = kunit_kzalloc(test, sizeof(*nd), GFP_KERNEL);
	struct neuron_device_info *info = kunit_kmalloc(test, sizeof(*info), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, nd);
	KUNIT_ASSERT_NOT_NULL(test, info);
	nd->hal = &ndhal_sim_v3;
	nd->product = "sim";
	nd->minor = 5;
	nd->sim_id = 42;
	nd->dram_size = 128ULL << 20;
	memset(info, 0xa5, sizeof(*info));	/* the fill must clear this */

	neuron_query_device(nd, info);
	KUNIT_EXPECT_EQ(test, info->uapi_version, NEURON_UAPI_VERSION);
	KUNIT_EXPECT_EQ(test, info->arch, NEURON_ARCH_V3);
	KUNIT_EXPECT_EQ(test, info->flags, NEURON_DEV_SIMULATED);
	KUNIT_EXPECT_EQ(test, info->minor, 5);
	KUNIT_EXPECT_EQ(test, info->sim_id, 42);
	KUNIT_EXPECT_EQ(test, info->pci_vendor, 0);
	KUNIT_EXPECT_EQ(test, info->pci_domain, 0);
	KUNIT_EXPECT_EQ(test, info->pad, 0);
	KUNIT_EXPECT_EQ(test, info->nc_count, 8);
	KUNIT_EXPECT_EQ(test, info->dma_engines, 132);
	KUNIT_EXPECT_EQ(test, info->dram_channels, 4);
	KUNIT_EXPECT_EQ(test, info->dram_size, 128ULL << 20);
	KUNIT_EXPECT_EQ(test, info->dram_channel_size, 32ULL << 20);
	KUNIT_EXPECT_STREQ(test, info->arch_name, "v3");
	KUNIT_EXPECT_STREQ(test, info->product, "sim");
	KUNIT_EXPECT_STREQ(test, info->driver_version, NEURON_DRIVER_VERSION);
}

NEURON_KUNIT_SUITE(neuron_query,
		   KUNIT_CASE(query_check_zero_fields),
		   KUNIT_CASE(query_device_sim));

/* ---- neuron_sim ---- */

static int sim_parse(const char *in, char sep, const struct ndhal **hal,
		     u32 *mem_mb)
{
	char buf[32];

	strscpy(buf, in, sizeof(buf));
	return neuron_sim_parse(buf, sep, hal, mem_mb);
}

static void sim_parse_good(struct kunit *test)
{
	const struct ndhal *hal = NULL;
	u32 mb = 0;

	KUNIT_EXPECT_EQ(test, sim_parse("v2", ':', &hal, &mb), 0);
	KUNIT_EXPECT_PTR_EQ(test, hal, &ndhal_sim_v2);
	KUNIT_EXPECT_EQ(test, mb, 256);
	KUNIT_EXPECT_EQ(test, sim_parse("v3:1024", ':', &hal, &mb), 0);
	KUNIT_EXPECT_PTR_EQ(test, hal, &ndhal_sim_v3);
	KUNIT_EXPECT_EQ(test, mb, 1024);
	KUNIT_EXPECT_EQ(test, sim_parse("v2 1", ' ', &hal, &mb), 0);
	KUNIT_EXPECT_EQ(test, mb, 1);
	KUNIT_EXPECT_EQ(test, sim_parse("v3 65536", ' ', &hal, &mb), 0);
	KUNIT_EXPECT_EQ(test, mb, 65536);
}

static void sim_parse_bad(struct kunit *test)
{
	static const struct {
		const char *spec;
		char sep;
	} bad[] = {
		{ "", ':' }, { "v1", ':' }, { "v4", ':' }, { "V2", ':' },
		{ "v2:", ':' }, { "v2:0", ':' }, { "v2:65537", ':' },
		{ "v2:-1", ':' }, { "v2:12x", ':' }, { "v3:99999999999", ':' },
		{ "v2:1:2", ':' }, { "v2 ", ' ' }, { "v2 0", ' ' },
		/* The separator matters: a space is not accepted where ':' is. */
		{ "v2 64", ':' },
	};
	const struct ndhal *hal;
	u32 mb;
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, sim_parse(bad[i].spec, bad[i].sep, &hal, &mb),
				    -EINVAL, "spec \"%s\"", bad[i].spec);
}

NEURON_KUNIT_SUITE(neuron_sim,
		   KUNIT_CASE(sim_parse_good),
		   KUNIT_CASE(sim_parse_bad));

/* ---- neuron_mem ---- */

static void mem_check_good(struct kunit *test)
{
	struct neuron_mem_alloc a = { .size = 1, .kind = NEURON_MEM_HOST };

	KUNIT_EXPECT_EQ(test, neuron_mem_check(&a, &ndhal_arch_v2), 0);
	a.kind = NEURON_MEM_DEVICE;
	a.align = 4096;
	a.channel = 1;
	a.nc = 1;
	KUNIT_EXPECT_EQ(test, neuron_mem_check(&a, &ndhal_arch_v2), 0);
	a.align = SZ_1G;
	a.channel = NEURON_MEM_CHANNEL_ANY;
	a.nc = 7;
	a.size = NEURON_MEM_MAX_SIZE;
	KUNIT_EXPECT_EQ(test, neuron_mem_check(&a, &ndhal_arch_v3), 0);
}

static void mem_check_bad(struct kunit *test)
{
	static const struct {
		const char *what;
		struct neuron_mem_alloc a;
	} bad[] = {
		{ "size 0", { .kind = NEURON_MEM_HOST } },
		{ "size > 1 TiB", { .size = NEURON_MEM_MAX_SIZE + 1 } },
		{ "kind", { .size = 1, .kind = 2 } },
		{ "flags", { .size = 1, .flags = 1 } },
		{ "usage", { .size = 1, .usage = NEURON_MEM_USAGE_COUNT } },
		{ "reserved[0]", { .size = 1, .reserved = { 1, 0 } } },
		{ "reserved[1]", { .size = 1, .reserved = { 0, 1 } } },
		{ "nc", { .size = 1, .nc = 2 } },
		{ "host align", { .size = 1, .align = 4096 } },
		{ "host channel", { .size = 1, .channel = 1 } },
		{ "align not pow2", { .size = 1, .kind = NEURON_MEM_DEVICE, .align = 12288 } },
		{ "align < page", { .size = 1, .kind = NEURON_MEM_DEVICE, .align = 2048 } },
		{ "align > 1 GiB", { .size = 1, .kind = NEURON_MEM_DEVICE, .align = SZ_2G } },
		{ "channel", { .size = 1, .kind = NEURON_MEM_DEVICE, .channel = 2 } },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, neuron_mem_check(&bad[i].a, &ndhal_arch_v2),
				    -EINVAL, "%s", bad[i].what);
}

static void mem_nc_limit(struct kunit *test)
{
	int i;

	/* Per-NC counters are a fixed array: every arch must fit in it. */
	for (i = 0; i < ARRAY_SIZE(neuron_test_archs); i++)
		KUNIT_EXPECT_LE(test, neuron_test_archs[i]->nc_count, NEURON_MAX_NC);
}

NEURON_KUNIT_SUITE(neuron_mem,
		   KUNIT_CASE(mem_check_good),
		   KUNIT_CASE(mem_check_bad),
		   KUNIT_CASE(mem_nc_limit));

kunit_test_suites(&neuron_ndhal_suite, &neuron_ioctl_suite,
		  &neuron_query_suite, &neuron_sim_suite, &neuron_mem_suite);

/* ---- neuron_notify ---- */

static void notify_setup_prep(struct neuron_notify_setup *s, u32 nc, u32 type,
			      u32 entries)
{
	memset(s, 0, sizeof(*s));
	s->nc = nc;
	s->type = type;
	s->entries = entries;
	s->eventfd = -1;
}

static void notify_setup_check_good(struct kunit *test)
{
	struct neuron_notify_setup s;
	u32 nc, t, e;
	int i;

	for (i = 0; i < ARRAY_SIZE(neuron_test_archs); i++) {
		const struct ndhal_arch *a = neuron_test_archs[i];

		for (nc = 0; nc < a->nc_count; nc++)
			for (t = 0; t < NEURON_NOTIFY_TYPES; t++)
				for (e = NEURON_NOTIFY_MIN_ENTRIES;
				     e <= NEURON_NOTIFY_MAX_ENTRIES; e *= 2) {
					notify_setup_prep(&s, nc, t, e);
					KUNIT_EXPECT_EQ_MSG(test, neuron_notify_setup_check(&s, a),
							    0, "%s nc %u type %u entries %u",
							    a->name, nc, t, e);
				}
		notify_setup_prep(&s, 0, 0, 16);
		s.eventfd = 0;
		KUNIT_EXPECT_EQ(test, neuron_notify_setup_check(&s, a), 0);
		s.eventfd = INT_MAX;
		KUNIT_EXPECT_EQ(test, neuron_notify_setup_check(&s, a), 0);
	}
}

static void notify_setup_check_bad(struct kunit *test)
{
	const struct ndhal_arch *a = &ndhal_arch_v2;
	struct neuron_notify_setup s;
	static const u32 entries[] = { 0, 1, 8, 15, 17, 24, 65535, 131072, 0x80000000U };
	int i;

#define NOTIFY_EXPECT_BAD(tweak) do { \
	notify_setup_prep(&s, 0, 0, 16); \
	tweak; \
	KUNIT_EXPECT_EQ_MSG(test, neuron_notify_setup_check(&s, a), -EINVAL, #tweak); \
} while (0)
	NOTIFY_EXPECT_BAD(s.flags = 1);
	NOTIFY_EXPECT_BAD(s.pad = 1);
	NOTIFY_EXPECT_BAD(s.reserved[0] = 1);
	NOTIFY_EXPECT_BAD(s.reserved[1] = 1);
	NOTIFY_EXPECT_BAD(s.nc = a->nc_count);
	NOTIFY_EXPECT_BAD(s.nc = U32_MAX);
	NOTIFY_EXPECT_BAD(s.type = NEURON_NOTIFY_TYPES);
	NOTIFY_EXPECT_BAD(s.eventfd = -2);
	NOTIFY_EXPECT_BAD(s.eventfd = INT_MIN);
	for (i = 0; i < ARRAY_SIZE(entries); i++)
		NOTIFY_EXPECT_BAD(s.entries = entries[i]);
#undef NOTIFY_EXPECT_BAD
}

static void notify_head_valid(struct kunit *test)
{
	static const struct {
		u32 tail, old_head, new_head, entries;
		bool ok;
	} cases[] = {
		{ 0, 0, 0, 16, true },
		{ 0, 0, 16, 16, true },		/* full */
		{ 0, 0, 17, 16, false },	/* past the tail + entries */
		{ 0, 3, 3, 16, true },
		{ 0, 3, 2, 16, false },		/* backwards */
		{ 5, 5, 4, 16, false },		/* below the tail */
		{ 10, 20, 26, 16, true },
		{ 10, 20, 27, 16, false },
		{ 0, 0, U32_MAX, 16, false },
		/* across the 2^32 wrap */
		{ 0xfffffff8U, 0xfffffffcU, 0x00000008U, 16, true },
		{ 0xfffffff8U, 0xfffffffcU, 0x00000009U, 16, false },
		{ 0xfffffff8U, 0x00000002U, 0xfffffffcU, 16, false },
		{ 0, 0, 65536, 65536, true },
		{ 0, 0, 65537, 65536, false },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    neuron_notify_head_valid(cases[i].tail, cases[i].old_head,
							     cases[i].new_head,
							     cases[i].entries),
				    cases[i].ok, "case %d", i);
}

static void notify_consume_valid(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, neuron_notify_consume_valid(0, 3, 0));
	KUNIT_EXPECT_TRUE(test, neuron_notify_consume_valid(0, 3, 3));
	KUNIT_EXPECT_FALSE(test, neuron_notify_consume_valid(0, 3, 4));
	KUNIT_EXPECT_FALSE(test, neuron_notify_consume_valid(2, 3, 1));
	KUNIT_EXPECT_FALSE(test, neuron_notify_consume_valid(0, 0, U32_MAX));
	KUNIT_EXPECT_TRUE(test, neuron_notify_consume_valid(0xfffffffeU, 2, 0xffffffffU));
	KUNIT_EXPECT_TRUE(test, neuron_notify_consume_valid(0xfffffffeU, 2, 1));
	KUNIT_EXPECT_FALSE(test, neuron_notify_consume_valid(0xfffffffeU, 2, 3));
	KUNIT_EXPECT_FALSE(test, neuron_notify_consume_valid(0xfffffffeU, 2, 0xfffffffdU));
}

static void notify_mmap_offsets(struct kunit *test)
{
	u64 max_ring = neuron_notify_ring_size(NEURON_NOTIFY_MAX_ENTRIES);
	unsigned long first;
	u64 off, prev = 0;
	u32 nc, t, dnc, dt;

	for (nc = 0; nc < NEURON_MAX_NC; nc++) {
		for (t = 0; t < NEURON_NOTIFY_TYPES; t++) {
			off = neuron_notify_mmap_offset(nc, t);
			/* Increasing, page aligned, below the memory objects. */
			KUNIT_EXPECT_GT(test, off, prev);
			prev = off;
			KUNIT_EXPECT_EQ(test, off % PAGE_SIZE, 0);
			KUNIT_EXPECT_LE(test, off + max_ring,
					(u64)NEURON_MMAP_MEM_START << PAGE_SHIFT);
			KUNIT_ASSERT_EQ(test, neuron_notify_mmap_slot(off >> PAGE_SHIFT,
								      &dnc, &dt, &first), 0);
			KUNIT_EXPECT_EQ(test, dnc, nc);
			KUNIT_EXPECT_EQ(test, dt, t);
			KUNIT_EXPECT_EQ(test, first, 0);
			KUNIT_ASSERT_EQ(test, neuron_notify_mmap_slot((off >> PAGE_SHIFT) + 3,
								      &dnc, &dt, &first), 0);
			KUNIT_EXPECT_EQ(test, first, 3);
			KUNIT_EXPECT_EQ(test, dnc, nc);
		}
	}
	/* Slot 0 and slots past the last queue name nothing. */
	KUNIT_EXPECT_EQ(test, neuron_notify_mmap_slot(0, &dnc, &dt, &first), -EINVAL);
	KUNIT_EXPECT_EQ(test, neuron_notify_mmap_slot(5, &dnc, &dt, &first), -EINVAL);
	off = neuron_notify_mmap_offset(NEURON_MAX_NC - 1, NEURON_NOTIFY_TYPES - 1) +
	      BIT_ULL(NEURON_NOTIFY_MMAP_SHIFT);
	KUNIT_EXPECT_EQ(test, neuron_notify_mmap_slot(off >> PAGE_SHIFT, &dnc, &dt, &first),
			-EINVAL);
}

static void notify_ring_size(struct kunit *test)
{
	u32 e;

	for (e = NEURON_NOTIFY_MIN_ENTRIES; e <= NEURON_NOTIFY_MAX_ENTRIES; e *= 2) {
		u64 need = NEURON_NOTIFY_ENTRY_OFFSET +
			   (u64)e * sizeof(struct neuron_notify_entry);
		u64 size = neuron_notify_ring_size(e);

		KUNIT_EXPECT_EQ(test, size % PAGE_SIZE, 0);
		KUNIT_EXPECT_GE(test, size, need);
		KUNIT_EXPECT_LT(test, size, need + PAGE_SIZE);
		KUNIT_EXPECT_LE(test, size, BIT_ULL(NEURON_NOTIFY_MMAP_SHIFT));
	}
}

static void notify_sim_room(struct kunit *test)
{
	struct neuron_sim_notify_regs r = { .entries = 16 };
	int i;

	for (i = 0; i < 16; i++) {
		KUNIT_ASSERT_TRUE(test, neuron_sim_notify_room(&r));
		r.head++;
	}
	/* Full: dropped and counted, head stays. */
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_FALSE(test, neuron_sim_notify_room(&r));
	KUNIT_EXPECT_EQ(test, r.head, 16);
	KUNIT_EXPECT_EQ(test, r.overflow, 5);
	r.tail = 1;
	KUNIT_EXPECT_TRUE(test, neuron_sim_notify_room(&r));
	KUNIT_EXPECT_EQ(test, r.overflow, 5);
	/* Across the 2^32 wrap. */
	r.tail = 0xfffffff8U;
	r.head = 0x00000008U;
	KUNIT_EXPECT_FALSE(test, neuron_sim_notify_room(&r));
	r.head = 0x00000007U;
	KUNIT_EXPECT_TRUE(test, neuron_sim_notify_room(&r));
}

static void notify_sim_tail_ok(struct kunit *test)
{
	struct neuron_sim_notify_regs r = { .entries = 16, .head = 10, .tail = 4 };

	KUNIT_EXPECT_TRUE(test, neuron_sim_notify_tail_ok(&r, 4));
	KUNIT_EXPECT_TRUE(test, neuron_sim_notify_tail_ok(&r, 10));
	KUNIT_EXPECT_FALSE(test, neuron_sim_notify_tail_ok(&r, 11));
	KUNIT_EXPECT_FALSE(test, neuron_sim_notify_tail_ok(&r, 3));
	KUNIT_EXPECT_FALSE(test, neuron_sim_notify_tail_ok(&r, U32_MAX));
	r.tail = 0xfffffffcU;
	r.head = 2;
	KUNIT_EXPECT_TRUE(test, neuron_sim_notify_tail_ok(&r, 0));
	KUNIT_EXPECT_FALSE(test, neuron_sim_notify_tail_ok(&r, 3));
}

static void notify_sim_parse(struct kunit *test)
{
	static const struct {
		const char *text;
		int n;
		u32 first;
	} cases[] = {
		{ "1 2 3 4", 4, 1 },
		{ "1 2 3 4 5\n", 5, 1 },
		{ "0x10 2 3 4", 4, 16 },
		{ "  7\t2  3 4 ", 4, 7 },
		{ "4294967295 0 0 0", 4, U32_MAX },
		{ "", 0, 0 },
		{ "1 2 3 4 5 6", -EINVAL, 0 },
		{ "1 x 3 4", -EINVAL, 0 },
		{ "4294967296 0 0 0", -EINVAL, 0 },
		{ "-1 0 0 0", -EINVAL, 0 },
		{ "1,2 3 4", -EINVAL, 0 },
	};
	char buf[64];
	u32 v[5];
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		strscpy(buf, cases[i].text, sizeof(buf));
		memset(v, 0, sizeof(v));
		KUNIT_EXPECT_EQ_MSG(test, neuron_sim_notify_parse(buf, v, ARRAY_SIZE(v)),
				    cases[i].n, "\"%s\"", cases[i].text);
		if (cases[i].n > 0)
			KUNIT_EXPECT_EQ_MSG(test, v[0], cases[i].first, "\"%s\"",
					    cases[i].text);
	}
	strscpy(buf, "1 2 3 4 5", sizeof(buf));
	KUNIT_EXPECT_EQ(test, neuron_sim_notify_parse(buf, v, ARRAY_SIZE(v)), 5);
	KUNIT_EXPECT_EQ(test, v[4], 5);
}

NEURON_KUNIT_SUITE(neuron_notify,
		   KUNIT_CASE(notify_setup_check_good),
		   KUNIT_CASE(notify_setup_check_bad),
		   KUNIT_CASE(notify_head_valid),
		   KUNIT_CASE(notify_consume_valid),
		   KUNIT_CASE(notify_mmap_offsets),
		   KUNIT_CASE(notify_ring_size),
		   KUNIT_CASE(notify_sim_room),
		   KUNIT_CASE(notify_sim_tail_ok),
		   KUNIT_CASE(notify_sim_parse));

kunit_test_suite(neuron_notify_suite);

MODULE_DESCRIPTION("KUnit suites of the neuron driver");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(NEURON_KUNIT_NS);
MODULE_IMPORT_NS(NEURON_NS);
