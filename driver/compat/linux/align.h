/* SPDX-License-Identifier: GPL-2.0 */
/* For kernels without <linux/align.h>: see neuron_compat.h. */
#include "neuron_compat.h"
