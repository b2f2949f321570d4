/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nrt/nrt_experimental.h - model tensor introspection (libnrt.so.1,
 * neuron shim). Our own text; the names and the layout (which ctypes
 * clients hard-code) follow the public Neuron SDK API.
 */
#ifndef NRT_NRT_EXPERIMENTAL_H
#define NRT_NRT_EXPERIMENTAL_H

#include <stddef.h>
#include <stdint.h>

#include "nrt/nrt.h"
#include "nrt/nrt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NRT_TENSOR_NAME_MAX 256

typedef enum nrt_tensor_usage {
	NRT_TENSOR_USAGE_INPUT = 0,
	NRT_TENSOR_USAGE_OUTPUT
} nrt_tensor_usage_t;

/* One input or output of a model: 296 bytes on LP64. */
typedef struct nrt_tensor_info {
	char name[NRT_TENSOR_NAME_MAX];	/* NUL-terminated */
	nrt_tensor_usage_t usage;
	size_t size;			/* bytes */
	nrt_dtype_t dtype;
	uint32_t *shape;		/* @ndim dimensions */
	uint32_t ndim;
} nrt_tensor_info_t;

/*
 * @tensor_count entries follow the 8-byte header (a flexible array member;
 * ISO C++ has none, so C++ compilers that know the extension are told to
 * accept it quietly).
 */
#ifdef __cplusplus
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
typedef struct nrt_tensor_info_array {
	uint64_t tensor_count;
	nrt_tensor_info_t tensor_array[];
} nrt_tensor_info_array_t;
#ifdef __cplusplus
#pragma GCC diagnostic pop
#endif

/* The inputs and outputs of @model in slot order; free with the next call. */
NRT_STATUS nrt_get_model_tensor_info(nrt_model_t *model, nrt_tensor_info_array_t **tensor_info);
NRT_STATUS nrt_free_model_tensor_info(nrt_tensor_info_array_t *tensor_info);

#ifdef __cplusplus
}
#endif

#endif /* NRT_NRT_EXPERIMENTAL_H */
