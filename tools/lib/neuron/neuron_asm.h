/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libneuron's model assembler: a model of the simulated TPB (docs/sim-isa.md)
 * built from the .nms text syntax (docs/model-format.md, "The assembler"),
 * or instruction by instruction from C, or both; then loaded with
 * MODEL_LOAD (nasm_load()) or packed into a container (neuron-pack).
 *
 * A zeroed struct nasm is an empty model (nasm_init()); nasm_free() gives
 * back what it allocated, nasm_reset() empties it again.
 */
#ifndef NEURON_ASM_H
#define NEURON_ASM_H

#include <setjmp.h>
#include <stdint.h>

#include "neuron.h"

#define NASM_MAX_DATA	64		/* data entries of a source */
#define NASM_DATA_MAX	(256U << 20)	/* bytes of the data region */
#define NASM_NAME_MAX	256

extern const char *const nasm_engine_names[NEURON_ENGINES];

/* An input or output: a slot of the model, in declaration order. */
struct nasm_tensor {
	char name[NASM_NAME_MAX];	/* "" for a slot added from C */
	int output;
	int dtype;			/* NEURON_DT_* */
	unsigned int ndim;
	uint32_t shape[NEURON_MAX_DIMS];
	uint64_t size;
};

/* A named constant of the data region. */
struct nasm_datum {
	char name[NASM_NAME_MAX];
	uint32_t offset;
	uint32_t size;
};

struct nasm_label;
struct nasm_fixup;

/* The program of one engine. */
struct nasm_block {
	int used;
	struct neuron_tpb_insn *insns;
	uint32_t count, cap;
	struct nasm_label *labels;
	unsigned int nlabels;
	struct nasm_fixup *fixups;
	unsigned int nfixups;
	unsigned int order;	/* when it was first given (0, 1, ...) */
};

struct nasm {
	const char *arch;		/* "v2", "v3", or NULL: not given */
	unsigned int nc_count;
	struct nasm_tensor tensors[NEURON_MAX_SLOTS];
	unsigned int ntensors;
	struct nasm_datum data_names[NASM_MAX_DATA];
	unsigned int ndata;
	uint8_t *dbytes;		/* the data region a source declared */
	uint32_t dsize;
	/* The data region MODEL_LOAD gets: dbytes after a parse, or the caller's. */
	const void *data;
	uint64_t data_size;
	uint64_t scratch_size;
	int have_scratch;
	struct nasm_block blocks[NEURON_ENGINES];
	unsigned int nblocks;
	/* Parsing: the source's name, its line, the current engine (-1: none). */
	const char *file;
	unsigned int line;
	int engine;
	jmp_buf *fail;
	char **fields;
	/* The error of a failed call: "FILE:LINE: what", as neuron-pack prints it. */
	char *err;
};

void nasm_init(struct nasm *a);
void nasm_free(struct nasm *a);
void nasm_reset(struct nasm *a);
/* A model allocated and zeroed (NULL without memory); nasm_delete() frees it. */
struct nasm *nasm_new(void);
void nasm_delete(struct nasm *a);

/*
 * Assemble the .nms source @src (modified in place), named @file in the
 * messages, into @a; then check the blocks and resolve the labels.  0, or
 * -1 with the reason in @a->err.  The text may also add to a model built
 * from C before (its engines are then given again: an error).
 */
int nasm_parse(struct nasm *a, const char *file, char *src);
/* The same for a string that is not changed (a copy is parsed). */
int nasm_parse_text(struct nasm *a, const char *file, const char *text);

/* ---- building from C: the operands ---- */

struct neuron_tpb_ref nasm_ref(uint32_t region, uint32_t offset);
#define NASM_DATA(off)		nasm_ref(NEURON_REGION_DATA, (off))
#define NASM_SCR(off)		nasm_ref(NEURON_REGION_SCRATCH, (off))
#define NASM_SLOT(i, off)	nasm_ref(NEURON_REGION_SLOT(i), (off))
#define NASM_NOREF		nasm_ref(0, 0)

/* The bits of a float32 (for imm). */
uint32_t nasm_f2u(float f);

/*
 * Append a zeroed instruction to engine @e's block (abort() past
 * NEURON_TPB_MAX_INSNS or without memory: for programs, not for input).
 */
struct neuron_tpb_insn *nasm_emit(struct nasm *a, uint32_t e, uint8_t opcode,
				  uint8_t dtype, uint8_t func);
void nasm_end(struct nasm *a, uint32_t e);
void nasm_jump(struct nasm *a, uint32_t e, uint32_t target);
void nasm_copy(struct nasm *a, uint32_t e, struct neuron_tpb_ref dst,
	       struct neuron_tpb_ref src, uint32_t n);
void nasm_matmul(struct nasm *a, uint8_t dt, uint8_t func,
		 struct neuron_tpb_ref dst, struct neuron_tpb_ref x,
		 struct neuron_tpb_ref y, uint32_t m, uint32_t k, uint32_t n);
void nasm_act(struct nasm *a, uint8_t dt, uint8_t func,
	      struct neuron_tpb_ref dst, struct neuron_tpb_ref src, uint32_t n);
void nasm_pool(struct nasm *a, uint8_t dt, uint8_t func,
	       struct neuron_tpb_ref dst, struct neuron_tpb_ref src,
	       uint32_t m, uint32_t n, uint32_t k);
void nasm_tt(struct nasm *a, uint8_t dt, uint8_t func,
	     struct neuron_tpb_ref dst, struct neuron_tpb_ref x,
	     struct neuron_tpb_ref y, uint32_t m, uint32_t n);
void nasm_ts(struct nasm *a, uint8_t dt, uint8_t func,
	     struct neuron_tpb_ref dst, struct neuron_tpb_ref src,
	     uint32_t imm, uint32_t m, uint32_t n);
/* SEM_SIGNAL, SEM_WAIT, EVENT_SET, EVENT_WAIT of @index with @imm. */
void nasm_sync(struct nasm *a, uint32_t e, uint8_t opcode, uint32_t index,
	       uint32_t imm);
void nasm_signal(struct nasm *a, uint32_t e, uint32_t sem, uint32_t count);
void nasm_wait(struct nasm *a, uint32_t e, uint32_t sem, uint32_t count);
void nasm_notify(struct nasm *a, uint32_t e, uint32_t imm);

/*
 * Add a slot of @size bytes, a vector of @size / 4 elements: @kind
 * NEURON_SLOT_INPUT or NEURON_SLOT_OUTPUT.  Its index (abort() past
 * NEURON_MAX_SLOTS).
 */
uint32_t nasm_add_slot(struct nasm *a, uint32_t kind, uint32_t dtype,
		       uint64_t size);

/* Where a source's data entry @name lies in the data region, or NULL. */
void *nasm_data_ptr(struct nasm *a, const char *name);

/* ---- loading ---- */

/*
 * The argument of MODEL_LOAD on NC @nc, pointing into @l itself (blocks in
 * engine order, slots named by their index); err_block and err_insn are
 * set to 0x5a5a5a5a, so that a caller sees the driver wrote them.
 */
struct nasm_load {
	struct neuron_model_load ld;
	struct neuron_model_block blocks[NEURON_ENGINES];
	struct neuron_model_slot slots[NEURON_MAX_SLOTS];
};

void nasm_load_args(const struct nasm *a, uint32_t nc, struct nasm_load *l);
/* MODEL_LOAD of @a on @nc: 0 or -errno; @ld (unless NULL) the Out fields. */
int nasm_load(int fd, uint32_t nc, const struct nasm *a,
	      struct neuron_model_load *ld);

#endif /* NEURON_ASM_H */
