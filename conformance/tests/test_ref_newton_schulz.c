/* Unit tests of the Newton–Schulz reference (ref/newton_schulz.c) against closed forms of
 * spec/muon.md, and of the NS-TOL-1 classes against independent implementations in several
 * operand precisions run over the committed vectors. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cunit_main.h"
#include "algos.h"
#include "certify.h"
#include "optcert/muon.h"
#include "optcert/newton_schulz.h"

static const char *vector_dir(void) { return OPTCERT_SOURCE_DIR "/vectors"; }

static oc_status run_ref(const oc_ns_hparams *hp, size_t rows, size_t cols, const float *g,
                         float *out)
{
    size_t len = oc_ns_work_len(rows, cols);
    double *work = malloc((len ? len : 1) * sizeof *work);
    oc_status st = oc_ref_newton_schulz(hp, rows, cols, g, out, work, len);
    free(work);
    return st;
}

/* The scalar map of NS-ITER-1 on one singular value, `steps` times (NS-SCHED-1). */
static double sigma_map(const oc_ns_hparams *hp, double s)
{
    for (int i = 0; i < hp->steps; i++) {
        const double *abc = hp->coef[oc_ns_tuple_index(hp, i)];
        s = abc[0] * s + abc[1] * s * s * s + abc[2] * s * s * s * s * s;
    }
    return s;
}

static double divisor(const oc_ns_hparams *hp, double norm)
{
    double sn = hp->norm_scale * norm; /* NS-NORM-1 */
    return hp->eps_mode == OC_NS_EPS_ADD ? sn + hp->eps : fmax(sn, hp->eps);
}

/* NS-ITER-1, NS-NORM-1: a rank-1 input u v^T has one singular value ||G||_F; the output is
 * G / d * f(||G||_F / d) / (||G||_F / d) with f the scalar map. */
static void test_rank_one_closed_form(void)
{
    static const float u[3] = {1.0f, -2.0f, 0.5f}, v[4] = {0.25f, 1.0f, -1.0f, 3.0f};
    float g[12], out[12];
    for (int pr = 0; pr < OC_NS_PROFILE_COUNT; pr++) {
        oc_ns_hparams hp;
        CU_ASSERT_EQUAL_FATAL(oc_ns_profile_defaults((oc_ns_profile)pr, &hp), OC_OK);
        double norm2 = 0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++) {
                g[i * 4 + j] = u[i] * v[j]; /* exact in binary32 */
                norm2 += (double)g[i * 4 + j] * g[i * 4 + j];
            }
        double d = divisor(&hp, sqrt(norm2)), s0 = sqrt(norm2) / d;
        double factor = sigma_map(&hp, s0) / s0;
        CU_ASSERT_EQUAL_FATAL(run_ref(&hp, 3, 4, g, out), OC_OK);
        for (int i = 0; i < 12; i++)
            CU_ASSERT(fabs(out[i] - g[i] / d * factor) <= 1e-6 * fabs(g[i] / d * factor) + 1e-30);
        /* NS-SHAPE-1: the tall transpose gives the transposed result, bit for bit. */
        float gt[12], outt[12];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++)
                gt[j * 3 + i] = g[i * 4 + j];
        CU_ASSERT_EQUAL_FATAL(run_ref(&hp, 4, 3, gt, outt), OC_OK);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++)
                CU_ASSERT_EQUAL(outt[j * 3 + i], out[i * 4 + j]);
    }
}

/* NS-ITER-1: a scaled permutation matrix has every singular value ||G||_F / sqrt(k). */
static void test_orthogonal_closed_form(void)
{
    float g[16] = {0}, out[16];
    static const int perm[4] = {2, 0, 3, 1};
    for (int i = 0; i < 4; i++)
        g[i * 4 + perm[i]] = -3.0f;
    for (int pr = 0; pr < OC_NS_PROFILE_COUNT; pr++) {
        oc_ns_hparams hp;
        oc_ns_profile_defaults((oc_ns_profile)pr, &hp);
        double d = divisor(&hp, 6.0), s0 = 3.0 / d;
        double y = -sigma_map(&hp, s0); /* the sign of the entry */
        CU_ASSERT_EQUAL_FATAL(run_ref(&hp, 4, 4, g, out), OC_OK);
        for (int i = 0; i < 16; i++)
            CU_ASSERT(fabs(out[i] - (g[i] != 0 ? y : 0.0)) <= 1e-6 * fabs(y));
    }
}

/* NS-NORM-1, NS-DOM-1: a zero input gives exactly zero; one element keeps its sign. */
static void test_zero_and_one_element(void)
{
    oc_ns_hparams hp;
    oc_ns_profile_defaults(OC_NS_QUINTIC, &hp);
    float zero[6] = {0}, out[6];
    memset(out, 0x7f, sizeof out);
    CU_ASSERT_EQUAL_FATAL(run_ref(&hp, 2, 3, zero, out), OC_OK);
    for (int i = 0; i < 6; i++)
        CU_ASSERT(out[i] == 0.0f);
    float one = -5.0f, y;
    CU_ASSERT_EQUAL_FATAL(run_ref(&hp, 1, 1, &one, &y), OC_OK);
    /* NS-STORE-1: one rounding of the binary64 result (half an ulp, plus the binary64 noise). */
    double want = -sigma_map(&hp, 5.0 / divisor(&hp, 5.0));
    double ulp = nextafterf((float)fabs(want), INFINITY) - (float)fabs(want);
    CU_ASSERT(fabs(y - want) <= 0.5 * ulp * (1 + 0x1p-20));
}

/* VEC-FMT-12: the committed families load; shapes and tolerance tables are well formed, and
 * the classes are ordered exact <= fp32 <= tf32 <= bf16. */
static void test_vector_format(void)
{
    static const char *const fams[] = {"newton-schulz-simple", "newton-schulz-quintic",
                                       "newton-schulz-polar-express",
                                       "newton-schulz-polar-express-safety", "newton-schulz-aol",
                                       "newton-schulz-cans", "newton-schulz-deepseekv4",
                                       "newton-schulz-cubic5"};
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        char path[1024];
        oc_family fam;
        oc_diag d;
        snprintf(path, sizeof path, "%s/%s/%s.json", vector_dir(), fams[f], fams[f]);
        CU_ASSERT_EQUAL_FATAL(oc_family_load(path, &fam, &d), OC_OK);
        CU_ASSERT(fam.ncases >= 16);
        for (size_t i = 0; i < fam.ncases; i++) {
            const oc_case *c = &fam.cases[i];
            CU_ASSERT(c->steps >= 1 && c->n >= 1 && c->in[0] != NULL);
            if (c->result != OC_RESULT_VALID)
                continue;
            const double *tol = c->exp[0].tol;
            for (int k = 1; k < 4; k++)
                CU_ASSERT(tol[2 * k] >= tol[2 * k - 2] && tol[2 * k + 1] >= tol[2 * k - 1]);
        }
        oc_family_free(&fam);
    }
}

/* NS-SCHED-1 */
static void test_schedule_index(void)
{
    oc_ns_hparams hp;
    oc_ns_profile_defaults(OC_NS_QUINTIC, &hp);
    CU_ASSERT_EQUAL(oc_ns_tuple_index(&hp, 4), 4);
    CU_ASSERT_EQUAL(oc_ns_tuple_index(&hp, 5), 0);
    CU_ASSERT_EQUAL(oc_ns_tuple_index(&hp, 12), 2);
    hp.schedule = OC_NS_REPEAT_LAST;
    CU_ASSERT_EQUAL(oc_ns_tuple_index(&hp, 3), 3);
    CU_ASSERT_EQUAL(oc_ns_tuple_index(&hp, 12), 4);
}

/* NS-PROF-SIMPLE, NS-PROF-QUINTIC, NS-PROF-POLAR, NS-PROF-POLAR-SAFETY, NS-PROF-AOL,
 * NS-PROF-CANS, NS-PROF-DEEPSEEKV4, NS-PROF-CUBIC5: the published decimals rounded to binary32,
 * with each profile's schedule and normalisation. */
static void test_profiles(void)
{
    static const struct {
        oc_ns_profile pr;
        const char *name;
        int n, steps;
        double first_a, last_c;
        oc_ns_schedule sched;
        oc_ns_eps_mode mode;
        double s;
    } want[] = {
        {OC_NS_SIMPLE, "simple", 1, 5, 3.4445, 2.0315, OC_NS_CYCLE, OC_NS_EPS_ADD, 1.0},
        {OC_NS_QUINTIC, "quintic", 5, 5, 4.0848, 1.2012, OC_NS_CYCLE, OC_NS_EPS_MAX, 1.0},
        {OC_NS_POLAR_EXPRESS, "polar-express", 8, 8, 8.2051, 0.3750, OC_NS_REPEAT_LAST,
         OC_NS_EPS_MAX, 1.0},
        {OC_NS_POLAR_EXPRESS_SAFETY, "polar-express-safety", 8, 8, 8.2051, 0.3750,
         OC_NS_REPEAT_LAST, OC_NS_EPS_ADD, 1.01},
        {OC_NS_AOL, "aol", 4, 4, 4.0098, 1.3169, OC_NS_CYCLE, OC_NS_EPS_MAX, 1.0},
        {OC_NS_CANS, "cans", 5, 5, 8.4703, 0.4162, OC_NS_REPEAT_LAST, OC_NS_EPS_MAX, 1.0},
        {OC_NS_DEEPSEEKV4, "deepseekv4", 10, 10, 3.4445, 0.5, OC_NS_REPEAT_LAST, OC_NS_EPS_MAX,
         1.0},
        {OC_NS_CUBIC5, "cubic5", 5, 5, 3.3656576, 0.0, OC_NS_CYCLE, OC_NS_EPS_MAX, 1.0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        oc_ns_hparams hp;
        oc_ns_profile parsed;
        CU_ASSERT_EQUAL(oc_ns_profile_parse(want[i].name, &parsed), OC_OK);
        CU_ASSERT_EQUAL(parsed, want[i].pr);
        CU_ASSERT_STRING_EQUAL(oc_ns_profile_name(want[i].pr), want[i].name);
        oc_ns_profile_defaults(want[i].pr, &hp);
        CU_ASSERT_EQUAL(hp.ncoef, want[i].n);
        CU_ASSERT_EQUAL(hp.steps, want[i].steps);
        CU_ASSERT_EQUAL(hp.coef[0][0], (double)(float)want[i].first_a);
        CU_ASSERT_EQUAL(hp.coef[hp.ncoef - 1][2], (double)(float)want[i].last_c);
        CU_ASSERT_EQUAL(hp.schedule, want[i].sched);
        CU_ASSERT_EQUAL(hp.eps_mode, want[i].mode);
        CU_ASSERT_EQUAL(hp.norm_scale, (double)(float)want[i].s);
        CU_ASSERT_EQUAL(hp.eps, (double)1e-7f);
        CU_ASSERT_EQUAL(oc_ns_check(&hp, 3, 4), OC_OK);
    }
    oc_ns_profile p;
    CU_ASSERT_EQUAL(oc_ns_profile_parse("polar_express", &p), OC_ERR_BAD_PROFILE);
    /* a value outside the enum has no name and no defaults (NS-PROF-*); hp is left as it was */
    oc_ns_hparams hp = {.steps = 7};
    CU_ASSERT_PTR_NULL(oc_ns_profile_name(OC_NS_PROFILE_COUNT));
    CU_ASSERT_EQUAL(oc_ns_profile_defaults(OC_NS_PROFILE_COUNT, &hp), OC_ERR_BAD_PROFILE);
    CU_ASSERT_EQUAL(hp.steps, 7);
}

/* NS-ERR-1, NS-HP-1, NS-IN-1, NS-DOM-1: rejected with a status, output untouched. */
static void test_rejects(void)
{
    float g[12], out[12], sentinel[12];
    for (int i = 0; i < 12; i++) {
        g[i] = (float)(i % 5) - 2.0f;
        sentinel[i] = out[i] = 42.0f;
    }
    double work[256];
    oc_ns_hparams good, hp;
    oc_ns_profile_defaults(OC_NS_SIMPLE, &good);
#define REJECTS(expr, rows, cols, gg, status)                                                 \
    do {                                                                                      \
        hp = good;                                                                            \
        expr;                                                                                 \
        CU_ASSERT_EQUAL(oc_ref_newton_schulz(&hp, rows, cols, gg, out, work, 256), status);   \
        CU_ASSERT(memcmp(out, sentinel, sizeof out) == 0);                                    \
    } while (0)
    REJECTS((void)0, 0, 4, g, OC_ERR_BAD_SHAPE);
    REJECTS((void)0, 3, 0, g, OC_ERR_BAD_SHAPE);
    REJECTS((void)0, (size_t)1 << 13, (size_t)1 << 12, g, OC_ERR_BAD_SHAPE);
    REJECTS(hp.steps = 0, 3, 4, g, OC_ERR_BAD_HPARAM);
    REJECTS(hp.steps = 100, 3, 4, g, OC_ERR_BAD_HPARAM);
    REJECTS(hp.ncoef = 0, 3, 4, g, OC_ERR_BAD_HPARAM);
    REJECTS(hp.eps = 0, 3, 4, g, OC_ERR_BAD_HPARAM);
    REJECTS(hp.eps = NAN, 3, 4, g, OC_ERR_BAD_HPARAM);
    REJECTS(hp.norm_scale = 0.5, 3, 4, g, OC_ERR_BAD_HPARAM);
    REJECTS(hp.coef[0][1] = NAN, 3, 4, g, OC_ERR_BAD_HPARAM);
    REJECTS(hp.coef[0][2] = 200, 3, 4, g, OC_ERR_BAD_HPARAM);
    REJECTS(hp.profile = OC_NS_PROFILE_COUNT, 3, 4, g, OC_ERR_BAD_PROFILE);
    REJECTS((void)0, 3, 4, NULL, OC_ERR_NULL_POINTER);
    float bad[12];
    memcpy(bad, g, sizeof bad);
    bad[7] = INFINITY;
    REJECTS((void)0, 3, 4, bad, OC_ERR_NONFINITE);
    /* NS-DOM-1: a diverging schedule stops with an error instead of reaching infinity. */
    REJECTS((hp.coef[0][0] = 100, hp.coef[0][1] = 100, hp.coef[0][2] = 100, hp.steps = 30), 3,
            4, g, OC_ERR_NONFINITE);
#undef REJECTS
    hp = good;
    CU_ASSERT_EQUAL(oc_ref_newton_schulz(&hp, 3, 4, g, out, work, oc_ns_work_len(3, 4) - 1),
                    OC_ERR_BAD_SHAPE);
    CU_ASSERT_EQUAL(oc_ref_newton_schulz(&hp, 3, 4, g, (float *)g, work, 256),
                    OC_ERR_ALIASING);
    /* the API's pointer and alignment guards (NS-ERR-1): the harness never passes such
     * buffers (VEC-PLUG-2) */
    _Alignas(16) unsigned char raw[sizeof g + 1] = {0};
    const float *misaligned = (const float *)(const void *)(raw + 1);
    CU_ASSERT_EQUAL(oc_ref_newton_schulz(NULL, 3, 4, g, out, work, 256), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_newton_schulz(&hp, 3, 4, misaligned, out, work, 256),
                    OC_ERR_MISALIGNED);
    CU_ASSERT_EQUAL(oc_ref_newton_schulz(&hp, 3, 4, g, NULL, work, 256), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_newton_schulz(&hp, 3, 4, g, out, NULL, 256), OC_ERR_NULL_POINTER);
    CU_ASSERT(memcmp(out, sentinel, sizeof out) == 0);
}

/* ---- NS-TOL-1: independent implementations in lower operand precisions ---- */

typedef struct emul {
    int operand_bits; /* significand bits of matmul operands: 24 (fp32), 11 (tf32), 8 (bf16) */
    int store_bits;   /* significand bits of stored intermediates and the output */
    int right_gram;   /* tall inputs kept tall: A = X^T X, X <- a X + X B (modded-nanogpt) */
    int grouping;     /* X <- a X + b (A X) + c (A (A X)) */
} emul;

/* Rounds a binary32 value to `bits` significand bits, to nearest even. */
static float round_bits(float x, int bits)
{
    if (bits >= 24 || !isfinite(x))
        return x;
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    int sh = 24 - bits;
    u += ((1u << (sh - 1)) - 1) + ((u >> sh) & 1);
    u &= ~((1u << sh) - 1);
    memcpy(&x, &u, sizeof x);
    return x;
}

/* C (r x c) = P (r x m) Q (m x c), operands rounded, binary32 accumulation, result stored. */
static void matmul(const emul *e, const float *p, const float *q, size_t r, size_t m, size_t c,
                   float *out)
{
    for (size_t i = 0; i < r; i++)
        for (size_t j = 0; j < c; j++) {
            float s = 0;
            for (size_t l = 0; l < m; l++)
                s += round_bits(p[i * m + l], e->operand_bits) *
                     round_bits(q[l * c + j], e->operand_bits);
            out[i * c + j] = round_bits(s, e->store_bits);
        }
}

static void transpose(const float *x, size_t r, size_t c, float *t)
{
    for (size_t i = 0; i < r; i++)
        for (size_t j = 0; j < c; j++)
            t[j * r + i] = x[i * c + j];
}

/* NS-DOM-1: an entry beyond 2^64 in magnitude, or NaN, ends the iteration. */
static int beyond_domain(const float *x, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!(fabsf(x[i]) <= 0x1p64f))
            return 1;
    return 0;
}

static oc_status emul_ns(void *ctx, const oc_ns_hparams *hp, size_t rows, size_t cols,
                         const float *g, float *out)
{
    const emul *e = ctx;
    if (oc_ns_check(hp, rows, cols) != OC_OK)
        return OC_ERR_BAD_HPARAM;
    size_t len = rows * cols;
    for (size_t i = 0; i < len; i++)
        if (!isfinite(g[i]))
            return OC_ERR_NONFINITE;
    int tall = rows > cols, keep = tall && e->right_gram;
    size_t r = tall && !keep ? cols : rows, c = len / r, k = r < c ? r : c;
    float *x = malloc(len * sizeof *x), *t = malloc(len * sizeof *t), *u = malloc(len * sizeof *u);
    float *a = malloc(k * k * sizeof *a), *b = malloc(k * k * sizeof *b);
    float *xt = malloc(len * sizeof *xt);
    if (tall && !keep)
        transpose(g, rows, cols, x);
    else
        memcpy(x, g, len * sizeof *x);
    float norm2 = 0;
    for (size_t i = 0; i < len; i++)
        norm2 += x[i] * x[i];
    float n = sqrtf(norm2) * (float)hp->norm_scale;
    float d = hp->eps_mode == OC_NS_EPS_ADD ? n + (float)hp->eps : fmaxf(n, (float)hp->eps);
    for (size_t i = 0; i < len; i++)
        x[i] = round_bits(x[i] / d, e->store_bits);
    for (int it = 0; it < hp->steps; it++) {
        const double *abc = hp->coef[oc_ns_tuple_index(hp, it)];
        float ca = (float)abc[0], cb = (float)abc[1], cc = (float)abc[2];
        transpose(x, r, c, xt);
        if (keep)
            matmul(e, xt, x, k, r, k, a); /* A = X^T X (k = cols) */
        else
            matmul(e, x, xt, k, c, k, a); /* A = X X^T */
        if (e->grouping && !keep) {       /* a X + b (A X) + c (A (A X)) */
            matmul(e, a, x, k, k, c, t);
            matmul(e, a, t, k, k, c, u);
            for (size_t i = 0; i < len; i++)
                x[i] = round_bits(ca * x[i] + (cb * t[i] + cc * u[i]), e->store_bits);
            if (beyond_domain(x, len))
                break;
            continue;
        }
        matmul(e, a, a, k, k, k, b);
        for (size_t i = 0; i < k * k; i++)
            b[i] = round_bits(cb * a[i] + cc * b[i], e->store_bits);
        if (keep)
            matmul(e, x, b, r, k, c, t); /* X B */
        else
            matmul(e, b, x, k, k, c, t); /* B X */
        for (size_t i = 0; i < len; i++)
            x[i] = round_bits(ca * x[i] + t[i], e->store_bits);
        if (beyond_domain(x, len))
            break;
    }
    const int diverged = beyond_domain(x, len); /* NS-DOM-1: nothing written */
    if (!diverged && tall && !keep)
        transpose(x, r, c, out);
    else if (!diverged)
        memcpy(out, x, len * sizeof *out);
    free(x), free(t), free(u), free(a), free(b), free(xt);
    return diverged ? OC_ERR_NONFINITE : OC_OK;
}

static const oc_impl_v3 *emul_impl(test_table *b, emul *e, const char *name)
{
    return test_algorithm_table(b, name, e, "newton-schulz", NULL, (oc_entry_point)emul_ns);
}

/* Certifies impl over the ns families under cls; returns the number of failed cases and the
 * worst error/bound ratio. */
static size_t ns_failures(const oc_impl_v3 *impl, oc_class cls, double *worst, size_t *passed)
{
    return test_failures(impl, vector_dir(), "newton-schulz", cls, worst, passed);
}

/* Certifies impl over the ns families under cls once: the failed and passed cases of all of
 * them, and per profile (family newton-schulz-PROFILE, which must be there) its failures and
 * worst ratio. */
static size_t profile_failures(const oc_impl_v3 *impl, oc_class cls, size_t *passed,
                               size_t fails[OC_NS_PROFILE_COUNT],
                               double worst[OC_NS_PROFILE_COUNT])
{
    oc_certificate cert;
    oc_diag d;
    size_t all = 0;
    *passed = 0;
    CU_ASSERT_EQUAL_FATAL(oc_certify(impl, vector_dir(), NULL, cls, &cert, &d), OC_OK);
    for (size_t i = 0; i < cert.nfams; i++)
        if (strcmp(cert.fams[i].algorithm, "newton-schulz") == 0) {
            all += cert.fams[i].counts[OC_FAIL];
            *passed += cert.fams[i].counts[OC_PASS];
        }
    for (int pr = 0; pr < OC_NS_PROFILE_COUNT; pr++) {
        char name[64];
        size_t found = 0;
        snprintf(name, sizeof name, "newton-schulz-%s", oc_ns_profile_name((oc_ns_profile)pr));
        for (size_t i = 0; i < cert.nfams; i++)
            if (strcmp(cert.fams[i].name, name) == 0) {
                fails[pr] = cert.fams[i].counts[OC_FAIL];
                worst[pr] = cert.fams[i].worst_ratio;
                found++;
            }
        CU_ASSERT_EQUAL_FATAL(found, 1);
    }
    oc_certificate_free(&cert);
    return all;
}

/* NS-TOL-1: each class accepts an implementation of its operand precision (and the equivalent
 * forms of NS-SHAPE-1 and NS-ITER-1 in fp32) on every committed case; the fp32 class rejects
 * the bf16 implementation, the exact class the fp32 one (the classes are distinct). Except
 * NS-PROF-CANS in bf16: its first tuple maps sigma = 1 to 1.9915, where a bf16 rounding is
 * amplified past 2 and the iteration diverges; newton-schulz-cans is checked for exactly that (a
 * failure far outside the bound) and left out of the bf16 acceptance and of the 0.25
 * calibration. */
static void test_classes_accept_their_precision(void)
{
    static const struct {
        emul e;
        const char *name;
        oc_class pass, fail;
    } impls[] = {
        {{24, 24, 0, 0}, "fp32", OC_CLASS_FP32, OC_CLASS_EXACT},
        {{24, 24, 1, 0}, "fp32 right Gram", OC_CLASS_FP32, OC_CLASS_EXACT},
        {{24, 24, 0, 1}, "fp32 grouping", OC_CLASS_FP32, OC_CLASS_EXACT},
        {{11, 24, 0, 0}, "tf32", OC_CLASS_TF32, OC_CLASS_FP32},
        {{8, 8, 0, 0}, "bf16", OC_CLASS_BF16, OC_CLASS_FP32},
        {{8, 8, 1, 1}, "bf16 right Gram grouping", OC_CLASS_BF16, OC_CLASS_FP32},
    };
    for (size_t i = 0; i < sizeof impls / sizeof impls[0]; i++) {
        emul e = impls[i].e;
        test_table b;
        const oc_impl_v3 *impl = emul_impl(&b, &e, impls[i].name);
        double worst, family_worst[OC_NS_PROFILE_COUNT];
        size_t passed, family_fails[OC_NS_PROFILE_COUNT];
        size_t fails = profile_failures(impl, impls[i].pass, &passed, family_fails, family_worst);
        if (impls[i].pass == OC_CLASS_BF16) {
            /* diverged, not a rounding beyond the bound */
            CU_ASSERT(family_fails[OC_NS_CANS] > 0 && family_worst[OC_NS_CANS] > 4);
            fails -= family_fails[OC_NS_CANS];
        }
        worst = 0;
        for (int pr = 0; pr < OC_NS_PROFILE_COUNT; pr++)
            if (pr != OC_NS_CANS) /* cans: up to 0.31 of the bound (fp32 grouping), spec/muon.md */
                worst = fmax(worst, family_worst[pr]);
        CU_ASSERT_EQUAL(fails, 0);
        CU_ASSERT(passed >= 80);
        CU_ASSERT(worst < 0.25); /* spec/muon.md §4: measured below 0.13 on random inputs */
        if (fails || worst >= 0.25)
            fprintf(stderr, "%s under %s: %zu failures, worst %.3g\n", impls[i].name,
                    oc_class_name(impls[i].pass), fails, worst);
        CU_ASSERT(ns_failures(impl, impls[i].fail, &worst, &passed) > 0);
    }
}

/* ---- The Muon step (MUON-*) ---- */

static oc_status run_muon(const oc_muon_hparams *hp, size_t rows, size_t cols, float *p, float *m,
                          const float *g)
{
    size_t len = oc_muon_work_len(rows, cols);
    double *work = malloc((len ? len : 1) * sizeof *work);
    float *scratch = malloc((3 * rows * cols + 1) * sizeof *scratch);
    oc_status st = oc_ref_muon_step(hp, rows, cols, p, m, g, work, len, scratch);
    free(work);
    free(scratch);
    return st;
}

/* MUON-MOM-1, MUON-NEST-1, MUON-NS-1, MUON-SCALE-1, MUON-WD-1, MUON-UPD-1, MUON-STORE-1: a
 * rank-one gradient from a zero buffer has a rank-one direction, whose orthogonalisation has the
 * closed form of NS-ITER-1. */
static void test_muon_rank_one(void)
{
    static const float u[3] = {1.0f, -0.5f, 0.25f}, v[4] = {0.5f, 1.0f, -1.0f, 2.0f};
    for (int pr = 0; pr < OC_MUON_PROFILE_COUNT; pr++) {
        oc_muon_hparams hp;
        CU_ASSERT_EQUAL_FATAL(oc_muon_profile_defaults((oc_muon_profile)pr, &hp), OC_OK);
        hp.weight_decay = 0.5;
        float p[12], m[12] = {0}, g[12];
        double mu = hp.momentum, w = hp.form == OC_MUON_SGD ? 1.0 : 1.0 - mu, dn2 = 0;
        double dir[12], mnew[12];
        for (int i = 0; i < 12; i++) {
            g[i] = 0.01f * u[i / 4] * v[i % 4];
            p[i] = 1.0f - 0.125f * i;
            mnew[i] = (float)(w * g[i]);
            dir[i] = hp.nesterov ? (float)(w * g[i] + mu * mnew[i]) : mnew[i];
            dn2 += dir[i] * dir[i];
        }
        double d = divisor(&hp.ns, sqrt(dn2)), s0 = sqrt(dn2) / d;
        double factor = sigma_map(&hp.ns, s0) / s0 / d;
        double step = hp.lr * oc_muon_scale_factor(&hp, 3, 4);
        float p0[12];
        memcpy(p0, p, sizeof p);
        CU_ASSERT_EQUAL_FATAL(run_muon(&hp, 3, 4, p, m, g), OC_OK);
        for (int i = 0; i < 12; i++) {
            double want = p0[i] * (1 - hp.lr * hp.weight_decay) - step * dir[i] * factor;
            CU_ASSERT(fabs(p[i] - want) <= 1e-6 * fabs(want) + 1e-9);
            CU_ASSERT_EQUAL(m[i], (float)mnew[i]);
        }
    }
}

/* MUON-SCALE-1, MUON-PROF-KELLER, MUON-PROF-MOONLIGHT, MUON-PROF-MEGATRON */
static void test_muon_profiles_and_scales(void)
{
    static const struct {
        oc_muon_profile pr;
        const char *name;
        oc_muon_momentum form;
        int nesterov;
        oc_muon_scale scale;
        double extra;
        oc_ns_profile ns;
    } want[] = {
        {OC_MUON_KELLER, "keller", OC_MUON_EMA, 1, OC_MUON_SHAPE_SCALING, 1.0, OC_NS_SIMPLE},
        {OC_MUON_MOONLIGHT, "moonlight", OC_MUON_SGD, 1, OC_MUON_SPECTRAL, 0.2, OC_NS_SIMPLE},
        {OC_MUON_MEGATRON, "megatron", OC_MUON_EMA, 0, OC_MUON_SPECTRAL, 1.0, OC_NS_QUINTIC},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        oc_muon_hparams hp;
        oc_muon_profile parsed;
        CU_ASSERT_EQUAL(oc_muon_profile_parse(want[i].name, &parsed), OC_OK);
        CU_ASSERT_EQUAL(parsed, want[i].pr);
        oc_muon_profile_defaults(want[i].pr, &hp);
        CU_ASSERT_EQUAL(hp.form, want[i].form);
        CU_ASSERT_EQUAL(hp.nesterov, want[i].nesterov);
        CU_ASSERT_EQUAL(hp.scale, want[i].scale);
        CU_ASSERT_EQUAL(hp.extra_scale, (double)(float)want[i].extra);
        CU_ASSERT_EQUAL(hp.ns.profile, want[i].ns);
        CU_ASSERT_EQUAL(hp.momentum, (double)0.95f);
    }
    oc_muon_hparams hp = {.momentum = 0.5};
    oc_muon_profile parsed;
    /* names a certificate prints, none (and no defaults) for a value outside the enum */
    CU_ASSERT_STRING_EQUAL(oc_muon_profile_name(OC_MUON_MOONLIGHT), "moonlight");
    CU_ASSERT_PTR_NULL(oc_muon_profile_name(OC_MUON_PROFILE_COUNT));
    CU_ASSERT_EQUAL(oc_muon_profile_parse("Keller", &parsed), OC_ERR_BAD_PROFILE);
    CU_ASSERT_EQUAL(oc_muon_profile_defaults(OC_MUON_PROFILE_COUNT, &hp), OC_ERR_BAD_PROFILE);
    CU_ASSERT_EQUAL(hp.momentum, 0.5);
    oc_muon_profile_defaults(OC_MUON_KELLER, &hp);
    CU_ASSERT_DOUBLE_EQUAL(oc_muon_scale_factor(&hp, 16, 6), sqrt(16.0 / 6.0), 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(oc_muon_scale_factor(&hp, 6, 16), 1.0, 1e-15);
    hp.scale = OC_MUON_SPECTRAL;
    CU_ASSERT_DOUBLE_EQUAL(oc_muon_scale_factor(&hp, 6, 16), 4.0, 1e-15);
    hp.scale = OC_MUON_UNIT_RMS_NORM;
    CU_ASSERT_DOUBLE_EQUAL(oc_muon_scale_factor(&hp, 6, 16), sqrt(6.0 / 16.0), 1e-15);
    oc_muon_profile_defaults(OC_MUON_MOONLIGHT, &hp);
    CU_ASSERT_DOUBLE_EQUAL(oc_muon_scale_factor(&hp, 6, 16), 0.2 * 4.0, 1e-7);
}

/* MUON-ERR-1, MUON-HP-1: rejected with p and m unchanged. */
static void test_muon_rejects(void)
{
    float p[12], m[12], g[12], p0[12], m0[12];
    for (int i = 0; i < 12; i++) {
        p0[i] = p[i] = 1.0f + (float)i;
        m0[i] = m[i] = 0.5f;
        g[i] = 0.25f * (float)(i % 3);
    }
    oc_muon_hparams good, hp;
    oc_muon_profile_defaults(OC_MUON_KELLER, &good);
    double work[512];
    float scratch[36];
#define MUON_REJECTS(expr, gg, status)                                                        \
    do {                                                                                      \
        hp = good;                                                                            \
        expr;                                                                                 \
        CU_ASSERT_EQUAL(oc_ref_muon_step(&hp, 3, 4, p, m, gg, work, 512, scratch), status);   \
        CU_ASSERT(memcmp(p, p0, sizeof p) == 0 && memcmp(m, m0, sizeof m) == 0);              \
    } while (0)
    MUON_REJECTS(hp.momentum = 1.0, g, OC_ERR_BAD_HPARAM);
    MUON_REJECTS(hp.lr = NAN, g, OC_ERR_BAD_HPARAM);
    MUON_REJECTS(hp.weight_decay = -1, g, OC_ERR_BAD_HPARAM);
    MUON_REJECTS(hp.extra_scale = 0, g, OC_ERR_BAD_HPARAM);
    MUON_REJECTS(hp.ns.steps = 0, g, OC_ERR_BAD_HPARAM);
    MUON_REJECTS((void)0, p, OC_ERR_ALIASING);
    float bad[12];
    memcpy(bad, g, sizeof bad);
    bad[3] = NAN;
    MUON_REJECTS((void)0, bad, OC_ERR_NONFINITE);
#undef MUON_REJECTS
    CU_ASSERT_EQUAL(oc_ref_muon_step(&good, 3, 4, p, m, g, work, oc_muon_work_len(3, 4) - 1,
                                     scratch),
                    OC_ERR_BAD_SHAPE);
    /* the API's buffer guards (MUON-ERR-1): the harness never passes such buffers (VEC-PLUG-2) */
    CU_ASSERT_EQUAL(oc_ref_muon_step(&good, 3, 4, NULL, m, g, work, 512, scratch),
                    OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_muon_step(&good, 3, 4, p, NULL, g, work, 512, scratch),
                    OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_muon_step(&good, 3, 4, p, m, NULL, work, 512, scratch),
                    OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_muon_step(&good, 3, 4, p, m, g, NULL, 512, scratch),
                    OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_muon_step(&good, 3, 4, p, m, g, work, 512, NULL),
                    OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_muon_step(&good, 3, 4, p, p, g, work, 512, scratch), OC_ERR_ALIASING);
    CU_ASSERT_EQUAL(oc_ref_muon_step(&good, 3, 4, p, m, m, work, 512, scratch), OC_ERR_ALIASING);
    CU_ASSERT_EQUAL(oc_muon_hparams_check(NULL), OC_ERR_NULL_POINTER);
    CU_ASSERT(memcmp(p, p0, sizeof p) == 0 && memcmp(m, m0, sizeof m) == 0);
}

/* MUON-TOL-1: a binary32 Muon step around the fp32 / bf16 Newton-Schulz emulations passes its
 * class on every committed muon case, and the bf16 one fails the fp32 class. */
static emul muon_emul;

static oc_status emul_muon(void *ctx, const oc_muon_hparams *hp, size_t rows, size_t cols,
                           float *p, float *m, const float *g)
{
    (void)ctx;
    size_t n = rows * cols;
    if (!(hp->momentum >= 0 && hp->momentum < 1))
        return OC_ERR_BAD_HPARAM;
    float mu = (float)hp->momentum, w = hp->form == OC_MUON_SGD ? 1.0f : 1.0f - mu;
    float *d = calloc(n + 1, sizeof *d), *o = malloc((n + 1) * sizeof *o);
    for (size_t i = 0; i < n; i++) {
        m[i] = mu * m[i] + w * g[i];
        d[i] = hp->nesterov ? w * g[i] + mu * m[i] : m[i];
    }
    oc_status st = emul_ns(&muon_emul, &hp->ns, rows, cols, d, o);
    float step = (float)(hp->lr * oc_muon_scale_factor(hp, rows, cols));
    float keep = 1.0f - (float)hp->lr * (float)hp->weight_decay;
    for (size_t i = 0; i < n && st == OC_OK; i++)
        p[i] = p[i] * keep - step * o[i];
    free(d), free(o);
    return st;
}

static void test_muon_classes(void)
{
    static const struct {
        emul e;
        oc_class pass;
    } impls[] = {{{24, 24, 0, 0}, OC_CLASS_FP32}, {{8, 8, 0, 0}, OC_CLASS_BF16}};
    for (size_t i = 0; i < 2; i++) {
        muon_emul = impls[i].e;
        test_table impl;
        test_algorithm_table(&impl, "emulated muon", NULL, "muon", NULL,
                             (oc_entry_point)emul_muon);
        oc_certificate cert;
        oc_diag d;
        size_t passed = 0, failed = 0, failed_fp32 = 0;
        CU_ASSERT_EQUAL_FATAL(oc_certify(&impl.t, vector_dir(), NULL, impls[i].pass, &cert, &d),
                              OC_OK);
        for (size_t f = 0; f < cert.nfams; f++)
            if (strcmp(cert.fams[f].algorithm, "muon") == 0) {
                passed += cert.fams[f].counts[OC_PASS];
                failed += cert.fams[f].counts[OC_FAIL];
            }
        oc_certificate_free(&cert);
        CU_ASSERT_EQUAL_FATAL(oc_certify(&impl.t, vector_dir(), NULL, OC_CLASS_FP32, &cert, &d),
                              OC_OK);
        for (size_t f = 0; f < cert.nfams; f++)
            if (strcmp(cert.fams[f].algorithm, "muon") == 0)
                failed_fp32 += cert.fams[f].counts[OC_FAIL];
        oc_certificate_free(&cert);
        CU_ASSERT_EQUAL(failed, 0);
        CU_ASSERT(passed >= 24);
        CU_ASSERT(impls[i].pass == OC_CLASS_FP32 ? failed_fp32 == 0 : failed_fp32 > 0);
    }
}

void register_suites(void)
{
    ADD_SUITE("newton-schulz", {"rank-one closed form", test_rank_one_closed_form},
              {"orthogonal closed form", test_orthogonal_closed_form},
              {"zero and one element", test_zero_and_one_element},
              {"vector format", test_vector_format},
              {"schedule index", test_schedule_index}, {"profiles", test_profiles},
              {"rejects", test_rejects},
              {"classes accept their precision", test_classes_accept_their_precision});
    ADD_SUITE("muon", {"rank-one closed form", test_muon_rank_one},
              {"profiles and scales", test_muon_profiles_and_scales},
              {"rejects", test_muon_rejects}, {"classes", test_muon_classes});
}
