/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: the one place for differences between the kernels we build on
 * (5.10 LTS and newer). Each entry names the upstream change. Kbuild probes
 * the kernel headers for the feature (NEURON_HAVE_*) instead of comparing
 * version numbers, so distribution kernels with backports build too.
 *
 * Headers that older kernels lack (<linux/maple_tree.h>,
 * <kunit/visibility.h>, <linux/align.h>): the sources include them as
 * usual; when the kernel has none of one, Kbuild puts driver/compat/ on
 * the include path, whose file of that name only includes this one, and
 * what it stands for is defined below.
 */
#ifndef _NEURON_COMPAT_H
#define _NEURON_COMPAT_H

/*
 * 6.4 ("driver core: bus: mark the struct bus_type for sysfs callbacks as
 * constant"): bus attribute callbacks take a const struct bus_type *.
 */
#ifdef NEURON_HAVE_CONST_BUS_ATTR
#define NEURON_BUS_CONST const
#else
#define NEURON_BUS_CONST
#endif

/*
 * 6.3 ("mm: introduce vma->vm_flags wrapper functions"): vm_flags is
 * read-only, changed through vm_flags_set() / vm_flags_clear().
 */
#ifndef NEURON_HAVE_VM_FLAGS_SET
#include <linux/mm.h>

static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/*
 * 6.8 ("eventfd: simplify eventfd_signal()"): eventfd_signal() lost its
 * count argument and always adds 1.
 */
#include <linux/eventfd.h>

static inline void neuron_eventfd_signal(struct eventfd_ctx *ctx)
{
#ifdef NEURON_HAVE_EVENTFD_SIGNAL_NOCOUNT
	eventfd_signal(ctx);
#else
	eventfd_signal(ctx, 1);
#endif
}

/*
 * 6.13 ("module: Convert symbol namespace to string literal"): the
 * namespace argument of EXPORT_SYMBOL_NS_GPL() and MODULE_IMPORT_NS() is a
 * string literal; before, an identifier that the macros stringify. The
 * namespaces this driver uses: NEURON_NS, what neuron.ko exports to
 * neuron_sim.ko (and the KUnit module), and NEURON_KUNIT_NS, that of
 * EXPORT_SYMBOL_IF_KUNIT().
 */
#ifdef NEURON_HAVE_NS_LITERAL
#define NEURON_NS		"NEURON"
#define NEURON_KUNIT_NS		"EXPORTED_FOR_KUNIT_TESTING"
#else
#define NEURON_NS		NEURON
#define NEURON_KUNIT_NS		EXPORTED_FOR_KUNIT_TESTING
#endif

/*
 * 6.7 ("genetlink: add genl_info_dump() helper", with the split ops of
 * 6.2): a dump's parsed attributes are in the struct genl_info of its
 * genl_dumpit_info; before, in genl_dumpit_info's own @attrs. A macro, so
 * that only the users include <net/genetlink.h>.
 */
#ifdef NEURON_HAVE_GENL_INFO_DUMP
#define neuron_genl_dump_attrs(cb)	(genl_info_dump(cb)->attrs)
#else
#define neuron_genl_dump_attrs(cb)	(genl_dumpit_info(cb)->attrs)
#endif

/*
 * 6.13 ("hrtimers: Introduce hrtimer_setup() to replace hrtimer_init()"),
 * hrtimer_init() gone in 6.15: the callback is set with the timer.
 */
#include <linux/hrtimer.h>

#ifndef NEURON_HAVE_HRTIMER_SETUP
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

/*
 * 5.11 ("mm/highmem: provide kmap_local*"): short-lived mappings of a page
 * that may sleep, unmapped by address. A 64-bit kernel has no high memory:
 * every page is mapped already, which is all kmap_local_page() does there.
 */
#ifndef NEURON_HAVE_KMAP_LOCAL
#include <linux/build_bug.h>
#include <linux/mm.h>

static inline void *kmap_local_page(struct page *page)
{
	BUILD_BUG_ON(IS_ENABLED(CONFIG_HIGHMEM));
	return page_address(page);
}

#define kunmap_local(addr)	((void)(addr))
#endif

/*
 * memset_page() (with memcpy_page() and friends in <linux/highmem.h>; in
 * 6.1's headers, not in 5.10's): fill part of a page through a short-lived
 * mapping.
 */
#ifndef NEURON_HAVE_MEMSET_PAGE
#include <linux/highmem.h>
#include <linux/string.h>

static inline void memset_page(struct page *page, size_t offset, int val,
			       size_t len)
{
	char *va = kmap_local_page(page);

	memset(va + offset, val, len);
	kunmap_local(va);
}
#endif

/* SZ_16G and SZ_1T (not in 5.10's <linux/sizes.h>). */
#include <linux/sizes.h>
#ifndef SZ_16G
#define SZ_16G	_AC(0x400000000, ULL)
#endif
#ifndef SZ_1T
#define SZ_1T	_AC(0x10000000000, ULL)
#endif

/*
 * GENL_REQ_ATTR_CHECK() (in 6.1's <net/genetlink.h>, not in 5.10's): true
 * when a request lacks a required attribute. Without it, the same test by
 * hand; the callers set their own error message either way.
 */
#ifndef NEURON_HAVE_GENL_REQ_ATTR_CHECK
#define GENL_REQ_ATTR_CHECK(info, attr)	(!(info)->attrs[(attr)])
#endif

/*
 * <linux/align.h> (ALIGN() and the like split out of <linux/kernel.h>;
 * in 6.1's headers, not in 5.10's): before, they are in <linux/kernel.h>.
 */
#ifndef NEURON_HAVE_ALIGN_H
#include <linux/kernel.h>
#endif

/*
 * <kunit/visibility.h> (in 6.1's headers, not in 5.10's): VISIBLE_IF_KUNIT
 * makes a function static unless KUnit is built, EXPORT_SYMBOL_IF_KUNIT()
 * exports it to the test module only then. Without the header the
 * functions stay static and nothing is exported: Kbuild then builds no
 * KUnit module (the suites would find none of them).
 */
#ifndef NEURON_HAVE_KUNIT_VISIBILITY
#define VISIBLE_IF_KUNIT		static
#define EXPORT_SYMBOL_IF_KUNIT		neuron_not_exported
#define neuron_not_exported(sym)
#endif

/*
 * 6.1 ("Maple Tree: add new data structure"): the driver's three range
 * allocators (device memory placement, mmap offsets, the simulator's
 * IOVAs) keep non-overlapping page ranges in a maple tree. Without one,
 * the part of its API they use is given here on an rbtree of ranges:
 * each stored range is a node (first, last, entry), kept in order; a
 * search for room walks the ranges from the low bound up. The callers'
 * own lock (MT_FLAGS_LOCK_EXTERN) guards the tree in both cases. Only
 * empty ranges are stored (mas_empty_area() first), so a store that would
 * overlap fails with -EEXIST instead of overwriting.
 */
#ifndef NEURON_HAVE_MAPLE_TREE
#include <linux/errno.h>
#include <linux/rbtree.h>
#include <linux/slab.h>

#define MT_FLAGS_ALLOC_RANGE	0
#define MT_FLAGS_LOCK_EXTERN	0

struct maple_tree {
	struct rb_root root;
};

struct neuron_mt_range {
	struct rb_node node;
	unsigned long first, last;
	void *entry;
};

/* @at: the range that mas_for_each() returned last, NULL before the first. */
struct ma_state {
	struct maple_tree *tree;
	unsigned long index, last;
	struct rb_node *at;
};

#define MA_STATE(name, mt, first, end) \
	struct ma_state name = { .tree = (mt), .index = (first), .last = (end) }

static inline void mt_init_flags(struct maple_tree *mt, unsigned int flags)
{
	mt->root = RB_ROOT;
}

#define mt_set_external_lock(mt, lock)	do { (void)(mt); (void)(lock); } while (0)

static inline bool mtree_empty(const struct maple_tree *mt)
{
	return RB_EMPTY_ROOT(&mt->root);
}

static inline void __mt_destroy(struct maple_tree *mt)
{
	struct neuron_mt_range *r, *next;

	rbtree_postorder_for_each_entry_safe(r, next, &mt->root, node)
		kfree(r);
	mt->root = RB_ROOT;
}

/* The range that holds @index, or NULL. */
static inline struct neuron_mt_range *
neuron_mt_lookup(const struct maple_tree *mt, unsigned long index)
{
	struct rb_node *n = mt->root.rb_node;
	struct neuron_mt_range *r;

	while (n) {
		r = rb_entry(n, struct neuron_mt_range, node);
		if (index < r->first)
			n = n->rb_left;
		else if (index > r->last)
			n = n->rb_right;
		else
			return r;
	}
	return NULL;
}

/* The lowest range that ends at or above @index, or NULL. */
static inline struct rb_node *
neuron_mt_first_from(const struct maple_tree *mt, unsigned long index)
{
	struct rb_node *n = mt->root.rb_node, *found = NULL;

	while (n) {
		if (rb_entry(n, struct neuron_mt_range, node)->last >= index) {
			found = n;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}
	return found;
}

static inline void *mtree_load(struct maple_tree *mt, unsigned long index)
{
	struct neuron_mt_range *r = neuron_mt_lookup(mt, index);

	return r ? r->entry : NULL;
}

static inline void mas_reset(struct ma_state *mas)
{
	mas->at = NULL;
}

static inline void mas_set_range(struct ma_state *mas, unsigned long start,
				 unsigned long last)
{
	mas->index = start;
	mas->last = last;
	mas->at = NULL;
}

/*
 * The lowest free range of @size slots within [@min, @max] into
 * @mas->index and @mas->last: 0, or -EBUSY when there is none.
 */
static inline int mas_empty_area(struct ma_state *mas, unsigned long min,
				 unsigned long max, unsigned long size)
{
	unsigned long start = min;
	struct neuron_mt_range *r;
	struct rb_node *n;

	if (!size || min > max || max - min < size - 1)
		return -EBUSY;
	for (n = neuron_mt_first_from(mas->tree, min); n; n = rb_next(n)) {
		r = rb_entry(n, struct neuron_mt_range, node);
		if (r->first > start && r->first - start >= size)
			break;
		if (r->last >= max)
			return -EBUSY;
		start = r->last + 1;
	}
	if (start > max || max - start < size - 1)
		return -EBUSY;
	mas->index = start;
	mas->last = start + size - 1;
	mas->at = NULL;
	return 0;
}

/* Store @entry over [@mas->index, @mas->last], which must be free. */
static inline int mas_store_gfp(struct ma_state *mas, void *entry, gfp_t gfp)
{
	struct rb_node **link = &mas->tree->root.rb_node, *parent = NULL;
	struct neuron_mt_range *r, *new;

	if (WARN_ON_ONCE(!entry || mas->last < mas->index))
		return -EINVAL;
	new = kmalloc(sizeof(*new), gfp);
	if (!new)
		return -ENOMEM;
	new->first = mas->index;
	new->last = mas->last;
	new->entry = entry;
	while (*link) {
		parent = *link;
		r = rb_entry(parent, struct neuron_mt_range, node);
		if (new->last < r->first) {
			link = &parent->rb_left;
		} else if (new->first > r->last) {
			link = &parent->rb_right;
		} else {
			kfree(new);
			return -EEXIST;
		}
	}
	rb_link_node(&new->node, parent, link);
	rb_insert_color(&new->node, &mas->tree->root);
	return 0;
}

/* The entry whose range holds @mas->index, its range into @mas; or NULL. */
static inline void *mas_walk(struct ma_state *mas)
{
	struct neuron_mt_range *r = neuron_mt_lookup(mas->tree, mas->index);

	if (!r)
		return NULL;
	mas->index = r->first;
	mas->last = r->last;
	return r->entry;
}

/* Remove the range that holds @mas->index; its entry, or NULL. */
static inline void *mas_erase(struct ma_state *mas)
{
	struct neuron_mt_range *r = neuron_mt_lookup(mas->tree, mas->index);
	void *entry;

	if (!r)
		return NULL;
	mas->index = r->first;
	mas->last = r->last;
	mas->at = NULL;
	entry = r->entry;
	rb_erase(&r->node, &mas->tree->root);
	kfree(r);
	return entry;
}

/* The next range from @mas->index (first call) or after the last one. */
static inline void *neuron_mas_next(struct ma_state *mas, unsigned long max)
{
	struct rb_node *n;
	struct neuron_mt_range *r;

	n = mas->at ? rb_next(mas->at) : neuron_mt_first_from(mas->tree, mas->index);
	if (!n)
		return NULL;
	r = rb_entry(n, struct neuron_mt_range, node);
	if (r->first > max)
		return NULL;
	mas->at = n;
	mas->index = r->first;
	mas->last = r->last;
	return r->entry;
}

#define mas_for_each(mas, entry, max) \
	for (; ((entry) = neuron_mas_next((mas), (max))) != NULL; )
#endif /* !NEURON_HAVE_MAPLE_TREE */

/*
 * 6.14 ("lib/crc32: make crc32c() go directly to lib"): crc32c() is in
 * <linux/crc32.h>, built in with CONFIG_CRC32. Before, crc32c() came from
 * the module libcrc32c (a load-time dependency, through the crypto API)
 * and lib/crc32.c, built in, had the same function as __crc32c_le(). Both
 * are the raw update: no inversion at the start or the end.
 */
#include <linux/crc32.h>
#ifdef NEURON_HAVE_CRC32C_LIB
#define neuron_crc32c_update(crc, p, len)	crc32c(crc, p, len)
#else
#define neuron_crc32c_update(crc, p, len)	__crc32c_le(crc, p, len)
#endif

#endif /* _NEURON_COMPAT_H */
