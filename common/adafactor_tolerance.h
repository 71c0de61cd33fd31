/* ADAFACTOR-TOL-2's bound of one step (spec/adafactor.md §4), shared by the generator (the
 * tolerances it writes, from its MPFR values rounded to binary64) and the harness (the cap
 * VEC-TOL-2 puts on them, from its own binary64 evaluation of the same quantities). Plain
 * binary64, no MPFR, no reference. */
#ifndef OPTCERT_COMMON_ADAFACTOR_TOLERANCE_H
#define OPTCERT_COMMON_ADAFACTOR_TOLERANCE_H

#include <stddef.h>
#include "optcert/adafactor.h" /* the hyper-parameter type only */

/* ADAFACTOR-PROF-HF: transformers' relative step cap and warmup slope, binary64 constants. */
#define OC_ADAFACTOR_HF_CAP 1e-2
#define OC_ADAFACTOR_HF_WARMUP 1e-6

/* A tensor's stored state (binary32 values) or its carried bounds, per part; m only with the
 * first moment, v unfactored, row and col factored. */
typedef struct ada_tol_parts {
    double *p, *m, *v, *row, *col;
} ada_tol_parts;

/* One step's quantities, binary64 values of the exact ones (ADAFACTOR-TOL-2's "golden
 * magnitudes"). */
typedef struct ada_tol_step {
    const oc_adafactor_hparams *hp;
    size_t rows, cols;
    int factored, by_col;   /* ADAFACTOR-FACT-1; the normaliser over the columns (optax, R > C) */
    double wt, beta;        /* t^-c and beta2_t = 1 - t^-c (ADAFACTOR-DECAY-1) */
    double rms_p;           /* RMS of the stored p before the step (ADAFACTOR-STEP-1) */
    double scale, alpha;    /* max(eps2, rms_p) (with scale_parameter) and alpha_t */
    ada_tol_parts before;   /* the stored state before the step */
    ada_tol_parts after;    /* after it (m and the statistics) */
    ada_tol_parts golden;   /* the statistics' golden binary64 values after it */
    const double *sample;   /* per statistic, its new sample: G^2 + eps1 (v), a row's or a
                               column's mean of them (row then col) */
    double norm;            /* the normaliser of the factored estimate (ADAFACTOR-FACTOR-1) */
    const double *delta;    /* per entry, the update alpha U / D */
} ada_tol_step;

/* ADAFACTOR-TOL-2 A-I: replaces the carried bounds e (0 before the first step) by the step's,
 * every stored entry's absolute bound before any rounding up. work: 2 rows cols doubles. */
void ada_tol_step_bounds(const ada_tol_step *s, ada_tol_parts *e, double *work);

#endif
