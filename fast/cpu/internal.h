/* Internals of the fast CPU backend shared by its files. */
#ifndef OPTCERT_FAST_CPU_INTERNAL_H
#define OPTCERT_FAST_CPU_INTERNAL_H

#include "kernels.h"

const oc_fast_kernels *oc_fast_kernels_active(void);

/* x[i] *= f in binary32 (fast/cpu/passes.c). */
void oc_fast_scale(float *x, size_t n, float f);
/* 1 if some x[i] is NaN or infinite, else 0. */
int oc_fast_any_nonfinite(const float *x, size_t n);

/* Fused STEP-UNSCALE-1 pass: 1 if some x[i] is NaN or infinite before the product, else 0;
 * with `scale`, x[i] *= f in binary32. */
int oc_fast_unscale_check(float *x, size_t n, float f, int scale);
/* x rounded to binary32, +-inf past its range (a plain conversion would be undefined). */
float oc_fast_to_f32(double x);

#endif
