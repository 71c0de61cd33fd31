/* Adam family: Adam, Adam+L2, AdamW, AMSGrad, under four profiles (spec/adam.md). */
#ifndef OPTCERT_ADAM_H
#define OPTCERT_ADAM_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/status.h"

/* Conventions real libraries disagree on (spec/adam.md §2). */
typedef enum oc_adam_profile {
    OC_ADAM_TORCH = 0, /* torch.optim.Adam / AdamW             ADAM-PROF-TORCH */
    OC_ADAM_OPTAX,     /* optax.adam / adamw (eps_root)          ADAM-PROF-OPTAX */
    OC_ADAM_PAPER,     /* Loshchilov & Hutter, Algorithm 2       ADAM-PROF-PAPER */
    OC_ADAM_KERAS,     /* Keras 3 Adam/AdamW, "epsilon hat"      ADAM-PROF-KERAS */
    OC_ADAM_PROFILE_COUNT
} oc_adam_profile;

/* Hyper-parameters. Values are exact binary numbers (vectors carry them as hex floats);
 * implementations must use exactly these values. */
typedef struct oc_adam_hparams {
    oc_adam_profile profile;
    double lr;                  /* alpha; >= 0                                   ADAM-HP-1 */
    double beta1, beta2;        /* in [0, 1)                                     ADAM-HP-1 */
    double eps;                 /* > 0                                           ADAM-HP-1 */
    double weight_decay;        /* >= 0                                          ADAM-HP-1 */
    double eps_root;            /* >= 0; optax only, 0 elsewhere                 ADAM-PROF-OPTAX */
    double schedule_multiplier; /* eta_t >= 0; paper only, 1 elsewhere           ADAM-PROF-PAPER */
    int decoupled;              /* 1: decoupled decay (AdamW), 0: L2 into g       ADAM-WD-1/2 */
    int amsgrad;                /* torch and keras only                           ADAM-AMS-1 */
    int maximize;               /* torch only                                     ADAM-MAX-1 */
} oc_adam_hparams;

/* The catalogue of known mistakes (spec/adam.md §5). */
typedef enum oc_adam_mutant {
    OC_ADAM_CORRECT = 0,
    OC_ADAM_MUT_EPS_INSIDE_SQRT,
    OC_ADAM_MUT_NO_BIAS_CORRECTION,
    OC_ADAM_MUT_BIAS_CORRECTION_T_MINUS_1,
    OC_ADAM_MUT_BIAS_CORRECTION_T_PLUS_1,
    OC_ADAM_MUT_L2_INSTEAD_OF_DECOUPLED,
    OC_ADAM_MUT_DECAY_NOT_SCALED_BY_LR,
    OC_ADAM_MUT_DECAY_AFTER_UPDATE,
    OC_ADAM_MUT_EPS_HAT,
    OC_ADAM_MUT_BETAS_SWAPPED,
    OC_ADAM_MUT_V_WITH_ABS_G,
    OC_ADAM_MUT_AMSGRAD_MAX_OF_VHAT,
    OC_ADAM_MUTANT_COUNT
} oc_adam_mutant;

/* Stable short name and one-line description of a mutant (NULL if out of range). */
const char *oc_adam_mutant_name(oc_adam_mutant mu);
const char *oc_adam_mutant_description(oc_adam_mutant mu);
/* Profile name ("torch", "optax", "paper", "keras"); NULL if out of range. */
const char *oc_adam_profile_name(oc_adam_profile pr);
/* Parse a profile name; OC_ERR_BAD_PROFILE if unknown. */
oc_status oc_adam_profile_parse(const char *name, oc_adam_profile *out);

/* Checks hyper-parameters and step against ADAM-HP-1 / ADAM-HP-2 and the profile's options. */
oc_status oc_adam_check(const oc_adam_hparams *hp, int64_t step);

/* One optimizer step (step >= 1 is the 1-based count of this update) on n elements.
 * p, m, v: fp32 parameter and moments, updated in place (ADAM-STORE-1).
 * vmax: AMSGrad running maximum, required iff hp->amsgrad, else may be NULL.
 * g: gradient (read only). On any error nothing is written. */
oc_status oc_ref_adam_step(const oc_adam_hparams *hp, int64_t step, size_t n,
                           float *p, float *m, float *v, float *vmax, const float *g,
                           oc_adam_mutant mutant);

#endif
