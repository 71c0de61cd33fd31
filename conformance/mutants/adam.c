/* Adam mutants (spec/adam.md §5): the reference's step recomposed from its pieces, with one
 * stage replaced by a catalogued mistake. */
#include <math.h>
#include "adam.h"

static const char *const names[OC_ADAM_MUTANT_COUNT] = {
    "correct",
    "eps-inside-sqrt",
    "no-bias-correction",
    "bias-correction-t-minus-1",
    "bias-correction-t-plus-1",
    "l2-instead-of-decoupled",
    "decay-not-scaled-by-lr",
    "decay-after-update",
    "eps-hat-convention-swapped",
    "betas-swapped",
    "v-with-abs-g",
    "amsgrad-max-of-vhat",
};

static const char *const descriptions[OC_ADAM_MUTANT_COUNT] = {
    "the reference itself",
    "denominator sqrt(v_hat + eps) instead of sqrt(v_hat) + eps",
    "bias correction omitted: bc1 = bc2 = 1",
    "bias correction with t-1 instead of t (a counter that starts at 0)",
    "bias correction with t+1 instead of t (counter incremented twice)",
    "weight decay added to the gradient (L2) where decoupled decay was meant",
    "decoupled decay p *= 1 - wd, not multiplied by the learning rate",
    "decoupled decay applied to the updated parameter instead of before the update",
    "epsilon in the other convention: Keras eps-hat where Algorithm 1 was meant, or vice versa",
    "beta1 and beta2 swapped",
    "second moment accumulates |g| instead of g^2",
    "AMSGrad maximum taken over bias-corrected v_hat (optax) instead of raw v (torch, keras)",
};

const char *oc_adam_mutant_name(oc_adam_mutant mu)
{
    return (unsigned)mu < OC_ADAM_MUTANT_COUNT ? names[mu] : NULL;
}

const char *oc_adam_mutant_description(oc_adam_mutant mu)
{
    return (unsigned)mu < OC_ADAM_MUTANT_COUNT ? descriptions[mu] : NULL;
}

/* The per-step scalars mistaken: ADAM-BC-1 (omitted, t-1, t+1, betas swapped), ADAM-WD-1/2
 * (L2 for decoupled, decay not scaled by lr), ADAM-EPS-1 against ADAM-PROF-KERAS. */
static oc_adam_coeffs coefficients(oc_adam_mutant mu, const oc_adam_hparams *hp, int64_t step)
{
    oc_adam_hparams h = *hp;
    if (mu == OC_ADAM_MUT_BETAS_SWAPPED)
        h.beta1 = hp->beta2, h.beta2 = hp->beta1;
    if (mu == OC_ADAM_MUT_L2_INSTEAD_OF_DECOUPLED)
        h.decoupled = 0;
    oc_adam_coeffs c;
    oc_adam_coefficients(&h, step, &c);
    const int later = mu == OC_ADAM_MUT_BIAS_CORRECTION_T_PLUS_1;
    if (later || mu == OC_ADAM_MUT_BIAS_CORRECTION_T_MINUS_1) {
        const double t = (double)step + (later ? 1.0 : -1.0);
        c.bc1 = 1.0 - pow(c.beta1, t);
        c.bc2 = 1.0 - pow(c.beta2, t);
    }
    if (mu == OC_ADAM_MUT_NO_BIAS_CORRECTION)
        c.bc1 = c.bc2 = 1.0;
    if (mu == OC_ADAM_MUT_DECAY_NOT_SCALED_BY_LR && h.decoupled)
        c.decay = h.weight_decay;
    if (mu == OC_ADAM_MUT_EPS_HAT)
        c.eps_hat = !c.eps_hat;
    return c;
}

/* The element mistaken: |g| for g^2 (ADAM-V-1), the AMSGrad maximum over v / bc2
 * (ADAM-AMS-1), eps inside the square root (ADAM-EPS-1), decay after the update (ADAM-WD-2). */
static void element(oc_adam_mutant mu, const oc_adam_hparams *hp, const oc_adam_coeffs *c,
                    float *p, float *m, float *v, float *vmax, float grad)
{
    const double p0 = *p;
    const double g = oc_adam_gradient(hp, c, p0, grad);
    const float m1 = oc_adam_average(c->beta1, *m, g);
    const double g2 = mu == OC_ADAM_MUT_V_WITH_ABS_G ? fabs(g) : g * g;
    const float v1 = oc_adam_average(c->beta2, *v, g2);
    *m = m1;
    *v = v1;
    double vv = v1;
    if (hp->amsgrad)
        vv = mu == OC_ADAM_MUT_AMSGRAD_MAX_OF_VHAT ? oc_adam_amsgrad(vmax, v1 / c->bc2) * c->bc2
                                                  : oc_adam_amsgrad(vmax, v1);
    const double denom = mu != OC_ADAM_MUT_EPS_INSIDE_SQRT ? oc_adam_denominator(hp, c, vv)
                         : c->eps_hat ? sqrt(vv + hp->eps)
                                      : sqrt(vv / c->bc2 + hp->eps_root + hp->eps);
    const double dir = oc_adam_direction(c, m1, denom);
    *p = mu == OC_ADAM_MUT_DECAY_AFTER_UPDATE
             ? (float)((p0 - c->step_mult * dir) * (1.0 - c->decay))
             : oc_adam_param(c, p0, dir);
}

oc_status oc_adam_mutant_step(oc_adam_mutant mu, const oc_adam_hparams *hp, int64_t step,
                              size_t n, float *p, float *m, float *v, float *vmax,
                              const float *g)
{
    if (mu == OC_ADAM_CORRECT || (unsigned)mu >= OC_ADAM_MUTANT_COUNT || hp == NULL ||
        oc_adam_check_args(hp, step, n, p, m, v, vmax, g) != OC_OK)
        return oc_ref_adam_step(hp, step, n, p, m, v, vmax, g);
    const oc_adam_coeffs c = coefficients(mu, hp, step);
    for (size_t i = 0; i < n; i++)
        element(mu, hp, &c, &p[i], &m[i], &v[i], hp->amsgrad ? &vmax[i] : NULL, g[i]);
    return OC_OK;
}
