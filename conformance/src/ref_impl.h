/* The reference behind the plugin ABI (ref_impl.c: oc_ref, oc_ref_mutant). Its table's context
 * names the algorithm whose mutant is selected, if any; each algorithm's entry point (its
 * descriptor's .reference, in the algorithm's file) asks it which mistake to run. */
#ifndef OPTCERT_REF_IMPL_H
#define OPTCERT_REF_IMPL_H

#include "algos.h"
#include "../mutants/mixed.h"

/* The selected mutant of algorithm a; 0 (correct) if another algorithm's, or none, is. */
int oc_ref_mutant_of(const void *ctx, const oc_algo *a);

/* Element-wise algorithms (spec/mixed.md §5): the selected mutant of a split into the
 * algorithm's own (0 .. own_mutants-1) and the mixed-precision one (OC_MIXED_CORRECT: none). */
int oc_ref_own_mutant(const void *ctx, const oc_algo *a);
oc_mixed_mutant oc_ref_mixed_mutant(const void *ctx, const oc_algo *a);

/* An element-wise algorithm's fp32 step with a mixed-precision mutant selected: the mixed step
 * with everything in fp32 (where only state-in-bf16 changes anything). */
oc_status oc_ref_fp32_step(const void *ctx, const oc_algo *a, const void *hp, int64_t step,
                           size_t n, float *p, void *const *state, const float *g);

#endif
