/* Lion (Chen et al. 2023), spec/lion.md. */
#ifndef OPTCERT_LION_H
#define OPTCERT_LION_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/status.h"

typedef enum oc_lion_profile {
    OC_LION_TORCH = 0, /* google/automl lion_pytorch, lucidrains lion-pytorch, optax: sign(0) = 0  LION-PROF-TORCH */
    OC_LION_PROFILE_COUNT
} oc_lion_profile;

typedef struct oc_lion_hparams {
    oc_lion_profile profile;
    double lr;           /* >= 0                    LION-HP-1 */
    double beta1, beta2; /* in [0, 1)               LION-HP-1 */
    double weight_decay; /* >= 0, decoupled, lr-scaled: p *= 1 - lr*wd   LION-WD-1 */
} oc_lion_hparams;

typedef enum oc_lion_mutant {
    OC_LION_CORRECT = 0,
    OC_LION_MUT_MOMENTUM_BEFORE_SIGN,
    OC_LION_MUT_BETAS_SWAPPED,
    OC_LION_MUT_DECAY_NOT_SCALED_BY_LR,
    OC_LION_MUT_COUPLED_DECAY,
    OC_LION_MUT_SIGN_ZERO_IS_ONE,
    OC_LION_MUTANT_COUNT
} oc_lion_mutant;

const char *oc_lion_mutant_name(oc_lion_mutant mu);
const char *oc_lion_mutant_description(oc_lion_mutant mu);
const char *oc_lion_profile_name(oc_lion_profile pr);
oc_status oc_lion_profile_parse(const char *name, oc_lion_profile *out);

oc_status oc_lion_check(const oc_lion_hparams *hp, int64_t step);

/* One step (step >= 1) on n elements: p and momentum m (fp32) updated in place.
 * On error nothing is written. */
oc_status oc_ref_lion_step(const oc_lion_hparams *hp, int64_t step, size_t n, float *p, float *m,
                           const float *g, oc_lion_mutant mutant);

#endif
