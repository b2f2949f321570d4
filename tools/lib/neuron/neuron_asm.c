// SPDX-License-Identifier: GPL-2.0
/*
 * libneuron's model assembler (neuron_asm.h): the .nms parser of
 * docs/model-format.md ("The assembler"), the builder the selftests write
 * programs with, and the MODEL_LOAD argument of either.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>

#include "neuron_asm.h"
#include "neuron_io.h"
#include "neuron_names.h"

#define MAX_LABELS	4096
#define MAX_FIELDS	4096	/* words on one (joined) line */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

const char *const nasm_engine_names[NEURON_ENGINES] = {
	"pe", "act", "pool", "dve", "sp"
};

struct nasm_label {
	char name[64];
	uint32_t pc;
};

struct nasm_fixup {
	char name[64];
	uint32_t pc;
	unsigned int line;
};

/*
 * The error: "FILE:LINE: " (or "FILE: " outside a line) and the message,
 * into a->err; then back to nasm_parse(), or abort() for a program built
 * from C.
 */
static noreturn void nasm_fail(struct nasm *a, const char *fmt, ...)
{
	const char *file = a->file ? a->file : "";
	va_list ap;
	int h, n;

	h = a->line ? snprintf(NULL, 0, "%s:%u: ", file, a->line) :
		      snprintf(NULL, 0, "%s: ", file);
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	free(a->err);
	a->err = h >= 0 && n >= 0 ? malloc((size_t)h + n + 1) : NULL;
	if (a->err) {
		if (a->line)
			sprintf(a->err, "%s:%u: ", file, a->line);
		else
			sprintf(a->err, "%s: ", file);
		va_start(ap, fmt);
		vsprintf(a->err + h, fmt, ap);
		va_end(ap);
	}
	if (!a->fail) {
		fprintf(stderr, "nasm: %s\n", a->err ? a->err : "out of memory");
		abort();
	}
	longjmp(*a->fail, 1);
}

static void *xrealloc(struct nasm *a, void *ptr, size_t n)
{
	void *q = realloc(ptr, n ? n : 1);

	if (!q)
		nasm_fail(a, "out of memory");
	return q;
}

void nasm_init(struct nasm *a)
{
	memset(a, 0, sizeof(*a));
}

void nasm_free(struct nasm *a)
{
	unsigned int e;

	for (e = 0; e < NEURON_ENGINES; e++) {
		free(a->blocks[e].insns);
		free(a->blocks[e].labels);
		free(a->blocks[e].fixups);
	}
	free(a->dbytes);
	free(a->err);
	nasm_init(a);
}

void nasm_reset(struct nasm *a)
{
	nasm_free(a);
}

struct nasm *nasm_new(void)
{
	return calloc(1, sizeof(struct nasm));
}

void nasm_delete(struct nasm *a)
{
	if (a)
		nasm_free(a);
	free(a);
}

/* ---- the builder ---- */

static struct nasm_block *use_block(struct nasm *a, uint32_t e)
{
	struct nasm_block *b;

	if (e >= NEURON_ENGINES)
		nasm_fail(a, "no engine %u", e);
	b = &a->blocks[e];
	if (!b->used) {
		b->used = 1;
		b->order = a->nblocks++;
	}
	return b;
}

static struct neuron_tpb_insn *push(struct nasm *a, uint32_t e)
{
	struct nasm_block *b = use_block(a, e);

	if (b->count == NEURON_TPB_MAX_INSNS)
		nasm_fail(a, "engine %s: more than %d instructions",
			  nasm_engine_names[e], NEURON_TPB_MAX_INSNS);
	if (b->count == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		b->insns = xrealloc(a, b->insns, b->cap * sizeof(*b->insns));
	}
	return &b->insns[b->count++];
}

struct neuron_tpb_ref nasm_ref(uint32_t region, uint32_t offset)
{
	struct neuron_tpb_ref r = { .region = region, .offset = offset };

	return r;
}

uint32_t nasm_f2u(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

struct neuron_tpb_insn *nasm_emit(struct nasm *a, uint32_t e, uint8_t opcode,
				  uint8_t dtype, uint8_t func)
{
	struct neuron_tpb_insn *i = push(a, e);

	memset(i, 0, sizeof(*i));
	i->opcode = opcode;
	i->dtype = dtype;
	i->func = func;
	return i;
}

/* Append @in to engine @e's block. */
static void put(struct nasm *a, uint32_t e, const struct neuron_tpb_insn *in)
{
	*push(a, e) = *in;
}

void nasm_end(struct nasm *a, uint32_t e)
{
	nasm_emit(a, e, NEURON_TPB_END, 0, 0);
}

void nasm_jump(struct nasm *a, uint32_t e, uint32_t target)
{
	nasm_emit(a, e, NEURON_TPB_JUMP, 0, 0)->imm = target;
}

void nasm_copy(struct nasm *a, uint32_t e, struct neuron_tpb_ref dst,
	       struct neuron_tpb_ref src, uint32_t n)
{
	struct neuron_tpb_insn in = {
		.opcode = NEURON_TPB_COPY,
		.dst = dst, .a = src, .n = n,
	};

	put(a, e, &in);
}

void nasm_matmul(struct nasm *a, uint8_t dt, uint8_t func,
		 struct neuron_tpb_ref dst, struct neuron_tpb_ref x,
		 struct neuron_tpb_ref y, uint32_t m, uint32_t k, uint32_t n)
{
	struct neuron_tpb_insn in = {
		.opcode = NEURON_TPB_MATMUL, .dtype = dt, .func = func,
		.dst = dst, .a = x, .b = y, .m = m, .k = k, .n = n,
	};

	put(a, NEURON_ENGINE_PE, &in);
}

void nasm_act(struct nasm *a, uint8_t dt, uint8_t func,
	      struct neuron_tpb_ref dst, struct neuron_tpb_ref src, uint32_t n)
{
	struct neuron_tpb_insn in = {
		.opcode = NEURON_TPB_ACT, .dtype = dt, .func = func,
		.dst = dst, .a = src, .n = n,
	};

	put(a, NEURON_ENGINE_ACT, &in);
}

void nasm_pool(struct nasm *a, uint8_t dt, uint8_t func,
	       struct neuron_tpb_ref dst, struct neuron_tpb_ref src,
	       uint32_t m, uint32_t n, uint32_t k)
{
	struct neuron_tpb_insn in = {
		.opcode = NEURON_TPB_POOL, .dtype = dt, .func = func,
		.dst = dst, .a = src, .m = m, .k = k, .n = n,
	};

	put(a, NEURON_ENGINE_POOL, &in);
}

void nasm_tt(struct nasm *a, uint8_t dt, uint8_t func,
	     struct neuron_tpb_ref dst, struct neuron_tpb_ref x,
	     struct neuron_tpb_ref y, uint32_t m, uint32_t n)
{
	struct neuron_tpb_insn in = {
		.opcode = NEURON_TPB_TT, .dtype = dt, .func = func,
		.dst = dst, .a = x, .b = y, .m = m, .n = n,
	};

	put(a, NEURON_ENGINE_DVE, &in);
}

void nasm_ts(struct nasm *a, uint8_t dt, uint8_t func,
	     struct neuron_tpb_ref dst, struct neuron_tpb_ref src,
	     uint32_t imm, uint32_t m, uint32_t n)
{
	struct neuron_tpb_insn in = {
		.opcode = NEURON_TPB_TS, .dtype = dt, .func = func,
		.dst = dst, .a = src, .m = m, .n = n, .imm = imm,
	};

	put(a, NEURON_ENGINE_DVE, &in);
}

void nasm_sync(struct nasm *a, uint32_t e, uint8_t opcode, uint32_t index,
	       uint32_t imm)
{
	struct neuron_tpb_insn in = {
		.opcode = opcode,
		.index = index, .imm = imm,
	};

	put(a, e, &in);
}

void nasm_signal(struct nasm *a, uint32_t e, uint32_t sem, uint32_t count)
{
	nasm_sync(a, e, NEURON_TPB_SEM_SIGNAL, sem, count);
}

void nasm_wait(struct nasm *a, uint32_t e, uint32_t sem, uint32_t count)
{
	nasm_sync(a, e, NEURON_TPB_SEM_WAIT, sem, count);
}

void nasm_notify(struct nasm *a, uint32_t e, uint32_t imm)
{
	nasm_emit(a, e, NEURON_TPB_NOTIFY, 0, 0)->imm = imm;
}

uint32_t nasm_add_slot(struct nasm *a, uint32_t kind, uint32_t dtype,
		       uint64_t size)
{
	struct nasm_tensor *t;

	if (a->ntensors >= NEURON_MAX_SLOTS)
		nasm_fail(a, "more than %d tensors", NEURON_MAX_SLOTS);
	t = &a->tensors[a->ntensors];
	memset(t, 0, sizeof(*t));
	t->output = kind == NEURON_SLOT_OUTPUT;
	t->dtype = (int)dtype;
	t->ndim = 1;
	t->shape[0] = (uint32_t)(size / 4);
	t->size = size;
	return a->ntensors++;
}

void *nasm_data_ptr(struct nasm *a, const char *name)
{
	unsigned int i;

	for (i = 0; i < a->ndata; i++)
		if (!strcmp(a->data_names[i].name, name))
			return a->dbytes + a->data_names[i].offset;
	return NULL;
}

/* ---- loading ---- */

void nasm_load_args(const struct nasm *a, uint32_t nc, struct nasm_load *l)
{
	uint32_t e, i, d, nb = 0;

	memset(l, 0, sizeof(*l));
	for (e = 0; e < NEURON_ENGINES; e++) {
		if (!a->blocks[e].count)
			continue;
		l->blocks[nb].insns = (uintptr_t)a->blocks[e].insns;
		l->blocks[nb].count = a->blocks[e].count;
		l->blocks[nb].engine = e;
		nb++;
	}
	for (i = 0; i < a->ntensors && i < NEURON_MAX_SLOTS; i++) {
		const struct nasm_tensor *t = &a->tensors[i];
		struct neuron_model_slot *s = &l->slots[i];

		s->size = t->size;
		s->kind = t->output ? NEURON_SLOT_OUTPUT : NEURON_SLOT_INPUT;
		s->dtype = (uint32_t)t->dtype;
		s->ndim = t->ndim;
		for (d = 0; d < t->ndim && d < NEURON_MAX_DIMS; d++)
			s->shape[d] = t->shape[d];
		s->name = i;
	}
	l->ld.nc = nc;
	l->ld.blocks = (uintptr_t)l->blocks;
	l->ld.nblocks = nb;
	l->ld.slots = (uintptr_t)l->slots;
	l->ld.nslots = a->ntensors;
	l->ld.data = (uintptr_t)a->data;
	l->ld.data_size = a->data_size;
	l->ld.scratch_size = a->scratch_size;
	l->ld.err_block = 0x5a5a5a5a;
	l->ld.err_insn = 0x5a5a5a5a;
}

int nasm_load(int fd, uint32_t nc, const struct nasm *a,
	      struct neuron_model_load *ld)
{
	struct nasm_load *l = malloc(sizeof(*l));
	int err;

	if (!l) {
		errno = ENOMEM;
		return -ENOMEM;
	}
	nasm_load_args(a, nc, l);
	err = nio_model_load(fd, &l->ld);
	if (ld)
		*ld = l->ld;
	free(l);
	if (err)
		errno = -err;
	return err;
}

/* ---- the .nms parser ---- */

/* An unsigned number, decimal or 0x hex, at most @max. */
static uint64_t num(struct nasm *p, const char *what, const char *s,
		    uint64_t max)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		nasm_fail(p, "%s: '%s' is not a number", what, s);
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		nasm_fail(p, "%s: '%s' is not a number", what, s);
	if (v > max)
		nasm_fail(p, "%s: %s is more than %llu", what, s,
			  (unsigned long long)max);
	return v;
}

static float fp32(struct nasm *p, const char *what, const char *s)
{
	char *end;
	float f;

	errno = 0;
	f = strtof(s, &end);
	if (!*s || *end || errno == ERANGE)
		nasm_fail(p, "%s: '%s' is not a float32 value", what, s);
	return f;
}

static int32_t parse_int32(struct nasm *p, const char *what, const char *s)
{
	long long v;
	char *end;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (!*s || *end || errno || v < INT32_MIN || v > INT32_MAX)
		nasm_fail(p, "%s: '%s' is not an int32 value", what, s);
	return (int32_t)v;
}

static int dtype_of(struct nasm *p, const char *s)
{
	if (!strcmp(s, "float32"))
		return NEURON_DT_FP32;
	if (!strcmp(s, "int32"))
		return NEURON_DT_INT32;
	nasm_fail(p, "unknown dtype '%s' (float32, int32)", s);
}

static uint64_t shape_of(struct nasm *p, const char *s, uint32_t *shape,
			 unsigned int *ndim)
{
	uint64_t elems = 1;
	char buf[128], *tok, *save;

	if (strlen(s) >= sizeof(buf))
		nasm_fail(p, "shape '%s' too long", s);
	strcpy(buf, s);
	*ndim = 0;
	for (tok = strtok_r(buf, "x", &save); tok;
	     tok = strtok_r(NULL, "x", &save)) {
		uint64_t d = num(p, "shape", tok, 0xffffffffULL);

		if (*ndim == NEURON_MAX_DIMS)
			nasm_fail(p, "shape '%s': more than %d dimensions", s,
				  NEURON_MAX_DIMS);
		if (d == 0)
			nasm_fail(p, "shape '%s': a dimension of 0", s);
		if (elems > (1ULL << 38) / d)
			nasm_fail(p, "shape '%s': too large", s);
		elems *= d;
		shape[(*ndim)++] = (uint32_t)d;
	}
	if (!*ndim || s[0] == 'x' || s[strlen(s) - 1] == 'x' || strstr(s, "xx"))
		nasm_fail(p, "bad shape '%s'", s);
	return elems;
}

/* docs/model-format.md, "random": xorshift32, one step per element. */
static uint32_t xorshift32(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static void put32(uint8_t *d, uint32_t v)
{
	d[0] = v;
	d[1] = v >> 8;
	d[2] = v >> 16;
	d[3] = v >> 24;
}

static void do_data(struct nasm *p, char **f, unsigned int nf)
{
	struct nasm_datum *d;
	unsigned int ndim, i;
	uint32_t shape[NEURON_MAX_DIMS];
	uint64_t elems;
	int dt;

	if (nf < 5)
		nasm_fail(p, "data: NAME DTYPE SHAPE then values, 'random SEED' or 'zeros'");
	if (p->ndata == NASM_MAX_DATA)
		nasm_fail(p, "more than %d data entries", NASM_MAX_DATA);
	if (!neuron_tensor_name_ok(f[1]))
		nasm_fail(p, "bad data name '%s'", f[1]);
	for (i = 0; i < p->ndata; i++)
		if (!strcmp(p->data_names[i].name, f[1]))
			nasm_fail(p, "data '%s' declared twice", f[1]);
	dt = dtype_of(p, f[2]);
	elems = shape_of(p, f[3], shape, &ndim);
	if (elems * 4 > NASM_DATA_MAX - p->dsize)
		nasm_fail(p, "data '%s': the data region would be more than %u bytes",
			  f[1], NASM_DATA_MAX);
	d = &p->data_names[p->ndata++];
	strcpy(d->name, f[1]);
	d->offset = p->dsize;	/* every entry is a multiple of 4 */
	d->size = (uint32_t)(elems * 4);
	p->dbytes = xrealloc(p, p->dbytes, p->dsize + d->size);
	memset(p->dbytes + p->dsize, 0, d->size);

	if (!strcmp(f[4], "zeros")) {
		if (nf != 5)
			nasm_fail(p, "data '%s': words after 'zeros'", f[1]);
	} else if (!strcmp(f[4], "random")) {
		uint32_t x;

		if (nf != 6)
			nasm_fail(p, "data '%s': 'random SEED'", f[1]);
		x = (uint32_t)num(p, "random seed", f[5], 0xffffffffULL);
		if (!x)
			nasm_fail(p, "data '%s': the random seed must not be 0", f[1]);
		for (i = 0; i < elems; i++) {
			uint32_t r = xorshift32(&x), bits;

			if (dt == NEURON_DT_FP32) {
				float v = (float)(r >> 8) / 16777216.0f - 0.5f;

				memcpy(&bits, &v, 4);
			} else {
				bits = (uint32_t)((int32_t)(r >> 24) - 128);
			}
			put32(p->dbytes + p->dsize + 4 * i, bits);
		}
	} else {
		if (nf - 4 != elems)
			nasm_fail(p, "data '%s': %u values for %llu elements", f[1],
				  nf - 4, (unsigned long long)elems);
		for (i = 0; i < elems; i++) {
			uint32_t bits;

			if (dt == NEURON_DT_FP32) {
				float v = fp32(p, "value", f[4 + i]);

				memcpy(&bits, &v, 4);
			} else {
				bits = (uint32_t)parse_int32(p, "value", f[4 + i]);
			}
			put32(p->dbytes + p->dsize + 4 * i, bits);
		}
	}
	p->dsize += d->size;
}

static void do_tensor(struct nasm *p, char **f, unsigned int nf)
{
	struct nasm_tensor *t;
	unsigned int i;

	if (nf != 5)
		nasm_fail(p, "tensor: input|output NAME DTYPE SHAPE");
	if (p->nblocks)
		nasm_fail(p, "tensor lines come before the first 'engine'");
	if (p->ntensors == NEURON_MAX_SLOTS)
		nasm_fail(p, "more than %d tensors", NEURON_MAX_SLOTS);
	t = &p->tensors[p->ntensors];
	if (!strcmp(f[1], "input"))
		t->output = 0;
	else if (!strcmp(f[1], "output"))
		t->output = 1;
	else
		nasm_fail(p, "tensor: '%s' is neither input nor output", f[1]);
	if (!neuron_tensor_name_ok(f[2]))
		nasm_fail(p, "bad tensor name '%s'", f[2]);
	for (i = 0; i < p->ntensors; i++)
		if (!strcmp(p->tensors[i].name, f[2]))
			nasm_fail(p, "tensor '%s' declared twice", f[2]);
	strcpy(t->name, f[2]);
	t->dtype = dtype_of(p, f[3]);
	t->size = 4 * shape_of(p, f[4], t->shape, &t->ndim);
	p->ntensors++;
}

/* An operand: slot:NAME[+OFF], in:, out:, data:NAME[+OFF], data:OFF, scratch:OFF */
static struct neuron_tpb_ref parse_operand(struct nasm *p, const char *s)
{
	struct neuron_tpb_ref r = { 0, 0 };
	char buf[300], *colon, *plus, *name;
	uint64_t off = 0;
	unsigned int i;

	if (strlen(s) >= sizeof(buf))
		nasm_fail(p, "operand '%.40s...' too long", s);
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (!colon)
		nasm_fail(p, "operand '%s': REGION:WHERE (slot, in, out, data, scratch)", s);
	*colon = '\0';
	name = colon + 1;
	plus = strrchr(name, '+');
	if (plus) {
		*plus = '\0';
		off = num(p, "operand offset", plus + 1, 0xffffffffULL);
	}
	if (!strcmp(buf, "scratch")) {
		if (plus)
			nasm_fail(p, "operand '%s': scratch:BYTEOFFSET", s);
		r.region = NEURON_REGION_SCRATCH;
		off = num(p, "scratch offset", name, 0xffffffffULL);
	} else if (!strcmp(buf, "data")) {
		r.region = NEURON_REGION_DATA;
		if (*name >= '0' && *name <= '9') {
			if (plus)
				nasm_fail(p, "operand '%s': data:BYTEOFFSET or data:NAME+OFFSET",
					  s);
			off = num(p, "data offset", name, 0xffffffffULL);
		} else {
			for (i = 0; i < p->ndata; i++)
				if (!strcmp(p->data_names[i].name, name))
					break;
			if (i == p->ndata)
				nasm_fail(p, "operand '%s': no data named '%s'", s, name);
			off += p->data_names[i].offset;
		}
	} else if (!strcmp(buf, "slot") || !strcmp(buf, "in") ||
		   !strcmp(buf, "out")) {
		for (i = 0; i < p->ntensors; i++)
			if (!strcmp(p->tensors[i].name, name))
				break;
		if (i == p->ntensors)
			nasm_fail(p, "operand '%s': no tensor named '%s'", s, name);
		if ((buf[0] == 'i' && p->tensors[i].output) ||
		    (buf[0] == 'o' && !p->tensors[i].output))
			nasm_fail(p, "operand '%s': tensor '%s' is an %s", s, name,
				  p->tensors[i].output ? "output" : "input");
		r.region = NEURON_REGION_SLOT(i);
	} else {
		nasm_fail(p, "operand '%s': unknown region '%s'", s, buf);
	}
	if (off > 0xffffffffULL || off % 4)
		nasm_fail(p, "operand '%s': offset %llu is not a multiple of 4", s,
			  (unsigned long long)off);
	r.offset = (uint32_t)off;
	return r;
}

struct opdef {
	const char *name;
	uint8_t opcode;
	int engine;		/* the only engine that has it, or -1: all */
};

static const struct opdef ops[] = {
	{ "end", NEURON_TPB_END, -1 },
	{ "jump", NEURON_TPB_JUMP, -1 },
	{ "copy", NEURON_TPB_COPY, -1 },
	{ "matmul", NEURON_TPB_MATMUL, NEURON_ENGINE_PE },
	{ "act", NEURON_TPB_ACT, NEURON_ENGINE_ACT },
	{ "pool", NEURON_TPB_POOL, NEURON_ENGINE_POOL },
	{ "tt", NEURON_TPB_TT, NEURON_ENGINE_DVE },
	{ "ts", NEURON_TPB_TS, NEURON_ENGINE_DVE },
	{ "sem_signal", NEURON_TPB_SEM_SIGNAL, -1 },
	{ "sem_wait", NEURON_TPB_SEM_WAIT, -1 },
	{ "event_set", NEURON_TPB_EVENT_SET, -1 },
	{ "event_wait", NEURON_TPB_EVENT_WAIT, -1 },
	{ "notify", NEURON_TPB_NOTIFY, -1 },
};

static const char *const act_funcs[] = { "identity", "relu", "sigmoid", "tanh", NULL };
static const char *const pool_funcs[] = { "max", "avg", NULL };
static const char *const alu_funcs[] = { "add", "sub", "mul", "max", "div", NULL };

static int lookup(const char *const *names, const char *s)
{
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

static void parse_insn(struct nasm *p, char **f, unsigned int nf)
{
	struct nasm_block *b = &p->blocks[p->engine];
	struct neuron_tpb_insn in;
	const struct opdef *op = NULL;
	char mn[32], *dot;
	const char *const *funcs = NULL;
	int have_func = 0, have_imm = 0, acc = 0, bcast = 0;
	const char *imm_text = NULL;
	unsigned int i, npos = 0;
	char *pos[3];

	memset(&in, 0, sizeof(in));
	if (strlen(f[0]) >= sizeof(mn))
		nasm_fail(p, "unknown instruction '%.40s'", f[0]);
	strcpy(mn, f[0]);
	dot = strchr(mn, '.');
	if (dot) {
		*dot++ = '\0';
		if (!strcmp(dot, "i32"))
			in.dtype = NEURON_DT_INT32;
		else if (strcmp(dot, "f32"))
			nasm_fail(p, "'%s': the dtype suffix is .f32 or .i32", f[0]);
	}
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (!strcmp(ops[i].name, mn))
			op = &ops[i];
	if (!op)
		nasm_fail(p, "unknown instruction '%s'", f[0]);
	if (op->engine >= 0 && op->engine != p->engine)
		nasm_fail(p, "'%s' is an instruction of engine %s, not %s", mn,
			  nasm_engine_names[op->engine], nasm_engine_names[p->engine]);
	in.opcode = op->opcode;
	if (op->opcode == NEURON_TPB_ACT)
		funcs = act_funcs;
	else if (op->opcode == NEURON_TPB_POOL)
		funcs = pool_funcs;
	else if (op->opcode == NEURON_TPB_TT || op->opcode == NEURON_TPB_TS)
		funcs = alu_funcs;

	for (i = 1; i < nf; i++) {
		char *eq = strchr(f[i], '=');

		if (eq) {
			const char *k = f[i], *v = eq + 1;

			*eq = '\0';
			if (!strcmp(k, "m")) {
				in.m = (uint32_t)num(p, "m", v, 0xffffffffULL);
			} else if (!strcmp(k, "k")) {
				in.k = (uint32_t)num(p, "k", v, 0xffffffffULL);
			} else if (!strcmp(k, "n")) {
				in.n = (uint32_t)num(p, "n", v, 0xffffffffULL);
			} else if (!strcmp(k, "imm")) {
				imm_text = v;
				have_imm = 1;
			} else if (!strcmp(k, "dst")) {
				in.dst = parse_operand(p, v);
			} else if (!strcmp(k, "a")) {
				in.a = parse_operand(p, v);
			} else if (!strcmp(k, "b")) {
				in.b = parse_operand(p, v);
			} else {
				nasm_fail(p, "'%s': unknown field '%s'", mn, k);
			}
			continue;
		}
		if (funcs && lookup(funcs, f[i]) >= 0 && !have_func) {
			in.func = (uint8_t)lookup(funcs, f[i]);
			have_func = 1;
		} else if (op->opcode == NEURON_TPB_MATMUL && !strcmp(f[i], "acc")) {
			acc = 1;
		} else if (op->opcode == NEURON_TPB_TT && !strcmp(f[i], "bcast")) {
			bcast = 1;
		} else if (npos < 3) {
			pos[npos++] = f[i];
		} else {
			nasm_fail(p, "'%s': unexpected '%s'", mn, f[i]);
		}
	}
	if (funcs && !have_func)
		nasm_fail(p, "'%s' needs an operation (%s, ...)", mn, funcs[0]);
	if (acc)
		in.func = NEURON_TPB_ACCUMULATE;
	if (bcast)
		in.func |= NEURON_TPB_BCAST;

	switch (op->opcode) {
	case NEURON_TPB_SEM_SIGNAL:
	case NEURON_TPB_SEM_WAIT:
	case NEURON_TPB_EVENT_SET:
	case NEURON_TPB_EVENT_WAIT:
		if (npos != 2)
			nasm_fail(p, "'%s INDEX VALUE'", mn);
		in.index = (uint32_t)num(p, "index", pos[0], 0xffffffffULL);
		in.imm = (uint32_t)num(p, "value", pos[1], 0xffffffffULL);
		break;
	case NEURON_TPB_NOTIFY:
		if (npos != 1)
			nasm_fail(p, "'notify VALUE'");
		in.imm = (uint32_t)num(p, "value", pos[0], 0xffffffffULL);
		break;
	case NEURON_TPB_JUMP:
		if (npos != 1)
			nasm_fail(p, "'jump LABEL'");
		if (pos[0][0] >= '0' && pos[0][0] <= '9') {
			in.imm = (uint32_t)num(p, "jump target", pos[0], 0xffffffffULL);
		} else {
			struct nasm_fixup *fx;

			if (strlen(pos[0]) >= sizeof(fx->name))
				nasm_fail(p, "label '%.40s...' too long", pos[0]);
			b->fixups = xrealloc(p, b->fixups,
					     (b->nfixups + 1) * sizeof(*fx));
			fx = &b->fixups[b->nfixups++];
			strcpy(fx->name, pos[0]);
			fx->pc = b->count;
			fx->line = p->line;
		}
		break;
	default:
		if (npos)
			nasm_fail(p, "'%s': unexpected '%s'", mn, pos[0]);
	}
	if (have_imm) {
		if (op->opcode != NEURON_TPB_TS)
			nasm_fail(p, "'%s' has no imm=", mn);
		if (in.dtype == NEURON_DT_FP32) {
			float v = fp32(p, "imm", imm_text);

			memcpy(&in.imm, &v, 4);
		} else {
			in.imm = (uint32_t)parse_int32(p, "imm", imm_text);
		}
	} else if (op->opcode == NEURON_TPB_TS) {
		nasm_fail(p, "'ts' needs imm=");
	}
	*push(p, (uint32_t)p->engine) = in;
}

static void do_label(struct nasm *p, const char *s)
{
	struct nasm_block *b = &p->blocks[p->engine];
	size_t n = strlen(s) - 1;
	unsigned int i;

	if (n == 0 || n >= sizeof(b->labels->name) ||
	    !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
	      s[0] == '_'))
		nasm_fail(p, "bad label '%s'", s);
	for (i = 0; i < b->nlabels; i++)
		if (!strncmp(b->labels[i].name, s, n) && !b->labels[i].name[n])
			nasm_fail(p, "label '%.*s' defined twice in engine %s", (int)n,
				  s, nasm_engine_names[p->engine]);
	if (b->nlabels == MAX_LABELS)
		nasm_fail(p, "more than %d labels in one engine", MAX_LABELS);
	b->labels = xrealloc(p, b->labels, (b->nlabels + 1) * sizeof(*b->labels));
	memcpy(b->labels[b->nlabels].name, s, n);
	b->labels[b->nlabels].name[n] = '\0';
	b->labels[b->nlabels].pc = b->count;
	b->nlabels++;
}

static void do_line(struct nasm *p, char **f, unsigned int nf)
{
	unsigned int i;

	if (!strcmp(f[0], "arch")) {
		if (nf != 2 || (strcmp(f[1], "v2") && strcmp(f[1], "v3")))
			nasm_fail(p, "arch v2|v3");
		if (p->arch)
			nasm_fail(p, "arch given twice");
		p->arch = !strcmp(f[1], "v2") ? "v2" : "v3";
	} else if (!strcmp(f[0], "nc_count")) {
		if (nf != 2 || strcmp(f[1], "1"))
			nasm_fail(p, "nc_count 1 (models of one NeuronCore only)");
		p->nc_count = 1;
	} else if (!strcmp(f[0], "scratch")) {
		if (nf != 2)
			nasm_fail(p, "scratch BYTES");
		if (p->have_scratch++)
			nasm_fail(p, "scratch given twice");
		p->scratch_size = num(p, "scratch", f[1], 0xfffffffcULL);
		if (p->scratch_size % 4)
			nasm_fail(p, "scratch: a multiple of 4");
	} else if (!strcmp(f[0], "tensor")) {
		do_tensor(p, f, nf);
	} else if (!strcmp(f[0], "data")) {
		do_data(p, f, nf);
	} else if (!strcmp(f[0], "engine")) {
		if (nf != 2)
			nasm_fail(p, "engine pe|act|pool|dve|sp");
		for (i = 0; i < NEURON_ENGINES; i++)
			if (!strcmp(f[1], nasm_engine_names[i]))
				break;
		if (i == NEURON_ENGINES)
			nasm_fail(p, "unknown engine '%s' (pe, act, pool, dve, sp)", f[1]);
		if (p->blocks[i].used)
			nasm_fail(p, "engine %s given twice", f[1]);
		use_block(p, i);
		p->engine = (int)i;
	} else {
		size_t n = strlen(f[0]);

		if (p->engine < 0)
			nasm_fail(p, "'%s' before the first 'engine' line", f[0]);
		if (f[0][n - 1] == ':') {
			do_label(p, f[0]);
			if (nf > 1)
				parse_insn(p, f + 1, nf - 1);
		} else {
			parse_insn(p, f, nf);
		}
	}
}

static void resolve(struct nasm *p)
{
	unsigned int e, i, j;

	for (e = 0; e < NEURON_ENGINES; e++) {
		struct nasm_block *b = &p->blocks[e];

		if (!b->used)
			continue;
		p->line = 0;
		if (!b->count)
			nasm_fail(p, "engine %s has no instructions", nasm_engine_names[e]);
		if (b->insns[b->count - 1].opcode != NEURON_TPB_END &&
		    b->insns[b->count - 1].opcode != NEURON_TPB_JUMP)
			nasm_fail(p, "engine %s: the block does not end with 'end' or 'jump'",
				  nasm_engine_names[e]);
		for (i = 0; i < b->nfixups; i++) {
			struct nasm_fixup *fx = &b->fixups[i];

			for (j = 0; j < b->nlabels; j++)
				if (!strcmp(b->labels[j].name, fx->name))
					break;
			p->line = fx->line;
			if (j == b->nlabels)
				nasm_fail(p, "no label '%s' in engine %s", fx->name,
					  nasm_engine_names[e]);
			if (b->labels[j].pc >= b->count)
				nasm_fail(p, "label '%s' is past the end of engine %s",
					  fx->name, nasm_engine_names[e]);
			b->insns[fx->pc].imm = b->labels[j].pc;
		}
		for (i = 0; i < b->count; i++)
			if (b->insns[i].opcode == NEURON_TPB_JUMP &&
			    b->insns[i].imm >= b->count) {
				p->line = 0;
				nasm_fail(p, "engine %s: jump %u is out of the block",
					  nasm_engine_names[e], b->insns[i].imm);
			}
	}
	p->line = 0;
	if (!p->arch)
		nasm_fail(p, "no 'arch' line");
	if (!p->nblocks)
		nasm_fail(p, "no 'engine' section");
}

/* Split @s into words in place; a word is at most MAX_FIELDS of them. */
static unsigned int split(struct nasm *p, char *s, char **f)
{
	unsigned int nf = 0;
	char *w;

	while ((w = neuron_next_word(&s))) {
		if (nf == MAX_FIELDS)
			nasm_fail(p, "more than %d words on a line", MAX_FIELDS);
		f[nf++] = w;
	}
	return nf;
}

/* Lines; a backslash at the end of a line joins the next to it. */
static void parse_lines(struct nasm *p, char *s, char **f)
{
	p->line = 1;
	while (*s) {
		unsigned int first = p->line, next, nf;
		char *start = s, *w = s;

		for (;;) {
			if (!*s)
				break;
			if (*s == '\n') {
				p->line++;
				s++;
				break;
			}
			if (*s == '\\' && s[1] == '\n') {
				*w++ = ' ';
				s += 2;
				p->line++;
				continue;
			}
			if (*s == '\r' || (*s != '\t' && (unsigned char)*s < 0x20)) {
				p->line = first;
				nasm_fail(p, "a control character");
			}
			*w++ = *s++;
		}
		*w = '\0';
		next = p->line;
		p->line = first;
		nf = split(p, start, f);
		if (nf)
			do_line(p, f, nf);
		p->line = next;
	}
}

int nasm_parse(struct nasm *a, const char *file, char *src)
{
	jmp_buf fail;
	char **f;

	a->file = file;
	a->line = 0;
	a->engine = -1;
	free(a->err);
	a->err = NULL;
	/* The words of a line: kept in @a, since a failure longjmp()s here. */
	f = malloc(MAX_FIELDS * sizeof(*f));
	if (!f) {
		a->err = strdup("out of memory");
		return -1;
	}
	a->fields = f;
	if (setjmp(fail)) {
		a->fail = NULL;
		free(a->fields);
		a->fields = NULL;
		return -1;
	}
	a->fail = &fail;
	parse_lines(a, src, a->fields);
	resolve(a);
	a->fail = NULL;
	free(a->fields);
	a->fields = NULL;
	if (a->dsize) {
		a->data = a->dbytes;
		a->data_size = a->dsize;
	}
	return 0;
}

int nasm_parse_text(struct nasm *a, const char *file, const char *text)
{
	char *copy = strdup(text);
	int ret;

	if (!copy) {
		a->file = file;
		free(a->err);
		a->err = strdup("out of memory");
		return -1;
	}
	ret = nasm_parse(a, file, copy);
	free(copy);
	return ret;
}
