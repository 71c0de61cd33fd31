/* Per-element fp32 math of the fast backends (spec/fast.md), shared by the CPU kernels and the
 * CUDA kernels: plain C that nvcc compiles as __host__ __device__ (OC_HD).
 *
 * Each step is written with binary32 operations only, in one fixed order, without FMA
 * contraction (the backends compile it with -ffp-contract=off / --fmad=false). IEEE binary32
 * +, -, *, / and sqrt are correctly rounded, so every backend and every vector width that
 * evaluates these functions stores bit-identical results (FAST-DET-1). The per-step scalars
 * are computed once on the host in binary64 and rounded to binary32
 * (fast/common/step_prep.c, for both backends); the error model of the `fp32` class
 * (spec/adam.md §4.2, spec/sgd.md, spec/lion.md §4) covers both.
 *
 * The gradient arrives loss-scaled and unclipped: g = (g_stored * inv_scale) * clip_coeff,
 * two roundings, as Megatron's unscale-in-place followed by clip-in-place (FAST-GRAD-1); with
 * inv_scale = clip_coeff = 1 both products are exact. */
#ifndef OPTCERT_FAST_ELEMENTWISE_H
#define OPTCERT_FAST_ELEMENTWISE_H

#include <stdint.h>

#if defined(__CUDACC__)
#define OC_HD __host__ __device__ __forceinline__
#else
#define OC_HD static inline
#endif

/* Adam family step scalars (ADAM-* rules), binary32. */
typedef struct oc_fast_adam_coef {
    float b1, omb1;      /* beta1, 1 - beta1 */
    float b2, omb2;      /* beta2, 1 - beta2 */
    float l2;            /* weight decay added to g (ADAM-WD-1); 0 when decoupled */
    float decay;         /* decoupled decay factor lr*wd (paper: eta*wd)  ADAM-WD-2 */
    float step;          /* lr/bc1 (paper: eta*lr/bc1); keras: lr*sqrt(bc2)/bc1 */
    float inv_bc2;       /* 1/bc2; keras: 1 (bc2 folded into step)  ADAM-BC-1 */
    float eps, eps_root; /* ADAM-EPS-1, ADAM-PROF-OPTAX */
    float neg;           /* -1 with maximize (ADAM-MAX-1), else +1 */
} oc_fast_adam_coef;

/* SGD step scalars (SGD-* rules). */
typedef struct oc_fast_sgd_coef {
    float lr, mom;       /* lr, mu */
    float keep;          /* torch: 1 - dampening; ema: mu (weight of the old buffer) */
    float take;          /* ema: 1 - mu (weight of g); torch: unused */
    float l2;            /* torch: weight decay into g (SGD-WD-1); ema: 0 */
    float decay;         /* ema: lr*wd (SGD-WD-2); torch: 0 */
    float neg;           /* -1 with maximize (SGD-MAX-1) */
} oc_fast_sgd_coef;

/* Lion step scalars (LION-* rules). */
typedef struct oc_fast_lion_coef {
    float lr, b1, omb1, b2, omb2, decay; /* decay = lr*wd (LION-WD-1) */
} oc_fast_lion_coef;

/* FAST-GRAD-1: the gradient the update sees. */
OC_HD float oc_fast_grad(float g, float inv_scale, float clip) { return (g * inv_scale) * clip; }

/* fmax of the reference (ADAM-AMS-1): a NaN candidate keeps the old maximum. */
OC_HD float oc_fast_fmax(float old, float cand) { return (old >= cand || cand != cand) ? old : cand; }

/* One Adam element (ADAM-M-1, -V-1, -AMS-1, -DIR-1, -UPD-1). `amsgrad` is a compile-time
 * constant at every call site. (1-b2)*g is formed before the second *g so that g*g cannot
 * overflow where the stored v does not (ADAM-STORE-2). */
OC_HD void oc_fast_adam_element(const oc_fast_adam_coef *c, int amsgrad, float *p, float *m,
                                float *v, float *vmax, float grad)
{
    float p0 = *p;
    float g = c->neg * grad + c->l2 * p0;
    float m1 = c->b1 * *m + c->omb1 * g;
    float v1 = c->b2 * *v + (c->omb2 * g) * g;
    *m = m1;
    *v = v1;
    float vv = v1;
    if (amsgrad) {
        vv = oc_fast_fmax(*vmax, v1);
        *vmax = vv;
    }
    float denom = __builtin_sqrtf(vv * c->inv_bc2 + c->eps_root) + c->eps;
    *p = (p0 - c->decay * p0) - c->step * (m1 / denom);
}

/* One SGD element, torch profile (SGD-PROF-TORCH, -BUF-1, -NEST-1, -UPD-1). */
OC_HD void oc_fast_sgd_torch_element(const oc_fast_sgd_coef *c, int momentum, int first,
                                     int nesterov, float *p, float *buf, float grad)
{
    float p0 = *p;
    float ge = c->neg * grad + c->l2 * p0;
    float dir = ge;
    if (momentum) {
        float b = first ? ge : c->mom * *buf + c->keep * ge;
        *buf = b;
        dir = nesterov ? ge + c->mom * b : b;
    }
    *p = p0 - c->lr * dir;
}

/* One SGD element, EMA profile (SGD-PROF-EMA, -BUF-2, -NEST-2, -WD-2). */
OC_HD void oc_fast_sgd_ema_element(const oc_fast_sgd_coef *c, int momentum, int nesterov, float *p,
                                   float *buf, float grad)
{
    float p0 = *p;
    float dir = grad;
    if (momentum) {
        float b = c->keep * *buf + c->take * grad;
        *buf = b;
        dir = nesterov ? c->take * grad + c->keep * b : b;
    }
    *p = (p0 - c->decay * p0) - c->lr * dir;
}

/* LION-SIGN-1: sign(0) = 0, sign(NaN) = 0 (torch.sign). */
OC_HD float oc_fast_sign(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : 0.0f; }

/* One Lion element (LION-DIR-1, -M-1, -UPD-1): the sign uses the old momentum. */
OC_HD void oc_fast_lion_element(const oc_fast_lion_coef *c, float *p, float *m, float grad)
{
    float p0 = *p, m0 = *m;
    float s = oc_fast_sign(c->b1 * m0 + c->omb1 * grad);
    *m = c->b2 * m0 + c->omb2 * grad;
    *p = (p0 - c->decay * p0) - c->lr * s;
}

/* The bits of a binary32 value. */
OC_HD uint32_t oc_fast_f32_bits(float x)
{
    union { float f; uint32_t u; } b;
    b.f = x;
    return b.u;
}

/* a if c, else b, without a branch (c is 0 or 1). */
OC_HD uint32_t oc_fast_select(uint32_t c, uint32_t a, uint32_t b) { return b ^ ((a ^ b) & (0u - c)); }

/* FAST-MODEL-1: binary32 -> bfloat16, round to nearest even; NaN stays a (quiet) NaN. The
 * choice is made on 32-bit values and the result shifted once, so that a vectorized loop
 * narrows one vector instead of both candidates and the mask. */
OC_HD uint16_t oc_fast_to_bf16(float x)
{
    uint32_t u = oc_fast_f32_bits(x);
    uint32_t r = u + 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(oc_fast_select(x != x, u | 0x400000u, r) >> 16); /* x != x: NaN */
}

/* FAST-MODEL-1: binary32 -> IEEE binary16, round to nearest even, overflow to infinity,
 * gradual underflow; NaN stays a (quiet) NaN. Branch-free so that it vectorizes. */
OC_HD uint16_t oc_fast_to_fp16(float x)
{
    uint32_t u = oc_fast_f32_bits(x);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t a = u & 0x7fffffffu;
    /* normal range of binary16 (|x| >= 2^-14): rebias the exponent, round on bit 13 */
    uint32_t nrm = (a - 0x38000000u + 0xfffu + ((a >> 13) & 1u)) >> 13;
    /* subnormal range (|x| < 2^-14): the significand with its hidden bit counts units of
     * 2^(e - 150); one binary16 unit is 2^-24, so shift right by 126 - e (>= 14), rounding
     * to nearest even; shifts of 25 and more give 0 (and shifts outside 14..25 belong to
     * inputs this path does not serve: clamped so that every shift is defined) */
    uint32_t sh = 126u - (a >> 23);
    uint32_t shc = oc_fast_select(sh - 14u > 11u, 25u, sh);
    uint32_t mant = (a & 0x7fffffu) | 0x800000u;
    uint32_t sub = (mant + ((1u << (shc - 1u)) - 1u) + ((mant >> shc) & 1u)) >> shc;
    uint32_t r = oc_fast_select(a < 0x38800000u, sub, nrm);
    r = oc_fast_select(a >= 0x477ff000u, 0x7c00u, r);                       /* >= 65520: inf */
    r = oc_fast_select(a > 0x7f800000u, 0x7e00u | ((a >> 13) & 0x3ffu), r); /* NaN */
    return (uint16_t)(sign | r);
}

#endif
