// SPDX-License-Identifier: GPL-2.0
/* Logging to stderr with a time stamp, and clock helpers. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "util.h"

int dm_log_level = LOG_INFO;

static const char *const level_name[] = { "error", "warn", "info", "debug" };

void dm_log(int level, const char *fmt, ...)
{
	char line[1024];
	struct timespec ts;
	va_list ap;

	if (level > dm_log_level)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One write per line so that lines of two threads do not mix. */
	fprintf(stderr, "[%lld.%03ld] devmodel %s: %s\n", (long long)ts.tv_sec,
		ts.tv_nsec / 1000000, level_name[level < 0 ? 0 : level > 3 ? 3 : level], line);
}

uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t now_ms(void)
{
	return now_us() / 1000u;
}

void sleep_us(uint64_t us)
{
	struct timespec ts = { .tv_sec = (time_t)(us / 1000000u),
			       .tv_nsec = (long)(us % 1000000u) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}
