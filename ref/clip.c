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

#define CLIP_EPS 1.0e-6   /* CLIP-COEF-1: both libraries add the Python float 1e-6 */
#define CLIP_MAX_OPTIMIZERS 8

static const char *const mutant_names[OC_CLIP_MUTANT_COUNT] = {
    "correct",
    "tp-duplicate-on-every-rank",
    "shared-counted-twice",
    "distributed-mp-group-only",
    "eps-omitted",
    "always-scale",
    "per-optimizer-norm",
};

static const char *const mutant_descriptions[OC_CLIP_MUTANT_COUNT] = {
    "the reference itself",
    "parameters replicated over TP (layer norms, row-parallel biases) counted on every TP rank",
    "the shared (tied) embedding counted on the first and the last pipeline stage",
    "distributed optimizer: norm reduced over the model-parallel group only (one DP shard)",
    "clip coefficient max_norm / norm, without the 1e-6",
    "Megatron: gradients multiplied by the coefficient even when it is >= 1",
    "chained optimizer: each sub-optimizer clipped with the norm of its own gradients",
};

static const char *const profile_names[OC_CLIP_PROFILE_COUNT] = {"megatron", "torch"};

const char *oc_clip_mutant_name(oc_clip_mutant mu)
{
    return (unsigned)mu < OC_CLIP_MUTANT_COUNT ? mutant_names[mu] : NULL;
}

const char *oc_clip_mutant_description(oc_clip_mutant mu)
{
    return (unsigned)mu < OC_CLIP_MUTANT_COUNT ? mutant_descriptions[mu] : NULL;
}

oc_status oc_clip_profile_parse(const char *name, oc_clip_profile *out)
{
    if (name == NULL || out == NULL)
        return OC_ERR_NULL_POINTER;
    for (int i = 0; i < OC_CLIP_PROFILE_COUNT; i++)
        if (strcmp(name, profile_names[i]) == 0) {
            *out = (oc_clip_profile)i;
            return OC_OK;
        }
    return OC_ERR_BAD_PROFILE;
}

static int in_range(int32_t x, int32_t size) { return x >= 0 && x < size; }

/* CLIP-CFG-1, CLIP-VIEW-1, and CLIP-FINITE-1 if `finite`. Comparisons are written so that NaN
 * fails them. */
static oc_status check(const oc_clip_config *c, size_t nviews, const oc_clip_view *views,
                       int finite)
{
    if (c == NULL || (nviews > 0 && views == NULL))
        return OC_ERR_NULL_POINTER;
    if ((unsigned)c->profile >= OC_CLIP_PROFILE_COUNT || !(fabs(c->max_norm) <= DBL_MAX) ||
        (c->inf_norm != 0 && c->inf_norm != 1) || !(c->skip_threshold > 0) ||
        c->tp_size < 1 || c->pp_size < 1 || c->dp_size < 1)
        return OC_ERR_BAD_HPARAM;
    for (size_t i = 0; i < nviews; i++) {
        const oc_clip_view *v = &views[i];
        if (!in_range(v->tp_rank, c->tp_size) || !in_range(v->pp_stage, c->pp_size) ||
            !in_range(v->dp_rank, c->dp_size) || !in_range(v->optimizer, CLIP_MAX_OPTIMIZERS))
            return OC_ERR_BAD_HPARAM;
        if (v->length > 0 && v->grad == NULL)
            return OC_ERR_NULL_POINTER;
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

/* CLIP-DEDUP-SHARED-1, CLIP-DEDUP-TP-1, CLIP-DEDUP-DP-1, with the mutants that drop a filter. */
static int counted(const oc_clip_config *c, const oc_clip_view *v, oc_clip_mutant mu)
{
    if (v->shared && mu != OC_CLIP_MUT_SHARED_COUNTED_TWICE)
        return 0;
    if (!v->tensor_parallel && v->tp_rank != 0 && mu != OC_CLIP_MUT_TP_DUPLICATE_ON_EVERY_RANK)
        return 0;
    if (!c->distributed || mu == OC_CLIP_MUT_DISTRIBUTED_MP_GROUP_ONLY)
        return v->dp_rank == 0;
    return 1;
}

int oc_clip_view_counted(const oc_clip_config *c, const oc_clip_view *v)
{
    return c != NULL && v != NULL && counted(c, v, OC_CLIP_CORRECT);
}

/* A compensated sum (Neumaier): value + correction. */
typedef struct clip_sum {
    double s, e;
} clip_sum;

static void sum_add(clip_sum *a, double x)
{
    double t = a->s + x;
    a->e += fabs(a->s) >= fabs(x) ? (a->s - t) + x : (x - t) + a->s;
    a->s = t;
}

/* The norm of the counted elements of sub-optimizer `opt` (every sub-optimizer if opt < 0):
 * CLIP-NORM-1 (2-norm) or CLIP-NORM-INF-1 (max |g|); NaN if any counted element is NaN, else
 * +inf if one is infinite (STEP-NONFINITE-1). */
static double clip_norm(const oc_clip_config *c, size_t nviews, const oc_clip_view *views,
                        int opt, oc_clip_mutant mu)
{
    clip_sum sum = {0, 0};
    double max = 0, nonfinite = 0; /* the sum of the |g| that are not finite: inf or NaN */
    for (size_t i = 0; i < nviews; i++) {
        const oc_clip_view *v = &views[i];
        if (!counted(c, v, mu) || (opt >= 0 && v->optimizer != opt))
            continue;
        for (size_t j = 0; j < v->length; j++) {
            double g = v->grad[j];
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

/* The factor every gradient is multiplied by (CLIP-COEF-1: megatron's and torch's forms), 1 for none. */
static double clip_factor(const oc_clip_config *c, double norm, oc_clip_mutant mu)
{
    double coeff = c->max_norm / (norm + (mu == OC_CLIP_MUT_EPS_OMITTED ? 0.0 : CLIP_EPS));
    if (c->profile == OC_CLIP_TORCH)
        return coeff < 1.0 ? coeff : 1.0;                   /* clamp(max=1), always applied */
    return coeff < 1.0 || mu == OC_CLIP_MUT_ALWAYS_SCALE ? coeff : 1.0;
}

/* x rounded to binary32, +-inf past its range (IEEE; a plain conversion would be undefined). */
static float to_f32(double x)
{
    if (fabs(x) >= 0x1.ffffffp+127)
        return x > 0 ? HUGE_VALF : -HUGE_VALF;
    return (float)x;
}

/* Every view's gradient times the factor of its sub-optimizer. */
static void scale_views(size_t nviews, oc_clip_view *views, const double *factor)
{
    for (size_t i = 0; i < nviews; i++)
        for (size_t j = 0; j < views[i].length; j++)
            views[i].grad[j] = to_f32(views[i].grad[j] * factor[views[i].optimizer]);
}

/* CLIP-ERR-1: checks everything first; on error nothing is written. `chained`: the chained
 * step's use (no CLIP-FINITE-1, no CLIP-SKIP-1: its caller decides after the clipping). */
static oc_status clip_step(const oc_clip_config *c, size_t nviews, oc_clip_view *views,
                           float *total_norm, int *skipped, oc_clip_mutant mutant, int chained)
{
    oc_status st;
    if (total_norm == NULL || skipped == NULL)
        return OC_ERR_NULL_POINTER;
    if ((unsigned)mutant >= OC_CLIP_MUTANT_COUNT)
        return OC_ERR_BAD_PROFILE;
    if ((st = check(c, nviews, views, !chained)) != OC_OK)
        return st;
    if (c->profile == OC_CLIP_MEGATRON && !(c->max_norm > 0)) {   /* CLIP-DISABLE-1 */
        *total_norm = 0.0f;
        *skipped = 0;
        return OC_OK;
    }
    double norm = clip_norm(c, nviews, views, -1, mutant);        /* CLIP-CHAIN-1 */
    *total_norm = to_f32(norm);
    double factor[CLIP_MAX_OPTIMIZERS]; /* every norm before any gradient changes */
    for (int o = 0; o < CLIP_MAX_OPTIMIZERS; o++)
        factor[o] = clip_factor(c, mutant == OC_CLIP_MUT_PER_OPTIMIZER_NORM
                                       ? clip_norm(c, nviews, views, o, mutant)
                                       : norm, mutant);
    scale_views(nviews, views, factor);
    /* CLIP-SKIP-1: checked after the clipping, as ChainedOptimizer.step does */
    *skipped = !chained && c->profile == OC_CLIP_MEGATRON && norm > c->skip_threshold;
    return OC_OK;
}

oc_status oc_ref_clip_step(const oc_clip_config *c, size_t nviews, oc_clip_view *views,
                           float *total_norm, int *skipped, oc_clip_mutant mutant)
{
    return clip_step(c, nviews, views, total_norm, skipped, mutant, 0);
}

oc_status oc_ref_clip_chained(const oc_clip_config *c, size_t nviews, oc_clip_view *views,
                              float *total_norm, oc_clip_mutant mutant)
{
    int never;
    if (c != NULL && c->profile != OC_CLIP_MEGATRON)
        return OC_ERR_BAD_PROFILE;
    return clip_step(c, nviews, views, total_norm, &never, mutant, 1);
}

oc_status oc_ref_clip_norm(const oc_clip_config *c, size_t nviews, const oc_clip_view *views,
                           float *total_norm)
{
    oc_status st;
    if (total_norm == NULL)
        return OC_ERR_NULL_POINTER;
    if ((st = check(c, nviews, views, 0)) != OC_OK)
        return st;
    *total_norm = to_f32(clip_norm(c, nviews, views, -1, OC_CLIP_CORRECT)); /* CLIP-CHAIN-1 */
    return OC_OK;
}
