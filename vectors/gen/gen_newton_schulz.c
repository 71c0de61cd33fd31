/* Newton–Schulz vector families (spec/muon.md, rules NS-*): the exact iteration on the fp32
 * input in MPFR, the tolerance model of NS-TOL-1, and the cases. tcIds are assigned in
 * generation order: append new cases at the end. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/newton_schulz.h"
#include "family.h"
#include "gen.h"
#include "ns_model.h"
#include "rng.h"

static gen_rng rng;

/* ---- the exact iteration (NS-NORM-1, NS-SHAPE-1, NS-SCHED-1, NS-ITER-1) ---- */

typedef struct mat {
    size_t r, c;
    mpfr_t *e;      /* r*c entries, row-major */
    mpfr_ptr *ptr;  /* the same entries as pointers, for mpfr_dot */
} mat;

static void mat_init(mat *m, size_t r, size_t c, mpfr_prec_t prec)
{
    m->r = r, m->c = c;
    m->e = malloc(r * c * sizeof *m->e);
    m->ptr = malloc(r * c * sizeof *m->ptr);
    for (size_t i = 0; i < r * c; i++) {
        mpfr_init2(m->e[i], prec);
        m->ptr[i] = m->e[i];
    }
}

static void mat_clear(mat *m)
{
    for (size_t i = 0; i < m->r * m->c; i++)
        mpfr_clear(m->e[i]);
    free(m->e);
    free(m->ptr);
}

/* NS-PROF-*: the tuples spec/muon.md §2 publishes, each decimal rounded to binary32 (NS-HP-1:
 * the C float literal is that rounding). Polar Express with and without the safety factor
 * share their tuples. */
static const float tuples_simple[][3] = {{3.4445f, -4.7750f, 2.0315f}};
static const float tuples_quintic[][3] = {
    {4.0848f, -6.8946f, 2.9270f}, {3.9505f, -6.3029f, 2.6377f}, {3.7418f, -5.5913f, 2.3037f},
    {2.8769f, -3.1427f, 1.2046f}, {2.8366f, -3.0525f, 1.2012f}};
static const float tuples_polar[][3] = {
    {8.2051f, -22.9019f, 16.4607f}, {4.0664f, -2.8612f, 0.5184f}, {3.9096f, -2.8234f, 0.5250f},
    {3.2856f, -2.4153f, 0.4853f},   {2.2779f, -1.6198f, 0.3985f}, {1.8726f, -1.2307f, 0.3585f},
    {1.8564f, -1.2132f, 0.3568f},   {1.8750f, -1.2500f, 0.3750f}};
static const float tuples_aol[][3] = {
    {4.0098f, -7.0585f, 2.4635f}, {3.4585f, -5.5479f, 2.5959f}, {2.7573f, -3.2939f, 1.4254f},
    {2.7215f, -3.0494f, 1.3169f}};
static const float tuples_cans[][3] = {
    {8.4703f, -25.1081f, 18.6293f}, {4.1828f, -3.1087f, 0.5806f}, {3.9619f, -2.9541f, 0.5630f},
    {3.2866f, -2.4647f, 0.5074f},   {2.2737f, -1.6447f, 0.4162f}};
/* Eight times Keller's tuple, then twice (2, -1.5, 0.5). */
static const float tuples_deepseekv4[][3] = {
    {3.4445f, -4.7750f, 2.0315f}, {3.4445f, -4.7750f, 2.0315f}, {3.4445f, -4.7750f, 2.0315f},
    {3.4445f, -4.7750f, 2.0315f}, {3.4445f, -4.7750f, 2.0315f}, {3.4445f, -4.7750f, 2.0315f},
    {3.4445f, -4.7750f, 2.0315f}, {3.4445f, -4.7750f, 2.0315f}, {2.0f, -1.5f, 0.5f},
    {2.0f, -1.5f, 0.5f}};
/* c = 0: cubic polynomials. */
static const float tuples_cubic5[][3] = {
    {3.3656576f, -3.3420992f, 0.0f}, {2.5744352f, -1.4957376f, 0.0f},
    {2.5368962f, -1.4312570f, 0.0f}, {2.4418906f, -1.2764040f, 0.0f},
    {2.2230472f, -0.9630650f, 0.0f}};

/* Each profile's name, tuples, schedule, normalisation d = s ||G||_F + eps (add) or
 * max(s ||G||_F, eps) (max) with eps = 1e-7, and its default number of iterations. */
static const struct ns_profile_def {
    const char *name;
    const float (*tuples)[3];
    int ncoef, steps;
    oc_ns_schedule schedule;
    oc_ns_eps_mode eps_mode;
    float norm_scale;
} ns_profiles[OC_NS_PROFILE_COUNT] = {
    [OC_NS_SIMPLE] = {"simple", tuples_simple, 1, 5, OC_NS_CYCLE, OC_NS_EPS_ADD, 1.0f},
    [OC_NS_QUINTIC] = {"quintic", tuples_quintic, 5, 5, OC_NS_CYCLE, OC_NS_EPS_MAX, 1.0f},
    [OC_NS_POLAR_EXPRESS] = {"polar-express", tuples_polar, 8, 8, OC_NS_REPEAT_LAST,
                             OC_NS_EPS_MAX, 1.0f},
    [OC_NS_POLAR_EXPRESS_SAFETY] = {"polar-express-safety", tuples_polar, 8, 8,
                                    OC_NS_REPEAT_LAST, OC_NS_EPS_ADD, 1.01f},
    [OC_NS_AOL] = {"aol", tuples_aol, 4, 4, OC_NS_CYCLE, OC_NS_EPS_MAX, 1.0f},
    [OC_NS_CANS] = {"cans", tuples_cans, 5, 5, OC_NS_REPEAT_LAST, OC_NS_EPS_MAX, 1.0f},
    [OC_NS_DEEPSEEKV4] = {"deepseekv4", tuples_deepseekv4, 10, 10, OC_NS_REPEAT_LAST,
                          OC_NS_EPS_MAX, 1.0f},
    [OC_NS_CUBIC5] = {"cubic5", tuples_cubic5, 5, 5, OC_NS_CYCLE, OC_NS_EPS_MAX, 1.0f},
};

const char *ns_profile_defaults(oc_ns_profile pr, oc_ns_hparams *hp)
{
    if ((unsigned)pr >= OC_NS_PROFILE_COUNT)
        return NULL;
    const struct ns_profile_def *d = &ns_profiles[pr];
    hp->profile = pr;
    hp->ncoef = d->ncoef;
    for (int t = 0; t < d->ncoef; t++)
        for (int j = 0; j < 3; j++)
            hp->coef[t][j] = d->tuples[t][j];
    hp->steps = d->steps;
    hp->schedule = d->schedule;
    hp->eps_mode = d->eps_mode;
    hp->eps = 1e-7f;
    hp->norm_scale = d->norm_scale;
    return d->name;
}

void ns_exact(const oc_ns_hparams *hp, size_t rows, size_t cols, const float *g, long prec,
              float *y32, double *y64, double *sv0)
{
    int tall = rows > cols;
    size_t k = tall ? cols : rows, n = tall ? rows : cols;
    mat x, t, a, b;
    mat_init(&x, k, n, prec), mat_init(&t, k, n, prec);
    mat_init(&a, k, k, prec), mat_init(&b, k, k, prec);
    mpfr_ptr *col = malloc(k * sizeof *col);
    mpfr_t d, s;
    mpfr_inits2(prec, d, s, (mpfr_ptr)0);
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < n; j++)
            mpfr_set_flt(x.e[i * n + j], tall ? g[j * cols + i] : g[i * cols + j], MPFR_RNDN);
    mpfr_dot(d, x.ptr, x.ptr, k * n, MPFR_RNDN);                  /* NS-NORM-1 */
    mpfr_sqrt(d, d, MPFR_RNDN);
    mpfr_mul_d(d, d, hp->norm_scale, MPFR_RNDN);
    if (hp->eps_mode == OC_NS_EPS_ADD)
        mpfr_add_d(d, d, hp->eps, MPFR_RNDN);
    else if (mpfr_cmp_d(d, hp->eps) < 0)
        mpfr_set_d(d, hp->eps, MPFR_RNDN);
    for (size_t i = 0; i < k * n; i++)
        mpfr_div(x.e[i], x.e[i], d, MPFR_RNDN);
    /* sigma(X0) in binary64 for the tolerance model: sigma(G) / d. */
    double *gd = malloc(k * n * sizeof *gd), dd = mpfr_get_d(d, MPFR_RNDN);
    for (size_t i = 0; i < rows * cols; i++)
        gd[i] = g[i];
    ns_singular_values(gd, rows, cols, sv0);
    for (size_t i = 0; i < k; i++)
        sv0[i] /= dd;
    free(gd);
    for (int it = 0; it < hp->steps; it++) {
        const double *abc = hp->coef[ns_tuple_of(hp, it)];  /* NS-SCHED-1 */
        for (size_t i = 0; i < k; i++)                            /* A = X X^T (symmetric) */
            for (size_t j = 0; j <= i; j++) {
                mpfr_dot(a.e[i * k + j], x.ptr + i * n, x.ptr + j * n, n, MPFR_RNDN);
                mpfr_set(a.e[j * k + i], a.e[i * k + j], MPFR_RNDN);
            }
        for (size_t i = 0; i < k; i++)                            /* B = b A + c A A */
            for (size_t j = 0; j <= i; j++) {
                mpfr_dot(s, a.ptr + i * k, a.ptr + j * k, k, MPFR_RNDN); /* A symmetric */
                mpfr_mul_d(s, s, abc[2], MPFR_RNDN);
                mpfr_mul_d(b.e[i * k + j], a.e[i * k + j], abc[1], MPFR_RNDN);
                mpfr_add(b.e[i * k + j], b.e[i * k + j], s, MPFR_RNDN);
                mpfr_set(b.e[j * k + i], b.e[i * k + j], MPFR_RNDN);
            }
        for (size_t j = 0; j < n; j++) {                          /* X <- a X + B X */
            for (size_t l = 0; l < k; l++)
                col[l] = x.e[l * n + j];
            for (size_t i = 0; i < k; i++) {
                mpfr_dot(t.e[i * n + j], b.ptr + i * k, col, k, MPFR_RNDN);
                mpfr_mul_d(s, x.e[i * n + j], abc[0], MPFR_RNDN);
                mpfr_add(t.e[i * n + j], t.e[i * n + j], s, MPFR_RNDN);
            }
        }
        for (size_t i = 0; i < k * n; i++)
            mpfr_swap(x.e[i], t.e[i]);
    }
    for (size_t r = 0; r < rows; r++)                              /* NS-SHAPE-1, NS-STORE-1 */
        for (size_t c = 0; c < cols; c++) {
            mpfr_ptr v = tall ? x.e[c * n + r] : x.e[r * n + c];
            y32[r * cols + c] = mpfr_get_flt(v, MPFR_RNDN);
            y64[r * cols + c] = mpfr_get_d(v, MPFR_RNDN);
        }
    mpfr_clears(d, s, (mpfr_ptr)0);
    free(col);
    mat_clear(&x), mat_clear(&t), mat_clear(&a), mat_clear(&b);
}

/* ---- inputs ---- */

typedef struct ns_case {
    const char *comment;
    const char *flags[4];
    const char *rules[6];
    size_t rows, cols;
    float *g;
    const char *result; /* NULL: "valid" */
} ns_case;

static float *uniform(size_t len, double scale)
{
    float *g = malloc(len * sizeof *g);
    for (size_t i = 0; i < len; i++)
        g[i] = (float)(scale * (2 * rng_unit(&rng) - 1));
    return g;
}

/* k x n (k <= n) with orthonormal rows in binary64: Gram–Schmidt, twice, on random rows. */
static double *orthonormal_rows(size_t k, size_t n)
{
    double *q = malloc(k * n * sizeof *q);
    for (size_t i = 0; i < k; i++) {
        for (size_t j = 0; j < n; j++)
            q[i * n + j] = 2 * rng_unit(&rng) - 1;
        for (int pass = 0; pass < 2; pass++) {
            for (size_t p = 0; p < i; p++) {
                double dot = 0;
                for (size_t j = 0; j < n; j++)
                    dot += q[p * n + j] * q[i * n + j];
                for (size_t j = 0; j < n; j++)
                    q[i * n + j] -= dot * q[p * n + j];
            }
            double norm = 0;
            for (size_t j = 0; j < n; j++)
                norm += q[i * n + j] * q[i * n + j];
            norm = sqrt(norm);
            for (size_t j = 0; j < n; j++)
                q[i * n + j] /= norm;
        }
    }
    return q;
}

/* U diag(sigma) V^T rounded to fp32, k x n (k <= n), transposed when `tall`; sigma[i] for
 * i < rank, 0 beyond. */
static float *with_spectrum(size_t k, size_t n, const double *sigma, size_t rank, int tall)
{
    double *u = orthonormal_rows(k, k), *v = orthonormal_rows(k, n);
    float *g = malloc(k * n * sizeof *g);
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < n; j++) {
            double s = 0;
            for (size_t l = 0; l < rank; l++)
                s += u[l * k + i] * sigma[l] * v[l * n + j];
            g[tall ? j * k + i : i * n + j] = (float)s;
        }
    free(u), free(v);
    return g;
}

/* ---- the family ---- */

static json_t *hparams_json(const oc_ns_hparams *hp)
{
    json_t *coef = json_array();
    for (int t = 0; t < hp->ncoef; t++)
        json_array_append_new(coef, json_pack("[o,o,o]", hexfloat(hp->coef[t][0]),
                                              hexfloat(hp->coef[t][1]),
                                              hexfloat(hp->coef[t][2])));
    return json_pack("{s:o,s:i,s:s,s:s,s:o,s:o}", "coefficients", coef, "steps", hp->steps,
                     "schedule", hp->schedule == OC_NS_CYCLE ? "cycle" : "repeat_last",
                     "epsMode", hp->eps_mode == OC_NS_EPS_ADD ? "add" : "max", "eps",
                     hexfloat(hp->eps), "normScale", hexfloat(hp->norm_scale));
}

static json_t *strings(const char *const *s, size_t max)
{
    json_t *a = json_array();
    for (size_t i = 0; i < max && s[i]; i++)
        json_array_append_new(a, json_string(s[i]));
    return a;
}

/* The rules every valid case exercises, after the case's own. */
static const char *const profile_rules[OC_NS_PROFILE_COUNT] = {
    "NS-PROF-SIMPLE", "NS-PROF-QUINTIC", "NS-PROF-POLAR", "NS-PROF-POLAR-SAFETY", "NS-PROF-AOL",
    "NS-PROF-CANS",   "NS-PROF-DEEPSEEKV4", "NS-PROF-CUBIC5"};

static void emit(family *f, const oc_ns_hparams *hp, ns_case *c, mpfr_prec_t prec)
{
    size_t len = c->rows * c->cols, k = c->rows < c->cols ? c->rows : c->cols;
    size_t n = len / k;
    float *y32 = malloc(len * sizeof *y32);
    double *y64 = malloc(len * sizeof *y64), *sv0 = malloc(k * sizeof *sv0);
    double tol[NS_NCLASSES][2];
    int valid = c->result == NULL;
    json_t *rules = strings(c->rules, 6);
    if (valid) {
        json_array_append_new(rules, json_string(profile_rules[hp->profile]));
        json_array_append_new(rules, json_string("NS-STORE-1"));
        json_array_append_new(rules, json_string("NS-TOL-1"));
    }
    family_group(f, "NewtonSchulz", hparams_json(hp));
    int id = f->next_tcid;
    json_t *test = json_pack("{s:s,s:o,s:o,s:s,s:I,s:I}", "comment", c->comment, "flags",
                             strings(c->flags, 4), "specRules", rules, "result",
                             valid ? "valid" : c->result, "rows", (json_int_t)c->rows, "cols",
                             (json_int_t)c->cols);
    json_t *inputs = json_object(), *x = json_object();
    family_add_tensor(f, id, "g", "F32", c->rows, c->cols, c->g, inputs, "g");
    json_object_set_new(test, "inputs", inputs);
    if (valid) {
        ns_exact(hp, c->rows, c->cols, c->g, prec, y32, y64, sv0);
        ns_tolerances(hp, sv0, k, n, tol, NULL);
        family_add_tensor(f, id, "x.out", "F32", c->rows, c->cols, y32, x, "f32");
        family_add_tensor(f, id, "x.out.f64", "F64", c->rows, c->cols, y64, x, "f64");
        family_add_tensor(f, id, "x.tol", "F64", NS_NCLASSES, 2, tol, x, "tol");
        json_object_set_new(test, "expected", json_pack("{s:o}", "x", x));
    } else {
        json_decref(x);
    }
    family_test(f, test);
    free(y32), free(y64), free(sv0), free(c->g);
}

static void notes(family *f)
{
    static const char *const n[][4] = {
        {"Random", "BASIC", "uniform random entries", "general agreement"},
        {"Shape", "EDGE_CASE", "wide, tall, one-element and one-row inputs",
         "tall inputs are orthogonalised through their transpose (NS-SHAPE-1)"},
        {"Square", "KNOWN_MISTAKE", "square non-normal input",
         "the Gram matrix taken from the wrong side (X^T X) changes the result"},
        {"RankDeficient", "EDGE_CASE", "rank below min(rows, cols)",
         "zero singular values stay zero"},
        {"Orthogonal", "EDGE_CASE", "fp32 rounding of a matrix with orthonormal rows",
         "singular values 1: the set's fixed-point behaviour and the step count are visible"},
        {"Zero", "EDGE_CASE", "all-zero input", "must give exactly zero (0 / eps); without eps 0/0"},
        {"TinyNorm", "KNOWN_MISTAKE", "||G||_F about eps / 2",
         "eps omitted, or added instead of max (and the reverse), changes the scale of X0"},
        {"IllConditioned", "KNOWN_MISTAKE", "singular values spread over 2^-20 .. 2",
         "small singular values grow by the slope at 0 in every step: the step count and the "
         "order of the tuples are visible"},
        {"LargeEntries", "EDGE_CASE", "entries around 2^50 (their squares and sum stay in binary32 range)",
         "scale invariance of the normalisation"},
        {"Schedule", "KNOWN_MISTAKE", "more steps than tuples",
         "cycle and repeat-last schedules differ (NS-SCHED-1)"},
        {"Large", "BASIC", "the sizes of real hidden layers (64 x 256 and 256 x 64)",
         "agreement at realistic inner-product lengths"},
        {"LenientValidation", "INVALID_INPUT", "outside NS-IN-1 / NS-HP-1",
         "acceptable: the reference rejects it; propagating NaN or dividing by max(norm, 0) is "
         "reported, not failed"},
    };
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
        family_note(f, n[i][0], n[i][1], n[i][2], n[i][3], NULL);
}

static void cases(family *f, const oc_ns_hparams *hp, int cert, mpfr_prec_t prec)
{
    const oc_ns_hparams *profile_hp = hp;
    double sig[64];
    ns_case c;
#define EMIT(...) (c = (ns_case){__VA_ARGS__}, emit(f, hp, &c, prec))
#define VALID NULL
    EMIT("random square 8 x 8", {"Random", "Square"}, {"NS-ITER-1", "NS-NORM-1"}, 8, 8,
         uniform(64, 1), VALID);
    EMIT("random 2 x 2", {"Random", "Square"}, {"NS-ITER-1"}, 2, 2, uniform(4, 1), VALID);
    EMIT("random 3 x 5", {"Random", "Shape"}, {"NS-ITER-1"}, 3, 5, uniform(15, 1), VALID);
    EMIT("random wide 16 x 48", {"Random", "Shape"}, {"NS-SHAPE-1", "NS-ITER-1"}, 16, 48,
         uniform(16 * 48, 1), VALID);
    EMIT("random tall 48 x 16", {"Random", "Shape"}, {"NS-SHAPE-1", "NS-ITER-1"}, 48, 16,
         uniform(16 * 48, 1), VALID);
    for (size_t i = 0; i < 5; i++)
        sig[i] = 0.25 + rng_unit(&rng);
    EMIT("rank 5 of 24 x 32", {"RankDeficient"}, {"NS-ITER-1"}, 24, 32,
         with_spectrum(24, 32, sig, 5, 0), VALID);
    for (size_t i = 0; i < 16; i++)
        sig[i] = 1;
    EMIT("orthonormal rows 16 x 16 (rounded to fp32)", {"Orthogonal", "Square"}, {"NS-ITER-1"},
         16, 16, with_spectrum(16, 16, sig, 16, 0), VALID);
    EMIT("zero 4 x 6", {"Zero"}, {"NS-NORM-1", "NS-DOM-1"}, 4, 6, calloc(24, sizeof(float)), VALID);
    EMIT("one element", {"Shape"}, {"NS-SHAPE-1", "NS-NORM-1"}, 1, 1, uniform(1, 1), VALID);
    EMIT("one row 1 x 16", {"Shape"}, {"NS-SHAPE-1"}, 1, 16, uniform(16, 1), VALID);
    double sum = 0;
    for (size_t i = 0; i < 16; i++) {
        sig[i] = ldexp(1 + rng_unit(&rng), -(int)(12 * i / 15));
        sum += sig[i] * sig[i];
    }
    for (size_t i = 0; i < 16; i++)
        sig[i] *= hp->eps / 2 / sqrt(sum);
    EMIT("tiny norm 16 x 16, ||G|| ~ eps/2, singular values 2^-12 .. 2 relative", {"TinyNorm"},
         {"NS-NORM-1"}, 16, 16, with_spectrum(16, 16, sig, 16, 0), VALID);
    for (size_t i = 0; i < 32; i++)
        sig[i] = ldexp(1 + rng_unit(&rng), -(int)(20 * i / 31));
    EMIT("ill-conditioned 32 x 32, singular values 2^-20 .. 2", {"IllConditioned", "Square"},
         {"NS-ITER-1", "NS-SCHED-1"}, 32, 32, with_spectrum(32, 32, sig, 32, 0), VALID);
    for (size_t i = 0; i < 12; i++)
        sig[i] = ldexp(1 + rng_unit(&rng), -(int)(20 * i / 11));
    EMIT("ill-conditioned tall 40 x 12", {"IllConditioned", "Shape"}, {"NS-SHAPE-1", "NS-ITER-1"},
         40, 12, with_spectrum(12, 40, sig, 12, 1), VALID);
    EMIT("entries around 2^50, 12 x 20", {"LargeEntries"}, {"NS-NORM-1"}, 12, 20,
         uniform(240, 0x1p50), VALID);
    /* The hidden-layer sizes cost about 1 s each in MPFR: at the ci level only for Megatron's
     * default set. */
    if (cert || hp->profile == OC_NS_QUINTIC) {
        EMIT("random wide 64 x 256", {"Large", "Shape"}, {"NS-ITER-1"}, 64, 256,
             uniform(64 * 256, 1), VALID);
        EMIT("random tall 256 x 64", {"Large", "Shape"}, {"NS-SHAPE-1"}, 256, 64,
             uniform(64 * 256, 1), VALID);
    }
    if (cert) {
        EMIT("random wide 128 x 512", {"Large"}, {"NS-ITER-1"}, 128, 512, uniform(128 * 512, 1), VALID);
        EMIT("random square 128 x 128", {"Large", "Square"}, {"NS-ITER-1"}, 128, 128,
             uniform(128 * 128, 1), VALID);
    }
    /* NS-SCHED-1: more steps than tuples (a second group); not for cubic5, a fixed 5-step
     * schedule that diverges when cycled past its end (NS-PROF-CUBIC5, NS-DOM-1). */
    oc_ns_hparams more = *hp;
    if (hp->profile != OC_NS_CUBIC5) {
        more.steps = hp->schedule == OC_NS_CYCLE ? 2 * hp->ncoef + 1 : hp->ncoef + 2;
        hp = &more;
        EMIT("more steps than tuples, random 8 x 24", {"Schedule", "Random"}, {"NS-SCHED-1"}, 8,
             24, uniform(8 * 24, 1), VALID);
        for (size_t i = 0; i < 16; i++)
            sig[i] = ldexp(1 + rng_unit(&rng), -(int)(20 * i / 15));
        EMIT("more steps than tuples, ill-conditioned 16 x 16", {"Schedule", "IllConditioned"},
             {"NS-SCHED-1"}, 16, 16, with_spectrum(16, 16, sig, 16, 0), VALID);
    }
    /* NS-IN-1, NS-HP-1: outside the defined domain; the reference rejects, libraries differ. */
    float *nan_input = uniform(12, 1);
    nan_input[5] = NAN;
    EMIT("a NaN entry", {"LenientValidation"}, {"NS-IN-1", "NS-ERR-1"}, 3, 4, nan_input,
         "acceptable");
    oc_ns_hparams zero_eps = *hp;
    zero_eps.eps = 0;
    hp = &zero_eps;
    EMIT("eps = 0", {"LenientValidation"}, {"NS-HP-1", "NS-ERR-1"}, 3, 4, uniform(12, 1),
         "acceptable");
    /* NS-NORM-1, appended for the sets added after the first five (their committed tcIds are
     * left as they are): a second eps-visible input, ||G||_F ~ eps/4 with singular values
     * 2^-24 .. 1 relative, some still growing linearly at the last step, where add and max
     * modes (d = 1.25 eps against eps) differ by 20%. Needed where the tiny-norm case alone is
     * too close to convergence to show the mode (deepseekv4, cubic5). */
    if (profile_hp->profile >= OC_NS_CANS) {
        hp = profile_hp;
        sum = 0;
        for (size_t i = 0; i < 16; i++) {
            sig[i] = ldexp(1 + rng_unit(&rng), -(int)(24 * i / 15));
            sum += sig[i] * sig[i];
        }
        for (size_t i = 0; i < 16; i++)
            sig[i] *= hp->eps / 4 / sqrt(sum);
        EMIT("tiny norm 16 x 16, ||G|| ~ eps/4, singular values 2^-24 .. 2 relative",
             {"TinyNorm"}, {"NS-NORM-1"}, 16, 16, with_spectrum(16, 16, sig, 16, 0), VALID);
    }
    /* NS-DOM-1, appended for issue 19 item 3: cubic5's five tuples cycled past their end
     * (99 steps) drive the entries beyond 2^64; the reference ends with OC_ERR_NONFINITE. The input,
     * then its negation (the first entry out of range below -2^64 where it was above 2^64). */
    if (profile_hp->profile == OC_NS_CUBIC5) {
        family_note(f, "Diverging", "EDGE_CASE", "a schedule cycled past its published end",
                    "the entries leave [-2^64, 2^64]: an error, not infinities or NaN", NULL);
        oc_ns_hparams cycled = *profile_hp;
        cycled.steps = 99;
        hp = &cycled;
        float *g = uniform(64, 1), *neg = malloc(64 * sizeof *neg);
        for (size_t i = 0; i < 64; i++)
            neg[i] = -g[i]; /* the iteration is odd: the first entry out of range changes sign */
        EMIT("cubic5 cycled past its end (99 steps), random 8 x 8: diverges", {"Diverging"},
             {"NS-DOM-1", "NS-SCHED-1", "NS-ERR-1"}, 8, 8, g, "invalid");
        EMIT("the same input negated: diverges with the opposite signs", {"Diverging"},
             {"NS-DOM-1", "NS-SCHED-1", "NS-ERR-1"}, 8, 8, neg, "invalid");
    }
#undef EMIT
#undef VALID
}

static int gen_newton_schulz(const gen_options *opt, const char *outdir)
{
    static const char *const rules[] = {"NS-HP-1", "NS-IN-1", "NS-SHAPE-1", "NS-NORM-1",
                                        "NS-SCHED-1", "NS-ITER-1", "NS-DOM-1", "NS-STORE-1",
                                        "NS-TOL-1", NULL};
    int rc = 0;
    for (int pr = 0; pr < OC_NS_PROFILE_COUNT && rc == 0; pr++) {
        char name[64];
        oc_ns_hparams hp;
        memset(&hp, 0, sizeof hp);
        const char *pname = ns_profile_defaults((oc_ns_profile)pr, &hp);
        snprintf(name, sizeof name, "newton-schulz-%s", pname);
        rng.state = opt->seed * 1000039ull + (uint64_t)pr;
        family f;
        if (family_init(&f, name, "newton-schulz", pname, rules,
                        opt)) {
            rc = -1;
            break;
        }
        notes(&f);
        cases(&f, &hp, strcmp(opt->level, "cert") == 0, opt->prec);
        rc = family_save(&f, outdir);
        family_free(&f);
    }
    return rc;
}

/* Writes vectors/newton-schulz-<profile> (spec/muon.md, NS-*). */
const gen_family gen_family_newton_schulz = {.name = "newton-schulz",
                                             .generate = gen_newton_schulz};
