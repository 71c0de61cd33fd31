/* Adafactor reference (spec/adafactor.md). Scalar C11, no allocation, no I/O, no globals.
 *
 * Exact-class reference: every quantity is computed in binary64 from the binary32 inputs and
 * rounded to binary32 only at the storage points of ADAFACTOR-STORE-1 (the second-moment
 * statistics, m, p); the estimate V^ is formed from the stored statistics, as every profile's
 * library does. The step follows the paper's Algorithm 4 (matrix) / 5 (vector):
 *   rho_t, alpha_t            relative step size         ADAFACTOR-STEP-1
 *   R_t, C_t  or  V_t          running mean of G^2         ADAFACTOR-V-1, ADAFACTOR-EPS-1
 *   V^_t = R_t C_t / mean(R_t)                             ADAFACTOR-FACTOR-1
 *   U_t = G_t / sqrt(V^_t),  U^_t = U_t / max(1, RMS(U_t)/d)  ADAFACTOR-CLIP-1
 *   X_t = X_{t-1} - alpha_t U^_t   (m, weight decay: the profiles' forms)  ADAFACTOR-MOM-1, -WD-1
 */
#include <math.h>
#include <string.h>
#include "optcert/adafactor.h"
#include "optcert/buffers.h"

static const char *const profile_names[OC_ADAFACTOR_PROFILE_COUNT] = {
    "paper", "torch", "transformers", "optax"};

const char *oc_adafactor_profile_name(oc_adafactor_profile pr)
{
    return (unsigned)pr < OC_ADAFACTOR_PROFILE_COUNT ? profile_names[pr] : NULL;
}

oc_status oc_adafactor_profile_parse(const char *name, oc_adafactor_profile *out)
{
    for (int i = 0; i < OC_ADAFACTOR_PROFILE_COUNT; i++)
        if (strcmp(name, profile_names[i]) == 0) {
            *out = (oc_adafactor_profile)i;
            return OC_OK;
        }
    return OC_ERR_BAD_PROFILE;
}

/* Comparisons written so that NaN fails. */
static int finite_nonneg(double x) { return x >= 0.0 && x <= 0x1.fffffffffffffp+1023; }

/* ADAFACTOR-HP-1: the ranges every profile shares. */
static int ranges_ok(const oc_adafactor_hparams *hp)
{
    return finite_nonneg(hp->lr) && finite_nonneg(hp->decay_rate) && finite_nonneg(hp->eps1) &&
           finite_nonneg(hp->eps2) && finite_nonneg(hp->weight_decay) &&
           (hp->clip_threshold == 0.0 ||
            (hp->clip_threshold >= 1.0 && hp->clip_threshold <= 0x1.fffffffffffffp+1023)) &&
           (!hp->first_moment || (hp->beta1 >= 0.0 && hp->beta1 < 1.0));
}

/* ADAFACTOR-PROF-*: the options a profile's library has (anything else is unsupported). */
static int options_ok(const oc_adafactor_hparams *hp)
{
    const int no_optax_fields = hp->factored == 1 && hp->min_dim_to_factor == 0;
    switch (hp->profile) {
    case OC_ADAFACTOR_PAPER: /* rho_t = min(lr, 1/sqrt t), parameter scale, clipping */
        return hp->relative_step && !hp->warmup_init && hp->scale_parameter &&
               hp->clip_threshold != 0.0 && !hp->first_moment && hp->weight_decay == 0.0 &&
               !hp->maximize && no_optax_fields;
    case OC_ADAFACTOR_TORCH: /* the same step size always; decay and maximize */
        return hp->relative_step && !hp->warmup_init && hp->scale_parameter &&
               hp->clip_threshold != 0.0 && !hp->first_moment && no_optax_fields;
    case OC_ADAFACTOR_TRANSFORMERS: /* relative step (lr None), warmup and scale: options */
        return (hp->relative_step ? hp->lr == 0.0 : !hp->warmup_init) &&
               hp->clip_threshold != 0.0 &&
               !hp->maximize && no_optax_fields;
    case OC_ADAFACTOR_OPTAX: /* absolute lr; its parameter scale's floor is 1e-3 */
        return !hp->relative_step && !hp->warmup_init && hp->eps2 == (double)1e-3f &&
               !hp->maximize && (hp->factored == 0 || hp->factored == 1) &&
               hp->min_dim_to_factor >= 0;
    default:
        return 0;
    }
}

oc_status oc_adafactor_check(const oc_adafactor_hparams *hp, oc_adafactor_shape sh, int64_t step)
{
    if (step < 1)
        return OC_ERR_BAD_STEP;
    if (!(sh.ndim == 1 && sh.rows == 1) && sh.ndim != 2)
        return OC_ERR_BAD_SHAPE;
    if (sh.rows < 1 || sh.cols < 1 || sh.rows > OC_ADAFACTOR_MAX_DIM ||
        sh.cols > OC_ADAFACTOR_MAX_DIM)
        return OC_ERR_BAD_SHAPE;
    if ((unsigned)hp->profile >= OC_ADAFACTOR_PROFILE_COUNT)
        return OC_ERR_BAD_PROFILE;
    if (!ranges_ok(hp))
        return OC_ERR_BAD_HPARAM;
    return options_ok(hp) ? OC_OK : OC_ERR_UNSUPPORTED;
}

/* ADAFACTOR-FACT-1: matrices are factored; optax only when factored is set and both
 * dimensions reach min_dim_to_factor. */
int oc_adafactor_factored(const oc_adafactor_hparams *hp, oc_adafactor_shape sh)
{
    if (sh.ndim != 2)
        return 0;
    if (hp->profile != OC_ADAFACTOR_OPTAX)
        return 1;
    const size_t smaller = sh.rows < sh.cols ? sh.rows : sh.cols;
    return hp->factored && (int64_t)smaller >= hp->min_dim_to_factor;
}

size_t oc_adafactor_work_len(oc_adafactor_shape sh) { return sh.rows * sh.cols; }

/* ADAFACTOR-DECAY-1: beta2_t = 1 - t^-c. */
double oc_adafactor_beta2(const oc_adafactor_hparams *hp, int64_t step)
{
    return 1.0 - pow((double)step, -hp->decay_rate);
}

/* ADAFACTOR-EPS-1: the term averaged into the second moment, G^2 + eps1 (torch: G^2). */
double oc_adafactor_square(const oc_adafactor_hparams *hp, double g)
{
    return hp->profile == OC_ADAFACTOR_TORCH ? g * g : g * g + hp->eps1;
}

/* ADAFACTOR-STEP-1: rho_t; transformers' cap is its constant 1e-2 (binary64), or 1e-6 t with
 * warmup_init. */
double oc_adafactor_rho(const oc_adafactor_hparams *hp, int64_t step)
{
    if (!hp->relative_step)
        return hp->lr;
    const double cap = hp->warmup_init                           ? 1e-6 * (double)step
                       : hp->profile == OC_ADAFACTOR_TRANSFORMERS ? 1e-2
                                                                   : hp->lr;
    const double root = 1.0 / sqrt((double)step);
    return cap < root ? cap : root;
}

/* ADAFACTOR-STEP-1: alpha_t = max(eps2, RMS(X_{t-1})) rho_t with the parameter scale. */
double oc_adafactor_alpha(const oc_adafactor_hparams *hp, double rho, double rms_p)
{
    return hp->scale_parameter ? fmax(hp->eps2, rms_p) * rho : rho;
}

/* ADAFACTOR-EPS-1: 1/sqrt(V^); torch floors V^ at eps1^2 (a comparison, not fmax: torch's
 * clamp_min keeps a NaN). */
double oc_adafactor_inv_root(const oc_adafactor_hparams *hp, double vhat)
{
    const double least = hp->eps1 * hp->eps1;
    if (hp->profile == OC_ADAFACTOR_TORCH && vhat < least)
        vhat = least;
    return 1.0 / sqrt(vhat);
}

/* ADAFACTOR-CLIP-1: max(1, RMS(U)/d); 1 without clipping. */
double oc_adafactor_clip_denom(const oc_adafactor_hparams *hp, double rms_u)
{
    return hp->clip_threshold == 0.0 ? 1.0 : fmax(1.0, rms_u / hp->clip_threshold);
}

/* ADAFACTOR-WD-1: the parameter after weight decay (before the update is subtracted). */
double oc_adafactor_decayed(const oc_adafactor_hparams *hp, double alpha, double p)
{
    switch (hp->profile) {
    case OC_ADAFACTOR_TORCH:
        return p * (1.0 - hp->lr * hp->weight_decay);
    case OC_ADAFACTOR_TRANSFORMERS:
        return p - hp->weight_decay * alpha * p;
    case OC_ADAFACTOR_OPTAX:
        return p - hp->weight_decay * p;
    default:
        return p; /* the paper has no weight decay */
    }
}

double oc_adafactor_rms(size_t n, const float *x)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double xi = x[i];
        sum += xi * xi;
    }
    return sqrt(sum / (double)n);
}

double oc_adafactor_rms64(size_t n, const double *x)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double xi = x[i];
        sum += xi * xi;
    }
    return sqrt(sum / (double)n);
}

static double mean(size_t n, const float *x)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    return sum / (double)n;
}

/* ADAFACTOR-FACTOR-1: mean(R_t) (torch: floored at eps1); optax normalises by the mean of the
 * statistic reduced over the larger dimension, the column one when rows > cols. */
double oc_adafactor_normaliser(const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                               const float *row, const float *col)
{
    if (hp->profile == OC_ADAFACTOR_OPTAX && sh.rows > sh.cols)
        return mean(sh.cols, col);
    const double r = mean(sh.rows, row);
    return hp->profile == OC_ADAFACTOR_TORCH && r < hp->eps1 ? hp->eps1 : r; /* as above */
}

/* beta v + (1 - beta) x, rounded once to its binary32 storage (ADAFACTOR-STORE-1). */
static float running_mean(double beta2, float v, double x)
{
    return (float)(beta2 * (double)v + (1.0 - beta2) * x);
}

/* The mean of sq(G) over len entries of g, stride apart (a row: 1, a column: cols). */
static double mean_square(const oc_adafactor_hparams *hp, size_t len, const float *g,
                          size_t stride)
{
    double sum = 0.0;
    for (size_t k = 0; k < len; k++)
        sum += oc_adafactor_square(hp, g[k * stride]);
    return sum / (double)len;
}

/* ADAFACTOR-V-1: V_t = beta2 V + (1 - beta2) sq(G) (unfactored); R_t, C_t the same with the
 * mean of each row's and each column's sq(G) (factored). */
void oc_adafactor_second_moment(const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                                int factored, double beta2, const float *g,
                                oc_adafactor_state *s)
{
    const size_t n = sh.rows * sh.cols;
    if (!factored) {
        for (size_t i = 0; i < n; i++)
            s->v[i] = running_mean(beta2, s->v[i], oc_adafactor_square(hp, g[i]));
        return;
    }
    for (size_t r = 0; r < sh.rows; r++)
        s->row[r] = running_mean(beta2, s->row[r],
                                 mean_square(hp, sh.cols, g + r * sh.cols, 1));
    for (size_t c = 0; c < sh.cols; c++)
        s->col[c] = running_mean(beta2, s->col[c], mean_square(hp, sh.rows, g + c, sh.cols));
}

/* ADAFACTOR-FACTOR-1, ADAFACTOR-EPS-1: U = G / sqrt(V^). */
void oc_adafactor_scaled_gradient(const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                                  int factored, const float *g, const oc_adafactor_state *s,
                                  double *u)
{
    const size_t n = sh.rows * sh.cols;
    if (!factored) {
        for (size_t i = 0; i < n; i++)
            u[i] = g[i] * oc_adafactor_inv_root(hp, s->v[i]);
        return;
    }
    const double norm = oc_adafactor_normaliser(hp, sh, s->row, s->col);
    for (size_t r = 0; r < sh.rows; r++)
        for (size_t c = 0; c < sh.cols; c++) {
            const double vhat = (double)s->row[r] * (double)s->col[c] / norm;
            u[r * sh.cols + c] = g[r * sh.cols + c] * oc_adafactor_inv_root(hp, vhat);
        }
}

/* ADAFACTOR-MOM-1: m_t = beta1 m + (1 - beta1) delta, the update subtracted then being m_t;
 * ADAFACTOR-WD-1: X_t = decayed(X_{t-1}) - update (ADAFACTOR-STORE-1: both stored). */
void oc_adafactor_apply(const oc_adafactor_hparams *hp, size_t n, double alpha,
                        const double *delta, oc_adafactor_state *s)
{
    for (size_t i = 0; i < n; i++) {
        double update = delta[i];
        if (hp->first_moment) {
            s->m[i] = (float)(hp->beta1 * (double)s->m[i] + (1.0 - hp->beta1) * update);
            update = s->m[i];
        }
        s->p[i] = (float)(oc_adafactor_decayed(hp, alpha, s->p[i]) - update);
    }
}

/* The buffers a step of this shape needs, present, aligned and disjoint (ADAFACTOR-HP-1). */
static oc_status buffers_ok(const oc_adafactor_hparams *hp, oc_adafactor_shape sh, int factored,
                            const oc_adafactor_state *s, const float *g, const double *work,
                            size_t work_len)
{
    const size_t n = sh.rows * sh.cols;
    const void *buf[5] = {s->p, g, factored ? (void *)s->row : (void *)s->v,
                          factored ? (void *)s->col : NULL, hp->first_moment ? s->m : NULL};
    const size_t bytes[5] = {4 * n, 4 * n, factored ? 4 * sh.rows : 4 * n,
                             factored ? 4 * sh.cols : 0, hp->first_moment ? 4 * n : 0};
    oc_status st;
    if (work_len < n || !work)
        return OC_ERR_NULL_POINTER;
    for (int k = 0; k < 5; k++) {
        if (bytes[k] && (st = oc_buffer_check(buf[k], bytes[k] / 4, sizeof(float))))
            return st;
        for (int j = 0; j < k; j++)
            if (bytes[k] && bytes[j] &&
                (st = oc_buffer_disjoint(buf[k], bytes[k], buf[j], bytes[j])))
                return st;
        if (bytes[k] && (st = oc_buffer_disjoint(buf[k], bytes[k], work, n * sizeof *work)))
            return st;
    }
    return OC_OK;
}

oc_status oc_ref_adafactor_step(const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                                int64_t step, oc_adafactor_state *s, const float *g,
                                double *work, size_t work_len)
{
    oc_status st = oc_adafactor_check(hp, sh, step);
    if (st != OC_OK)
        return st;
    const int factored = oc_adafactor_factored(hp, sh);
    if ((st = buffers_ok(hp, sh, factored, s, g, work, work_len)))
        return st;
    const size_t n = sh.rows * sh.cols;
    const double alpha = oc_adafactor_alpha(hp, oc_adafactor_rho(hp, step),
                                            oc_adafactor_rms(n, s->p));
    oc_adafactor_second_moment(hp, sh, factored, oc_adafactor_beta2(hp, step), g, s);
    oc_adafactor_scaled_gradient(hp, sh, factored, g, s, work);
    for (size_t i = 0; hp->maximize && i < n; i++) /* torch's maximize: the step follows -G */
        work[i] = -work[i];
    const double denom = oc_adafactor_clip_denom(hp, oc_adafactor_rms64(n, work));
    for (size_t i = 0; i < n; i++)
        work[i] = alpha * work[i] / denom;
    oc_adafactor_apply(hp, n, alpha, work, s);
    return OC_OK;
}
