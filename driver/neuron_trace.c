// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: the one place where the tracepoints of neuron_trace.h are made.
 */
#define CREATE_TRACE_POINTS
#include "neuron_trace.h"
