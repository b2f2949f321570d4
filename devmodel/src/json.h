/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capability object of a vfio-user VERSION message: a bounded JSON
 * reader that knows the members the model uses and skips (but still
 * checks) everything else.
 */
#ifndef DM_JSON_H
#define DM_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vfu_caps {
	bool has_caps;		/* a "capabilities" object was present */
	bool has_max_fds, has_max_xfer, has_pgsizes, has_max_dma;
	bool has_multi, has_migration, has_twin;
	uint64_t max_fds, max_xfer, pgsizes, max_dma;
	bool write_multiple, twin_supported;
};

/*
 * Parse len bytes at s (no NUL needed inside len) as one JSON object. Returns
 * 0 and fills caps, or -1 when the text is not valid JSON, is not an object,
 * nests deeper than 16 levels, or a known member has the wrong type.
 */
int json_parse_caps(const char *s, size_t len, struct vfu_caps *caps);

#endif
