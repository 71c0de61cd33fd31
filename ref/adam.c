/* Adam family reference (spec/adam.md). Scalar C11, no allocation, no I/O, no globals.
 *
 * Exact-class reference: each element is computed in binary64 from its fp32 inputs and
 * rounded to fp32 only at the storage points of ADAM-STORE-1 (m, v, vmax, p), so every
 * stored value is within 1 ulp of the correctly rounded exact value (spec/adam.md §4.1).
 */
#include <math.h>
#include <string.h>
#include "optcert/elementwise.h"
#include "optcert/adam.h"
#include "optcert/buffers.h"

static const char *const profile_names[OC_ADAM_PROFILE_COUNT] = {
    "torch", "optax", "paper", "keras",
};

/* The contracts of the functions adam.h declares are there; these two stay here: the first
 * names the static table, the second needs valid_read_string (<string.h>, which adam.h does
 * not include). */
/*@ assigns \result \from pr, profile_names[0 .. OC_ADAM_PROFILE_COUNT - 1]; */
const char *oc_adam_profile_name(oc_adam_profile pr)
{
    return (unsigned)pr < OC_ADAM_PROFILE_COUNT ? profile_names[pr] : NULL;
}

oc_status oc_adam_profile_parse(const char *name, oc_adam_profile *out)
{
    /*@ loop invariant 0 <= i <= OC_ADAM_PROFILE_COUNT;
        loop assigns i;
        loop variant OC_ADAM_PROFILE_COUNT - i;
    */
    for (int i = 0; i < OC_ADAM_PROFILE_COUNT; i++)
        if (strcmp(name, profile_names[i]) == 0) {
            *out = (oc_adam_profile)i;
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

/* ADAM-HP-1, ADAM-HP-2, ADAM-PROF-*: ranges, step, and the options each profile defines.
 * Comparisons are written so that NaN fails every one of them. */
oc_status oc_adam_check(const oc_adam_hparams *hp, int64_t step)
{
    if (step < 1)
        return OC_ERR_BAD_STEP;
    if (!finite_nonneg(hp->lr) || !beta_in_range(hp->beta1) || !beta_in_range(hp->beta2) ||
        !(hp->eps > 0.0 && hp->eps <= 0x1.fffffffffffffp+1023) ||
        !finite_nonneg(hp->weight_decay) || !finite_nonneg(hp->eps_root) ||
        !finite_nonneg(hp->schedule_multiplier))
        return OC_ERR_BAD_HPARAM;
    switch (hp->profile) {
    case OC_ADAM_TORCH:
        break;
    case OC_ADAM_OPTAX: /* ADAM-PROF-OPTAX: no amsgrad/maximize in scale_by_adam, no L2 */
        if (hp->amsgrad || hp->maximize || (!hp->decoupled && hp->weight_decay != 0.0))
            return OC_ERR_UNSUPPORTED;
        break;
    case OC_ADAM_PAPER: /* ADAM-PROF-PAPER */
        if (hp->amsgrad || hp->maximize)
            return OC_ERR_UNSUPPORTED;
        break;
    case OC_ADAM_KERAS: /* ADAM-PROF-KERAS: weight decay is always decoupled */
        if (hp->maximize || (!hp->decoupled && hp->weight_decay != 0.0))
            return OC_ERR_UNSUPPORTED;
        break;
    default:
        return OC_ERR_BAD_PROFILE;
    }
    if (hp->profile != OC_ADAM_OPTAX && hp->eps_root != 0.0)
        return OC_ERR_UNSUPPORTED;
    if (hp->profile != OC_ADAM_PAPER && hp->schedule_multiplier != 1.0)
        return OC_ERR_UNSUPPORTED;
    return OC_OK;
}

/* ADAM-BC-1, ADAM-WD-1/2, ADAM-PROF-*: the per-step scalars shared by all elements. */
void oc_adam_coefficients(const oc_adam_hparams *hp, int64_t step, oc_adam_coeffs *c)
{
    /* For WP: the accesses after the pow calls (which assign errno) close by Qed from these
     * facts; without them WP fails on them (checked). */
    /*@ assert access_ok: \valid(&c->beta1) && \valid(&c->beta2) && \valid(&c->bc1) &&
            \valid(&c->bc2) && \valid(&c->step_mult) && \valid(&c->decay) &&
            \valid(&c->l2) && \valid(&c->eps_hat) &&
            \valid_read(&c->beta1) && \valid_read(&c->beta2) &&
            \valid_read(&hp->profile) && \valid_read(&hp->lr) &&
            \valid_read(&hp->weight_decay) && \valid_read(&hp->schedule_multiplier) &&
            \valid_read(&hp->decoupled);
    */
    c->beta1 = hp->beta1;
    c->beta2 = hp->beta2;
    c->bc1 = 1.0 - pow(c->beta1, (double)step);
    c->bc2 = 1.0 - pow(c->beta2, (double)step);
    double eta = hp->profile == OC_ADAM_PAPER ? hp->schedule_multiplier : 1.0;
    double lr_for_decay = hp->profile == OC_ADAM_PAPER ? eta    /* ADAM-PROF-PAPER */
                                                       : hp->lr; /* ADAM-WD-2 */
    c->step_mult = eta * hp->lr;
    c->decay = hp->decoupled ? lr_for_decay * hp->weight_decay : 0.0;
    c->l2 = hp->decoupled ? 0.0 : hp->weight_decay;
    c->eps_hat = hp->profile == OC_ADAM_KERAS;
}

/* ADAM-MAX-1, ADAM-WD-1: the gradient the moments average. */
double oc_adam_gradient(const oc_adam_hparams *hp, const oc_adam_coeffs *c, double p,
                        float grad)
{
    double g = hp->maximize ? -(double)grad : (double)grad;
    return g + c->l2 * p;
}

/* ADAM-M-1, ADAM-V-1: beta * s + (1 - beta) * x, stored (ADAM-STORE-1). */
float oc_adam_average(double beta, double s, double x)
{
    return (float)(beta * s + (1.0 - beta) * x);
}

/* ADAM-AMS-1: vmax = max(vmax, v), stored; the maximum is what the denominator uses. */
float oc_adam_amsgrad(float *vmax, double v)
{
    float vm = (float)fmax((double)*vmax, v);
    *vmax = vm;
    return vm;
}

/* ADAM-EPS-1, ADAM-PROF-OPTAX: sqrt(v / bc2 + eps_root) + eps; ADAM-PROF-KERAS: sqrt(v) + eps. */
double oc_adam_denominator(const oc_adam_hparams *hp, const oc_adam_coeffs *c, double v)
{
    const double eps = hp->eps; /* read before sqrt, which assigns errno: WP then keeps hp valid */
    if (c->eps_hat)
        return sqrt(v) + eps;
    return sqrt(v / c->bc2 + hp->eps_root) + eps;
}

/* ADAM-DIR-1: (m / bc1) / denominator; ADAM-PROF-KERAS: (sqrt(bc2) / bc1) m / denominator. */
double oc_adam_direction(const oc_adam_coeffs *c, double m, double denominator)
{
    const double bc1 = c->bc1; /* read before sqrt, as in oc_adam_denominator */
    if (c->eps_hat)
        return (sqrt(c->bc2) / bc1) * m / denominator;
    return (m / bc1) / denominator;
}

/* ADAM-UPD-1, ADAM-WD-2: p - decay * p - step_mult * direction, stored (ADAM-STORE-1). */
float oc_adam_param(const oc_adam_coeffs *c, double p, double direction)
{
    return (float)(p - c->decay * p - c->step_mult * direction);
}

/* One element. Storage points (ADAM-STORE-1) are the four (float) conversions; a value
 * beyond the binary32 range stores as +-inf (ADAM-STORE-2). */
/*@ requires \valid(p) && \valid(m) && \valid(v);
    requires amsgrad != 0 ==> \valid(vmax);
    requires \separated(p, m, v);
    requires amsgrad != 0 ==> \separated(vmax, p, m, v);
    requires \valid_read(hp) && \valid_read(c);
    assigns *p, *m, *v, vmax[0 .. (amsgrad != 0 ? 0 : -1)], errno;
*/
static void adam_element(const oc_adam_hparams *hp, const oc_adam_coeffs *c, int amsgrad,
                         float *p, float *m, float *v, float *vmax, float grad)
{
    double p0 = *p;
    double g = oc_adam_gradient(hp, c, p0, grad);
    float m1 = oc_adam_average(c->beta1, *m, g);
    float v1 = oc_adam_average(c->beta2, *v, g * g);
    *m = m1;
    *v = v1;
    double vv = amsgrad ? oc_adam_amsgrad(vmax, v1) : v1;
    *p = oc_adam_param(c, p0, oc_adam_direction(c, m1, oc_adam_denominator(hp, c, vv)));
}

/* ADAM-ERR-1: everything oc_ref_adam_step checks before it writes. */
oc_status oc_adam_check_args(const oc_adam_hparams *hp, int64_t step, size_t n, const float *p,
                             const float *m, const float *v, const float *vmax, const float *g)
{
    oc_status st = oc_adam_check(hp, step);
    if (st != OC_OK)
        return st;
    const void *bufs[5] = {p, m, v, g, vmax};
    /*@ loop invariant 0 <= b <= 5;
        loop assigns b, st;
        loop variant 5 - b;
    */
    for (int b = 0; b < (hp->amsgrad ? 5 : 4); b++) {
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

/* ADAM-ERR-1: validate everything, then update; on error nothing is written. */
oc_status oc_ref_adam_step(const oc_adam_hparams *hp, int64_t step, size_t n,
                           float *p, float *m, float *v, float *vmax, const float *g)
{
    if (hp == NULL)
        return OC_ERR_NULL_POINTER;
    oc_status st = oc_adam_check_args(hp, step, n, p, m, v, vmax, g);
    if (st != OC_OK)
        return st;
    int amsgrad = hp->amsgrad != 0;
    oc_adam_coeffs c;
    oc_adam_coefficients(hp, step, &c);
    /*@ loop invariant 0 <= i <= n;
        loop assigns i, errno, p[0 .. n-1], m[0 .. n-1], v[0 .. n-1],
                     vmax[0 .. (amsgrad != 0 ? n-1 : -1)];
        loop variant n - i;
    */
    for (size_t i = 0; i < n; i++)
        adam_element(hp, &c, amsgrad, &p[i], &m[i], &v[i], amsgrad ? &vmax[i] : NULL, g[i]);
    return OC_OK;
}

/* The element-wise interface (optcert/elementwise.h; contracts in optcert/adam.h). */
int oc_adam_elementwise_state_count(const void *hp)
{
    return ((const oc_adam_hparams *)hp)->amsgrad ? 3 : 2;
}

oc_status oc_adam_elementwise_check(const void *hp, int64_t step)
{
    return oc_adam_check((const oc_adam_hparams *)hp, step);
}

oc_status oc_adam_elementwise_step(const void *hp, int64_t step, size_t n, float *p,
                                   float *const *state, const float *g)
{
    const oc_adam_hparams *h = (const oc_adam_hparams *)hp;
    return oc_ref_adam_step(h, step, n, p, state[0], state[1], h->amsgrad ? state[2] : NULL, g);
}

const oc_elementwise oc_elementwise_adam = {
    .alg = OC_ALG_ADAM,
    .state_count = oc_adam_elementwise_state_count,
    .check = oc_adam_elementwise_check,
    .step = oc_adam_elementwise_step,
};
