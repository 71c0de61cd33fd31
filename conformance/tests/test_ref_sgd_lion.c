/* Unit tests of the SGD and Lion references (ref/sgd.c, ref/lion.c) against closed forms of
 * spec/sgd.md and spec/lion.md. Expected values are derived from the rules with inputs chosen
 * so that the closed form is exact or nearly so (dyadic hyper-parameters, short gradients),
 * never copied from the reference's own output. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "cunit_main.h"
#include "../mutants/lion.h"
#include "../mutants/sgd.h"

enum { N = 8 };

/* One ulp of binary32 at |x| (the gap above the binary32 value nearest |x|). */
static double ulp32(double x)
{
    float f = (float)fabs(x);
    if (isinf(f))
        return INFINITY;
    return (double)nextafterf(f, INFINITY) - (double)f;
}

/* |got - want| within `ulps` binary32 ulps of want */
static void assert_close(double got, double want, double ulps)
{
    CU_ASSERT(fabs(got - want) <= ulps * ulp32(want));
}

static const float grads[N] = {1.0f, -0.5f, 3e-3f, -7e-5f, 2.0f, 1e-9f, -1e-8f, 0.25f};
static const float bufs0[N] = {0.5f, -2.0f, 1e-3f, 0.0f, -0.75f, 4.0f, 1e-6f, -3e-2f};

static double p_init(int i) { return 1.0 + 0.125 * i; }

/* ======================================================================================== */
/* SGD                                                                                      */
/* ======================================================================================== */

typedef struct sgd_state {
    float p[N], buf[N], g[N];
} sgd_state;

static oc_sgd_hparams sgd_hp(oc_sgd_profile pr, double mu)
{
    return (oc_sgd_hparams){.profile = pr, .lr = 0x1p-4, .momentum = mu};
}

static void sgd_init(sgd_state *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < N; i++) {
        s->p[i] = (float)p_init(i);
        s->buf[i] = bufs0[i];
        s->g[i] = grads[i];
    }
}

static oc_status sgd_step(const oc_sgd_hparams *hp, int64_t t, sgd_state *s)
{
    return oc_ref_sgd_step(hp, t, N, s->p, hp->momentum != 0.0 ? s->buf : NULL, s->g);
}

/* The harness's SGD mutant mu (conformance/mutants/sgd.c). */
static oc_status sgd_mutant(const oc_sgd_hparams *hp, int64_t t, sgd_state *s, oc_sgd_mutant mu)
{
    return oc_sgd_mutant_step(mu, hp, t, N, s->p, hp->momentum != 0.0 ? s->buf : NULL, s->g);
}

/* SGD-UPD-1, SGD-PROF-TORCH: without momentum p' = p - lr*g; buf is neither needed nor
 * touched (SGD-NEST-1: "without momentum d = g_e"). */
static void test_sgd_plain(void)
{
    oc_sgd_hparams hp = sgd_hp(OC_SGD_TORCH, 0.0);
    sgd_state s;
    sgd_init(&s);
    CU_ASSERT_EQUAL_FATAL(oc_ref_sgd_step(&hp, 3, N, s.p, NULL, s.g), OC_OK);
    for (int i = 0; i < N; i++)
        assert_close(s.p[i], p_init(i) - hp.lr * grads[i], 0.5);
    /* a non-NULL buffer is ignored too, bit for bit */
    sgd_init(&s);
    for (int i = 0; i < N; i++)
        s.buf[i] = NAN;
    CU_ASSERT_EQUAL_FATAL(oc_ref_sgd_step(&hp, 1, N, s.p, s.buf, s.g), OC_OK);
    for (int i = 0; i < N; i++) {
        CU_ASSERT(isnan(s.buf[i]));
        assert_close(s.p[i], p_init(i) - hp.lr * grads[i], 0.5);
    }
}

/* SGD-WD-1: L2 decay enters the gradient, with or without momentum: p' = p - lr*(g + wd*p),
 * and the first buffer is g + wd*p. */
static void test_sgd_l2_decay(void)
{
    oc_sgd_hparams hp = sgd_hp(OC_SGD_TORCH, 0.0);
    hp.weight_decay = 0.125;
    sgd_state s;
    sgd_init(&s);
    CU_ASSERT_EQUAL_FATAL(sgd_step(&hp, 2, &s), OC_OK);
    for (int i = 0; i < N; i++)
        assert_close(s.p[i], p_init(i) - hp.lr * (grads[i] + 0.125 * p_init(i)), 0.5);
    hp.momentum = 0.875;
    sgd_init(&s);
    CU_ASSERT_EQUAL_FATAL(sgd_step(&hp, 1, &s), OC_OK);
    for (int i = 0; i < N; i++) {
        double ge = grads[i] + 0.125 * p_init(i);
        assert_close(s.buf[i], ge, 0.5);
        assert_close(s.p[i], p_init(i) - hp.lr * (double)s.buf[i], 0.5);
    }
}

/* SGD-MAX-1: maximize negates g before the L2 term: maximize with g equals minimizing with -g
 * bit for bit, and p' = p - lr*(-g + wd*p). */
static void test_sgd_maximize(void)
{
    oc_sgd_hparams hp = sgd_hp(OC_SGD_TORCH, 0.875);
    hp.weight_decay = 0.125;
    hp.dampening = 0.25;
    sgd_state a, b;
    sgd_init(&a);
    b = a;
    for (int i = 0; i < N; i++)
        b.g[i] = -a.g[i];
    hp.maximize = 1;
    CU_ASSERT_EQUAL_FATAL(sgd_step(&hp, 4, &a), OC_OK);
    hp.maximize = 0;
    CU_ASSERT_EQUAL_FATAL(sgd_step(&hp, 4, &b), OC_OK);
    CU_ASSERT(memcmp(a.p, b.p, sizeof a.p) == 0 && memcmp(a.buf, b.buf, sizeof a.buf) == 0);
    hp = sgd_hp(OC_SGD_TORCH, 0.0);
    hp.weight_decay = 0.125;
    hp.maximize = 1;
    sgd_init(&a);
    CU_ASSERT_EQUAL_FATAL(sgd_step(&hp, 1, &a), OC_OK);
    for (int i = 0; i < N; i++)
        assert_close(a.p[i], p_init(i) - hp.lr * (-grads[i] + 0.125 * p_init(i)), 0.5);
}

/* SGD-BUF-1, SGD-HP-2: at t = 1 torch creates the buffer from g_e: the input buffer is not read
 * (NaN here) and dampening does not apply. */
static void test_sgd_torch_first_step(void)
{
    oc_sgd_hparams hp = sgd_hp(OC_SGD_TORCH, 0.875);
    hp.dampening = 0.5;
    sgd_state s;
    sgd_init(&s);
    for (int i = 0; i < N; i++)
        s.buf[i] = NAN;
    CU_ASSERT_EQUAL_FATAL(sgd_step(&hp, 1, &s), OC_OK);
    for (int i = 0; i < N; i++) {
        CU_ASSERT_EQUAL(s.buf[i], grads[i]);
        assert_close(s.p[i], p_init(i) - hp.lr * grads[i], 0.5);
    }
}

/* SGD-BUF-1, SGD-NEST-1: for t > 1, buf' = mu*buf + (1-dampening)*g and d = buf'. */
static void test_sgd_torch_momentum(void)
{
    oc_sgd_hparams hp = sgd_hp(OC_SGD_TORCH, 0.875);
    hp.dampening = 0.25;
    sgd_state s;
    sgd_init(&s);
    CU_ASSERT_EQUAL_FATAL(sgd_step(&hp, 2, &s), OC_OK);
    for (int i = 0; i < N; i++) {
        double b = 0.875 * bufs0[i] + 0.75 * grads[i];
        assert_close(s.buf[i], b, 0.5);
        assert_close(s.p[i], p_init(i) - hp.lr * (double)s.buf[i], 0.5);
    }
    /* dampening = 1 (the top of SGD-HP-1) is valid: the gradient no longer enters after t = 1 */
    hp.dampening = 1.0;
    sgd_init(&s);
    CU_ASSERT_EQUAL_FATAL(sgd_step(&hp, 9, &s), OC_OK);
    for (int i = 0; i < N; i++)
        CU_ASSERT_EQUAL(s.buf[i], 0.875f * bufs0[i]);
}

/* SGD-NEST-1: torch Nesterov d = g_e + mu*buf' with buf' the stored buffer. */
static void test_sgd_torch_nesterov(void)
{
    oc_sgd_hparams hp = sgd_hp(OC_SGD_TORCH, 0.875);
    hp.nesterov = 1;
    sgd_state s;
    sgd_init(&s);
    CU_ASSERT_EQUAL_FATAL(sgd_step(&hp, 5, &s), OC_OK);
    for (int i = 0; i < N; i++) {
        assert_close(s.buf[i], 0.875 * bufs0[i] + grads[i], 0.5);
        assert_close(s.p[i], p_init(i) - hp.lr * (grads[i] + 0.875 * (double)s.buf[i]), 0.5);
    }
}

/* SGD-BUF-2, SGD-PROF-EMA: buf' = mu*buf + (1-mu)*g with no special first step: from zeros
 * buf_1 = (1-mu)*g, and a nonzero input buffer is read at t = 1 too. */
static void test_sgd_ema_buffer(void)
{
    oc_sgd_hparams hp = sgd_hp(OC_SGD_EMA, 0.875);
    sgd_state s;
    sgd_init(&s);
    memset(s.buf, 0, sizeof s.buf);
    CU_ASSERT_EQUAL_FATAL(sgd_step(&hp, 1, &s), OC_OK);
    for (int i = 0; i < N; i++) {
        assert_close(s.buf[i], 0.125 * grads[i], 0.5);
        assert_close(s.p[i], p_init(i) - hp.lr * (double)s.buf[i], 0.5);
    }
    sgd_init(&s);
    CU_ASSERT_EQUAL_FATAL(sgd_step(&hp, 1, &s), OC_OK);
    for (int i = 0; i < N; i++)
        assert_close(s.buf[i], 0.875 * bufs0[i] + 0.125 * grads[i], 0.5);
}

/* SGD-NEST-2: ema Nesterov d = (1-mu)*g + mu*buf' (buf' stored); with mu = 0 Nesterov is
 * plain SGD, d = g (allowed in this profile). */
static void test_sgd_ema_nesterov(void)
{
    oc_sgd_hparams hp = sgd_hp(OC_SGD_EMA, 0.875);
    hp.nesterov = 1;
    sgd_state s;
    sgd_init(&s);
    CU_ASSERT_EQUAL_FATAL(sgd_step(&hp, 7, &s), OC_OK);
    for (int i = 0; i < N; i++) {
        assert_close(s.buf[i], 0.875 * bufs0[i] + 0.125 * grads[i], 0.5);
        double d = 0.125 * grads[i] + 0.875 * (double)s.buf[i];
        assert_close(s.p[i], p_init(i) - hp.lr * d, 0.5);
    }
    hp.momentum = 0.0;
    sgd_init(&s);
    CU_ASSERT_EQUAL_FATAL(sgd_step(&hp, 7, &s), OC_OK);
    for (int i = 0; i < N; i++)
        assert_close(s.p[i], p_init(i) - hp.lr * grads[i], 0.5);
}

/* SGD-WD-2, SGD-UPD-1: ema decay is decoupled: p' = p - lr*wd*p - lr*d, and the buffer never
 * sees wd (bit for bit the same as without decay). */
static void test_sgd_ema_decoupled_decay(void)
{
    oc_sgd_hparams hp = sgd_hp(OC_SGD_EMA, 0.875);
    hp.weight_decay = 0.5;
    sgd_state a, b;
    sgd_init(&a);
    b = a;
    CU_ASSERT_EQUAL_FATAL(sgd_step(&hp, 3, &a), OC_OK);
    for (int i = 0; i < N; i++) {
        double p0 = p_init(i);
        assert_close(a.p[i], p0 - hp.lr * 0.5 * p0 - hp.lr * (double)a.buf[i], 0.5);
    }
    hp.weight_decay = 0.0;
    CU_ASSERT_EQUAL_FATAL(sgd_step(&hp, 3, &b), OC_OK);
    CU_ASSERT(memcmp(a.buf, b.buf, sizeof a.buf) == 0);
    /* lr = 0 leaves the parameter unchanged even with decay */
    hp.lr = 0.0;
    hp.weight_decay = 0.5;
    sgd_init(&a);
    b = a;
    CU_ASSERT_EQUAL_FATAL(sgd_step(&hp, 3, &a), OC_OK);
    CU_ASSERT(memcmp(a.p, b.p, sizeof a.p) == 0);
}

/* SGD-STORE-1: the direction uses the stored buffer. buf' = 0.5*1 + 2^-27 stores as 0.5f
 * (2^-27 is below half an ulp of 0.5f); then p' = 1 - 2^-24*0.5 = 1 - 2^-25 is a tie that
 * rounds to 1.0f, whereas the unrounded buffer gives 1 - 2^-25 - 2^-51, which rounds to
 * 1 - 2^-24. Same in the ema profile with g = 2^-26 (0.5*g = 2^-27). A buffer beyond the
 * binary32 range stores as +inf. */
static void test_sgd_storage_points(void)
{
    for (int pr = 0; pr < OC_SGD_PROFILE_COUNT; pr++) {
        oc_sgd_hparams hp = {.profile = (oc_sgd_profile)pr, .lr = 0x1p-24, .momentum = 0.5};
        float p = 1.0f, buf = 1.0f, g = pr == OC_SGD_TORCH ? 0x1p-27f : 0x1p-26f;
        CU_ASSERT_EQUAL_FATAL(oc_ref_sgd_step(&hp, 2, 1, &p, &buf, &g), OC_OK);
        CU_ASSERT_EQUAL(buf, 0.5f);
        CU_ASSERT_EQUAL(p, 1.0f);
    }
    oc_sgd_hparams hp = {.profile = OC_SGD_TORCH, .lr = 1.0, .momentum = 0.875};
    float p = 0.0f, buf = FLT_MAX, g = FLT_MAX;
    CU_ASSERT_EQUAL_FATAL(oc_ref_sgd_step(&hp, 2, 1, &p, &buf, &g), OC_OK);
    CU_ASSERT(isinf(buf) && buf > 0);
    CU_ASSERT(isinf(p) && p < 0);
}

/* SGD-HP-1, SGD-HP-2, SGD-ERR-1: every out-of-range value is rejected, state untouched. */
static void test_sgd_invalid_hparams(void)
{
    struct { size_t off; double value; } bad[] = {
        {offsetof(oc_sgd_hparams, lr), -1e-3},        {offsetof(oc_sgd_hparams, lr), NAN},
        {offsetof(oc_sgd_hparams, lr), INFINITY},     {offsetof(oc_sgd_hparams, momentum), 1.0},
        {offsetof(oc_sgd_hparams, momentum), -0.1},   {offsetof(oc_sgd_hparams, momentum), NAN},
        {offsetof(oc_sgd_hparams, momentum), 1.5},    {offsetof(oc_sgd_hparams, dampening), -0.1},
        {offsetof(oc_sgd_hparams, dampening), 1.5},   {offsetof(oc_sgd_hparams, dampening), NAN},
        {offsetof(oc_sgd_hparams, weight_decay), -0.01},
        {offsetof(oc_sgd_hparams, weight_decay), NAN},
        {offsetof(oc_sgd_hparams, weight_decay), INFINITY},
    };
    for (int pr = 0; pr < OC_SGD_PROFILE_COUNT; pr++)
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            oc_sgd_hparams hp = sgd_hp((oc_sgd_profile)pr, 0.875);
            *(double *)(void *)((char *)&hp + bad[k].off) = bad[k].value;
            sgd_state s, before;
            sgd_init(&s);
            before = s;
            CU_ASSERT_EQUAL(oc_ref_sgd_step(&hp, 2, N, s.p, s.buf, s.g),
                            OC_ERR_BAD_HPARAM);
            CU_ASSERT_EQUAL(oc_sgd_check(&hp, 2), OC_ERR_BAD_HPARAM);
            CU_ASSERT(memcmp(&s, &before, sizeof s) == 0);
        }
    /* SGD-HP-1: torch Nesterov requires mu > 0 and dampening = 0 (torch raises ValueError) */
    struct { double mu, damp; } nest[] = {{0.0, 0.0}, {0.875, 0.25}, {0.0, 0.5}};
    for (size_t k = 0; k < sizeof nest / sizeof nest[0]; k++) {
        oc_sgd_hparams hp = sgd_hp(OC_SGD_TORCH, nest[k].mu);
        hp.nesterov = 1;
        hp.dampening = nest[k].damp;
        sgd_state s, before;
        sgd_init(&s);
        before = s;
        CU_ASSERT_EQUAL(oc_ref_sgd_step(&hp, 2, N, s.p, s.buf, s.g),
                        OC_ERR_BAD_HPARAM);
        CU_ASSERT(memcmp(&s, &before, sizeof s) == 0);
    }
    /* SGD-HP-2 */
    oc_sgd_hparams hp = sgd_hp(OC_SGD_TORCH, 0.875);
    sgd_state s, before;
    sgd_init(&s);
    before = s;
    CU_ASSERT_EQUAL(sgd_step(&hp, 0, &s), OC_ERR_BAD_STEP);
    CU_ASSERT_EQUAL(sgd_step(&hp, -7, &s), OC_ERR_BAD_STEP);
    CU_ASSERT_EQUAL(sgd_step(&hp, INT64_MIN, &s), OC_ERR_BAD_STEP);
    hp.profile = OC_SGD_EMA;
    CU_ASSERT_EQUAL(sgd_step(&hp, 0, &s), OC_ERR_BAD_STEP);
    CU_ASSERT(memcmp(&s, &before, sizeof s) == 0);
    /* unknown profile, NULL hyper-parameters */
    hp.profile = (oc_sgd_profile)7;
    CU_ASSERT_EQUAL(sgd_step(&hp, 1, &s), OC_ERR_BAD_PROFILE);
    hp.profile = OC_SGD_TORCH;
    CU_ASSERT_EQUAL(oc_ref_sgd_step(NULL, 1, N, s.p, s.buf, s.g),
                    OC_ERR_NULL_POINTER);
    CU_ASSERT(memcmp(&s, &before, sizeof s) == 0);
    CU_ASSERT_EQUAL(sgd_step(&hp, INT64_MAX, &s), OC_OK);
}

/* SGD-PROF-EMA, SGD-ERR-1: maximize and dampening != 0 are not defined by the ema profile. */
static void test_sgd_profile_options(void)
{
    oc_sgd_hparams hp = sgd_hp(OC_SGD_EMA, 0.875);
    hp.maximize = 1;
    sgd_state s, before;
    sgd_init(&s);
    before = s;
    CU_ASSERT_EQUAL(sgd_step(&hp, 2, &s), OC_ERR_UNSUPPORTED);
    hp.maximize = 0;
    hp.dampening = 0.25;
    CU_ASSERT_EQUAL(sgd_step(&hp, 2, &s), OC_ERR_UNSUPPORTED);
    CU_ASSERT(memcmp(&s, &before, sizeof s) == 0);
    /* the same options are defined by torch */
    hp.profile = OC_SGD_TORCH;
    hp.maximize = 1;
    CU_ASSERT_EQUAL(oc_sgd_check(&hp, 2), OC_OK);
}

/* SGD-ERR-1: NULL, misaligned and overlapping buffers are rejected before any write; buf is
 * checked only when mu > 0. */
static void test_sgd_bad_buffers(void)
{
    oc_sgd_hparams hp = sgd_hp(OC_SGD_TORCH, 0.875);
    sgd_state s, before;
    sgd_init(&s);
    before = s;
    CU_ASSERT_EQUAL(oc_ref_sgd_step(&hp, 2, N, NULL, s.buf, s.g), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_sgd_step(&hp, 2, N, s.p, NULL, s.g), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_sgd_step(&hp, 2, N, s.p, s.buf, NULL), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_sgd_step(&hp, 2, N, s.p, s.p, s.g), OC_ERR_ALIASING);
    CU_ASSERT_EQUAL(oc_ref_sgd_step(&hp, 2, N, s.p, s.buf, s.p + 3), OC_ERR_ALIASING);
    CU_ASSERT_EQUAL(oc_ref_sgd_step(&hp, 2, N, s.p, s.g + 5, s.g), OC_ERR_ALIASING);
    _Alignas(16) unsigned char raw[sizeof(float) * (N + 1)] = {0};
    float *misaligned = (float *)(void *)(raw + 1);
    CU_ASSERT_EQUAL(oc_ref_sgd_step(&hp, 2, N, misaligned, s.buf, s.g), OC_ERR_MISALIGNED);
    CU_ASSERT_EQUAL(oc_ref_sgd_step(&hp, 2, N, s.p, misaligned, s.g), OC_ERR_MISALIGNED);
    CU_ASSERT_EQUAL(oc_ref_sgd_step(&hp, 2, N, s.p, s.buf, misaligned), OC_ERR_MISALIGNED);
    CU_ASSERT(memcmp(&s, &before, sizeof s) == 0);
    /* without momentum the buffer may be NULL, and is not checked */
    hp.momentum = 0.0;
    CU_ASSERT_EQUAL(oc_ref_sgd_step(&hp, 2, N, s.p, misaligned, s.g), OC_OK);
    /* n = 0 with NULL buffers is a valid empty step */
    hp.momentum = 0.875;
    CU_ASSERT_EQUAL(oc_ref_sgd_step(&hp, 2, 0, NULL, NULL, NULL), OC_OK);
}

/* Each SGD mutant reproduces its catalogued mistake (spec/sgd.md §5) and leaves the other
 * profile's step unchanged. */
static void test_sgd_mutants_closed_form(void)
{
    sgd_state s, c;
    /* nesterov-uses-buffer (SGD-NEST-1/2): d = buf' in both profiles */
    for (int pr = 0; pr < OC_SGD_PROFILE_COUNT; pr++) {
        oc_sgd_hparams hp = sgd_hp((oc_sgd_profile)pr, 0.875);
        hp.nesterov = 1;
        sgd_init(&s);
        CU_ASSERT_EQUAL_FATAL(sgd_mutant(&hp, 2, &s, OC_SGD_MUT_NESTEROV_USES_BUFFER), OC_OK);
        for (int i = 0; i < N; i++)
            assert_close(s.p[i], p_init(i) - hp.lr * (double)s.buf[i], 0.5);
    }
    /* dampening-on-first-step (SGD-BUF-1): buf_1 = (1-dampening)*g */
    oc_sgd_hparams hp = sgd_hp(OC_SGD_TORCH, 0.875);
    hp.dampening = 0.5;
    sgd_init(&s);
    CU_ASSERT_EQUAL_FATAL(sgd_mutant(&hp, 1, &s, OC_SGD_MUT_DAMPENING_ON_FIRST_STEP), OC_OK);
    for (int i = 0; i < N; i++)
        CU_ASSERT_EQUAL(s.buf[i], 0.5f * grads[i]);
    /* lerp-weights-swapped (SGD-BUF-2, SGD-NEST-2): weights exchanged */
    hp = sgd_hp(OC_SGD_EMA, 0.875);
    hp.nesterov = 1;
    sgd_init(&s);
    CU_ASSERT_EQUAL_FATAL(sgd_mutant(&hp, 2, &s, OC_SGD_MUT_LERP_WEIGHTS_SWAPPED), OC_OK);
    for (int i = 0; i < N; i++) {
        assert_close(s.buf[i], 0.125 * bufs0[i] + 0.875 * grads[i], 0.5);
        double d = 0.875 * grads[i] + 0.125 * (double)s.buf[i];
        assert_close(s.p[i], p_init(i) - hp.lr * d, 0.5);
    }
    /* maximize-after-decay (SGD-MAX-1): g_e = -(g + wd*p) */
    hp = sgd_hp(OC_SGD_TORCH, 0.0);
    hp.maximize = 1;
    hp.weight_decay = 0.125;
    sgd_init(&s);
    CU_ASSERT_EQUAL_FATAL(sgd_mutant(&hp, 2, &s, OC_SGD_MUT_MAXIMIZE_AFTER_DECAY), OC_OK);
    for (int i = 0; i < N; i++)
        assert_close(s.p[i], p_init(i) + hp.lr * (grads[i] + 0.125 * p_init(i)), 0.5);
    /* decay-skipped-without-momentum (SGD-WD-1): wd ignored when mu = 0 only */
    hp = sgd_hp(OC_SGD_TORCH, 0.0);
    hp.weight_decay = 0.125;
    sgd_init(&s);
    CU_ASSERT_EQUAL_FATAL(sgd_mutant(&hp, 2, &s, OC_SGD_MUT_DECAY_SKIPPED_WITHOUT_MOMENTUM),
                          OC_OK);
    for (int i = 0; i < N; i++)
        assert_close(s.p[i], p_init(i) - hp.lr * grads[i], 0.5);
    hp.momentum = 0.875;
    sgd_init(&s);
    c = s;
    CU_ASSERT_EQUAL_FATAL(sgd_mutant(&hp, 2, &s, OC_SGD_MUT_DECAY_SKIPPED_WITHOUT_MOMENTUM),
                          OC_OK);
    CU_ASSERT_EQUAL_FATAL(sgd_step(&hp, 2, &c), OC_OK);
    CU_ASSERT(memcmp(&s, &c, sizeof s) == 0);
    /* mutants of one profile do not change the other profile's step */
    struct { oc_sgd_profile pr; double momentum; oc_sgd_mutant mu; } na[] = {
        {OC_SGD_TORCH, 0.875, OC_SGD_MUT_LERP_WEIGHTS_SWAPPED},
        {OC_SGD_EMA, 0.875, OC_SGD_MUT_DAMPENING_ON_FIRST_STEP},
        {OC_SGD_EMA, 0.0, OC_SGD_MUT_DECAY_SKIPPED_WITHOUT_MOMENTUM},
    };
    for (size_t k = 0; k < sizeof na / sizeof na[0]; k++) {
        hp = sgd_hp(na[k].pr, na[k].momentum);
        hp.weight_decay = 0.125;
        sgd_init(&s);
        c = s;
        CU_ASSERT_EQUAL_FATAL(sgd_mutant(&hp, 1, &s, na[k].mu), OC_OK);
        CU_ASSERT_EQUAL_FATAL(sgd_step(&hp, 1, &c), OC_OK);
        CU_ASSERT(memcmp(&s, &c, sizeof s) == 0);
    }
}

/* The catalogue: every mutant has a distinct name and a description. */
static void test_sgd_catalogue(void)
{
    for (int a = 0; a < OC_SGD_MUTANT_COUNT; a++) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(oc_sgd_mutant_name((oc_sgd_mutant)a));
        CU_ASSERT_PTR_NOT_NULL_FATAL(oc_sgd_mutant_description((oc_sgd_mutant)a));
        for (int b = 0; b < a; b++) {
            CU_ASSERT(strcmp(oc_sgd_mutant_name((oc_sgd_mutant)a),
                             oc_sgd_mutant_name((oc_sgd_mutant)b)) != 0);
            CU_ASSERT(strcmp(oc_sgd_mutant_description((oc_sgd_mutant)a),
                             oc_sgd_mutant_description((oc_sgd_mutant)b)) != 0);
        }
    }
    CU_ASSERT_PTR_NULL(oc_sgd_mutant_name(OC_SGD_MUTANT_COUNT));
    CU_ASSERT_PTR_NULL(oc_sgd_mutant_description(OC_SGD_MUTANT_COUNT));
    oc_sgd_profile pr;
    CU_ASSERT_EQUAL(oc_sgd_profile_parse("ema", &pr), OC_OK);
    CU_ASSERT_EQUAL(pr, OC_SGD_EMA);
    CU_ASSERT_EQUAL(oc_sgd_profile_parse("torch", &pr), OC_OK);
    CU_ASSERT_EQUAL(pr, OC_SGD_TORCH);
    CU_ASSERT_EQUAL(oc_sgd_profile_parse("Torch", &pr), OC_ERR_BAD_PROFILE);
    CU_ASSERT_STRING_EQUAL(oc_sgd_profile_name(OC_SGD_EMA), "ema");
    CU_ASSERT_PTR_NULL(oc_sgd_profile_name(OC_SGD_PROFILE_COUNT));
}

/* ======================================================================================== */
/* Lion                                                                                     */
/* ======================================================================================== */

typedef struct lion_state {
    float p[N], m[N], g[N];
} lion_state;

static const double B1 = (double)0.9f, B2 = (double)0.99f;

static oc_lion_hparams lion_hp(void)
{
    return (oc_lion_hparams){.profile = OC_LION_TORCH, .lr = 0x1p-4, .beta1 = B1, .beta2 = B2};
}

static void lion_init(lion_state *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < N; i++) {
        s->p[i] = (float)p_init(i);
        s->g[i] = grads[i];
    }
}

static oc_status lion_step(const oc_lion_hparams *hp, int64_t t, lion_state *s)
{
    return oc_ref_lion_step(hp, t, N, s->p, s->m, s->g);
}

static double sign_of(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; }

/* LION-PROF-TORCH, LION-DIR-1, LION-SIGN-1, LION-M-1, LION-UPD-1: from zero momentum
 * c = (1-b1)*g, so p' = p - lr*sign(g) and m' = (1-b2)*g; g = 0 leaves p unchanged. */
static void test_lion_first_step_closed_form(void)
{
    oc_lion_hparams hp = lion_hp();
    lion_state s;
    lion_init(&s);
    s.g[3] = 0.0f;
    CU_ASSERT_EQUAL_FATAL(lion_step(&hp, 1, &s), OC_OK);
    for (int i = 0; i < N; i++) {
        double g = s.g[i];
        assert_close(s.m[i], (1 - B2) * g, 0.5);
        assert_close(s.p[i], p_init(i) - hp.lr * sign_of(g), 0.5);
    }
    CU_ASSERT_EQUAL(s.p[3], (float)p_init(3));
}

/* LION-DIR-1, LION-M-1: c uses the old momentum. With m = 0.115, g = -1:
 * c = b1*m + (1-b1)*g = +0.0035 > 0, while the new momentum m' = 0.10385 would give
 * b1*m' + (1-b1)*g = -0.0065 < 0. */
static void test_lion_old_momentum(void)
{
    oc_lion_hparams hp = lion_hp();
    float p = 1.0f, m = 0.115f, g = -1.0f;
    CU_ASSERT_EQUAL_FATAL(oc_ref_lion_step(&hp, 2, 1, &p, &m, &g), OC_OK);
    CU_ASSERT_EQUAL(p, 1.0f - 0x1p-4f);
    assert_close(m, B2 * (double)0.115f - (1 - B2), 0.5);
    CU_ASSERT(B1 * (double)0.115f - (1 - B1) > 0 && B1 * (double)m - (1 - B1) < 0);
}

/* LION-SIGN-1: sign(0) = 0 for an exactly zero c, from either signed zero: the parameter only
 * decays, p' = p*(1 - lr*wd). Cases: m = g = 0; m = -0, g = -0; b1 = 0.5 with m = -g. */
static void test_lion_sign_zero(void)
{
    oc_lion_hparams hp = lion_hp();
    hp.weight_decay = 0.5;
    float p[3] = {1.0f, -2.0f, 3.0f}, m[3] = {0.0f, -0.0f, 0.0f}, g[3] = {0.0f, -0.0f, 0.0f};
    CU_ASSERT_EQUAL_FATAL(oc_ref_lion_step(&hp, 1, 3, p, m, g), OC_OK);
    assert_close(p[0], 1.0 * (1 - hp.lr * 0.5), 0.5);
    assert_close(p[1], -2.0 * (1 - hp.lr * 0.5), 0.5);
    assert_close(p[2], 3.0 * (1 - hp.lr * 0.5), 0.5);
    hp.beta1 = 0.5;
    float q[2] = {1.0f, 1.0f}, mq[2] = {0.75f, -3e-5f}, gq[2] = {-0.75f, 3e-5f};
    CU_ASSERT_EQUAL_FATAL(oc_ref_lion_step(&hp, 4, 2, q, mq, gq), OC_OK);
    for (int i = 0; i < 2; i++)
        assert_close(q[i], 1.0 - hp.lr * 0.5, 0.5);
}

/* LION-SIGN-1: the sign is that of the exact c. With b1 = B/(B+C) rounded to binary64,
 * m = -C, g = B, the exact c = B - b1*(B+C) is tiny and nonzero, and a plain binary64
 * evaluation of b1*m + (1-b1)*g returns 0 for these inputs. Exact values (rational
 * arithmetic): c = -2.70e-11 and c = +2.32e-10. */
static void test_lion_sign_exact(void)
{
    oc_lion_hparams hp = lion_hp();
    hp.lr = 0.25;
    hp.beta1 = 0x1.0c1852c533103p-1;
    float p = 1.0f, m = -6173764.0f, g = 6786066.0f;
    CU_ASSERT_EQUAL_FATAL(oc_ref_lion_step(&hp, 1, 1, &p, &m, &g), OC_OK);
    CU_ASSERT_EQUAL(p, 1.25f);
    hp.beta1 = 0x1.31c1c9d2f7568p-1;
    p = 1.0f;
    m = -3612719.0f;
    g = 5355886.0f;
    CU_ASSERT_EQUAL_FATAL(oc_ref_lion_step(&hp, 1, 1, &p, &m, &g), OC_OK);
    CU_ASSERT_EQUAL(p, 0.75f);
    /* with binary32 hyper-parameters, b1 = 0.9f, m = -1, g = 9 do not cancel:
       c = 9 - 10*b1 = 2^-22 > 0 */
    hp.beta1 = B1;
    p = 1.0f;
    m = -1.0f;
    g = 9.0f;
    CU_ASSERT_EQUAL_FATAL(oc_ref_lion_step(&hp, 1, 1, &p, &m, &g), OC_OK);
    CU_ASSERT_EQUAL(p, 0.75f);
    /* b1 = 2^-800 (below binary32, so no vector has it): b1*m can underflow binary64, and the
     * sign is that of g, of m where g = 0, and 0 where both are 0 */
    CU_ASSERT_EQUAL(oc_lion_sign(0x1p-800, -0x1p30, 0x1p-20), 1.0);
    CU_ASSERT_EQUAL(oc_lion_sign(0x1p-800, 0x1p30, -0x1p-20), -1.0);
    CU_ASSERT_EQUAL(oc_lion_sign(0x1p-800, 0x1p-20, 0.0), 1.0);
    CU_ASSERT_EQUAL(oc_lion_sign(0x1p-800, -0x1p-20, -0.0), -1.0);
    CU_ASSERT_EQUAL(oc_lion_sign(0x1p-800, -0.0, 0.0), 0.0);
    /* LION-SIGN-1 on non-finite c: an infinity has its sign, NaN has sign 0 (torch.sign) */
    CU_ASSERT_EQUAL(oc_lion_sign(0.9, 1.0, INFINITY), 1.0);
    CU_ASSERT_EQUAL(oc_lion_sign(0.9, -INFINITY, 1e30), -1.0);
    CU_ASSERT_EQUAL(oc_lion_sign(0.9, INFINITY, -INFINITY), 0.0);
    CU_ASSERT_EQUAL(oc_lion_sign(0.9, 1.0, NAN), 0.0);
}

/* LION-WD-1, LION-UPD-1: decoupled, lr-scaled decay: p' = p - lr*wd*p - lr*s; the momentum
 * never sees wd (bit for bit the same as without decay); lr = 0 leaves p unchanged. */
static void test_lion_decoupled_decay(void)
{
    oc_lion_hparams hp = lion_hp();
    hp.weight_decay = 0.5;
    lion_state a, b;
    lion_init(&a);
    for (int i = 0; i < N; i++)
        a.m[i] = bufs0[i];
    b = a;
    CU_ASSERT_EQUAL_FATAL(lion_step(&hp, 3, &a), OC_OK);
    for (int i = 0; i < N; i++) {
        double p0 = p_init(i), c = B1 * bufs0[i] + (1 - B1) * grads[i];
        assert_close(a.p[i], p0 - hp.lr * 0.5 * p0 - hp.lr * sign_of(c), 0.5);
    }
    hp.weight_decay = 0.0;
    CU_ASSERT_EQUAL_FATAL(lion_step(&hp, 3, &b), OC_OK);
    CU_ASSERT(memcmp(a.m, b.m, sizeof a.m) == 0);
    hp.lr = 0.0;
    hp.weight_decay = 0.5;
    lion_init(&a);
    b = a;
    CU_ASSERT_EQUAL_FATAL(lion_step(&hp, 3, &a), OC_OK);
    CU_ASSERT(memcmp(a.p, b.p, sizeof a.p) == 0);
}

/* LION-STORE-1: m' is rounded when stored: 0.5*1 + 0.5*2^-30 stores as 0.5f exactly; a
 * parameter beyond the binary32 range stores as +inf. */
static void test_lion_storage_points(void)
{
    oc_lion_hparams hp = lion_hp();
    hp.beta2 = 0.5;
    float p = 1.0f, m = 1.0f, g = 0x1p-30f;
    CU_ASSERT_EQUAL_FATAL(oc_ref_lion_step(&hp, 2, 1, &p, &m, &g), OC_OK);
    CU_ASSERT_EQUAL(m, 0.5f);
    hp.lr = 1e38;
    p = FLT_MAX;
    m = -1.0f;
    g = -1.0f;
    CU_ASSERT_EQUAL_FATAL(oc_ref_lion_step(&hp, 2, 1, &p, &m, &g), OC_OK);
    CU_ASSERT(isinf(p) && p > 0);
}

/* LION-HP-1, LION-ERR-1: every out-of-range value is rejected, state untouched. */
static void test_lion_invalid_hparams(void)
{
    struct { size_t off; double value; } bad[] = {
        {offsetof(oc_lion_hparams, lr), -1e-3},      {offsetof(oc_lion_hparams, lr), NAN},
        {offsetof(oc_lion_hparams, lr), INFINITY},   {offsetof(oc_lion_hparams, beta1), 1.0},
        {offsetof(oc_lion_hparams, beta1), -0.1},    {offsetof(oc_lion_hparams, beta1), NAN},
        {offsetof(oc_lion_hparams, beta2), 1.0},     {offsetof(oc_lion_hparams, beta2), -1.0},
        {offsetof(oc_lion_hparams, beta2), NAN},
        {offsetof(oc_lion_hparams, weight_decay), -0.01},
        {offsetof(oc_lion_hparams, weight_decay), NAN},
        {offsetof(oc_lion_hparams, weight_decay), INFINITY},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        oc_lion_hparams hp = lion_hp();
        *(double *)(void *)((char *)&hp + bad[k].off) = bad[k].value;
        lion_state s, before;
        lion_init(&s);
        before = s;
        CU_ASSERT_EQUAL(lion_step(&hp, 1, &s), OC_ERR_BAD_HPARAM);
        CU_ASSERT_EQUAL(oc_lion_check(&hp, 1), OC_ERR_BAD_HPARAM);
        CU_ASSERT(memcmp(&s, &before, sizeof s) == 0);
    }
    oc_lion_hparams hp = lion_hp();
    lion_state s, before;
    lion_init(&s);
    before = s;
    CU_ASSERT_EQUAL(lion_step(&hp, 0, &s), OC_ERR_BAD_STEP);
    CU_ASSERT_EQUAL(lion_step(&hp, -3, &s), OC_ERR_BAD_STEP);
    hp.profile = (oc_lion_profile)3;
    CU_ASSERT_EQUAL(lion_step(&hp, 1, &s), OC_ERR_BAD_PROFILE);
    hp.profile = OC_LION_TORCH;
    CU_ASSERT_EQUAL(oc_ref_lion_step(NULL, 1, N, s.p, s.m, s.g), OC_ERR_NULL_POINTER);
    CU_ASSERT(memcmp(&s, &before, sizeof s) == 0);
    CU_ASSERT_EQUAL(oc_lion_check(&hp, INT64_MAX), OC_OK);
}

/* LION-ERR-1: NULL, misaligned and overlapping buffers are rejected before any write. */
static void test_lion_bad_buffers(void)
{
    oc_lion_hparams hp = lion_hp();
    lion_state s, before;
    lion_init(&s);
    before = s;
    CU_ASSERT_EQUAL(oc_ref_lion_step(&hp, 1, N, NULL, s.m, s.g), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_lion_step(&hp, 1, N, s.p, NULL, s.g), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_lion_step(&hp, 1, N, s.p, s.m, NULL), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_lion_step(&hp, 1, N, s.p, s.p, s.g), OC_ERR_ALIASING);
    CU_ASSERT_EQUAL(oc_ref_lion_step(&hp, 1, N, s.p, s.m, s.m + 4), OC_ERR_ALIASING);
    _Alignas(16) unsigned char raw[sizeof(float) * (N + 1)] = {0};
    float *misaligned = (float *)(void *)(raw + 2);
    CU_ASSERT_EQUAL(oc_ref_lion_step(&hp, 1, N, misaligned, s.m, s.g), OC_ERR_MISALIGNED);
    CU_ASSERT_EQUAL(oc_ref_lion_step(&hp, 1, N, s.p, misaligned, s.g), OC_ERR_MISALIGNED);
    CU_ASSERT_EQUAL(oc_ref_lion_step(&hp, 1, N, s.p, s.m, misaligned), OC_ERR_MISALIGNED);
    CU_ASSERT(memcmp(&s, &before, sizeof s) == 0);
    CU_ASSERT_EQUAL(oc_ref_lion_step(&hp, 1, 0, NULL, NULL, NULL), OC_OK);
}

/* Each Lion mutant reproduces its catalogued mistake (spec/lion.md §5). */
static void test_lion_mutants_closed_form(void)
{
    oc_lion_hparams hp = lion_hp();
    /* momentum-before-sign (LION-DIR-1): the case of test_lion_old_momentum flips */
    float p = 1.0f, m = 0.115f, g = -1.0f;
    CU_ASSERT_EQUAL_FATAL(
        oc_lion_mutant_step(OC_LION_MUT_MOMENTUM_BEFORE_SIGN, &hp, 2, 1, &p, &m, &g), OC_OK);
    CU_ASSERT_EQUAL(p, 1.0f + 0x1p-4f);
    /* betas-swapped: m' = b1*m + (1-b1)*g */
    p = 1.0f;
    m = 0.115f;
    CU_ASSERT_EQUAL_FATAL(oc_lion_mutant_step(OC_LION_MUT_BETAS_SWAPPED, &hp, 2, 1, &p, &m, &g),
                          OC_OK);
    assert_close(m, B1 * (double)0.115f - (1 - B1), 0.5);
    /* decay-not-scaled-by-lr (LION-WD-1): with c = 0, p' = p*(1 - wd) */
    hp.weight_decay = 0.25;
    p = 2.0f;
    m = 0.0f;
    g = 0.0f;
    CU_ASSERT_EQUAL_FATAL(
        oc_lion_mutant_step(OC_LION_MUT_DECAY_NOT_SCALED_BY_LR, &hp, 2, 1, &p, &m, &g), OC_OK);
    CU_ASSERT_EQUAL(p, 1.5f);
    /* coupled-decay: g := g + wd*p, so with g = m = 0 and p = 2: c = (1-b1)*0.5 > 0,
       p' = p - lr (no decoupled decay), m' = (1-b2)*0.5 */
    p = 2.0f;
    m = 0.0f;
    CU_ASSERT_EQUAL_FATAL(oc_lion_mutant_step(OC_LION_MUT_COUPLED_DECAY, &hp, 2, 1, &p, &m, &g),
                          OC_OK);
    CU_ASSERT_EQUAL(p, 2.0f - 0x1p-4f);
    assert_close(m, (1 - B2) * 0.5, 0.5);
    /* sign-zero-is-one (LION-SIGN-1): c = +-0 moves by -lr; negative c still by +lr */
    hp.weight_decay = 0.0;
    float ps[3] = {1.0f, 1.0f, 1.0f}, ms[3] = {0.0f, -0.0f, -1.0f}, gs[3] = {0.0f, -0.0f, 0.0f};
    CU_ASSERT_EQUAL_FATAL(oc_lion_mutant_step(OC_LION_MUT_SIGN_ZERO_IS_ONE, &hp, 2, 3, ps, ms, gs),
                          OC_OK);
    CU_ASSERT_EQUAL(ps[0], 1.0f - 0x1p-4f);
    CU_ASSERT_EQUAL(ps[1], 1.0f - 0x1p-4f);
    CU_ASSERT_EQUAL(ps[2], 1.0f + 0x1p-4f);
}

static void test_lion_catalogue(void)
{
    for (int a = 0; a < OC_LION_MUTANT_COUNT; a++) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(oc_lion_mutant_name((oc_lion_mutant)a));
        CU_ASSERT_PTR_NOT_NULL_FATAL(oc_lion_mutant_description((oc_lion_mutant)a));
        for (int b = 0; b < a; b++) {
            CU_ASSERT(strcmp(oc_lion_mutant_name((oc_lion_mutant)a),
                             oc_lion_mutant_name((oc_lion_mutant)b)) != 0);
            CU_ASSERT(strcmp(oc_lion_mutant_description((oc_lion_mutant)a),
                             oc_lion_mutant_description((oc_lion_mutant)b)) != 0);
        }
    }
    CU_ASSERT_PTR_NULL(oc_lion_mutant_name(OC_LION_MUTANT_COUNT));
    CU_ASSERT_PTR_NULL(oc_lion_mutant_description(OC_LION_MUTANT_COUNT));
    oc_lion_profile pr;
    CU_ASSERT_EQUAL(oc_lion_profile_parse("torch", &pr), OC_OK);
    CU_ASSERT_EQUAL(pr, OC_LION_TORCH);
    CU_ASSERT_EQUAL(oc_lion_profile_parse("optax", &pr), OC_ERR_BAD_PROFILE);
    CU_ASSERT_STRING_EQUAL(oc_lion_profile_name(OC_LION_TORCH), "torch");
    CU_ASSERT_PTR_NULL(oc_lion_profile_name(OC_LION_PROFILE_COUNT));
}

void register_suites(void)
{
    ADD_SUITE("sgd-reference",
              {"plain SGD (SGD-UPD-1, SGD-PROF-TORCH)", test_sgd_plain},
              {"L2 decay (SGD-WD-1)", test_sgd_l2_decay},
              {"maximize (SGD-MAX-1)", test_sgd_maximize},
              {"torch first step (SGD-BUF-1, SGD-HP-2)", test_sgd_torch_first_step},
              {"torch momentum (SGD-BUF-1, SGD-NEST-1)", test_sgd_torch_momentum},
              {"torch nesterov (SGD-NEST-1)", test_sgd_torch_nesterov},
              {"ema buffer (SGD-BUF-2, SGD-PROF-EMA)", test_sgd_ema_buffer},
              {"ema nesterov (SGD-NEST-2)", test_sgd_ema_nesterov},
              {"ema decoupled decay (SGD-WD-2, SGD-UPD-1)", test_sgd_ema_decoupled_decay},
              {"storage points (SGD-STORE-1)", test_sgd_storage_points});
    ADD_SUITE("sgd-validation",
              {"invalid hyper-parameters (SGD-HP-1, SGD-HP-2, SGD-ERR-1)",
               test_sgd_invalid_hparams},
              {"profile options (SGD-PROF-EMA, SGD-ERR-1)", test_sgd_profile_options},
              {"bad buffers (SGD-ERR-1)", test_sgd_bad_buffers},
              {"mutants closed form", test_sgd_mutants_closed_form},
              {"mutant catalogue", test_sgd_catalogue});
    ADD_SUITE("lion-reference",
              {"first step closed form (LION-PROF-TORCH, LION-M-1, LION-UPD-1)",
               test_lion_first_step_closed_form},
              {"old momentum in c (LION-DIR-1)", test_lion_old_momentum},
              {"sign(0) = 0 (LION-SIGN-1)", test_lion_sign_zero},
              {"exact sign of c (LION-SIGN-1)", test_lion_sign_exact},
              {"decoupled decay (LION-WD-1, LION-UPD-1)", test_lion_decoupled_decay},
              {"storage points (LION-STORE-1)", test_lion_storage_points});
    ADD_SUITE("lion-validation",
              {"invalid hyper-parameters (LION-HP-1, LION-ERR-1)", test_lion_invalid_hparams},
              {"bad buffers (LION-ERR-1)", test_lion_bad_buffers},
              {"mutants closed form", test_lion_mutants_closed_form},
              {"mutant catalogue", test_lion_catalogue});
}
