/* The CPU kernels of one instruction set: each updates one contiguous range of one tensor.
 * The same source (kernels.inc) is compiled once per instruction set (FAST-ISA-1). */
#ifndef OPTCERT_FAST_CPU_KERNELS_H
#define OPTCERT_FAST_CPU_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include "../common/elementwise.h"

/* How the stored gradient becomes the update's gradient, and where the model copy goes. */
typedef struct oc_fast_range {
    size_t n;
    float *p;
    const float *g;
    float *s0, *s1, *s2; /* state tensors, NULL where unused */
    uint16_t *model;     /* NULL: no copy */
    int model_kind;      /* oc_fast_dtype; OC_FAST_KIND_GRAD_BACK: no copy, the gradient the
                            update used written back over g (FAST-STEP-2) */
    float inv_scale, clip;
    int flag; /* 1: the update reports non-finite gradients; 0: nobody asked, it returns 0 */
} oc_fast_range;

/* Elements per block of the model copy (FAST-NT-1, kernels.inc). */
#define OC_FAST_BLOCK 256

/* The range's model_kind for FAST-STEP-2's fused pass (model must be NULL). */
#define OC_FAST_KIND_GRAD_BACK 3

/* Which SGD variant (compile-time constants inside the kernels). */
typedef struct oc_fast_sgd_kind {
    int ema, momentum, first, nesterov;
} oc_fast_sgd_kind;

/* Each update returns 1 if some gradient it used was NaN or infinite, else 0 (always 0 when
 * the range's flag is 0). */
typedef struct oc_fast_kernels {
    unsigned (*adam)(const oc_fast_adam_coef *c, int amsgrad, const oc_fast_range *r);
    unsigned (*sgd)(const oc_fast_sgd_coef *c, oc_fast_sgd_kind k, const oc_fast_range *r);
    unsigned (*lion)(const oc_fast_lion_coef *c, const oc_fast_range *r);
    /* FAST-NORM-1 for one block: sum of ((float)(g*inv_scale))^2 in binary64, 16 lanes. */
    double (*sumsq)(size_t n, const float *g, float inv_scale);
} oc_fast_kernels;

extern const oc_fast_kernels oc_fast_kernels_portable;
extern const oc_fast_kernels oc_fast_kernels_avx2;
extern const oc_fast_kernels oc_fast_kernels_avx512;

#endif
