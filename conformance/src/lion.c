/* Lion in the harness (spec/lion.md): its hyper-parameters, options, a step through an
 * implementation's table, the reference's entry point with its mutants, and its descriptor
 * (algos.h). */
#include "algos.h"
#include "judge.h"
#include "tolcap_model.h"
#include "ref_impl.h"
#include "../mutants/lion.h"
#include "../mutants/mixed.h"

static const char *lion_mutant(int mu)
{
    return mu < OC_LION_MUTANT_COUNT ? oc_lion_mutant_name((oc_lion_mutant)mu)
                                     : oc_elementwise_mutant_name(mu, OC_LION_MUTANT_COUNT);
}
static int lion_nstate(const oc_hparams *hp) { return (void)hp, 2; }

static oc_status lion_parse(const char *path, const char *profile, json_t *h, oc_hparams *u,
                            oc_diag *d)
{
    oc_lion_hparams *hp = &u->lion;
    oc_status st;
    if (oc_lion_profile_parse(profile, &hp->profile) != OC_OK)
        return oc_bad_profile(path, "Lion", profile, d);
    if ((st = oc_get_hex(path, h, "lr", &hp->lr, d)) || (st = oc_get_hex(path, h, "beta1", &hp->beta1, d)) ||
        (st = oc_get_hex(path, h, "beta2", &hp->beta2, d)) ||
        (st = oc_get_hex(path, h, "weightDecay", &hp->weight_decay, d)))
        return st;
    return OC_OK;
}

static oc_status lion_step(const oc_runner *impl, const oc_hparams *hp, int64_t t, size_t n,
                           float *const *s, const float *g)
{
    return OC_ENTRY(impl, oc_lion_step_fn)(impl->ctx, &hp->lion, t, n, s[0], s[1], g);
}

static double *lion_decay(oc_hparams *hp) { return &hp->lion.weight_decay; }

/* The case's hyper-parameters: oc_hparams.lion (algos.h). */
OC_HPARAMS(oc_lion_hparams, lion);

/* VEC-ABI-1: the reference's entry point, running the mutant its table selects (ref_impl.h). */
static oc_status ref_lion(void *ctx, const oc_lion_hparams *hp, int64_t step, size_t n, float *p,
                          float *m, const float *g)
{
    if (oc_ref_mixed_mutant(ctx, &oc_algo_lion) != OC_MIXED_CORRECT) {
        void *const state[] = {m};
        return oc_ref_fp32_step(ctx, &oc_algo_lion, hp, step, n, p, state, g);
    }
    return oc_lion_mutant_step((oc_lion_mutant)oc_ref_own_mutant(ctx, &oc_algo_lion), hp, step, n,
                               p, m, g);
}

/* ---- VEC-TOL-2: its error model (tolcap.h) ---- */

/* LION-TOL-1/2 (spec/lion.md §4); states p, m. */
static void lion_element(const oc_hparams *hparams, int64_t t, const double *before,
                         const double *after, double g, double *E)
{
    (void)t, (void)after;
    const oc_lion_hparams *hp = &hparams->lion;
    const double b1 = hp->beta1, b2 = hp->beta2, lr = hp->lr, decay = hp->lr * hp->weight_decay;
    const double p0 = fabs(before[0]), m0 = fabs(before[1]), g0 = fabs(g);
    double cmag = b1 * (m0 + E[1]) + (1 - b1) * g0;
    /* |c| computed in binary64 (within 2^-51 cmag of the exact |c|) is below the widened E_c
     * whenever the exact |c| is below E_c; E_c = 0 (c and its error exactly zero) as is */
    double ec = b1 * E[1] + K_INTERP * U * cmag + (cmag > 0 ? 3 * ETA : 0);
    double cabs = fabs(b1 * before[1] + (1 - b1) * g);                   /* LION-DIR-1 */
    /* LION-SIGN-1: an infinite c has the same sign in every evaluation */
    double sign_error = isfinite(cabs) && cabs <= oc_tolcap_widen(ec) && ec > 0 ? 2 : 0;
    double a = fabs(1 - decay);
    E[0] = oc_tolcap_widen(a * E[0] + lr * sign_error +
                 K_PARAM_LION * U * ((p0 + E[0]) * (a + decay) + lr) + 4 * ETA);
    E[1] = oc_tolcap_widen(b2 * E[1] + K_MOMENT * U * (b2 * (m0 + E[1]) + (1 - b2) * g0) + 4 * ETA);
}

/* STEP-TOL-2 (b): the domain where lion_grad_sensitivity holds. */
static int lion_sensitivity_defined(const oc_hparams *hp) { return (void)hp, 1; }

/* STEP-TOL-2 (b): the sign of c may flip within its bound. */
static void lion_grad_sensitivity(const oc_hparams *hp, int64_t t, const double *before,
                                  const double *E, double g, double eg, double *add)
{
    (void)t;
    const oc_lion_hparams *h = &hp->lion;
    double m0 = fabs(before[1]) + E[1];
    double c = h->beta1 * before[1] + (1 - h->beta1) * g;
    double ec = h->beta1 * E[1] + K_INTERP * U * (h->beta1 * m0 + (1 - h->beta1) * fabs(g)) +
                3 * ETA + (1 - h->beta1) * eg;
    add[0] = fabs(c) <= 2 * oc_tolcap_widen(ec) ? 2 * h->lr : 0;
    add[1] = (1 - h->beta2) * eg;
}

static const oc_tolcap_model lion_tolcap = {
    .element = lion_element,
    .sensitivity_defined = lion_sensitivity_defined,
    .sensitivity_domain = "every profile",
    .grad_sensitivity = lion_grad_sensitivity,
};

const oc_algo oc_algo_lion = {
    .name = "lion",
    .group_type = "LionStep",
    .state_names = {"p", "m"},
    .precision = 24,
    .nmutants = OC_LION_MUTANT_COUNT + OC_MIXED_MUTANTS,
    .mutant_name = lion_mutant,
    .nstate = lion_nstate,
    .parse = lion_parse,
    .load_case = oc_load_tensor_case,
    .run = oc_run_elementwise,
    .step = lion_step,
    .own_mutants = OC_LION_MUTANT_COUNT,
    .alg = OC_ALG_LION,
    .decay = lion_decay,
    .cap_tolerances = oc_tolcap_elementwise,
    .tolcap = &lion_tolcap,
    .reference = (oc_entry_point)ref_lion,
};
