/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by every part of the device model: logging, the
 * monotonic clock, overflow-checked arithmetic, unaligned little-endian
 * loads and stores.
 */
#ifndef DM_UTIL_H
#define DM_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { LOG_ERR = 0, LOG_WARN = 1, LOG_INFO = 2, LOG_DEBUG = 3 };

extern int dm_log_level;

void dm_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_err(...) dm_log(LOG_ERR, __VA_ARGS__)
#define log_warn(...) dm_log(LOG_WARN, __VA_ARGS__)
#define log_info(...) dm_log(LOG_INFO, __VA_ARGS__)
#define log_dbg(...) do { if (dm_log_level >= LOG_DEBUG) dm_log(LOG_DEBUG, __VA_ARGS__); } while (0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Milliseconds and microseconds of CLOCK_MONOTONIC. */
uint64_t now_ms(void);
uint64_t now_us(void);
void sleep_us(uint64_t us);

/* true when [off, off + len) lies inside [0, size), without overflow. */
static inline bool range_ok(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static inline bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static inline uint32_t ld32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint16_t ld16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static inline uint64_t ld64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline void st32(void *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static inline void st16(void *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

static inline void st64(void *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

#endif
