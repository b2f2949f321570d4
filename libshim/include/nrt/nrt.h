/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nrt/nrt.h - the nrt_* runtime API of libnrt.so.1 (neuron shim).
 *
 * Our own text. The names, types, values, structure layouts and function
 * signatures are those of the public Neuron SDK API, so that a program
 * written for the SDK compiles against these headers and runs unchanged on
 * the neuron driver. What each call does here, which calls need nrt_init()
 * and which codes they return: docs/libnrt.md.
 */
#ifndef NRT_NRT_H
#define NRT_NRT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nrt/nrt_status.h"
#include "ndl/neuron_driver_shared_tensor_batch_op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque objects of the library. */
typedef struct nrt_model nrt_model_t;
typedef struct nrt_tensor nrt_tensor_t;
/* A name -> tensor map; void so that C++ callers can cast to void **. */
typedef void nrt_tensor_set_t;

/* Where a tensor's memory lives. */
typedef enum {
	NRT_TENSOR_PLACEMENT_DEVICE = 0,	/* device memory of a NeuronCore */
	NRT_TENSOR_PLACEMENT_HOST = 1,		/* host memory */
	NRT_TENSOR_PLACEMENT_VIRTUAL = 2	/* no memory until a buffer is attached */
} nrt_tensor_placement_t;

/* Who calls nrt_init(). */
typedef enum {
	NRT_FRAMEWORK_TYPE_INVALID = 0,
	NRT_FRAMEWORK_TYPE_NO_FW = 1,
	NRT_FRAMEWORK_TYPE_TENSORFLOW = 2,
	NRT_FRAMEWORK_TYPE_PYTORCH = 3,
	NRT_FRAMEWORK_TYPE_MXNET = 4,
	NRT_FRAMEWORK_TYPE_PRECHECK = 5
} nrt_framework_type_t;

/* Element types (the numbering of current SDK headers). */
typedef enum nrt_dtype {
	NRT_DTYPE_UNKNOWN = 0x0,
	NRT_DTYPE_INVALID = 0x0,
	NRT_DTYPE_UINT64 = 0x1,
	NRT_DTYPE_INT8 = 0x2,
	NRT_DTYPE_UINT8 = 0x3,
	NRT_DTYPE_INT16 = 0x4,
	NRT_DTYPE_UINT16 = 0x5,
	NRT_DTYPE_BFLOAT16 = 0x6,
	NRT_DTYPE_FLOAT16 = 0x7,
	NRT_DTYPE_INT32 = 0x8,
	NRT_DTYPE_UINT32 = 0x9,
	NRT_DTYPE_FLOAT32 = 0xA,
	NRT_DTYPE_FP32R = 0xB,
	NRT_DTYPE_INT64 = 0xC,
	NRT_DTYPE_FP8_E3 = 0xD,
	NRT_DTYPE_FP8_E4 = 0xE,
	NRT_DTYPE_FP8_E5 = 0xF
} nrt_dtype_t;

/* nrt_instance_info_t.family */
enum {
	NRT_INSTANCE_UNKNOWN = 0,
	NRT_INSTANCE_INF1 = 1,
	NRT_INSTANCE_TRN1 = 2,
	NRT_INSTANCE_TRN1N = 3,
	NRT_INSTANCE_INF2 = 4,
	NRT_INSTANCE_TRN2 = 5
};

/* nrt_instance_info_t.size */
enum {
	NRT_INSTANCE_SIZE_1XL = 0,
	NRT_INSTANCE_SIZE_2XL = 1,
	NRT_INSTANCE_SIZE_4XL = 2,
	NRT_INSTANCE_SIZE_6XL = 3,
	NRT_INSTANCE_SIZE_8XL = 4,
	NRT_INSTANCE_SIZE_24XL = 5,
	NRT_INSTANCE_SIZE_32XL = 6,
	NRT_INSTANCE_SIZE_48XL = 7,
	NRT_INSTANCE_SIZE_3XL = 8,
	NRT_INSTANCE_SIZE_UNKNOWN = 9,
	NRT_INSTANCE_SIZE_NUM = NRT_INSTANCE_SIZE_UNKNOWN
};

/* 32 bytes. */
typedef struct nrt_instance_info {
	uint32_t family;		/* NRT_INSTANCE_* */
	uint32_t size;			/* NRT_INSTANCE_SIZE_* */
	char arch_name[16];		/* NUL-terminated */
	char device_revision[8];	/* NUL-terminated */
} nrt_instance_info_t;

/* Operations of a batched read or write on one tensor. */
typedef struct nrt_tensor_batch {
	const nrt_tensor_t *tensor;
	const nrt_tensor_batch_op_t *ops;
	uint32_t num_ops;
} nrt_tensor_batch_t;

/* ---- Runtime ---- */

NRT_STATUS nrt_init(nrt_framework_type_t framework, const char *fw_version,
		    const char *fal_version);
void nrt_close(void);

/* Instance description; @instance_info_len is the caller's sizeof. */
NRT_STATUS nrt_get_instance_info(nrt_instance_info_t *info, size_t instance_info_len);

/* Core counts; callable before nrt_init(). */
NRT_STATUS nrt_get_total_nc_count(uint32_t *nc_count);
NRT_STATUS nrt_get_visible_nc_count(uint32_t *nc_count);
NRT_STATUS nrt_get_total_vnc_count(uint32_t *vnc_count);
NRT_STATUS nrt_get_visible_vnc_count(uint32_t *vnc_count);

/* ---- Models ---- */

/*
 * Load the model container @neff_bytes (@size bytes; copied, the caller
 * may free it on return) on the core @start_vnc (-1: let the library
 * choose). @vnc_count is deprecated: pass -1 or 1.
 */
NRT_STATUS nrt_load(const void *neff_bytes, size_t size, int32_t start_vnc,
		    int32_t vnc_count, nrt_model_t **model);
NRT_STATUS nrt_unload(nrt_model_t *model);
NRT_STATUS nrt_get_model_nc_count(const nrt_model_t *model, uint32_t *vnc_count);

/* Run @model once (or @repeat_count times) with the named tensors of the sets. */
NRT_STATUS nrt_execute(nrt_model_t *model, const nrt_tensor_set_t *input_set,
		       nrt_tensor_set_t *output_set);
NRT_STATUS nrt_execute_repeat(nrt_model_t *model, const nrt_tensor_set_t *input_set,
			      nrt_tensor_set_t *output_set, int repeat_count);

/* ---- Tensor sets ---- */

NRT_STATUS nrt_allocate_tensor_set(nrt_tensor_set_t **result);
/* Frees the set, not its tensors; sets *@tensor_set to NULL. */
void nrt_destroy_tensor_set(nrt_tensor_set_t **tensor_set);
/* Adds @tensor under @tensor_name, replacing a tensor of that name. */
NRT_STATUS nrt_add_tensor_to_tensor_set(nrt_tensor_set_t *tensor_set,
					const char *tensor_name, nrt_tensor_t *tensor);
NRT_STATUS nrt_get_tensor_from_tensor_set(nrt_tensor_set_t *tensor_set,
					  const char *tensor_name, nrt_tensor_t **tensor);

/* ---- Tensors ---- */

/* @vnc: the core of a device tensor; -1 for host and virtual tensors. */
NRT_STATUS nrt_tensor_allocate(nrt_tensor_placement_t tensor_placement, int vnc,
			       size_t size, const char *name, nrt_tensor_t **tensor);
/* Frees the tensor (its memory once no slice uses it); sets *@tensor to NULL. */
void nrt_tensor_free(nrt_tensor_t **tensor);
NRT_STATUS nrt_tensor_read(const nrt_tensor_t *tensor, void *buf, size_t offset,
			   size_t size);
NRT_STATUS nrt_tensor_write(nrt_tensor_t *tensor, const void *buf, size_t offset,
			    size_t size);
NRT_STATUS nrt_tensor_read_batch(const nrt_tensor_batch_t *batches, uint64_t num_batches,
				 bool unsafe);
NRT_STATUS nrt_tensor_write_batch(const nrt_tensor_batch_t *batches, uint64_t num_batches,
				  bool unsafe);
NRT_STATUS nrt_tensor_copy(const nrt_tensor_t *src, size_t src_offset, nrt_tensor_t *dst,
			   size_t dst_offset, size_t size);
size_t nrt_tensor_get_size(const nrt_tensor_t *tensor);
NRT_STATUS nrt_tensor_memset(nrt_tensor_t *tensor, uint64_t offset, int value, size_t size);
/* A tensor without memory; give it some with nrt_tensor_attach_buffer(). */
NRT_STATUS nrt_tensor_allocate_empty(const char *name, nrt_tensor_t **tensor);
/* Use the caller's @buffer (kept by the caller for the tensor's lifetime). */
NRT_STATUS nrt_tensor_attach_buffer(nrt_tensor_t *tensor, void *buffer, size_t size);
/* A tensor sharing the bytes [@offset, @offset + @size) of @tensor_source. */
NRT_STATUS nrt_tensor_allocate_slice(const nrt_tensor_t *tensor_source, size_t offset,
				     size_t size, const char *name,
				     nrt_tensor_t **tensor_slice);
/* The tensor's bytes in this process, or NULL when they cannot be mapped. */
void *nrt_tensor_get_va(const nrt_tensor_t *tensor);
/* Copy @size bytes to @dest, an address given by nrt_tensor_get_va(). */
NRT_STATUS nrt_memcpy_to_device(void *dest, const void *src, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* NRT_NRT_H */
