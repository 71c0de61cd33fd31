/* Exact (MPFR) Adam step for one element, and the fp32-class error bound (spec/adam.md §3, §4). */
#ifndef OPTCERT_GEN_ADAM_EXACT_H
#define OPTCERT_GEN_ADAM_EXACT_H

#include <mpfr.h>
#include "optcert/adam.h"
#include "family.h"

enum { ADAM_P, ADAM_M, ADAM_V, ADAM_VMAX, ADAM_NOUT };

typedef struct adam_exact_ctx adam_exact_ctx;

adam_exact_ctx *adam_exact_new(mpfr_prec_t prec);
void adam_exact_free(adam_exact_ctx *cx);

/* Per-step setup: exact bias corrections for step t (hp already validated). */
void adam_exact_begin_step(adam_exact_ctx *cx, const oc_adam_hparams *hp, int64_t t);

/* Advance one element by the step set up above: s[ADAM_*] is the golden stored state
 * (updated), E[ADAM_*] the accumulated fp32-class bound (updated), out the golden outputs. */
void adam_exact_element(adam_exact_ctx *cx, const oc_adam_hparams *hp, float grad, float *s,
                        double *E, gen_golden *out);

#endif
