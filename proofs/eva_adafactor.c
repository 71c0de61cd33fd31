/* Eva driver for oc_ref_adafactor_step (ref/adafactor.c): every profile and option, vectors and
 * matrices up to 2 x 3.
 *
 * Analysed with -warn-special-float non-finite: "0 alarms" means that for every input in the
 * ranges below no float/double operation yields NaN or an infinity (including the binary32
 * stores of the statistics, m and p), no access is out of bounds or uninitialised, and no
 * integer operation overflows. pow and sqrt are Eva's builtins; fmax by proofs/fmax.c.
 *
 * Stated ranges (each independently; every combination is analysed):
 *   profile            every oc_adafactor_profile, and one out of range
 *   lr, eps2, wd       [0, 1]            (the libraries' 1e-2, 1e-3, up to 0.5)
 *   decay rate c       [0.5, 1]          (default 0.8)
 *   eps1               [1e-10, 1]        (defaults 1e-30 and 2^-23: see below)
 *   d                  0 or [1, 10]
 *   beta1              [0, 0.999]
 *   flags              0 or 1 each; min_dim_to_factor [0, 4]
 *   step               1, and [2, 10^6] (analysed apart: beta2 = 0 at t = 1)
 *   shape              ndim 1 or 2, rows [1, 2], cols [1, 3]
 *   p, m, g            fp32 in [-1e2, 1e2];  v, row, col fp32 in [1e-10, 1e4]
 * eps1 >= 1e-20 keeps (1 - beta2) eps1 >= 10^-6 10^-20 a normal binary32 after the step, so that
 * the estimate V^ is positive (with eps1 = 1e-30 and t = 10^6 the stored statistic of a zero
 * gradient underflows to 0 and 1/sqrt(V^) is infinite: a real limit of the paper's defaults in
 * binary32, not exercised by the vectors).
 */
#include "__fc_builtin.h"
#include "optcert/adafactor.h"

#define MAXN 6

static float p[MAXN], m[MAXN], v[MAXN], row[2], col[3], g[MAXN];
static double work[MAXN];

static void fill(float *a, int n, float lo, float hi)
{
    for (int i = 0; i < n; i++)
        a[i] = Frama_C_float_interval(lo, hi);
}

/* One step t in [first, last] of profile pr on a tensor of ndim dimensions, every other input
 * in its range. */
static void step_profile(oc_adafactor_profile pr, int ndim, int first, int last)
{
    oc_adafactor_hparams hp;
    hp.profile = pr;
    hp.lr = Frama_C_double_interval(0.0, 1.0);
    hp.relative_step = Frama_C_interval(0, 1);
    hp.warmup_init = Frama_C_interval(0, 1);
    hp.scale_parameter = Frama_C_interval(0, 1);
    hp.decay_rate = Frama_C_double_interval(0.5, 1.0);
    hp.eps1 = Frama_C_double_interval(1e-10, 1.0);
    hp.eps2 = Frama_C_double_interval(0.0, 1.0);
    hp.clip_threshold = Frama_C_interval(0, 1) ? 0.0 : Frama_C_double_interval(1.0, 10.0);
    hp.first_moment = Frama_C_interval(0, 1);
    hp.beta1 = Frama_C_double_interval(0.0, 0.999);
    hp.weight_decay = Frama_C_double_interval(0.0, 1.0);
    hp.maximize = Frama_C_interval(0, 1);
    hp.factored = Frama_C_interval(0, 1);
    hp.min_dim_to_factor = Frama_C_interval(0, 4);
    oc_adafactor_shape sh;
    sh.ndim = ndim;
    sh.rows = ndim == 1 ? 1 : (size_t)Frama_C_interval(1, 2);
    sh.cols = (size_t)Frama_C_interval(1, 3);
    fill(p, MAXN, -1e2f, 1e2f);
    fill(m, MAXN, -1e2f, 1e2f);
    fill(g, MAXN, -1e2f, 1e2f);
    fill(v, MAXN, 1e-10f, 1e4f);
    fill(row, 2, 1e-10f, 1e4f);
    fill(col, 3, 1e-10f, 1e4f);
    oc_adafactor_state s = {p, m, v, row, col};
    int64_t step = Frama_C_interval(first, last);
    oc_ref_adafactor_step(&hp, sh, step, &s, g, work, MAXN);
}

/* Both step ranges of profile pr and rank ndim: t = 1 (beta2 = 0, V_t is sq(G)) apart from
 * t >= 2 (beta2 >= 1 - 2^-1/2), so that Eva's intervals keep V_t away from 0 in both. */
static void steps_of(oc_adafactor_profile pr, int ndim)
{
    step_profile(pr, ndim, 1, 1);
    step_profile(pr, ndim, 2, 1000000);
}

/* Two entry points, one Eva part each (proofs/parts/adafactor.toml): analysed in one run, the
 * 16 calls leave Eva 2 alarms on the binary32 stores of m and p that each half alone does not
 * have (precision lost across the calls, not a reachable overflow: every call analysed on its
 * own has 0 alarms). Each profile and rank from its own call site. */
void main_paper_torch(void)
{
    steps_of(OC_ADAFACTOR_PAPER, 1);
    steps_of(OC_ADAFACTOR_PAPER, 2);
    steps_of(OC_ADAFACTOR_TORCH, 1);
    steps_of(OC_ADAFACTOR_TORCH, 2);
}

void main_transformers_optax(void)
{
    steps_of(OC_ADAFACTOR_TRANSFORMERS, 1);
    steps_of(OC_ADAFACTOR_TRANSFORMERS, 2);
    steps_of(OC_ADAFACTOR_OPTAX, 1);
    steps_of(OC_ADAFACTOR_OPTAX, 2);
    step_profile(OC_ADAFACTOR_PROFILE_COUNT, 2, 1, 1000000); /* rejected */
}
