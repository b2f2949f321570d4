// SPDX-License-Identifier: GPL-2.0
/*
 * neuron-dump: print what a model container holds (docs/model-format.md).
 *
 *   neuron-dump [--insns] CONTAINER
 *
 * --insns also disassembles every block, in the syntax neuron-pack reads.
 * Exit status: 0 read, 1 corrupt or unreadable, 2 a foreign file or a
 * format version or arch this reader does not read, 64 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container.h"

static const char *const engine_names[NEURON_ENGINES] = {
	"pe", "act", "pool", "dve", "sp"
};

static const char *const act_funcs[] = { "identity", "relu", "sigmoid", "tanh" };
static const char *const pool_funcs[] = { "max", "avg" };
static const char *const alu_funcs[] = { "add", "sub", "mul", "max", "div" };
/* The semaphore and event instructions, from NEURON_TPB_SEM_SIGNAL on. */
static const char *const sync_ops[] = { "sem_signal", "sem_wait", "event_set", "event_wait" };

static void operand(const struct nrtc_model *m, const char *key,
		    const struct neuron_tpb_ref *r)
{
	if (r->region == NEURON_REGION_DATA) {
		printf(" %s=data:%u", key, r->offset);
	} else if (r->region == NEURON_REGION_SCRATCH) {
		printf(" %s=scratch:%u", key, r->offset);
	} else if (r->region - 2 < m->ntensors) {
		const struct nrtc_tensor *t = &m->tensors[r->region - 2];

		printf(" %s=%s:%s", key, t->usage ? "out" : "in", t->name);
		if (r->offset)
			printf("+%u", r->offset);
	} else {
		printf(" %s=?region%u:%u", key, r->region, r->offset);
	}
}

static const char *func_name(const char *const *names, size_t n,
			     unsigned int f)
{
	return f < n ? names[f] : "?";
}

static void disasm(const struct nrtc_model *m, const struct neuron_tpb_insn *in)
{
	const char *sfx = in->dtype == NEURON_DT_INT32 ? ".i32" :
			  in->dtype == NEURON_DT_FP32 ? "" : ".?";
	float f;

	switch (in->opcode) {
	case NEURON_TPB_END:
		printf("end");
		break;
	case NEURON_TPB_JUMP:
		printf("jump %u", in->imm);
		break;
	case NEURON_TPB_COPY:
		printf("copy%s n=%u", sfx, in->n);
		operand(m, "dst", &in->dst);
		operand(m, "a", &in->a);
		break;
	case NEURON_TPB_MATMUL:
		printf("matmul%s m=%u k=%u n=%u", sfx, in->m, in->k, in->n);
		operand(m, "dst", &in->dst);
		operand(m, "a", &in->a);
		operand(m, "b", &in->b);
		if (in->func == NEURON_TPB_ACCUMULATE)
			printf(" acc");
		else if (in->func)
			printf(" ?func=%u", in->func);
		break;
	case NEURON_TPB_ACT:
		printf("act%s %s n=%u", sfx, func_name(act_funcs, 4, in->func), in->n);
		operand(m, "dst", &in->dst);
		operand(m, "a", &in->a);
		break;
	case NEURON_TPB_POOL:
		printf("pool%s %s m=%u n=%u k=%u", sfx,
		       func_name(pool_funcs, 2, in->func), in->m, in->n, in->k);
		operand(m, "dst", &in->dst);
		operand(m, "a", &in->a);
		break;
	case NEURON_TPB_TT:
		printf("tt%s %s%s m=%u n=%u", sfx,
		       func_name(alu_funcs, 5, in->func & ~NEURON_TPB_BCAST),
		       in->func & NEURON_TPB_BCAST ? " bcast" : "", in->m, in->n);
		operand(m, "dst", &in->dst);
		operand(m, "a", &in->a);
		operand(m, "b", &in->b);
		break;
	case NEURON_TPB_TS:
		printf("ts%s %s m=%u n=%u", sfx, func_name(alu_funcs, 5, in->func),
		       in->m, in->n);
		if (in->dtype == NEURON_DT_INT32) {
			printf(" imm=%d", (int)(int32_t)in->imm);
		} else {
			memcpy(&f, &in->imm, 4);
			printf(" imm=%.9g", (double)f);
		}
		operand(m, "dst", &in->dst);
		operand(m, "a", &in->a);
		break;
	case NEURON_TPB_SEM_SIGNAL:
	case NEURON_TPB_SEM_WAIT:
	case NEURON_TPB_EVENT_SET:
	case NEURON_TPB_EVENT_WAIT:
		printf("%s %u %u", sync_ops[in->opcode - NEURON_TPB_SEM_SIGNAL],
		       in->index, in->imm);
		break;
	case NEURON_TPB_NOTIFY:
		printf("notify %u", in->imm);
		break;
	default:
		printf("# unknown opcode 0x%02x", in->opcode);
		break;
	}
	putchar('\n');
}

static void print_usage(void)
{
	fprintf(stderr, "usage: neuron-dump [--insns] CONTAINER\n");
	exit(64);
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	struct nrtc_model *m;
	int insns = 0, i, rc;
	char err[512];
	size_t len = 0, cap = 0;
	char *buf = NULL;
	FILE *fp;
	unsigned int t, b, d;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--insns"))
			insns = 1;
		else if (argv[i][0] == '-' || path)
			print_usage();
		else
			path = argv[i];
	}
	if (!path)
		print_usage();

	fp = fopen(path, "rb");
	if (!fp) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	for (;;) {
		size_t r;

		if (len == cap) {
			/*
			 * a container is at most NRTC_MAX_TOTAL, and gzip
			 * does not make anything much larger
			 */
			if (cap >= NRTC_MAX_TOTAL + (1 << 20)) {
				fprintf(stderr, "%s: too large for a container\n", path);
				return 1;
			}
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf) {
				fprintf(stderr, "%s: out of memory\n", path);
				return 1;
			}
		}
		r = fread(buf + len, 1, cap - len, fp);
		len += r;
		if (!r)
			break;
	}
	if (ferror(fp)) {
		fprintf(stderr, "%s: read error\n", path);
		return 1;
	}
	fclose(fp);

	rc = nrtc_parse(buf, len, &m, err, sizeof(err));
	free(buf);
	if (rc) {
		fprintf(stderr, "%s: %s\n", path, err);
		return rc == NRTC_EVERSION ? 2 : 1;
	}

	printf("format     neuron-model %u\n", m->format);
	printf("arch       v%u\n", m->arch);
	printf("nc_count   %u\n", m->nc_count);
	printf("tensors    %u\n", m->ntensors);
	for (t = 0; t < m->ntensors; t++) {
		const struct nrtc_tensor *tn = &m->tensors[t];

		printf("  slot %-3u %-6s %-7s ", t, tn->usage ? "output" : "input",
		       tn->dtype == NEURON_DT_FP32 ? "float32" : "int32");
		for (d = 0; d < tn->ndim; d++)
			printf("%s%u", d ? "x" : "", tn->shape[d]);
		printf(" %llu bytes  %s\n", (unsigned long long)tn->size, tn->name);
	}
	printf("blocks     %u\n", m->nblocks);
	for (b = 0; b < m->nblocks; b++)
		printf("  %-4s %u instructions\n", engine_names[m->blocks[b].engine],
		       m->blocks[b].count);
	printf("data       %llu bytes\n", (unsigned long long)m->data_size);
	printf("scratch    %llu bytes\n", (unsigned long long)m->scratch_size);

	if (insns) {
		for (b = 0; b < m->nblocks; b++) {
			const struct nrtc_block *blk = &m->blocks[b];
			uint32_t n;

			printf("\nengine %s\n", engine_names[blk->engine]);
			for (n = 0; n < blk->count; n++) {
				printf("\t");
				disasm(m, &blk->insns[n]);
			}
		}
	}
	nrtc_free(m);
	return 0;
}
