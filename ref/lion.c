/* Lion reference (spec/lion.md). Scalar C11, no allocation, no I/O, no globals.
 *
 * Exact-class reference: each element is computed in binary64 from its fp32 inputs and
 * rounded to fp32 only at the storage points of LION-STORE-1 (m and p), as in ref/adam.c.
 * The sign of c (LION-DIR-1, LION-SIGN-1) is decided on the exact value of c, not on a
 * rounded one: it is the only use of c, and it is discontinuous at 0 (see lion_sign).
 */
#include <math.h>
#include <string.h>
#include "optcert/elementwise.h"
#include "optcert/lion.h"
#include "optcert/buffers.h"

static const char *const profile_names[OC_LION_PROFILE_COUNT] = {
    "torch",
};

/* The contracts of the functions lion.h declares are there; these two stay here: the first
 * names the static table, the second needs valid_read_string (<string.h>, which lion.h does
 * not include). */
/*@ assigns \result \from pr, profile_names[0 .. OC_LION_PROFILE_COUNT - 1]; */
const char *oc_lion_profile_name(oc_lion_profile pr)
{
    return (unsigned)pr < OC_LION_PROFILE_COUNT ? profile_names[pr] : NULL;
}

oc_status oc_lion_profile_parse(const char *name, oc_lion_profile *out)
{
    /*@ loop invariant 0 <= i <= OC_LION_PROFILE_COUNT;
        loop assigns i;
        loop variant OC_LION_PROFILE_COUNT - i;
    */
    for (int i = 0; i < OC_LION_PROFILE_COUNT; i++)
        if (strcmp(name, profile_names[i]) == 0) {
            *out = (oc_lion_profile)i;
            return OC_OK;
        }
    return OC_ERR_BAD_PROFILE;
}

/*@ assigns \nothing;
    ensures \result != 0 <==> finite_ge0(x);
*/
static int finite_nonneg(double x) { return x >= 0.0 && x <= 0x1.fffffffffffffp+1023; }
/*@ assigns \nothing;
    ensures \result != 0 <==> beta_ok(b);
*/
static int beta_in_range(double b) { return b >= 0.0 && b < 1.0; }

/* LION-HP-1: ranges and step (Lion has no bias correction; the step is validated so that
 * every family rejects the same counters). Comparisons are written so that NaN fails. */
oc_status oc_lion_check(const oc_lion_hparams *hp, int64_t step)
{
    if (step < 1)
        return OC_ERR_BAD_STEP;
    if (!finite_nonneg(hp->lr) || !beta_in_range(hp->beta1) || !beta_in_range(hp->beta2) ||
        !finite_nonneg(hp->weight_decay))
        return OC_ERR_BAD_HPARAM;
    if (hp->profile != OC_LION_TORCH)
        return OC_ERR_BAD_PROFILE;
    return OC_OK;
}

/* Knuth's TwoSum: s + e == a + b exactly (binary64, round to nearest; the build uses
 * -ffp-contract=off, so no operation is fused). */
/*@ requires \valid(s) && \valid(e) && \separated(s, e);
    assigns *s, *e;
*/
static void two_sum(double a, double b, double *s, double *e)
{
    double x = a + b, bv = x - a, av = x - bv;
    *s = x;
    *e = (a - av) + (b - bv);
}

/* p + e == a * b exactly when a*b does not underflow (fma rounds once). */
/*@ requires \valid(p) && \valid(e) && \separated(p, e);
    assigns *p, *e;
*/
static void two_prod(double a, double b, double *p, double *e)
{
    double x = a * b;
    *p = x;
    *e = fma(a, b, -x);
}

/* Sign (-1, 0, +1) of the exact sum of x[0..5]. Grow-Expansion (Shewchuk 1997, Theorem 10)
 * adds each term into a nonoverlapping expansion e[0..k] of increasing magnitude by TwoSum;
 * the sign of such an expansion is the sign of its largest nonzero component. */
/*@ requires \valid_read(x + (0 .. 5));
    assigns \nothing;
    ensures -1 <= \result <= 1;
*/
static int sign_of_exact_sum(const double x[6])
{
    double e[6] = {0};
    /*@ loop invariant 0 <= k <= 6;
        loop assigns k, e[0 .. 5];
        loop variant 6 - k;
    */
    for (int k = 0; k < 6; k++) {
        double q = x[k];
        /*@ loop invariant 0 <= j <= k;
            loop assigns j, q, e[0 .. 5];
            loop variant k - j;
        */
        for (int j = 0; j < k; j++)
            two_sum(q, e[j], &q, &e[j]);
        e[k] = q;
    }
    /*@ loop invariant -1 <= j <= 5;
        loop assigns j;
        loop variant j + 1;
    */
    for (int j = 5; j >= 0; j--)
        if (e[j] != 0.0)
            return e[j] > 0.0 ? 1 : -1;
    return 0;
}

/* LION-SIGN-1 of c = b1*m + (1-b1)*g (LION-DIR-1), with sign(0) = 0 (torch.sign, jnp.sign).
 * A rounded c can have the wrong sign when the two terms nearly cancel, so the sign is taken
 * of the exact c: 1 - b1 = w + ew (TwoSum), and b1*m, w*g, ew*g split into exact pairs
 * (TwoProduct) give six doubles that add up to c. For fp32 m and g the products cannot
 * underflow when b1 >= 2^-700; below that (b1 != 0), |b1*m| < 2^-572 while a nonzero
 * (1-b1)*g exceeds 2^-150, so g decides unless it is 0. An infinite c (an infinite input) has
 * its sign, +-1; a NaN c (a NaN input, or opposite infinities) has sign 0, as torch.sign
 * gives (LION-SIGN-1). */
double oc_lion_sign(double b1, double m, double g)
{
    double c = b1 * m + (1.0 - b1) * g;
    if (isnan(c))
        return 0.0;
    if (isinf(c))
        return c > 0.0 ? 1.0 : -1.0;
    int s;
    if (b1 != 0.0 && b1 < 0x1p-700) {
        s = g > 0.0 ? 1 : g < 0.0 ? -1 : m > 0.0 ? 1 : m < 0.0 ? -1 : 0;
    } else {
        double x[6], w;
        two_prod(b1, m, &x[0], &x[1]);
        two_sum(1.0, -b1, &w, &x[5]);
        two_prod(x[5], g, &x[4], &x[5]);
        two_prod(w, g, &x[2], &x[3]);
        s = sign_of_exact_sum(x);
    }
    return (double)s;
}

/* LION-M-1: b2*m + (1 - b2)*g, stored (LION-STORE-1). */
float oc_lion_momentum(double b2, double m, double g)
{
    return (float)(b2 * m + (1.0 - b2) * g);
}

/* LION-UPD-1, LION-WD-1: p - decay*p - lr*sign, stored (LION-STORE-1); decay = lr*wd. */
float oc_lion_param(double lr, double decay, double p, double sign)
{
    return (float)(p - decay * p - lr * sign);
}

/* One element: the update direction uses the old momentum (LION-DIR-1). */
/*@ requires \valid(p) && \valid(m) && \separated(p, m);
    requires \valid_read(hp);
    assigns *p, *m;
*/
static void lion_element(const oc_lion_hparams *hp, float *p, float *m, float grad)
{
    double p0 = *p, m0 = *m, g = grad;
    float m1 = oc_lion_momentum(hp->beta2, m0, g);
    double s = oc_lion_sign(hp->beta1, m0, g);
    *p = oc_lion_param(hp->lr, hp->lr * hp->weight_decay, p0, s);
    *m = m1;
}

/* LION-ERR-1: everything oc_ref_lion_step checks before it writes. */
oc_status oc_lion_check_args(const oc_lion_hparams *hp, int64_t step, size_t n, const float *p,
                             const float *m, const float *g)
{
    oc_status st = oc_lion_check(hp, step);
    if (st != OC_OK)
        return st;
    const void *bufs[3] = {p, m, g};
    /*@ loop invariant 0 <= b <= 3;
        loop assigns b, st;
        loop variant 3 - b;
    */
    for (int b = 0; b < 3; b++) {
        st = oc_buffer_check(bufs[b], n, sizeof(float));
        if (st != OC_OK)
            return st;
        /*@ loop invariant 0 <= o <= b;
            loop assigns o, st;
            loop variant b - o;
        */
        for (int o = 0; o < b; o++)
            if ((st = oc_buffer_disjoint(bufs[o], n * sizeof(float), bufs[b],
                                         n * sizeof(float))) != OC_OK)
                return st;
    }
    return OC_OK;
}

/* LION-ERR-1: validate everything, then update; on error nothing is written. */
oc_status oc_ref_lion_step(const oc_lion_hparams *hp, int64_t step, size_t n, float *p, float *m,
                           const float *g)
{
    if (hp == NULL)
        return OC_ERR_NULL_POINTER;
    oc_status st = oc_lion_check_args(hp, step, n, p, m, g);
    if (st != OC_OK)
        return st;
    /*@ loop invariant 0 <= i <= n;
        loop assigns i, p[0 .. n-1], m[0 .. n-1];
        loop variant n - i;
    */
    for (size_t i = 0; i < n; i++)
        lion_element(hp, &p[i], &m[i], g[i]);
    return OC_OK;
}

/* The element-wise interface (optcert/elementwise.h; contracts in optcert/lion.h). */
int oc_lion_elementwise_state_count(const void *hp)
{
    (void)hp;
    return 1;
}

oc_status oc_lion_elementwise_check(const void *hp, int64_t step)
{
    return oc_lion_check((const oc_lion_hparams *)hp, step);
}

oc_status oc_lion_elementwise_step(const void *hp, int64_t step, size_t n, float *p,
                                   float *const *state, const float *g)
{
    return oc_ref_lion_step((const oc_lion_hparams *)hp, step, n, p, state[0], g);
}

const oc_elementwise oc_elementwise_lion = {
    .alg = OC_ALG_LION,
    .state_count = oc_lion_elementwise_state_count,
    .check = oc_lion_elementwise_check,
    .step = oc_lion_elementwise_step,
};
