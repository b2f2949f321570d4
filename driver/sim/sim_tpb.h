/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron simulator: the arithmetic of the simulated TPB (sim_tpb_fpu.c),
 * as used by its executor (sim_tpb.c). Elements are 32-bit words: the bits
 * of an fp32 or an int32 value, by @dtype (NEURON_DT_*). No floating point
 * type appears here: only sim_tpb_fpu.c is built with the FPU flags, and
 * it keeps every fp32 operation inside kernel_fpu_begin()/kernel_fpu_end().
 *
 * Every function reads its sources and writes @out, which must not overlap
 * them (the executor reads operands into buffers of its own first). The
 * callers checked the dimensions and the function codes. All may sleep
 * (they give the CPU up between FPU sections): process context only, no
 * lock held that forbids sleeping.
 */
#ifndef _NEURON_SIM_TPB_H
#define _NEURON_SIM_TPB_H

#include <linux/types.h>

/* Largest number of multiply-adds (or elements) of one FPU section. */
#define NEURON_SIM_TPB_FPU_CHUNK	65536

/*
 * MATMUL: @out (m x n) += @a (m x k) times @b (k x n), row major; @out holds
 * 0s or the destination (ACCUMULATE) on entry. Products are added in order
 * of increasing p.
 */
void neuron_sim_tpb_matmul(u32 dtype, u32 *out, const u32 *a, const u32 *b,
			   u32 m, u32 k, u32 n);

/* ACT: @out[i] = func(@a[i]), i < @n (func NEURON_ACT_*). */
void neuron_sim_tpb_act(u32 dtype, u32 func, u32 *out, const u32 *a, u32 n);

/*
 * POOL: @out (m x n)[i][j] = max or mean (func NEURON_POOL_*) of
 * @a (m x n*k)[i][j*k .. j*k + k - 1].
 */
void neuron_sim_tpb_pool(u32 dtype, u32 func, u32 *out, const u32 *a, u32 m,
			 u32 n, u32 k);

/*
 * TT and TS: @out (m x n)[i][j] = @a[i][j] op @b[i * @b_row + j * @b_col]
 * (op NEURON_ALU_*): @b_row @n and @b_col 1 for a full operand, @b_row 0 for
 * a broadcast row, both 0 for a scalar.
 * Return: 0, or -EDOM (int32 DIV by 0: @out is then partly written and
 * must not be used).
 */
int neuron_sim_tpb_alu(u32 dtype, u32 op, u32 *out, const u32 *a, const u32 *b,
		       u32 m, u32 n, u32 b_row, u32 b_col);

#endif /* _NEURON_SIM_TPB_H */
