// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the model container reader.
 *
 *   clang -fsanitize=fuzzer,address -I uapi -I libshim/src \
 *	libshim/tests/fuzz_container.c libshim/src/container.c -larchive
 *
 * (libshim/Makefile.container: make container-fuzz.) Every input must be
 * refused or accepted without a crash, a leak or an unbounded allocation;
 * an accepted model must be consistent with the limits.
 *
 * Most mutations of a gzip stream only break the gzip, so an input that
 * starts with 'T' is taken as an uncompressed tar: the harness gzips the
 * rest (libarchive's raw writer, compression level 1) and parses that, so
 * the fuzzer reaches the tar headers and the manifest directly. Any other
 * input is parsed as it is.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "container.h"

struct gzbuf {
	uint8_t *p;
	size_t len, cap;
};

static la_ssize_t gz_write(struct archive *a, void *arg, const void *d,
			   size_t n)
{
	struct gzbuf *b = arg;

	(void)a;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return -1;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
	return (la_ssize_t)n;
}

/* gzip @n bytes of @d; 0 on success (@out then to be freed). */
static int gzip(const uint8_t *d, size_t n, struct gzbuf *out)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	int ok = 0;

	memset(out, 0, sizeof(*out));
	if (!a || !e)
		goto done;
	if (archive_write_set_format_raw(a) != ARCHIVE_OK ||
	    archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_set_filter_option(a, "gzip", "compression-level", "1") != ARCHIVE_OK ||
	    archive_write_set_bytes_per_block(a, 0) != ARCHIVE_OK ||
	    archive_write_open(a, out, NULL, gz_write, NULL) != ARCHIVE_OK)
		goto done;
	archive_entry_set_pathname(e, "raw");
	archive_entry_set_filetype(e, AE_IFREG);
	if (archive_write_header(a, e) != ARCHIVE_OK)
		goto done;
	if (n && archive_write_data(a, d, n) != (la_ssize_t)n)
		goto done;
	ok = archive_write_close(a) == ARCHIVE_OK;
done:
	if (a)
		archive_write_free(a);
	if (e)
		archive_entry_free(e);
	if (!ok) {
		free(out->p);
		out->p = NULL;
	}
	return ok ? 0 : -1;
}

static void parse_one(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gzbuf g;

	if (size >= 1 && data[0] == 'T') {
		if (gzip(data + 1, size - 1, &g))
			return 0;
		parse_one(g.p, g.len);
		free(g.p);
		return 0;
	}
	parse_one(data, size);
	return 0;
}

static void parse_one(const uint8_t *data, size_t size)
{
	struct nrtc_model *m = NULL;
	char err[256];
	uint32_t i;
	int rc;

	rc = nrtc_parse(data, size, &m, err, sizeof(err));
	if (rc != NRTC_OK) {
		if (m || !memchr(err, '\0', sizeof(err)) || !err[0])
			abort();
		return;
	}
	if (!m || m->format != 1 || m->nc_count != 1 ||
	    m->ntensors > NRTC_MAX_TENSORS || m->nblocks < 1 ||
	    m->nblocks > NEURON_ENGINES || (m->data_size % 4) ||
	    (m->data_size && !m->data))
		abort();
	for (i = 0; i < m->ntensors; i++)
		if (!m->tensors[i].name[0] || m->tensors[i].ndim < 1 ||
		    m->tensors[i].ndim > NEURON_MAX_DIMS)
			abort();
	for (i = 0; i < m->nblocks; i++) {
		const struct nrtc_block *b = &m->blocks[i];

		if (b->count < 1 || b->count > NEURON_TPB_MAX_INSNS || !b->insns)
			abort();
		/* touch every instruction: ASan checks the allocation */
		if (b->insns[b->count - 1].opcode == 0xee && b->insns[0].dtype == 0xee)
			err[0] = 1;
	}
	nrtc_free(m);
}
