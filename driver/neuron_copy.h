/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: transfers between memory objects and user memory (neuron_copy.c:
 * COPY and MEMSET, and the driver's own copies).
 */
#ifndef _NEURON_COPY_H
#define _NEURON_COPY_H

#include <neuron.h>

#include "neuron_common.h"

int neuron_copy_clear(struct neuron_mem *mem);
int neuron_copy_mem(struct neuron_mem *src, u64 soff, struct neuron_mem *dst,
		    u64 doff, u64 len);

#if IS_ENABLED(CONFIG_KUNIT)
int neuron_copy_check(const struct neuron_copy *c);
#endif

#endif /* _NEURON_COPY_H */
