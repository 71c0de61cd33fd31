/* Newton–Schulz orthogonalisation reference (spec/muon.md, rules NS-*). Scalar C11, no
 * allocation, no I/O, no globals.
 *
 * Exact-class reference: the fp32 input is read exactly into binary64 and the whole iteration
 * runs in binary64 (every matrix product accumulated in binary64); the result is rounded once to
 * fp32 (NS-STORE-1). Its distance from the exact iteration is covered by the `exact` class of
 * NS-TOL-1. Matrices are row-major; X is k x n with k = min(rows, cols) <= n = max(rows, cols):
 * tall inputs are transposed so that the Gram matrix A = X X^T is the smaller one (NS-SHAPE-1).
 */
#include <math.h>
#include <string.h>
#include "optcert/newton_schulz.h"
#include "optcert/buffers.h"

/* NS-DOM-1: entries of X beyond this magnitude (or NaN) end the iteration with an error. The
 * exact iteration of every NS-PROF set keeps |x_ij| <= 2 (its singular values stay in [0, 2));
 * the limit only exists so that no schedule, however divergent, reaches an infinity. */
#define DOMAIN_LIMIT 0x1p64

/* Row-major index bounds: row i < k of a k x n matrix ends at (i + 1) n <= k n. */
/*@ lemma mul_mono: \forall integer a, b, c; 0 <= a <= b && 0 <= c ==> a * c <= b * c;
*/

/* NS-PROF-*: the published tuples, rounded to binary32 (the vectors carry these values), one
 * row per profile (polar-express-safety shares the polar-express tuples). */
#define PROFILE_MAX_TUPLES 10   /* deepseekv4's ten */
static const float profile_sets[OC_NS_PROFILE_COUNT][PROFILE_MAX_TUPLES][3] = {
    {{3.4445f, -4.7750f, 2.0315f}},
    {{4.0848f, -6.8946f, 2.9270f}, {3.9505f, -6.3029f, 2.6377f}, {3.7418f, -5.5913f, 2.3037f},
     {2.8769f, -3.1427f, 1.2046f}, {2.8366f, -3.0525f, 1.2012f}},
    {{8.2051f, -22.9019f, 16.4607f}, {4.0664f, -2.8612f, 0.5184f}, {3.9096f, -2.8234f, 0.5250f},
     {3.2856f, -2.4153f, 0.4853f}, {2.2779f, -1.6198f, 0.3985f}, {1.8726f, -1.2307f, 0.3585f},
     {1.8564f, -1.2132f, 0.3568f}, {1.8750f, -1.2500f, 0.3750f}},
    {{8.2051f, -22.9019f, 16.4607f}, {4.0664f, -2.8612f, 0.5184f}, {3.9096f, -2.8234f, 0.5250f},
     {3.2856f, -2.4153f, 0.4853f}, {2.2779f, -1.6198f, 0.3985f}, {1.8726f, -1.2307f, 0.3585f},
     {1.8564f, -1.2132f, 0.3568f}, {1.8750f, -1.2500f, 0.3750f}},
    {{4.0098f, -7.0585f, 2.4635f}, {3.4585f, -5.5479f, 2.5959f}, {2.7573f, -3.2939f, 1.4254f},
     {2.7215f, -3.0494f, 1.3169f}},
    {{8.4703f, -25.1081f, 18.6293f}, {4.1828f, -3.1087f, 0.5806f}, {3.9619f, -2.9541f, 0.5630f},
     {3.2866f, -2.4647f, 0.5074f}, {2.2737f, -1.6447f, 0.4162f}},
    {{3.4445f, -4.7750f, 2.0315f}, {3.4445f, -4.7750f, 2.0315f}, {3.4445f, -4.7750f, 2.0315f},
     {3.4445f, -4.7750f, 2.0315f}, {3.4445f, -4.7750f, 2.0315f}, {3.4445f, -4.7750f, 2.0315f},
     {3.4445f, -4.7750f, 2.0315f}, {3.4445f, -4.7750f, 2.0315f}, {2.0f, -1.5f, 0.5f},
     {2.0f, -1.5f, 0.5f}},
    {{3.3656576f, -3.3420992f, 0.0f}, {2.5744352f, -1.4957376f, 0.0f},
     {2.5368962f, -1.4312570f, 0.0f}, {2.4418906f, -1.2764040f, 0.0f},
     {2.2230472f, -0.9630650f, 0.0f}},
};
static const int profile_counts[OC_NS_PROFILE_COUNT] = {1, 5, 8, 8, 4, 5, 10, 5};

static const char *const profile_names[OC_NS_PROFILE_COUNT] = {
    "simple", "quintic", "polar-express", "polar-express-safety", "aol", "cans", "deepseekv4",
    "cubic5",
};

/* The contracts of the functions newton_schulz.h declares are there; these two stay here: the
 * first names the static table, the second needs valid_read_string (<string.h>, which
 * newton_schulz.h does not include). */
/*@ assigns \result \from pr, profile_names[0 .. OC_NS_PROFILE_COUNT - 1]; */
const char *oc_ns_profile_name(oc_ns_profile pr)
{
    return (unsigned)pr < OC_NS_PROFILE_COUNT ? profile_names[pr] : NULL;
}

oc_status oc_ns_profile_parse(const char *name, oc_ns_profile *out)
{
    /* The names are valid strings: literals of 6, 7, 13, 20, 3, 4, 10 and 6 characters
     * (-wp-literals). */
    //@ assert name_0: \valid_read(profile_names[0] + (0 .. 6)) && profile_names[0][6] == '\0';
    //@ assert name_0_str: valid_read_string(profile_names[0]);
    //@ assert name_1: \valid_read(profile_names[1] + (0 .. 7)) && profile_names[1][7] == '\0';
    //@ assert name_1_str: valid_read_string(profile_names[1]);
    //@ assert name_2: \valid_read(profile_names[2] + (0 .. 13)) && profile_names[2][13] == '\0';
    //@ assert name_2_str: valid_read_string(profile_names[2]);
    //@ assert name_3: \valid_read(profile_names[3] + (0 .. 20)) && profile_names[3][20] == '\0';
    //@ assert name_3_str: valid_read_string(profile_names[3]);
    //@ assert name_4: \valid_read(profile_names[4] + (0 .. 3)) && profile_names[4][3] == '\0';
    //@ assert name_4_str: valid_read_string(profile_names[4]);
    //@ assert name_5: \valid_read(profile_names[5] + (0 .. 4)) && profile_names[5][4] == '\0';
    //@ assert name_5_str: valid_read_string(profile_names[5]);
    //@ assert name_6: \valid_read(profile_names[6] + (0 .. 10)) && profile_names[6][10] == '\0';
    //@ assert name_6_str: valid_read_string(profile_names[6]);
    //@ assert name_7: \valid_read(profile_names[7] + (0 .. 6)) && profile_names[7][6] == '\0';
    //@ assert name_7_str: valid_read_string(profile_names[7]);
    /*@ loop invariant 0 <= i <= OC_NS_PROFILE_COUNT;
        loop assigns i;
        loop variant OC_NS_PROFILE_COUNT - i;
    */
    for (int i = 0; i < OC_NS_PROFILE_COUNT; i++)
        if (strcmp(name, profile_names[i]) == 0) {
            *out = (oc_ns_profile)i;
            return OC_OK;
        }
    return OC_ERR_BAD_PROFILE;
}

oc_status oc_ns_profile_defaults(oc_ns_profile pr, oc_ns_hparams *hp)
{
    if ((unsigned)pr >= OC_NS_PROFILE_COUNT)
        return OC_ERR_BAD_PROFILE;
    int count = profile_counts[pr];
    hp->profile = pr;
    hp->ncoef = count;
    /*@ loop invariant 0 <= t <= count;
        loop assigns t, hp->coef[0 .. count - 1][0 .. 2];
        loop variant count - t;
    */
    for (int t = 0; t < count; t++) {
        hp->coef[t][0] = profile_sets[pr][t][0];
        hp->coef[t][1] = profile_sets[pr][t][1];
        hp->coef[t][2] = profile_sets[pr][t][2];
    }
    /* NS-PROF-*, NS-SCHED-1: schedule, normalisation and default iteration count of each
     * profile (one step per tuple, except simple's five of its one tuple). */
    int repeat_last = pr == OC_NS_POLAR_EXPRESS || pr == OC_NS_POLAR_EXPRESS_SAFETY ||
                      pr == OC_NS_CANS || pr == OC_NS_DEEPSEEKV4;
    hp->schedule = repeat_last ? OC_NS_REPEAT_LAST : OC_NS_CYCLE;
    hp->eps_mode = pr == OC_NS_SIMPLE || pr == OC_NS_POLAR_EXPRESS_SAFETY ? OC_NS_EPS_ADD
                                                                          : OC_NS_EPS_MAX;
    hp->eps = 1e-7f;
    hp->norm_scale = pr == OC_NS_POLAR_EXPRESS_SAFETY ? 1.01f : 1.0f;
    hp->steps = pr == OC_NS_SIMPLE ? 5 : count;
    return OC_OK;
}

oc_status oc_ns_check(const oc_ns_hparams *hp, size_t rows, size_t cols)
{
    if (rows < 1 || cols < 1 || rows > OC_NS_MAX_ELEMS || cols > OC_NS_MAX_ELEMS / rows)
        return OC_ERR_BAD_SHAPE; /* NS-IN-1 */
    if (!(hp->steps >= 1 && hp->steps <= OC_NS_MAX_STEPS) ||
        !(hp->ncoef >= 1 && hp->ncoef <= OC_NS_MAX_COEFS) ||
        !(hp->eps >= 0x1p-149 && hp->eps <= 1.0) ||
        !(hp->norm_scale >= 1.0 && hp->norm_scale <= 2.0) ||
        (hp->schedule != OC_NS_CYCLE && hp->schedule != OC_NS_REPEAT_LAST) ||
        (hp->eps_mode != OC_NS_EPS_ADD && hp->eps_mode != OC_NS_EPS_MAX))
        return OC_ERR_BAD_HPARAM; /* NS-HP-1; comparisons written so that NaN fails */
    if ((unsigned)hp->profile >= OC_NS_PROFILE_COUNT)
        return OC_ERR_BAD_PROFILE;
    /*@ loop invariant 0 <= t <= hp->ncoef;
        loop invariant \forall integer s, u; 0 <= s < t && 0 <= u < 3 ==>
            \is_finite(hp->coef[s][u]) && -128.0 <= hp->coef[s][u] <= 128.0;
        loop assigns t;
        loop variant hp->ncoef - t;
    */
    for (int t = 0; t < hp->ncoef; t++)
        if (!(fabs(hp->coef[t][0]) <= OC_NS_MAX_COEF_ABS) ||
            !(fabs(hp->coef[t][1]) <= OC_NS_MAX_COEF_ABS) ||
            !(fabs(hp->coef[t][2]) <= OC_NS_MAX_COEF_ABS))
            return OC_ERR_BAD_HPARAM;
    return OC_OK;
}

/* The workspace of a k x n X (k <= n): X and X' (k n each), A and B (k^2 each), and two
 * vectors of k (the scratch of a power iteration: the spectral-normalisation mistake of
 * conformance/mutants/newton_schulz.c runs in the same workspace). */
/*@ requires 1 <= k <= n && k * n <= OC_NS_MAX_ELEMS;
    assigns \nothing;
    ensures \result == 2 * (k * n) + 2 * (k * k) + 2 * k;
*/
static size_t work_of(size_t k, size_t n)
{
    //@ assert square_fits: k * k <= k * n;
    return 2 * k * n + 2 * k * k + 2 * k;
}

size_t oc_ns_work_len(size_t rows, size_t cols)
{
    size_t k = rows < cols ? rows : cols, n = rows < cols ? cols : rows;
    if (rows < 1 || cols < 1 || rows > OC_NS_MAX_ELEMS || cols > OC_NS_MAX_ELEMS / rows)
        return 0;
    //@ assert k * n == rows * cols;
    return work_of(k, n);
}

int oc_ns_tuple_index(const oc_ns_hparams *hp, int i)
{
    if (hp->schedule == OC_NS_CYCLE)
        return i % hp->ncoef; /* NS-SCHED-1 */
    return i < hp->ncoef ? i : hp->ncoef - 1;
}

/* NS-SCHED-1: the tuple (a, b, c) of iteration i. */
void oc_ns_tuple(const oc_ns_hparams *hp, int i, double abc[3])
{
    int t = oc_ns_tuple_index(hp, i);
    abc[0] = hp->coef[t][0];
    abc[1] = hp->coef[t][1];
    abc[2] = hp->coef[t][2];
}

/* NS-ITER-1: A = X X^T (k x k) of the k x n matrix X. */
void oc_ns_gram(const double *x, size_t k, size_t n, double *a)
{
    /*@ loop invariant 0 <= i <= k;
        loop assigns i, a[0 .. k * k - 1];
        loop variant k - i;
    */
    for (size_t i = 0; i < k; i++)
        /*@ loop invariant 0 <= j <= k;
            loop assigns j, a[0 .. k * k - 1];
            loop variant k - j;
        */
        for (size_t j = 0; j < k; j++) {
            double s = 0.0;
            /*@ loop invariant 0 <= l <= n;
                loop assigns l, s;
                loop variant n - l;
            */
            for (size_t l = 0; l < n; l++) {
                /*@ assert (i + 1) * n <= k * n && (j + 1) * n <= k * n; */
                /*@ assert i * n + l < k * n && j * n + l < k * n; */
                s += x[i * n + l] * x[j * n + l];
            }
            /*@ assert (i + 1) * k <= k * k && i * k + j < k * k; */
            a[i * k + j] = s;
        }
}

/* out = wb base + wp L R with L k x k and R, base, out k x m: B = b A + c A A (m = k) and
 * X' = a X + B X (m = n) of NS-ITER-1. */
/*@ requires 1 <= k <= m && k * m <= OC_NS_MAX_ELEMS;
    requires \valid_read(l + (0 .. k * k - 1)) && \valid_read(r + (0 .. k * m - 1));
    requires \valid_read(base + (0 .. k * m - 1)) && \valid(out + (0 .. k * m - 1));
    requires \separated(out + (0 .. k * m - 1), l + (0 .. k * k - 1));
    requires \separated(out + (0 .. k * m - 1), r + (0 .. k * m - 1));
    requires \separated(out + (0 .. k * m - 1), base + (0 .. k * m - 1));
    assigns out[0 .. k * m - 1];
*/
static void poly_product(const double *l, const double *r, const double *base, size_t k,
                         size_t m, double wb, double wp, double *out)
{
    /*@ loop invariant 0 <= i <= k;
        loop assigns i, out[0 .. k * m - 1];
        loop variant k - i;
    */
    for (size_t i = 0; i < k; i++)
        /*@ loop invariant 0 <= j <= m;
            loop assigns j, out[0 .. k * m - 1];
            loop variant m - j;
        */
        for (size_t j = 0; j < m; j++) {
            double s = 0.0;
            /*@ loop invariant 0 <= q <= k;
                loop assigns q, s;
                loop variant k - q;
            */
            for (size_t q = 0; q < k; q++) {
                /*@ assert (i + 1) * k <= k * k && (q + 1) * m <= k * m; */
                /*@ assert i * k + q < k * k && q * m + j < k * m;
                */
                s += l[i * k + q] * r[q * m + j];
            }
            /*@ assert (i + 1) * m <= k * m && i * m + j < k * m; */
            out[i * m + j] = wb * base[i * m + j] + wp * s;
        }
}

/* NS-ITER-1, NS-DOM-1: one iteration X <- a X + (b A + c A A) X given A (k x k), with B and
 * X' in bm and t; OC_ERR_NONFINITE when an entry leaves [-2^64, 2^64]. */
oc_status oc_ns_iteration(double *x, size_t k, size_t n, const double abc[3], const double *a,
                          double *bm, double *t)
{
    //@ assert square_fits: k * k <= k * n;
    poly_product(a, a, a, k, k, abc[1], abc[2], bm);
    poly_product(bm, x, x, k, n, abc[0], 1.0, t);
    /*@ loop invariant 0 <= i <= k * n;
        loop assigns i, x[0 .. k * n - 1];
        loop variant k * n - i;
    */
    for (size_t i = 0; i < k * n; i++) {
        if (!(t[i] >= -DOMAIN_LIMIT && t[i] <= DOMAIN_LIMIT))
            return OC_ERR_NONFINITE;                             /* NS-DOM-1 */
        x[i] = t[i];
    }
    return OC_OK;
}

/* p / q, apart so that the loops that divide carry no floating-point division (WP). */
/*@ assigns \nothing; */
static double quotient(double p, double q)
{
    return p / q;
}

/* NS-NORM-1: ||X||_F of the len entries of X. */
double oc_ns_frobenius(const double *x, size_t len)
{
    double sumsq = 0.0; /* squares of fp32 values are exact in binary64 */
    /*@ loop invariant 0 <= i <= len;
        loop assigns i, sumsq;
        loop variant len - i;
    */
    for (size_t i = 0; i < len; i++) {
        double e = fabs(x[i]);
        sumsq += e * e;
    }
    return sqrt(sumsq);
}

/* NS-NORM-1: the divisor d of X = G / d for the norm ||G||: s ||G|| + eps, or max(s ||G||, eps). */
double oc_ns_divisor(const oc_ns_hparams *hp, double norm)
{
    double sn = hp->norm_scale * norm;
    if (hp->eps_mode == OC_NS_EPS_ADD)
        return sn + hp->eps;
    return sn > hp->eps ? sn : hp->eps; /* sn is never NaN */
}

/* NS-NORM-1, NS-DOM-1: X = X / d, OC_ERR_NONFINITE when an entry leaves [-2^64, 2^64]. */
oc_status oc_ns_normalise(double *x, size_t len, double d)
{
    /*@ loop invariant 0 <= i <= len;
        loop assigns i, x[0 .. len - 1];
        loop variant len - i;
    */
    for (size_t i = 0; i < len; i++) {
        x[i] = quotient(x[i], d);                                /* NS-NORM-1 */
        if (!(x[i] >= -DOMAIN_LIMIT && x[i] <= DOMAIN_LIMIT))
            return OC_ERR_NONFINITE;                             /* NS-DOM-1 */
    }
    return OC_OK;
}

/* The k x n matrix X from G, transposed if G is tall (NS-SHAPE-1); OC_ERR_NONFINITE (NS-IN-1)
 * for a non-finite entry. */
oc_status oc_ns_load(const float *g, size_t cols, int tall, size_t k, size_t n, double *x)
{
    /*@ loop invariant 0 <= i <= k;
        loop assigns i, x[0 .. k * n - 1];
        loop variant k - i;
    */
    for (size_t i = 0; i < k; i++)
        /*@ loop invariant 0 <= j <= n;
            loop assigns j, x[0 .. k * n - 1];
            loop variant n - j;
        */
        for (size_t j = 0; j < n; j++) {
            /*@ assert (i + 1) * n <= k * n && i * n + j < k * n; */
            /*@ assert tall != 0 ==> (j + 1) * k <= n * k && j * cols + i < k * n; */
            float e = tall ? g[j * cols + i] : g[i * cols + j];
            if (!isfinite(e))
                return OC_ERR_NONFINITE;
            x[i * n + j] = e;
        }
    return OC_OK;
}

/* OUT = X, transposed back if G is tall, each entry rounded once to binary32 (NS-STORE-1). */
void oc_ns_store(const double *x, size_t rows, size_t cols, int tall, size_t n, float *out)
{
    /*@ loop invariant 0 <= r <= rows;
        loop assigns r, out[0 .. rows * cols - 1];
        loop variant rows - r;
    */
    for (size_t r = 0; r < rows; r++)
        /*@ loop invariant 0 <= c <= cols;
            loop assigns c, out[0 .. rows * cols - 1];
            loop variant cols - c;
        */
        for (size_t c = 0; c < cols; c++) {
            /*@ assert (r + 1) * cols <= rows * cols && r * cols + c < rows * cols; */
            /*@ assert tall != 0 ==> (c + 1) * rows <= cols * rows && c * n + r < rows * cols; */
            out[r * cols + c] = (float)(tall ? x[c * n + r] : x[r * n + c]);
        }
}

/* NS-NORM-1 .. NS-STORE-1 for the checked call: X (k x n, transposed if tall), X', A, B (k x k)
 * are workspace parts. */
/*@ requires \valid_read(hp) && ns_hparams_ok(hp, rows, cols);
    requires 1 <= k <= n && k * n == rows * cols;
    requires tall != 0 ? k == cols && n == rows : k == rows && n == cols;
    requires \valid_read(g + (0 .. rows * cols - 1)) && \valid(out + (0 .. rows * cols - 1));
    requires \valid(x + (0 .. k * n - 1)) && \valid(t + (0 .. k * n - 1));
    requires \valid(a + (0 .. k * k - 1)) && \valid(bm + (0 .. k * k - 1));
    requires \separated(x + (0 .. k * n - 1), t + (0 .. k * n - 1), a + (0 .. k * k - 1),
                        bm + (0 .. k * k - 1));
    assigns out[0 .. rows * cols - 1], x[0 .. k * n - 1], t[0 .. k * n - 1],
            a[0 .. k * k - 1], bm[0 .. k * k - 1];
*/
static oc_status orthogonalise(const oc_ns_hparams *hp, size_t rows, size_t cols, int tall,
                               size_t k, size_t n, const float *g, float *out, double *x,
                               double *t, double *a, double *bm)
{
    oc_status st = oc_ns_load(g, cols, tall, k, n, x);
    if (st != OC_OK)
        return st;
    if ((st = oc_ns_normalise(x, k * n, oc_ns_divisor(hp, oc_ns_frobenius(x, k * n)))) != OC_OK)
        return st;                                                /* NS-NORM-1, NS-DOM-1 */
    //@ assert square_fits: k * k <= k * n;
    /*@ loop invariant 0 <= it <= hp->steps;
        loop assigns it, st, x[0 .. k * n - 1], t[0 .. k * n - 1], a[0 .. k * k - 1],
                     bm[0 .. k * k - 1];
        loop variant hp->steps - it;
    */
    for (int it = 0; it < hp->steps; it++) {
        double abc[3];
        oc_ns_tuple(hp, it, abc);                                 /* NS-SCHED-1 */
        oc_ns_gram(x, k, n, a);                                   /* NS-ITER-1 */
        if ((st = oc_ns_iteration(x, k, n, abc, a, bm, t)) != OC_OK)
            return st;
    }
    oc_ns_store(x, rows, cols, tall, n, out);
    return OC_OK;
}

/* Hands out the workspace parts at offsets 0, k n, 2 k n and 2 k n + k^2. */
/*@ requires \valid_read(hp) && ns_hparams_ok(hp, rows, cols);
    requires 1 <= k <= n && k * n == rows * cols;
    requires tall != 0 ? k == cols && n == rows : k == rows && n == cols;
    requires \valid_read(g + (0 .. rows * cols - 1)) && \valid(out + (0 .. rows * cols - 1));
    requires \valid(work + (0 .. 2 * (k * n) + 2 * (k * k) + 2 * k - 1));
    assigns out[0 .. rows * cols - 1], work[0 .. 2 * (k * n) + 2 * (k * k) + 2 * k - 1];
*/
static oc_status orthogonalise_in(const oc_ns_hparams *hp, size_t rows, size_t cols, int tall,
                                  size_t k, size_t n, const float *g, float *out, double *work)
{
    //@ assert square_fits: k * k <= k * n;
    size_t kn = k * n, kk = k * k;
    double *a = work + 2 * kn;
    return orthogonalise(hp, rows, cols, tall, k, n, g, out, work, work + kn, a, a + kk);
}

/* NS-ERR-1: the checks of oc_ref_newton_schulz, all before any write. */
oc_status oc_ns_check_args(const oc_ns_hparams *hp, size_t rows, size_t cols, const float *g,
                           const float *out, const double *work, size_t work_len)
{
    oc_status st = oc_ns_check(hp, rows, cols);
    if (st != OC_OK)
        return st;
    size_t elems = rows * cols;
    int tall = rows > cols; /* NS-SHAPE-1 */
    size_t k = tall ? cols : rows, n = tall ? rows : cols;
    //@ assert shape: 1 <= k <= n && k * n == rows * cols && k * n <= OC_NS_MAX_ELEMS;
    size_t need = work_of(k, n); /* oc_ns_work_len(rows, cols) */
    if ((st = oc_buffer_check(g, elems, sizeof(float))) != OC_OK ||
        (st = oc_buffer_check(out, elems, sizeof(float))) != OC_OK ||
        (st = oc_buffer_check(work, need, sizeof(double))) != OC_OK ||
        (st = oc_buffer_disjoint(g, elems * sizeof(float), out, elems * sizeof(float))) != OC_OK)
        return st;
    if (work_len < need)
        return OC_ERR_BAD_SHAPE; /* NS-ERR-1: the workspace is part of the call's shape */
    return OC_OK;
}

oc_status oc_ref_newton_schulz(const oc_ns_hparams *hp, size_t rows, size_t cols, const float *g,
                               float *out, double *work, size_t work_len)
{
    if (hp == NULL)
        return OC_ERR_NULL_POINTER;
    oc_status st = oc_ns_check_args(hp, rows, cols, g, out, work, work_len);
    if (st != OC_OK)
        return st;
    int tall = rows > cols; /* NS-SHAPE-1 */
    size_t k = tall ? cols : rows, n = tall ? rows : cols;
    //@ assert shape: 1 <= k <= n && k * n == rows * cols && k * n <= OC_NS_MAX_ELEMS;
    return orthogonalise_in(hp, rows, cols, tall, k, n, g, out, work);
}
