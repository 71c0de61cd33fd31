/* SGD with momentum reference (spec/sgd.md). Scalar C11, no allocation, no I/O, no globals.
 *
 * Exact-class reference: each element is computed in binary64 from its fp32 inputs and
 * rounded to fp32 only at the storage points of SGD-STORE-1 (the momentum buffer and the
 * parameter), as in ref/adam.c.
 */
#include <string.h>
#include "optcert/sgd.h"
#include "optcert/buffers.h"

/*@ predicate finite_ge0(double x) = \is_finite(x) && 0.0 <= x;
    predicate sgd_hparams_ok(oc_sgd_hparams *hp, int64_t step) =
        1 <= step &&
        finite_ge0(hp->lr) &&
        \is_finite(hp->momentum) && 0.0 <= hp->momentum < 1.0 &&
        \is_finite(hp->dampening) && 0.0 <= hp->dampening <= 1.0 &&
        finite_ge0(hp->weight_decay) &&
        (hp->profile == OC_SGD_TORCH || hp->profile == OC_SGD_EMA) &&
        (hp->profile == OC_SGD_TORCH && hp->nesterov != 0 ==>
             hp->momentum > 0.0 && hp->dampening == 0.0) &&
        (hp->profile == OC_SGD_EMA ==> hp->maximize == 0 && hp->dampening == 0.0);
*/

static const char *const mutant_names[OC_SGD_MUTANT_COUNT] = {
    "correct",
    "nesterov-uses-buffer",
    "dampening-on-first-step",
    "lerp-weights-swapped",
    "maximize-after-decay",
    "decay-skipped-without-momentum",
};

static const char *const mutant_descriptions[OC_SGD_MUTANT_COUNT] = {
    "the reference itself",
    "Nesterov direction is the new buffer buf' instead of g + mu*buf' (ema: (1-mu)*g + mu*buf')",
    "torch step 1: buf = (1-dampening)*g, not g (what a zero-initialised buffer gives)",
    "ema: buf = (1-mu)*buf + mu*g and Nesterov mu*g + (1-mu)*buf' (lerp weights exchanged)",
    "torch maximize negates g + wd*p instead of negating g before the L2 term",
    "torch: weight decay ignored when momentum is 0 (ml-explore/mlx #440)",
};

static const char *const profile_names[OC_SGD_PROFILE_COUNT] = {
    "torch", "ema",
};

/*@ assigns \result \from mu, mutant_names[0 .. OC_SGD_MUTANT_COUNT - 1]; */
const char *oc_sgd_mutant_name(oc_sgd_mutant mu)
{
    return (unsigned)mu < OC_SGD_MUTANT_COUNT ? mutant_names[mu] : NULL;
}

/*@ assigns \result \from mu, mutant_descriptions[0 .. OC_SGD_MUTANT_COUNT - 1]; */
const char *oc_sgd_mutant_description(oc_sgd_mutant mu)
{
    return (unsigned)mu < OC_SGD_MUTANT_COUNT ? mutant_descriptions[mu] : NULL;
}

/*@ assigns \result \from pr, profile_names[0 .. OC_SGD_PROFILE_COUNT - 1]; */
const char *oc_sgd_profile_name(oc_sgd_profile pr)
{
    return (unsigned)pr < OC_SGD_PROFILE_COUNT ? profile_names[pr] : NULL;
}

/*@ requires valid_read_string(name);
    requires \valid(out);
    assigns *out;
    ensures \result == OC_OK || \result == OC_ERR_BAD_PROFILE;
    ensures \result == OC_OK ==> 0 <= *out < OC_SGD_PROFILE_COUNT;
*/
oc_status oc_sgd_profile_parse(const char *name, oc_sgd_profile *out)
{
    /* The names are valid strings: literals of 5 and 3 characters (-wp-literals). */
    //@ assert name_0_len: \valid_read(profile_names[0] + (0 .. 5)) && profile_names[0][5] == '\0';
    //@ assert name_0_str: valid_read_string(profile_names[0]);
    //@ assert name_1_len: \valid_read(profile_names[1] + (0 .. 3)) && profile_names[1][3] == '\0';
    //@ assert name_1_str: valid_read_string(profile_names[1]);
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
/*@ requires \valid_read(hp);
    assigns \nothing;
    ensures \result == OC_OK ==> sgd_hparams_ok(hp, step);
    ensures !sgd_hparams_ok(hp, step) ==> \result != OC_OK;
*/
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

/* One element, torch profile (SGD-PROF-TORCH). `first` is step == 1: the input buffer is not
 * read (torch creates it from g). Storage points (SGD-STORE-1) are the (float) conversions. */
/*@ requires \valid(p);
    requires hp->momentum != 0.0 ==> \valid(buf) && \separated(p, buf);
    requires \valid_read(hp);
    assigns *p, buf[0 .. (hp->momentum != 0.0 ? 0 : -1)];
*/
static void sgd_torch_element(const oc_sgd_hparams *hp, int first, oc_sgd_mutant mu, float *p,
                              float *buf, float grad)
{
    /* For WP: everything accessed below is valid (proved here, where the context is small). */
    /*@ assert reads_ok: \valid(p) && (hp->momentum != 0.0 ==> \valid(buf)) &&
            \valid_read(p) && (hp->momentum != 0.0 ==> \valid_read(buf)) &&
            \valid_read(&hp->momentum) && \valid_read(&hp->weight_decay) &&
            \valid_read(&hp->maximize) && \valid_read(&hp->dampening) &&
            \valid_read(&hp->nesterov) && \valid_read(&hp->lr);
    */
    double p0 = *p, g = grad, m = hp->momentum;
    double l2 = hp->weight_decay;
    if (mu == OC_SGD_MUT_DECAY_SKIPPED_WITHOUT_MOMENTUM && m == 0.0)
        l2 = 0.0;
    double ge;
    if (hp->maximize && mu == OC_SGD_MUT_MAXIMIZE_AFTER_DECAY)
        ge = -(g + l2 * p0);
    else
        ge = (hp->maximize ? -g : g) + l2 * p0;                    /* SGD-MAX-1, SGD-WD-1 */
    double dir = ge;
    if (m != 0.0) {
        double keep = 1.0 - hp->dampening;
        double b;                                                   /* SGD-BUF-1 */
        if (first)
            b = mu == OC_SGD_MUT_DAMPENING_ON_FIRST_STEP ? keep * ge : ge;
        else
            b = m * (double)*buf + keep * ge;
        float bs = (float)b;                                        /* SGD-STORE-1 */
        *buf = bs;
        if (hp->nesterov && mu != OC_SGD_MUT_NESTEROV_USES_BUFFER)  /* SGD-NEST-1 */
            dir = ge + m * (double)bs;
        else
            dir = bs;
    }
    *p = (float)(p0 - hp->lr * dir);                                /* SGD-UPD-1 */
}

/* One element, EMA profile (SGD-PROF-EMA): buf = lerp(buf, g, 1-mu) from a zero state,
 * decoupled decay. */
/*@ requires \valid(p);
    requires hp->momentum != 0.0 ==> \valid(buf) && \separated(p, buf);
    requires \valid_read(hp);
    assigns *p, buf[0 .. (hp->momentum != 0.0 ? 0 : -1)];
*/
static void sgd_ema_element(const oc_sgd_hparams *hp, oc_sgd_mutant mu, float *p, float *buf,
                            float grad)
{
    /*@ assert reads_ok: \valid_read(p) && (hp->momentum != 0.0 ==> \valid_read(buf)) &&
            \valid_read(&hp->momentum) && \valid_read(&hp->weight_decay) &&
            \valid_read(&hp->nesterov) && \valid_read(&hp->lr);
    */
    double p0 = *p, g = grad, m = hp->momentum;
    double decay = hp->lr * hp->weight_decay;                       /* SGD-WD-2 */
    double dir = g;
    if (m != 0.0) {
        int swapped = mu == OC_SGD_MUT_LERP_WEIGHTS_SWAPPED;
        double keep = swapped ? 1.0 - m : m;                        /* weight of the old buffer */
        double take = swapped ? m : 1.0 - m;                        /* weight of g */
        float bs = (float)(keep * (double)*buf + take * g);         /* SGD-BUF-2, SGD-STORE-1 */
        *buf = bs;
        if (hp->nesterov && mu != OC_SGD_MUT_NESTEROV_USES_BUFFER)  /* SGD-NEST-2 */
            dir = take * g + keep * (double)bs;
        else
            dir = bs;
    }
    *p = (float)(p0 - decay * p0 - hp->lr * dir);                   /* SGD-UPD-1, SGD-WD-2 */
}

/* SGD-ERR-1: validate everything, then update; on error nothing is written. */
/*@ requires \valid_read(hp);
    requires n <= 0x10000000;
    requires sgd_hparams_ok(hp, step) ==>
             \valid(p + (0 .. n-1)) && \valid_read(g + (0 .. n-1));
    requires sgd_hparams_ok(hp, step) && hp->momentum != 0.0 ==> \valid(buf + (0 .. n-1));
    requires \separated(p + (0 .. n-1), g + (0 .. n-1));
    requires hp->momentum != 0.0 ==>
             \separated(buf + (0 .. n-1), p + (0 .. n-1), g + (0 .. n-1));
    // buf is written only with momentum.
    assigns p[0 .. n-1], buf[0 .. (hp->momentum != 0.0 ? n-1 : -1)];
    behavior invalid:
      assumes !sgd_hparams_ok(hp, step);
      assigns \nothing;
      ensures \result != OC_OK;
    behavior maybe_valid:
      assumes sgd_hparams_ok(hp, step);
    complete behaviors;
    disjoint behaviors;
*/
oc_status oc_ref_sgd_step(const oc_sgd_hparams *hp, int64_t step, size_t n, float *p, float *buf,
                          const float *g, oc_sgd_mutant mutant)
{
    if (hp == NULL)
        return OC_ERR_NULL_POINTER;
    if ((unsigned)mutant >= OC_SGD_MUTANT_COUNT)
        return OC_ERR_BAD_PROFILE;
    oc_status st = oc_sgd_check(hp, step);
    if (st != OC_OK)
        return st;
    int momentum = hp->momentum != 0.0; /* buf is read and written only with momentum */
    const void *bufs[3] = {p, g, buf};
    /*@ loop invariant 0 <= b <= 3;
        loop assigns b, st;
        loop variant 3 - b;
    */
    for (int b = 0; b < (momentum ? 3 : 2); b++) {
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
    int torch = hp->profile == OC_SGD_TORCH;
    int first = step == 1;
    /*@ loop invariant 0 <= i <= n;
        loop assigns i, p[0 .. n-1], buf[0 .. (momentum != 0 ? n-1 : -1)];
        loop variant n - i;
    */
    for (size_t i = 0; i < n; i++) {
        float *bi = momentum ? &buf[i] : NULL;
        if (torch)
            sgd_torch_element(hp, first, mutant, &p[i], bi, g[i]);
        else
            sgd_ema_element(hp, mutant, &p[i], bi, g[i]);
    }
    return OC_OK;
}
