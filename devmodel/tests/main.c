// SPDX-License-Identifier: GPL-2.0
/* Runs every test; the last line is "N passed, M failed". */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util.h"

int t_failures;
const char *t_name;
const char *t_server_path;

int main(int argc, char **argv)
{
	const struct test *const tables[] = { crc_tests, json_tests, vfu_tests, udma_tests,
					      regs_tests, mbox_tests, ctl_tests, e2e_tests };
	const char *only = argc > 2 ? argv[2] : NULL;
	int passed = 0, failed = 0;

	t_server_path = argc > 1 ? argv[1] : NULL;
	dm_log_level = getenv("DM_TEST_LOG") ? LOG_DEBUG : -1;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		for (const struct test *t = tables[i]; t->name; t++) {
			if (only && !strstr(t->name, only))
				continue;
			t_name = t->name;
			t_failures = 0;
			t->fn();
			if (t_failures) {
				failed++;
				printf("FAIL %s\n", t->name);
			} else {
				passed++;
				printf("ok   %s\n", t->name);
			}
			fflush(stdout);
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
