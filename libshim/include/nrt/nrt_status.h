/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nrt/nrt_status.h - result codes of the nrt_* API (libnrt.so.1, neuron shim).
 *
 * Our own text. The names and numbers are those of the public Neuron SDK
 * API, so that programs written for it build and behave unchanged; see
 * docs/libnrt.md for what each call returns in this implementation.
 */
#ifndef NRT_NRT_STATUS_H
#define NRT_NRT_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
	NRT_SUCCESS = 0,			/* the call did what was asked */
	NRT_FAILURE = 1,			/* failed, no better code applies */
	NRT_INVALID = 2,			/* an argument or an input is not valid */
	NRT_INVALID_HANDLE = 3,			/* a model or tensor not (or no longer) valid */
	NRT_RESOURCE = 4,			/* out of memory, cores or handles */
	NRT_TIMEOUT = 5,			/* an operation ran out of time */
	NRT_HW_ERROR = 6,			/* the device failed */
	NRT_QUEUE_FULL = 7,			/* too many executions queued */
	NRT_LOAD_NOT_ENOUGH_NC = 9,		/* not enough NeuronCores for the model */
	NRT_UNSUPPORTED_NEFF_VERSION = 10,	/* a model format version we do not read */
	NRT_FAIL_HOST_MEM_ALLOC = 11,		/* host memory allocation failed */
	NRT_UNINITIALIZED = 13,			/* nrt_init() was not called */
	NRT_CLOSED = 14,			/* nrt_close() was called */
	NRT_QUEUE_EMPTY = 15,			/* nothing to wait for */

	NRT_EXEC_UNIT_UNRECOVERABLE = 101,	/* the execution unit cannot continue */

	NRT_EXEC_BAD_INPUT = 1002,		/* the input made the program fault */
	NRT_EXEC_COMPLETED_WITH_NUM_ERR = 1003,	/* completed; numerical errors */
	NRT_EXEC_COMPLETED_WITH_ERR = 1004,	/* completed with errors */
	NRT_EXEC_NC_BUSY = 1005,		/* the NeuronCore is busy */
	NRT_EXEC_OOB = 1006,			/* an access out of bounds */
	NRT_COLL_PENDING = 1100,		/* a collective operation is pending */
	NRT_EXEC_HW_ERR_COLLECTIVES = 1200,	/* hardware error in collectives */
	NRT_EXEC_HW_ERR_HBM_UE = 1201,		/* uncorrectable device memory error */
	NRT_EXEC_HW_ERR_NC_UE = 1202,		/* uncorrectable NeuronCore error */
	NRT_EXEC_HW_ERR_DMA_ABORT = 1203,	/* a DMA transfer was aborted */
	NRT_EXEC_SW_NQ_OVERFLOW = 1204,		/* a notification queue overflowed */
	NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE = 1205, /* repairable device memory error */
	NRT_NETWORK_PROXY_FAILURE = 1206	/* the network proxy failed */
} NRT_STATUS;

/*
 * A constant, NUL-terminated English description of @status; never NULL
 * (unknown codes give a generic text). Callable at any time.
 */
const char *nrt_get_status_as_str(NRT_STATUS status);

#ifdef __cplusplus
}
#endif

#endif /* NRT_NRT_STATUS_H */
