/* SPDX-License-Identifier: GPL-2.0 */
/* For kernels without <linux/maple_tree.h>: see neuron_compat.h. */
#include "neuron_compat.h"
