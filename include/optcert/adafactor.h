/* Adafactor (Shazeer & Stern 2018, arXiv:1804.04235), spec/adafactor.md: one step of one
 * parameter tensor, a vector (unfactored second moment) or a matrix (factored second moment:
 * row and column running averages), with relative step size, update clipping and an optional
 * first moment, in the conventions of four profiles (ADAFACTOR-PROF-*). */
#ifndef OPTCERT_ADAFACTOR_H
#define OPTCERT_ADAFACTOR_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/status.h"

typedef enum oc_adafactor_profile {
    OC_ADAFACTOR_PAPER = 0,    /* Algorithms 4 and 5 of the paper      ADAFACTOR-PROF-PAPER */
    OC_ADAFACTOR_TORCH,        /* torch.optim.Adafactor (torch 2.15)   ADAFACTOR-PROF-TORCH */
    OC_ADAFACTOR_TRANSFORMERS, /* transformers 5.23.0 Adafactor        ADAFACTOR-PROF-HF */
    OC_ADAFACTOR_OPTAX,        /* optax 0.2.5 adafactor                ADAFACTOR-PROF-OPTAX */
    OC_ADAFACTOR_PROFILE_COUNT
} oc_adafactor_profile;

typedef struct oc_adafactor_hparams {
    oc_adafactor_profile profile;
    double lr;              /* >= 0: rho's cap (relative step) or the step size  ADAFACTOR-STEP-1 */
    int relative_step;      /* rho_t = min(lr, 1/sqrt(t)), else rho_t = lr       ADAFACTOR-STEP-1 */
    int warmup_init;        /* transformers: min(1e-6 t, 1/sqrt(t)) instead       ADAFACTOR-STEP-1 */
    int scale_parameter;    /* alpha_t = max(eps2, RMS(X)) rho_t, else rho_t     ADAFACTOR-STEP-1 */
    double decay_rate;      /* c >= 0 of beta2_t = 1 - t^-c                      ADAFACTOR-DECAY-1 */
    double eps1;            /* >= 0, regularises the second moment               ADAFACTOR-EPS-1 */
    double eps2;            /* >= 0, floor of the parameter scale                ADAFACTOR-STEP-1 */
    double clip_threshold;  /* d >= 1; 0: no update clipping (optax only)        ADAFACTOR-CLIP-1 */
    int first_moment;       /* m_t = beta1 m + (1 - beta1) alpha U^ (not torch, paper) ADAFACTOR-MOM-1 */
    double beta1;           /* in [0, 1) with first_moment                       ADAFACTOR-MOM-1 */
    double weight_decay;    /* >= 0, each profile's form                         ADAFACTOR-WD-1 */
    int maximize;           /* torch: the step follows -g                         ADAFACTOR-PROF-TORCH */
    int factored;           /* optax: factor matrices at all                      ADAFACTOR-FACT-1 */
    int64_t min_dim_to_factor; /* optax: factor when both dimensions reach it      ADAFACTOR-FACT-1 */
} oc_adafactor_hparams;

/* The tensor: ndim 1 (a vector of cols entries, rows == 1) or 2 (rows x cols, row-major). */
typedef struct oc_adafactor_shape {
    int ndim;
    size_t rows, cols;
} oc_adafactor_shape;

/* The stored state of one tensor, binary32 (ADAFACTOR-STORE-1). A factored tensor has row
 * [rows] (the running mean of each row's squares) and col [cols] (of each column's) and
 * v == NULL; an unfactored one v [rows*cols] and row == col == NULL. m [rows*cols] with the
 * first moment, else NULL. */
typedef struct oc_adafactor_state {
    float *p, *m, *v, *row, *col;
} oc_adafactor_state;

/* The largest tensor the reference accepts (its work buffer is a caller's array). */
#define OC_ADAFACTOR_MAX_DIM ((size_t)1 << 20)

/*@ predicate adafactor_shape_ok(oc_adafactor_shape sh) =
        (sh.ndim == 1 && sh.rows == 1 || sh.ndim == 2) &&
        1 <= sh.rows <= OC_ADAFACTOR_MAX_DIM && 1 <= sh.cols <= OC_ADAFACTOR_MAX_DIM;
*/

const char *oc_adafactor_profile_name(oc_adafactor_profile pr);
oc_status oc_adafactor_profile_parse(const char *name, oc_adafactor_profile *out);

/* ADAFACTOR-HP-1, ADAFACTOR-PROF-*: the ranges, and the options each profile has. */
/*@ requires \valid_read(hp);
    assigns \nothing;
    ensures ok_step: \result == OC_OK ==> step >= 1;
    ensures ok_shape: \result == OC_OK ==> adafactor_shape_ok(sh);
*/
oc_status oc_adafactor_check(const oc_adafactor_hparams *hp, oc_adafactor_shape sh, int64_t step);

/* ADAFACTOR-FACT-1: whether the second moment of a tensor of this shape is factored. */
/*@ requires \valid_read(hp);
    assigns \nothing;
    ensures boolean: \result == 0 || \result == 1;
    ensures vectors_unfactored: sh.ndim == 1 ==> \result == 0;
*/
int oc_adafactor_factored(const oc_adafactor_hparams *hp, oc_adafactor_shape sh);

/* The elements of the work buffer oc_ref_adafactor_step needs: rows * cols. */
size_t oc_adafactor_work_len(oc_adafactor_shape sh);

/* Element functions of the step (each one rule of spec/adafactor.md; the harness's mutant
 * variants, conformance/mutants/adafactor.c, recombine them). */
double oc_adafactor_beta2(const oc_adafactor_hparams *hp, int64_t step);       /* DECAY-1 */
double oc_adafactor_square(const oc_adafactor_hparams *hp, double g);          /* EPS-1 */
double oc_adafactor_rho(const oc_adafactor_hparams *hp, int64_t step);         /* STEP-1 */
double oc_adafactor_alpha(const oc_adafactor_hparams *hp, double rho, double rms_p); /* STEP-1 */
double oc_adafactor_inv_root(const oc_adafactor_hparams *hp, double vhat);     /* EPS-1 */
double oc_adafactor_clip_denom(const oc_adafactor_hparams *hp, double rms_u);  /* CLIP-1 */
double oc_adafactor_decayed(const oc_adafactor_hparams *hp, double alpha, double p); /* WD-1 */
/* RMS of n binary32 values, or of n binary64 ones. */
double oc_adafactor_rms(size_t n, const float *x);
double oc_adafactor_rms64(size_t n, const double *x);
/* FACTOR-1: the normaliser of the factored estimate from the stored statistics. */
double oc_adafactor_normaliser(const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                               const float *row, const float *col);
/* V-1, FACTOR-1: the second moment's update from the gradient (stored in s->v or s->row and
 * s->col), then u[i] = g[i] / sqrt(V^[i]) into work. */
void oc_adafactor_second_moment(const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                                int factored, double beta2, const float *g,
                                oc_adafactor_state *s);
void oc_adafactor_scaled_gradient(const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                                  int factored, const float *g, const oc_adafactor_state *s,
                                  double *u);
/* MOM-1, WD-1, STORE-1: m and p from the step's update delta[i] = alpha * U^[i]. */
void oc_adafactor_apply(const oc_adafactor_hparams *hp, size_t n, double alpha,
                        const double *delta, oc_adafactor_state *s);

/* One step (step >= 1) of one tensor: s updated in place; g is read (rows*cols entries), work
 * is scratch of work_len >= oc_adafactor_work_len(sh) doubles. Nothing is written on error. */
/*@ requires \valid_read(hp) && \valid(s);
    requires adafactor_shape_ok(sh) ==>
        \valid(s->p + (0 .. sh.rows * sh.cols - 1)) &&
        \valid_read(g + (0 .. sh.rows * sh.cols - 1));
    ensures ok: \result == OC_OK ==> step >= 1 && adafactor_shape_ok(sh);
*/
oc_status oc_ref_adafactor_step(const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                                int64_t step, oc_adafactor_state *s, const float *g,
                                double *work, size_t work_len);

#endif
