/* Internals of the fast CPU backend shared by its files. */
#ifndef OPTCERT_FAST_CPU_INTERNAL_H
#define OPTCERT_FAST_CPU_INTERNAL_H

#include <stdint.h>
#include "kernels.h"
#include "optcert/fast.h"

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

/* oc_fast_clip_norm of the gradients unscaled on the fly: the 2-norm's sum over the counted
 * views of ((float)(g * inv_scale))^2 (FAST-NORM-1); the inf-norm ignores inv_scale. */
oc_status oc_fast_clip_norm_unscaled(const oc_clip_config *c, size_t nviews,
                                     const oc_clip_view *views, float inv_scale, double *partial);

/* o, or the default options when o is NULL. */
const oc_fast_opts *oc_fast_opts_or_default(const oc_fast_opts *o);

/* One chunk's update; returns non-zero when a gradient of the chunk was non-finite. */
typedef unsigned (*oc_fast_range_fn)(const void *ctx, const oc_fast_range *r);
/* FAST-MT-1: f on every chunk of OC_FAST_CHUNK elements of every tensor, the chunks shared among
 * the threads; grad_back: FAST-STEP-2's fused pass (no model copy, the gradient written back);
 * *found_nonfinite (when not NULL): whether f flagged a chunk. */
oc_status oc_fast_for_each_chunk(size_t nt, const oc_fast_tensor *t, const oc_fast_opts *o,
                                 int grad_back, oc_fast_range_fn f, const void *ctx,
                                 int *found_nonfinite);

/* An element-wise algorithm's fused multi-tensor step as mixed precision and the guarded step
 * call it (FAST-STEP-1, -2): hp its hyper-parameters, grad_back as oc_fast_sub_step. Each
 * algorithm's file defines `const oc_fast_elementwise oc_fast_elementwise_<fam> = {...}` at
 * the start of a line; the build lists them (cmake/registry.cmake, fast_elementwise_registry.h). */
typedef struct oc_fast_elementwise {
    oc_algorithm alg;
    oc_status (*step)(const void *hp, int64_t step, const oc_fast_opts *o, size_t nt,
                      const oc_fast_tensor *t, int *found_nonfinite, int grad_back);
} oc_fast_elementwise;
/* Algorithm alg's, NULL if it has none. */
const oc_fast_elementwise *oc_fast_elementwise_of(oc_algorithm alg);

/* FAST-STEP-2: the multi-tensor step of sub-optimizer s (its kind and hyper-parameters) with
 * counter `step`; grad_back: no model copy, each gradient the update used, (g * inv_scale) *
 * clip_coeff, written back over g. */
oc_status oc_fast_sub_step(const oc_sub_optimizer *s, int64_t step, const oc_fast_opts *o,
                           size_t nt, const oc_fast_tensor *t, int grad_back);

/* FAST-NS-6 (fast/cpu/bf16_matmul.c): oneDNN's name of its native bf16 matmul kernel on this
 * CPU, or NULL when it has none (its reference kernel) or OPTCERT_FAST_NS_PRODUCTS=sgemm. */
const char *oc_fast_bf16_matmul_native(void);
/* c (m x n, binary32) = a (m x kdim) b (kdim x n), a and b bfloat16 bits; s*: the element
 * strides of rows and columns. OC_ERR_INTERNAL when not native or oneDNN fails. */
oc_status oc_fast_bf16_matmul(size_t m, size_t n, size_t kdim, const uint16_t *a,
                              const size_t sa[2], const uint16_t *b, const size_t sb[2], float *c,
                              const size_t sc[2]);

#endif
