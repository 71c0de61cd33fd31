/* Adafactor mutants (spec/adafactor.md §6): the reference's step recomposed from its element
 * functions, with one stage replaced by a catalogued mistake. */
#include <math.h>
#include "adafactor.h"

static const char *const names[OC_ADAFACTOR_MUTANT_COUNT] = {
    "correct",
    "normalise-by-sum",
    "no-normaliser",
    "no-sqrt",
    "no-clip",
    "clip-always",
    "beta2-next-step",
    "no-param-scale",
    "rho-uncapped",
    "momentum-before-step-size",
    "eps1-swapped",
    "decay-torch-form",
};

const char *oc_adafactor_mutant_name(oc_adafactor_mutant mu)
{
    return (unsigned)mu < OC_ADAFACTOR_MUTANT_COUNT ? names[mu] : NULL;
}

/* ADAFACTOR-FACTOR-1 mistaken: V^ = R C / sum(R) with the means (the paper's form, which
 * divides row sums by their sum, applied to means), or V^ = R C. */
static double normaliser(oc_adafactor_mutant mu, const oc_adafactor_hparams *hp,
                         oc_adafactor_shape sh, const oc_adafactor_state *s)
{
    const double norm = oc_adafactor_normaliser(hp, sh, s->row, s->col);
    const size_t count = hp->profile == OC_ADAFACTOR_OPTAX && sh.rows > sh.cols ? sh.cols
                                                                                : sh.rows;
    return mu == OC_ADAFACTOR_MUT_NORMALISE_BY_SUM ? norm * (double)count
           : mu == OC_ADAFACTOR_MUT_NO_NORMALISER  ? 1.0
                                                   : norm;
}

/* ADAFACTOR-EPS-1 mistaken by no-sqrt: U = G / V^ (with the profile's floor). */
static double scale(oc_adafactor_mutant mu, const oc_adafactor_hparams *hp, double vhat)
{
    const double r = oc_adafactor_inv_root(hp, vhat);
    return mu == OC_ADAFACTOR_MUT_NO_SQRT ? r * r : r;
}

static void scaled_gradient(oc_adafactor_mutant mu, const oc_adafactor_hparams *hp,
                            oc_adafactor_shape sh, int factored, const float *g,
                            const oc_adafactor_state *s, double *u)
{
    const double norm = factored ? normaliser(mu, hp, sh, s) : 1.0;
    for (size_t r = 0; r < sh.rows; r++)
        for (size_t c = 0; c < sh.cols; c++) {
            const size_t i = r * sh.cols + c;
            const double vhat = factored ? (double)s->row[r] * (double)s->col[c] / norm : s->v[i];
            u[i] = g[i] * scale(mu, hp, vhat);
        }
}

/* ADAFACTOR-CLIP-1 mistaken: no clipping, or division by RMS(U)/d even below 1. */
static double clip_denom(oc_adafactor_mutant mu, const oc_adafactor_hparams *hp, double rms_u)
{
    if (mu == OC_ADAFACTOR_MUT_NO_CLIP)
        return 1.0;
    if (mu == OC_ADAFACTOR_MUT_CLIP_ALWAYS && hp->clip_threshold != 0.0)
        return rms_u / hp->clip_threshold;
    return oc_adafactor_clip_denom(hp, rms_u);
}

/* ADAFACTOR-STEP-1 mistaken: rho_t = 1/sqrt(t) without its cap, or no parameter scale. */
static double step_size(oc_adafactor_mutant mu, const oc_adafactor_hparams *hp, int64_t step,
                        double rms_p)
{
    double rho = oc_adafactor_rho(hp, step);
    if (mu == OC_ADAFACTOR_MUT_RHO_UNCAPPED && hp->relative_step)
        rho = 1.0 / sqrt((double)step);
    return mu == OC_ADAFACTOR_MUT_NO_PARAM_SCALE ? rho : oc_adafactor_alpha(hp, rho, rms_p);
}

/* The profile whose form of a rule the mistake uses: eps1-swapped squares G as the other
 * convention does (ADAFACTOR-EPS-1), decay-torch-form decays as torch does, or torch as
 * transformers does (ADAFACTOR-WD-1). */
static oc_adafactor_hparams swapped(const oc_adafactor_hparams *hp)
{
    oc_adafactor_hparams other = *hp;
    other.profile = hp->profile == OC_ADAFACTOR_TORCH ? OC_ADAFACTOR_TRANSFORMERS
                                                      : OC_ADAFACTOR_TORCH;
    return other;
}

oc_status oc_adafactor_mutant_step(oc_adafactor_mutant mu, const oc_adafactor_hparams *hp,
                                   oc_adafactor_shape sh, int64_t step, oc_adafactor_state *s,
                                   const float *g, double *work, size_t work_len)
{
    if (mu == OC_ADAFACTOR_CORRECT || (unsigned)mu >= OC_ADAFACTOR_MUTANT_COUNT)
        return oc_ref_adafactor_step(hp, sh, step, s, g, work, work_len);
    oc_status st = oc_adafactor_check(hp, sh, step);
    if (st != OC_OK)
        return st;
    const size_t n = sh.rows * sh.cols;
    if (!work || work_len < n)
        return OC_ERR_NULL_POINTER;
    const int factored = oc_adafactor_factored(hp, sh);
    const oc_adafactor_hparams other = swapped(hp);
    const double alpha = step_size(mu, hp, step, oc_adafactor_rms(n, s->p));
    const double beta2 =
        oc_adafactor_beta2(hp, mu == OC_ADAFACTOR_MUT_BETA2_NEXT_STEP ? step + 1 : step);
    oc_adafactor_second_moment(mu == OC_ADAFACTOR_MUT_EPS1_SWAPPED ? &other : hp, sh, factored,
                               beta2, g, s);
    scaled_gradient(mu, hp, sh, factored, g, s, work);
    const double denom = clip_denom(mu, hp, oc_adafactor_rms64(n, work));
    const int late_alpha = mu == OC_ADAFACTOR_MUT_MOMENTUM_BEFORE_STEP_SIZE && hp->first_moment;
    for (size_t i = 0; i < n; i++)
        work[i] = (hp->maximize ? -work[i] : work[i]) * (late_alpha ? 1.0 : alpha) / denom;
    if (!late_alpha) {
        oc_adafactor_apply(mu == OC_ADAFACTOR_MUT_DECAY_TORCH_FORM ? &other : hp, n, alpha, work,
                           s);
        return OC_OK;
    }
    for (size_t i = 0; i < n; i++) { /* ADAFACTOR-MOM-1 mistaken: m averages U^, p -= alpha m */
        s->m[i] = (float)(hp->beta1 * (double)s->m[i] + (1.0 - hp->beta1) * work[i]);
        s->p[i] = (float)(oc_adafactor_decayed(hp, alpha, s->p[i]) - alpha * (double)s->m[i]);
    }
    return OC_OK;
}
