/* The clipping mutant catalogue (spec/clip.md §5): the reference's clipping step with one
 * catalogued mistake, built from its pieces (include/optcert/clip.h). They live beside the
 * harness, not in ref/ (issue 16 item 3): the reference API has no mutant parameter. */
#ifndef OPTCERT_MUTANTS_CLIP_H
#define OPTCERT_MUTANTS_CLIP_H

#include "optcert/clip.h"

typedef enum oc_clip_mutant {
    OC_CLIP_CORRECT = 0,
    OC_CLIP_MUT_TP_DUPLICATE_ON_EVERY_RANK, /* TP-replicated parameters counted on every TP rank */
    OC_CLIP_MUT_SHARED_COUNTED_TWICE,       /* the shared (tied) embedding counted on both stages */
    OC_CLIP_MUT_DISTRIBUTED_MP_GROUP_ONLY,  /* ZeRO-1 norm reduced over the model-parallel group only */
    OC_CLIP_MUT_EPS_OMITTED,                /* coeff = max_norm / norm */
    OC_CLIP_MUT_ALWAYS_SCALE,               /* gradients multiplied even when coeff >= 1 */
    OC_CLIP_MUT_PER_OPTIMIZER_NORM,         /* each sub-optimizer clipped with its own norm */
    OC_CLIP_MUTANT_COUNT
} oc_clip_mutant;

/* Stable short name and one-line description of a mutant (NULL if out of range). */
const char *oc_clip_mutant_name(oc_clip_mutant mu);
const char *oc_clip_mutant_description(oc_clip_mutant mu);

/* oc_ref_clip_step with mistake mu (OC_CLIP_CORRECT: the reference itself); an unknown mu is
 * OC_ERR_BAD_PROFILE; on an input the reference rejects, the reference's status and nothing
 * written. */
oc_status oc_clip_mutant_step(oc_clip_mutant mu, const oc_clip_config *c, size_t nviews,
                              oc_clip_view *views, float *total_norm, int *skipped);

#endif
