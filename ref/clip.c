/* Global-norm gradient clipping reference (spec/clip.md): Megatron's get_grad_norm_fp32 +
 * clip_grad_by_total_norm_fp32 over per-rank views with its deduplication filters, and
 * torch.nn.utils.clip_grad_norm_. Scalar C11, no allocation, no I/O, no globals.
 *
 * Exact-class reference (CLIP-TOL-1): squares of binary32 values are exact in binary64 and the
 * sum of the counted squares is accumulated with Neumaier's compensated summation, so the sum is
 * within a few binary64 ulps of exact (no overflow: a square is below 2^256); the norm, the
 * coefficient and each product are evaluated in binary64 and rounded once to binary32.
 */
#include <float.h>
#include <math.h>
#include <string.h>
#include "optcert/clip.h"

static const char *const profile_names[OC_CLIP_PROFILE_COUNT] = {"megatron", "torch"};

/* The contracts of the functions clip.h declares are there; this one stays here: it needs
 * valid_read_string (<string.h>, which clip.h does not include). */
oc_status oc_clip_profile_parse(const char *name, oc_clip_profile *out)
{
    if (name == NULL || out == NULL)
        return OC_ERR_NULL_POINTER;
    /* The names are valid strings: literals of 8 and 5 characters (-wp-literals). */
    //@ assert name_0_len: \valid_read(profile_names[0] + (0 .. 8)) && profile_names[0][8] == '\0';
    //@ assert name_0_str: valid_read_string(profile_names[0]);
    //@ assert name_1_len: \valid_read(profile_names[1] + (0 .. 5)) && profile_names[1][5] == '\0';
    //@ assert name_1_str: valid_read_string(profile_names[1]);
    /*@ loop invariant 0 <= i <= OC_CLIP_PROFILE_COUNT;
        loop assigns i;
        loop variant OC_CLIP_PROFILE_COUNT - i;
    */
    for (int i = 0; i < OC_CLIP_PROFILE_COUNT; i++)
        if (strcmp(name, profile_names[i]) == 0) {
            *out = (oc_clip_profile)i;
            return OC_OK;
        }
    return OC_ERR_BAD_PROFILE;
}

/*@ assigns \result \from x, size;
    ensures \result != 0 <==> 0 <= x < size;
*/
static int in_range(int32_t x, int32_t size) { return x >= 0 && x < size; }

/* CLIP-CFG-1, CLIP-VIEW-1, and CLIP-FINITE-1 if `finite`. Comparisons are written so that NaN
 * fails them. */
/*@ requires c == \null || \valid_read(c);
    requires views_readable(views, nviews) && grads_readable(views, nviews);
    assigns \nothing;
    ensures \result == OC_OK ==> c != \null && views_checked(views, nviews);
*/
static oc_status check(const oc_clip_config *c, size_t nviews, const oc_clip_view *views,
                       int finite)
{
    if (c == NULL || (nviews > 0 && views == NULL))
        return OC_ERR_NULL_POINTER;
    if ((unsigned)c->profile >= OC_CLIP_PROFILE_COUNT || !(fabs(c->max_norm) <= DBL_MAX) ||
        (c->inf_norm != 0 && c->inf_norm != 1) || !(c->skip_threshold > 0) ||
        c->tp_size < 1 || c->pp_size < 1 || c->dp_size < 1)
        return OC_ERR_BAD_HPARAM;
    /*@ loop invariant 0 <= i <= nviews;
        loop invariant views_checked(views, i);
        loop assigns i;
        loop variant nviews - i;
    */
    for (size_t i = 0; i < nviews; i++) {
        const oc_clip_view *v = &views[i];
        if (!in_range(v->tp_rank, c->tp_size) || !in_range(v->pp_stage, c->pp_size) ||
            !in_range(v->dp_rank, c->dp_size) || !in_range(v->optimizer, OC_CLIP_MAX_OPTIMIZERS))
            return OC_ERR_BAD_HPARAM;
        if (v->length > 0 && v->grad == NULL)
            return OC_ERR_NULL_POINTER;
        /*@ loop invariant 0 <= j <= v->length;
            loop assigns j;
            loop variant v->length - j;
        */
        for (size_t j = 0; finite && j < v->length; j++)
            if (!(fabsf(v->grad[j]) <= FLT_MAX)) /* CLIP-FINITE-1: the inf/NaN check comes first */
                return OC_ERR_BAD_HPARAM;
    }
    return OC_OK;
}

oc_status oc_clip_check(const oc_clip_config *c, size_t nviews, const oc_clip_view *views)
{
    return check(c, nviews, views, 1);
}

/* CLIP-DEDUP-SHARED-1, CLIP-DEDUP-TP-1, CLIP-DEDUP-DP-1. */
/*@ requires \valid_read(c) && \valid_read(v);
    assigns \nothing;
*/
static int counted(const oc_clip_config *c, const oc_clip_view *v)
{
    if (v->shared)
        return 0;
    if (!v->tensor_parallel && v->tp_rank != 0)
        return 0;
    if (!c->distributed)
        return v->dp_rank == 0;
    return 1;
}

int oc_clip_view_counted(const oc_clip_config *c, const oc_clip_view *v)
{
    return c != NULL && v != NULL && counted(c, v);
}

/* A compensated sum (Neumaier): value + correction. */
typedef struct clip_sum {
    double s, e;
} clip_sum;

/*@ requires \valid(a);
    assigns *a;
*/
static void sum_add(clip_sum *a, double x)
{
    double s = a->s, e = a->e, t = s + x;
    e += fabs(s) >= fabs(x) ? (s - t) + x : (x - t) + s;
    *a = (clip_sum){t, e};
}

/* CLIP-NORM-1 (2-norm) or CLIP-NORM-INF-1 (max |g|) over the counted elements of every
 * sub-optimizer (CLIP-CHAIN-1); NaN if any counted element is NaN, else +inf if one is infinite
 * (STEP-NONFINITE-1). */
double oc_clip_norm(const oc_clip_config *c, size_t nviews, const oc_clip_view *views)
{
    clip_sum sum = {0, 0};
    double max = 0, nonfinite = 0; /* the sum of the |g| that are not finite: inf or NaN */
    /*@ loop invariant 0 <= i <= nviews;
        loop assigns i, sum, max, nonfinite;
        loop variant nviews - i;
    */
    for (size_t i = 0; i < nviews; i++) {
        const oc_clip_view *v = &views[i];
        if (!counted(c, v))
            continue;
        const size_t len = v->length;
        const float *grad = v->grad;
        /*@ loop invariant 0 <= j <= len;
            loop assigns j, sum, max, nonfinite;
            loop variant len - j;
        */
        for (size_t j = 0; j < len; j++) {
            double g = grad[j];
            if (!(fabs(g) <= DBL_MAX))
                nonfinite += fabs(g);
            else if (c->inf_norm)
                max = fmax(max, fabs(g));
            else
                sum_add(&sum, g * g);                       /* exact square */
        }
    }
    if (nonfinite != 0)
        return nonfinite;
    return c->inf_norm ? max : sqrt(fmax(sum.s + sum.e, 0.0)); /* the sum is >= 0 */
}

/* CLIP-COEF-1: megatron multiplies by the coefficient only if it is < 1, torch by it clamped
 * at 1: the same factor, 1 for none. */
double oc_clip_coefficient(const oc_clip_config *c, double norm)
{
    double coeff = c->max_norm / (norm + OC_CLIP_EPS);
    return coeff < 1.0 ? coeff : 1.0;
}

/* x rounded to binary32, +-inf past its range (IEEE; a plain conversion would be undefined). */
/*@ assigns \nothing; */
static float to_f32(double x)
{
    if (fabs(x) >= 0x1.ffffffp+127)
        return x > 0 ? HUGE_VALF : -HUGE_VALF;
    return (float)x;
}

/* grad[0 .. n-1] times the factor, each product rounded once to binary32 (CLIP-TOL-1). */
/*@ requires \valid(grad + (0 .. n - 1));
    assigns grad[0 .. n - 1];
*/
static void scale_grad(size_t n, float *grad, double factor)
{
    /*@ loop invariant 0 <= j <= n;
        loop assigns j, grad[0 .. n - 1];
        loop variant n - j;
    */
    for (size_t j = 0; j < n; j++)
        grad[j] = to_f32(grad[j] * factor);
}

/* Every view's gradient times the factor of its sub-optimizer. */
/*@ requires views_readable(views, nviews) && grads_writable(views, nviews);
    requires views_checked(views, nviews);
    requires \valid_read(factor + (0 .. OC_CLIP_MAX_OPTIMIZERS - 1));
    assigns { views[i].grad[j] | integer i, j; 0 <= i < nviews && 0 <= j < views[i].length };
*/
static void scale_views(size_t nviews, oc_clip_view *views, const double *factor)
{
    /*@ loop invariant 0 <= i <= nviews;
        loop assigns i, { views[k].grad[j] | integer k, j; 0 <= k < nviews && 0 <= j < views[k].length };
        loop variant nviews - i;
    */
    for (size_t i = 0; i < nviews; i++)
        scale_grad(views[i].length, views[i].grad, factor[views[i].optimizer]);
}

/* CLIP-CHAIN-1: every sub-optimizer's factor the same. */
/*@ requires \valid(factor + (0 .. OC_CLIP_MAX_OPTIMIZERS - 1));
    assigns factor[0 .. OC_CLIP_MAX_OPTIMIZERS - 1];
*/
static void same_factor(double *factor, double coeff)
{
    /*@ loop invariant 0 <= o <= OC_CLIP_MAX_OPTIMIZERS;
        loop assigns o, factor[0 .. OC_CLIP_MAX_OPTIMIZERS - 1];
        loop variant OC_CLIP_MAX_OPTIMIZERS - o;
    */
    for (int o = 0; o < OC_CLIP_MAX_OPTIMIZERS; o++)
        factor[o] = coeff;
}

void oc_clip_apply(const oc_clip_config *c, size_t nviews, oc_clip_view *views, double norm,
                   const double factor[OC_CLIP_MAX_OPTIMIZERS], float *total_norm, int *skipped)
{
    *total_norm = to_f32(norm);
    /* CLIP-DISABLE-1: megatron with max_norm <= 0 reports the norm and leaves the gradients */
    if (c->profile == OC_CLIP_TORCH || c->max_norm > 0)
        scale_views(nviews, views, factor);
    /* CLIP-SKIP-1: checked after the clipping (also when it is disabled), as
     * ChainedOptimizer.step does */
    *skipped = c->profile == OC_CLIP_MEGATRON && norm > c->skip_threshold;
}

/* CLIP-ERR-1: checks everything first; on error nothing is written. Every norm is computed
 * before any gradient changes. */
oc_status oc_ref_clip_step(const oc_clip_config *c, size_t nviews, oc_clip_view *views,
                           float *total_norm, int *skipped)
{
    oc_status st;
    if (total_norm == NULL || skipped == NULL)
        return OC_ERR_NULL_POINTER;
    if ((st = check(c, nviews, views, 1)) != OC_OK)
        return st;
    double factor[OC_CLIP_MAX_OPTIMIZERS];
    double norm = oc_clip_norm(c, nviews, views);
    same_factor(factor, oc_clip_coefficient(c, norm));
    oc_clip_apply(c, nviews, views, norm, factor, total_norm, skipped);
    return OC_OK;
}

oc_status oc_ref_clip_chained_factors(const oc_clip_config *c,
                                      const double max_norm[OC_CLIP_MAX_OPTIMIZERS], size_t nviews,
                                      const oc_clip_view *views, float *total_norm,
                                      double factor[OC_CLIP_MAX_OPTIMIZERS])
{
    oc_status st;
    if (total_norm == NULL || factor == NULL || max_norm == NULL)
        return OC_ERR_NULL_POINTER;
    if (c != NULL && c->profile != OC_CLIP_MEGATRON)
        return OC_ERR_BAD_PROFILE;
    if ((st = check(c, nviews, views, 0)) != OC_OK)
        return st;
    /*@ loop invariant 0 <= o <= OC_CLIP_MAX_OPTIMIZERS;
        loop assigns o;
        loop variant OC_CLIP_MAX_OPTIMIZERS - o;
    */
    for (int o = 0; o < OC_CLIP_MAX_OPTIMIZERS; o++)
        if (!(fabs(max_norm[o]) <= DBL_MAX))                      /* CLIP-CFG-1 */
            return OC_ERR_BAD_HPARAM;
    const double norm = oc_clip_norm(c, nviews, views);
    /* CLIP-DISABLE-1 per sub-optimizer: factor 1 where its max_norm <= 0 (STEP-CLIP-2); the
     * outputs are written after every read of the inputs */
    double coeff[OC_CLIP_MAX_OPTIMIZERS];
    /*@ loop invariant 0 <= o <= OC_CLIP_MAX_OPTIMIZERS;
        loop assigns o, coeff[0 .. OC_CLIP_MAX_OPTIMIZERS - 1];
        loop variant OC_CLIP_MAX_OPTIMIZERS - o;
    */
    for (int o = 0; o < OC_CLIP_MAX_OPTIMIZERS; o++) {
        oc_clip_config own = *c;
        own.max_norm = max_norm[o];
        coeff[o] = max_norm[o] > 0 ? oc_clip_coefficient(&own, norm) : 1.0;
    }
    *total_norm = to_f32(norm);
    /*@ loop invariant 0 <= o <= OC_CLIP_MAX_OPTIMIZERS;
        loop assigns o, factor[0 .. OC_CLIP_MAX_OPTIMIZERS - 1];
        loop variant OC_CLIP_MAX_OPTIMIZERS - o;
    */
    for (int o = 0; o < OC_CLIP_MAX_OPTIMIZERS; o++)
        factor[o] = coeff[o];
    return OC_OK;
}

oc_status oc_ref_clip_scale(size_t n, float *grad, double factor)
{
    if (n > 0 && grad == NULL)
        return OC_ERR_NULL_POINTER;
    if (!(factor >= 0.0 && factor <= 1.0))                         /* CLIP-COEF-1 */
        return OC_ERR_BAD_HPARAM;
    scale_grad(n, grad, factor);
    return OC_OK;
}
