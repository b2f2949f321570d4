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

#include "neuron_asm.h"

#define MAX_SOURCE	(64 << 20)

#define engine_names	nasm_engine_names

static noreturn void die(struct nasm *p, const char *fmt, ...)
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

static void *xrealloc(struct nasm *p, void *ptr, size_t n)
{
	void *q = realloc(ptr, n ? n : 1);

	if (!q)
		die(p, "out of memory");
	return q;
}

static void put32(uint8_t *d, uint32_t v)
{
	d[0] = v;
	d[1] = v >> 8;
	d[2] = v >> 16;
	d[3] = v >> 24;
}

/* Little-endian bytes of a block. */
static uint8_t *encode(struct nasm *p, const struct nasm_block *b)
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

static void add_file(struct nasm *p, struct archive *a, const char *name,
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

static void write_container(struct nasm *p, const char *out)
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
		const struct nasm_tensor *t = &p->tensors[i];
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
	fprintf(m, "scratch %llu\n", (unsigned long long)p->scratch_size);
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
	static struct nasm asm_model;
	struct nasm *p = &asm_model;
	const char *out = NULL;
	char *src, *outbuf = NULL;
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
	src = read_source(p->file, &len);
	if (nasm_parse(p, p->file, src)) {
		fprintf(stderr, "%s\n", p->err ? p->err : "out of memory");
		exit(1);
	}
	write_container(p, out);
	free(src);
	free(outbuf);
	nasm_free(p);
	return 0;
}
