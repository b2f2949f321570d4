/* SPDX-License-Identifier: GPL-2.0 */
/* For kernels without <kunit/visibility.h>: see neuron_compat.h. */
#include "neuron_compat.h"
