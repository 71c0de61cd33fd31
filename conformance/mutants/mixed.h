/* The mixed-precision mutant catalogue (spec/mixed.md §5), as storage mistakes around the
 * reference's mixed step, and the algorithms' own mutants under mixed storage (issue 16 item 3,
 * as conformance/mutants/adam.h). */
#ifndef OPTCERT_MUTANTS_MIXED_H
#define OPTCERT_MUTANTS_MIXED_H

#include "optcert/mixed.h"

typedef enum oc_mixed_mutant {
    OC_MIXED_CORRECT = 0,
    OC_MIXED_MUT_TRUNCATING_WRITEBACK, /* param = master truncated, not rounded     MP-CONV-1 */
    OC_MIXED_MUT_MASTER_FROM_PARAM,    /* master re-created from the 16-bit param   MP-MASTER-1 */
    OC_MIXED_MUT_STATE_IN_BF16,        /* fp32 state stored as bf16                 MP-STORE-2 */
    OC_MIXED_MUTANT_COUNT
} oc_mixed_mutant;

const char *oc_mixed_mutant_name(oc_mixed_mutant mu);
const char *oc_mixed_mutant_description(oc_mixed_mutant mu);

/* oc_ref_mixed_step with storage mistake mu (OC_MIXED_CORRECT: the reference itself). */
oc_status oc_mixed_mutant_step(oc_mixed_mutant mu, oc_algorithm alg, const void *hp,
                               const oc_storage *s, int64_t step, size_t n, void *param,
                               float *master, void *const *state, const float *g);

/* oc_ref_mixed_step with algorithm alg's own mutant mu (oc_adam_mutant, oc_sgd_mutant,
 * oc_lion_mutant; 0: the reference itself) as its fp32 step. */
oc_status oc_mixed_own_mutant_step(int mu, oc_algorithm alg, const void *hp, const oc_storage *s,
                                   int64_t step, size_t n, void *param, float *master,
                                   void *const *state, const float *g);

#endif
