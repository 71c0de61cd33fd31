/* SGD mutants (spec/sgd.md §5): the reference's elements recomposed from its pieces, with one
 * stage replaced by a catalogued mistake. */
#include "sgd.h"

static const char *const names[OC_SGD_MUTANT_COUNT] = {
    "correct",
    "nesterov-uses-buffer",
    "dampening-on-first-step",
    "lerp-weights-swapped",
    "maximize-after-decay",
    "decay-skipped-without-momentum",
};

static const char *const descriptions[OC_SGD_MUTANT_COUNT] = {
    "the reference itself",
    "Nesterov direction is the new buffer buf' instead of g + mu*buf' (ema: (1-mu)*g + mu*buf')",
    "torch step 1: buf = (1-dampening)*g, not g (what a zero-initialised buffer gives)",
    "ema: buf = (1-mu)*buf + mu*g and Nesterov mu*g + (1-mu)*buf' (lerp weights exchanged)",
    "torch maximize negates g + wd*p instead of negating g before the L2 term",
    "torch: weight decay ignored when momentum is 0 (ml-explore/mlx #440)",
};

const char *oc_sgd_mutant_name(oc_sgd_mutant mu)
{
    return (unsigned)mu < OC_SGD_MUTANT_COUNT ? names[mu] : NULL;
}

const char *oc_sgd_mutant_description(oc_sgd_mutant mu)
{
    return (unsigned)mu < OC_SGD_MUTANT_COUNT ? descriptions[mu] : NULL;
}

/* Torch profile: decay skipped without momentum or negated with g (SGD-WD-1, SGD-MAX-1),
 * dampening on the first step (SGD-BUF-1), Nesterov on the buffer alone (SGD-NEST-1). */
static void torch_element(oc_sgd_mutant mu, const oc_sgd_hparams *hp, int first, float *p,
                          float *buf, float grad)
{
    const double p0 = *p, m = hp->momentum;
    oc_sgd_hparams h = *hp;
    if (mu == OC_SGD_MUT_DECAY_SKIPPED_WITHOUT_MOMENTUM && m == 0.0)
        h.weight_decay = 0.0;
    const double ge = mu == OC_SGD_MUT_MAXIMIZE_AFTER_DECAY && hp->maximize
                          ? -((double)grad + hp->weight_decay * p0)
                          : oc_sgd_torch_gradient(&h, p0, grad);
    double dir = ge;
    if (m != 0.0) {
        const double damped = mu == OC_SGD_MUT_DAMPENING_ON_FIRST_STEP
                                  ? (1.0 - hp->dampening) * ge
                                  : ge;
        const float bs = first ? (float)damped : oc_sgd_torch_buffer(hp, *buf, ge);
        *buf = bs;
        dir = mu == OC_SGD_MUT_NESTEROV_USES_BUFFER ? bs : oc_sgd_torch_direction(hp, ge, bs);
    }
    *p = oc_sgd_param(hp, p0, dir);
}

/* EMA profile: the lerp weights exchanged (SGD-BUF-2), Nesterov on the buffer alone
 * (SGD-NEST-2). */
static void ema_element(oc_sgd_mutant mu, const oc_sgd_hparams *hp, float *p, float *buf,
                        float grad)
{
    const double p0 = *p, g = grad, m = hp->momentum;
    const int swapped = mu == OC_SGD_MUT_LERP_WEIGHTS_SWAPPED;
    const double keep = swapped ? 1.0 - m : m, take = swapped ? m : 1.0 - m;
    double dir = g;
    if (m != 0.0) {
        const float bs = oc_sgd_ema_buffer(keep, take, *buf, g);
        *buf = bs;
        dir = mu == OC_SGD_MUT_NESTEROV_USES_BUFFER ? bs
                                                    : oc_sgd_ema_direction(hp, keep, take, g, bs);
    }
    *p = oc_sgd_param(hp, p0, dir);
}

oc_status oc_sgd_mutant_step(oc_sgd_mutant mu, const oc_sgd_hparams *hp, int64_t step, size_t n,
                             float *p, float *buf, const float *g)
{
    if (mu == OC_SGD_CORRECT || (unsigned)mu >= OC_SGD_MUTANT_COUNT || hp == NULL ||
        oc_sgd_check_args(hp, step, n, p, buf, g) != OC_OK)
        return oc_ref_sgd_step(hp, step, n, p, buf, g);
    const int momentum = hp->momentum != 0.0;
    for (size_t i = 0; i < n; i++) {
        float *bi = momentum ? &buf[i] : NULL;
        if (hp->profile == OC_SGD_TORCH)
            torch_element(mu, hp, step == 1, &p[i], bi, g[i]);
        else
            ema_element(mu, hp, &p[i], bi, g[i]);
    }
    return OC_OK;
}
