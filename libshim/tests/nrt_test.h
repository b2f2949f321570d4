/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of test_nrt.c (the nrt_* API of libnrt.so.1 on the simulated
 * devices): model files, the neuron-pack PRNG, host references of the
 * example models, stderr capture, and containers built in memory (a ustar
 * writer and a gzip writer with stored deflate blocks).
 */
#ifndef NRT_TEST_H
#define NRT_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>
#include <nrt/nrt_version.h>

#include <neuron_bench.h>

#include "test_buf.h"

#define MODEL_DIR	"/usr/share/neuron/models"
#define MATMUL_PATH	MODEL_DIR "/matmul.nmodel"
#define MLP_PATH	MODEL_DIR "/mlp.nmodel"

/* The VM's instance: a v2 device (2 NCs) and a v3 device (8 NCs). */
#define TOTAL_NC	10

/* Both example models: x[8x16] -> y[8x4], float32. */
#define XM 8
#define XK 16
#define YN 4
#define X_ELEMS (XM * XK)
#define Y_ELEMS (XM * YN)
#define X_BYTES (X_ELEMS * 4)
#define Y_BYTES (Y_ELEMS * 4)

/* ---- files ---- */

static inline void *slurp(const char *path, size_t *len)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		close(fd);
		return NULL;
	}
	p = malloc(st.st_size);
	if (p && read(fd, p, st.st_size) != st.st_size) {
		free(p);
		p = NULL;
	}
	close(fd);
	*len = st.st_size;
	return p;
}

/* ---- the neuron-pack PRNG (docs/model-format.md) ---- */

static inline uint32_t xs32(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static inline void prng_f32(float *v, size_t n, uint32_t seed)
{
	uint32_t x = seed;
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = (float)(xs32(&x) >> 8) / 16777216.0f - 0.5f;
}

/* ---- host references (IEEE fp32, products added in order of p) ---- */

struct weights {
	float W[16 * 4];			/* matmul */
	float W1[16 * 32], b1[32], W2[32 * 4], b2[4];	/* mlp */
};

static inline void weights_init(struct weights *w)
{
	prng_f32(w->W, 16 * 4, 1);
	prng_f32(w->W1, 16 * 32, 11);
	prng_f32(w->b1, 32, 12);
	prng_f32(w->W2, 32 * 4, 13);
	prng_f32(w->b2, 4, 14);
}

static inline void ref_matmul(const struct weights *w, const float *x, float *y)
{
	host_matmul(x, w->W, y, XM, XK, YN);
}

static inline void ref_mlp(const struct weights *w, const float *x, float *y)
{
	float h[XM * 32];

	host_mlp(x, w->W1, w->b1, w->W2, w->b2, h, y, XM, XK, 32, YN);
}

/* Index of the first element that differs (bit for bit as floats), or -1. */
static inline int fdiff(const float *a, const float *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!(a[i] == b[i]))
			return i;
	return -1;
}

static inline void rand_input(float *x, int n, uint32_t *st)
{
	int i;

	for (i = 0; i < n; i++)
		x[i] = (float)(int)(xs32(st) % 2001 - 1000) / 256.0f;
}

/* ---- stderr capture ---- */

struct cap {
	int saved;
	int rd;
	char buf[8192];
	size_t len;
};

static inline int cap_begin(struct cap *c)
{
	int p[2];

	memset(c, 0, sizeof(*c));
	fflush(stderr);
	if (pipe(p) < 0)
		return -1;
	c->saved = dup(STDERR_FILENO);
	dup2(p[1], STDERR_FILENO);
	close(p[1]);
	c->rd = p[0];
	return 0;
}

/* Restore stderr; the captured text is c->buf (NUL-terminated). */
static inline const char *cap_end(struct cap *c)
{
	ssize_t r;

	fflush(stderr);
	dup2(c->saved, STDERR_FILENO);
	close(c->saved);
	while (c->len < sizeof(c->buf) - 1 &&
	       (r = read(c->rd, c->buf + c->len, sizeof(c->buf) - 1 - c->len)) > 0)
		c->len += r;
	c->buf[c->len] = 0;
	close(c->rd);
	return c->buf;
}

static inline int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* ---- in-memory containers ---- */

/* One ustar entry: a regular file @name of @n bytes. */
static inline void tar_add(struct mbuf *t, const char *name, const void *d, size_t n)
{
	unsigned char h[512];
	unsigned int sum = 0, i;

	memset(h, 0, sizeof(h));
	snprintf((char *)h, 100, "%s", name);
	memcpy(h + 100, "0000644", 8);
	memcpy(h + 108, "0000000", 8);
	memcpy(h + 116, "0000000", 8);
	snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)n);
	memcpy(h + 136, "00000000000", 12);
	memset(h + 148, ' ', 8);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	for (i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
	mput(t, h, 512);
	mput(t, d, n);
	if (n % 512)
		mput(t, NULL, 512 - n % 512);
}

static inline void tar_end(struct mbuf *t)
{
	mput(t, NULL, 1024);
}

static inline uint32_t crc32_le(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		c ^= p[i];
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & -(c & 1));
	}
	return ~c;
}

static inline void put_le32(struct mbuf *b, uint32_t v)
{
	unsigned char x[4] = { v, v >> 8, v >> 16, v >> 24 };

	mput(b, x, 4);
}

/* gzip of @n bytes of @d, deflate stored blocks (no compression). */
static inline void gzip_stored(struct mbuf *out, const unsigned char *d, size_t n)
{
	static const unsigned char hdr[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
	size_t off = 0;

	mput(out, hdr, sizeof(hdr));
	do {
		size_t k = n - off > 65535 ? 65535 : n - off;
		unsigned char bh[5];

		bh[0] = off + k == n ? 1 : 0;
		bh[1] = k & 0xff;
		bh[2] = k >> 8;
		bh[3] = ~k & 0xff;
		bh[4] = (~k >> 8) & 0xff;
		mput(out, bh, 5);
		mput(out, d + off, k);
		off += k;
	} while (off < n);
	put_le32(out, crc32_le(d, n));
	put_le32(out, (uint32_t)n);
}

#endif /* NRT_TEST_H */
