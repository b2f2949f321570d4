// SPDX-License-Identifier: GPL-2.0
/*
 * libshim: the model container reader (docs/model-format.md).
 *
 * A container is a gzip-compressed tar holding a text manifest (first), one
 * file of instructions per engine and an optional file of constants. It is
 * read with libarchive, from memory, with only the gzip filter and the tar
 * format enabled. Every entry's header (type, name, size) is checked against
 * the manifest and the limits before any of its data is read, and the
 * memory a file gets grows with the bytes actually decompressed, never past
 * its declared size: a small input cannot make us allocate much.
 *
 * Only the container's structure and sizes are checked here; instructions
 * are the driver's business (docs/sim-isa.md, "Validation").
 *
 * No global state: nrtc_parse() may run in many threads at once.
 */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>

#include "container.h"
#include "neuron_names.h"

/* Entries of a container, the manifest included. */
#define NRTC_MAX_ENTRIES	16
/* Largest manifest, in bytes. */
#define NRTC_MANIFEST_MAX	65536
/* Largest name of an entry (fits the ustar name field). */
#define NRTC_ENTRY_NAME_MAX	100
/* Largest tensor, in bytes (a tensor is not in the container, its size is). */
#define NRTC_TENSOR_MAX		0x10000000000ULL	/* 1 TiB */
/* Largest scratch, in bytes: an operand's offset is 32 bits. */
#define NRTC_SCRATCH_MAX	0xfffffffcULL
/* Fields of one manifest line. */
#define NRTC_MAX_FIELDS		8
/* First allocation for a file's data; it doubles up to the declared size. */
#define NRTC_CHUNK		65536

#define INSN_SIZE		48

static_assert(sizeof(struct neuron_tpb_insn) == INSN_SIZE,
	      "struct neuron_tpb_insn is 48 bytes");

enum ref_kind { REF_BLOCK, REF_DATA };

/* A file the manifest names. */
struct ref {
	char name[NRTC_ENTRY_NAME_MAX + 1];
	enum ref_kind kind;
	uint32_t block;		/* REF_BLOCK: index in model->blocks */
	int seen;
};

struct ctx {
	char *err;
	size_t errlen;
	struct nrtc_model *m;
	struct ref refs[NRTC_MAX_ENTRIES];
	unsigned int nrefs;
	int have_arch, have_nc, have_scratch, have_data;
	uint64_t total;		/* bytes of all entries, declared */
};

static const char *const engine_names[NEURON_ENGINES] = {
	[NEURON_ENGINE_PE] = "pe",
	[NEURON_ENGINE_ACT] = "act",
	[NEURON_ENGINE_POOL] = "pool",
	[NEURON_ENGINE_DVE] = "dve",
	[NEURON_ENGINE_SP] = "sp",
};

__attribute__((format(printf, 3, 4)))
static int fail(struct ctx *c, int code, const char *fmt, ...)
{
	va_list ap;

	if (c->err && c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

/*
 * A printable copy of an untrusted string for a message: at most 64 bytes,
 * anything not printable ASCII shown as '?'.
 */
static const char *shown(const char *s, char *buf, size_t len)
{
	size_t i;

	if (!s)
		s = "(none)";
	for (i = 0; s[i] && i + 4 < len && i < 64; i++)
		buf[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (s[i] && i + 4 <= len) {
		memcpy(buf + i, "...", 3);
		i += 3;
	}
	buf[i] = '\0';
	return buf;
}

/* Decimal, no sign, no leading zeros except "0", at most @max. */
static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s || (s[0] == '0' && s[1]))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

/* An entry name: 1..100 bytes of [A-Za-z0-9_.-], not starting with '.'. */
static int entry_name_ok(const char *s)
{
	size_t i, n;

	if (!s)
		return 0;
	n = strlen(s);
	if (n < 1 || n > NRTC_ENTRY_NAME_MAX || s[0] == '.')
		return 0;
	for (i = 0; i < n; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' ||
		      ch == '-'))
			return 0;
	}
	return 1;
}

static int add_ref(struct ctx *c, unsigned int line, const char *name,
		   enum ref_kind kind, uint32_t block)
{
	char b[80];
	unsigned int i;

	if (!entry_name_ok(name) || !strcmp(name, "manifest"))
		return fail(c, NRTC_ECORRUPT,
			    "manifest line %u: bad file name '%s'", line,
			    shown(name, b, sizeof(b)));
	for (i = 0; i < c->nrefs; i++)
		if (!strcmp(c->refs[i].name, name))
			return fail(c, NRTC_ECORRUPT,
				    "manifest line %u: file '%s' named twice",
				    line, name);
	if (c->nrefs >= NRTC_MAX_ENTRIES - 1)
		return fail(c, NRTC_ECORRUPT,
			    "manifest line %u: more than %d files", line,
			    NRTC_MAX_ENTRIES - 1);
	strcpy(c->refs[c->nrefs].name, name);
	c->refs[c->nrefs].kind = kind;
	c->refs[c->nrefs].block = block;
	c->refs[c->nrefs].seen = 0;
	c->nrefs++;
	return NRTC_OK;
}

static int parse_shape(struct ctx *c, unsigned int line, const char *s,
		       struct nrtc_tensor *t)
{
	char b[80];
	uint64_t size = 4;
	const char *p = s;

	t->ndim = 0;
	for (;;) {
		char dim[16];
		const char *x = strchr(p, 'x');
		size_t n = x ? (size_t)(x - p) : strlen(p);
		uint64_t v;

		if (t->ndim == NEURON_MAX_DIMS)
			return fail(c, NRTC_ECORRUPT,
				    "manifest line %u: shape '%s' has more than %d dimensions",
				    line, shown(s, b, sizeof(b)), NEURON_MAX_DIMS);
		if (n == 0 || n >= sizeof(dim))
			goto bad;
		memcpy(dim, p, n);
		dim[n] = '\0';
		if (parse_u64(dim, 0xffffffffULL, &v) || v == 0)
			goto bad;
		if (size > NRTC_TENSOR_MAX / v)
			return fail(c, NRTC_ECORRUPT,
				    "manifest line %u: shape '%s' is more than %llu bytes",
				    line, shown(s, b, sizeof(b)),
				    (unsigned long long)NRTC_TENSOR_MAX);
		size *= v;
		t->shape[t->ndim++] = (uint32_t)v;
		if (!x)
			break;
		p = x + 1;
	}
	t->size = size;
	return NRTC_OK;
bad:
	return fail(c, NRTC_ECORRUPT, "manifest line %u: bad shape '%s'",
		    line, shown(s, b, sizeof(b)));
}

static int manifest_line(struct ctx *c, unsigned int line, char **f,
			 unsigned int nf)
{
	struct nrtc_model *m = c->m;
	char b[80];
	uint64_t v;
	unsigned int i;

	if (!strcmp(f[0], "arch")) {
		if (nf != 2)
			goto nfields;
		if (c->have_arch++)
			goto twice;
		if (!strcmp(f[1], "v2"))
			m->arch = NEURON_ARCH_V2;
		else if (!strcmp(f[1], "v3"))
			m->arch = NEURON_ARCH_V3;
		else
			return fail(c, NRTC_EVERSION,
				    "manifest line %u: arch '%s' is not one this reader knows (v2, v3)",
				    line, shown(f[1], b, sizeof(b)));
		return NRTC_OK;
	}
	if (!strcmp(f[0], "nc_count")) {
		if (nf != 2)
			goto nfields;
		if (c->have_nc++)
			goto twice;
		if (parse_u64(f[1], 0xffffffffULL, &v) || v == 0)
			return fail(c, NRTC_ECORRUPT,
				    "manifest line %u: bad nc_count '%s'", line,
				    shown(f[1], b, sizeof(b)));
		if (v != 1)
			return fail(c, NRTC_EVERSION,
				    "manifest line %u: nc_count %llu (this reader reads models of 1 NeuronCore)",
				    line, (unsigned long long)v);
		m->nc_count = 1;
		return NRTC_OK;
	}
	if (!strcmp(f[0], "scratch")) {
		if (nf != 2)
			goto nfields;
		if (c->have_scratch++)
			goto twice;
		if (parse_u64(f[1], NRTC_SCRATCH_MAX, &v) || v % 4)
			return fail(c, NRTC_ECORRUPT,
				    "manifest line %u: bad scratch size '%s' (a multiple of 4, at most %llu)",
				    line, shown(f[1], b, sizeof(b)),
				    (unsigned long long)NRTC_SCRATCH_MAX);
		m->scratch_size = v;
		return NRTC_OK;
	}
	if (!strcmp(f[0], "data")) {
		if (nf != 2)
			goto nfields;
		if (c->have_data++)
			goto twice;
		return add_ref(c, line, f[1], REF_DATA, 0);
	}
	if (!strcmp(f[0], "block")) {
		int e = -1;

		if (nf != 3)
			goto nfields;
		for (i = 0; i < NEURON_ENGINES; i++)
			if (!strcmp(f[1], engine_names[i]))
				e = (int)i;
		if (e < 0)
			return fail(c, NRTC_ECORRUPT,
				    "manifest line %u: unknown engine '%s'", line,
				    shown(f[1], b, sizeof(b)));
		for (i = 0; i < m->nblocks; i++)
			if (m->blocks[i].engine == (uint32_t)e)
				return fail(c, NRTC_ECORRUPT,
					    "manifest line %u: a second block for engine %s",
					    line, f[1]);
		m->blocks[m->nblocks].engine = (uint32_t)e;
		m->nblocks++;
		return add_ref(c, line, f[2], REF_BLOCK, m->nblocks - 1);
	}
	if (!strcmp(f[0], "tensor")) {
		struct nrtc_tensor *t;
		int rc;

		if (nf != 5)
			goto nfields;
		if (m->ntensors >= NRTC_MAX_TENSORS)
			return fail(c, NRTC_ECORRUPT,
				    "manifest line %u: more than %d tensors", line,
				    NRTC_MAX_TENSORS);
		t = &m->tensors[m->ntensors];
		memset(t, 0, sizeof(*t));
		if (!strcmp(f[1], "input"))
			t->usage = 0;
		else if (!strcmp(f[1], "output"))
			t->usage = 1;
		else
			return fail(c, NRTC_ECORRUPT,
				    "manifest line %u: unknown tensor usage '%s' (input, output)",
				    line, shown(f[1], b, sizeof(b)));
		if (!neuron_tensor_name_ok(f[2]))
			return fail(c, NRTC_ECORRUPT,
				    "manifest line %u: bad tensor name '%s'", line,
				    shown(f[2], b, sizeof(b)));
		for (i = 0; i < m->ntensors; i++)
			if (!strcmp(m->tensors[i].name, f[2]))
				return fail(c, NRTC_ECORRUPT,
					    "manifest line %u: tensor '%s' declared twice",
					    line, shown(f[2], b, sizeof(b)));
		strcpy(t->name, f[2]);
		if (!strcmp(f[3], "float32"))
			t->dtype = NEURON_DT_FP32;
		else if (!strcmp(f[3], "int32"))
			t->dtype = NEURON_DT_INT32;
		else
			return fail(c, NRTC_ECORRUPT,
				    "manifest line %u: unknown dtype '%s'", line,
				    shown(f[3], b, sizeof(b)));
		rc = parse_shape(c, line, f[4], t);
		if (rc)
			return rc;
		m->ntensors++;
		return NRTC_OK;
	}
	return fail(c, NRTC_ECORRUPT, "manifest line %u: unknown key '%s'",
		    line, shown(f[0], b, sizeof(b)));
nfields:
	return fail(c, NRTC_ECORRUPT,
		    "manifest line %u: '%s' takes %s", line, f[0],
		    !strcmp(f[0], "tensor") ? "4 fields" :
		    !strcmp(f[0], "block") ? "2 fields" : "1 field");
twice:
	return fail(c, NRTC_ECORRUPT, "manifest line %u: '%s' given twice",
		    line, f[0]);
}

/* @text is NUL terminated, @len bytes before the NUL. */
static int parse_manifest(struct ctx *c, char *text, size_t len)
{
	static const char magic[] = "neuron-model";
	char *p = text, *end = text + len;
	unsigned int line = 0;
	char b[80];
	int rc;

	if (memchr(text, '\0', len))
		return fail(c, NRTC_ECORRUPT, "manifest: a NUL byte");

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *f[NRTC_MAX_FIELDS];
		unsigned int nf = 0;
		char *q, *w;

		if (nl)
			*nl = '\0';
		line++;
		for (q = p; *q; q++)
			if ((unsigned char)*q < 0x20 && *q != '\t')
				return fail(c, line == 1 ? NRTC_EVERSION : NRTC_ECORRUPT,
					    "%smanifest line %u: a control character",
					    line == 1 ? "not a neuron-model container: " : "",
					    line);

		if (line == 1) {
			uint64_t v;

			if (strncmp(p, magic, sizeof(magic) - 1) ||
			    p[sizeof(magic) - 1] != ' ')
				return fail(c, NRTC_EVERSION,
					    "not a neuron-model container (the manifest does not start with 'neuron-model')");
			q = p + sizeof(magic);
			if (parse_u64(q, 0xffffffffULL, &v) || v == 0)
				return fail(c, NRTC_ECORRUPT,
					    "manifest line 1: bad format version '%s'",
					    shown(q, b, sizeof(b)));
			if (v != 1)
				return fail(c, NRTC_EVERSION,
					    "neuron-model format version %llu (this reader reads version 1)",
					    (unsigned long long)v);
			c->m->format = 1;
			goto next;
		}

		q = p;
		while ((w = neuron_next_word(&q))) {
			if (nf == NRTC_MAX_FIELDS)
				return fail(c, NRTC_ECORRUPT,
					    "manifest line %u: too many fields",
					    line);
			f[nf++] = w;
		}
		if (nf) {
			rc = manifest_line(c, line, f, nf);
			if (rc)
				return rc;
		}
next:
		if (!nl)
			break;
		p = nl + 1;
	}
	if (line == 0)
		return fail(c, NRTC_EVERSION,
			    "not a neuron-model container (empty manifest)");
	if (!c->have_arch)
		return fail(c, NRTC_ECORRUPT, "manifest: no 'arch' line");
	if (!c->m->nblocks)
		return fail(c, NRTC_ECORRUPT, "manifest: no 'block' line");
	if (!c->have_nc)
		c->m->nc_count = 1;
	return NRTC_OK;
}

/*
 * Read the data of the current entry, @size bytes (already checked against
 * the limits), into a new buffer. The buffer grows with what arrives, so a
 * truncated input costs no more memory than it decompresses to.
 */
static int read_entry(struct ctx *c, struct archive *a, const char *name,
		      uint64_t size, void **out)
{
	size_t cap = size < NRTC_CHUNK ? (size_t)size : NRTC_CHUNK;
	size_t got = 0;
	char *buf;

	*out = NULL;
	/* One byte more than the data, kept 0: the manifest's terminator. */
	buf = malloc(cap + 1);
	if (!buf)
		return fail(c, NRTC_ENOMEM, "%s: out of memory", name);
	for (;;) {
		la_ssize_t r;

		if (got == cap && got < size) {
			size_t ncap = cap * 2 > size ? (size_t)size : cap * 2;
			char *nb = realloc(buf, ncap + 1);

			if (!nb) {
				free(buf);
				return fail(c, NRTC_ENOMEM, "%s: out of memory",
					    name);
			}
			buf = nb;
			cap = ncap;
		}
		if (got == cap) {
			char probe;

			/* All of it is here; the entry must end now. */
			r = archive_read_data(a, &probe, 1);
			if (r == 0)
				break;
			free(buf);
			if (r < 0)
				goto err;
			return fail(c, NRTC_ECORRUPT,
				    "%s: more data than its header says", name);
		}
		r = archive_read_data(a, buf + got, cap - got);
		if (r < 0) {
			free(buf);
			goto err;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	if (got != size) {
		free(buf);
		return fail(c, NRTC_ECORRUPT,
			    "%s: truncated (%zu of %llu bytes)", name, got,
			    (unsigned long long)size);
	}
	buf[got] = '\0';
	*out = buf;
	return NRTC_OK;
err:
	return fail(c, NRTC_ECORRUPT, "%s: %s", name,
		    archive_error_string(a) ? archive_error_string(a) :
		    "read error");
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Turn @n little-endian instructions into host order, in place. */
static void decode_insns(struct neuron_tpb_insn *v, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		const uint8_t *p = (const uint8_t *)&v[i];
		struct neuron_tpb_insn t;

		t.opcode = p[0];
		t.dtype = p[1];
		t.func = p[2];
		t.flags = p[3];
		t.imm = le32(p + 4);
		t.m = le32(p + 8);
		t.k = le32(p + 12);
		t.n = le32(p + 16);
		t.index = le32(p + 20);
		t.dst.region = le32(p + 24);
		t.dst.offset = le32(p + 28);
		t.a.region = le32(p + 32);
		t.a.offset = le32(p + 36);
		t.b.region = le32(p + 40);
		t.b.offset = le32(p + 44);
		v[i] = t;
	}
}

/* Check the header of entry number @idx (0: the manifest). */
static int check_entry(struct ctx *c, struct archive_entry *e,
		       unsigned int idx, const char **namep, uint64_t *sizep)
{
	const char *name = archive_entry_pathname(e);
	char b[80];
	la_int64_t size;

	if (idx == 0 && (!name || strcmp(name, "manifest")))
		return fail(c, NRTC_EVERSION,
			    "not a neuron-model container (first entry '%s', not 'manifest')",
			    shown(name, b, sizeof(b)));
	if (idx >= NRTC_MAX_ENTRIES)
		return fail(c, NRTC_ECORRUPT, "more than %d entries",
			    NRTC_MAX_ENTRIES);
	if (!entry_name_ok(name))
		return fail(c, NRTC_ECORRUPT,
			    "entry '%s': not a plain file name", shown(name, b, sizeof(b)));
	if (archive_entry_hardlink(e))
		return fail(c, NRTC_ECORRUPT, "entry '%s': a hard link", name);
	if (archive_entry_symlink(e) || archive_entry_filetype(e) == AE_IFLNK)
		return fail(c, NRTC_ECORRUPT, "entry '%s': a symbolic link",
			    name);
	if (archive_entry_filetype(e) == AE_IFDIR)
		return fail(c, NRTC_ECORRUPT, "entry '%s': a directory", name);
	if (archive_entry_filetype(e) != AE_IFREG)
		return fail(c, NRTC_ECORRUPT,
			    "entry '%s': not a regular file", name);
	if (archive_entry_sparse_count(e) > 0)
		return fail(c, NRTC_ECORRUPT, "entry '%s': a sparse file",
			    name);
	if (!archive_entry_size_is_set(e) || archive_entry_size(e) < 0)
		return fail(c, NRTC_ECORRUPT, "entry '%s': no size", name);
	size = archive_entry_size(e);
	if ((uint64_t)size > NRTC_MAX_TOTAL ||
	    c->total + (uint64_t)size > NRTC_MAX_TOTAL)
		return fail(c, NRTC_ECORRUPT,
			    "entry '%s': %lld bytes would make the container more than %llu bytes",
			    name, (long long)size,
			    (unsigned long long)NRTC_MAX_TOTAL);
	c->total += (uint64_t)size;
	*namep = name;
	*sizep = (uint64_t)size;
	return NRTC_OK;
}

static int read_file(struct ctx *c, struct archive *a, const char *name,
		     uint64_t size)
{
	struct nrtc_model *m = c->m;
	struct ref *r = NULL;
	unsigned int i;
	void *buf;
	int rc;

	for (i = 0; i < c->nrefs; i++)
		if (!strcmp(c->refs[i].name, name))
			r = &c->refs[i];
	if (!r) {
		if (!strcmp(name, "manifest"))
			return fail(c, NRTC_ECORRUPT, "entry 'manifest' twice");
		return fail(c, NRTC_ECORRUPT,
			    "entry '%s' is not named by the manifest", name);
	}
	if (r->seen)
		return fail(c, NRTC_ECORRUPT, "entry '%s' twice", name);
	r->seen = 1;

	if (r->kind == REF_BLOCK) {
		struct nrtc_block *blk = &m->blocks[r->block];

		if (size == 0 || size % INSN_SIZE ||
		    size / INSN_SIZE > NEURON_TPB_MAX_INSNS)
			return fail(c, NRTC_ECORRUPT,
				    "block '%s' (%s): %llu bytes, not 1 to %d instructions of %d bytes",
				    name, engine_names[blk->engine],
				    (unsigned long long)size,
				    NEURON_TPB_MAX_INSNS, INSN_SIZE);
		rc = read_entry(c, a, name, size, &buf);
		if (rc)
			return rc;
		blk->insns = buf;
		blk->count = (uint32_t)(size / INSN_SIZE);
		decode_insns(blk->insns, blk->count);
		return NRTC_OK;
	}

	if (size == 0 || size % 4)
		return fail(c, NRTC_ECORRUPT,
			    "data '%s': %llu bytes, not a positive multiple of 4",
			    name, (unsigned long long)size);
	rc = read_entry(c, a, name, size, &buf);
	if (rc)
		return rc;
	m->data = buf;
	m->data_size = size;
	return NRTC_OK;
}

static int parse(struct ctx *c, struct archive *a)
{
	struct archive_entry *e;
	unsigned int idx, i;
	int rc, r;

	for (idx = 0;; idx++) {
		const char *name = NULL;
		uint64_t size = 0;

		r = archive_read_next_header(a, &e);
		if (idx == 0 && r != ARCHIVE_FATAL &&
		    (archive_filter_count(a) != 2 ||
		     archive_filter_code(a, 0) != ARCHIVE_FILTER_GZIP))
			return fail(c, NRTC_ECORRUPT,
				    "not a gzip-compressed tar archive");
		if (r == ARCHIVE_EOF)
			break;
		if (r != ARCHIVE_OK)
			return fail(c, NRTC_ECORRUPT, "%s%s",
				    idx == 0 ? "not a readable gzip-compressed tar: " : "",
				    archive_error_string(a) ?
				    archive_error_string(a) : "unreadable archive");
		rc = check_entry(c, e, idx, &name, &size);
		if (rc)
			return rc;
		if (idx == 0) {
			void *text;

			if (size > NRTC_MANIFEST_MAX)
				return fail(c, NRTC_ECORRUPT,
					    "manifest: %llu bytes, more than %d",
					    (unsigned long long)size,
					    NRTC_MANIFEST_MAX);
			rc = read_entry(c, a, "manifest", size, &text);
			if (rc)
				return rc;
			rc = parse_manifest(c, text, (size_t)size);
			free(text);
			if (rc)
				return rc;
			continue;
		}
		rc = read_file(c, a, name, size);
		if (rc)
			return rc;
	}
	if (idx == 0)
		return fail(c, NRTC_EVERSION,
			    "not a neuron-model container (an empty archive)");
	for (i = 0; i < c->nrefs; i++)
		if (!c->refs[i].seen)
			return fail(c, NRTC_ECORRUPT,
				    "file '%s' named by the manifest is missing",
				    c->refs[i].name);
	return NRTC_OK;
}

void nrtc_free(struct nrtc_model *m)
{
	unsigned int i;

	if (!m)
		return;
	for (i = 0; i < NEURON_ENGINES; i++)
		free(m->blocks[i].insns);
	free(m->tensors);
	free(m->data);
	free(m);
}

/*
 * libarchive's gzip filter stops where the tar ends and never checks the
 * gzip trailer: a flipped bit in the compressed data could then load as
 * another model. So the whole stream is inflated once first, into a small
 * buffer thrown away, to check the trailer's CRC-32 and length (zlib does)
 * and that nothing follows the one gzip member; that pass also stops at
 * the uncompressed limit, so its memory and time stay bounded.
 */
static int gzip_check(struct ctx *c, const void *buf, size_t len)
{
	/* The tar around the files: a header per entry, the end blocks. */
	const uint64_t max = NRTC_MAX_TOTAL + 64 * 1024;
	static const size_t chunk = 64 * 1024;
	uint64_t total = 0;
	unsigned char *out;
	z_stream zs;
	int zr, rc = NRTC_OK;

	out = malloc(chunk);
	if (!out)
		return fail(c, NRTC_ENOMEM, "out of memory");
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
		free(out);
		return fail(c, NRTC_ENOMEM, "zlib: cannot set up the check");
	}
	zs.next_in = (unsigned char *)buf;
	zs.avail_in = len > UINT32_MAX ? UINT32_MAX : (uInt)len;
	do {
		zs.next_out = out;
		zs.avail_out = chunk;
		zr = inflate(&zs, Z_NO_FLUSH);
		total += chunk - zs.avail_out;
		if (total > max) {
			rc = fail(c, NRTC_ECORRUPT,
				  "more than %llu bytes once uncompressed",
				  (unsigned long long)NRTC_MAX_TOTAL);
			goto out;
		}
	} while (zr == Z_OK);
	if (zr == Z_BUF_ERROR) {
		rc = fail(c, NRTC_ECORRUPT, "the gzip stream is truncated");
	} else if (zr != Z_STREAM_END) {
		rc = fail(c, NRTC_ECORRUPT, "the gzip stream is damaged: %s",
			  zs.msg ? zs.msg : "inflate failed");
	} else if (zs.avail_in || len > UINT32_MAX) {
		rc = fail(c, NRTC_ECORRUPT, "%llu bytes follow the gzip stream",
			  (unsigned long long)(len - zs.total_in));
	}
out:
	inflateEnd(&zs);
	free(out);
	return rc;
}

int nrtc_parse(const void *buf, size_t len, struct nrtc_model **out,
	       char *err, size_t errlen)
{
	struct ctx c;
	struct archive *a;
	int rc;

	memset(&c, 0, sizeof(c));
	c.err = err;
	c.errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
	if (!out)
		return fail(&c, NRTC_ECORRUPT, "no place for the model");
	*out = NULL;
	if (!buf || len == 0)
		return fail(&c, NRTC_ECORRUPT, "empty input");
	/* Not even the gzip magic: some other kind of file. */
	if (len >= 2 && (((const uint8_t *)buf)[0] != 0x1f ||
			 ((const uint8_t *)buf)[1] != 0x8b))
		return fail(&c, NRTC_EVERSION,
			    "not a neuron-model container (not gzip-compressed)");

	rc = gzip_check(&c, buf, len);
	if (rc)
		return rc;

	c.m = calloc(1, sizeof(*c.m));
	if (c.m)
		c.m->tensors = calloc(NRTC_MAX_TENSORS, sizeof(*c.m->tensors));
	if (!c.m || !c.m->tensors) {
		nrtc_free(c.m);
		return fail(&c, NRTC_ENOMEM, "out of memory");
	}
	a = archive_read_new();
	if (!a) {
		nrtc_free(c.m);
		return fail(&c, NRTC_ENOMEM, "out of memory");
	}
	if (archive_read_support_filter_gzip(a) != ARCHIVE_OK ||
	    archive_read_support_format_tar(a) != ARCHIVE_OK) {
		rc = fail(&c, NRTC_ENOMEM, "libarchive: %s",
			  archive_error_string(a) ? archive_error_string(a) :
			  "cannot set up the reader");
		goto out;
	}
	if (archive_read_open_memory(a, buf, len) != ARCHIVE_OK) {
		rc = fail(&c, NRTC_ECORRUPT, "not a gzip-compressed tar: %s",
			  archive_error_string(a) ? archive_error_string(a) :
			  "unreadable");
		goto out;
	}
	rc = parse(&c, a);
out:
	archive_read_free(a);
	if (rc) {
		nrtc_free(c.m);
		return rc;
	}
	*out = c.m;
	return NRTC_OK;
}
