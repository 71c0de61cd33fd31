/* SGD with momentum, Nesterov, dampening, weight decay, under two profiles (spec/sgd.md). */
#ifndef OPTCERT_SGD_H
#define OPTCERT_SGD_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/status.h"

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

const char *oc_sgd_profile_name(oc_sgd_profile pr);
oc_status oc_sgd_profile_parse(const char *name, oc_sgd_profile *out);

/* Checks hyper-parameters and step against SGD-HP-1/2 and the profile's options. */
oc_status oc_sgd_check(const oc_sgd_hparams *hp, int64_t step);

/* SGD-ERR-1: what oc_ref_sgd_step checks before it writes (hyper-parameters, step, and the
 * buffers: present, aligned, disjoint; buf only with momentum). */
oc_status oc_sgd_check_args(const oc_sgd_hparams *hp, int64_t step, size_t n, const float *p,
                            const float *buf, const float *g);

/* The pieces of the step, each a rule of spec/sgd.md, for hyper-parameters that pass
 * oc_sgd_check (the harness's mutants, conformance/mutants/sgd.c, recombine them). Their ACSL
 * contracts are in ref/sgd.c, as for ref/adam.c. */
double oc_sgd_torch_gradient(const oc_sgd_hparams *hp, double p, double g);   /* MAX-1, WD-1 */
float oc_sgd_torch_buffer(const oc_sgd_hparams *hp, double buf, double g);    /* BUF-1 */
double oc_sgd_torch_direction(const oc_sgd_hparams *hp, double g, double buf); /* NEST-1 */
float oc_sgd_ema_buffer(double keep, double take, double buf, double g);       /* BUF-2 */
double oc_sgd_ema_direction(const oc_sgd_hparams *hp, double keep, double take, double g,
                            double buf);                                       /* NEST-2 */
float oc_sgd_param(const oc_sgd_hparams *hp, double p, double direction);      /* UPD-1, WD-2 */

/* One step (step >= 1) on n elements: p and the momentum buffer buf (fp32) updated in place.
 * buf is read only when momentum > 0 (may be NULL otherwise); in the torch profile the input
 * buffer of step 1 is ignored (torch creates it from g, SGD-BUF-1). On error nothing is written. */
oc_status oc_ref_sgd_step(const oc_sgd_hparams *hp, int64_t step, size_t n, float *p, float *buf,
                          const float *g);

#endif
