/* Adam family reference (spec/adam.md). Scalar C11, no allocation, no I/O, no globals.
 *
 * Exact-class reference: each element is computed in binary64 from its fp32 inputs and
 * rounded to fp32 only at the storage points of ADAM-STORE-1 (m, v, vmax, p), so every
 * stored value is within 1 ulp of the correctly rounded exact value (spec/adam.md §4.1).
 */
#include <math.h>
#include <string.h>
#include "optcert/adam.h"
#include "optcert/buffers.h"

/* ACSL for proofs/ (STATUS.md there): ADAM-HP-1 as a predicate. Every field is finite (not
 * NaN or infinite) and compared as a real number; oc_adam_check accepts nothing else. */
/*@ predicate finite_ge0(double x) = \is_finite(x) && 0.0 <= x;
    predicate beta_ok(double b) = \is_finite(b) && 0.0 <= b < 1.0;
    predicate hparams_ok(oc_adam_hparams *hp, int64_t step) =
        1 <= step &&
        finite_ge0(hp->lr) && beta_ok(hp->beta1) && beta_ok(hp->beta2) &&
        \is_finite(hp->eps) && 0.0 < hp->eps &&
        finite_ge0(hp->weight_decay) && finite_ge0(hp->eps_root) &&
        finite_ge0(hp->schedule_multiplier);
*/

static const char *const mutant_names[OC_ADAM_MUTANT_COUNT] = {
    "correct",
    "eps-inside-sqrt",
    "no-bias-correction",
    "bias-correction-t-minus-1",
    "bias-correction-t-plus-1",
    "l2-instead-of-decoupled",
    "decay-not-scaled-by-lr",
    "decay-after-update",
    "eps-hat-convention-swapped",
    "betas-swapped",
    "v-with-abs-g",
    "amsgrad-max-of-vhat",
};

static const char *const mutant_descriptions[OC_ADAM_MUTANT_COUNT] = {
    "the reference itself",
    "denominator sqrt(v_hat + eps) instead of sqrt(v_hat) + eps",
    "bias correction omitted: bc1 = bc2 = 1",
    "bias correction with t-1 instead of t (a counter that starts at 0)",
    "bias correction with t+1 instead of t (counter incremented twice)",
    "weight decay added to the gradient (L2) where decoupled decay was meant",
    "decoupled decay p *= 1 - wd, not multiplied by the learning rate",
    "decoupled decay applied to the updated parameter instead of before the update",
    "epsilon in the other convention: Keras eps-hat where Algorithm 1 was meant, or vice versa",
    "beta1 and beta2 swapped",
    "second moment accumulates |g| instead of g^2",
    "AMSGrad maximum taken over bias-corrected v_hat (optax) instead of raw v (torch, keras)",
};

static const char *const profile_names[OC_ADAM_PROFILE_COUNT] = {
    "torch", "optax", "paper", "keras",
};

/*@ assigns \result \from mu, mutant_names[0 .. OC_ADAM_MUTANT_COUNT - 1]; */
const char *oc_adam_mutant_name(oc_adam_mutant mu)
{
    return (unsigned)mu < OC_ADAM_MUTANT_COUNT ? mutant_names[mu] : NULL;
}

/*@ assigns \result \from mu, mutant_descriptions[0 .. OC_ADAM_MUTANT_COUNT - 1]; */
const char *oc_adam_mutant_description(oc_adam_mutant mu)
{
    return (unsigned)mu < OC_ADAM_MUTANT_COUNT ? mutant_descriptions[mu] : NULL;
}

/*@ assigns \result \from pr, profile_names[0 .. OC_ADAM_PROFILE_COUNT - 1]; */
const char *oc_adam_profile_name(oc_adam_profile pr)
{
    return (unsigned)pr < OC_ADAM_PROFILE_COUNT ? profile_names[pr] : NULL;
}

/*@ requires valid_read_string(name);
    requires \valid(out);
    assigns *out;
    ensures \result == OC_OK || \result == OC_ERR_BAD_PROFILE;
    ensures \result == OC_OK ==> 0 <= *out < OC_ADAM_PROFILE_COUNT;
*/
oc_status oc_adam_profile_parse(const char *name, oc_adam_profile *out)
{
    /* The names are valid strings: each is a literal of 5 characters (-wp-literals). */
    //@ assert name_0_len: \valid_read(profile_names[0] + (0 .. 5)) && profile_names[0][5] == '\0';
    //@ assert name_0_str: valid_read_string(profile_names[0]);
    //@ assert name_1_len: \valid_read(profile_names[1] + (0 .. 5)) && profile_names[1][5] == '\0';
    //@ assert name_1_str: valid_read_string(profile_names[1]);
    //@ assert name_2_len: \valid_read(profile_names[2] + (0 .. 5)) && profile_names[2][5] == '\0';
    //@ assert name_2_str: valid_read_string(profile_names[2]);
    //@ assert name_3_len: \valid_read(profile_names[3] + (0 .. 5)) && profile_names[3][5] == '\0';
    //@ assert name_3_str: valid_read_string(profile_names[3]);
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
/*@ requires \valid_read(hp);
    assigns \nothing;
    ensures \result == OC_OK ==> hparams_ok(hp, step);
    ensures !hparams_ok(hp, step) ==> \result != OC_OK;
*/
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

/* Per-step scalars shared by all elements. */
typedef struct adam_coeffs {
    double beta1, beta2;  /* possibly swapped by a mutant */
    double bc1, bc2;      /* ADAM-BC-1: 1 - beta^t */
    double step_mult;     /* multiplies the Adam direction: lr, or eta*lr (paper) */
    double decay;         /* decoupled decay factor: lr*wd, or eta*wd (paper); 0 for L2 */
    double l2;            /* coefficient of p added to g (ADAM-WD-1) */
    int eps_hat;          /* ADAM-PROF-KERAS form of the denominator */
} adam_coeffs;

/*@ requires \valid_read(hp) && hparams_ok(hp, step);
    requires \valid(c);
    assigns *c, errno;
*/
static void adam_coefficients(const oc_adam_hparams *hp, int64_t step, oc_adam_mutant mu,
                              adam_coeffs *c)
{
    /* For WP, as in adam_element: the accesses after the pow calls close by Qed. */
    /*@ assert access_ok: \valid(&c->beta1) && \valid(&c->beta2) && \valid(&c->bc1) &&
            \valid(&c->bc2) && \valid(&c->step_mult) && \valid(&c->decay) &&
            \valid(&c->l2) && \valid(&c->eps_hat) &&
            \valid_read(&c->beta1) && \valid_read(&c->beta2) &&
            \valid_read(&hp->profile) && \valid_read(&hp->lr) &&
            \valid_read(&hp->weight_decay) && \valid_read(&hp->schedule_multiplier) &&
            \valid_read(&hp->decoupled);
    */
    double t = (double)step;
    int swapped = mu == OC_ADAM_MUT_BETAS_SWAPPED;
    c->beta1 = swapped ? hp->beta2 : hp->beta1;
    c->beta2 = swapped ? hp->beta1 : hp->beta2;
    if (mu == OC_ADAM_MUT_BIAS_CORRECTION_T_MINUS_1)
        t -= 1.0;
    if (mu == OC_ADAM_MUT_BIAS_CORRECTION_T_PLUS_1)
        t += 1.0;
    c->bc1 = 1.0 - pow(c->beta1, t);
    c->bc2 = 1.0 - pow(c->beta2, t);
    if (mu == OC_ADAM_MUT_NO_BIAS_CORRECTION) {
        c->bc1 = 1.0;
        c->bc2 = 1.0;
    }
    double eta = hp->profile == OC_ADAM_PAPER ? hp->schedule_multiplier : 1.0;
    int decoupled = hp->decoupled && mu != OC_ADAM_MUT_L2_INSTEAD_OF_DECOUPLED;
    double lr_for_decay = mu == OC_ADAM_MUT_DECAY_NOT_SCALED_BY_LR ? 1.0
                          : hp->profile == OC_ADAM_PAPER           ? eta   /* ADAM-PROF-PAPER */
                                                                   : hp->lr; /* ADAM-WD-2 */
    c->step_mult = eta * hp->lr;
    c->decay = decoupled ? lr_for_decay * hp->weight_decay : 0.0;
    c->l2 = decoupled ? 0.0 : hp->weight_decay;
    c->eps_hat = (hp->profile == OC_ADAM_KERAS) != (mu == OC_ADAM_MUT_EPS_HAT);
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
static void adam_element(const oc_adam_hparams *hp, const adam_coeffs *c, oc_adam_mutant mu,
                         int amsgrad, float *p, float *m, float *v, float *vmax, float grad)
{
    /* For WP: everything read below is readable. Proved here, where the context is small;
     * the memory goals of the later reads, which follow floating-point code that bogs the
     * provers down, then close by Qed from these facts alone. */
    /*@ assert reads_ok: \valid_read(p) && \valid_read(m) && \valid_read(v) &&
            (amsgrad != 0 ==> \valid_read(vmax)) &&
            \valid_read(&hp->maximize) && \valid_read(&hp->eps) && \valid_read(&hp->eps_root) &&
            \valid_read(&c->beta1) && \valid_read(&c->beta2) && \valid_read(&c->l2) &&
            \valid_read(&c->bc1) && \valid_read(&c->bc2) && \valid_read(&c->step_mult) &&
            \valid_read(&c->decay) && \valid_read(&c->eps_hat);
    */
    double p0 = *p;
    double g = hp->maximize ? -(double)grad : (double)grad;        /* ADAM-MAX-1 */
    g += c->l2 * p0;                                                /* ADAM-WD-1 */
    double b1 = c->beta1, b2 = c->beta2;
    double g2 = mu == OC_ADAM_MUT_V_WITH_ABS_G ? fabs(g) : g * g;
    float m1 = (float)(b1 * (double)*m + (1.0 - b1) * g);           /* ADAM-M-1 */
    float v1 = (float)(b2 * (double)*v + (1.0 - b2) * g2);          /* ADAM-V-1 */
    *m = m1;
    *v = v1;
    double vv = v1;
    if (amsgrad) {                                                  /* ADAM-AMS-1 */
        double cand = mu == OC_ADAM_MUT_AMSGRAD_MAX_OF_VHAT ? v1 / c->bc2 : vv;
        float vm = (float)fmax((double)*vmax, cand);
        *vmax = vm;
        vv = mu == OC_ADAM_MUT_AMSGRAD_MAX_OF_VHAT ? (double)vm * c->bc2 : (double)vm;
    }
    double eps = hp->eps;
    double dir;                                                     /* ADAM-DIR-1 */
    if (c->eps_hat) {                                               /* ADAM-PROF-KERAS */
        double root = mu == OC_ADAM_MUT_EPS_INSIDE_SQRT ? sqrt(vv + eps) : sqrt(vv) + eps;
        dir = (sqrt(c->bc2) / c->bc1) * (double)m1 / root;
    } else {                                                        /* ADAM-EPS-1 */
        double vhat = vv / c->bc2 + hp->eps_root;                   /* ADAM-PROF-OPTAX */
        double root = mu == OC_ADAM_MUT_EPS_INSIDE_SQRT ? sqrt(vhat + eps) : sqrt(vhat) + eps;
        dir = ((double)m1 / c->bc1) / root;
    }
    double p1;                                                      /* ADAM-UPD-1, ADAM-WD-2 */
    if (mu == OC_ADAM_MUT_DECAY_AFTER_UPDATE)
        p1 = (p0 - c->step_mult * dir) * (1.0 - c->decay);
    else
        p1 = p0 - c->decay * p0 - c->step_mult * dir;
    *p = (float)p1;
}

/* ADAM-ERR-1: validate everything, then update; on error nothing is written. */
/*@ requires \valid_read(hp);
    requires n <= 0x10000000;
    requires hparams_ok(hp, step) ==> \valid(p + (0 .. n-1)) && \valid(m + (0 .. n-1)) &&
             \valid(v + (0 .. n-1)) && \valid_read(g + (0 .. n-1));
    requires hparams_ok(hp, step) && hp->amsgrad != 0 ==> \valid(vmax + (0 .. n-1));
    requires \separated(p + (0 .. n-1), m + (0 .. n-1), v + (0 .. n-1), g + (0 .. n-1));
    requires hp->amsgrad != 0 ==>
             \separated(vmax + (0 .. n-1), p + (0 .. n-1), m + (0 .. n-1), v + (0 .. n-1),
                        g + (0 .. n-1));
    // vmax is written only with amsgrad; errno: pow and sqrt may set it (C11 7.12.1).
    assigns p[0 .. n-1], m[0 .. n-1], v[0 .. n-1], vmax[0 .. (hp->amsgrad != 0 ? n-1 : -1)],
            errno;
    behavior invalid:
      assumes !hparams_ok(hp, step);
      assigns \nothing;
      ensures \result != OC_OK;
    behavior maybe_valid:
      assumes hparams_ok(hp, step);
    complete behaviors;
    disjoint behaviors;
*/
oc_status oc_ref_adam_step(const oc_adam_hparams *hp, int64_t step, size_t n,
                           float *p, float *m, float *v, float *vmax, const float *g,
                           oc_adam_mutant mutant)
{
    if (hp == NULL)
        return OC_ERR_NULL_POINTER;
    if ((unsigned)mutant >= OC_ADAM_MUTANT_COUNT)
        return OC_ERR_BAD_PROFILE;
    oc_status st = oc_adam_check(hp, step);
    if (st != OC_OK)
        return st;
    int amsgrad = hp->amsgrad != 0;
    const void *bufs[5] = {p, m, v, g, vmax};
    /*@ loop invariant 0 <= b <= 5;
        loop assigns b, st;
        loop variant 5 - b;
    */
    for (int b = 0; b < (amsgrad ? 5 : 4); b++) {
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
    adam_coeffs c;
    adam_coefficients(hp, step, mutant, &c);
    /*@ loop invariant 0 <= i <= n;
        loop assigns i, errno, p[0 .. n-1], m[0 .. n-1], v[0 .. n-1],
                     vmax[0 .. (amsgrad != 0 ? n-1 : -1)];
        loop variant n - i;
    */
    for (size_t i = 0; i < n; i++)
        adam_element(hp, &c, mutant, amsgrad, &p[i], &m[i], &v[i], amsgrad ? &vmax[i] : NULL,
                     g[i]);
    return OC_OK;
}
