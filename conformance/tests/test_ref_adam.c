/* Unit tests of the Adam reference (ref/adam.c) against closed forms of spec/adam.md.
 * Expected values are derived from the rules (e.g. the first step from zero state moves each
 * element by lr * g / (|g| + eps)), never copied from the reference's own output. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "cunit_main.h"
#include "judge.h"
#include "../mutants/adam.h"

enum { N = 8 };

typedef struct state {
    float p[N], m[N], v[N], vmax[N], g[N];
} state;

static const float grads[N] = {1.0f, -0.5f, 3e-3f, -7e-5f, 2.0f, 1e-9f, -1e-8f, 0.25f};

static oc_adam_hparams hp_default(oc_adam_profile pr)
{
    return (oc_adam_hparams){.profile = pr, .lr = 0x1p-10, .beta1 = 0.9f, .beta2 = 0.999f,
                             .eps = 1e-8f, .weight_decay = 0.0, .schedule_multiplier = 1.0,
                             .decoupled = 1};
}

static void zero_state(state *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < N; i++) {
        s->p[i] = 1.0f + 0.125f * (float)i;
        s->g[i] = grads[i];
    }
}

static oc_status step(const oc_adam_hparams *hp, int64_t t, state *s)
{
    return oc_ref_adam_step(hp, t, N, s->p, s->m, s->v, hp->amsgrad ? s->vmax : NULL, s->g);
}

/* |got - want| within `ulps` binary32 ulps of want */
static void assert_close(double got, double want, double ulps)
{
    CU_ASSERT(fabs(got - want) <= ulps * oc_ulp32(want));
}

/* After a first step from zero_state, p[i] = p0 - lr*d[i]: the stored m and v carry relative
 * errors <= 2^-24 each, which move d by less than 2^-23 relative; p rounds once more. */
static void assert_first_step(const state *s, double lr, const double d[N])
{
    for (int i = 0; i < N; i++) {
        double p0 = 1.0 + 0.125 * i;
        CU_ASSERT(fabs(s->p[i] - (p0 - lr * d[i])) <= oc_ulp32(p0) + lr * fabs(d[i]) * 0x1p-22);
    }
}

/* zero_state with g = 0, then one step at count t. */
static void zero_gradient_step(const oc_adam_hparams *hp, int64_t t, state *s)
{
    zero_state(s);
    memset(s->g, 0, sizeof s->g);
    CU_ASSERT_EQUAL_FATAL(step(hp, t, s), OC_OK);
}

/* ADAM-PROF-TORCH, ADAM-BC-1, ADAM-EPS-1, ADAM-DIR-1, ADAM-UPD-1: from zero moments, m_hat = g and
 * v_hat = g^2 (up to the storage rounding of m and v), so p moves by lr*g/(|g| + eps). */
static void test_first_step_closed_form(void)
{
    oc_adam_hparams hp = hp_default(OC_ADAM_TORCH);
    state s;
    zero_state(&s);
    CU_ASSERT_EQUAL_FATAL(step(&hp, 1, &s), OC_OK);
    double d[N];
    for (int i = 0; i < N; i++) {
        double g = grads[i];
        assert_close(s.m[i], (1 - hp.beta1) * g, 0.5);  /* ADAM-M-1 */
        assert_close(s.v[i], (1 - hp.beta2) * g * g, 0.5); /* ADAM-V-1 */
        d[i] = g / (fabs(g) + hp.eps);
    }
    assert_first_step(&s, hp.lr, d);
}

/* ADAM-PROF-KERAS: the eps-hat form; first step d = g / (|g| + eps / sqrt(bc2)). */
static void test_keras_eps_hat(void)
{
    oc_adam_hparams hp = hp_default(OC_ADAM_KERAS);
    hp.eps = 1e-3f; /* large enough that the two conventions differ visibly */
    state s, t;
    zero_state(&s);
    t = s;
    CU_ASSERT_EQUAL_FATAL(step(&hp, 1, &s), OC_OK);
    oc_adam_hparams torch = hp;
    torch.profile = OC_ADAM_TORCH;
    CU_ASSERT_EQUAL_FATAL(step(&torch, 1, &t), OC_OK);
    double sqrt_bc2 = sqrt(1 - hp.beta2), dk[N], dt[N];
    for (int i = 0; i < N; i++) {
        dk[i] = grads[i] / (fabs(grads[i]) + hp.eps / sqrt_bc2);
        dt[i] = grads[i] / (fabs(grads[i]) + hp.eps);
    }
    assert_first_step(&s, hp.lr, dk);
    assert_first_step(&t, hp.lr, dt);
}

/* ADAM-PROF-OPTAX: eps_root inside the root on the bias-corrected v. */
static void test_optax_eps_root(void)
{
    oc_adam_hparams hp = hp_default(OC_ADAM_OPTAX);
    hp.eps_root = 1e-4f;
    state s;
    zero_state(&s);
    CU_ASSERT_EQUAL_FATAL(step(&hp, 1, &s), OC_OK);
    double d[N];
    for (int i = 0; i < N; i++)
        d[i] = grads[i] / (sqrt(grads[i] * grads[i] + hp.eps_root) + hp.eps);
    assert_first_step(&s, hp.lr, d);
}

/* ADAM-PROF-PAPER, ADAM-WD-2: p_t = p - eta*(alpha*d + wd*p). With g = 0 and zero moments the
 * direction is 0 and only the eta-scaled decay remains. */
static void test_paper_schedule_multiplier(void)
{
    oc_adam_hparams hp = hp_default(OC_ADAM_PAPER);
    hp.schedule_multiplier = 0.5;
    hp.weight_decay = 0.25;
    hp.lr = 0.125;
    state s;
    zero_gradient_step(&hp, 3, &s);
    for (int i = 0; i < N; i++)
        assert_close(s.p[i], (1.0 + 0.125 * i) * (1 - 0.5 * 0.25), 0.5);
    /* torch scales the same decay by lr instead of eta */
    hp.profile = OC_ADAM_TORCH;
    hp.schedule_multiplier = 1.0;
    zero_gradient_step(&hp, 3, &s);
    for (int i = 0; i < N; i++)
        assert_close(s.p[i], (1.0 + 0.125 * i) * (1 - 0.125 * 0.25), 0.5);
}

/* ADAM-WD-1: L2 decay enters the moments: with g = 0, m = (1-b1)*wd*p. */
static void test_l2_enters_moments(void)
{
    oc_adam_hparams hp = hp_default(OC_ADAM_TORCH);
    hp.decoupled = 0;
    hp.weight_decay = 0.5;
    state s;
    zero_gradient_step(&hp, 1, &s);
    for (int i = 0; i < N; i++)
        assert_close(s.m[i], (1 - hp.beta1) * 0.5 * (1.0 + 0.125 * i), 0.5);
}

/* ADAM-WD-2: lr = 0 leaves the parameter unchanged even with decay. */
static void test_zero_lr_keeps_parameter(void)
{
    oc_adam_hparams hp = hp_default(OC_ADAM_TORCH);
    hp.lr = 0;
    hp.weight_decay = 0.5;
    state s;
    zero_state(&s);
    state before = s;
    CU_ASSERT_EQUAL_FATAL(step(&hp, 5, &s), OC_OK);
    CU_ASSERT(memcmp(s.p, before.p, sizeof s.p) == 0);
}

/* ADAM-MAX-1: maximize with g equals minimizing with -g, bit for bit. */
static void test_maximize_negates_gradient(void)
{
    oc_adam_hparams hp = hp_default(OC_ADAM_TORCH);
    hp.decoupled = 0;
    hp.weight_decay = 0.01;
    state a, b;
    zero_state(&a);
    b = a;
    for (int i = 0; i < N; i++)
        b.g[i] = -a.g[i];
    hp.maximize = 1;
    CU_ASSERT_EQUAL_FATAL(step(&hp, 2, &a), OC_OK);
    hp.maximize = 0;
    CU_ASSERT_EQUAL_FATAL(step(&hp, 2, &b), OC_OK);
    CU_ASSERT(memcmp(a.p, b.p, sizeof a.p) == 0 && memcmp(a.m, b.m, sizeof a.m) == 0);
}

/* ADAM-AMS-1: vmax is the max of the stored raw v and the previous vmax. */
static void test_amsgrad_max_of_raw_v(void)
{
    oc_adam_hparams hp = hp_default(OC_ADAM_TORCH);
    hp.amsgrad = 1;
    state s;
    zero_state(&s);
    for (int i = 0; i < N; i++)
        s.vmax[i] = (i & 1) ? 1.0f : 0.0f;
    CU_ASSERT_EQUAL_FATAL(step(&hp, 2, &s), OC_OK);
    for (int i = 0; i < N; i++)
        CU_ASSERT_EQUAL(s.vmax[i], fmaxf((i & 1) ? 1.0f : 0.0f, s.v[i]));
}

/* ADAM-STORE-1, ADAM-STORE-2: a gradient of 1e30 overflows the stored v to +inf; the
 * direction is then 0 and the parameter only decays. */
static void test_v_overflow_stores_inf(void)
{
    oc_adam_hparams hp = hp_default(OC_ADAM_TORCH);
    hp.weight_decay = 0.5;
    state s;
    zero_state(&s);
    for (int i = 0; i < N; i++)
        s.g[i] = (i & 1) ? -1e30f : 1e30f;
    CU_ASSERT_EQUAL_FATAL(step(&hp, 1, &s), OC_OK);
    for (int i = 0; i < N; i++) {
        CU_ASSERT(isinf(s.v[i]) && s.v[i] > 0);
        CU_ASSERT(isfinite(s.m[i]));
        assert_close(s.p[i], (1.0 + 0.125 * i) * (1 - hp.lr * 0.5), 0.5);
    }
}

/* ADAM-HP-1, ADAM-HP-2, ADAM-ERR-1: every out-of-range value is rejected, state untouched. */
static void test_invalid_hparams_leave_state(void)
{
    struct { size_t off; double value; } bad[] = {
        {offsetof(oc_adam_hparams, beta1), 1.0},  {offsetof(oc_adam_hparams, beta1), -0.1},
        {offsetof(oc_adam_hparams, beta1), NAN},  {offsetof(oc_adam_hparams, beta2), 1.0},
        {offsetof(oc_adam_hparams, beta2), -1.0}, {offsetof(oc_adam_hparams, eps), 0.0},
        {offsetof(oc_adam_hparams, eps), -1e-8},  {offsetof(oc_adam_hparams, eps), INFINITY},
        {offsetof(oc_adam_hparams, eps), NAN},    {offsetof(oc_adam_hparams, lr), -1e-3},
        {offsetof(oc_adam_hparams, lr), NAN},     {offsetof(oc_adam_hparams, lr), INFINITY},
        {offsetof(oc_adam_hparams, weight_decay), -0.01},
        {offsetof(oc_adam_hparams, weight_decay), NAN},
        {offsetof(oc_adam_hparams, eps_root), -1.0},
        {offsetof(oc_adam_hparams, schedule_multiplier), NAN},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        oc_adam_hparams hp = hp_default(OC_ADAM_TORCH);
        hp.amsgrad = 1;
        *(double *)((char *)&hp + bad[k].off) = bad[k].value;
        state s, before;
        zero_state(&s);
        before = s;
        CU_ASSERT_EQUAL(step(&hp, 1, &s), OC_ERR_BAD_HPARAM);
        CU_ASSERT(memcmp(&s, &before, sizeof s) == 0);
    }
    oc_adam_hparams hp = hp_default(OC_ADAM_TORCH);
    state s, before;
    zero_state(&s);
    before = s;
    CU_ASSERT_EQUAL(step(&hp, 0, &s), OC_ERR_BAD_STEP);
    CU_ASSERT_EQUAL(step(&hp, -7, &s), OC_ERR_BAD_STEP);
    CU_ASSERT(memcmp(&s, &before, sizeof s) == 0);
    hp.profile = (oc_adam_profile)17;
    CU_ASSERT_EQUAL(step(&hp, 1, &s), OC_ERR_BAD_PROFILE);
    hp.profile = OC_ADAM_TORCH;
    CU_ASSERT_EQUAL(oc_ref_adam_step(NULL, 1, N, s.p, s.m, s.v, NULL, s.g),
                    OC_ERR_NULL_POINTER);
}

/* ADAM-PROF-OPTAX, ADAM-PROF-PAPER, ADAM-PROF-KERAS, ADAM-ERR-1: options a profile does not
 * define are rejected, not silently ignored. */
static void test_profile_options(void)
{
    struct { oc_adam_profile pr; int amsgrad, maximize, l2; double eps_root, eta; } bad[] = {
        {OC_ADAM_OPTAX, 1, 0, 0, 0, 1}, {OC_ADAM_OPTAX, 0, 1, 0, 0, 1},
        {OC_ADAM_OPTAX, 0, 0, 1, 0, 1}, {OC_ADAM_PAPER, 1, 0, 0, 0, 1},
        {OC_ADAM_KERAS, 0, 1, 0, 0, 1}, {OC_ADAM_KERAS, 0, 0, 1, 0, 1},
        {OC_ADAM_TORCH, 0, 0, 0, 1e-8, 1}, {OC_ADAM_TORCH, 0, 0, 0, 0, 0.5},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        oc_adam_hparams hp = hp_default(bad[k].pr);
        hp.amsgrad = bad[k].amsgrad;
        hp.maximize = bad[k].maximize;
        hp.decoupled = !bad[k].l2;
        hp.weight_decay = 0.01;
        hp.eps_root = bad[k].eps_root;
        hp.schedule_multiplier = bad[k].eta;
        CU_ASSERT_EQUAL(oc_adam_check(&hp, 1), OC_ERR_UNSUPPORTED);
    }
}

/* ADAM-ERR-1: NULL, misaligned and overlapping buffers are rejected before any write. */
static void test_bad_buffers(void)
{
    oc_adam_hparams hp = hp_default(OC_ADAM_TORCH);
    state s;
    zero_state(&s);
    state before = s;
    CU_ASSERT_EQUAL(oc_ref_adam_step(&hp, 1, N, s.p, NULL, s.v, NULL, s.g),
                    OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_adam_step(&hp, 1, N, s.p, s.p, s.v, NULL, s.g), OC_ERR_ALIASING);
    CU_ASSERT_EQUAL(oc_ref_adam_step(&hp, 1, N, s.p, s.m, s.v, NULL, s.p + 2),
                    OC_ERR_ALIASING);
    hp.amsgrad = 1;
    CU_ASSERT_EQUAL(oc_ref_adam_step(&hp, 1, N, s.p, s.m, s.v, NULL, s.g),
                    OC_ERR_NULL_POINTER);
    hp.amsgrad = 0;
    _Alignas(16) unsigned char raw[sizeof(float) * (N + 1)] = {0};
    float *misaligned = (float *)(void *)(raw + 1);
    CU_ASSERT_EQUAL(oc_ref_adam_step(&hp, 1, N, s.p, s.m, misaligned, NULL, s.g),
                    OC_ERR_MISALIGNED);
    CU_ASSERT(memcmp(&s, &before, sizeof s) == 0);
    /* n = 0 with NULL buffers is a valid empty step */
    CU_ASSERT_EQUAL(oc_ref_adam_step(&hp, 1, 0, NULL, NULL, NULL, NULL, NULL), OC_OK);
}

/* oc_status_str: every status has its own description, and a value outside the enum gets the
 * fallback (the harness prints these in certificates and error messages). */
static void test_status_descriptions(void)
{
    const char *fallback = oc_status_str((oc_status)(OC_ERR_PEER + 1));
    CU_ASSERT_STRING_EQUAL(fallback, "unknown status");
    for (int a = OC_OK; a <= OC_ERR_PEER; a++) {
        CU_ASSERT_STRING_NOT_EQUAL(oc_status_str((oc_status)a), fallback);
        for (int b = OC_OK; b < a; b++)
            CU_ASSERT_STRING_NOT_EQUAL(oc_status_str((oc_status)a), oc_status_str((oc_status)b));
    }
}

/* The catalogue: every mutant has a distinct name and a description; each changes the
 * result of some step (checked on the vectors by test_certify). */
static void test_mutant_catalogue(void)
{
    for (int a = 0; a < OC_ADAM_MUTANT_COUNT; a++) {
        CU_ASSERT_PTR_NOT_NULL(oc_adam_mutant_name((oc_adam_mutant)a));
        CU_ASSERT_PTR_NOT_NULL(oc_adam_mutant_description((oc_adam_mutant)a));
        for (int b = 0; b < a; b++)
            CU_ASSERT(strcmp(oc_adam_mutant_name((oc_adam_mutant)a),
                             oc_adam_mutant_name((oc_adam_mutant)b)) != 0);
    }
    CU_ASSERT_PTR_NULL(oc_adam_mutant_name(OC_ADAM_MUTANT_COUNT));
    oc_adam_profile pr;
    CU_ASSERT_EQUAL(oc_adam_profile_parse("keras", &pr), OC_OK);
    CU_ASSERT_EQUAL(pr, OC_ADAM_KERAS);
    CU_ASSERT_EQUAL(oc_adam_profile_parse("Keras", &pr), OC_ERR_BAD_PROFILE);
    /* the names a certificate prints (ADAM-PROF-*), and none for a value outside the enum */
    CU_ASSERT_STRING_EQUAL(oc_adam_profile_name(OC_ADAM_KERAS), "keras");
    CU_ASSERT_PTR_NULL(oc_adam_profile_name(OC_ADAM_PROFILE_COUNT));
}

void register_suites(void)
{
    ADD_SUITE("adam-reference",
              {"first step closed form (ADAM-BC-1, ADAM-EPS-1)", test_first_step_closed_form},
              {"keras eps hat (ADAM-PROF-KERAS)", test_keras_eps_hat},
              {"optax eps_root (ADAM-PROF-OPTAX)", test_optax_eps_root},
              {"paper schedule multiplier (ADAM-PROF-PAPER)", test_paper_schedule_multiplier},
              {"L2 enters moments (ADAM-WD-1)", test_l2_enters_moments},
              {"lr 0 keeps parameter (ADAM-WD-2)", test_zero_lr_keeps_parameter},
              {"maximize (ADAM-MAX-1)", test_maximize_negates_gradient},
              {"amsgrad raw v (ADAM-AMS-1)", test_amsgrad_max_of_raw_v},
              {"v overflow (ADAM-STORE-2)", test_v_overflow_stores_inf});
    ADD_SUITE("adam-validation",
              {"invalid hyper-parameters (ADAM-HP-1, ADAM-HP-2)", test_invalid_hparams_leave_state},
              {"profile options (ADAM-ERR-1)", test_profile_options},
              {"bad buffers (ADAM-ERR-1)", test_bad_buffers},
              {"mutant catalogue", test_mutant_catalogue},
              {"status descriptions", test_status_descriptions});
}
