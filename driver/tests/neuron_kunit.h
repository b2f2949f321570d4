/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KUnit files of the neuron driver share.
 */
#ifndef NEURON_KUNIT_H
#define NEURON_KUNIT_H

#include <kunit/test.h>

/*
 * NEURON_KUNIT_SUITE(suite, KUNIT_CASE(a), ...) - the case table
 * <suite>_cases (with its empty terminator) and the struct kunit_suite
 * <suite>_suite, which KUnit lists as "<suite>"; register it with
 * kunit_test_suite() or kunit_test_suites().
 */
#define NEURON_KUNIT_SUITE(suite, ...)					\
	static struct kunit_case suite##_cases[] = { __VA_ARGS__, {} };	\
	static struct kunit_suite suite##_suite = {			\
		.name = #suite,						\
		.test_cases = suite##_cases,				\
	}

#endif
