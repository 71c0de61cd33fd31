/* CUnit suite of the fast CPU backend (spec/fast.md): model-copy conversions (FAST-MODEL-1),
 * identical bits on every instruction set (FAST-ISA-1), thread count and tensor cut (FAST-DET-1,
 * FAST-MT-1),
 * the norm's fixed order (FAST-NORM-1), the gradient's unscale and clip (FAST-GRAD-1), and
 * bad input (FAST-ERR-1: nothing written). The numerics against the golden vectors are judged by
 * `optcert certify --impl fast-cpu` (ctest fast_cpu_certify). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "../../conformance/tests/cunit_main.h"
#include "../common/elementwise.h"
#include "optcert/fast.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd32(void)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}
static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
/* A random value with a random exponent in [2^-lo, 2^hi) and random sign. */
static float rnd_float(int lo, int hi)
{
    float m = 1.0f + (float)(rnd32() & 0xffffff) * 0x1p-24f;
    int e = (int)(rnd32() % (unsigned)(lo + hi)) - lo;
    return (rnd32() & 1 ? -1.0f : 1.0f) * ldexpf(m, e);
}

/* ---- FAST-MODEL-1 ---- */

static void test_fp16_matches_float16_cast(void)
{
    static const uint32_t special[] = {0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                       0x477fe000u, 0x477ff000u, 0x477fefffu, 0x38800000u,
                                       0x387fffffu, 0x33800000u, 0x33000000u, 0x33000001u,
                                       0x32ffffffu, 0x00000001u, 0x7f7fffffu, 0x3f800000u};
    size_t bad = 0;
    for (size_t i = 0; i < sizeof special / sizeof special[0] + 4000000; i++) {
        uint32_t u = i < sizeof special / sizeof special[0] ? special[i] : rnd32() ^ (rnd32() << 16);
        float x = bits_f32(u);
        _Float16 h = (_Float16)x;
        uint16_t want;
        memcpy(&want, &h, sizeof want);
        uint16_t got = oc_fast_to_fp16(x);
        if (isnan(x) ? (got & 0x7c00u) != 0x7c00u || !(got & 0x3ffu) : got != want)
            bad++;
    }
    CU_ASSERT_EQUAL(bad, 0);
}

/* bf16: the result is the nearer of the two bf16 neighbours of x, ties to even. Every upper
 * half (sign, exponent, the 7 stored bits: every bf16 value and NaN/inf pattern) with the low
 * halves where rounding turns (0, 1, just below, at and just above the tie, all ones), then
 * random values. */
static void test_bf16_rounds_to_nearest_even(void)
{
    static const uint32_t low[] = {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu};
    const size_t nlow = sizeof low / sizeof low[0], sweep = 65536 * nlow;
    size_t bad = 0;
    for (size_t i = 0; i < sweep + 4000000; i++) {
        uint32_t u = i < sweep ? (uint32_t)(i / nlow) << 16 | low[i % nlow]
                               : rnd32() ^ (rnd32() << 16);
        float x = bits_f32(u);
        uint16_t got = oc_fast_to_bf16(x);
        if (isnan(x)) {
            bad += (got & 0x7f80u) != 0x7f80u || !(got & 0x7fu);
            continue;
        }
        uint32_t lo = u & 0xffff0000u, hi = lo + 0x10000u;
        double dx = x, dlo = bits_f32(lo), dhi = (hi & 0x7fffffffu) >= 0x7f800000u
                                                     ? copysign(0x1p128, x) : bits_f32(hi);
        double elo = fabs(dx - dlo), ehi = fabs(dx - dhi);
        uint32_t want = elo < ehi ? lo : ehi < elo ? hi : ((lo >> 16) & 1u) ? hi : lo;
        if (isinf(x))
            want = u;
        bad += got != (uint16_t)(want >> 16);
    }
    CU_ASSERT_EQUAL(bad, 0);
}

/* ---- FAST-DET-1, FAST-MT-1: same bits everywhere ---- */

enum { NT = 5 };
static const size_t sizes[NT] = {1, 17, 40000, 3, 70001}; /* some cross chunk boundaries */

typedef struct model {
    size_t n;
    float *p, *g, *s[3];
    uint16_t *copy;
} model;

static size_t total_size(void)
{
    size_t n = 0;
    for (int i = 0; i < NT; i++)
        n += sizes[i];
    return n;
}

static model model_new(unsigned seed)
{
    rng_state = 0x9e3779b97f4a7c15ull + seed;
    model m = {total_size(), NULL, NULL, {NULL, NULL, NULL}, NULL};
    m.p = malloc(m.n * sizeof(float));
    m.g = malloc(m.n * sizeof(float));
    for (int k = 0; k < 3; k++)
        m.s[k] = malloc(m.n * sizeof(float));
    m.copy = calloc(m.n, sizeof(uint16_t));
    for (size_t i = 0; i < m.n; i++) {
        m.p[i] = rnd_float(10, 4);
        m.g[i] = i % 97 == 0 ? 0.0f : rnd_float(30, 8);
        m.s[0][i] = rnd_float(20, 2);
        m.s[1][i] = fabsf(rnd_float(40, 2));
        m.s[2][i] = m.s[1][i] * (rnd32() & 1 ? 2.0f : 0.5f);
    }
    return m;
}

static void model_free(model *m)
{
    free(m->p), free(m->g), free(m->copy);
    for (int k = 0; k < 3; k++)
        free(m->s[k]);
}

static int model_equal(const model *a, const model *b)
{
    size_t fb = a->n * sizeof(float);
    return !memcmp(a->p, b->p, fb) && !memcmp(a->s[0], b->s[0], fb) &&
           !memcmp(a->s[1], b->s[1], fb) && !memcmp(a->s[2], b->s[2], fb) &&
           !memcmp(a->copy, b->copy, a->n * sizeof(uint16_t));
}

/* The model as a list of NT tensors, or (split == 0) as one tensor, with `states` state
 * tensors (the others NULL). */
static size_t tensors_with(model *m, int split, int states, oc_fast_tensor *t)
{
    size_t off = 0, nt = split ? NT : 1;
    for (size_t i = 0; i < nt; i++) {
        size_t n = split ? sizes[i] : m->n;
        t[i] = (oc_fast_tensor){n, m->p + off, m->g + off, {NULL, NULL, NULL}, m->copy + off};
        for (int k = 0; k < states; k++)
            t[i].state[k] = m->s[k] + off;
        off += n;
    }
    return nt;
}

static size_t tensors_of(model *m, int split, oc_fast_tensor *t)
{
    return tensors_with(m, split, 3, t);
}

typedef oc_status (*step_fn)(const void *hp, int64_t step, const oc_fast_opts *o, model *m,
                             int split);

static oc_status adam_fn(const void *hp, int64_t step, const oc_fast_opts *o, model *m, int split)
{
    oc_fast_tensor t[NT];
    size_t nt = tensors_with(m, split, ((const oc_adam_hparams *)hp)->amsgrad ? 3 : 2, t);
    return oc_fast_adam_step(hp, step, o, nt, t, NULL);
}

static oc_status sgd_fn(const void *hp, int64_t step, const oc_fast_opts *o, model *m, int split)
{
    oc_fast_tensor t[NT];
    size_t nt = tensors_with(m, split, 1, t);
    return oc_fast_sgd_step(hp, step, o, nt, t, NULL);
}

static oc_status lion_fn(const void *hp, int64_t step, const oc_fast_opts *o, model *m, int split)
{
    oc_fast_tensor t[NT];
    size_t nt = tensors_with(m, split, 1, t);
    return oc_fast_lion_step(hp, step, o, nt, t, NULL);
}

/* Three steps under every ISA, 1 and 2 threads, one tensor or five: identical bits, the model
 * copy included (FAST-NT-1: the AVX2 and AVX-512 kernels write it with streaming stores, the
 * portable ones with ordinary stores). */
static void same_everywhere(step_fn f, const void *hp, oc_fast_dtype kind)
{
    oc_fast_opts o = {0x1p-10f, 0.75f, kind};
    model ref = model_new(1);
    CU_ASSERT_EQUAL_FATAL(oc_fast_isa_select(OC_FAST_ISA_PORTABLE), OC_OK);
    omp_set_num_threads(1);
    for (int64_t s = 1; s <= 3; s++)
        CU_ASSERT_EQUAL(f(hp, s, &o, &ref, 0), OC_OK);
    for (int isa = 0; isa < OC_FAST_ISA_COUNT; isa++) {
        if (oc_fast_isa_select((oc_fast_isa)isa) != OC_OK)
            continue;
        for (int threads = 1; threads <= 2; threads++)
            for (int split = 0; split <= 1; split++) {
                omp_set_num_threads(threads);
                model m = model_new(1);
                for (int64_t s = 1; s <= 3; s++)
                    CU_ASSERT_EQUAL(f(hp, s, &o, &m, split), OC_OK);
                CU_ASSERT(model_equal(&m, &ref));
                model_free(&m);
            }
    }
    model_free(&ref);
    oc_fast_isa_select(OC_FAST_ISA_PORTABLE);
}

static void test_adam_same_bits(void)
{
    for (int pr = 0; pr < OC_ADAM_PROFILE_COUNT; pr++)
        for (int ams = 0; ams <= 1; ams++) {
            oc_adam_hparams hp = {(oc_adam_profile)pr, 1e-3, 0.9, 0.999, 1e-8, 0.1, 0.0, 1.0,
                                  1, 0, 0};
            if (pr == OC_ADAM_TORCH || pr == OC_ADAM_KERAS)
                hp.amsgrad = ams;
            else if (ams)
                continue;
            if (pr == OC_ADAM_OPTAX)
                hp.eps_root = 1e-12;
            if (pr == OC_ADAM_TORCH)
                hp.decoupled = ams, hp.maximize = ams;
            same_everywhere(adam_fn, &hp, (oc_fast_dtype)(1 + ams));
        }
}

static void test_sgd_same_bits(void)
{
    oc_sgd_hparams torch = {OC_SGD_TORCH, 1e-2, 0.9, 0.0, 1e-4, 1, 1};
    oc_sgd_hparams damp = {OC_SGD_TORCH, 1e-2, 0.9, 0.25, 0.0, 0, 0};
    oc_sgd_hparams plain = {OC_SGD_TORCH, 1e-2, 0.0, 0.0, 1e-4, 0, 0};
    oc_sgd_hparams ema = {OC_SGD_EMA, 2e-2, 0.95, 0.0, 0.1, 1, 0};
    same_everywhere(sgd_fn, &torch, OC_FAST_MODEL_BF16);
    same_everywhere(sgd_fn, &damp, OC_FAST_MODEL_NONE);
    same_everywhere(sgd_fn, &plain, OC_FAST_MODEL_FP16);
    same_everywhere(sgd_fn, &ema, OC_FAST_MODEL_BF16);
}

static void test_lion_same_bits(void)
{
    oc_lion_hparams hp = {OC_LION_TORCH, 1e-4, 0.9, 0.99, 0.1};
    same_everywhere(lion_fn, &hp, OC_FAST_MODEL_FP16);
}

/* FAST-GRAD-1 and FAST-MODEL-1 in the step itself: the multi-tensor step equals the shared
 * per-element function fed (g * inv_scale) * clip, and the copy is the rounded new master. */
static void test_unscale_clip_and_copy(void)
{
    oc_lion_hparams hp = {OC_LION_TORCH, 1e-3, 0.9, 0.99, 0.01};
    oc_fast_opts o = {0x1p-12f, 0.3f, OC_FAST_MODEL_BF16};
    model m = model_new(2), e = model_new(2);
    CU_ASSERT_EQUAL(lion_fn(&hp, 1, &o, &m, 1), OC_OK);
    oc_fast_lion_coef c = {1e-3f, 0.9f, (float)(1.0 - 0.9), 0.99f, (float)(1.0 - 0.99),
                           (float)(1e-3 * 0.01)};
    size_t bad = 0;
    for (size_t i = 0; i < e.n; i++) {
        oc_fast_lion_element(&c, &e.p[i], &e.s[0][i], (e.g[i] * 0x1p-12f) * 0.3f);
        bad += memcmp(&e.p[i], &m.p[i], 4) || memcmp(&e.s[0][i], &m.s[0][i], 4) ||
               m.copy[i] != oc_fast_to_bf16(e.p[i]);
    }
    CU_ASSERT_EQUAL(bad, 0);
    model_free(&m), model_free(&e);
}

/* ---- FAST-NORM-1 ---- */

static double sumsq_in_spec_order(const float *g, size_t n, float inv)
{
    double s = 0.0;
    for (size_t c = 0; c < n; c += OC_FAST_CHUNK) {
        double acc[16] = {0};
        for (size_t i = c; i < n && i < c + OC_FAST_CHUNK; i++) {
            double x = (double)(g[i] * inv);
            acc[(i - c) % 16] += x * x;
        }
        for (int w = 8; w > 0; w /= 2)
            for (int k = 0; k < w; k++)
                acc[k] += acc[k + w];
        s += acc[0];
    }
    return s;
}

static void test_norm_fixed_order(void)
{
    model m = model_new(3);
    oc_fast_tensor t[NT];
    size_t nt = tensors_of(&m, 1, t);
    double want[NT], total_want = 0.0;
    for (size_t i = 0; i < nt; i++)
        total_want += want[i] = sumsq_in_spec_order(t[i].grad, t[i].n, 0x1p-3f);
    for (int isa = 0; isa < OC_FAST_ISA_COUNT; isa++) {
        if (oc_fast_isa_select((oc_fast_isa)isa) != OC_OK)
            continue;
        for (int threads = 1; threads <= 2; threads++) {
            omp_set_num_threads(threads);
            double per[NT], total;
            int bad = -1;
            CU_ASSERT_EQUAL(oc_fast_grad_sumsq(nt, t, 0x1p-3f, per, &total, &bad), OC_OK);
            CU_ASSERT_EQUAL(bad, 0);
            CU_ASSERT(memcmp(per, want, sizeof per) == 0);
            CU_ASSERT(memcmp(&total, &total_want, sizeof total) == 0);
        }
    }
    /* the sum is within 2^-40 relative of the exact one (binary64, < 2^17 terms per lane) */
    long double exact = 0.0L;
    for (size_t i = 0; i < m.n; i++)
        exact += (long double)((double)(m.g[i] * 0x1p-3f) * (double)(m.g[i] * 0x1p-3f));
    CU_ASSERT(fabsl((long double)total_want - exact) <= exact * 0x1p-40L);
    m.g[40000] = INFINITY;
    double total;
    int bad = 0;
    CU_ASSERT_EQUAL(oc_fast_grad_sumsq(nt, t, 1.0f, NULL, &total, &bad), OC_OK);
    CU_ASSERT_EQUAL(bad, 1);
    m.g[40000] = NAN;
    CU_ASSERT_EQUAL(oc_fast_grad_sumsq(nt, t, 1.0f, NULL, &total, &bad), OC_OK);
    CU_ASSERT_EQUAL(bad, 1);
    /* a huge loss-scaled gradient that unscales to a finite value is not an overflow */
    m.g[40000] = 0x1p127f;
    CU_ASSERT_EQUAL(oc_fast_grad_sumsq(nt, t, 0x1p-16f, NULL, &total, &bad), OC_OK);
    CU_ASSERT_EQUAL(bad, 0);
    model_free(&m);
}

/* The update reports a non-finite gradient (it still runs: skipping is the caller's). */
static void test_update_reports_nonfinite(void)
{
    oc_sgd_hparams hp = {OC_SGD_TORCH, 1e-2, 0.0, 0.0, 0.0, 0, 0};
    model m = model_new(4);
    oc_fast_tensor t[NT];
    size_t nt = tensors_with(&m, 1, 0, t);
    int found = -1;
    CU_ASSERT_EQUAL(oc_fast_sgd_step(&hp, 1, NULL, nt, t, &found), OC_OK);
    CU_ASSERT_EQUAL(found, 0);
    m.g[m.n - 1] = -INFINITY;
    CU_ASSERT_EQUAL(oc_fast_sgd_step(&hp, 2, NULL, nt, t, &found), OC_OK);
    CU_ASSERT_EQUAL(found, 1);
    model_free(&m);
}

/* ---- bad input: a status, nothing written ---- */

static void test_bad_input_writes_nothing(void)
{
    oc_adam_hparams hp = {OC_ADAM_TORCH, 1e-3, 0.9, 0.999, 1e-8, 0.0, 0.0, 1.0, 1, 0, 0};
    model m = model_new(5), keep = model_new(5);
    oc_fast_tensor t[NT];
    size_t nt = tensors_with(&m, 1, 2, t);
    oc_fast_opts o = {1.0f, 1.0f, OC_FAST_MODEL_BF16};
    /* the last tensor is bad: the first ones must not have been stepped either */
    t[NT - 1].state[1] = t[NT - 1].state[0];
    CU_ASSERT_EQUAL(oc_fast_adam_step(&hp, 1, &o, nt, t, NULL), OC_ERR_ALIASING);
    t[NT - 1].state[1] = NULL;
    CU_ASSERT_EQUAL(oc_fast_adam_step(&hp, 1, &o, nt, t, NULL), OC_ERR_NULL_POINTER);
    t[NT - 1].state[1] = m.s[1] + (m.n - sizes[NT - 1]);
    t[NT - 1].model = (uint16_t *)(void *)t[NT - 1].param;
    CU_ASSERT_EQUAL(oc_fast_adam_step(&hp, 1, &o, nt, t, NULL), OC_ERR_ALIASING);
    t[NT - 1].model = m.copy + (m.n - sizes[NT - 1]);
    CU_ASSERT_EQUAL(oc_fast_adam_step(&hp, 0, &o, nt, t, NULL), OC_ERR_BAD_STEP);
    hp.beta2 = 1.0;
    CU_ASSERT_EQUAL(oc_fast_adam_step(&hp, 1, &o, nt, t, NULL), OC_ERR_BAD_HPARAM);
    hp.beta2 = 0.999;
    o.inv_scale = NAN;
    CU_ASSERT_EQUAL(oc_fast_adam_step(&hp, 1, &o, nt, t, NULL), OC_ERR_BAD_HPARAM);
    o.inv_scale = 1.0f, o.clip_coeff = -1.0f;
    CU_ASSERT_EQUAL(oc_fast_adam_step(&hp, 1, &o, nt, t, NULL), OC_ERR_BAD_HPARAM);
    o.clip_coeff = 1.0f, o.model = (oc_fast_dtype)7;
    CU_ASSERT_EQUAL(oc_fast_adam_step(&hp, 1, &o, nt, t, NULL), OC_ERR_UNSUPPORTED);
    o.model = OC_FAST_MODEL_BF16;
    CU_ASSERT_EQUAL(oc_fast_adam_step(NULL, 1, &o, nt, t, NULL), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_fast_adam_step(&hp, 1, &o, 2, NULL, NULL), OC_ERR_NULL_POINTER);
    oc_lion_hparams lh = {OC_LION_TORCH, -1.0, 0.9, 0.99, 0.0};
    CU_ASSERT_EQUAL(oc_fast_lion_step(&lh, 1, NULL, nt, t, NULL), OC_ERR_BAD_HPARAM);
    oc_sgd_hparams sh = {OC_SGD_EMA, 1e-2, 0.9, 0.0, 0.0, 0, 1};
    CU_ASSERT_EQUAL(oc_fast_sgd_step(&sh, 1, NULL, nt, t, NULL), OC_ERR_UNSUPPORTED);
    double total;
    int bad;
    CU_ASSERT_EQUAL(oc_fast_grad_sumsq(nt, t, 0.0f, NULL, &total, &bad), OC_ERR_BAD_HPARAM);
    CU_ASSERT_EQUAL(oc_fast_grad_sumsq(nt, t, 1.0f, NULL, NULL, &bad), OC_ERR_NULL_POINTER);
    CU_ASSERT(model_equal(&m, &keep));
    CU_ASSERT_EQUAL(oc_fast_isa_select((oc_fast_isa)OC_FAST_ISA_COUNT), OC_ERR_UNSUPPORTED);
    model_free(&m), model_free(&keep);
}

void register_suites(void)
{
    ADD_SUITE("fast_cpu",
              {"fp16 copy equals the _Float16 conversion", test_fp16_matches_float16_cast},
              {"bf16 copy rounds to nearest even", test_bf16_rounds_to_nearest_even},
              {"adam: same bits on every ISA, thread count, cut", test_adam_same_bits},
              {"sgd: same bits on every ISA, thread count, cut", test_sgd_same_bits},
              {"lion: same bits on every ISA, thread count, cut", test_lion_same_bits},
              {"unscale, clip and copy in the fused pass", test_unscale_clip_and_copy},
              {"norm in the fixed order, non-finite flag", test_norm_fixed_order},
              {"update reports a non-finite gradient", test_update_reports_nonfinite},
              {"bad input: status, nothing written", test_bad_input_writes_nothing});
}
