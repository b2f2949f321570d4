/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nrt/nrt_version.h - version of the nrt_* API and of the library
 * (libnrt.so.1, neuron shim). Our own text; names, layout and numbers follow
 * the public Neuron SDK API.
 */
#ifndef NRT_NRT_VERSION_H
#define NRT_NRT_VERSION_H

#include <stddef.h>
#include <stdint.h>

#include "nrt/nrt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the API these headers describe. */
#define NRT_MAJOR_VERSION 2
#define NRT_MINOR_VERSION 0

#define NRT_VERSION_DETAIL_LEN 128
#define NRT_VERSION_GIT_HASH_LEN 64

/* 224 bytes: four 64-bit numbers, then two NUL-terminated strings. */
typedef struct nrt_version {
	uint64_t rt_major;
	uint64_t rt_minor;
	uint64_t rt_patch;
	uint64_t rt_maintenance;
	char rt_detail[NRT_VERSION_DETAIL_LEN];
	char git_hash[NRT_VERSION_GIT_HASH_LEN];
} nrt_version_t;

/*
 * Fill @ver with the version of the running library. @size is the
 * caller's sizeof(nrt_version_t): a smaller structure (an older caller)
 * gets its first @size bytes. Callable before nrt_init().
 */
NRT_STATUS nrt_get_version(nrt_version_t *ver, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* NRT_NRT_VERSION_H */
