/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two benchmarks share (tools/neuron-bench.c and
 * libshim/tests/bench_nrt.c): the clock and the best-of-rounds pair; and
 * the host's fp32 reference of the MLP that they and libshim's tests
 * (nrt_test.h) compare a device's result with.
 */
#ifndef NEURON_BENCH_H
#define NEURON_BENCH_H

#include <time.h>

/* CLOCK_MONOTONIC in seconds. */
static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Each ratio is measured in rounds that time the baseline and the subject
 * back to back, and compares the best of each: a slow spell of a shared
 * machine then hits both sides alike.
 */
struct best {
	double base;
	double subject;
};

static inline void best_add(struct best *b, double base, double subject)
{
	if (!b->base || base < b->base)
		b->base = base;
	if (!b->subject || subject < b->subject)
		b->subject = subject;
}

/*
 * C (@m x @n) = A (@m x @k) * B (@k x @n), row-major, IEEE fp32 with the
 * products added in order of p (the core's order).
 */
static inline void host_matmul(const float *a, const float *b, float *c,
			       int m, int k, int n)
{
	int i, j, p;

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			float s = 0.0f;

			for (p = 0; p < k; p++)
				s += a[i * k + p] * b[p * n + j];
			c[i * n + j] = s;
		}
}

/*
 * y = W2 relu(x W1 + b1) + b2 for a batch of @nb rows of @ni inputs, @nh
 * hidden units (@h, the hidden layer) and @no outputs.
 */
static inline void host_mlp(const float *x, const float *w1, const float *b1,
			    const float *w2, const float *b2, float *h, float *y,
			    int nb, int ni, int nh, int no)
{
	int i, j;

	host_matmul(x, w1, h, nb, ni, nh);
	for (i = 0; i < nb; i++)
		for (j = 0; j < nh; j++) {
			float v = h[i * nh + j] + b1[j];

			h[i * nh + j] = v > 0.0f ? v : 0.0f;
		}
	host_matmul(h, w2, y, nb, nh, no);
	for (i = 0; i < nb; i++)
		for (j = 0; j < no; j++)
			y[i * no + j] = y[i * no + j] + b2[j];
}

#endif
