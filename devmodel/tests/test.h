/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny test harness: a test is a function; CHECK records a failure (with
 * file and line) and the test goes on; a test passes when it recorded none.
 */
#ifndef DM_TEST_H
#define DM_TEST_H

#include <stdbool.h>
#include <stdio.h>

extern int t_failures;		/* failures of the running test */
extern const char *t_name;

#define CHECK(cond)                                                                 \
	do {                                                                        \
		if (!(cond)) {                                                      \
			t_failures++;                                               \
			fprintf(stderr, "  FAIL %s: %s:%d: %s\n", t_name, __FILE__, \
				__LINE__, #cond);                                   \
		}                                                                   \
	} while (0)

#define CHECK_EQ(a, b)                                                                          \
	do {                                                                                    \
		unsigned long long _a = (unsigned long long)(a), _b = (unsigned long long)(b);  \
		if (_a != _b) {                                                                 \
			t_failures++;                                                           \
			fprintf(stderr, "  FAIL %s: %s:%d: %s == %s (0x%llx != 0x%llx)\n",       \
				t_name, __FILE__, __LINE__, #a, #b, _a, _b);                    \
		}                                                                               \
	} while (0)

struct test {
	const char *name;
	void (*fn)(void);
};

/* each t_*.c file exports its table */
extern const struct test crc_tests[], json_tests[], vfu_tests[], udma_tests[], regs_tests[],
	mbox_tests[], ctl_tests[], e2e_tests[];

/* path of the server binary for the end-to-end tests (argv[1]) */
extern const char *t_server_path;

#endif
