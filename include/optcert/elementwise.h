/* The element-wise algorithms (Adam, SGD, Lion) as mixed precision (spec/mixed.md, MP-STORE-1)
 * and the guarded step (spec/guarded_step.md, STEP-ERR-1, STEP-TAKE-1) use them: each
 * algorithm's own file exports one `const oc_elementwise oc_elementwise_NAME = {...}`, and the
 * build discovers them (cmake/registry.cmake), so a new element-wise family adds its own files. */
#ifndef OPTCERT_ELEMENTWISE_H
#define OPTCERT_ELEMENTWISE_H

#include "optcert/mixed.h"

typedef struct oc_elementwise {
    oc_algorithm alg;
    /* The state layout: how many fp32 state tensors a step with these hyper-parameters reads
     * and writes, in the algorithm's order (MP-STORE-1; the oc_guarded_param state slots). */
    int (*state_count)(const void *hp);
    /* The algorithm's ERR rule on its hyper-parameters and step (MP-ERR-1, STEP-ERR-1). */
    oc_status (*check)(const void *hp, int64_t step);
    /* The algorithm's reference step on fp32 buffers, state[0 .. state_count - 1]. */
    oc_status (*step)(const void *hp, int64_t step, size_t n, float *p, float *const *state,
                      const float *g);
} oc_elementwise;

/* For the proofs of the callers (proofs/parts/mixed.toml, guarded_step.toml), which follow each
 * indirect call into the functions its `calls` clause lists (OC_ELEMENTWISE_STEPS, ...), the
 * build names every descriptor in the predicate interface_of (optcert/mixed.h includes it). */

/* The interface of algorithm alg, NULL if it has none. */
/*@ assigns \nothing;
    ensures interface: interface_of(alg, \result);
*/
const oc_elementwise *oc_elementwise_of(oc_algorithm alg);

#endif
