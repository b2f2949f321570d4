// SPDX-License-Identifier: GPL-2.0
/*
 * neuron simulator: the arithmetic of the simulated TPB (docs/sim-isa.md,
 * "Numbers"). int32 is computed with u32 operations (wrapping, no undefined
 * behaviour); fp32 with the CPU's IEEE single precision (SSE: round to
 * nearest even, no fused multiply-add), which makes the results the same
 * bits on every run.
 *
 * This file alone is built with the kernel's FPU compiler flags (Kbuild).
 * The kernel may use the FPU only between kernel_fpu_begin() and
 * kernel_fpu_end(), with preemption off, so:
 *  - every function that touches a float is a noinline leaf called only
 *    inside a section (the compiler cannot move its float operations out
 *    of it across the calls that open and close the section);
 *  - a section does at most NEURON_SIM_TPB_FPU_CHUNK multiply-adds or
 *    elements; the CPU is given up between sections (cond_resched());
 *  - no allocation, no lock and no sleep inside a section.
 */
#include <linux/math64.h>
#include <linux/sched.h>
#include <asm/fpu/api.h>

#include <neuron.h>

#include "sim/sim_tpb.h"

/* ---- fp32 leaves: called only inside an FPU section ---- */

static inline float neuron_sim_f(u32 bits)
{
	union { u32 u; float f; } v = { .u = bits };

	return v.f;
}

static inline u32 neuron_sim_u(float f)
{
	union { u32 u; float f; } v = { .f = f };

	return v.u;
}

/* The ISA's MAX: @y if @y > @x, else @x (a NaN in @y is ignored). */
static inline float neuron_sim_fmax(float x, float y)
{
	return y > x ? y : x;
}

/*
 * e^@x: clamp to [-87, 88], write x = j * ln2 + r with r in about
 * [-ln2/2, ln2/2] (ln2 split in a high part exact in a few bits and a low
 * part, so j * ln2_hi is exact), a degree-7 Taylor polynomial of r, scaled
 * by 2^j built from the exponent bits (j is in [-126, 127]: a normal).
 */
static inline float neuron_sim_expf(float x)
{
	const float log2e = 1.44269504088896341f;
	const float ln2_hi = 0.693359375f;
	const float ln2_lo = -0.000212194440f;
	float r, p;
	int j;

	if (x != x)
		return x;
	if (x < -87.0f)
		x = -87.0f;
	if (x > 88.0f)
		x = 88.0f;
	j = (int)(x * log2e + (x < 0.0f ? -0.5f : 0.5f));
	r = x - (float)j * ln2_hi;
	r = r - (float)j * ln2_lo;
	p = 1.0f / 5040.0f;
	p = p * r + 1.0f / 720.0f;
	p = p * r + 1.0f / 120.0f;
	p = p * r + 1.0f / 24.0f;
	p = p * r + 1.0f / 6.0f;
	p = p * r + 0.5f;
	p = p * r + 1.0f;
	p = p * r + 1.0f;
	return p * neuron_sim_f((u32)(j + 127) << 23);
}

/* @cols columns of one MATMUL row: @out[j] += sum over p of @a[p] * @b[p][j]. */
static noinline void neuron_sim_fp_matmul(u32 *out, const u32 *a, const u32 *b,
					  u32 k, u32 n, u32 cols)
{
	u32 p, j;

	for (p = 0; p < k; p++) {
		float x = neuron_sim_f(a[p]);
		const u32 *brow = b + (size_t)p * n;

		for (j = 0; j < cols; j++)
			out[j] = neuron_sim_u(neuron_sim_f(out[j]) +
					      x * neuron_sim_f(brow[j]));
	}
}

static noinline void neuron_sim_fp_act(u32 func, u32 *out, const u32 *a, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		float x = neuron_sim_f(a[i]);

		switch (func) {
		case NEURON_ACT_RELU:
			x = neuron_sim_fmax(0.0f, x);
			break;
		case NEURON_ACT_SIGMOID:
			x = 1.0f / (1.0f + neuron_sim_expf(-x));
			break;
		case NEURON_ACT_TANH:
			x = 2.0f / (1.0f + neuron_sim_expf(-2.0f * x)) - 1.0f;
			break;
		default:
			/* IDENTITY: the bits as they are. */
			out[i] = a[i];
			continue;
		}
		out[i] = neuron_sim_u(x);
	}
}

/* @cols windows of @k elements from @a into @out. */
static noinline void neuron_sim_fp_pool(u32 func, u32 *out, const u32 *a,
					u32 cols, u32 k)
{
	u32 j, q;

	for (j = 0; j < cols; j++, a += k) {
		float acc;

		if (func == NEURON_POOL_MAX) {
			acc = neuron_sim_f(a[0]);
			for (q = 1; q < k; q++)
				acc = neuron_sim_fmax(acc, neuron_sim_f(a[q]));
		} else {
			acc = 0.0f;
			for (q = 0; q < k; q++)
				acc = acc + neuron_sim_f(a[q]);
			acc = acc / (float)k;
		}
		out[j] = neuron_sim_u(acc);
	}
}

/* One row of TT/TS: @out[j] = @a[j] op @b[j * @b_col]. */
static noinline void neuron_sim_fp_alu(u32 op, u32 *out, const u32 *a,
				       const u32 *b, u32 n, u32 b_col)
{
	u32 j;

	for (j = 0; j < n; j++) {
		float x = neuron_sim_f(a[j]), y = neuron_sim_f(b[j * b_col]);

		switch (op) {
		case NEURON_ALU_ADD:
			x = x + y;
			break;
		case NEURON_ALU_SUB:
			x = x - y;
			break;
		case NEURON_ALU_MUL:
			x = x * y;
			break;
		case NEURON_ALU_MAX:
			x = neuron_sim_fmax(x, y);
			break;
		default:
			x = x / y;
			break;
		}
		out[j] = neuron_sim_u(x);
	}
}

/* ---- FPU sections ---- */

/**
 * struct neuron_sim_fpu - an open run of FPU sections
 * @used: multiply-adds (or elements) done in the current section.
 */
struct neuron_sim_fpu {
	u32 used;
};

static void neuron_sim_fpu_begin(struct neuron_sim_fpu *s)
{
	kernel_fpu_begin();
	s->used = 0;
}

/*
 * Make room for @cost (at most NEURON_SIM_TPB_FPU_CHUNK) in the current
 * section: close it and open another, giving the CPU up, when it would
 * overflow.
 */
static void neuron_sim_fpu_need(struct neuron_sim_fpu *s, u32 cost)
{
	if (s->used && cost > NEURON_SIM_TPB_FPU_CHUNK - s->used) {
		kernel_fpu_end();
		cond_resched();
		kernel_fpu_begin();
		s->used = 0;
	}
	s->used += cost;
}

static void neuron_sim_fpu_end(struct neuron_sim_fpu *s)
{
	kernel_fpu_end();
}

/* ---- int32 ---- */

static u32 neuron_sim_imax(u32 x, u32 y)
{
	return (s32)y > (s32)x ? y : x;
}

/* @x op @y in int32; -EDOM for a division by 0. */
static int neuron_sim_ialu(u32 op, u32 x, u32 y, u32 *res)
{
	switch (op) {
	case NEURON_ALU_ADD:
		*res = x + y;
		break;
	case NEURON_ALU_SUB:
		*res = x - y;
		break;
	case NEURON_ALU_MUL:
		*res = x * y;
		break;
	case NEURON_ALU_MAX:
		*res = neuron_sim_imax(x, y);
		break;
	default:
		if (!y)
			return -EDOM;
		/* INT32_MIN / -1 overflows: the ISA says INT32_MIN. */
		if (x == 0x80000000u && y == 0xffffffffu)
			*res = x;
		else
			*res = (u32)((s32)x / (s32)y);
		break;
	}
	return 0;
}

/* ---- the operations ---- */

void neuron_sim_tpb_matmul(u32 dtype, u32 *out, const u32 *a, const u32 *b,
			   u32 m, u32 k, u32 n)
{
	/* Columns per piece: k * cols multiply-adds fit one section. */
	u32 step = max_t(u32, 1, NEURON_SIM_TPB_FPU_CHUNK / k);
	struct neuron_sim_fpu s;
	u32 i, j, p;

	if (dtype == NEURON_DT_INT32) {
		for (i = 0; i < m; i++) {
			u32 *orow = out + (size_t)i * n;
			const u32 *arow = a + (size_t)i * k;

			for (p = 0; p < k; p++) {
				const u32 *brow = b + (size_t)p * n;
				u32 x = arow[p];

				for (j = 0; j < n; j++)
					orow[j] += x * brow[j];
			}
			cond_resched();
		}
		return;
	}

	neuron_sim_fpu_begin(&s);
	for (i = 0; i < m; i++) {
		for (j = 0; j < n; j += step) {
			u32 cols = min(step, n - j);

			neuron_sim_fpu_need(&s, cols * k);
			neuron_sim_fp_matmul(out + (size_t)i * n + j,
					     a + (size_t)i * k, b + j, k, n, cols);
		}
	}
	neuron_sim_fpu_end(&s);
}

void neuron_sim_tpb_act(u32 dtype, u32 func, u32 *out, const u32 *a, u32 n)
{
	struct neuron_sim_fpu s;
	u32 i;

	if (dtype == NEURON_DT_INT32) {
		for (i = 0; i < n; i++)
			out[i] = func == NEURON_ACT_RELU ?
				 neuron_sim_imax(0, a[i]) : a[i];
		return;
	}

	neuron_sim_fpu_begin(&s);
	for (i = 0; i < n; i += NEURON_SIM_TPB_FPU_CHUNK) {
		u32 cnt = min_t(u32, NEURON_SIM_TPB_FPU_CHUNK, n - i);

		neuron_sim_fpu_need(&s, cnt);
		neuron_sim_fp_act(func, out + i, a + i, cnt);
	}
	neuron_sim_fpu_end(&s);
}

void neuron_sim_tpb_pool(u32 dtype, u32 func, u32 *out, const u32 *a, u32 m,
			 u32 n, u32 k)
{
	u32 step = max_t(u32, 1, NEURON_SIM_TPB_FPU_CHUNK / k);
	struct neuron_sim_fpu s;
	u32 i, j, q;

	if (dtype == NEURON_DT_INT32) {
		for (i = 0; i < m * n; i++) {
			const u32 *w = a + (size_t)i * k;
			s64 sum = 0;
			u32 acc = w[0];

			if (func == NEURON_POOL_MAX) {
				for (q = 1; q < k; q++)
					acc = neuron_sim_imax(acc, w[q]);
				out[i] = acc;
			} else {
				for (q = 0; q < k; q++)
					sum += (s32)w[q];
				out[i] = (u32)(s32)div_s64(sum, k);
			}
		}
		return;
	}

	neuron_sim_fpu_begin(&s);
	for (i = 0; i < m; i++) {
		for (j = 0; j < n; j += step) {
			u32 cols = min(step, n - j);
			size_t at = (size_t)i * n + j;

			neuron_sim_fpu_need(&s, cols * k);
			neuron_sim_fp_pool(func, out + at, a + at * k, cols, k);
		}
	}
	neuron_sim_fpu_end(&s);
}

int neuron_sim_tpb_alu(u32 dtype, u32 op, u32 *out, const u32 *a, const u32 *b,
		       u32 m, u32 n, u32 b_row, u32 b_col)
{
	struct neuron_sim_fpu s;
	u32 i, j;
	int ret;

	if (dtype == NEURON_DT_INT32) {
		for (i = 0; i < m; i++) {
			const u32 *arow = a + (size_t)i * n;
			const u32 *brow = b + (size_t)i * b_row;
			u32 *orow = out + (size_t)i * n;

			for (j = 0; j < n; j++) {
				ret = neuron_sim_ialu(op, arow[j], brow[j * b_col],
						      &orow[j]);
				if (ret)
					return ret;
			}
		}
		return 0;
	}

	/* A row is at most NEURON_TPB_MAX_DIM elements: rows fill sections. */
	neuron_sim_fpu_begin(&s);
	for (i = 0; i < m; i++) {
		neuron_sim_fpu_need(&s, n);
		neuron_sim_fp_alu(op, out + (size_t)i * n, a + (size_t)i * n,
				  b + (size_t)i * b_row, n, b_col);
	}
	neuron_sim_fpu_end(&s);
	return 0;
}
