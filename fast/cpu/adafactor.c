/* Adafactor on the fast CPU backend (spec/fast.md FAST-ADAFACTOR-1, spec/adafactor.md): every
 * quantity in binary32, as the libraries compute it on fp32 tensors (class fp32,
 * ADAFACTOR-TOL-2): single-precision powf and sqrtf, sums accumulated in binary32, the
 * statistics updated in place and V^ formed from them. The checks and the factoring decision
 * are the reference's (ADAFACTOR-HP-1, ADAFACTOR-FACT-1). */
#include <math.h>
#include <stdlib.h>
#include "optcert/buffers.h"
#include "optcert/fast.h"
#include "../common/fast_families.h"

static float mean_of_squares(size_t n, size_t stride, const float *x, float eps1)
{
    float sum = 0.0f;
    for (size_t i = 0; i < n; i++)
        sum += x[i * stride] * x[i * stride] + eps1;
    return sum / (float)n;
}

static float mean(size_t n, const float *x)
{
    float sum = 0.0f;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    return sum / (float)n;
}

/* ADAFACTOR-STEP-1 in binary32. */
static float step_size(const oc_adafactor_hparams *hp, int64_t step, float rms_p)
{
    float rho = (float)hp->lr;
    if (hp->relative_step) {
        const float cap = hp->warmup_init                           ? 1e-6f * (float)step
                          : hp->profile == OC_ADAFACTOR_TRANSFORMERS ? 1e-2f
                                                                      : (float)hp->lr;
        rho = fminf(cap, 1.0f / sqrtf((float)step));
    }
    return hp->scale_parameter ? fmaxf((float)hp->eps2, rms_p) * rho : rho;
}

/* ADAFACTOR-V-1, ADAFACTOR-FACTOR-1, ADAFACTOR-EPS-1: the statistics in place, then U in u. */
static void scaled_gradient(const oc_adafactor_hparams *hp, oc_adafactor_shape sh, int factored,
                            float beta2, const float *g, oc_adafactor_state *s, float *u)
{
    const int torch = hp->profile == OC_ADAFACTOR_TORCH;
    const float eps1 = (float)hp->eps1, add = torch ? 0.0f : eps1, floor2 = eps1 * eps1;
    const size_t n = sh.rows * sh.cols;
    if (!factored) {
        for (size_t i = 0; i < n; i++) {
            s->v[i] = beta2 * s->v[i] + (1.0f - beta2) * (g[i] * g[i] + add);
            const float v = torch ? fmaxf(s->v[i], floor2) : s->v[i];
            u[i] = g[i] / sqrtf(v);
        }
        return;
    }
    for (size_t r = 0; r < sh.rows; r++)
        s->row[r] = beta2 * s->row[r] +
                    (1.0f - beta2) * mean_of_squares(sh.cols, 1, g + r * sh.cols, add);
    for (size_t c = 0; c < sh.cols; c++)
        s->col[c] = beta2 * s->col[c] + (1.0f - beta2) * mean_of_squares(sh.rows, sh.cols, g + c, add);
    float norm = hp->profile == OC_ADAFACTOR_OPTAX && sh.rows > sh.cols ? mean(sh.cols, s->col)
                                                                        : mean(sh.rows, s->row);
    if (torch)
        norm = fmaxf(norm, eps1);
    for (size_t r = 0; r < sh.rows; r++)
        for (size_t c = 0; c < sh.cols; c++) {
            float vhat = s->row[r] * s->col[c] / norm;
            if (torch)
                vhat = fmaxf(vhat, floor2);
            u[r * sh.cols + c] = g[r * sh.cols + c] / sqrtf(vhat);
        }
}

/* ADAFACTOR-WD-1: the decayed parameter, binary32. */
static float decayed(const oc_adafactor_hparams *hp, float alpha, float p)
{
    const float wd = (float)hp->weight_decay;
    switch (hp->profile) {
    case OC_ADAFACTOR_TORCH:
        return p * (float)(1.0 - hp->lr * hp->weight_decay);
    case OC_ADAFACTOR_TRANSFORMERS:
        return p - wd * alpha * p;
    case OC_ADAFACTOR_OPTAX:
        return p - wd * p;
    default:
        return p;
    }
}

oc_status oc_fast_adafactor_step(const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                                 int64_t step, oc_adafactor_state *s, const float *g)
{
    oc_status st = oc_adafactor_check(hp, sh, step);
    if (st != OC_OK)
        return st;
    const int factored = oc_adafactor_factored(hp, sh);
    const size_t n = sh.rows * sh.cols;
    if ((st = oc_buffer_check(s->p, n, sizeof(float))) ||
        (st = oc_buffer_check(g, n, sizeof(float))) ||
        (hp->first_moment && (st = oc_buffer_check(s->m, n, sizeof(float)))) ||
        (!factored && (st = oc_buffer_check(s->v, n, sizeof(float)))) ||
        (factored && ((st = oc_buffer_check(s->row, sh.rows, sizeof(float))) ||
                      (st = oc_buffer_check(s->col, sh.cols, sizeof(float))))))
        return st;
    float *u = malloc(n * sizeof *u);
    if (!u)
        return OC_ERR_INTERNAL;
    float sum = 0.0f;
    for (size_t i = 0; i < n; i++)
        sum += s->p[i] * s->p[i];
    const float alpha = step_size(hp, step, sqrtf(sum / (float)n));
    const float beta2 = 1.0f - powf((float)step, -(float)hp->decay_rate);
    scaled_gradient(hp, sh, factored, beta2, g, s, u);
    sum = 0.0f;
    for (size_t i = 0; i < n; i++)
        sum += u[i] * u[i];
    const float rms_u = sqrtf(sum / (float)n), d = (float)hp->clip_threshold;
    const float coeff = (hp->maximize ? -alpha : alpha) / (d == 0.0f ? 1.0f : fmaxf(1.0f, rms_u / d));
    const float b1 = (float)hp->beta1;
    for (size_t i = 0; i < n; i++) {
        float update = coeff * u[i];
        if (hp->first_moment)
            update = s->m[i] = b1 * s->m[i] + (1.0f - b1) * update;
        s->p[i] = decayed(hp, alpha, s->p[i]) - update;
    }
    free(u);
    return OC_OK;
}

/* Plugin ABI v3 (VEC-ABI-1): the adafactor-* families' entry point. */
static oc_status adafactor_entry(void *ctx, const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                                 int64_t step, oc_adafactor_state *s, const float *g)
{
    (void)ctx;
    return oc_fast_adafactor_step(hp, sh, step, s, g);
}

const oc_fast_algorithm oc_fast_cpu_adafactor = {
    .algorithm = "adafactor",
    .entry = (oc_entry_point)adafactor_entry,
};
