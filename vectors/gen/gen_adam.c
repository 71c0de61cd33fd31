/* Adam-family vector cases (spec/adam.md §6): random one-step cases, trajectories,
 * discriminating cases that kill every catalogued mistake, and invalid inputs.
 * tcIds are assigned in generation order: append new cases at the end of a list. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "adam_exact.h"
#include "family.h"
#include "gen.h"
#include "rng.h"

static const char *const state_names[ADAM_NOUT] = {"p", "m", "v", "vmax"};
static gen_rng rng;

static json_t *hparams_json(const oc_adam_hparams *hp)
{
    return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:b,s:b}",
                     "lr", hexfloat(hp->lr), "beta1", hexfloat(hp->beta1), "beta2",
                     hexfloat(hp->beta2), "eps", hexfloat(hp->eps), "weightDecay",
                     hexfloat(hp->weight_decay), "epsRoot", hexfloat(hp->eps_root),
                     "scheduleMultiplier", hexfloat(hp->schedule_multiplier), "decoupled",
                     hp->decoupled, "amsgrad", hp->amsgrad, "maximize", hp->maximize);
}

typedef struct adam_stepper_ctx {
    adam_exact_ctx *cx;
    const oc_adam_hparams *hp;
} adam_stepper_ctx;

static void adam_begin(void *ctx, int64_t t)
{
    adam_stepper_ctx *a = ctx;
    adam_exact_begin_step(a->cx, a->hp, t);
}

static void adam_element(void *ctx, float grad, float *state, double *bound, gen_golden *out)
{
    adam_stepper_ctx *a = ctx;
    adam_exact_element(a->cx, a->hp, grad, state, bound, out);
}

static gen_stepper stepper_of(adam_stepper_ctx *ctx, const oc_adam_hparams *hp)
{
    return (gen_stepper){"AdamStep", state_names, hp->amsgrad ? ADAM_NOUT : ADAM_VMAX, ctx,
                         adam_begin, adam_element};
}

/* Computes and writes case c under hyper-parameters hp (spec/vectors.md VEC-FMT-3..5). */
static void emit(family *f, adam_exact_ctx *cx, const oc_adam_hparams *hp, gen_case *c)
{
    adam_stepper_ctx ctx = {cx, hp};
    gen_stepper s = stepper_of(&ctx, hp);
    family_emit(f, &s, hparams_json(hp), c);
}

int gen_adam_stepper(const oc_adam_hparams *hp, mpfr_prec_t prec, gen_stepper *out)
{
    adam_stepper_ctx *ctx = malloc(sizeof *ctx);
    if (!ctx || !(ctx->cx = adam_exact_new(prec))) {
        free(ctx);
        return -1;
    }
    ctx->hp = hp;
    *out = stepper_of(ctx, hp);
    return 0;
}

void gen_adam_stepper_free(gen_stepper *s)
{
    adam_stepper_ctx *ctx = s->ctx;
    adam_exact_free(ctx->cx);
    free(ctx);
}

/* ---- hyper-parameter choices (all exactly representable in binary32) ---- */
static const float lrs[] = {1e-3f, 3e-4f, 1e-2f, 1e-1f, 1.0f};
static const float beta1s[] = {0.9f, 0.95f, 0.8f, 0.5f, 0.0f};
static const float beta2s[] = {0.999f, 0.95f, 0.98f, 0.9999f, 0.5f};
static const float epss[] = {1e-8f, 1e-6f, 1e-12f, 1e-7f, 1e-3f};
static const float wds[] = {0.0f, 1e-2f, 1e-1f, 0.5f};
static const float etas[] = {1.0f, 0.5f, 0.1f};
static const float eps_roots[] = {0.0f, 1e-16f, 1e-8f};
#define PICK(a) ((double)a[rng_int(&rng, (int)(sizeof a / sizeof a[0]))])

static oc_adam_hparams defaults(oc_adam_profile pr)
{
    oc_adam_hparams hp = {.profile = pr, .lr = 1e-3f, .beta1 = 0.9f, .beta2 = 0.999f,
                          .eps = pr == OC_ADAM_KERAS ? 1e-7f : 1e-8f, .weight_decay = 1e-2f,
                          .schedule_multiplier = 1.0, .decoupled = 1};
    return hp;
}

static oc_adam_hparams random_hparams(oc_adam_profile pr)
{
    oc_adam_hparams hp = defaults(pr);
    hp.lr = PICK(lrs);
    hp.beta1 = PICK(beta1s);
    hp.beta2 = PICK(beta2s);
    hp.eps = PICK(epss);
    hp.weight_decay = PICK(wds);
    hp.decoupled = pr == OC_ADAM_KERAS || pr == OC_ADAM_OPTAX || (rng_next(&rng) & 1);
    if (pr == OC_ADAM_TORCH || pr == OC_ADAM_KERAS)
        hp.amsgrad = rng_int(&rng, 3) == 0;
    if (pr == OC_ADAM_TORCH)
        hp.maximize = rng_int(&rng, 4) == 0;
    if (pr == OC_ADAM_PAPER)
        hp.schedule_multiplier = PICK(etas);
    if (pr == OC_ADAM_OPTAX)
        hp.eps_root = PICK(eps_roots);
    return hp;
}

static void random_state(gen_case *c)
{
    for (size_t i = 0; i < c->n; i++) {
        c->in[ADAM_P][i] = rng_mag(&rng, -8, 4, 1);
        c->in[ADAM_M][i] = rng_mag(&rng, -14, 0, 1);
        c->in[ADAM_V][i] = rng_mag(&rng, -30, 0, 0);
        c->in[ADAM_VMAX][i] = rng_mag(&rng, -30, 1, 0);
    }
}

static float random_grad(void)
{
    int r = rng_int(&rng, 100);
    if (r < 4)
        return 0.0f;
    if (r < 6)
        return rng_mag(&rng, -140, -127, 1); /* subnormal */
    if (r < 8)
        return rng_mag(&rng, -100, -90, 1);
    return rng_mag(&rng, -20, 3, 1);
}

static const char *const profile_rules[OC_ADAM_PROFILE_COUNT] = {
    "ADAM-PROF-TORCH", "ADAM-PROF-OPTAX", "ADAM-PROF-PAPER", "ADAM-PROF-KERAS"};

static const int64_t random_steps[] = {1, 2, 3, 5, 10, 100, 1000, 1000000};

static void random_cases(family *f, adam_exact_ctx *cx, oc_adam_profile pr, int count)
{
    for (int t = 0; t < count; t++) {
        oc_adam_hparams hp = random_hparams(pr);
        gen_case c = {.comment = "random state, gradient and hyper-parameters; one step",
                       .flags = {"Random"},
                       .rules = {"ADAM-M-1", "ADAM-V-1", "ADAM-BC-1", "ADAM-EPS-1", "ADAM-DIR-1",
                                 "ADAM-UPD-1", "ADAM-STORE-1", profile_rules[pr]},
                       .result = "valid"};
        c.first_step = random_steps[rng_int(&rng, 8)];
        gen_case_alloc(&c, 64, 1);
        random_state(&c);
        for (size_t i = 0; i < c.n; i++)
            c.g[i] = random_grad();
        emit(f, cx, &hp, &c);
    }
}

static void trajectory(family *f, adam_exact_ctx *cx, oc_adam_hparams hp, int64_t first,
                       size_t steps, size_t n, const char *comment)
{
    gen_case c = {.comment = comment, .flags = {"Trajectory"},
                   .rules = {"ADAM-BC-1", "ADAM-STORE-1", "ADAM-UPD-1", "ADAM-TOL-1", "ADAM-TOL-2",
                             "ADAM-TOL-3", profile_rules[hp.profile]},
                   .result = "valid", .first_step = first};
    gen_case_alloc(&c, n, steps);
    if (first > 1)
        random_state(&c);
    else
        for (size_t i = 0; i < n; i++)
            c.in[ADAM_P][i] = rng_mag(&rng, -4, 2, 1);
    /* gradients: a per-element drift plus noise, so m does not average to zero */
    for (size_t i = 0; i < n; i++) {
        float drift = rng_mag(&rng, -8, -2, 1);
        for (size_t s = 0; s < steps; s++)
            c.g[s * n + i] = drift + rng_mag(&rng, -10, -1, 1);
    }
    emit(f, cx, &hp, &c);
}

/* A discriminating case: state and gradient built by `fill`, hyper-parameters given. */
typedef void (*fill_fn)(gen_case *c);

static void discriminating(family *f, adam_exact_ctx *cx, oc_adam_hparams hp, int64_t first,
                           size_t steps, const char *flag, const char *rule,
                           const char *comment, fill_fn fill)
{
    gen_case c = {.comment = comment, .flags = {flag},
                   .rules = {rule, "ADAM-TOL-1", "ADAM-TOL-2", "ADAM-TOL-3", profile_rules[hp.profile]},
                   .result = "valid", .first_step = first};
    gen_case_alloc(&c, 16, steps);
    fill(&c);
    emit(f, cx, &hp, &c);
}

static float g_scale; /* magnitude used by the fill functions below */
static void fill_zero_state_grad(gen_case *c)
{
    for (size_t i = 0; i < c->n; i++) {
        c->in[ADAM_P][i] = rng_mag(&rng, -2, 1, 1);
        for (size_t s = 0; s < c->steps; s++)
            c->g[s * c->n + i] = (float)(g_scale * (0.5 + rng_unit(&rng)) * ((i & 1) ? -1 : 1));
    }
}
static void fill_random_state_grad(gen_case *c)
{
    random_state(c);
    for (size_t i = 0; i < c->n * c->steps; i++)
        c->g[i] = (float)(g_scale * (0.5 + rng_unit(&rng)) * ((i & 1) ? -1 : 1));
}
static void fill_zero_grad(gen_case *c)
{
    random_state(c);
}
static void fill_signed_zeros(gen_case *c)
{
    for (size_t i = 0; i < c->n; i++) {
        c->in[ADAM_P][i] = (i & 1) ? -0.0f : 0.0f;
        c->in[ADAM_M][i] = (i & 2) ? -0.0f : 0.0f;
        c->in[ADAM_V][i] = 0.0f;
        c->in[ADAM_VMAX][i] = 0.0f;
        c->g[i] = (i & 4) ? -0.0f : 0.0f;
    }
}
static void fill_subnormal(gen_case *c)
{
    for (size_t i = 0; i < c->n; i++) {
        c->in[ADAM_P][i] = rng_mag(&rng, -140, -127, 1);
        c->in[ADAM_M][i] = rng_mag(&rng, -140, -127, 1);
        c->in[ADAM_V][i] = rng_mag(&rng, -149, -127, 0);
        c->in[ADAM_VMAX][i] = rng_mag(&rng, -149, -127, 0);
        c->g[i] = rng_mag(&rng, -149, -127, 1);
    }
}
static void fill_amsgrad_history(gen_case *c)
{
    random_state(c);
    for (size_t i = 0; i < c->n; i++) {
        c->in[ADAM_V][i] = rng_mag(&rng, -20, -16, 0);
        c->in[ADAM_VMAX][i] = rng_mag(&rng, -12, -8, 0); /* an earlier, larger second moment */
        c->g[i] = rng_mag(&rng, -10, -6, 1);
    }
}

static void discriminating_cases(family *f, adam_exact_ctx *cx, oc_adam_profile pr)
{
    oc_adam_hparams d = defaults(pr), h;
    /* v_hat near eps^2 and near eps: where the eps convention decides the step */
    g_scale = (float)d.eps;
    discriminating(f, cx, d, 1, 1, "VhatNearEpsSquared", "ADAM-EPS-1",
                   "first step, |g| ~ eps so v_hat ~ eps^2: eps placement dominates", fill_zero_state_grad);
    g_scale = (float)sqrt(d.eps);
    discriminating(f, cx, d, 1, 1, "VhatNearEps", "ADAM-EPS-1",
                   "first step, |g| ~ sqrt(eps) so v_hat ~ eps", fill_zero_state_grad);
    g_scale = 1e-3f;
    h = d;
    h.lr = 1e-2f;
    discriminating(f, cx, h, 1, 3, "BiasCorrectionTransient", "ADAM-BC-1",
                   "steps 1..3 from zero state: the bias-correction transient", fill_zero_state_grad);
    discriminating(f, cx, h, 7, 1, "ZeroGradient", "ADAM-M-1",
                   "g = 0 with non-zero state: moments decay, parameter still moves", fill_zero_grad);
    g_scale = 1e-30f;
    discriminating(f, cx, d, 3, 1, "TinyGradient", "ADAM-V-1",
                   "|g| ~ 1e-30: g^2 underflows binary32", fill_random_state_grad);
    g_scale = 1e30f;
    discriminating(f, cx, d, 3, 1, "HugeGradient", "ADAM-STORE-2",
                   "|g| ~ 1e30: v overflows binary32 storage to +inf, the step becomes 0",
                   fill_random_state_grad);
    discriminating(f, cx, d, 2, 1, "Subnormal", "ADAM-STORE-1",
                   "subnormal p, m, v and g", fill_subnormal);
    discriminating(f, cx, d, 1, 1, "SignedZero", "ADAM-UPD-1",
                   "signed zeros everywhere: no NaN from 0/0, result compares equal to 0",
                   fill_signed_zeros);
    if (pr != OC_ADAM_OPTAX || d.decoupled) {
        h = d;
        h.lr = 0.0;
        h.weight_decay = 0.25f;
        g_scale = 1e-2f;
        discriminating(f, cx, h, 4, 1, "ZeroLearningRate", "ADAM-WD-2",
                       "lr = 0 with weight decay: the parameter must not change",
                       fill_random_state_grad);
    }
    h = d;
    h.beta1 = 0.0;
    h.lr = 1e-2f;
    discriminating(f, cx, h, 5, 1, "BetaOneZero", "ADAM-M-1",
                   "beta1 = 0: m equals g, bc1 = 1", fill_random_state_grad);
    h = d;
    h.lr = 1e-2f;
    discriminating(f, cx, h, (int64_t)1 << 40, 1, "LargeStepCount", "ADAM-BC-1",
                   "step 2^40: bias corrections are 1 to binary64 precision", fill_random_state_grad);
    h = d;
    h.lr = 0.5f;
    h.weight_decay = 0.5f;
    h.schedule_multiplier = pr == OC_ADAM_PAPER ? 0.5f : 1.0f;
    g_scale = 1e-2f;
    discriminating(f, cx, h, 2, 1, "LargeDecay", "ADAM-WD-2",
                   "lr*wd = 0.25: decay order and coupling are visible", fill_random_state_grad);
    if (pr != OC_ADAM_OPTAX && pr != OC_ADAM_KERAS) {
        h.decoupled = 0;
        discriminating(f, cx, h, 2, 1, "LargeDecay", "ADAM-WD-1",
                       "L2 coupling with wd = 0.5: the decay passes through the moments",
                       fill_random_state_grad);
    }
    if (pr == OC_ADAM_TORCH || pr == OC_ADAM_KERAS) {
        h = d;
        h.amsgrad = 1;
        h.lr = 1e-2f;
        discriminating(f, cx, h, 2, 1, "AmsgradHistory", "ADAM-AMS-1",
                       "AMSGrad with an earlier larger second moment, step 2",
                       fill_amsgrad_history);
    }
    if (pr == OC_ADAM_TORCH) {
        h = d;
        h.maximize = 1;
        h.decoupled = 0;
        h.lr = 1e-2f;
        g_scale = 1e-3f;
        discriminating(f, cx, h, 3, 1, "Maximize", "ADAM-MAX-1",
                       "maximize with L2 decay: the gradient is negated before the L2 term",
                       fill_random_state_grad);
    }
    if (pr == OC_ADAM_OPTAX) {
        h = d;
        h.eps_root = 1e-10f;
        h.lr = 1e-2f;
        g_scale = 1e-6f;
        discriminating(f, cx, h, 1, 2, "EpsRoot", "ADAM-PROF-OPTAX",
                       "eps_root inside the square root, added to the bias-corrected v",
                       fill_zero_state_grad);
    }
}

/* Hyper-parameters outside ADAM-HP-1/2. `acceptable`: the spec rejects them, a library may
 * accept them (LenientValidation); `invalid`: must be rejected. */
#define NO_FIELD ((size_t)-1)
static void invalid_cases(family *f, adam_exact_ctx *cx, oc_adam_profile pr)
{
    static const struct { const char *what, *result; size_t field; double value; int64_t step; }
    cases[] = {
        {"beta1 = 1", "invalid", offsetof(oc_adam_hparams, beta1), 1.0, 1},
        {"beta1 = -0.5", "invalid", offsetof(oc_adam_hparams, beta1), -0.5, 1},
        {"beta1 = NaN", "invalid", offsetof(oc_adam_hparams, beta1), NAN, 1},
        {"beta2 = 1", "invalid", offsetof(oc_adam_hparams, beta2), 1.0, 1},
        {"beta2 = -0.125", "invalid", offsetof(oc_adam_hparams, beta2), -0.125, 1},
        {"eps = 0", "acceptable", offsetof(oc_adam_hparams, eps), 0.0, 1},
        {"eps = -2^-27", "invalid", offsetof(oc_adam_hparams, eps), -0x1p-27, 1},
        {"eps = NaN", "invalid", offsetof(oc_adam_hparams, eps), NAN, 1},
        {"eps = +inf", "acceptable", offsetof(oc_adam_hparams, eps), INFINITY, 1},
        {"lr = NaN", "invalid", offsetof(oc_adam_hparams, lr), NAN, 1},
        {"lr = -2^-10", "invalid", offsetof(oc_adam_hparams, lr), -0x1p-10, 1},
        {"lr = +inf", "acceptable", offsetof(oc_adam_hparams, lr), INFINITY, 1},
        {"weight decay = -2^-7", "invalid", offsetof(oc_adam_hparams, weight_decay), -0x1p-7, 1},
        {"weight decay = NaN", "invalid", offsetof(oc_adam_hparams, weight_decay), NAN, 1},
        {"step = 0", "invalid", NO_FIELD, 0, 0},
        {"step = -3", "invalid", NO_FIELD, 0, -3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int invalid = strcmp(cases[i].result, "invalid") == 0;
        oc_adam_hparams hp = defaults(pr);
        gen_case c = {.comment = cases[i].what,
                       .flags = {invalid ? "InvalidHyperParameter" : "LenientValidation"},
                       .rules = {"ADAM-HP-1", "ADAM-HP-2", "ADAM-ERR-1"},
                       .result = cases[i].result,
                       .first_step = cases[i].step};
        if (cases[i].field != NO_FIELD)
            *(double *)((char *)&hp + cases[i].field) = cases[i].value;
        gen_case_alloc(&c, 4, 1);
        random_state(&c);
        for (size_t k = 0; k < c.n; k++)
            c.g[k] = rng_mag(&rng, -10, 0, 1);
        emit(f, cx, &hp, &c);
    }
    if (pr != OC_ADAM_PAPER)
        return;
    /* ADAM-PROF-PAPER (issue 19 item 3): the paper's algorithm has no amsgrad, no maximize and
     * no eps_root; each one set alone is rejected */
    static const char *const unsupported[3] = {"amsgrad under the paper profile",
                                               "maximize under the paper profile",
                                               "eps_root = 2^-20 under the paper profile"};
    for (int i = 0; i < 3; i++) {
        oc_adam_hparams hp = defaults(pr);
        hp.amsgrad = i == 0;
        hp.maximize = i == 1;
        hp.eps_root = i == 2 ? 0x1p-20 : 0.0;
        gen_case c = {.comment = unsupported[i], .flags = {"InvalidHyperParameter"},
                      .rules = {"ADAM-PROF-PAPER", "ADAM-ERR-1"}, .result = "invalid",
                      .first_step = 1};
        gen_case_alloc(&c, 4, 1);
        random_state(&c);
        emit(f, cx, &hp, &c);
    }
}

/* Issue 19 item 3 (appended after every earlier case of the profile): the boundaries of
 * ADAM-HP-1 no case above reaches (a negative eps_root where optax defines it, a negative
 * schedule multiplier where the paper defines it), and each option ADAM-PROF-* says the
 * profile's library lacks: amsgrad, maximize, L2 decay, a schedule multiplier other than 1.
 * All must be rejected, the state left unchanged (ADAM-ERR-1). */
static void boundary_cases(family *f, adam_exact_ctx *cx, oc_adam_profile pr)
{
    enum { EPS_ROOT, ETA_NEGATIVE, AMSGRAD, MAXIMIZE, L2, ETA };
    static const char *const what[] = {
        "eps_root = -2^-20", "schedule multiplier = -0.5", "amsgrad (not in the profile)",
        "maximize (not in the profile)", "L2-coupled decay (not in the profile)",
        "schedule multiplier 0.5 (not in the profile)"};
    static const int torch[] = {ETA, -1};
    static const int optax[] = {EPS_ROOT, AMSGRAD, MAXIMIZE, L2, ETA, -1};
    static const int paper[] = {ETA_NEGATIVE, -1};
    static const int keras[] = {MAXIMIZE, L2, ETA, -1};
    static const int *const cases[OC_ADAM_PROFILE_COUNT] = {
        [OC_ADAM_TORCH] = torch, [OC_ADAM_OPTAX] = optax, [OC_ADAM_PAPER] = paper,
        [OC_ADAM_KERAS] = keras};
    for (const int *k = cases[pr]; *k >= 0; k++) {
        oc_adam_hparams hp = defaults(pr);
        switch (*k) {
        case EPS_ROOT: hp.eps_root = -0x1p-20; break;
        case ETA_NEGATIVE: hp.schedule_multiplier = -0.5; break;
        case AMSGRAD: hp.amsgrad = 1; break;
        case MAXIMIZE: hp.maximize = 1; break;
        case L2: hp.decoupled = 0; break;
        default: hp.schedule_multiplier = 0.5;
        }
        int range = *k == EPS_ROOT || *k == ETA_NEGATIVE;
        gen_case c = {.comment = what[*k], .flags = {"InvalidHyperParameter"},
                      .rules = {range ? "ADAM-HP-1" : profile_rules[pr], "ADAM-ERR-1"},
                      .result = "invalid", .first_step = 1};
        gen_case_alloc(&c, 4, 1);
        random_state(&c);
        for (size_t i = 0; i < c.n; i++)
            c.g[i] = rng_mag(&rng, -10, 0, 1);
        emit(f, cx, &hp, &c);
    }
    if (pr == OC_ADAM_TORCH) { /* appended (issue 19 item 3): a tensor without elements */
        gen_case c = {.comment = "n = 0: a tensor without elements, a valid step that writes "
                                 "nothing", .flags = {"NoElements"}, .rules = {"ADAM-ERR-1"},
                      .result = "valid", .first_step = 1};
        family_note(f, "NoElements", "EDGE_CASE", "n = 0: a tensor without elements",
                    "a valid step that writes nothing", NULL);
        gen_case_alloc(&c, 0, 1);
        oc_adam_hparams hp = defaults(pr);
        emit(f, cx, &hp, &c);
    }
    if (pr != OC_ADAM_OPTAX && pr != OC_ADAM_KERAS)
        return;
    /* valid: a profile without L2 decay accepts decoupled = false when there is no decay to
     * couple (ADAM-PROF-OPTAX, ADAM-PROF-KERAS reject L2 only with weight_decay != 0) */
    oc_adam_hparams hp = defaults(pr);
    hp.decoupled = 0;
    hp.weight_decay = 0.0;
    g_scale = 1e-3f;
    discriminating(f, cx, hp, 2, 1, "NoDecayToCouple", profile_rules[pr],
                   "decoupled = false with weight decay 0: nothing to couple, a valid step",
                   fill_random_state_grad);
}

static void notes(family *f)
{
    static const char *const n[][4] = {
        {"Random", "BASIC", "random state, gradient and hyper-parameters", "general agreement"},
        {"Trajectory", "TRAJECTORY", "many consecutive steps; the state of one step feeds the next",
         "checks state handling, the bias-correction transient and late steps"},
        {"VhatNearEpsSquared", "KNOWN_MISTAKE", "|g| ~ eps on the first step",
         "eps inside the square root or in the eps-hat convention changes the step by orders of magnitude"},
        {"VhatNearEps", "KNOWN_MISTAKE", "|g| ~ sqrt(eps) on the first step",
         "sqrt(v_hat + eps) differs from sqrt(v_hat) + eps by ~40%"},
        {"BiasCorrectionTransient", "KNOWN_MISTAKE", "steps 1..3 from zero state",
         "missing or off-by-one bias correction changes the step by a factor up to ~30"},
        {"ZeroGradient", "EDGE_CASE", "g = 0 with non-zero moments", "moments decay; no division by zero"},
        {"TinyGradient", "EDGE_CASE", "|g| ~ 1e-30", "g^2 underflows binary32; the step uses m / eps"},
        {"HugeGradient", "EDGE_CASE", "|g| ~ 1e30",
         "v overflows binary32 storage to +inf (ADAM-STORE-2); the parameter step is then 0"},
        {"Subnormal", "STORAGE_ROUNDING", "subnormal inputs", "gradual underflow must be honoured"},
        {"SignedZero", "EDGE_CASE", "+0 and -0 inputs", "no NaN from 0/0; zeros compare equal"},
        {"ZeroLearningRate", "KNOWN_MISTAKE", "lr = 0 with weight decay",
         "decay not scaled by lr shrinks the parameter"},
        {"BetaOneZero", "EDGE_CASE", "beta1 = 0", "m = g; swapped betas are visible"},
        {"LargeStepCount", "EDGE_CASE", "step 2^40", "bias corrections ~1; no overflow of the counter"},
        {"LargeDecay", "KNOWN_MISTAKE", "lr*wd = 0.25",
         "decay order (before/after the update) and L2 versus decoupled coupling are visible"},
        {"AmsgradHistory", "KNOWN_MISTAKE", "AMSGrad maximum held from an earlier step",
         "max over raw v (torch, keras) differs from max over v_hat (optax)"},
        {"Maximize", "EDGE_CASE", "maximize = true", "the gradient is negated before the L2 term"},
        {"EpsRoot", "EDGE_CASE", "optax eps_root > 0", "eps_root is added to the bias-corrected v inside the root"},
        {"NoDecayToCouple", "EDGE_CASE", "decoupled = false with weight decay 0",
         "a profile without L2 decay has nothing to reject: the step is the plain one"},
        {"InvalidHyperParameter", "INVALID_INPUT", "hyper-parameter or step outside its range",
         "must be rejected with the state left unchanged"},
        {"LenientValidation", "INVALID_INPUT",
         "outside the spec's range but accepted by some libraries (torch accepts eps = 0 and infinite lr/eps)",
         "acceptable: rejection or acceptance is reported, not failed"},
    };
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
        family_note(f, n[i][0], n[i][1], n[i][2], n[i][3], NULL);
}

/* adam-torch-mixed variants: AdamW, Adam with L2, AdamW with AMSGrad (spec/mixed.md §6). */
static void mixed_emit(family *f, void *ctx, int variant, float lr, gen_case *c)
{
    oc_adam_hparams hp = defaults(OC_ADAM_TORCH);
    hp.lr = lr;
    hp.decoupled = variant != 1;
    hp.amsgrad = variant == 2;
    emit(f, ctx, &hp, c);
}

/* The family names of the ADAM-PROF-* profiles (vectors/adam-<name>/), in enum order. */
static const char *const profile_names[OC_ADAM_PROFILE_COUNT] = {
    [OC_ADAM_TORCH] = "torch", [OC_ADAM_OPTAX] = "optax", [OC_ADAM_PAPER] = "paper",
    [OC_ADAM_KERAS] = "keras"};

static int gen_adam(const gen_options *opt, const char *outdir)
{
    static const char *const rules[] = {
        "ADAM-HP-1", "ADAM-HP-2", "ADAM-M-1", "ADAM-V-1", "ADAM-BC-1", "ADAM-EPS-1", "ADAM-DIR-1",
        "ADAM-UPD-1", "ADAM-WD-1", "ADAM-WD-2", "ADAM-AMS-1", "ADAM-MAX-1", "ADAM-STORE-1",
        "ADAM-STORE-2", "ADAM-ERR-1", "ADAM-TOL-1", "ADAM-TOL-2", "ADAM-TOL-3", NULL};
    int cert = strcmp(opt->level, "cert") == 0;
    adam_exact_ctx *cx = adam_exact_new(opt->prec);
    if (!cx)
        return -1;
    int rc = 0;
    for (int pr = 0; pr < OC_ADAM_PROFILE_COUNT && rc == 0; pr++) {
        char name[64];
        const char *pname = profile_names[pr];
        snprintf(name, sizeof name, "adam-%s", pname);
        rng.state = opt->seed * 1000003ull + (uint64_t)pr;
        family f;
        if (family_init(&f, name, "adam", pname, rules, opt) != 0) {
            rc = -1;
            break;
        }
        notes(&f);
        random_cases(&f, cx, (oc_adam_profile)pr, cert ? 400 : 24);
        oc_adam_hparams d = defaults((oc_adam_profile)pr);
        trajectory(&f, cx, d, 1, cert ? 5000 : 1000, cert ? 64 : 8,
                   "1000 steps from zero state with the profile's default hyper-parameters");
        trajectory(&f, cx, d, 1000000, cert ? 1000 : 200, 8,
                   "late steps 10^6.. from a random state");
        d.decoupled = 1;
        d.weight_decay = 0.1f;
        d.beta2 = 0.95f;
        d.lr = 1e-2f;
        trajectory(&f, cx, d, 1, cert ? 2000 : 300, 8,
                   "300 steps, beta2 = 0.95, lr = 1e-2, decoupled decay 0.1");
        discriminating_cases(&f, cx, (oc_adam_profile)pr);
        invalid_cases(&f, cx, (oc_adam_profile)pr);
        boundary_cases(&f, cx, (oc_adam_profile)pr);
        rc = family_save(&f, outdir);
        family_free(&f);
    }
    rng.state = opt->seed * 1000003ull + 100;
    gen_mixed_algo mixed = {"adam-torch-mixed", "adam", "torch", 3, 1e-3f, 0x1p-15f, &rng, cx,
                            mixed_emit, random_state};
    if (rc == 0)
        rc = gen_mixed_family(opt, outdir, &mixed);
    adam_exact_free(cx);
    return rc;
}

/* Writes vectors/adam-<profile> for every Adam profile (spec/adam.md). */
const gen_family gen_family_adam = {.name = "adam", .generate = gen_adam};

json_t *gen_adam_hparams_json(const oc_adam_hparams *hp) { return hparams_json(hp); }
