/* SGD with momentum, Nesterov, dampening, weight decay, under two profiles (spec/sgd.md). */
#ifndef OPTCERT_SGD_H
#define OPTCERT_SGD_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/acsl.h"
#include "optcert/status.h"
#include <string.h> /* for the ACSL below (valid_read_string) */

typedef enum oc_sgd_profile {
    OC_SGD_TORCH = 0, /* torch.optim.SGD: buf = mu*buf + (1-dampening)*g, first step buf = g  SGD-PROF-TORCH */
    OC_SGD_EMA,       /* EMA/lerp form of the Muon implementations: buf = lerp(buf, g, 1-mu)   SGD-PROF-EMA */
    OC_SGD_PROFILE_COUNT
} oc_sgd_profile;

typedef struct oc_sgd_hparams {
    oc_sgd_profile profile;
    double lr;           /* >= 0                                                  SGD-HP-1 */
    double momentum;     /* mu in [0, 1)                                          SGD-HP-1 */
    double dampening;    /* in [0, 1]; torch only (0 elsewhere)                   SGD-HP-1 */
    double weight_decay; /* >= 0: L2 into g (torch), decoupled p *= 1-lr*wd (ema) SGD-WD-1/2 */
    int nesterov;        /* torch: requires momentum > 0 and dampening == 0       SGD-NEST-1 */
    int maximize;        /* torch only                                            SGD-MAX-1 */
} oc_sgd_hparams;

/*@ // SGD-HP-1, SGD-HP-2, SGD-PROF-*: what oc_sgd_check accepts.
    predicate sgd_hparams_ok(oc_sgd_hparams *hp, int64_t step) =
        1 <= step &&
        finite_ge0(hp->lr) &&
        \is_finite(hp->momentum) && 0.0 <= hp->momentum < 1.0 &&
        \is_finite(hp->dampening) && 0.0 <= hp->dampening <= 1.0 &&
        finite_ge0(hp->weight_decay) &&
        (hp->profile == OC_SGD_TORCH || hp->profile == OC_SGD_EMA) &&
        (hp->profile == OC_SGD_TORCH && hp->nesterov != 0 ==>
             hp->momentum > 0.0 && hp->dampening == 0.0) &&
        (hp->profile == OC_SGD_EMA ==> hp->maximize == 0 && hp->dampening == 0.0);
*/

const char *oc_sgd_profile_name(oc_sgd_profile pr);
/*@ requires name_ok: valid_read_string(name);
    requires out_ok: \valid(out);
    assigns *out;
    ensures status: \result == OC_OK || \result == OC_ERR_BAD_PROFILE;
    ensures known: \result == OC_OK ==> 0 <= *out < OC_SGD_PROFILE_COUNT; */
oc_status oc_sgd_profile_parse(const char *name, oc_sgd_profile *out);

/* Checks hyper-parameters and step against SGD-HP-1/2 and the profile's options. */
/*@ requires valid_hp: \valid_read(hp);
    assigns \nothing;
    ensures ok: \result == OC_OK ==> sgd_hparams_ok(hp, step);
    ensures rejects: !sgd_hparams_ok(hp, step) ==> \result != OC_OK;
*/
oc_status oc_sgd_check(const oc_sgd_hparams *hp, int64_t step);

/* SGD-ERR-1: what oc_ref_sgd_step checks before it writes (hyper-parameters, step, and the
 * buffers: present, aligned, disjoint; buf only with momentum). */
/*@ requires valid_hp: \valid_read(hp);
    requires n_bound: n <= 0x10000000;
    assigns \nothing;
    ensures ok: \result == OC_OK ==> sgd_hparams_ok(hp, step);
    ensures rejects: !sgd_hparams_ok(hp, step) ==> \result != OC_OK;
*/
oc_status oc_sgd_check_args(const oc_sgd_hparams *hp, int64_t step, size_t n, const float *p,
                            const float *buf, const float *g);

/* The pieces of the step, each a rule of spec/sgd.md, for hyper-parameters that pass
 * oc_sgd_check (the harness's mutants, conformance/mutants/sgd.c, recombine them). */
/*@ requires valid_hp: \valid_read(hp);
    assigns \nothing; */
double oc_sgd_torch_gradient(const oc_sgd_hparams *hp, double p, double g);   /* MAX-1, WD-1 */
/*@ requires valid_hp: \valid_read(hp);
    assigns \nothing; */
float oc_sgd_torch_buffer(const oc_sgd_hparams *hp, double buf, double g);    /* BUF-1 */
/*@ requires valid_hp: \valid_read(hp);
    assigns \nothing; */
double oc_sgd_torch_direction(const oc_sgd_hparams *hp, double g, double buf); /* NEST-1 */
/*@ assigns \nothing; */
float oc_sgd_ema_buffer(double keep, double take, double buf, double g);       /* BUF-2 */
/*@ requires valid_hp: \valid_read(hp);
    assigns \nothing; */
double oc_sgd_ema_direction(const oc_sgd_hparams *hp, double keep, double take, double g,
                            double buf);                                       /* NEST-2 */
/*@ requires valid_hp: \valid_read(hp);
    assigns \nothing; */
float oc_sgd_param(const oc_sgd_hparams *hp, double p, double direction);      /* UPD-1, WD-2 */

/* One step (step >= 1) on n elements: p and the momentum buffer buf (fp32) updated in place.
 * buf is read only when momentum > 0 (may be NULL otherwise); in the torch profile the input
 * buffer of step 1 is ignored (torch creates it from g, SGD-BUF-1). On error nothing is written. */
/*@ requires valid_hp: \valid_read(hp);
    requires n_bound: n <= 0x10000000;
    requires valid_bufs: sgd_hparams_ok(hp, step) ==>
             \valid(p + (0 .. n-1)) && \valid_read(g + (0 .. n-1));
    requires valid_buf: sgd_hparams_ok(hp, step) && hp->momentum != 0.0 ==>
             \valid(buf + (0 .. n-1));
    requires separated_p_g: \separated(p + (0 .. n-1), g + (0 .. n-1));
    requires separated_buf: hp->momentum != 0.0 ==>
             \separated(buf + (0 .. n-1), p + (0 .. n-1), g + (0 .. n-1));
    // buf is written only with momentum.
    assigns p[0 .. n-1], buf[0 .. (hp->momentum != 0.0 ? n-1 : -1)];
    behavior invalid:
      assumes !sgd_hparams_ok(hp, step);
      assigns \nothing;
      ensures rejected: \result != OC_OK;
    behavior maybe_valid:
      assumes sgd_hparams_ok(hp, step);
    complete behaviors;
    disjoint behaviors;
*/
oc_status oc_ref_sgd_step(const oc_sgd_hparams *hp, int64_t step, size_t n, float *p, float *buf,
                          const float *g);

/* The element-wise interface (optcert/elementwise.h: oc_elementwise_sgd) that mixed precision
 * (MP-STORE-1) and the guarded step (STEP-ERR-1, STEP-TAKE-1) call: hp is an oc_sgd_hparams; the
 * state is buf with momentum (SGD-BUF-1). */
/* Its facts for the proofs of the callers, which the build composes over every element-wise
 * algorithm (cmake/registry.cmake, optcert_elementwise_logic): hp readable, the state count and
 * the buffers of one tensor that its step reads and writes (p, the states s0..s2, g: buf with momentum),
 * valid and separated as the step requires. */
/*@ predicate oc_sgd_hp_readable(void *hp) = \valid_read((oc_sgd_hparams *)hp);
    logic integer oc_sgd_state_count(void *hp) = ((oc_sgd_hparams *)hp)->momentum != 0.0 ? 1 : 0;
    predicate oc_sgd_buffers_ok(void *hp, integer n, float *p, float *s0, float *s1, float *s2,
                                float *g) =
        \separated(p + (0 .. n - 1), g + (0 .. n - 1)) &&
        (((oc_sgd_hparams *)hp)->momentum != 0.0 ==>
            \valid(s0 + (0 .. n - 1)) && \separated(s0 + (0 .. n - 1), p + (0 .. n - 1), g + (0 .. n - 1)));
*/

/*@ requires oc_sgd_hp_readable(hp);
    assigns \nothing;
    ensures \result == oc_sgd_state_count(hp);
*/
int oc_sgd_elementwise_state_count(const void *hp);

/*@ requires oc_sgd_hp_readable(hp);
    assigns \nothing;
*/
oc_status oc_sgd_elementwise_check(const void *hp, int64_t step);

/*@ requires oc_sgd_hp_readable(hp);
    requires n <= 0x10000000;
    requires \valid_read(state) && \valid(p + (0 .. n-1)) && \valid_read(g + (0 .. n-1));
    requires oc_sgd_buffers_ok(hp, n, p, state[0], \null, \null, g); // the one state, buf
    assigns p[0 .. n-1], state[0][0 .. n-1];
*/
oc_status oc_sgd_elementwise_step(const void *hp, int64_t step, size_t n, float *p,
                                  float *const *state, const float *g);

#endif
