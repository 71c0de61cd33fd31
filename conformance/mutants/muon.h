/* The Muon mutant catalogues (spec/muon.md, MUON-* and MUON-BLK-*): variant steps built from
 * the reference's pieces (include/optcert/muon.h), each with one catalogued mistake, beside the
 * harness, not in ref/ (issue 16 item 3, as conformance/mutants/adam.h). */
#ifndef OPTCERT_MUTANTS_MUON_H
#define OPTCERT_MUTANTS_MUON_H

#include "optcert/muon.h"

typedef enum oc_muon_mutant {
    OC_MUON_CORRECT = 0,
    OC_MUON_MUT_WRONG_SCALE,          /* shape_scaling <-> spectral, unit_rms_norm -> spectral */
    OC_MUON_MUT_NESTEROV_MISSING,     /* direction m' even with Nesterov */
    OC_MUON_MUT_DECAY_AFTER_UPDATE,   /* p' = (p - lr s O)(1 - lr wd) */
    OC_MUON_MUT_DECAY_ADJUSTED_LR,    /* p *= 1 - lr s wd (the scaled lr) */
    OC_MUON_MUT_MOMENTUM_FORM_SWAPPED,/* EMA <-> SGD buffer */
    OC_MUON_MUTANT_COUNT
} oc_muon_mutant;

typedef enum oc_muon_block_mutant {
    OC_MUON_BLOCK_CORRECT = 0,
    OC_MUON_BLOCK_MUT_QKV_NOT_SPLIT,      /* the fused QKV weight orthogonalised as one matrix */
    OC_MUON_BLOCK_MUT_QKV_CONTIGUOUS,     /* [all q; all k; all v] instead of per query group */
    OC_MUON_BLOCK_MUT_SCALE_SHAPE_SWAPPED,/* local shape for global, or the reverse */
    OC_MUON_BLOCK_MUT_TP_NOT_BLOCKED,     /* the full matrix orthogonalised (duplicated mode) */
    OC_MUON_BLOCK_MUTANT_COUNT
} oc_muon_block_mutant;

/* Stable short names of the mutants (NULL if out of range). */
const char *oc_muon_mutant_name(oc_muon_mutant mu);
const char *oc_muon_block_mutant_name(oc_muon_block_mutant mu);

/* oc_ref_muon_step with mistake mu (OC_MUON_CORRECT: the reference itself); on an input the
 * reference rejects, the reference's status and nothing written. */
oc_status oc_muon_mutant_step(oc_muon_mutant mu, const oc_muon_hparams *hp, size_t rows,
                              size_t cols, float *p, float *m, const float *g, double *work,
                              size_t work_len, float *scratch);

/* oc_ref_muon_block_step with mistake mu (OC_MUON_BLOCK_CORRECT: the reference itself), the
 * reference's status on an input it rejects. */
oc_status oc_muon_block_mutant_step(oc_muon_block_mutant mu, const oc_muon_hparams *hp,
                                    const oc_muon_partition *part, size_t rows, size_t cols,
                                    float *p, float *m, const float *g, double *work,
                                    size_t work_len, float *scratch, size_t scratch_len);

#endif
