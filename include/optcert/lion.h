/* Lion (Chen et al. 2023), spec/lion.md. */
#ifndef OPTCERT_LION_H
#define OPTCERT_LION_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/acsl.h"
#include "optcert/status.h"
#include <string.h> /* for the ACSL below (valid_read_string) */

typedef enum oc_lion_profile {
    OC_LION_TORCH = 0, /* google/automl lion_pytorch, lucidrains lion-pytorch, optax: sign(0) = 0  LION-PROF-TORCH */
    OC_LION_PROFILE_COUNT
} oc_lion_profile;

typedef struct oc_lion_hparams {
    oc_lion_profile profile;
    double lr;           /* >= 0                    LION-HP-1 */
    double beta1, beta2; /* in [0, 1)               LION-HP-1 */
    double weight_decay; /* >= 0, decoupled, lr-scaled: p *= 1 - lr*wd   LION-WD-1 */
} oc_lion_hparams;

/*@ // LION-HP-1: what oc_lion_check accepts.
    predicate lion_hparams_ok(oc_lion_hparams *hp, int64_t step) =
        1 <= step &&
        hp->profile == OC_LION_TORCH &&
        finite_ge0(hp->lr) &&
        beta_ok(hp->beta1) && beta_ok(hp->beta2) &&
        finite_ge0(hp->weight_decay);
*/

const char *oc_lion_profile_name(oc_lion_profile pr);
/*@ requires name_ok: valid_read_string(name);
    requires out_ok: \valid(out);
    assigns *out;
    ensures status: \result == OC_OK || \result == OC_ERR_BAD_PROFILE;
    ensures known: \result == OC_OK ==> 0 <= *out < OC_LION_PROFILE_COUNT; */
oc_status oc_lion_profile_parse(const char *name, oc_lion_profile *out);

/*@ requires valid_hp: \valid_read(hp);
    assigns \nothing;
    ensures ok: \result == OC_OK ==> lion_hparams_ok(hp, step);
    ensures rejects: !lion_hparams_ok(hp, step) ==> \result != OC_OK;
*/
oc_status oc_lion_check(const oc_lion_hparams *hp, int64_t step);

/* LION-ERR-1: what oc_ref_lion_step checks before it writes (hyper-parameters, step, and the
 * buffers: present, aligned, disjoint). */
/*@ requires valid_hp: \valid_read(hp);
    requires n_bound: n <= 0x10000000;
    assigns \nothing;
    ensures ok: \result == OC_OK ==> lion_hparams_ok(hp, step);
    ensures rejects: !lion_hparams_ok(hp, step) ==> \result != OC_OK;
*/
oc_status oc_lion_check_args(const oc_lion_hparams *hp, int64_t step, size_t n, const float *p,
                             const float *m, const float *g);

/* The pieces of the step, each a rule of spec/lion.md (the harness's mutants,
 * conformance/mutants/lion.c, recombine them). */
/*@ assigns \nothing;
    ensures sign: \result == -1.0 || \result == 0.0 || \result == 1.0; */
double oc_lion_sign(double b1, double m, double g);           /* DIR-1, SIGN-1: NaN c gives 0 */
/*@ assigns \nothing; */
float oc_lion_momentum(double b2, double m, double g);        /* M-1 */
/*@ assigns \nothing; */
float oc_lion_param(double lr, double decay, double p, double sign); /* UPD-1, WD-1 */

/* One step (step >= 1) on n elements: p and momentum m (fp32) updated in place.
 * On error nothing is written. */
/*@ requires valid_hp: \valid_read(hp);
    requires n_bound: n <= 0x10000000;
    requires valid_bufs: lion_hparams_ok(hp, step) ==>
             \valid(p + (0 .. n-1)) && \valid(m + (0 .. n-1)) && \valid_read(g + (0 .. n-1));
    requires separated: \separated(p + (0 .. n-1), m + (0 .. n-1), g + (0 .. n-1));
    assigns p[0 .. n-1], m[0 .. n-1];
    behavior invalid:
      assumes !lion_hparams_ok(hp, step);
      assigns \nothing;
      ensures rejected: \result != OC_OK;
    behavior maybe_valid:
      assumes lion_hparams_ok(hp, step);
    complete behaviors;
    disjoint behaviors;
*/
oc_status oc_ref_lion_step(const oc_lion_hparams *hp, int64_t step, size_t n, float *p, float *m,
                           const float *g);

/* The element-wise interface (optcert/elementwise.h: oc_elementwise_lion) that mixed precision
 * (MP-STORE-1) and the guarded step (STEP-ERR-1, STEP-TAKE-1) call: hp is an oc_lion_hparams; the
 * state is m. */
/* Its facts for the proofs of the callers, which the build composes over every element-wise
 * algorithm (cmake/registry.cmake, optcert_elementwise_logic): hp readable, the state count and
 * the buffers of one tensor that its step reads and writes (p, the states s0..s2, g: m),
 * valid and separated as the step requires. */
/*@ predicate oc_lion_hp_readable(void *hp) = \valid_read((oc_lion_hparams *)hp);
    logic integer oc_lion_state_count(void *hp) = 1;
    predicate oc_lion_buffers_ok(void *hp, integer n, float *p, float *s0, float *s1, float *s2,
                                 float *g) =
        \valid(s0 + (0 .. n - 1)) &&
        \separated(p + (0 .. n - 1), s0 + (0 .. n - 1), g + (0 .. n - 1));
*/

/*@ assigns \nothing;
    ensures \result == oc_lion_state_count(hp);
*/
int oc_lion_elementwise_state_count(const void *hp);

/*@ requires oc_lion_hp_readable(hp);
    assigns \nothing;
*/
oc_status oc_lion_elementwise_check(const void *hp, int64_t step);

/*@ requires oc_lion_hp_readable(hp) && \valid_read(state);
    requires n <= 0x10000000;
    requires \valid(p + (0 .. n-1)) && \valid_read(g + (0 .. n-1));
    requires oc_lion_buffers_ok(hp, n, p, state[0], \null, \null, g); // the one state, m
    assigns p[0 .. n-1], state[0][0 .. n-1];
*/
oc_status oc_lion_elementwise_step(const void *hp, int64_t step, size_t n, float *p,
                                   float *const *state, const float *g);

#endif
