/* Lion vector family (spec/lion.md): the exact step in MPFR, the fp32-class bound (§4), and
 * the cases. tcIds are assigned in generation order: append new cases at the end. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/lion.h"
#include "family.h"
#include "gen.h"
#include "rng.h"

#define U 0x1p-24
#define ETA 0x1p-149

enum { LION_P, LION_M, LION_NOUT };
static const char *const state_names[LION_NOUT] = {"p", "m"};
static gen_rng rng;

enum { G, P, M, C, T1, NVARS };

typedef struct lion_ctx {
    mpfr_t x[NVARS];
    const oc_lion_hparams *hp;
} lion_ctx;

static void lion_begin(void *ctx, int64_t t) { (void)ctx, (void)t; }

static void lion_element(void *ctx, float grad, float *s, double *E, gen_golden *out)
{
    lion_ctx *cx = ctx;
    mpfr_t *x = cx->x;
    const oc_lion_hparams *hp = cx->hp;
    const double b1 = hp->beta1, b2 = hp->beta2, lr = hp->lr, decay = hp->lr * hp->weight_decay;
    const double P0 = fabs((double)s[LION_P]), M0 = fabs((double)s[LION_M]), G0 = fabs(grad);

    /* ---- exact step ---- */
    mpfr_set_flt(x[G], grad, MPFR_RNDN);
    mpfr_set_flt(x[P], s[LION_P], MPFR_RNDN);
    mpfr_set_flt(x[M], s[LION_M], MPFR_RNDN);
    mpfr_mul_d(x[C], x[M], b1, MPFR_RNDN);                          /* LION-DIR-1 */
    mpfr_mul_d(x[T1], x[G], 1.0 - b1, MPFR_RNDN);
    mpfr_add(x[C], x[C], x[T1], MPFR_RNDN);
    /* LION-SIGN-1: sign(0) = 0, sign(+-inf) = +-1, sign(NaN) = 0 (torch.sign) */
    double sign = mpfr_nan_p(x[C]) ? 0.0 : mpfr_sgn(x[C]);
    double cabs = fabs(mpfr_get_d(x[C], MPFR_RNDN));
    mpfr_mul_d(x[T1], x[P], decay, MPFR_RNDN);                      /* LION-WD-1, LION-UPD-1 */
    mpfr_sub(x[P], x[P], x[T1], MPFR_RNDN);
    mpfr_sub_d(x[P], x[P], lr * sign, MPFR_RNDN);
    s[LION_P] = gen_store(x[P], out, LION_P);
    mpfr_mul_d(x[M], x[M], b2, MPFR_RNDN);                          /* LION-M-1, old m */
    mpfr_mul_d(x[T1], x[G], 1.0 - b2, MPFR_RNDN);
    mpfr_add(x[M], x[M], x[T1], MPFR_RNDN);
    s[LION_M] = gen_store(x[M], out, LION_M);                         /* LION-STORE-1 */

    /* ---- fp32-class bound (spec/lion.md §4; coefficients LION-TOL-3) ---- */
    const gen_tol *K = gen_tol_model;
    gen_tol_range((lr == 0 || (lr >= 0x1p-60 && lr <= 0x1p20 && decay <= 0.5)) &&
                  (b1 == 0 || b1 >= 0.5) && (b2 == 0 || b2 >= 0.5)); /* lerp_*.g */
    /* C: the interpolation's error; exact zeros stay exact zeros (no rounding, no underflow) */
    double cmag = b1 * (M0 + E[LION_M]) + (1 - b1) * G0;
    double Ec = b1 * E[LION_M] + K->interp * U * cmag + (cmag > 0 ? 3 * ETA : 0);
    /* the sign itself may differ, unless c is infinite: any evaluation gives the same infinity */
    double sign_error = isfinite(cabs) && cabs <= Ec && Ec > 0 ? 2.0 : 0.0;
    double A = fabs(1 - decay);
    double Ep = A * E[LION_P] + lr * sign_error +
                K->param_lion * U * ((P0 + E[LION_P]) * (A + decay) + lr) + 4 * ETA;
    double Em = b2 * E[LION_M] + K->moment * U * (b2 * (M0 + E[LION_M]) + (1 - b2) * G0) + 4 * ETA;
    E[LION_P] = gen_bound_up(Ep);
    E[LION_M] = gen_bound_up(Em);
    for (int k = 0; k < LION_NOUT; k++) /* a non-finite value is judged exactly (LION-STORE-1) */
        out->tol[k] = isfinite(s[k]) ? E[k] : 0.0;
}

static json_t *hparams_json(const oc_lion_hparams *hp)
{
    return json_pack("{s:o,s:o,s:o,s:o}", "lr", hexfloat(hp->lr), "beta1", hexfloat(hp->beta1),
                     "beta2", hexfloat(hp->beta2), "weightDecay", hexfloat(hp->weight_decay));
}

static gen_stepper stepper_of(lion_ctx *cx, const oc_lion_hparams *hp)
{
    cx->hp = hp;
    return (gen_stepper){"LionStep", state_names, LION_NOUT, cx, lion_begin, lion_element};
}

static void emit(family *f, lion_ctx *cx, const oc_lion_hparams *hp, gen_case *c)
{
    gen_stepper s = stepper_of(cx, hp);
    family_emit(f, &s, hparams_json(hp), c);
}

int gen_lion_stepper(const oc_lion_hparams *hp, mpfr_prec_t prec, gen_stepper *out)
{
    lion_ctx *cx = malloc(sizeof *cx);
    if (!cx)
        return -1;
    for (int i = 0; i < NVARS; i++)
        mpfr_init2(cx->x[i], prec);
    *out = stepper_of(cx, hp);
    return 0;
}

void gen_lion_stepper_free(gen_stepper *s)
{
    lion_ctx *cx = s->ctx;
    for (int i = 0; i < NVARS; i++)
        mpfr_clear(cx->x[i]);
    free(cx);
}

static oc_lion_hparams defaults(void)
{
    /* Megatron's defaults beta1 = 0.95, beta2 = 0.98 (NVIDIA/Megatron-LM@d98e8a64
     * megatron/core/optimizer/optimizer_config.py L299, L302) */
    return (oc_lion_hparams){.profile = OC_LION_TORCH, .lr = 1e-4f, .beta1 = 0.95f,
                             .beta2 = 0.98f, .weight_decay = 0.1f};
}

static const float lrs[] = {1e-5f, 1e-4f, 3e-4f, 1e-2f};
static const float beta1s[] = {0.9f, 0.95f, 0.5f, 0.0f};
static const float beta2s[] = {0.99f, 0.98f, 0.9f, 0.999f};
static const float wds[] = {0.0f, 1e-2f, 0.1f, 1.0f};
#define PICK(a) ((double)a[rng_int(&rng, (int)(sizeof a / sizeof a[0]))])

static void random_state(gen_case *c)
{
    for (size_t i = 0; i < c->n; i++) {
        c->in[LION_P][i] = rng_mag(&rng, -8, 4, 1);
        c->in[LION_M][i] = rng_mag(&rng, -14, 0, 1);
    }
}

typedef void (*fill_fn)(gen_case *c);

static void one_case(family *f, lion_ctx *cx, const oc_lion_hparams *hp, int64_t t, size_t n,
                     size_t steps, const char *flag, const char *rule, const char *comment,
                     fill_fn fill)
{
    gen_case c = {.comment = comment, .flags = {flag},
                  .rules = {rule, "LION-UPD-1", "LION-STORE-1", "LION-TOL-1", "LION-TOL-2",
                            "LION-TOL-3", "LION-PROF-TORCH"},
                  .result = "valid", .first_step = t};
    gen_case_alloc(&c, n, steps);
    fill(&c);
    emit(f, cx, hp, &c);
}

static void fill_random(gen_case *c)
{
    random_state(c);
    for (size_t i = 0; i < c->n * c->steps; i++)
        c->g[i] = rng_int(&rng, 25) == 0 ? 0.0f : rng_mag(&rng, -20, 3, 1);
}

/* m and g of opposite signs, |(1-b1) g| > |b1 m| but |(1-b2) g| < |b2 m|: the sign taken
 * from the new momentum differs from the sign taken from the interpolation. */
static void fill_opposing(gen_case *c)
{
    for (size_t i = 0; i < c->n; i++) {
        float m = rng_mag(&rng, -6, -4, 0);
        c->in[LION_P][i] = rng_mag(&rng, -2, 1, 1);
        c->in[LION_M][i] = (i & 1) ? -m : m;
        c->g[i] = (float)(((i & 1) ? 1 : -1) * m * (30 + 20 * rng_unit(&rng)));
    }
}

/* c = +-0 exactly: m and g are signed zeros, so every fp32 evaluation gives a zero too. */
static void fill_zero_direction(gen_case *c)
{
    for (size_t i = 0; i < c->n; i++) {
        c->in[LION_P][i] = rng_mag(&rng, -2, 1, 1);
        c->in[LION_M][i] = (i & 1) ? -0.0f : 0.0f;
        c->g[i] = (i & 2) ? -0.0f : 0.0f;
    }
}

/* LION-SIGN-1 on non-finite inputs, element i taking pattern i % count of (m, g), where 0
 * stands for a random finite value. */
static void fill_patterns(gen_case *c, const float (*mg)[2], size_t count)
{
    for (size_t i = 0; i < c->n; i++) {
        const float *x = mg[i % count];
        c->in[LION_P][i] = rng_mag(&rng, -2, 1, 1);
        c->in[LION_M][i] = x[0] == 0.0f ? rng_mag(&rng, -8, -2, 1) : x[0];
        c->g[i] = x[1] == 0.0f ? rng_mag(&rng, -8, 0, 1) : x[1];
    }
}

/* Infinite g (c = +-inf: p moves by -+lr, m becomes +-inf), m = -inf with a finite g (c = -inf:
 * p moves by +lr, m stays -inf), and a NaN g (c and m NaN, sign 0: p only decays). */
static void fill_infinite(gen_case *c)
{
    static const float mg[][2] = {{0, INFINITY}, {0, -INFINITY}, {-INFINITY, 0}, {0, NAN}};
    fill_patterns(c, mg, sizeof mg / sizeof mg[0]);
}

/* Opposite infinities in m and g, or a NaN momentum (c = NaN, sign 0: p only decays, m NaN),
 * and a finite element. */
static void fill_nan_direction(gen_case *c)
{
    static const float mg[][2] = {{INFINITY, -INFINITY}, {-INFINITY, INFINITY}, {NAN, 0}, {0, 0}};
    fill_patterns(c, mg, sizeof mg / sizeof mg[0]);
}

/* tiny gradient, large parameter: an L2 term wd*p would dominate the sign */
static void fill_decay_dominates(gen_case *c)
{
    for (size_t i = 0; i < c->n; i++) {
        c->in[LION_P][i] = rng_mag(&rng, 0, 3, 1);
        c->in[LION_M][i] = 0.0f;
        c->g[i] = (float)(c->in[LION_P][i] > 0 ? -1e-3 : 1e-3) * (float)(1 + rng_unit(&rng));
    }
}

static void fill_trajectory(gen_case *c)
{
    for (size_t i = 0; i < c->n; i++) {
        float drift = rng_mag(&rng, -8, -2, 1);
        c->in[LION_P][i] = rng_mag(&rng, -4, 2, 1);
        for (size_t s = 0; s < c->steps; s++)
            c->g[s * c->n + i] = drift + rng_mag(&rng, -10, -1, 1);
    }
}

static void cases(family *f, lion_ctx *cx, int cert)
{
    for (int k = 0; k < (cert ? 400 : 24); k++) {
        oc_lion_hparams hp = defaults();
        hp.lr = PICK(lrs);
        hp.beta1 = PICK(beta1s);
        hp.beta2 = PICK(beta2s);
        hp.weight_decay = PICK(wds);
        one_case(f, cx, &hp, 1 + rng_int(&rng, 1000), 64, 1, "Random", "LION-DIR-1",
                 "random state, gradient and hyper-parameters; one step", fill_random);
    }
    oc_lion_hparams d = defaults(), h;
    one_case(f, cx, &d, 1, 8, cert ? 5000 : 1000, "Trajectory", "LION-M-1",
             "1000 steps from zero momentum, Megatron defaults 0.95/0.98", fill_trajectory);
    h = d;
    h.beta1 = 0.9f;
    h.beta2 = 0.99f;
    h.lr = 1e-3f;
    one_case(f, cx, &h, 1, 8, cert ? 2000 : 300, "Trajectory", "LION-M-1",
             "300 steps with the common 0.9/0.99", fill_trajectory);
    h = d;
    h.beta1 = 0.9f;
    h.beta2 = 0.99f;
    one_case(f, cx, &h, 5, 16, 1, "OpposingMomentum", "LION-DIR-1",
             "gradient opposing the momentum: the sign uses the old momentum with beta1",
             fill_opposing);
    h = d;
    h.beta1 = 0.5f;
    one_case(f, cx, &h, 3, 16, 1, "ZeroDirection", "LION-SIGN-1",
             "m = g = +-0: b1*m + (1-b1)*g = 0, sign(0) = 0, only the decay moves p",
             fill_zero_direction);
    h = d;
    h.lr = 1e-3f;
    h.weight_decay = 1.0f;
    one_case(f, cx, &h, 2, 16, 1, "DecayDominates", "LION-WD-1",
             "wd*p far larger than g: decoupled decay must not enter the sign", fill_decay_dominates);
    static const struct { const char *what; size_t field; double value; int64_t step; } bad[] = {
        {"beta1 = 1", offsetof(oc_lion_hparams, beta1), 1.0, 1},
        {"beta2 = -0.125", offsetof(oc_lion_hparams, beta2), -0.125, 1},
        {"beta2 = NaN", offsetof(oc_lion_hparams, beta2), NAN, 1},
        {"lr = NaN", offsetof(oc_lion_hparams, lr), NAN, 1},
        {"lr = -2^-10", offsetof(oc_lion_hparams, lr), -0x1p-10, 1},
        {"weight decay = -2^-7", offsetof(oc_lion_hparams, weight_decay), -0x1p-7, 1},
        {"step = 0", 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        h = d;
        if (bad[i].step == 1)
            *(double *)((char *)&h + bad[i].field) = bad[i].value;
        gen_case c = {.comment = bad[i].what, .flags = {"InvalidHyperParameter"},
                      .rules = {"LION-HP-1", "LION-ERR-1"}, .result = "invalid",
                      .first_step = bad[i].step};
        gen_case_alloc(&c, 4, 1);
        random_state(&c);
        emit(f, cx, &h, &c);
    }
    /* issue 19 item 3, appended: non-finite inputs (LION-SIGN-1), and infinite lr and wd, which
     * LION-HP-1 excludes but lion-pytorch and optax accept (LION-ERR-1: acceptable) */
    one_case(f, cx, &d, 3, 16, 1, "NonFiniteInput", "LION-SIGN-1",
             "g = +-inf or NaN, m = -inf: sign(+-inf) = +-1, sign(NaN) = 0", fill_infinite);
    one_case(f, cx, &d, 4, 16, 1, "NonFiniteInput", "LION-SIGN-1",
             "m and g opposite infinities, or m = NaN: c = NaN, sign(NaN) = 0 (torch.sign)",
             fill_nan_direction);
    static const struct { const char *what; size_t field; } lenient[] = {
        {"lr = +inf", offsetof(oc_lion_hparams, lr)},
        {"weight decay = +inf", offsetof(oc_lion_hparams, weight_decay)},
    };
    for (size_t i = 0; i < sizeof lenient / sizeof lenient[0]; i++) {
        h = d;
        *(double *)((char *)&h + lenient[i].field) = INFINITY;
        gen_case c = {.comment = lenient[i].what, .flags = {"LenientValidation"},
                      .rules = {"LION-HP-1", "LION-ERR-1"}, .result = "acceptable",
                      .first_step = 1};
        gen_case_alloc(&c, 4, 1);
        random_state(&c);
        emit(f, cx, &h, &c);
    }
}

static void notes(family *f)
{
    static const char *const n[][4] = {
        {"Random", "BASIC", "random state, gradient and hyper-parameters", "general agreement"},
        {"Trajectory", "TRAJECTORY", "many consecutive steps", "state handling over time"},
        {"OpposingMomentum", "KNOWN_MISTAKE", "gradient opposing the momentum",
         "taking the sign of the updated momentum, or swapping the betas, flips the step"},
        {"ZeroDirection", "EDGE_CASE", "interpolation exactly zero",
         "sign(0) = 0; a +-1 convention moves p by lr"},
        {"DecayDominates", "KNOWN_MISTAKE", "decay term larger than the gradient",
         "coupled (L2) decay enters the sign and flips the step (bitsandbytes #1992)"},
        {"InvalidHyperParameter", "INVALID_INPUT", "hyper-parameter or step outside its range",
         "must be rejected with the state left unchanged"},
        {"NonFiniteInput", "EDGE_CASE", "infinite or NaN gradient or momentum",
         "sign(+-inf) = +-1, sign(NaN) = 0 (torch.sign); a NaN sign (jnp.sign) makes p NaN"},
        {"LenientValidation", "INVALID_INPUT", "outside LION-HP-1 but accepted by lion-pytorch",
         "acceptable: rejection or acceptance is reported, not failed"},
    };
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
        family_note(f, n[i][0], n[i][1], n[i][2], n[i][3], NULL);
}

/* lion-torch-mixed: Megatron's defaults, and the common 0.9/0.99 (spec/mixed.md §6). */
static void mixed_emit(family *f, void *ctx, int variant, float lr, gen_case *c)
{
    oc_lion_hparams hp = defaults();
    hp.lr = lr;
    if (variant == 1) {
        hp.beta1 = 0.9f;
        hp.beta2 = 0.99f;
    }
    emit(f, ctx, &hp, c);
}

static int gen_lion(const gen_options *opt, const char *outdir)
{
    static const char *const rules[] = {"LION-HP-1", "LION-ERR-1", "LION-DIR-1", "LION-SIGN-1",
                                        "LION-M-1", "LION-WD-1", "LION-UPD-1", "LION-STORE-1",
                                        "LION-TOL-1", "LION-TOL-2", "LION-TOL-3",
                                        "LION-PROF-TORCH", NULL};
    lion_ctx cx;
    for (int i = 0; i < NVARS; i++)
        mpfr_init2(cx.x[i], opt->prec);
    rng.state = opt->seed * 1000037ull;
    family f;
    int rc = family_init(&f, "lion-torch", "lion", "torch", rules, opt);
    if (rc == 0) {
        notes(&f);
        cases(&f, &cx, strcmp(opt->level, "cert") == 0);
        rc = family_save(&f, outdir);
        family_free(&f);
    }
    rng.state = opt->seed * 1000037ull + 100;
    gen_mixed_algo mixed = {"lion-torch-mixed", "lion", "torch", 2, 1e-4f, 0x1p-15f, &rng, &cx,
                            mixed_emit, random_state};
    if (rc == 0)
        rc = gen_mixed_family(opt, outdir, &mixed);
    for (int i = 0; i < NVARS; i++)
        mpfr_clear(cx.x[i]);
    return rc;
}

/* Writes vectors/lion-torch (spec/lion.md). */
const gen_family gen_family_lion = {.name = "lion", .generate = gen_lion};

json_t *gen_lion_hparams_json(const oc_lion_hparams *hp) { return hparams_json(hp); }
