/* Global-norm clipping in the fast CPU backend (spec/fast.md FAST-CLIP-1, spec/clip.md): the
 * counted views (the deduplication rules of oc_clip_view_counted) summed by the norm pass of
 * FAST-NORM-1 (binary64 lanes, so LargeValues and ManyTiny neither overflow nor underflow),
 * the coefficient rounded to binary32 as Megatron hands it to its kernel, one binary32
 * product per gradient. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "optcert/fast.h"
#include "internal.h"
#include "../common/fast_families.h"

float oc_fast_to_f32(double x)
{
    return fabs(x) >= 0x1.ffffffp+127 ? (x > 0 ? HUGE_VALF : -HUGE_VALF) : (float)x;
}

/* CLIP-NORM-INF-1: max |g| over the counted views. */
static double max_abs(size_t nt, const oc_fast_tensor *t)
{
    float m = 0.0f;
    for (size_t i = 0; i < nt; i++) {
        const float *g = t[i].grad;
        long long n = (long long)t[i].n;
#pragma omp parallel for reduction(max : m) if (n > OC_FAST_CHUNK)
        for (long long j = 0; j < n; j++)
            m = fabsf(g[j]) > m ? fabsf(g[j]) : m;
    }
    return m;
}

oc_status oc_fast_clip_norm_unscaled(const oc_clip_config *c, size_t nviews,
                                     const oc_clip_view *views, float inv_scale, double *partial)
{
    size_t nt = 0;
    oc_fast_tensor *t = nviews ? malloc(nviews * sizeof *t) : NULL;
    if (nviews && !t)
        return OC_ERR_INTERNAL;
    for (size_t i = 0; i < nviews; i++)
        if (oc_clip_view_counted(c, &views[i]) && views[i].length > 0)
            t[nt++] = (oc_fast_tensor){views[i].length, NULL, views[i].grad, {0}, NULL};
    oc_status st = OC_OK;
    int bad;
    if (c->inf_norm)
        *partial = max_abs(nt, t);
    else
        st = oc_fast_grad_sumsq(nt, t, inv_scale, NULL, partial, &bad);
    free(t);
    return st;
}

oc_status oc_fast_clip_norm(const oc_clip_config *c, size_t nviews, const oc_clip_view *views,
                            double *partial)
{
    return oc_fast_clip_norm_unscaled(c, nviews, views, 1.0f, partial);
}

float oc_fast_clip_coeff(const oc_clip_config *c, double norm)
{
    if (c->profile == OC_CLIP_MEGATRON && !(c->max_norm > 0))
        return 1.0f;                            /* CLIP-DISABLE-1 */
    double coeff = c->max_norm / (norm + 1e-6); /* CLIP-COEF-1 */
    if (c->profile == OC_CLIP_TORCH)
        return oc_fast_to_f32(coeff < 1.0 ? coeff : 1.0);
    return coeff < 1.0 ? oc_fast_to_f32(coeff) : 1.0f;
}

oc_status oc_fast_clip_step(const oc_clip_config *c, size_t nviews, oc_clip_view *views,
                            float *total_norm, int *skipped)
{
    if (total_norm == NULL || skipped == NULL)
        return OC_ERR_NULL_POINTER;
    oc_status st = oc_clip_check(c, nviews, views); /* CLIP-CFG-1, CLIP-VIEW-1, CLIP-FINITE-1 */
    if (st != OC_OK)
        return st;
    double norm;
    if ((st = oc_fast_clip_norm(c, nviews, views, &norm)) != OC_OK)
        return st;
    norm = c->inf_norm ? norm : sqrt(norm);
    /* CLIP-SKIP-1: the threshold is checked whether or not clipping is on */
    int skip = c->profile == OC_CLIP_MEGATRON && norm > c->skip_threshold;
    /* CLIP-DISABLE-1: megatron with max_norm <= 0 reports the norm and does not clip */
    float coeff = oc_fast_clip_coeff(c, norm);
    for (size_t i = 0; coeff != 1.0f && i < nviews; i++) /* CLIP-SKIP-1: clipped even so */
        oc_fast_scale(views[i].grad, views[i].length, coeff);
    *total_norm = oc_fast_to_f32(norm);
    *skipped = skip;
    return OC_OK;
}

/* Plugin ABI v3 (VEC-ABI-1): the clip-* families' entry point. */
static oc_status clip_entry(void *ctx, const oc_clip_config *c, size_t nviews, oc_clip_view *views,
                            float *total_norm, int *skipped)
{
    (void)ctx;
    return oc_fast_clip_step(c, nviews, views, total_norm, skipped);
}

const oc_fast_algorithm oc_fast_cpu_clip = {
    .algorithm = "clip",
    .entry = (oc_entry_point)clip_entry,
};
