/* The Muon step: momentum, Newton–Schulz orthogonalisation, scale, decoupled weight decay
 * (spec/muon.md, rules MUON-*). */
#ifndef OPTCERT_MUON_H
#define OPTCERT_MUON_H

#include <stddef.h>
#include "optcert/newton_schulz.h"
#include "optcert/status.h"

typedef enum oc_muon_profile {
    OC_MUON_KELLER = 0, /* EMA momentum, Nesterov, shape_scaling, simple NS    MUON-PROF-KELLER */
    OC_MUON_MOONLIGHT,  /* SGD momentum, Nesterov, 0.2 sqrt(max(A, B))          MUON-PROF-MOONLIGHT */
    OC_MUON_MEGATRON,   /* EMA momentum, no Nesterov, spectral, quintic NS      MUON-PROF-MEGATRON */
    OC_MUON_PROFILE_COUNT
} oc_muon_profile;

typedef enum oc_muon_momentum {
    OC_MUON_EMA = 0, /* m' = mu m + (1 - mu) g; Nesterov (1 - mu) g + mu m'   MUON-MOM-1 */
    OC_MUON_SGD      /* m' = mu m + g;           Nesterov g + mu m'            MUON-MOM-1 */
} oc_muon_momentum;

typedef enum oc_muon_scale {
    OC_MUON_SHAPE_SCALING = 0, /* sqrt(max(1, rows / cols))   MUON-SCALE-1 */
    OC_MUON_SPECTRAL,          /* sqrt(max(rows, cols))       MUON-SCALE-1 */
    OC_MUON_UNIT_RMS_NORM      /* sqrt(rows / cols)           MUON-SCALE-1 */
} oc_muon_scale;

typedef struct oc_muon_hparams {
    oc_muon_profile profile;
    oc_ns_hparams ns;          /* the orthogonalisation (NS-*)                    MUON-NS-1 */
    double lr;                 /* >= 0, finite                                    MUON-HP-1 */
    double momentum;           /* mu in [0, 1)                                    MUON-HP-1 */
    double weight_decay;       /* >= 0, finite                                    MUON-HP-1 */
    int nesterov;
    oc_muon_momentum form;
    oc_muon_scale scale;
    double extra_scale;        /* > 0, finite (Moonlight 0.2)                     MUON-SCALE-1 */
} oc_muon_hparams;

typedef enum oc_muon_mutant {
    OC_MUON_CORRECT = 0,
    OC_MUON_MUT_WRONG_SCALE,          /* shape_scaling <-> spectral, unit_rms_norm -> spectral */
    OC_MUON_MUT_NESTEROV_MISSING,     /* direction m' even with Nesterov */
    OC_MUON_MUT_DECAY_AFTER_UPDATE,   /* p' = (p - lr s O)(1 - lr wd) */
    OC_MUON_MUT_DECAY_ADJUSTED_LR,    /* p *= 1 - lr s wd (the scaled lr) */
    OC_MUON_MUT_MOMENTUM_FORM_SWAPPED,/* EMA <-> SGD buffer */
    OC_MUON_MUTANT_COUNT
} oc_muon_mutant;

const char *oc_muon_mutant_name(oc_muon_mutant mu);
const char *oc_muon_profile_name(oc_muon_profile pr);
oc_status oc_muon_profile_parse(const char *name, oc_muon_profile *out);

/* The profile's conventions with its library defaults (MUON-PROF-*). */
oc_status oc_muon_profile_defaults(oc_muon_profile pr, oc_muon_hparams *hp);

/* MUON-SCALE-1: the factor of the orthogonalised update for a rows x cols parameter. */
double oc_muon_scale_factor(const oc_muon_hparams *hp, size_t rows, size_t cols);

/* MUON-HP-1 with NS-HP-1 / NS-IN-1 (the checks of oc_ref_muon_step before its buffer checks). */
oc_status oc_muon_check(const oc_muon_hparams *hp, size_t rows, size_t cols);

/* Doubles of workspace for a rows x cols parameter (oc_ns_work_len). The step also needs
 * 3 rows cols floats of scratch. */
size_t oc_muon_work_len(size_t rows, size_t cols);

/* One step on the rows x cols fp32 parameter p and momentum m (updated in place) with
 * gradient g, in the caller's workspace `work` (work_len doubles) and `scratch` (3 rows cols
 * floats). On error nothing is written to p and m (MUON-ERR-1). */
oc_status oc_ref_muon_step(const oc_muon_hparams *hp, size_t rows, size_t cols, float *p,
                           float *m, const float *g, double *work, size_t work_len,
                           float *scratch, oc_muon_mutant mutant);

#endif
