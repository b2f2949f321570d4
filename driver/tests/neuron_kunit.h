/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KUnit files of the neuron driver share.
 */
#ifndef NEURON_KUNIT_H
#define NEURON_KUNIT_H

#include <kunit/test.h>

/*
 * NEURON_KUNIT_SUITE(name, KUNIT_CASE(a), ...) - the case table name_cases
 * (with its empty terminator) and the suite name_suite, which KUnit lists
 * as "name"; register it with kunit_test_suite() or kunit_test_suites().
 */
#define NEURON_KUNIT_SUITE(name, ...)					\
	static struct kunit_case name##_cases[] = { __VA_ARGS__, {} };	\
	static struct kunit_suite name##_suite = {			\
		.name = #name,						\
		.test_cases = name##_cases,				\
	}

#endif
