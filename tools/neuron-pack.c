// SPDX-License-Identifier: GPL-2.0
/*
 * neuron-pack: assemble a model source (.nms) into a model container
 * (docs/model-format.md, "The assembler").
 *
 *   neuron-pack [-o OUT] SOURCE
 *
 * Without -o the output is SOURCE with its .nms suffix replaced by .nmodel.
 * The output is reproducible: the same source gives the same bytes.
 * Exit status: 0 written, 1 an error in the source or on output, 64 usage.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "neuron.h"

#define MAX_SOURCE	(64 << 20)
#define MAX_DATA	64
#define MAX_LABELS	4096
#define MAX_FIELDS	4096	/* words on one (joined) line */
#define DATA_MAX	(256U << 20)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const engine_names[NEURON_ENGINES] = {
	"pe", "act", "pool", "dve", "sp"
};

struct tensor {
	char name[256];
	int output;
	int dtype;
	unsigned int ndim;
	uint32_t shape[NEURON_MAX_DIMS];
	uint64_t size;
};

struct datum {
	char name[256];
	uint32_t offset;
	uint32_t size;
};

struct label {
	char name[64];
	uint32_t pc;
};

struct fixup {
	char name[64];
	uint32_t pc;
	unsigned int line;
};

struct block {
	int used;
	struct neuron_tpb_insn *insns;
	uint32_t count, cap;
	struct label *labels;
	unsigned int nlabels;
	struct fixup *fixups;
	unsigned int nfixups;
	unsigned int order;	/* when it was first seen */
};

struct pack {
	const char *file;
	unsigned int line;
	const char *arch;
	unsigned int nc_count;
	struct tensor tensors[NEURON_MAX_SLOTS];
	unsigned int ntensors;
	struct datum data[MAX_DATA];
	unsigned int ndata;
	uint8_t *dbytes;
	uint32_t dsize;
	uint64_t scratch;
	int have_scratch;
	struct block blocks[NEURON_ENGINES];
	unsigned int nblocks;
	int engine;		/* current, -1 before the first 'engine' */
};

static noreturn void die(struct pack *p, const char *fmt, ...)
{
	va_list ap;

	if (p && p->line)
		fprintf(stderr, "%s:%u: ", p->file, p->line);
	else if (p)
		fprintf(stderr, "%s: ", p->file);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xrealloc(struct pack *p, void *ptr, size_t n)
{
	void *q = realloc(ptr, n ? n : 1);

	if (!q)
		die(p, "out of memory");
	return q;
}

static int name_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n < 1 || n > 255 || strstr(s, ".."))
		return 0;
	for (i = 0; i < n; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' ||
		      ch == ':' || ch == '/' || ch == '-'))
			return 0;
	}
	return 1;
}

/* An unsigned number, decimal or 0x hex, at most @max. */
static uint64_t num(struct pack *p, const char *what, const char *s,
		    uint64_t max)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		die(p, "%s: '%s' is not a number", what, s);
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		die(p, "%s: '%s' is not a number", what, s);
	if (v > max)
		die(p, "%s: %s is more than %llu", what, s,
		    (unsigned long long)max);
	return v;
}

static float fp32(struct pack *p, const char *what, const char *s)
{
	char *end;
	float f;

	errno = 0;
	f = strtof(s, &end);
	if (!*s || *end || errno == ERANGE)
		die(p, "%s: '%s' is not a float32 value", what, s);
	return f;
}

static int32_t parse_int32(struct pack *p, const char *what, const char *s)
{
	long long v;
	char *end;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (!*s || *end || errno || v < INT32_MIN || v > INT32_MAX)
		die(p, "%s: '%s' is not an int32 value", what, s);
	return (int32_t)v;
}

static int dtype_of(struct pack *p, const char *s)
{
	if (!strcmp(s, "float32"))
		return NEURON_DT_FP32;
	if (!strcmp(s, "int32"))
		return NEURON_DT_INT32;
	die(p, "unknown dtype '%s' (float32, int32)", s);
}

static uint64_t shape_of(struct pack *p, const char *s, uint32_t *shape,
			 unsigned int *ndim)
{
	uint64_t elems = 1;
	char buf[128], *tok, *save;

	if (strlen(s) >= sizeof(buf))
		die(p, "shape '%s' too long", s);
	strcpy(buf, s);
	*ndim = 0;
	for (tok = strtok_r(buf, "x", &save); tok;
	     tok = strtok_r(NULL, "x", &save)) {
		uint64_t d = num(p, "shape", tok, 0xffffffffULL);

		if (*ndim == NEURON_MAX_DIMS)
			die(p, "shape '%s': more than %d dimensions", s,
			    NEURON_MAX_DIMS);
		if (d == 0)
			die(p, "shape '%s': a dimension of 0", s);
		if (elems > (1ULL << 38) / d)
			die(p, "shape '%s': too large", s);
		elems *= d;
		shape[(*ndim)++] = (uint32_t)d;
	}
	if (!*ndim || s[0] == 'x' || s[strlen(s) - 1] == 'x' || strstr(s, "xx"))
		die(p, "bad shape '%s'", s);
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

static void do_data(struct pack *p, char **f, unsigned int nf)
{
	struct datum *d;
	unsigned int ndim, i;
	uint32_t shape[NEURON_MAX_DIMS];
	uint64_t elems;
	int dt;

	if (nf < 5)
		die(p, "data: NAME DTYPE SHAPE then values, 'random SEED' or 'zeros'");
	if (p->ndata == MAX_DATA)
		die(p, "more than %d data entries", MAX_DATA);
	if (!name_ok(f[1]))
		die(p, "bad data name '%s'", f[1]);
	for (i = 0; i < p->ndata; i++)
		if (!strcmp(p->data[i].name, f[1]))
			die(p, "data '%s' declared twice", f[1]);
	dt = dtype_of(p, f[2]);
	elems = shape_of(p, f[3], shape, &ndim);
	if (elems * 4 > DATA_MAX - p->dsize)
		die(p, "data '%s': the data region would be more than %u bytes",
		    f[1], DATA_MAX);
	d = &p->data[p->ndata++];
	strcpy(d->name, f[1]);
	d->offset = p->dsize;	/* every entry is a multiple of 4 */
	d->size = (uint32_t)(elems * 4);
	p->dbytes = xrealloc(p, p->dbytes, p->dsize + d->size);
	memset(p->dbytes + p->dsize, 0, d->size);

	if (!strcmp(f[4], "zeros")) {
		if (nf != 5)
			die(p, "data '%s': words after 'zeros'", f[1]);
	} else if (!strcmp(f[4], "random")) {
		uint32_t x;

		if (nf != 6)
			die(p, "data '%s': 'random SEED'", f[1]);
		x = (uint32_t)num(p, "random seed", f[5], 0xffffffffULL);
		if (!x)
			die(p, "data '%s': the random seed must not be 0", f[1]);
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
			die(p, "data '%s': %u values for %llu elements", f[1],
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

static void do_tensor(struct pack *p, char **f, unsigned int nf)
{
	struct tensor *t;
	unsigned int i;

	if (nf != 5)
		die(p, "tensor: input|output NAME DTYPE SHAPE");
	if (p->nblocks)
		die(p, "tensor lines come before the first 'engine'");
	if (p->ntensors == NEURON_MAX_SLOTS)
		die(p, "more than %d tensors", NEURON_MAX_SLOTS);
	t = &p->tensors[p->ntensors];
	if (!strcmp(f[1], "input"))
		t->output = 0;
	else if (!strcmp(f[1], "output"))
		t->output = 1;
	else
		die(p, "tensor: '%s' is neither input nor output", f[1]);
	if (!name_ok(f[2]))
		die(p, "bad tensor name '%s'", f[2]);
	for (i = 0; i < p->ntensors; i++)
		if (!strcmp(p->tensors[i].name, f[2]))
			die(p, "tensor '%s' declared twice", f[2]);
	strcpy(t->name, f[2]);
	t->dtype = dtype_of(p, f[3]);
	t->size = 4 * shape_of(p, f[4], t->shape, &t->ndim);
	p->ntensors++;
}

/* An operand: slot:NAME[+OFF], in:, out:, data:NAME[+OFF], data:OFF, scratch:OFF */
static struct neuron_tpb_ref parse_operand(struct pack *p, const char *s)
{
	struct neuron_tpb_ref r = { 0, 0 };
	char buf[300], *colon, *plus, *name;
	uint64_t off = 0;
	unsigned int i;

	if (strlen(s) >= sizeof(buf))
		die(p, "operand '%.40s...' too long", s);
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (!colon)
		die(p, "operand '%s': REGION:WHERE (slot, in, out, data, scratch)", s);
	*colon = '\0';
	name = colon + 1;
	plus = strrchr(name, '+');
	if (plus) {
		*plus = '\0';
		off = num(p, "operand offset", plus + 1, 0xffffffffULL);
	}
	if (!strcmp(buf, "scratch")) {
		if (plus)
			die(p, "operand '%s': scratch:BYTEOFFSET", s);
		r.region = NEURON_REGION_SCRATCH;
		off = num(p, "scratch offset", name, 0xffffffffULL);
	} else if (!strcmp(buf, "data")) {
		r.region = NEURON_REGION_DATA;
		if (*name >= '0' && *name <= '9') {
			if (plus)
				die(p, "operand '%s': data:BYTEOFFSET or data:NAME+OFFSET", s);
			off = num(p, "data offset", name, 0xffffffffULL);
		} else {
			for (i = 0; i < p->ndata; i++)
				if (!strcmp(p->data[i].name, name))
					break;
			if (i == p->ndata)
				die(p, "operand '%s': no data named '%s'", s, name);
			off += p->data[i].offset;
		}
	} else if (!strcmp(buf, "slot") || !strcmp(buf, "in") ||
		   !strcmp(buf, "out")) {
		for (i = 0; i < p->ntensors; i++)
			if (!strcmp(p->tensors[i].name, name))
				break;
		if (i == p->ntensors)
			die(p, "operand '%s': no tensor named '%s'", s, name);
		if ((buf[0] == 'i' && p->tensors[i].output) ||
		    (buf[0] == 'o' && !p->tensors[i].output))
			die(p, "operand '%s': tensor '%s' is an %s", s, name,
			    p->tensors[i].output ? "output" : "input");
		r.region = NEURON_REGION_SLOT(i);
	} else {
		die(p, "operand '%s': unknown region '%s'", s, buf);
	}
	if (off > 0xffffffffULL || off % 4)
		die(p, "operand '%s': offset %llu is not a multiple of 4", s,
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

static void emit(struct pack *p, char **f, unsigned int nf)
{
	struct block *b = &p->blocks[p->engine];
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
		die(p, "unknown instruction '%.40s'", f[0]);
	strcpy(mn, f[0]);
	dot = strchr(mn, '.');
	if (dot) {
		*dot++ = '\0';
		if (!strcmp(dot, "i32"))
			in.dtype = NEURON_DT_INT32;
		else if (strcmp(dot, "f32"))
			die(p, "'%s': the dtype suffix is .f32 or .i32", f[0]);
	}
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (!strcmp(ops[i].name, mn))
			op = &ops[i];
	if (!op)
		die(p, "unknown instruction '%s'", f[0]);
	if (op->engine >= 0 && op->engine != p->engine)
		die(p, "'%s' is an instruction of engine %s, not %s", mn,
		    engine_names[op->engine], engine_names[p->engine]);
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
				die(p, "'%s': unknown field '%s'", mn, k);
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
			die(p, "'%s': unexpected '%s'", mn, f[i]);
		}
	}
	if (funcs && !have_func)
		die(p, "'%s' needs an operation (%s, ...)", mn, funcs[0]);
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
			die(p, "'%s INDEX VALUE'", mn);
		in.index = (uint32_t)num(p, "index", pos[0], 0xffffffffULL);
		in.imm = (uint32_t)num(p, "value", pos[1], 0xffffffffULL);
		break;
	case NEURON_TPB_NOTIFY:
		if (npos != 1)
			die(p, "'notify VALUE'");
		in.imm = (uint32_t)num(p, "value", pos[0], 0xffffffffULL);
		break;
	case NEURON_TPB_JUMP:
		if (npos != 1)
			die(p, "'jump LABEL'");
		if (pos[0][0] >= '0' && pos[0][0] <= '9') {
			in.imm = (uint32_t)num(p, "jump target", pos[0], 0xffffffffULL);
		} else {
			struct fixup *fx;

			if (strlen(pos[0]) >= sizeof(fx->name))
				die(p, "label '%.40s...' too long", pos[0]);
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
			die(p, "'%s': unexpected '%s'", mn, pos[0]);
	}
	if (have_imm) {
		if (op->opcode != NEURON_TPB_TS)
			die(p, "'%s' has no imm=", mn);
		if (in.dtype == NEURON_DT_FP32) {
			float v = fp32(p, "imm", imm_text);

			memcpy(&in.imm, &v, 4);
		} else {
			in.imm = (uint32_t)parse_int32(p, "imm", imm_text);
		}
	} else if (op->opcode == NEURON_TPB_TS) {
		die(p, "'ts' needs imm=");
	}

	if (b->count == NEURON_TPB_MAX_INSNS)
		die(p, "engine %s: more than %d instructions",
		    engine_names[p->engine], NEURON_TPB_MAX_INSNS);
	if (b->count == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		b->insns = xrealloc(p, b->insns, b->cap * sizeof(in));
	}
	b->insns[b->count++] = in;
}

static void do_label(struct pack *p, const char *s)
{
	struct block *b = &p->blocks[p->engine];
	size_t n = strlen(s) - 1;
	unsigned int i;

	if (n == 0 || n >= sizeof(b->labels->name) ||
	    !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
	      s[0] == '_'))
		die(p, "bad label '%s'", s);
	for (i = 0; i < b->nlabels; i++)
		if (!strncmp(b->labels[i].name, s, n) && !b->labels[i].name[n])
			die(p, "label '%.*s' defined twice in engine %s", (int)n,
			    s, engine_names[p->engine]);
	if (b->nlabels == MAX_LABELS)
		die(p, "more than %d labels in one engine", MAX_LABELS);
	b->labels = xrealloc(p, b->labels, (b->nlabels + 1) * sizeof(*b->labels));
	memcpy(b->labels[b->nlabels].name, s, n);
	b->labels[b->nlabels].name[n] = '\0';
	b->labels[b->nlabels].pc = b->count;
	b->nlabels++;
}

static void do_line(struct pack *p, char **f, unsigned int nf)
{
	unsigned int i;

	if (!strcmp(f[0], "arch")) {
		if (nf != 2 || (strcmp(f[1], "v2") && strcmp(f[1], "v3")))
			die(p, "arch v2|v3");
		if (p->arch)
			die(p, "arch given twice");
		p->arch = !strcmp(f[1], "v2") ? "v2" : "v3";
	} else if (!strcmp(f[0], "nc_count")) {
		if (nf != 2 || strcmp(f[1], "1"))
			die(p, "nc_count 1 (models of one NeuronCore only)");
		p->nc_count = 1;
	} else if (!strcmp(f[0], "scratch")) {
		if (nf != 2)
			die(p, "scratch BYTES");
		if (p->have_scratch++)
			die(p, "scratch given twice");
		p->scratch = num(p, "scratch", f[1], 0xfffffffcULL);
		if (p->scratch % 4)
			die(p, "scratch: a multiple of 4");
	} else if (!strcmp(f[0], "tensor")) {
		do_tensor(p, f, nf);
	} else if (!strcmp(f[0], "data")) {
		do_data(p, f, nf);
	} else if (!strcmp(f[0], "engine")) {
		if (nf != 2)
			die(p, "engine pe|act|pool|dve|sp");
		for (i = 0; i < NEURON_ENGINES; i++)
			if (!strcmp(f[1], engine_names[i]))
				break;
		if (i == NEURON_ENGINES)
			die(p, "unknown engine '%s' (pe, act, pool, dve, sp)", f[1]);
		if (p->blocks[i].used)
			die(p, "engine %s given twice", f[1]);
		p->blocks[i].used = 1;
		p->blocks[i].order = p->nblocks++;
		p->engine = (int)i;
	} else {
		size_t n = strlen(f[0]);

		if (p->engine < 0)
			die(p, "'%s' before the first 'engine' line", f[0]);
		if (f[0][n - 1] == ':') {
			do_label(p, f[0]);
			if (nf > 1)
				emit(p, f + 1, nf - 1);
		} else {
			emit(p, f, nf);
		}
	}
}

static void resolve(struct pack *p)
{
	unsigned int e, i, j;

	for (e = 0; e < NEURON_ENGINES; e++) {
		struct block *b = &p->blocks[e];

		if (!b->used)
			continue;
		p->line = 0;
		if (!b->count)
			die(p, "engine %s has no instructions", engine_names[e]);
		if (b->insns[b->count - 1].opcode != NEURON_TPB_END &&
		    b->insns[b->count - 1].opcode != NEURON_TPB_JUMP)
			die(p, "engine %s: the block does not end with 'end' or 'jump'",
			    engine_names[e]);
		for (i = 0; i < b->nfixups; i++) {
			struct fixup *fx = &b->fixups[i];

			for (j = 0; j < b->nlabels; j++)
				if (!strcmp(b->labels[j].name, fx->name))
					break;
			p->line = fx->line;
			if (j == b->nlabels)
				die(p, "no label '%s' in engine %s", fx->name,
				    engine_names[e]);
			if (b->labels[j].pc >= b->count)
				die(p, "label '%s' is past the end of engine %s",
				    fx->name, engine_names[e]);
			b->insns[fx->pc].imm = b->labels[j].pc;
		}
		for (i = 0; i < b->count; i++)
			if (b->insns[i].opcode == NEURON_TPB_JUMP &&
			    b->insns[i].imm >= b->count) {
				p->line = 0;
				die(p, "engine %s: jump %u is out of the block",
				    engine_names[e], b->insns[i].imm);
			}
	}
	p->line = 0;
	if (!p->arch)
		die(p, "no 'arch' line");
	if (!p->nblocks)
		die(p, "no 'engine' section");
}

/* Little-endian bytes of a block. */
static uint8_t *encode(struct pack *p, const struct block *b)
{
	uint8_t *out = xrealloc(p, NULL, (size_t)b->count * 48), *d;
	uint32_t i;

	for (i = 0, d = out; i < b->count; i++, d += 48) {
		const struct neuron_tpb_insn *in = &b->insns[i];

		d[0] = in->opcode;
		d[1] = in->dtype;
		d[2] = in->func;
		d[3] = in->flags;
		put32(d + 4, in->imm);
		put32(d + 8, in->m);
		put32(d + 12, in->k);
		put32(d + 16, in->n);
		put32(d + 20, in->index);
		put32(d + 24, in->dst.region);
		put32(d + 28, in->dst.offset);
		put32(d + 32, in->a.region);
		put32(d + 36, in->a.offset);
		put32(d + 40, in->b.region);
		put32(d + 44, in->b.offset);
	}
	return out;
}

static void add_file(struct pack *p, struct archive *a, const char *name,
		     const void *buf, size_t len)
{
	struct archive_entry *e = archive_entry_new();

	if (!e)
		die(p, "out of memory");
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)len);
	archive_entry_set_mtime(e, 0, 0);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	if (archive_write_header(a, e) != ARCHIVE_OK ||
	    (len && archive_write_data(a, buf, len) != (la_ssize_t)len))
		die(p, "writing %s: %s", name, archive_error_string(a));
	archive_entry_free(e);
}

static void write_container(struct pack *p, const char *out)
{
	char *man = NULL;
	size_t manlen = 0;
	FILE *m = open_memstream(&man, &manlen);
	struct archive *a;
	unsigned int i, o;

	if (!m)
		die(p, "out of memory");
	fprintf(m, "neuron-model 1\narch %s\nnc_count 1\n", p->arch);
	for (i = 0; i < p->ntensors; i++) {
		const struct tensor *t = &p->tensors[i];
		unsigned int d;

		fprintf(m, "tensor %s %s %s ", t->output ? "output" : "input",
			t->name, t->dtype == NEURON_DT_FP32 ? "float32" : "int32");
		for (d = 0; d < t->ndim; d++)
			fprintf(m, "%s%u", d ? "x" : "", t->shape[d]);
		fputc('\n', m);
	}
	for (o = 0; o < p->nblocks; o++)
		for (i = 0; i < NEURON_ENGINES; i++)
			if (p->blocks[i].used && p->blocks[i].order == o)
				fprintf(m, "block %s %s.bin\n", engine_names[i],
					engine_names[i]);
	if (p->dsize)
		fprintf(m, "data data.bin\n");
	fprintf(m, "scratch %llu\n", (unsigned long long)p->scratch);
	if (fclose(m))
		die(p, "out of memory");

	a = archive_write_new();
	if (!a)
		die(p, "out of memory");
	if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_set_filter_option(a, "gzip", "timestamp", NULL) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    archive_write_open_filename(a, out) != ARCHIVE_OK)
		die(NULL, "%s: %s", out, archive_error_string(a));
	add_file(p, a, "manifest", man, manlen);
	for (o = 0; o < p->nblocks; o++)
		for (i = 0; i < NEURON_ENGINES; i++)
			if (p->blocks[i].used && p->blocks[i].order == o) {
				char name[16];
				uint8_t *bytes = encode(p, &p->blocks[i]);

				snprintf(name, sizeof(name), "%s.bin",
					 engine_names[i]);
				add_file(p, a, name, bytes,
					 (size_t)p->blocks[i].count * 48);
				free(bytes);
			}
	if (p->dsize)
		add_file(p, a, "data.bin", p->dbytes, p->dsize);
	if (archive_write_close(a) != ARCHIVE_OK) {
		fprintf(stderr, "%s: %s\n", out, archive_error_string(a));
		unlink(out);
		exit(1);
	}
	archive_write_free(a);
	free(man);
}

/* Split @s into words in place; a word is at most MAX_FIELDS of them. */
static unsigned int split(struct pack *p, char *s, char **f)
{
	unsigned int nf = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#')
			break;
		if (nf == MAX_FIELDS)
			die(p, "more than %d words on a line", MAX_FIELDS);
		f[nf++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
	return nf;
}

static char *read_source(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!fp) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(1);
	}
	for (;;) {
		size_t r;

		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			if (cap > MAX_SOURCE + 1)
				cap = MAX_SOURCE + 1;
			buf = realloc(buf, cap + 1);
			if (!buf) {
				fprintf(stderr, "%s: out of memory\n", path);
				exit(1);
			}
		}
		r = fread(buf + n, 1, cap - n, fp);
		n += r;
		if (n > MAX_SOURCE) {
			fprintf(stderr, "%s: more than %d bytes\n", path, MAX_SOURCE);
			exit(1);
		}
		if (r == 0)
			break;
	}
	if (ferror(fp)) {
		fprintf(stderr, "%s: read error\n", path);
		exit(1);
	}
	fclose(fp);
	buf[n] = '\0';
	if (memchr(buf, '\0', n)) {
		fprintf(stderr, "%s: a NUL byte\n", path);
		exit(1);
	}
	*len = n;
	return buf;
}

static void print_usage(void)
{
	fprintf(stderr, "usage: neuron-pack [-o OUT] SOURCE.nms\n");
	exit(64);
}

int main(int argc, char **argv)
{
	static struct pack pk;
	struct pack *p = &pk;
	const char *out = NULL;
	char *src, *s, *outbuf = NULL, **f;
	size_t len;
	int opt;

	while ((opt = getopt(argc, argv, "o:h")) != -1) {
		if (opt == 'o')
			out = optarg;
		else
			print_usage();
	}
	if (optind != argc - 1)
		print_usage();
	p->file = argv[optind];
	p->engine = -1;
	if (!out) {
		size_t n = strlen(p->file);

		outbuf = malloc(n + 8);
		if (!outbuf)
			die(p, "out of memory");
		strcpy(outbuf, p->file);
		if (n > 4 && !strcmp(outbuf + n - 4, ".nms"))
			outbuf[n - 4] = '\0';
		strcat(outbuf, ".nmodel");
		out = outbuf;
	}
	f = malloc(MAX_FIELDS * sizeof(*f));
	if (!f)
		die(p, "out of memory");
	src = read_source(p->file, &len);

	/* Lines; a backslash at the end of a line joins the next to it. */
	s = src;
	p->line = 1;
	while (*s) {
		unsigned int first = p->line, nf;
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
				die(p, "a control character");
			}
			*w++ = *s++;
		}
		*w = '\0';
		{
			unsigned int next = p->line;

			p->line = first;
			nf = split(p, start, f);
			if (nf)
				do_line(p, f, nf);
			p->line = next;
		}
	}
	resolve(p);
	write_container(p, out);
	free(src);
	free(f);
	free(outbuf);
	free(p->dbytes);
	for (opt = 0; opt < NEURON_ENGINES; opt++) {
		free(p->blocks[opt].insns);
		free(p->blocks[opt].labels);
		free(p->blocks[opt].fixups);
	}
	return 0;
}
