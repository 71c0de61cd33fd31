/* Lion mutants (spec/lion.md §5): the reference's element recomposed from its pieces, with one
 * stage replaced by a catalogued mistake. */
#include <math.h>
#include "lion.h"

static const char *const names[OC_LION_MUTANT_COUNT] = {
    "correct",
    "momentum-before-sign",
    "betas-swapped",
    "decay-not-scaled-by-lr",
    "coupled-decay",
    "sign-zero-is-one",
    "sign-nan-is-nan",
};

static const char *const descriptions[OC_LION_MUTANT_COUNT] = {
    "the reference itself",
    "momentum updated first: c = b1*m' + (1-b1)*g uses the new momentum instead of the old",
    "beta1 and beta2 swapped",
    "decoupled decay p *= 1 - wd, not multiplied by the learning rate",
    "L2 decay g += wd*p before sign and momentum, not decoupled (bitsandbytes #1992)",
    "sign(0) = +1, as where(c >= 0, 1, -1) gives, instead of sign(0) = 0",
    "sign(NaN) = NaN (jnp.sign, IEEE) instead of torch.sign's 0: a NaN c makes p NaN",
};

const char *oc_lion_mutant_name(oc_lion_mutant mu)
{
    return (unsigned)mu < OC_LION_MUTANT_COUNT ? names[mu] : NULL;
}

const char *oc_lion_mutant_description(oc_lion_mutant mu)
{
    return (unsigned)mu < OC_LION_MUTANT_COUNT ? descriptions[mu] : NULL;
}

/* The betas swapped (LION-M-1, LION-DIR-1), the decay unscaled or coupled into g (LION-WD-1),
 * the sign taken of the new momentum (LION-DIR-1), with sign(0) = +1 or sign(NaN) = NaN
 * (LION-SIGN-1). */
static void element(oc_lion_mutant mu, const oc_lion_hparams *hp, float *p, float *m,
                    float grad)
{
    const double p0 = *p, m0 = *m;
    const int swapped = mu == OC_LION_MUT_BETAS_SWAPPED;
    const double b1 = swapped ? hp->beta2 : hp->beta1, b2 = swapped ? hp->beta1 : hp->beta2;
    const int coupled = mu == OC_LION_MUT_COUPLED_DECAY;
    const double g = coupled ? (double)grad + hp->weight_decay * p0 : (double)grad;
    const double decay = coupled                                   ? 0.0
                         : mu == OC_LION_MUT_DECAY_NOT_SCALED_BY_LR ? hp->weight_decay
                                                                    : hp->lr * hp->weight_decay;
    const float m1 = oc_lion_momentum(b2, m0, g);
    double s = oc_lion_sign(b1, mu == OC_LION_MUT_MOMENTUM_BEFORE_SIGN ? m1 : m0, g);
    if (mu == OC_LION_MUT_SIGN_ZERO_IS_ONE)
        s = s >= 0.0 ? 1.0 : -1.0; /* where(c >= 0, 1, -1) on the sign */
    if (mu == OC_LION_MUT_SIGN_NAN_IS_NAN && isnan(b1 * m0 + (1.0 - b1) * g))
        s = NAN;
    *p = oc_lion_param(hp->lr, decay, p0, s);
    *m = m1;
}

oc_status oc_lion_mutant_step(oc_lion_mutant mu, const oc_lion_hparams *hp, int64_t step,
                              size_t n, float *p, float *m, const float *g)
{
    if (mu == OC_LION_CORRECT || (unsigned)mu >= OC_LION_MUTANT_COUNT || hp == NULL ||
        oc_lion_check_args(hp, step, n, p, m, g) != OC_OK)
        return oc_ref_lion_step(hp, step, n, p, m, g);
    for (size_t i = 0; i < n; i++)
        element(mu, hp, &p[i], &m[i], g[i]);
    return OC_OK;
}
