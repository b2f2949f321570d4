/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: the one place for differences between the kernels we build on
 * (6.1 LTS and newer). Each entry names the upstream change. Kbuild probes
 * the kernel headers for the feature (NEURON_HAVE_*) instead of comparing
 * version numbers, so distribution kernels with backports build too.
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

#endif /* _NEURON_COMPAT_H */
