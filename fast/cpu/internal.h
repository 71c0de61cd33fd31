/* Internals of the fast CPU backend shared by its files. */
#ifndef OPTCERT_FAST_CPU_INTERNAL_H
#define OPTCERT_FAST_CPU_INTERNAL_H

#include "kernels.h"

const oc_fast_kernels *oc_fast_kernels_active(void);

/* x[i] *= f in binary32 (fast/cpu/passes.c). */
void oc_fast_scale(float *x, size_t n, float f);
/* 1 if some x[i] is NaN or infinite, else 0. */
int oc_fast_any_nonfinite(const float *x, size_t n);

#endif
