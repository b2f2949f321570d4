/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A growable byte buffer for the host and VM tests of libshim
 * (test_container.c, and test_nrt.c through nrt_test.h).
 */
#ifndef TEST_BUF_H
#define TEST_BUF_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mbuf {
	unsigned char *p;
	size_t len, cap;
};

/* Append @n bytes of @d (NULL: zeros) to @b; exit status 2 out of memory. */
static inline void mput(struct mbuf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->len + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p) {
			perror("realloc");
			exit(2);
		}
		b->cap = cap;
	}
	if (d)
		memcpy(b->p + b->len, d, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
}

#endif
