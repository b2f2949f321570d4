/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndl/neuron_driver_shared_tensor_batch_op.h - one operation of a batched
 * tensor read or write (nrt_tensor_read_batch() / nrt_tensor_write_batch()
 * of nrt/nrt.h). Our own text.
 *
 * Layout (ours; 24 bytes on LP64, 16 on ILP32):
 *   offset  0: uint64_t offset  - byte offset in the tensor
 *   offset  8: uint64_t size    - bytes to transfer
 *   offset 16: void *buffer     - host buffer (read: written to; write: read from)
 * The field names, order and types are those public SDK clients use.
 */
#ifndef NDL_NEURON_DRIVER_SHARED_TENSOR_BATCH_OP_H
#define NDL_NEURON_DRIVER_SHARED_TENSOR_BATCH_OP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t nrt_tensor_batch_offset_t;
typedef uint64_t nrt_tensor_batch_size_t;

typedef struct nrt_tensor_batch_op {
	nrt_tensor_batch_offset_t offset;
	nrt_tensor_batch_size_t size;
	void *buffer;
} nrt_tensor_batch_op_t;

#ifdef __cplusplus
}
#endif

#endif /* NDL_NEURON_DRIVER_SHARED_TENSOR_BATCH_OP_H */
