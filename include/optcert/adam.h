/* Adam family: Adam, Adam+L2, AdamW, AMSGrad, under four profiles (spec/adam.md). */
#ifndef OPTCERT_ADAM_H
#define OPTCERT_ADAM_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/acsl.h"
#include "optcert/status.h"
#include <string.h> /* for the ACSL below (valid_read_string) */
#ifdef __FRAMAC__
#include <errno.h> /* for the ACSL below (pow and sqrt may set errno); no C compiler reads it */
#endif

/* Conventions real libraries disagree on (spec/adam.md §2). */
typedef enum oc_adam_profile {
    OC_ADAM_TORCH = 0, /* torch.optim.Adam / AdamW             ADAM-PROF-TORCH */
    OC_ADAM_OPTAX,     /* optax.adam / adamw (eps_root)          ADAM-PROF-OPTAX */
    OC_ADAM_PAPER,     /* Loshchilov & Hutter, Algorithm 2       ADAM-PROF-PAPER */
    OC_ADAM_KERAS,     /* Keras 3 Adam/AdamW, "epsilon hat"      ADAM-PROF-KERAS */
    OC_ADAM_PROFILE_COUNT
} oc_adam_profile;

/* Hyper-parameters. Values are exact binary numbers (vectors carry them as hex floats);
 * implementations must use exactly these values. */
typedef struct oc_adam_hparams {
    oc_adam_profile profile;
    double lr;                  /* alpha; >= 0                                   ADAM-HP-1 */
    double beta1, beta2;        /* in [0, 1)                                     ADAM-HP-1 */
    double eps;                 /* > 0                                           ADAM-HP-1 */
    double weight_decay;        /* >= 0                                          ADAM-HP-1 */
    double eps_root;            /* >= 0; optax only, 0 elsewhere                 ADAM-PROF-OPTAX */
    double schedule_multiplier; /* eta_t >= 0; paper only, 1 elsewhere           ADAM-PROF-PAPER */
    int decoupled;              /* 1: decoupled decay (AdamW), 0: L2 into g       ADAM-WD-1/2 */
    int amsgrad;                /* torch and keras only                           ADAM-AMS-1 */
    int maximize;               /* torch only                                     ADAM-MAX-1 */
} oc_adam_hparams;

/* ACSL for proofs/ (STATUS.md there): ADAM-HP-1 as a predicate. Every field is finite (not
 * NaN or infinite) and compared as a real number; oc_adam_check accepts nothing else. */
/*@ predicate hparams_ok(oc_adam_hparams *hp, int64_t step) =
        1 <= step &&
        finite_ge0(hp->lr) && beta_ok(hp->beta1) && beta_ok(hp->beta2) &&
        \is_finite(hp->eps) && 0.0 < hp->eps &&
        finite_ge0(hp->weight_decay) && finite_ge0(hp->eps_root) &&
        finite_ge0(hp->schedule_multiplier);
*/

/* Profile name ("torch", "optax", "paper", "keras"); NULL if out of range. */
const char *oc_adam_profile_name(oc_adam_profile pr);
/* Parse a profile name; OC_ERR_BAD_PROFILE if unknown. */
/*@ requires name_ok: valid_read_string(name);
    requires out_ok: \valid(out);
    assigns *out;
    ensures status: \result == OC_OK || \result == OC_ERR_BAD_PROFILE;
    ensures known: \result == OC_OK ==> 0 <= *out < OC_ADAM_PROFILE_COUNT; */
oc_status oc_adam_profile_parse(const char *name, oc_adam_profile *out);

/* Checks hyper-parameters and step against ADAM-HP-1 / ADAM-HP-2 and the profile's options. */
/*@ requires valid_hp: \valid_read(hp);
    assigns \nothing;
    ensures ok: \result == OC_OK ==> hparams_ok(hp, step);
    ensures rejects: !hparams_ok(hp, step) ==> \result != OC_OK;
*/
oc_status oc_adam_check(const oc_adam_hparams *hp, int64_t step);

/* ADAM-ERR-1: what oc_ref_adam_step checks before it writes (hyper-parameters, step, and the
 * buffers: present, aligned, disjoint; vmax only with amsgrad). */
/*@ requires valid_hp: \valid_read(hp);
    requires n_bound: n <= 0x10000000;
    assigns \nothing;
    ensures ok: \result == OC_OK ==> hparams_ok(hp, step);
    ensures rejects: !hparams_ok(hp, step) ==> \result != OC_OK;
*/
oc_status oc_adam_check_args(const oc_adam_hparams *hp, int64_t step, size_t n, const float *p,
                             const float *m, const float *v, const float *vmax, const float *g);

/* The pieces of the step, each a rule of spec/adam.md, for hyper-parameters that pass
 * oc_adam_check (the harness's mutants, conformance/mutants/adam.c, recombine them). */
typedef struct oc_adam_coeffs {
    double beta1, beta2; /* the moments' decay rates */
    double bc1, bc2;     /* ADAM-BC-1: 1 - beta^t */
    double step_mult;    /* multiplies the direction: lr, or eta*lr (paper) */
    double decay;        /* decoupled decay factor: lr*wd, or eta*wd (paper); 0 for L2 */
    double l2;           /* coefficient of p added to g (ADAM-WD-1) */
    int eps_hat;         /* ADAM-PROF-KERAS form of the denominator */
} oc_adam_coeffs;
/*@ requires valid_hp: \valid_read(hp) && hparams_ok(hp, step);
    requires valid_c: \valid(c);
    assigns *c, errno;
*/
void oc_adam_coefficients(const oc_adam_hparams *hp, int64_t step, oc_adam_coeffs *c);
/*@ requires valid_hp_c: \valid_read(hp) && \valid_read(c);
    assigns \nothing;
*/
double oc_adam_gradient(const oc_adam_hparams *hp, const oc_adam_coeffs *c, double p,
                        float grad);                                         /* MAX-1, WD-1 */
/*@ assigns \nothing; */
float oc_adam_average(double beta, double s, double x);                      /* M-1, V-1 */
/*@ requires valid_vmax: \valid(vmax);
    assigns *vmax;
*/
float oc_adam_amsgrad(float *vmax, double v);                                /* AMS-1 */
/*@ requires valid_hp_c: \valid_read(hp) && \valid_read(c);
    assigns errno;
*/
double oc_adam_denominator(const oc_adam_hparams *hp, const oc_adam_coeffs *c,
                           double v);                                        /* EPS-1 */
/*@ requires valid_c: \valid_read(c);
    assigns errno;
*/
double oc_adam_direction(const oc_adam_coeffs *c, double m, double denominator); /* DIR-1 */
/*@ requires valid_c: \valid_read(c);
    assigns \nothing;
*/
float oc_adam_param(const oc_adam_coeffs *c, double p, double direction);    /* UPD-1, WD-2 */

/* One optimizer step (step >= 1 is the 1-based count of this update) on n elements.
 * p, m, v: fp32 parameter and moments, updated in place (ADAM-STORE-1).
 * vmax: AMSGrad running maximum, required iff hp->amsgrad, else may be NULL.
 * g: gradient (read only). On any error nothing is written. */
/*@ requires valid_hp: \valid_read(hp);
    requires n_bound: n <= 0x10000000;
    requires valid_bufs: hparams_ok(hp, step) ==> \valid(p + (0 .. n-1)) && \valid(m + (0 .. n-1)) &&
             \valid(v + (0 .. n-1)) && \valid_read(g + (0 .. n-1));
    requires valid_vmax: hparams_ok(hp, step) && hp->amsgrad != 0 ==>
             \valid(vmax + (0 .. n-1));
    requires separated: \separated(p + (0 .. n-1), m + (0 .. n-1), v + (0 .. n-1), g + (0 .. n-1));
    requires separated_vmax: hp->amsgrad != 0 ==>
             \separated(vmax + (0 .. n-1), p + (0 .. n-1), m + (0 .. n-1), v + (0 .. n-1),
                        g + (0 .. n-1));
    // vmax is written only with amsgrad; errno: pow and sqrt may set it (C11 7.12.1).
    assigns p[0 .. n-1], m[0 .. n-1], v[0 .. n-1], vmax[0 .. (hp->amsgrad != 0 ? n-1 : -1)],
            errno;
    behavior invalid:
      assumes !hparams_ok(hp, step);
      assigns \nothing;
      ensures rejected: \result != OC_OK;
    behavior maybe_valid:
      assumes hparams_ok(hp, step);
    complete behaviors;
    disjoint behaviors;
*/
oc_status oc_ref_adam_step(const oc_adam_hparams *hp, int64_t step, size_t n,
                           float *p, float *m, float *v, float *vmax, const float *g);

/* The element-wise interface (optcert/elementwise.h: oc_elementwise_adam) that mixed precision
 * (MP-STORE-1) and the guarded step (STEP-ERR-1, STEP-TAKE-1) call: hp is an oc_adam_hparams; the
 * state is m, v and, with AMSGrad, vmax (ADAM-AMS-1). */
/* Its facts for the proofs of the callers, which the build composes over every element-wise
 * algorithm (cmake/registry.cmake, optcert_elementwise_logic): hp readable, the state count and
 * the buffers of one tensor that its step reads and writes (p, the states s0..s2, g: m, v and, with AMSGrad, vmax),
 * valid and separated as the step requires. */
/*@ predicate oc_adam_hp_readable(void *hp) = \valid_read((oc_adam_hparams *)hp);
    logic integer oc_adam_state_count(void *hp) = ((oc_adam_hparams *)hp)->amsgrad != 0 ? 3 : 2;
    predicate oc_adam_buffers_ok(void *hp, integer n, float *p, float *s0, float *s1, float *s2,
                                 float *g) =
        \valid(s0 + (0 .. n - 1)) && \valid(s1 + (0 .. n - 1)) &&
        \separated(p + (0 .. n - 1), s0 + (0 .. n - 1), s1 + (0 .. n - 1), g + (0 .. n - 1)) &&
        (((oc_adam_hparams *)hp)->amsgrad != 0 ==>
            \valid(s2 + (0 .. n - 1)) &&
            \separated(s2 + (0 .. n - 1), p + (0 .. n - 1), s0 + (0 .. n - 1), s1 + (0 .. n - 1),
                       g + (0 .. n - 1)));
*/

/*@ requires oc_adam_hp_readable(hp);
    assigns \nothing;
    ensures \result == oc_adam_state_count(hp);
*/
int oc_adam_elementwise_state_count(const void *hp);

/*@ requires oc_adam_hp_readable(hp);
    assigns \nothing;
*/
oc_status oc_adam_elementwise_check(const void *hp, int64_t step);

/*@ requires oc_adam_hp_readable(hp);
    requires n <= 0x10000000;
    requires \valid_read(state + (0 .. 2)) && \valid(p + (0 .. n-1)) && \valid_read(g + (0 .. n-1));
    requires oc_adam_buffers_ok(hp, n, p, state[0], state[1], state[2], g);
    assigns p[0 .. n-1], state[0][0 .. n-1], state[1][0 .. n-1], state[2][0 .. n-1], errno;
*/
oc_status oc_adam_elementwise_step(const void *hp, int64_t step, size_t n, float *p,
                                   float *const *state, const float *g);

#endif
