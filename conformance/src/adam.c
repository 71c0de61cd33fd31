/* Adam in the harness (spec/adam.md): its hyper-parameters, options, a step through an
 * implementation's table, the reference's entry point with its mutants, and its descriptor
 * (algos.h). */
#include "algos.h"
#include "judge.h"
#include "tolcap_model.h"
#include "ref_impl.h"
#include "../mutants/adam.h"
#include "../mutants/mixed.h"
#include "../mutants/resume.h"

/* Adam's mutants: its own, the mixed-precision ones, then the restore mistakes of the resume
 * families (RESUME-MUT-1). */
#define ADAM_RESUME_FIRST (OC_ADAM_MUTANT_COUNT + OC_MIXED_MUTANTS)
static const char *adam_mutant(int mu)
{
    return mu < OC_ADAM_MUTANT_COUNT ? oc_adam_mutant_name((oc_adam_mutant)mu)
           : mu < ADAM_RESUME_FIRST  ? oc_elementwise_mutant_name(mu, OC_ADAM_MUTANT_COUNT)
                                     : oc_resume_mutant_name(
                                           (oc_resume_mutant)(mu - ADAM_RESUME_FIRST + 1));
}
static int adam_nstate(const oc_hparams *hp) { return hp->adam.amsgrad ? 4 : 3; }

static oc_status adam_parse(const char *path, const char *profile, json_t *h, oc_hparams *u,
                            oc_diag *d)
{
    oc_adam_hparams *hp = &u->adam;
    oc_status st;
    if (oc_adam_profile_parse(profile, &hp->profile) != OC_OK)
        return oc_bad_profile(path, "Adam", profile, d);
    if ((st = oc_get_hex(path, h, "lr", &hp->lr, d)) || (st = oc_get_hex(path, h, "beta1", &hp->beta1, d)) ||
        (st = oc_get_hex(path, h, "beta2", &hp->beta2, d)) || (st = oc_get_hex(path, h, "eps", &hp->eps, d)) ||
        (st = oc_get_hex(path, h, "weightDecay", &hp->weight_decay, d)) ||
        (st = oc_get_hex(path, h, "epsRoot", &hp->eps_root, d)) ||
        (st = oc_get_hex(path, h, "scheduleMultiplier", &hp->schedule_multiplier, d)) ||
        (st = oc_get_bool(path, h, "decoupled", &hp->decoupled, d)) ||
        (st = oc_get_bool(path, h, "amsgrad", &hp->amsgrad, d)) ||
        (st = oc_get_bool(path, h, "maximize", &hp->maximize, d)))
        return st;
    return OC_OK;
}

/* VEC-ABI-2: bit 0 "amsgrad", bit 1 "maximize" (options[]). */
static unsigned adam_needs(const oc_hparams *hp)
{
    return (hp->adam.amsgrad ? 1u : 0u) | (hp->adam.maximize ? 2u : 0u);
}

static oc_status adam_step(const oc_runner *impl, const oc_hparams *hp, int64_t t, size_t n,
                           float *const *s, const float *g)
{
    return OC_ENTRY(impl, oc_adam_step_fn)(impl->ctx, &hp->adam, t, n, s[0], s[1], s[2],
                           hp->adam.amsgrad ? s[3] : NULL, g);
}

static double *adam_decay(oc_hparams *hp) { return &hp->adam.weight_decay; }

/* The case's hyper-parameters: oc_hparams.adam (algos.h). */
OC_HPARAMS(oc_adam_hparams, adam);

/* VEC-ABI-1: the reference's entry point, running the mutant its table selects (ref_impl.h). */
static oc_status ref_adam(void *ctx, const oc_adam_hparams *hp, int64_t step, size_t n, float *p,
                          float *m, float *v, float *vmax, const float *g)
{
    if (oc_ref_mixed_mutant(ctx, &oc_algo_adam) != OC_MIXED_CORRECT) {
        void *const state[] = {m, v, vmax};
        return oc_ref_fp32_step(ctx, &oc_algo_adam, hp, step, n, p, state, g);
    }
    return oc_adam_mutant_step((oc_adam_mutant)oc_ref_own_mutant(ctx, &oc_algo_adam), hp, step, n,
                               p, m, v, vmax, g);
}

/* ---- VEC-TOL-2: its error model (tolcap.h) ---- */

/* ADAM-TOL-2 C: the relative error of 1 - b^t as an fp32 implementation may compute it. */
static double bias_error(double b, double t, double *bc)
{
    double bt = pow(b, t);
    *bc = 1 - bt;
    return (bt * (2 * U + (b > 0 ? t * fabs(log(b)) * U : 0)) + U * *bc + ETA) / *bc;
}

/* ADAM-TOL-2 D: error of sqrt(x~) against sqrt(x) when |x~ - x| <= e, plus one rounding. */
static double root_error(double x, double e)
{
    double prop = x > 0 ? fmin(sqrt(e), e / sqrt(x)) : sqrt(e);
    return prop + U * (sqrt(x) + prop);
}

/* ADAM-TOL-2 A-F (spec/adam.md §4.2); states p, m, v, vmax. */
static void adam_element(const oc_hparams *hparams, int64_t t, const double *before,
                         const double *after, double g, double *E)
{
    const oc_adam_hparams *hp = &hparams->adam;
    double bc1, bc2; /* ADAM-BC-1, and ADAM-TOL-2 C's relative errors r1, r2 */
    const double r1 = bias_error(hp->beta1, (double)t, &bc1);
    const double r2 = bias_error(hp->beta2, (double)t, &bc2);
    const double keras_c = sqrt(bc2) / bc1; /* ADAM-PROF-KERAS */
    const double b1 = hp->beta1, b2 = hp->beta2, eta = hp->profile == OC_ADAM_PAPER
                                                         ? hp->schedule_multiplier : 1.0;
    const double step = eta * hp->lr;                                         /* ADAM-UPD-1 */
    const double decay = hp->decoupled ? hp->weight_decay * (hp->profile == OC_ADAM_PAPER ? eta
                                                                                : hp->lr) : 0;
    const double l2 = hp->decoupled ? 0 : hp->weight_decay;                  /* ADAM-WD-1 */
    const double p0 = fabs(before[0]), m0 = fabs(before[1]), v0 = before[2];
    const double geff = fabs(fma(l2, before[0], hp->maximize ? -g : g)); /* ADAM-MAX-1 */
    /* A */
    double eg = l2 > 0 ? l2 * E[0] + K_GRAD * U * (fabs(g) + l2 * (p0 + E[0])) + ETA : 0;
    /* B */
    double em = b1 * E[1] + (1 - b1) * eg +
                K_MOMENT * U * (b1 * (m0 + E[1]) + (1 - b1) * (geff + eg)) + 4 * ETA;
    double eg2 = (2 * geff + eg) * eg;
    double ev = isinf(after[2]) ? 0 /* judged exactly, ADAM-STORE-2 */
              : b2 * E[2] + (1 - b2) * eg2 +
                K_SQUARE * U * (b2 * (v0 + E[2]) + (1 - b2) * (geff * geff + eg2)) +
                4 * ETA * fmax(1, geff + eg);
    double evmax = hp->amsgrad ? fmax(E[3], ev) : 0;                          /* ADAM-AMS-1 */
    double vv = hp->amsgrad ? after[3] : after[2], evv = hp->amsgrad ? evmax : ev;
    double mbar = fabs(after[1]), n, en, vh, evh;
    /* C, D */
    if (hp->profile == OC_ADAM_KERAS) {
        double rc = (r2 / 2 + r1 + 3 * U) * 1.01;
        n = keras_c * mbar;
        en = keras_c * em * (1 + rc) + n * rc + U * n;
        vh = vv;
        evh = evv;
    } else {
        double x = (em + mbar * r1) / (bc1 * (1 - r1));
        double y = (evv + vv * r2) / (bc2 * (1 - r2));
        n = mbar / bc1;
        en = x + 2 * U * (n + x);
        vh = vv / bc2 + hp->eps_root;
        evh = y + 3 * U * (vh + y) + ETA;
    }
    double ed = 0, dlo = hp->eps * (1 - 2 * U), dabs = 0;
    if (!isinf(vh)) { /* else the direction is exactly 0 */
        double es = root_error(vh, evh), dn = sqrt(vh) + hp->eps;
        double edn = es + 2 * U * (dn + es);
        dlo = fmax(dn - edn, dlo);
        ed = en / dlo + n * edn / (dn * dlo) + 3 * U * (n + en) / dlo;
        dabs = n / dn; /* ADAM-DIR-1 */
    }
    /* E, F */
    double a = fabs(1 - decay);
    double under = 4 * ETA * fmax(1, step) * fmax(1, 1 / bc1) * fmax(1, 1 / dlo);
    E[0] = oc_tolcap_widen(a * E[0] + step * ed +
                 K_PARAM * U * ((p0 + E[0]) * (a + decay) + step * (dabs + ed)) + under);
    E[1] = oc_tolcap_widen(em);
    E[2] = oc_tolcap_widen(ev);
    E[3] = hp->amsgrad ? oc_tolcap_widen(evmax) : 0;
}

/* STEP-TOL-2 (b): the domain where adam_grad_sensitivity holds. */
static int adam_sensitivity_defined(const oc_hparams *hp) { return hp->adam.profile == OC_ADAM_TORCH && !hp->adam.amsgrad && !hp->adam.maximize; }

/* STEP-TOL-2 (b): the torch formula, direction (a + k x) / (sqrt(b + d x^2) + eps). */
static void adam_grad_sensitivity(const oc_hparams *hp, int64_t t, const double *before,
                                  const double *E, double g, double eg, double *add)
{
    const oc_adam_hparams *h = &hp->adam;
    double l2 = h->decoupled ? 0 : h->weight_decay;
    double x = fabs(g + l2 * before[0]) + l2 * E[0];
    double bc1 = 1 - pow(h->beta1, (double)t), bc2 = 1 - pow(h->beta2, (double)t);
    double am = h->beta1 * (fabs(before[1]) + E[1]) / bc1, k = (1 - h->beta1) / bc1;
    double bhi = h->beta2 * (before[2] + E[2]) / bc2 + h->eps_root;
    double blo = h->beta2 * fmax(0, before[2] - E[2]) / bc2 + h->eps_root;
    double dd = (1 - h->beta2) / bc2, xmin = fmax(0, x - eg);
    double smin = sqrt(blo + dd * xmin * xmin);
    double lip = (k * (sqrt(bhi) + h->eps) + am * sqrt(dd)) / ((smin + h->eps) * (smin + h->eps));
    add[0] = h->lr * lip * eg;
    add[1] = (1 - h->beta1) * eg;
    add[2] = (1 - h->beta2) * (2 * x + eg) * eg;
}

static const oc_tolcap_model adam_tolcap = {
    .element = adam_element,
    .sensitivity_defined = adam_sensitivity_defined,
    .sensitivity_domain = "torch, without amsgrad or maximize",
    .grad_sensitivity = adam_grad_sensitivity,
};

const oc_algo oc_algo_adam = {
    .name = "adam",
    .group_type = "AdamStep",
    .state_names = {"p", "m", "v", "vmax"},
    .precision = 24,
    .nmutants = ADAM_RESUME_FIRST + OC_RESUME_FIRST_SCALER - 1,
    .mutant_name = adam_mutant,
    .nstate = adam_nstate,
    .parse = adam_parse,
    .options = {"amsgrad", "maximize"},
    .needs = adam_needs,
    .load_case = oc_load_tensor_case,
    .run = oc_run_elementwise,
    .step = adam_step,
    .own_mutants = OC_ADAM_MUTANT_COUNT,
    .alg = OC_ALG_ADAM,
    .decay = adam_decay,
    .cap_tolerances = oc_tolcap_elementwise,
    .tolcap = &adam_tolcap,
    .reference = (oc_entry_point)ref_adam,
};
