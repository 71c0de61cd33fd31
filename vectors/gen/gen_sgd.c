/* SGD vector families (spec/sgd.md): the exact step in MPFR, the fp32-class bound (§4), and
 * the cases. tcIds are assigned in generation order: append new cases at the end. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/sgd.h"
#include "family.h"
#include "gen.h"
#include "rng.h"

#define U 0x1p-24
#define ETA 0x1p-149

enum { SGD_P, SGD_BUF, SGD_NOUT };
static const char *const state_names[SGD_NOUT] = {"p", "buf"};
static gen_rng rng;

enum { G, P, B, T1, D, NVARS };

typedef struct sgd_ctx {
    mpfr_t x[NVARS];
    const oc_sgd_hparams *hp;
    int64_t t;
} sgd_ctx;

static void sgd_begin(void *ctx, int64_t t) { ((sgd_ctx *)ctx)->t = t; }

static void sgd_element(void *ctx, float grad, float *s, double *E, gen_golden *out)
{
    sgd_ctx *cx = ctx;
    mpfr_t *x = cx->x;
    const oc_sgd_hparams *hp = cx->hp;
    const int torch = hp->profile == OC_SGD_TORCH, momentum = hp->momentum != 0.0;
    const double mu = hp->momentum, lr = hp->lr, wd = hp->weight_decay;
    const double damp = torch ? hp->dampening : mu; /* ema: buf = mu*buf + (1-mu)*g */
    const double P0 = fabs((double)s[SGD_P]), B0 = fabs((double)s[SGD_BUF]);
    const double l2 = torch ? wd : 0, decay = torch ? 0 : lr * wd;

    /* ---- exact step ---- */
    mpfr_set_flt(x[G], hp->maximize ? -grad : grad, MPFR_RNDN);    /* SGD-MAX-1 */
    mpfr_set_flt(x[P], s[SGD_P], MPFR_RNDN);
    mpfr_mul_d(x[T1], x[P], l2, MPFR_RNDN);                         /* SGD-WD-1 */
    mpfr_add(x[G], x[G], x[T1], MPFR_RNDN);
    double Ge = fabs(mpfr_get_d(x[G], MPFR_RNDN));
    out->f32[SGD_BUF] = s[SGD_BUF];
    out->f64[SGD_BUF] = s[SGD_BUF];
    if (!momentum) {
        mpfr_set(x[D], x[G], MPFR_RNDN);
    } else {
        if (torch && cx->t == 1) {                                  /* SGD-BUF-1 */
            mpfr_set(x[B], x[G], MPFR_RNDN);
        } else {                                                    /* SGD-BUF-1, SGD-BUF-2 */
            mpfr_set_flt(x[B], s[SGD_BUF], MPFR_RNDN);
            mpfr_mul_d(x[B], x[B], mu, MPFR_RNDN);
            mpfr_mul_d(x[T1], x[G], 1.0 - damp, MPFR_RNDN);         /* 1 - damp exact: both binary32 in [0,1] */
            mpfr_add(x[B], x[B], x[T1], MPFR_RNDN);
        }
        s[SGD_BUF] = gen_store(x[B], out, SGD_BUF);                     /* SGD-STORE-1 */
        if (hp->nesterov) {                                         /* SGD-NEST-1, SGD-NEST-2 */
            mpfr_mul_d(x[D], x[B], mu, MPFR_RNDN);
            mpfr_mul_d(x[T1], x[G], torch ? 1.0 : 1.0 - mu, MPFR_RNDN);
            mpfr_add(x[D], x[D], x[T1], MPFR_RNDN);
        } else {
            mpfr_set(x[D], x[B], MPFR_RNDN);
        }
    }
    double dabs = fabs(mpfr_get_d(x[D], MPFR_RNDN));
    mpfr_mul_d(x[T1], x[P], decay, MPFR_RNDN);                      /* SGD-WD-2 */
    mpfr_sub(x[P], x[P], x[T1], MPFR_RNDN);
    mpfr_mul_d(x[T1], x[D], lr, MPFR_RNDN);                         /* SGD-UPD-1 */
    mpfr_sub(x[P], x[P], x[T1], MPFR_RNDN);
    s[SGD_P] = gen_store(x[P], out, SGD_P);

    /* ---- fp32-class bound (spec/sgd.md §4; coefficients SGD-TOL-3) ---- */
    const gen_tol *K = gen_tol_model;
    gen_tol_range((lr == 0 || (lr >= 0x1p-60 && lr <= 0x1p20 && decay <= 0.5)) &&
                  (torch || mu == 0 || mu >= 0.5)); /* ema: lerp_ (lerp_*.g) */
    double Eg = l2 > 0 ? l2 * E[SGD_P] + K->grad * U * (fabs(grad) + l2 * (P0 + E[SGD_P])) + ETA : 0;
    double Eb = 0, Ed = Eg;
    if (momentum) {
        if (torch && cx->t == 1)
            Eb = Eg + 2 * U * (Ge + Eg) + ETA;
        else
            Eb = mu * E[SGD_BUF] + (1 - damp) * Eg +
                 K->moment * U * (mu * (B0 + E[SGD_BUF]) + (1 - damp) * (Ge + Eg)) + 4 * ETA;
        double Bbar = fabs((double)out->f32[SGD_BUF]);
        double wg = torch ? 1.0 : 1.0 - mu;
        Ed = hp->nesterov ? wg * Eg + mu * Eb + K->nesterov * U * (wg * (Ge + Eg) + mu * (Bbar + Eb)) + 2 * ETA
                          : Eb;
    }
    double A = fabs(1 - decay);
    double Ep = A * E[SGD_P] + lr * Ed +
                K->param * U * ((P0 + E[SGD_P]) * (A + decay) + lr * (dabs + Ed)) + 4 * ETA * fmax(1, lr);
    E[SGD_P] = gen_bound_up(Ep);
    E[SGD_BUF] = momentum ? gen_bound_up(Eb) : 0;
    for (int k = 0; k < SGD_NOUT; k++)
        out->tol[k] = E[k];
}

static json_t *hparams_json(const oc_sgd_hparams *hp)
{
    return json_pack("{s:o,s:o,s:o,s:o,s:b,s:b}", "lr", hexfloat(hp->lr), "momentum",
                     hexfloat(hp->momentum), "dampening", hexfloat(hp->dampening), "weightDecay",
                     hexfloat(hp->weight_decay), "nesterov", hp->nesterov, "maximize",
                     hp->maximize);
}

static gen_stepper stepper_of(sgd_ctx *cx, const oc_sgd_hparams *hp)
{
    cx->hp = hp;
    return (gen_stepper){"SgdStep", state_names, hp->momentum != 0.0 ? 2 : 1, cx, sgd_begin,
                         sgd_element};
}

static void emit(family *f, sgd_ctx *cx, const oc_sgd_hparams *hp, gen_case *c)
{
    gen_stepper s = stepper_of(cx, hp);
    family_emit(f, &s, hparams_json(hp), c);
}

int gen_sgd_stepper(const oc_sgd_hparams *hp, mpfr_prec_t prec, gen_stepper *out)
{
    sgd_ctx *cx = malloc(sizeof *cx);
    if (!cx)
        return -1;
    for (int i = 0; i < NVARS; i++)
        mpfr_init2(cx->x[i], prec);
    *out = stepper_of(cx, hp);
    return 0;
}

void gen_sgd_stepper_free(gen_stepper *s)
{
    sgd_ctx *cx = s->ctx;
    for (int i = 0; i < NVARS; i++)
        mpfr_clear(cx->x[i]);
    free(cx);
}

static const char *const profile_rules[OC_SGD_PROFILE_COUNT] = {"SGD-PROF-TORCH", "SGD-PROF-EMA"};

static oc_sgd_hparams defaults(oc_sgd_profile pr)
{
    return (oc_sgd_hparams){.profile = pr, .lr = 1e-2f, .momentum = 0.9f};
}

static const float lrs[] = {1e-3f, 1e-2f, 1e-1f, 0.5f};
static const float mus[] = {0.0f, 0.5f, 0.9f, 0.95f, 0.99f};
static const float damps[] = {0.0f, 0.0f, 0.1f, 0.5f};
static const float wds[] = {0.0f, 1e-4f, 1e-2f, 0.1f};
#define PICK(a) ((double)a[rng_int(&rng, (int)(sizeof a / sizeof a[0]))])

static oc_sgd_hparams random_hparams(oc_sgd_profile pr)
{
    oc_sgd_hparams hp = defaults(pr);
    hp.lr = PICK(lrs);
    hp.momentum = PICK(mus);
    hp.weight_decay = PICK(wds);
    hp.nesterov = hp.momentum > 0 && rng_int(&rng, 2);
    if (pr == OC_SGD_TORCH) {
        hp.dampening = hp.nesterov ? 0.0 : PICK(damps);
        hp.maximize = rng_int(&rng, 4) == 0;
    }
    return hp;
}

static void random_state(gen_case *c)
{
    for (size_t i = 0; i < c->n; i++) {
        c->in[SGD_P][i] = rng_mag(&rng, -8, 4, 1);
        c->in[SGD_BUF][i] = rng_mag(&rng, -14, 0, 1);
    }
}

static float random_grad(void)
{
    int r = rng_int(&rng, 100);
    return r < 4 ? 0.0f : r < 6 ? rng_mag(&rng, -140, -127, 1) : rng_mag(&rng, -20, 3, 1);
}

static void one_case(family *f, sgd_ctx *cx, const oc_sgd_hparams *hp, int64_t t, size_t n,
                     size_t steps, const char *flag, const char *rule, const char *comment,
                     const char *result, int random_start)
{
    gen_case c = {.comment = comment, .flags = {flag},
                  .rules = {rule, "SGD-UPD-1", "SGD-STORE-1", "SGD-TOL-1", "SGD-TOL-2", "SGD-TOL-3",
                            profile_rules[hp->profile]},
                  .result = result, .first_step = t};
    gen_case_alloc(&c, n, steps);
    if (random_start)
        random_state(&c);
    else
        for (size_t i = 0; i < n; i++)
            c.in[SGD_P][i] = rng_mag(&rng, -2, 1, 1);
    for (size_t i = 0; i < n * steps; i++)
        c.g[i] = random_grad();
    emit(f, cx, hp, &c);
}

static void cases(family *f, sgd_ctx *cx, oc_sgd_profile pr, int cert)
{
    const int torch = pr == OC_SGD_TORCH;
    for (int k = 0; k < (cert ? 400 : 24); k++) {
        oc_sgd_hparams hp = random_hparams(pr);
        static const int64_t ts[] = {1, 1, 2, 3, 10, 1000};
        one_case(f, cx, &hp, ts[rng_int(&rng, 6)], 64, 1, "Random", "SGD-BUF-1",
                 "random state, gradient and hyper-parameters; one step", "valid", 1);
    }
    oc_sgd_hparams d = defaults(pr), h;
    one_case(f, cx, &d, 1, 8, cert ? 5000 : 1000, "Trajectory", "SGD-BUF-1",
             "1000 steps from the first step, momentum 0.9", "valid", 0);
    h = d;
    h.nesterov = 1;
    h.weight_decay = 1e-2f;
    one_case(f, cx, &h, 1, 8, cert ? 2000 : 300, "Trajectory", "SGD-NEST-1",
             "300 steps, Nesterov, weight decay 1e-2", "valid", 0);
    /* discriminating cases */
    h = d;
    h.nesterov = 1;
    one_case(f, cx, &h, 5, 16, 1, "Nesterov", torch ? "SGD-NEST-1" : "SGD-NEST-2",
             "Nesterov direction from a live buffer", "valid", 1);
    if (torch) {
        h = d;
        h.dampening = 0.5f;
        one_case(f, cx, &h, 1, 16, 3, "FirstStepDampening", "SGD-BUF-1",
                 "first steps with dampening 0.5: the first buffer is g, undampened", "valid", 1);
        h = d;
        h.maximize = 1;
        h.weight_decay = 0.5f;
        one_case(f, cx, &h, 4, 16, 1, "Maximize", "SGD-MAX-1",
                 "maximize with L2 decay 0.5: the gradient is negated before the decay term",
                 "valid", 1);
        h = d;
        h.momentum = 0.0;
        h.weight_decay = 0.5f;
        one_case(f, cx, &h, 3, 16, 1, "NoMomentumDecay", "SGD-WD-1",
                 "momentum 0 with weight decay 0.5: the decay still applies", "valid", 1);
    } else {
        h = d;
        h.weight_decay = 0.5f;
        h.lr = 0.25f;
        one_case(f, cx, &h, 2, 16, 1, "LargeDecay", "SGD-WD-2",
                 "decoupled decay lr*wd = 0.125", "valid", 1);
    }
    h = d;
    h.momentum = 0.5f;
    one_case(f, cx, &h, 7, 16, 1, "HalfMomentum", torch ? "SGD-BUF-1" : "SGD-BUF-2",
             "momentum 0.5: lerp weights are symmetric, the buffer still decays", "valid", 1);
    h = d;
    h.momentum = 0.99f;
    one_case(f, cx, &h, 7, 16, 2, "HighMomentum", torch ? "SGD-BUF-1" : "SGD-BUF-2",
             "momentum 0.99 from a random buffer", "valid", 1);
    /* invalid inputs (SGD-HP-1, SGD-HP-2) */
    static const struct { const char *what; size_t field; double value; int64_t step; } bad[] = {
        {"lr = NaN", offsetof(oc_sgd_hparams, lr), NAN, 1},
        {"lr = -2^-10", offsetof(oc_sgd_hparams, lr), -0x1p-10, 1},
        {"momentum = -0.5", offsetof(oc_sgd_hparams, momentum), -0.5, 1},
        {"momentum = NaN", offsetof(oc_sgd_hparams, momentum), NAN, 1},
        {"weight decay = -2^-7", offsetof(oc_sgd_hparams, weight_decay), -0x1p-7, 1},
        {"weight decay = NaN", offsetof(oc_sgd_hparams, weight_decay), NAN, 1},
        {"step = 0", 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        h = d;
        if (bad[i].step == 1)
            *(double *)((char *)&h + bad[i].field) = bad[i].value;
        gen_case c = {.comment = bad[i].what, .flags = {"InvalidHyperParameter"},
                      .rules = {"SGD-HP-1", "SGD-HP-2", "SGD-ERR-1"}, .result = "invalid",
                      .first_step = bad[i].step};
        gen_case_alloc(&c, 4, 1);
        random_state(&c);
        for (size_t k = 0; k < c.n; k++)
            c.g[k] = rng_mag(&rng, -10, 0, 1);
        emit(f, cx, &h, &c);
    }
    if (torch) { /* torch raises ValueError for Nesterov with dampening (SGD-NEST-1) */
        h = d;
        h.nesterov = 1;
        h.dampening = 0.5f;
        gen_case c = {.comment = "nesterov with dampening 0.5", .flags = {"InvalidHyperParameter"},
                      .rules = {"SGD-NEST-1", "SGD-ERR-1"}, .result = "invalid", .first_step = 1};
        gen_case_alloc(&c, 4, 1);
        random_state(&c);
        emit(f, cx, &h, &c);
        h = d;
        h.momentum = 1.0;
        gen_case m = {.comment = "momentum = 1 (torch accepts any momentum >= 0)",
                      .flags = {"LenientValidation"}, .rules = {"SGD-HP-1", "SGD-ERR-1"},
                      .result = "acceptable", .first_step = 2};
        gen_case_alloc(&m, 4, 1);
        random_state(&m);
        emit(f, cx, &h, &m);
    }
    /* issue 19 item 3: the remaining sub-conditions of SGD-HP-1 and of the profiles' rules,
     * each one field off: dampening outside [0, 1] (torch does not check it: acceptable,
     * LenientValidation, for the torch profile); torch: Nesterov without momentum; ema:
     * maximize, or a dampening (it is fixed to mu, SGD-PROF-EMA) */
    static const struct { const char *what; int torch_only, ema_only; double dampening, momentum;
                          int nesterov, maximize; const char *rule; } off[] = {
        {"dampening = -0.5", 0, 0, -0.5, -1, 0, 0, "SGD-HP-1"},
        {"dampening = 1.5", 0, 0, 1.5, -1, 0, 0, "SGD-HP-1"},
        {"nesterov with momentum 0", 1, 0, 0, 0, 1, 0, "SGD-NEST-1"},
        {"maximize under the ema profile", 0, 1, 0, -1, 0, 1, "SGD-PROF-EMA"},
        {"dampening 0.5 under the ema profile", 0, 1, 0.5, -1, 0, 0, "SGD-PROF-EMA"},
    };
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
        if ((off[i].torch_only && !torch) || (off[i].ema_only && torch))
            continue;
        h = d;
        h.dampening = off[i].dampening;
        if (off[i].momentum >= 0)
            h.momentum = off[i].momentum;
        h.nesterov = off[i].nesterov;
        h.maximize = off[i].maximize;
        int lenient = torch && i < 2;
        gen_case c = {.comment = off[i].what,
                      .flags = {lenient ? "LenientValidation" : "InvalidHyperParameter"},
                      .rules = {off[i].rule, "SGD-ERR-1"},
                      .result = lenient ? "acceptable" : "invalid", .first_step = 1};
        gen_case_alloc(&c, 4, 1);
        random_state(&c);
        emit(f, cx, &h, &c);
    }
    /* issue 19 item 3, appended: infinite lr and wd, outside SGD-HP-1 but accepted by torch
     * (SGD-ERR-1: acceptable, LenientValidation) */
    static const struct { const char *what; size_t field; } infinite[] = {
        {"lr = +inf", offsetof(oc_sgd_hparams, lr)},
        {"weight decay = +inf", offsetof(oc_sgd_hparams, weight_decay)},
    };
    for (size_t i = 0; i < sizeof infinite / sizeof infinite[0]; i++) {
        h = d;
        *(double *)((char *)&h + infinite[i].field) = INFINITY;
        gen_case c = {.comment = infinite[i].what, .flags = {"LenientValidation"},
                      .rules = {"SGD-HP-1", "SGD-ERR-1"}, .result = "acceptable",
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
        {"Trajectory", "TRAJECTORY", "many consecutive steps from the first step",
         "checks the first-step buffer and state handling"},
        {"Nesterov", "KNOWN_MISTAKE", "Nesterov with a live buffer",
         "using the buffer alone as the direction is visible"},
        {"FirstStepDampening", "KNOWN_MISTAKE", "dampening on the first steps",
         "torch does not dampen the first buffer (it is g); a zero-initialised buffer does"},
        {"Maximize", "KNOWN_MISTAKE", "maximize with L2 decay",
         "negating after the decay term flips the decay"},
        {"NoMomentumDecay", "KNOWN_MISTAKE", "momentum 0 with weight decay",
         "skipping the decay without momentum (mlx #440) is visible"},
        {"LargeDecay", "EDGE_CASE", "large decoupled decay", "decay scaling is visible"},
        {"HalfMomentum", "EDGE_CASE", "momentum 0.5", "symmetric lerp weights"},
        {"HighMomentum", "KNOWN_MISTAKE", "momentum 0.99",
         "swapped lerp weights change the buffer by ~100x"},
        {"InvalidHyperParameter", "INVALID_INPUT", "hyper-parameter or step outside its range",
         "must be rejected with the state left unchanged"},
        {"LenientValidation", "INVALID_INPUT", "outside the spec's range but accepted by torch",
         "acceptable: rejection or acceptance is reported, not failed"},
    };
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
        family_note(f, n[i][0], n[i][1], n[i][2], n[i][3], NULL);
}

/* sgd-torch-mixed variants: momentum, Nesterov with weight decay, plain (spec/mixed.md §6). */
static void mixed_emit(family *f, void *ctx, int variant, float lr, gen_case *c)
{
    oc_sgd_hparams hp = defaults(OC_SGD_TORCH);
    hp.lr = lr;
    hp.nesterov = variant == 1;
    hp.weight_decay = variant == 1 ? 1e-2f : 0.0f;
    hp.momentum = variant == 2 ? 0.0f : 0.9f;
    emit(f, ctx, &hp, c);
}

/* The family names of the SGD-PROF-* profiles (vectors/sgd-<name>/), in enum order. */
static const char *const profile_names[OC_SGD_PROFILE_COUNT] = {[OC_SGD_TORCH] = "torch",
                                                                [OC_SGD_EMA] = "ema"};

static int gen_sgd(const gen_options *opt, const char *outdir)
{
    static const char *const rules[] = {"SGD-HP-1", "SGD-HP-2", "SGD-ERR-1", "SGD-MAX-1",
                                        "SGD-WD-1", "SGD-WD-2", "SGD-BUF-1", "SGD-BUF-2",
                                        "SGD-NEST-1", "SGD-NEST-2", "SGD-UPD-1", "SGD-STORE-1",
                                        "SGD-TOL-1", "SGD-TOL-2", "SGD-TOL-3", NULL};
    sgd_ctx cx;
    for (int i = 0; i < NVARS; i++)
        mpfr_init2(cx.x[i], opt->prec);
    int rc = 0;
    for (int pr = 0; pr < OC_SGD_PROFILE_COUNT && rc == 0; pr++) {
        char name[64];
        snprintf(name, sizeof name, "sgd-%s", profile_names[pr]);
        rng.state = opt->seed * 1000033ull + (uint64_t)pr;
        family f;
        if (family_init(&f, name, "sgd", profile_names[pr], rules, opt)) {
            rc = -1;
            break;
        }
        notes(&f);
        cases(&f, &cx, (oc_sgd_profile)pr, strcmp(opt->level, "cert") == 0);
        rc = family_save(&f, outdir);
        family_free(&f);
    }
    rng.state = opt->seed * 1000033ull + 100;
    gen_mixed_algo mixed = {"sgd-torch-mixed", "sgd", "torch", 3, 1e-2f, 0x1p-15f, &rng, &cx,
                            mixed_emit, random_state};
    if (rc == 0)
        rc = gen_mixed_family(opt, outdir, &mixed);
    for (int i = 0; i < NVARS; i++)
        mpfr_clear(cx.x[i]);
    return rc;
}

/* Writes vectors/sgd-<profile> (spec/sgd.md). */
const gen_family gen_family_sgd = {.name = "sgd", .generate = gen_sgd};

json_t *gen_sgd_hparams_json(const oc_sgd_hparams *hp) { return hparams_json(hp); }
