/* Newton-Schulz mutants (spec/muon.md §5): the reference's orthogonalisation recomposed from its
 * pieces with a mistaken normalisation (NS-NORM-1), schedule (NS-SCHED-1), Gram matrix
 * (NS-ITER-1) or iteration count. */
#include <math.h>
#include "newton_schulz.h"

static const char *const names[OC_NS_MUTANT_COUNT] = {
    "correct",           "wrong-coefficients",     "schedule-reversed",
    "gram-wrong-side",   "spectral-normalisation", "max-normalisation",
    "eps-omitted",       "eps-mode-swapped",       "one-step-fewer",
    "one-step-more",
};

static const char *const descriptions[OC_NS_MUTANT_COUNT] = {
    "the reference itself",
    "the simple tuple (3.4445, -4.7750, 2.0315) in every step (the quintic set for the simple profile)",
    "the schedule's tuples applied from the last to the first",
    "square inputs: A = X^T X instead of X X^T, still multiplied from the left (B X)",
    "G divided by its largest singular value (power iteration) instead of its Frobenius norm",
    "G divided by its largest |entry| instead of its Frobenius norm",
    "no eps in the normalisation: d = s ||G||_F (0/0 for a zero input)",
    "eps added where the profile takes max(s ||G||_F, eps), or the reverse",
    "steps - 1 iterations",
    "steps + 1 iterations",
};


const char *oc_ns_mutant_name(oc_ns_mutant mu)
{
    return (unsigned)mu < OC_NS_MUTANT_COUNT ? names[mu] : NULL;
}

const char *oc_ns_mutant_description(oc_ns_mutant mu)
{
    return (unsigned)mu < OC_NS_MUTANT_COUNT ? descriptions[mu] : NULL;
}

/* sigma_max(X) by 200 steps of power iteration on A = X X^T (k x k, in a), v and w vectors of
 * k: the spectral-normalisation mistake's norm. */
static double largest_singular_value(const double *x, size_t k, size_t n, double *a, double *v,
                                     double *w)
{
    double lambda = 0.0;
    oc_ns_gram(x, k, n, a);
    for (size_t i = 0; i < k; i++)
        v[i] = 1.0;
    for (int it = 0; it < 200; it++) {
        double norm2 = 0.0;
        for (size_t i = 0; i < k; i++) {
            double s = 0.0;
            for (size_t l = 0; l < k; l++)
                s += a[i * k + l] * v[l];
            w[i] = s;
            norm2 += s * s;
        }
        double norm = sqrt(norm2); /* not > 0 exactly when |w|^2 is not */
        if (!(norm > 0.0))
            return 0.0;
        lambda = norm; /* |v| = 1 after the first pass: lambda -> sigma_max^2 */
        for (size_t i = 0; i < k; i++)
            v[i] = w[i] / norm;
    }
    return sqrt(lambda);
}

/* NS-NORM-1 mistaken: the divisor of X = G / d. */
static double divisor(oc_ns_mutant mu, const oc_ns_hparams *hp, const double *x, size_t k,
                      size_t n, double *a, double *v)
{
    double norm = 0.0;
    if (mu == OC_NS_MUT_SPECTRAL_NORM)
        norm = largest_singular_value(x, k, n, a, v, v + k);
    else if (mu == OC_NS_MUT_MAX_NORM)
        for (size_t i = 0; i < k * n; i++)
            norm = fmax(norm, fabs(x[i]));
    else
        norm = oc_ns_frobenius(x, k * n);
    if (mu == OC_NS_MUT_EPS_OMITTED)
        return hp->norm_scale * norm;
    oc_ns_hparams h = *hp;
    if (mu == OC_NS_MUT_EPS_MODE_SWAPPED)
        h.eps_mode = h.eps_mode == OC_NS_EPS_ADD ? OC_NS_EPS_MAX : OC_NS_EPS_ADD;
    return oc_ns_divisor(&h, norm);
}

/* NS-SCHED-1 mistaken: the tuple of iteration i of `steps`, from the last to the first, or
 * from the other profile's set (simple for every profile but simple, quintic for simple). */
static void tuple(oc_ns_mutant mu, const oc_ns_hparams *hp, int i, int steps, double abc[3])
{
    int idx = mu == OC_NS_MUT_SCHEDULE_REVERSED ? steps - 1 - i : i;
    oc_ns_hparams other;
    if (mu == OC_NS_MUT_WRONG_COEFFICIENTS &&
        oc_ns_profile_defaults(hp->profile == OC_NS_SIMPLE ? OC_NS_QUINTIC : OC_NS_SIMPLE,
                               &other) == OC_OK) {
        other.schedule = OC_NS_CYCLE;
        oc_ns_tuple(&other, idx, abc);
    } else {
        oc_ns_tuple(hp, idx, abc);
    }
}

/* NS-ITER-1 mistaken for a square X (k = n): A = X^T X. */
static void gram_transposed(const double *x, size_t k, double *a)
{
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < k; j++) {
            double s = 0.0;
            for (size_t l = 0; l < k; l++)
                s += x[l * k + i] * x[l * k + j];
            a[i * k + j] = s;
        }
}

oc_status oc_ns_mutant_orthogonalise(oc_ns_mutant mu, const oc_ns_hparams *hp, size_t rows,
                                     size_t cols, const float *g, float *out, double *work,
                                     size_t work_len)
{
    if (mu == OC_NS_CORRECT || (unsigned)mu >= OC_NS_MUTANT_COUNT || hp == NULL ||
        oc_ns_check_args(hp, rows, cols, g, out, work, work_len) != OC_OK)
        return oc_ref_newton_schulz(hp, rows, cols, g, out, work, work_len);
    int tall = rows > cols; /* NS-SHAPE-1 */
    size_t k = tall ? cols : rows, n = tall ? rows : cols;
    double *x = work, *t = x + k * n, *a = t + k * n, *bm = a + k * k, *v = bm + k * k;
    oc_status st = oc_ns_load(g, cols, tall, k, n, x);
    if (st != OC_OK || (st = oc_ns_normalise(x, k * n, divisor(mu, hp, x, k, n, a, v))) != OC_OK)
        return st;
    int steps = hp->steps + (mu == OC_NS_MUT_ONE_STEP_MORE) - (mu == OC_NS_MUT_ONE_STEP_FEWER);
    for (int it = 0; it < steps; it++) {
        double abc[3];
        tuple(mu, hp, it, steps, abc);
        if (mu == OC_NS_MUT_GRAM_WRONG_SIDE && k == n)
            gram_transposed(x, k, a);
        else
            oc_ns_gram(x, k, n, a);
        if ((st = oc_ns_iteration(x, k, n, abc, a, bm, t)) != OC_OK)
            return st;
    }
    oc_ns_store(x, rows, cols, tall, n, out);
    return OC_OK;
}
