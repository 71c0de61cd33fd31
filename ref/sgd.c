/* SGD with momentum reference (spec/sgd.md). Scalar C11, no allocation, no I/O, no globals.
 *
 * Exact-class reference: each element is computed in binary64 from its fp32 inputs and
 * rounded to fp32 only at the storage points of SGD-STORE-1 (the momentum buffer and the
 * parameter), as in ref/adam.c.
 */
#include <string.h>
#include "optcert/elementwise.h"
#include "optcert/sgd.h"
#include "optcert/buffers.h"

static const char *const profile_names[OC_SGD_PROFILE_COUNT] = {
    "torch", "ema",
};

/* The contracts of the functions sgd.h declares are there; these two stay here: the first
 * names the static table, the second needs valid_read_string (<string.h>, which sgd.h does
 * not include). */
/*@ assigns \result \from pr, profile_names[0 .. OC_SGD_PROFILE_COUNT - 1]; */
const char *oc_sgd_profile_name(oc_sgd_profile pr)
{
    return (unsigned)pr < OC_SGD_PROFILE_COUNT ? profile_names[pr] : NULL;
}

oc_status oc_sgd_profile_parse(const char *name, oc_sgd_profile *out)
{
    /*@ loop invariant 0 <= i <= OC_SGD_PROFILE_COUNT;
        loop assigns i;
        loop variant OC_SGD_PROFILE_COUNT - i;
    */
    for (int i = 0; i < OC_SGD_PROFILE_COUNT; i++)
        if (strcmp(name, profile_names[i]) == 0) {
            *out = (oc_sgd_profile)i;
            return OC_OK;
        }
    return OC_ERR_BAD_PROFILE;
}

/*@ assigns \nothing;
    ensures \result != 0 <==> finite_ge0(x);
*/
static int finite_nonneg(double x) { return x >= 0.0 && x <= 0x1.fffffffffffffp+1023; }

/* SGD-HP-1, SGD-HP-2, SGD-PROF-*: ranges, step, and the options each profile defines.
 * Comparisons are written so that NaN fails every one of them. */
oc_status oc_sgd_check(const oc_sgd_hparams *hp, int64_t step)
{
    if (step < 1)
        return OC_ERR_BAD_STEP;
    if (!finite_nonneg(hp->lr) || !(hp->momentum >= 0.0 && hp->momentum < 1.0) ||
        !(hp->dampening >= 0.0 && hp->dampening <= 1.0) || !finite_nonneg(hp->weight_decay))
        return OC_ERR_BAD_HPARAM;
    switch (hp->profile) {
    case OC_SGD_TORCH: /* SGD-HP-1: torch raises ValueError for these */
        if (hp->nesterov && !(hp->momentum > 0.0 && hp->dampening == 0.0))
            return OC_ERR_BAD_HPARAM;
        break;
    case OC_SGD_EMA: /* SGD-PROF-EMA: no maximize, no dampening (it is fixed to mu) */
        if (hp->maximize || hp->dampening != 0.0)
            return OC_ERR_UNSUPPORTED;
        break;
    default:
        return OC_ERR_BAD_PROFILE;
    }
    return OC_OK;
}

/* SGD-MAX-1, SGD-WD-1 (torch): the gradient with maximize and the L2 term. */
double oc_sgd_torch_gradient(const oc_sgd_hparams *hp, double p, double g)
{
    return (hp->maximize ? -g : g) + hp->weight_decay * p;
}

/* SGD-BUF-1 (torch, after the first step): mu*buf + (1 - dampening)*g, stored (SGD-STORE-1). */
float oc_sgd_torch_buffer(const oc_sgd_hparams *hp, double buf, double g)
{
    return (float)(hp->momentum * buf + (1.0 - hp->dampening) * g);
}

/* SGD-NEST-1 (torch): g + mu*buf' with Nesterov, else buf'. */
double oc_sgd_torch_direction(const oc_sgd_hparams *hp, double g, double buf)
{
    return hp->nesterov ? g + hp->momentum * buf : buf;
}

/* SGD-BUF-2 (ema): keep*buf + take*g with keep = mu, take = 1 - mu, stored (SGD-STORE-1). */
float oc_sgd_ema_buffer(double keep, double take, double buf, double g)
{
    return (float)(keep * buf + take * g);
}

/* SGD-NEST-2 (ema): take*g + keep*buf' with Nesterov, else buf'. */
double oc_sgd_ema_direction(const oc_sgd_hparams *hp, double keep, double take, double g,
                            double buf)
{
    return hp->nesterov ? take * g + keep * buf : buf;
}

/* SGD-UPD-1: p - lr*direction (torch), with the decoupled decay p - lr*wd*p of SGD-WD-2 (ema),
 * stored (SGD-STORE-1). */
float oc_sgd_param(const oc_sgd_hparams *hp, double p, double direction)
{
    if (hp->profile == OC_SGD_TORCH)
        return (float)(p - hp->lr * direction);
    return (float)(p - hp->lr * hp->weight_decay * p - hp->lr * direction);
}

/* One element, torch profile (SGD-PROF-TORCH). `first` is step == 1: the input buffer is not
 * read (torch creates it from g). */
/*@ requires \valid(p);
    requires hp->momentum != 0.0 ==> \valid(buf) && \separated(p, buf);
    requires \valid_read(hp);
    assigns *p, buf[0 .. (hp->momentum != 0.0 ? 0 : -1)];
*/
static void sgd_torch_element(const oc_sgd_hparams *hp, int first, float *p, float *buf,
                              float grad)
{
    double p0 = *p;
    double ge = oc_sgd_torch_gradient(hp, p0, grad);
    double dir = ge;
    if (hp->momentum != 0.0) {
        float bs = first ? (float)ge : oc_sgd_torch_buffer(hp, *buf, ge);
        *buf = bs;
        dir = oc_sgd_torch_direction(hp, ge, bs);
    }
    *p = oc_sgd_param(hp, p0, dir);
}

/* One element, EMA profile (SGD-PROF-EMA): buf = lerp(buf, g, 1-mu) from a zero state,
 * decoupled decay. */
/*@ requires \valid(p);
    requires hp->momentum != 0.0 ==> \valid(buf) && \separated(p, buf);
    requires \valid_read(hp);
    assigns *p, buf[0 .. (hp->momentum != 0.0 ? 0 : -1)];
*/
static void sgd_ema_element(const oc_sgd_hparams *hp, float *p, float *buf, float grad)
{
    double p0 = *p, g = grad, m = hp->momentum;
    double dir = g;
    if (m != 0.0) {
        float bs = oc_sgd_ema_buffer(m, 1.0 - m, *buf, g);
        *buf = bs;
        dir = oc_sgd_ema_direction(hp, m, 1.0 - m, g, bs);
    }
    *p = oc_sgd_param(hp, p0, dir);
}

/* SGD-ERR-1: everything oc_ref_sgd_step checks before it writes. */
oc_status oc_sgd_check_args(const oc_sgd_hparams *hp, int64_t step, size_t n, const float *p,
                            const float *buf, const float *g)
{
    oc_status st = oc_sgd_check(hp, step);
    if (st != OC_OK)
        return st;
    const void *bufs[3] = {p, g, buf}; /* buf is read and written only with momentum */
    /*@ loop invariant 0 <= b <= 3;
        loop assigns b, st;
        loop variant 3 - b;
    */
    for (int b = 0; b < (hp->momentum != 0.0 ? 3 : 2); b++) {
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

/* SGD-ERR-1: validate everything, then update; on error nothing is written. */
oc_status oc_ref_sgd_step(const oc_sgd_hparams *hp, int64_t step, size_t n, float *p, float *buf,
                          const float *g)
{
    if (hp == NULL)
        return OC_ERR_NULL_POINTER;
    oc_status st = oc_sgd_check_args(hp, step, n, p, buf, g);
    if (st != OC_OK)
        return st;
    int momentum = hp->momentum != 0.0;
    int torch = hp->profile == OC_SGD_TORCH;
    int first = step == 1;
    /*@ loop invariant 0 <= i <= n;
        loop assigns i, p[0 .. n-1], buf[0 .. (momentum != 0 ? n-1 : -1)];
        loop variant n - i;
    */
    for (size_t i = 0; i < n; i++) {
        float *bi = momentum ? &buf[i] : NULL;
        if (torch)
            sgd_torch_element(hp, first, &p[i], bi, g[i]);
        else
            sgd_ema_element(hp, &p[i], bi, g[i]);
    }
    return OC_OK;
}

/* The element-wise interface (optcert/elementwise.h; contracts in optcert/sgd.h). */
int oc_sgd_elementwise_state_count(const void *hp)
{
    return ((const oc_sgd_hparams *)hp)->momentum != 0.0 ? 1 : 0;
}

oc_status oc_sgd_elementwise_check(const void *hp, int64_t step)
{
    return oc_sgd_check((const oc_sgd_hparams *)hp, step);
}

oc_status oc_sgd_elementwise_step(const void *hp, int64_t step, size_t n, float *p,
                                  float *const *state, const float *g)
{
    const oc_sgd_hparams *h = (const oc_sgd_hparams *)hp;
    return oc_ref_sgd_step(h, step, n, p, h->momentum != 0.0 ? state[0] : NULL, g);
}

const oc_elementwise oc_elementwise_sgd = {
    .alg = OC_ALG_SGD,
    .state_count = oc_sgd_elementwise_state_count,
    .check = oc_sgd_elementwise_check,
    .step = oc_sgd_elementwise_step,
};
