/* Clipping mutants (spec/clip.md §5): a deduplication filter dropped is the reference's step
 * over views (or a configuration) that the filter does not see; the coefficient mistakes are
 * the reference's norm and end of step (oc_clip_norm, oc_clip_apply) with other factors. */
#include <stdlib.h>
#include "clip.h"

static const char *const names[OC_CLIP_MUTANT_COUNT] = {
    "correct",
    "tp-duplicate-on-every-rank",
    "shared-counted-twice",
    "distributed-mp-group-only",
    "eps-omitted",
    "always-scale",
    "per-optimizer-norm",
};

static const char *const descriptions[OC_CLIP_MUTANT_COUNT] = {
    "the reference itself",
    "parameters replicated over TP (layer norms, row-parallel biases) counted on every TP rank",
    "the shared (tied) embedding counted on the first and the last pipeline stage",
    "distributed optimizer: norm reduced over the model-parallel group only (one DP shard)",
    "clip coefficient max_norm / norm, without the 1e-6",
    "Megatron: gradients multiplied by the coefficient even when it is >= 1",
    "chained optimizer: each sub-optimizer clipped with the norm of its own gradients",
};

const char *oc_clip_mutant_name(oc_clip_mutant mu)
{
    return (unsigned)mu < OC_CLIP_MUTANT_COUNT ? names[mu] : NULL;
}

const char *oc_clip_mutant_description(oc_clip_mutant mu)
{
    return (unsigned)mu < OC_CLIP_MUTANT_COUNT ? descriptions[mu] : NULL;
}

/* CLIP-DEDUP-TP-1 or CLIP-DEDUP-SHARED-1 dropped: the reference's step over copies of the
 * views, every one split over TP, or none shared (the gradients are the caller's). */
static oc_status filter_dropped(oc_clip_mutant mu, const oc_clip_config *c, size_t nviews,
                                const oc_clip_view *views, float *total_norm, int *skipped)
{
    oc_clip_view *seen = malloc((nviews ? nviews : 1) * sizeof *seen);
    if (!seen)
        return OC_ERR_INTERNAL;
    for (size_t i = 0; i < nviews; i++) {
        seen[i] = views[i];
        if (mu == OC_CLIP_MUT_TP_DUPLICATE_ON_EVERY_RANK)
            seen[i].tensor_parallel = 1;
        else
            seen[i].shared = 0;
    }
    oc_status st = oc_ref_clip_step(c, nviews, seen, total_norm, skipped);
    free(seen);
    return st;
}

/* CLIP-CHAIN-1 mistaken: each sub-optimizer's factor from the norm of its own views. */
static oc_status own_factors(const oc_clip_config *c, size_t nviews, const oc_clip_view *views,
                             double factor[OC_CLIP_MAX_OPTIMIZERS])
{
    oc_clip_view *own = malloc((nviews ? nviews : 1) * sizeof *own);
    if (!own)
        return OC_ERR_INTERNAL;
    for (int o = 0; o < OC_CLIP_MAX_OPTIMIZERS; o++) {
        size_t n = 0;
        for (size_t i = 0; i < nviews; i++)
            if (views[i].optimizer == o)
                own[n++] = views[i];
        factor[o] = oc_clip_coefficient(c, oc_clip_norm(c, n, own));
    }
    free(own);
    return OC_OK;
}

/* CLIP-COEF-1 mistaken: the coefficient without the 1e-6, or megatron's applied when >= 1. */
static double coefficient(oc_clip_mutant mu, const oc_clip_config *c, double norm)
{
    if (mu == OC_CLIP_MUT_EPS_OMITTED) {
        double coeff = c->max_norm / norm;
        return coeff < 1.0 ? coeff : 1.0;
    }
    if (mu == OC_CLIP_MUT_ALWAYS_SCALE && c->profile == OC_CLIP_MEGATRON)
        return c->max_norm / (norm + OC_CLIP_EPS);
    return oc_clip_coefficient(c, norm);
}

oc_status oc_clip_mutant_step(oc_clip_mutant mu, const oc_clip_config *c, size_t nviews,
                              oc_clip_view *views, float *total_norm, int *skipped)
{
    if ((unsigned)mu >= OC_CLIP_MUTANT_COUNT)
        return OC_ERR_BAD_PROFILE;
    if (mu == OC_CLIP_CORRECT || total_norm == NULL || skipped == NULL ||
        oc_clip_check(c, nviews, views) != OC_OK)
        return oc_ref_clip_step(c, nviews, views, total_norm, skipped);
    if (mu == OC_CLIP_MUT_TP_DUPLICATE_ON_EVERY_RANK || mu == OC_CLIP_MUT_SHARED_COUNTED_TWICE)
        return filter_dropped(mu, c, nviews, views, total_norm, skipped);
    if (mu == OC_CLIP_MUT_DISTRIBUTED_MP_GROUP_ONLY) { /* CLIP-DEDUP-DP-1 mistaken */
        oc_clip_config replicated = *c;
        replicated.distributed = 0;
        return oc_ref_clip_step(&replicated, nviews, views, total_norm, skipped);
    }
    double factor[OC_CLIP_MAX_OPTIMIZERS];
    const double norm = oc_clip_norm(c, nviews, views);
    if (mu == OC_CLIP_MUT_PER_OPTIMIZER_NORM) {
        oc_status st = own_factors(c, nviews, views, factor);
        if (st != OC_OK)
            return st;
    } else {
        for (int o = 0; o < OC_CLIP_MAX_OPTIMIZERS; o++)
            factor[o] = coefficient(mu, c, norm);
    }
    oc_clip_apply(c, nviews, views, norm, factor, total_norm, skipped);
    return OC_OK;
}
