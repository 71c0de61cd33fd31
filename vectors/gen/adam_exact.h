/* Exact (MPFR) Adam step for one element, and the fp32-class error bound (spec/adam.md §3, §4). */
#ifndef OPTCERT_GEN_ADAM_EXACT_H
#define OPTCERT_GEN_ADAM_EXACT_H

#include <mpfr.h>
#include "optcert/adam.h"

enum { ADAM_P, ADAM_M, ADAM_V, ADAM_VMAX, ADAM_NOUT };

/* Stored (fp32) state of one element. */
typedef struct adam_elem {
    float s[ADAM_NOUT];
} adam_elem;

/* Accumulated fp32-class error bound of one element (absolute, per output). */
typedef struct adam_bound {
    double e[ADAM_NOUT];
} adam_bound;

/* One element's golden outputs after a step. */
typedef struct adam_golden {
    float f32[ADAM_NOUT];
    double f64[ADAM_NOUT];
    double tol[ADAM_NOUT];
} adam_golden;

typedef struct adam_exact_ctx adam_exact_ctx;

adam_exact_ctx *adam_exact_new(mpfr_prec_t prec);
void adam_exact_free(adam_exact_ctx *cx);

/* Per-step setup: exact bias corrections for step t (hp already validated). */
void adam_exact_begin_step(adam_exact_ctx *cx, const oc_adam_hparams *hp, int64_t t);

/* Advance one element by the step set up above: st is the golden stored state (updated),
 * bd the accumulated bound (updated), out receives the golden outputs. */
void adam_exact_element(adam_exact_ctx *cx, const oc_adam_hparams *hp, float grad,
                        adam_elem *st, adam_bound *bd, adam_golden *out);

#endif
