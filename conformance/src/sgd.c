/* SGD in the harness (spec/sgd.md): its hyper-parameters, options, a step through an
 * implementation's table, the reference's entry point with its mutants, and its descriptor
 * (algos.h). */
#include "algos.h"
#include "judge.h"
#include "tolcap_model.h"
#include "ref_impl.h"
#include "../mutants/mixed.h"
#include "../mutants/sgd.h"

static const char *sgd_mutant(int mu)
{
    return mu < OC_SGD_MUTANT_COUNT ? oc_sgd_mutant_name((oc_sgd_mutant)mu)
                                    : oc_elementwise_mutant_name(mu, OC_SGD_MUTANT_COUNT);
}
static int sgd_nstate(const oc_hparams *hp) { return hp->sgd.momentum != 0.0 ? 2 : 1; }

static oc_status sgd_parse(const char *path, const char *profile, json_t *h, oc_hparams *u,
                           oc_diag *d)
{
    oc_sgd_hparams *hp = &u->sgd;
    oc_status st;
    if (oc_sgd_profile_parse(profile, &hp->profile) != OC_OK)
        return oc_bad_profile(path, "SGD", profile, d);
    if ((st = oc_get_hex(path, h, "lr", &hp->lr, d)) ||
        (st = oc_get_hex(path, h, "momentum", &hp->momentum, d)) ||
        (st = oc_get_hex(path, h, "dampening", &hp->dampening, d)) ||
        (st = oc_get_hex(path, h, "weightDecay", &hp->weight_decay, d)) ||
        (st = oc_get_bool(path, h, "nesterov", &hp->nesterov, d)) ||
        (st = oc_get_bool(path, h, "maximize", &hp->maximize, d)))
        return st;
    return OC_OK;
}

/* VEC-ABI-2: bit 0 "nesterov", bit 1 "maximize" (options[]). */
static unsigned sgd_needs(const oc_hparams *hp)
{
    return (hp->sgd.nesterov ? 1u : 0u) | (hp->sgd.maximize ? 2u : 0u);
}

static oc_status sgd_step(const oc_runner *impl, const oc_hparams *hp, int64_t t, size_t n,
                          float *const *s, const float *g)
{
    return OC_ENTRY(impl, oc_sgd_step_fn)(impl->ctx, &hp->sgd, t, n, s[0],
                                          hp->sgd.momentum != 0.0 ? s[1] : NULL, g);
}

static double *sgd_decay(oc_hparams *hp) { return &hp->sgd.weight_decay; }

/* The case's hyper-parameters: oc_hparams.sgd (algos.h). */
OC_HPARAMS(oc_sgd_hparams, sgd);

/* VEC-ABI-1: the reference's entry point, running the mutant its table selects (ref_impl.h). */
static oc_status ref_sgd(void *ctx, const oc_sgd_hparams *hp, int64_t step, size_t n, float *p,
                         float *buf, const float *g)
{
    if (oc_ref_mixed_mutant(ctx, &oc_algo_sgd) != OC_MIXED_CORRECT) {
        void *const state[] = {buf};
        return oc_ref_fp32_step(ctx, &oc_algo_sgd, hp, step, n, p, state, g);
    }
    return oc_sgd_mutant_step((oc_sgd_mutant)oc_ref_own_mutant(ctx, &oc_algo_sgd), hp, step, n, p,
                              buf, g);
}

/* ---- VEC-TOL-2: its error model (tolcap.h) ---- */

/* SGD-TOL-1/2 (spec/sgd.md §4); states p, buf. */
static void sgd_element(const oc_hparams *hparams, int64_t t, const double *before,
                        const double *after, double g, double *E)
{
    const oc_sgd_hparams *hp = &hparams->sgd;
    const int torch = hp->profile == OC_SGD_TORCH, momentum = hp->momentum != 0;
    const double mu = hp->momentum, lr = hp->lr, damp = torch ? hp->dampening : mu;
    const double l2 = torch ? hp->weight_decay : 0, decay = torch ? 0 : lr * hp->weight_decay;
    const double p0 = fabs(before[0]), b0 = fabs(before[1]);
    const double geff = fma(l2, before[0], hp->maximize ? -g : g); /* SGD-MAX-1, SGD-WD-1 */
    double eg = l2 > 0 ? l2 * E[0] + K_GRAD * U * (fabs(g) + l2 * (p0 + E[0])) + ETA : 0;
    double eb = 0, ed = eg, d = geff;
    if (momentum) {
        if (torch && t == 1) /* SGD-BUF-1: buf = g */
            eb = eg + 2 * U * (fabs(geff) + eg) + ETA;
        else
            eb = mu * E[1] + (1 - damp) * eg +
                 K_MOMENT * U * (mu * (b0 + E[1]) + (1 - damp) * (fabs(geff) + eg)) + 4 * ETA;
        double wg = torch ? 1 : 1 - mu, bbar = fabs(after[1]);
        d = hp->nesterov ? mu * after[1] + wg * geff : after[1]; /* SGD-NEST-1/2 */
        if (hp->nesterov)
            ed = wg * eg + mu * eb + K_NESTEROV * U * (wg * (fabs(geff) + eg) + mu * (bbar + eb)) +
                 2 * ETA;
        else
            ed = eb;
    }
    double a = fabs(1 - decay);
    E[0] = oc_tolcap_widen(a * E[0] + lr * ed +
                 K_PARAM * U * ((p0 + E[0]) * (a + decay) + lr * (fabs(d) + ed)) +
                 4 * ETA * fmax(1, lr));
    E[1] = momentum ? oc_tolcap_widen(eb) : 0;
}

/* STEP-TOL-2 (b): the domain where sgd_grad_sensitivity holds. */
static int sgd_sensitivity_defined(const oc_hparams *hp) { return hp->sgd.profile == OC_SGD_TORCH; }

/* STEP-TOL-2 (b): torch, buf and p affine in g (buf = g at step 1). */
static void sgd_grad_sensitivity(const oc_hparams *hp, int64_t t, const double *before,
                                 const double *E, double g, double eg, double *add)
{
    (void)before, (void)E, (void)g;
    const oc_sgd_hparams *h = &hp->sgd;
    double eb = h->momentum == 0 ? 0 : (t == 1 ? 1 : 1 - h->dampening) * eg;
    add[0] = h->lr * (h->momentum == 0 ? eg : h->nesterov ? eg + h->momentum * eb : eb);
    add[1] = eb;
}

static const oc_tolcap_model sgd_tolcap = {
    .element = sgd_element,
    .sensitivity_defined = sgd_sensitivity_defined,
    .sensitivity_domain = "torch",
    .grad_sensitivity = sgd_grad_sensitivity,
};

const oc_algo oc_algo_sgd = {
    .name = "sgd",
    .group_type = "SgdStep",
    .state_names = {"p", "buf"},
    .precision = 24,
    .nmutants = OC_SGD_MUTANT_COUNT + OC_MIXED_MUTANTS,
    .mutant_name = sgd_mutant,
    .nstate = sgd_nstate,
    .parse = sgd_parse,
    .options = {"nesterov", "maximize"},
    .needs = sgd_needs,
    .load_case = oc_load_tensor_case,
    .run = oc_run_elementwise,
    .step = sgd_step,
    .own_mutants = OC_SGD_MUTANT_COUNT,
    .alg = OC_ALG_SGD,
    .decay = sgd_decay,
    .cap_tolerances = oc_tolcap_elementwise,
    .tolcap = &sgd_tolcap,
    .reference = (oc_entry_point)ref_sgd,
};
