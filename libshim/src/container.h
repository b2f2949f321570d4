/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libshim: the model container reader (docs/model-format.md). Internal to
 * libnrt.so.1 and the tools; not installed.
 */
#ifndef NEURON_CONTAINER_H
#define NEURON_CONTAINER_H

#include <stddef.h>
#include <stdint.h>

#include <neuron.h>

#define NRTC_NAME_MAX		256	/* with the NUL, as NRT_TENSOR_NAME_MAX */
#define NRTC_MAX_TENSORS	NEURON_MAX_SLOTS
/* The most a container may hold once uncompressed, all files together. */
#define NRTC_MAX_TOTAL		(256ULL << 20)

/* nrtc_parse() results */
#define NRTC_OK			0
#define NRTC_ECORRUPT		1	/* not a container, truncated, malformed, over a limit */
#define NRTC_EVERSION		2	/* a container of a format version or arch we do not read */
#define NRTC_ENOMEM		3

/* One input or output, in slot order (the order of the manifest). */
struct nrtc_tensor {
	char name[NRTC_NAME_MAX];
	uint32_t usage;		/* 0 input, 1 output */
	uint32_t dtype;		/* NEURON_DT_FP32 or NEURON_DT_INT32 */
	uint32_t ndim;		/* 1..NEURON_MAX_DIMS */
	uint32_t shape[NEURON_MAX_DIMS];
	uint64_t size;		/* bytes: 4 * product of shape */
};

struct nrtc_block {
	uint32_t engine;	/* NEURON_ENGINE_* */
	uint32_t count;		/* instructions */
	struct neuron_tpb_insn *insns;
};

struct nrtc_model {
	uint32_t format;	/* manifest format version (1) */
	uint32_t arch;		/* NEURON_ARCH_* the model was built for (v2, v3) */
	uint32_t nc_count;	/* NeuronCores the model needs (1) */
	uint32_t ntensors;
	struct nrtc_tensor *tensors;
	uint32_t nblocks;
	struct nrtc_block blocks[NEURON_ENGINES];
	void *data;		/* constants, NULL if none */
	uint64_t data_size;
	uint64_t scratch_size;
};

/*
 * Parse the container @buf of @len bytes (it is only read, never kept).
 * On NRTC_OK *@out is a model to free with nrtc_free(); otherwise @err
 * (if not NULL) holds one line saying why.
 */
int nrtc_parse(const void *buf, size_t len, struct nrtc_model **out,
	       char *err, size_t errlen);
void nrtc_free(struct nrtc_model *model);

#endif /* NEURON_CONTAINER_H */
