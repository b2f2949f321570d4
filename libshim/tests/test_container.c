// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the model container reader (libshim/src/container.c).
 *
 *   test_container [MATMUL.nmodel MLP.nmodel]
 *
 * Builds containers in memory (tar headers by hand, gzip by libarchive's
 * writer) and checks what nrtc_parse() makes of them. With the two
 * arguments, also reads the example models neuron-pack assembled.
 * Prints "ok N name" / "not ok N name" per check and "N passed, M failed";
 * exit status 0 when nothing failed.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <archive.h>
#include <archive_entry.h>

#include "container.h"
#include "test_buf.h"

static int npass, nfail;

static void check(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d ", cond ? "ok" : "not ok", npass + nfail + 1);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (cond)
		npass++;
	else
		nfail++;
}

static la_ssize_t buf_write(struct archive *a, void *arg, const void *d,
			    size_t n)
{
	(void)a;
	mput(arg, d, n);
	return (la_ssize_t)n;
}

/*
 * gzip @n bytes of @d (NULL: zeros), @repeat times, with libarchive's
 * "raw" writer: the gzip stream of exactly those bytes.
 */
static struct mbuf gzip_bytes(const void *d, size_t n, unsigned int repeat)
{
	struct mbuf out = { 0 };
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	void *zeros = NULL;
	unsigned int i;

	if (!d) {
		zeros = calloc(1, n ? n : 1);
		d = zeros;
	}
	archive_write_set_format_raw(a);
	archive_write_add_filter_gzip(a);
	archive_write_set_filter_option(a, "gzip", "compression-level", "1");
	archive_write_set_filter_option(a, "gzip", "timestamp", NULL);
	archive_write_set_bytes_per_block(a, 0);
	if (archive_write_open(a, &out, NULL, buf_write, NULL) != ARCHIVE_OK) {
		fprintf(stderr, "gzip: %s\n", archive_error_string(a));
		exit(2);
	}
	archive_entry_set_pathname(e, "raw");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_write_header(a, e);
	for (i = 0; i < repeat; i++)
		if (n && archive_write_data(a, d, n) != (la_ssize_t)n) {
			fprintf(stderr, "gzip: %s\n", archive_error_string(a));
			exit(2);
		}
	archive_write_close(a);
	archive_write_free(a);
	archive_entry_free(e);
	free(zeros);
	return out;
}

/* A ustar header by hand: anything can be declared. */
static void tar_header(struct mbuf *t, const char *name, char type,
		       unsigned long long size, const char *link)
{
	unsigned char h[512];
	unsigned int sum = 0, i;

	memset(h, 0, sizeof(h));
	strncpy((char *)h, name, 100);
	memcpy(h + 100, "0000644", 7);
	memcpy(h + 108, "0000000", 7);
	memcpy(h + 116, "0000000", 7);
	for (i = 0; i < 11; i++)	/* 11 octal digits, then NUL */
		h[124 + 10 - i] = (unsigned char)('0' + ((size >> (3 * i)) & 7));
	memcpy(h + 136, "00000000000", 11);
	memset(h + 148, ' ', 8);
	h[156] = (unsigned char)type;
	if (link)
		strncpy((char *)h + 157, link, 100);
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	for (i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	mput(t, h, 512);
}

static void tar_file(struct mbuf *t, const char *name, const void *d, size_t n)
{
	tar_header(t, name, '0', n, NULL);
	mput(t, d, n);
	if (n % 512)
		mput(t, NULL, 512 - n % 512);
}

static void tar_end(struct mbuf *t)
{
	mput(t, NULL, 1024);
}

/* Little-endian instructions. */
static void insn(unsigned char *d, unsigned int opcode, unsigned int m,
		 unsigned int k, unsigned int n)
{
	memset(d, 0, 48);
	d[0] = (unsigned char)opcode;
	d[8] = (unsigned char)m;
	d[12] = (unsigned char)k;
	d[16] = (unsigned char)n;
	d[24] = 3;	/* dst slot 1 */
	d[32] = 2;	/* a slot 0 */
	d[40] = 0;	/* b data */
}

static unsigned char pe_bin[96], data_bin[256];

/* The name of the PE block's file. */
#define PE_BIN "pe.bin"

static const char good_manifest[] =
	"neuron-model 1\n"
	"arch v2\n"
	"nc_count 1\n"
	"# a comment\n"
	"\n"
	"tensor input x float32 8x16\n"
	"tensor output y:out/0 int32 8x4\n"
	"block pe " PE_BIN "\n"
	"data data.bin\n"
	"scratch 64\n";

/* A valid container, with its manifest replaced by @manifest if not NULL. */
static struct mbuf container_tar(const char *manifest)
{
	struct mbuf t = { 0 };

	if (!manifest)
		manifest = good_manifest;
	tar_file(&t, "manifest", manifest, strlen(manifest));
	tar_file(&t, PE_BIN, pe_bin, sizeof(pe_bin));
	tar_file(&t, "data.bin", data_bin, sizeof(data_bin));
	tar_end(&t);
	return t;
}

static struct mbuf gz(struct mbuf t)
{
	struct mbuf g = gzip_bytes(t.p, t.len, 1);

	free(t.p);
	return g;
}

static int parse(const struct mbuf *b, char *err, size_t errlen)
{
	struct nrtc_model *m = NULL;
	int rc = nrtc_parse(b->p, b->len, &m, err, errlen);

	if (rc == NRTC_OK && !m)
		return -1;
	if (rc != NRTC_OK && m)
		return -2;
	nrtc_free(m);
	return rc;
}

/* Parse @b and expect @want; the message is shown. */
static void expect(const struct mbuf *b, int want, const char *name)
{
	char err[256] = "";
	int rc = parse(b, err, sizeof(err));

	check(rc == want && (want == NRTC_OK || (err[0] && !strchr(err, '\n'))),
	      "%s (rc %d, want %d: %s)", name, rc, want, err);
}

static void expect_manifest(const char *manifest, int want, const char *name)
{
	struct mbuf g = gz(container_tar(manifest));

	expect(&g, want, name);
	free(g.p);
}

static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_valid(void)
{
	struct mbuf g = gz(container_tar(NULL));
	struct nrtc_model *m = NULL;
	char err[256] = "";
	int rc = nrtc_parse(g.p, g.len, &m, err, sizeof(err));

	check(rc == NRTC_OK, "valid container parses (%s)", err);
	if (rc == NRTC_OK) {
		check(m->format == 1 && m->arch == NEURON_ARCH_V2 &&
		      m->nc_count == 1, "valid: format, arch, nc_count");
		check(m->ntensors == 2 && !strcmp(m->tensors[0].name, "x") &&
		      m->tensors[0].usage == 0 &&
		      m->tensors[0].dtype == NEURON_DT_FP32 &&
		      m->tensors[0].ndim == 2 && m->tensors[0].shape[0] == 8 &&
		      m->tensors[0].shape[1] == 16 && m->tensors[0].size == 512,
		      "valid: tensor 0");
		check(!strcmp(m->tensors[1].name, "y:out/0") &&
		      m->tensors[1].usage == 1 &&
		      m->tensors[1].dtype == NEURON_DT_INT32 &&
		      m->tensors[1].size == 128, "valid: tensor 1");
		check(m->nblocks == 1 && m->blocks[0].engine == NEURON_ENGINE_PE &&
		      m->blocks[0].count == 2 &&
		      m->blocks[0].insns[0].opcode == NEURON_TPB_MATMUL &&
		      m->blocks[0].insns[0].k == 16 &&
		      m->blocks[0].insns[0].dst.region == 3 &&
		      m->blocks[0].insns[1].opcode == NEURON_TPB_END,
		      "valid: block");
		check(m->data_size == 256 && m->data &&
		      !memcmp(m->data, data_bin, 256) && m->scratch_size == 64,
		      "valid: data and scratch");
		nrtc_free(m);
	}
	/* the error buffer may be NULL or tiny */
	rc = nrtc_parse(g.p, 5, &m, NULL, 0);
	check(rc == NRTC_ECORRUPT && !m, "no error buffer: still refused");
	err[0] = 'x';
	rc = nrtc_parse(g.p, 5, &m, err, 1);
	check(rc == NRTC_ECORRUPT && err[0] == '\0', "one-byte error buffer");
	free(g.p);
}

static void test_truncated(void)
{
	struct mbuf g = gz(container_tar(NULL));
	struct mbuf cut;
	unsigned int i, bad = 0;
	char err[256];

	for (i = 0; i < 16; i++) {
		cut.p = g.p;
		cut.len = g.len * i / 16;
		if (parse(&cut, err, sizeof(err)) != NRTC_ECORRUPT) {
			bad++;
			printf("# truncated at %u/16 (%zu bytes): %s\n", i,
			       cut.len, err);
		}
	}
	check(bad == 0, "truncated at every 1/16th: NRTC_ECORRUPT");
	/* and at every byte, only that it is refused */
	for (i = 0, bad = 0; i < g.len; i++) {
		cut.p = g.p;
		cut.len = i;
		if (parse(&cut, err, sizeof(err)) == NRTC_OK)
			bad++;
	}
	check(bad == 0, "truncated at every byte: refused");
	free(g.p);
}

static void test_gzip(void)
{
	struct mbuf g = gz(container_tar(NULL));
	struct mbuf t = container_tar(NULL);
	size_t i;

	g.p[10] = 0xff;		/* the first deflate block: reserved type */
	expect(&g, NRTC_ECORRUPT, "corrupt gzip (bad deflate block)");
	free(g.p);

	g = gz(container_tar(NULL));
	for (i = g.len / 3; i < g.len / 3 + 16; i++)
		g.p[i] ^= 0x55;
	{
		char err[256];

		check(parse(&g, err, sizeof(err)) != NRTC_OK,
		      "corrupt gzip (bytes flipped): refused (%s)", err);
	}
	free(g.p);

	/*
	 * The gzip trailer: a wrong CRC-32 or length, or bytes after the
	 * stream, are refused (libarchive alone never read the trailer).
	 */
	g = gz(container_tar(NULL));
	g.p[g.len - 8] ^= 0x01;
	expect(&g, NRTC_ECORRUPT, "gzip trailer: CRC-32 wrong");
	g.p[g.len - 8] ^= 0x01;
	g.p[g.len - 1] ^= 0x01;
	expect(&g, NRTC_ECORRUPT, "gzip trailer: length wrong");
	g.p[g.len - 1] ^= 0x01;
	expect(&g, NRTC_OK, "gzip trailer restored: parses");
	{
		unsigned char *p = realloc(g.p, g.len + 100);

		check(!!p, "room for trailing bytes");
		if (p) {
			memset(p + g.len, 0x5a, 100);
			g.p = p;
			g.len += 100;
			expect(&g, NRTC_ECORRUPT, "100 bytes after the gzip stream");
		}
	}
	free(g.p);

	expect(&t, NRTC_EVERSION, "uncompressed tar: foreign");
	free(t.p);

	t.p = (unsigned char *)"\x1f\x8b";
	t.len = 2;
	expect(&t, NRTC_ECORRUPT, "gzip magic alone");
	g = gzip_bytes("hello, this is not a tar archive at all\n", 40, 20);
	expect(&g, NRTC_ECORRUPT, "gzip of text, not tar");
	free(g.p);
}

static void test_foreign(void)
{
	struct mbuf t = { 0 }, g;
	static const char neff[] = "NEFF header-ish bytes, then a tar of other files";

	expect_manifest("neuron-modelx 1\narch v2\n", NRTC_EVERSION,
			"wrong manifest magic: foreign");
	expect_manifest("PK\x03\x04 something else\n", NRTC_EVERSION,
			"manifest of another format: foreign");
	expect_manifest("neuron-model 2\narch v2\nblock pe " PE_BIN "\ndata data.bin\n",
			NRTC_EVERSION, "format version 2");
	expect_manifest("neuron-model 1\narch v1\nblock pe " PE_BIN "\ndata data.bin\n",
			NRTC_EVERSION, "arch v1: not read");
	expect_manifest("neuron-model 1\narch trn9\nblock pe " PE_BIN "\ndata data.bin\n",
			NRTC_EVERSION, "unknown arch");
	expect_manifest("neuron-model 1\narch v3\nnc_count 2\nblock pe " PE_BIN "\ndata data.bin\n",
			NRTC_EVERSION, "nc_count 2: not read");
	expect_manifest("", NRTC_EVERSION, "empty manifest");

	/* a tar.gz of another program: different file names */
	tar_file(&t, "neff.json", "{}", 2);
	tar_file(&t, "sg00/def.json", "{}", 2);
	tar_end(&t);
	g = gz(t);
	expect(&g, NRTC_EVERSION, "a foreign tar.gz (no manifest first)");
	free(g.p);

	/* a file with its own header, not gzip */
	t.p = (unsigned char *)neff;
	t.len = sizeof(neff);
	expect(&t, NRTC_EVERSION, "a non-gzip file (e.g. a real NEFF)");

	memset(&t, 0, sizeof(t));
	tar_end(&t);
	g = gz(t);
	expect(&g, NRTC_EVERSION, "an empty tar.gz");
	free(g.p);

	t.p = (unsigned char *)"";
	t.len = 0;
	expect(&t, NRTC_ECORRUPT, "empty input");
	memset(&t, 0, sizeof(t));
}

static void test_files(void)
{
	struct mbuf t = { 0 }, g;

	/* missing data.bin */
	tar_file(&t, "manifest", good_manifest, strlen(good_manifest));
	tar_file(&t, PE_BIN, pe_bin, sizeof(pe_bin));
	tar_end(&t);
	g = gz(t);
	expect(&g, NRTC_ECORRUPT, "missing file");
	free(g.p);

	/* an extra file */
	memset(&t, 0, sizeof(t));
	tar_file(&t, "manifest", good_manifest, strlen(good_manifest));
	tar_file(&t, PE_BIN, pe_bin, sizeof(pe_bin));
	tar_file(&t, "data.bin", data_bin, sizeof(data_bin));
	tar_file(&t, "extra.bin", data_bin, 4);
	tar_end(&t);
	g = gz(t);
	expect(&g, NRTC_ECORRUPT, "extra file");
	free(g.p);

	/* a duplicate */
	memset(&t, 0, sizeof(t));
	tar_file(&t, "manifest", good_manifest, strlen(good_manifest));
	tar_file(&t, PE_BIN, pe_bin, sizeof(pe_bin));
	tar_file(&t, PE_BIN, pe_bin, sizeof(pe_bin));
	tar_file(&t, "data.bin", data_bin, sizeof(data_bin));
	tar_end(&t);
	g = gz(t);
	expect(&g, NRTC_ECORRUPT, "duplicate file");
	free(g.p);

	memset(&t, 0, sizeof(t));
	tar_file(&t, "manifest", good_manifest, strlen(good_manifest));
	tar_file(&t, "manifest", good_manifest, strlen(good_manifest));
	tar_end(&t);
	g = gz(t);
	expect(&g, NRTC_ECORRUPT, "duplicate manifest");
	free(g.p);

	expect_manifest("neuron-model 1\narch v2\nblock pe " PE_BIN "\n"
			"block act " PE_BIN "\ndata data.bin\n",
			NRTC_ECORRUPT, "a file named twice by the manifest");
	expect_manifest("neuron-model 1\narch v2\nblock pe " PE_BIN "\nblock pe data.bin\n",
			NRTC_ECORRUPT, "an engine twice");
}

static void one_entry(const char *name, char type, const char *link,
		      const char *what, int want)
{
	struct mbuf t = { 0 }, g;

	tar_file(&t, "manifest", good_manifest, strlen(good_manifest));
	tar_file(&t, PE_BIN, pe_bin, sizeof(pe_bin));
	if (type == '0') {
		tar_file(&t, name, data_bin, sizeof(data_bin));
	} else {
		tar_header(&t, name, type, 0, link);
		tar_file(&t, "data.bin", data_bin, sizeof(data_bin));
	}
	tar_end(&t);
	g = gz(t);
	expect(&g, want, what);
	free(g.p);
}

static void test_entries(void)
{
	one_entry("../data.bin", '0', NULL, "path traversal '../data.bin'", NRTC_ECORRUPT);
	one_entry("/data.bin", '0', NULL, "absolute path '/data.bin'", NRTC_ECORRUPT);
	one_entry("a/data.bin", '0', NULL, "path with a directory 'a/data.bin'", NRTC_ECORRUPT);
	one_entry(".data.bin", '0', NULL, "hidden name '.data.bin'", NRTC_ECORRUPT);
	one_entry("data.bin", '2', "/etc/passwd", "a symlink entry", NRTC_ECORRUPT);
	one_entry("data.bin", '1', PE_BIN, "a hardlink entry", NRTC_ECORRUPT);
	one_entry("dir", '5', NULL, "a directory entry", NRTC_ECORRUPT);
	one_entry("fifo", '6', NULL, "a fifo entry", NRTC_ECORRUPT);
	one_entry("dev", '3', NULL, "a character device entry", NRTC_ECORRUPT);
	expect_manifest("neuron-model 1\narch v2\nblock pe ../pe.bin\ndata data.bin\n",
			NRTC_ECORRUPT, "manifest names '../pe.bin'");
	expect_manifest("neuron-model 1\narch v2\nblock pe sub/pe.bin\ndata data.bin\n",
			NRTC_ECORRUPT, "manifest names 'sub/pe.bin'");

	/* too many entries */
	{
		struct mbuf t = { 0 }, g;
		char name[32];
		int i;

		tar_file(&t, "manifest", good_manifest, strlen(good_manifest));
		for (i = 0; i < 20; i++) {
			snprintf(name, sizeof(name), "f%d", i);
			tar_file(&t, name, data_bin, 4);
		}
		tar_end(&t);
		g = gz(t);
		expect(&g, NRTC_ECORRUPT, "20 entries: refused at the first extra");
		free(g.p);
	}
}

static void test_sizes(void)
{
	struct mbuf t = { 0 }, g;
	long rss;
	double t0;
	char err[256];
	int rc;

	/* declared size past the limit, data not there at all */
	tar_file(&t, "manifest", good_manifest, strlen(good_manifest));
	tar_file(&t, PE_BIN, pe_bin, sizeof(pe_bin));
	tar_header(&t, "data.bin", '0', (8ULL << 30) - 4, NULL);
	mput(&t, NULL, 4096);
	tar_end(&t);
	g = gz(t);
	rss = maxrss_kb();
	expect(&g, NRTC_ECORRUPT, "oversized entry (8 GiB declared)");
	check(maxrss_kb() - rss < 16384, "oversized entry: nothing allocated for it");
	free(g.p);

	/* a block too large, a block of 47 bytes, a data file of 6 bytes */
	memset(&t, 0, sizeof(t));
	tar_file(&t, "manifest", good_manifest, strlen(good_manifest));
	tar_header(&t, PE_BIN, '0', 48ULL * 65537, NULL);
	tar_end(&t);
	g = gz(t);
	expect(&g, NRTC_ECORRUPT, "block of 65537 instructions");
	free(g.p);

	memset(&t, 0, sizeof(t));
	tar_file(&t, "manifest", good_manifest, strlen(good_manifest));
	tar_file(&t, PE_BIN, pe_bin, 47);
	tar_file(&t, "data.bin", data_bin, sizeof(data_bin));
	tar_end(&t);
	g = gz(t);
	expect(&g, NRTC_ECORRUPT, "block file size not a multiple of 48");
	free(g.p);

	memset(&t, 0, sizeof(t));
	tar_file(&t, "manifest", good_manifest, strlen(good_manifest));
	tar_file(&t, PE_BIN, pe_bin, 0);
	tar_file(&t, "data.bin", data_bin, sizeof(data_bin));
	tar_end(&t);
	g = gz(t);
	expect(&g, NRTC_ECORRUPT, "empty block file");
	free(g.p);

	memset(&t, 0, sizeof(t));
	tar_file(&t, "manifest", good_manifest, strlen(good_manifest));
	tar_file(&t, PE_BIN, pe_bin, sizeof(pe_bin));
	tar_file(&t, "data.bin", data_bin, 6);
	tar_end(&t);
	g = gz(t);
	expect(&g, NRTC_ECORRUPT, "data file size not a multiple of 4");
	free(g.p);

	/* a manifest over its limit */
	{
		char *big = malloc(70000);

		memset(big, '#', 70000);
		memcpy(big, "neuron-model 1\n", 15);
		big[69999] = '\0';
		expect_manifest(big, NRTC_ECORRUPT, "manifest over 64 KiB");
		free(big);
	}

	/* tar bomb 1: 300 MiB of gzip'd zeros, no header at all */
	g = gzip_bytes(NULL, 1 << 20, 300);
	rss = maxrss_kb();
	t0 = now();
	rc = parse(&g, err, sizeof(err));
	check(rc != NRTC_OK && now() - t0 < 2.0 && maxrss_kb() - rss < 32768,
	      "tar bomb of zeros (%zu bytes gzip): stops early (rc %d, %.3f s, +%ld KiB: %s)",
	      g.len, rc, now() - t0, maxrss_kb() - rss, err);
	free(g.p);

	/* tar bomb 2: a data file of 300 MiB of zeros declared and present */
	{
		struct mbuf h = { 0 }, z;
		struct archive *a = archive_write_new();
		struct archive_entry *e = archive_entry_new();
		void *zeros = calloc(1, 1 << 20);
		int i;

		tar_file(&h, "manifest", good_manifest, strlen(good_manifest));
		tar_file(&h, PE_BIN, pe_bin, sizeof(pe_bin));
		tar_header(&h, "data.bin", '0', 300ULL << 20, NULL);
		memset(&z, 0, sizeof(z));
		archive_write_set_format_raw(a);
		archive_write_add_filter_gzip(a);
		archive_write_set_filter_option(a, "gzip", "compression-level", "1");
		archive_write_set_bytes_per_block(a, 0);
		archive_write_open(a, &z, NULL, buf_write, NULL);
		archive_entry_set_pathname(e, "raw");
		archive_entry_set_filetype(e, AE_IFREG);
		archive_write_header(a, e);
		archive_write_data(a, h.p, h.len);
		for (i = 0; i < 300; i++)
			archive_write_data(a, zeros, 1 << 20);
		archive_write_close(a);
		archive_write_free(a);
		archive_entry_free(e);
		free(zeros);
		free(h.p);
		rss = maxrss_kb();
		t0 = now();
		rc = parse(&z, err, sizeof(err));
		check(rc == NRTC_ECORRUPT && now() - t0 < 2.0 &&
		      maxrss_kb() - rss < 32768,
		      "tar bomb, 300 MiB data file (%zu bytes gzip): refused at its header (%.3f s, +%ld KiB: %s)",
		      z.len, now() - t0, maxrss_kb() - rss, err);
		free(z.p);
	}
}

static void test_manifest(void)
{
	struct mbuf m = { 0 };
	char line[128];
	int i;

	{
		static const char head[] =
			"neuron-model 1\narch v2\nblock pe " PE_BIN "\ndata data.bin\n";

		mput(&m, head, strlen(head));
	}
	for (i = 0; i < 65; i++) {
		snprintf(line, sizeof(line), "tensor input t%d float32 4\n", i);
		mput(&m, line, strlen(line));
	}
	mput(&m, "", 1);
	expect_manifest((char *)m.p, NRTC_ECORRUPT, "65 tensors: too many");
	free(m.p);

#define M(x) "neuron-model 1\narch v2\nblock pe " PE_BIN "\ndata data.bin\n" x
	expect_manifest(M("tensor input a..b float32 4\n"), NRTC_ECORRUPT, "tensor name with '..'");
	expect_manifest(M("tensor input a*b float32 4\n"), NRTC_ECORRUPT, "tensor name with '*'");
	expect_manifest(M("tensor input a float32 4\ntensor output a float32 4\n"),
			NRTC_ECORRUPT, "tensor name twice");
	{
		char big[400];

		strcpy(big, M("tensor input "));
		memset(big + strlen(big), 'n', 256);
		strcpy(big + strlen(M("tensor input ")) + 256, " float32 4\n");
		expect_manifest(big, NRTC_ECORRUPT, "tensor name of 256 bytes");
		big[strlen(M("tensor input ")) + 255] = ' ';
		strcpy(big + strlen(M("tensor input ")) + 255, " float32 4\n");
		expect_manifest(big, NRTC_OK, "tensor name of 255 bytes");
	}
	expect_manifest(M("tensor input x float64 4\n"), NRTC_ECORRUPT, "unknown dtype 'float64'");
	expect_manifest(M("tensor inout x float32 4\n"), NRTC_ECORRUPT, "unknown usage");
	expect_manifest(M("tensor input x float32 8x0\n"), NRTC_ECORRUPT, "shape with a 0");
	expect_manifest(M("tensor input x float32 2x2x2x2x2\n"),
			NRTC_ECORRUPT, "shape of 5 dimensions");
	expect_manifest(M("tensor input x float32 4294967295x4294967295\n"),
			NRTC_ECORRUPT, "shape too large (size overflow)");
	expect_manifest(M("tensor input x float32 8x\n"), NRTC_ECORRUPT, "shape '8x'");
	expect_manifest(M("tensor input x float32 08\n"), NRTC_ECORRUPT, "shape '08'");
	expect_manifest(M("tensor input x float32 -8\n"), NRTC_ECORRUPT, "shape '-8'");
	expect_manifest(M("tensor input x float32\n"), NRTC_ECORRUPT, "tensor line short");
	expect_manifest(M("scratch 6\n"), NRTC_ECORRUPT, "scratch not a multiple of 4");
	expect_manifest(M("scratch 99999999999\n"), NRTC_ECORRUPT, "scratch too large");
	expect_manifest(M("scratch 4\nscratch 4\n"), NRTC_ECORRUPT, "scratch twice");
	expect_manifest(M("frobnicate 1\n"), NRTC_ECORRUPT, "unknown key");
	expect_manifest(M("arch v3\n"), NRTC_ECORRUPT, "arch twice");
	expect_manifest(M("block gpu x.bin\n"), NRTC_ECORRUPT, "unknown engine");
	expect_manifest(M("data more.bin\n"), NRTC_ECORRUPT, "data twice");
	expect_manifest(M("tensor input x float32 4\r\n"), NRTC_ECORRUPT, "a CR in the manifest");
	expect_manifest("neuron-model 1\nblock pe " PE_BIN "\ndata data.bin\n",
			NRTC_ECORRUPT, "no arch");
	expect_manifest("neuron-model 1\narch v2\ndata data.bin\n", NRTC_ECORRUPT, "no block");
	expect_manifest("neuron-model x\narch v2\n", NRTC_ECORRUPT, "bad version number");
	expect_manifest("neuron-model 1\narch v2\nblock pe " PE_BIN "\ndata data.bin",
			NRTC_OK, "no newline at the end: fine");
	{
		char nul[] = M("tensor input x float32 4\n");
		struct mbuf t = { 0 }, g;

		nul[20] = '\0';
		tar_file(&t, "manifest", nul, sizeof(nul) - 1);
		tar_file(&t, PE_BIN, pe_bin, sizeof(pe_bin));
		tar_file(&t, "data.bin", data_bin, sizeof(data_bin));
		tar_end(&t);
		g = gz(t);
		expect(&g, NRTC_ECORRUPT, "a NUL byte in the manifest");
		free(g.p);
	}
#undef M
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	struct mbuf b = { 0 };
	unsigned char chunk[65536];
	size_t r;

	if (!fp)
		return NULL;
	while ((r = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		mput(&b, chunk, r);
	fclose(fp);
	*len = b.len;
	return b.p;
}

static void test_model(const char *path, uint32_t nblocks, uint32_t ninsns,
		       uint64_t data_size, uint64_t scratch)
{
	struct nrtc_model *m = NULL;
	unsigned char *b;
	size_t len = 0;
	char err[256] = "";
	uint32_t i, n = 0;
	int rc;

	b = slurp(path, &len);
	if (!b) {
		check(0, "%s: cannot read", path);
		return;
	}
	rc = nrtc_parse(b, len, &m, err, sizeof(err));
	check(rc == NRTC_OK, "%s parses (%s)", path, err);
	if (rc == NRTC_OK) {
		for (i = 0; i < m->nblocks; i++)
			n += m->blocks[i].count;
		check(m->ntensors == 2 && m->tensors[0].size == 512 &&
		      m->tensors[1].size == 128 && m->tensors[1].usage == 1 &&
		      m->nblocks == nblocks && n == ninsns &&
		      m->data_size == data_size && m->scratch_size == scratch &&
		      m->blocks[0].engine == NEURON_ENGINE_PE &&
		      m->blocks[0].insns[0].opcode == NEURON_TPB_MATMUL,
		      "%s: %u tensors, %u blocks, %u insns, %llu data, %llu scratch",
		      path, m->ntensors, m->nblocks, n,
		      (unsigned long long)m->data_size,
		      (unsigned long long)m->scratch_size);
		if (m->data_size >= 4) {
			/* xorshift32 seed 1, first value: docs/model-format.md */
			uint32_t x = 1, bits;
			float want, got;

			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			want = (float)(x >> 8) / 16777216.0f - 0.5f;
			memcpy(&bits, m->data, 4);
			memcpy(&got, &bits, 4);
			if (nblocks == 1)
				check(got == want, "%s: W[0] is xorshift32(1) = %g", path,
				      (double)want);
		}
		nrtc_free(m);
	}
	free(b);
}

/* Parses of one container in several threads at once give the same model. */
static struct mbuf thread_input;

static void *thread_main(void *arg)
{
	unsigned int i;
	char err[256];

	(void)arg;
	for (i = 0; i < 200; i++) {
		struct nrtc_model *m = NULL;

		if (nrtc_parse(thread_input.p, thread_input.len, &m, err,
			       sizeof(err)) != NRTC_OK || m->blocks[0].count != 2) {
			nrtc_free(m);
			return (void *)1;
		}
		nrtc_free(m);
	}
	return NULL;
}

static void test_threads(void)
{
	pthread_t th[8];
	unsigned int i, bad = 0;
	void *r;

	thread_input = gz(container_tar(NULL));
	for (i = 0; i < 8; i++)
		if (pthread_create(&th[i], NULL, thread_main, NULL))
			bad++;
	for (i = 0; i < 8; i++) {
		if (pthread_join(th[i], &r) || r)
			bad++;
	}
	check(bad == 0, "8 threads x 200 parses at once");
	free(thread_input.p);
}

int main(int argc, char **argv)
{
	insn(pe_bin, NEURON_TPB_MATMUL, 8, 16, 4);
	insn(pe_bin + 48, NEURON_TPB_END, 0, 0, 0);
	memset(pe_bin + 48 + 24, 0, 24);
	for (unsigned int i = 0; i < sizeof(data_bin); i++)
		data_bin[i] = (unsigned char)(i * 7 + 1);

	test_valid();
	test_truncated();
	test_gzip();
	test_foreign();
	test_files();
	test_entries();
	test_manifest();
	test_sizes();
	test_threads();
	if (argc == 3) {
		test_model(argv[1], 1, 2, 256, 0);
		test_model(argv[2], 3, 16, 2704, 1024);
	}
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}
