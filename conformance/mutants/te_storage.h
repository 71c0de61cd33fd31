/* The TE-storage mutant catalogue (spec/te_storage.md §6): TE's storage with one stage replaced
 * by a catalogued mistake, built from the reference's pieces. They live beside the harness, not
 * in ref/ (issue 16 item 3): the reference API has no mutant parameter. */
#ifndef OPTCERT_MUTANTS_TE_STORAGE_H
#define OPTCERT_MUTANTS_TE_STORAGE_H

#include "optcert/te_storage.h"

typedef enum oc_te_mutant {
    OC_TE_CORRECT = 0,
    OC_TE_MUT_SPLIT_TRUNCATE,        /* parameter = high half, no round-up   TESTORE-SPLIT-1 */
    OC_TE_MUT_SPLIT_TIES_EVEN,       /* parameter rounded to nearest even     TESTORE-SPLIT-1 */
    OC_TE_MUT_JOIN_NO_UNDO,          /* reconstruction without the decrement  TESTORE-SPLIT-2 */
    OC_TE_MUT_SCALE_FROM_OLD_ABSMAX, /* quantized with the previous scale     TESTORE-SCALE-2 */
    OC_TE_MUT_F16_FULL_RANGE,        /* fp16 scale absmax / 65504             TESTORE-SCALE-1 */
    OC_TE_MUT_FP8_NO_SATURATION,     /* E4M3 overflow to NaN                  TESTORE-FP8-1 */
    OC_TE_MUT_FP8_READ_WITH_SCALE,   /* FP8 read with s, not scale_inv        TESTORE-FP8-1 */
    OC_TE_MUTANT_COUNT
} oc_te_mutant;

const char *oc_te_mutant_name(oc_te_mutant mu);
const char *oc_te_mutant_description(oc_te_mutant mu);

/* oc_ref_te_storage with mistake mu (OC_TE_CORRECT: the reference itself); an unknown mu is
 * OC_ERR_BAD_PROFILE. */
oc_status oc_te_mutant_storage(oc_te_mutant mu, const oc_te_config *c, oc_te_direction dir,
                               size_t n, oc_te_state *s, float *const *work);

#endif
