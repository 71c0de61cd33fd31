/* CUnit suite of the fast CPU backend's step control (spec/fast.md): mixed-precision steps
 * (FAST-MIXED-1), the loss scaler (FAST-LS-1) and global-norm clipping (FAST-CLIP-1), each
 * against the backend's own fp32 step or the reference, with bad input writing nothing. The
 * golden vectors judge them through `optcert certify --impl fast-cpu`. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../../conformance/tests/cunit_main.h"
#include "../common/elementwise.h"
#include "optcert/fast.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint32_t rnd32(void)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}
/* Uniform in [-a, a). */
static float rnd_sym(float a) { return a * ((float)(rnd32() & 0xffffff) * 0x1p-23f - 1.0f); }
static float widen_bf16(uint16_t h) { return oc_widen(OC_FMT_BF16, h); }

static const oc_adam_hparams adamw = {OC_ADAM_TORCH, 1e-3, 0.9, 0.999, 1e-8, 0.01, 0.0, 1.0,
                                      1, 1, 0};

/* ---- FAST-MIXED-1 ---- */

/* A 16-bit step equals the fp32 step of the master and states, narrowed to nearest even. */
static void mixed_matches_fp32(oc_storage s, size_t n)
{
    const int ns = 3; /* AMSGrad: m, v, vmax */
    float *master = malloc(n * sizeof *master), *g = malloc(n * sizeof *g);
    float *want_p = malloc(n * sizeof *want_p), *want_s[3], *st32[3];
    uint16_t *param = malloc(n * sizeof *param), *st16[3];
    void *state[3];
    for (int k = 0; k < ns; k++) {
        want_s[k] = malloc(n * sizeof(float));
        st32[k] = malloc(n * sizeof(float));
        st16[k] = malloc(n * sizeof(uint16_t));
        state[k] = s.state == OC_FMT_F32 ? (void *)st32[k] : (void *)st16[k];
    }
    for (size_t i = 0; i < n; i++) {
        master[i] = want_p[i] = rnd_sym(2.0f);
        param[i] = oc_narrow(s.param, master[i]);
        g[i] = rnd_sym(1.0f);
        for (int k = 0; k < ns; k++) {
            float x = k == 0 ? rnd_sym(0.1f) : fabsf(rnd_sym(0.01f));
            st16[k][i] = oc_narrow(OC_FMT_BF16, x);
            st32[k][i] = want_s[k][i] = s.state == OC_FMT_F32 ? x : widen_bf16(st16[k][i]);
        }
    }
    oc_fast_tensor t = {n, want_p, g, {want_s[0], want_s[1], want_s[2]}, NULL};
    CU_ASSERT_EQUAL_FATAL(oc_fast_adam_step(&adamw, 7, NULL, 1, &t, NULL), OC_OK);
    CU_ASSERT_EQUAL_FATAL(oc_fast_mixed_step(OC_ALG_ADAM, &adamw, &s, 7, n, param, master,
                                             state, g), OC_OK);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad += memcmp(&master[i], &want_p[i], sizeof(float)) != 0;
        bad += param[i] != (s.param == OC_FMT_BF16 ? oc_fast_to_bf16(want_p[i])
                                                    : oc_fast_to_fp16(want_p[i]));
        for (int k = 0; k < ns; k++)
            bad += s.state == OC_FMT_F32
                       ? memcmp(&st32[k][i], &want_s[k][i], sizeof(float)) != 0
                       : st16[k][i] != oc_fast_to_bf16(want_s[k][i]);
    }
    CU_ASSERT_EQUAL(bad, 0);
    for (int k = 0; k < ns; k++)
        free(want_s[k]), free(st32[k]), free(st16[k]);
    free(master), free(g), free(want_p), free(param);
}

static void test_mixed_is_fp32_step_and_narrowing(void)
{
    const oc_storage combos[] = {{OC_FMT_BF16, OC_FMT_F32}, {OC_FMT_F16, OC_FMT_F32},
                                 {OC_FMT_BF16, OC_FMT_BF16}};
    for (size_t c = 0; c < sizeof combos / sizeof combos[0]; c++) {
        mixed_matches_fp32(combos[c], 1000);
        mixed_matches_fp32(combos[c], 3 * OC_FAST_CHUNK + 17); /* several threads' chunks */
    }
}

static void test_mixed_bad_input_writes_nothing(void)
{
    enum { N = 64 };
    float master[N], g[N], m[N], v[N];
    uint16_t param[N], m16[N], keep16[N];
    for (int i = 0; i < N; i++)
        master[i] = rnd_sym(1), g[i] = rnd_sym(1), m[i] = v[i] = 0.5f,
        param[i] = keep16[i] = oc_narrow(OC_FMT_BF16, master[i]), m16[i] = 0x3f00;
    float keep_master[N];
    memcpy(keep_master, master, sizeof master);
    void *state[2] = {m, v};
    const oc_storage bf16 = {OC_FMT_BF16, OC_FMT_F32}, f16_state = {OC_FMT_BF16, OC_FMT_F16},
                     f32 = {OC_FMT_F32, OC_FMT_F32};
    oc_adam_hparams nan_lr = adamw;
    nan_lr.lr = NAN;
    nan_lr.amsgrad = 0;
    oc_adam_hparams plain = adamw;
    plain.amsgrad = 0;
    CU_ASSERT_EQUAL(oc_fast_mixed_step(OC_ALG_ADAM, &plain, &bf16, 1, N, param, NULL, state, g),
                    OC_ERR_NULL_POINTER); /* MP-MASTER-1 */
    CU_ASSERT_EQUAL(oc_fast_mixed_step(OC_ALG_ADAM, &plain, &f32, 1, N, master, master, state, g),
                    OC_ERR_UNSUPPORTED);
    CU_ASSERT_EQUAL(oc_fast_mixed_step(OC_ALG_ADAM, &plain, &f16_state, 1, N, param, master,
                                       state, g), OC_ERR_UNSUPPORTED);
    CU_ASSERT_EQUAL(oc_fast_mixed_step(OC_ALG_ADAM, &nan_lr, &bf16, 1, N, param, master, state,
                                       g), OC_ERR_BAD_HPARAM);
    CU_ASSERT_EQUAL(oc_fast_mixed_step(OC_ALG_COUNT, &plain, &bf16, 1, N, param, master, state,
                                       g), OC_ERR_BAD_PROFILE);
    void *overlap[2] = {m16, param + 1}; /* bf16 state overlapping the parameter */
    const oc_storage bf16_state = {OC_FMT_BF16, OC_FMT_BF16};
    CU_ASSERT_NOT_EQUAL(oc_fast_mixed_step(OC_ALG_ADAM, &plain, &bf16_state, 1, N - 1, param,
                                           master, overlap, g), OC_OK);
    CU_ASSERT(memcmp(master, keep_master, sizeof master) == 0);
    CU_ASSERT(memcmp(param, keep16, sizeof param) == 0);
    CU_ASSERT(m[0] == 0.5f && v[N - 1] == 0.5f && m16[0] == 0x3f00);
}

/* ---- FAST-LS-1 ---- */

/* The fast scaler and the reference agree bit for bit on every state along long random
 * histories (runs of infs and of clean steps), for every profile. */
static void test_loss_scale_matches_reference(void)
{
    const oc_loss_scaler cfgs[] = {
        {OC_LS_MEGATRON, 0x1p10f, 1.0f, 2.0f, 0.5f, 5, 2},
        {OC_LS_MEGATRON, 0x1p124f, 0x1p-3f, 4.0f, 0.25f, 3, 3}, /* grows to +inf */
        {OC_LS_MEGATRON_CONSTANT, 0x1p16f, 1.0f, 2.0f, 0.5f, 1, 1},
        {OC_LS_TORCH, 0x1p16f, 1.0f, 2.0f, 0.5f, 4, 1},
        {OC_LS_TORCH, 0x1p124f, 1.0f, 3.0f, 0x1p-7f, 2, 1}, /* keeps its scale; reaches 0 */
    };
    for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        oc_loss_scale_state f, r;
        CU_ASSERT_EQUAL_FATAL(oc_ref_loss_scale_init(&cfgs[c], &r), OC_OK);
        f = r;
        size_t bad = 0;
        int run = 0, inf = 0;
        for (int k = 0; k < 20000; k++) {
            if (run-- <= 0)
                inf = (rnd32() & 3) == 0, run = (int)(rnd32() % 12);
            CU_ASSERT_EQUAL_FATAL(oc_fast_loss_scale_update(&cfgs[c], &f, inf), OC_OK);
            CU_ASSERT_EQUAL_FATAL(oc_ref_loss_scale_update(&cfgs[c], &r, inf), OC_OK);
            bad += memcmp(&f.scale, &r.scale, sizeof f.scale) != 0 ||
                   f.growth_tracker != r.growth_tracker ||
                   (cfgs[c].profile == OC_LS_MEGATRON && f.hysteresis_tracker != r.hysteresis_tracker);
        }
        CU_ASSERT_EQUAL(bad, 0);
    }
}

static void test_loss_scale_bad_input_writes_nothing(void)
{
    oc_loss_scaler c = {OC_LS_MEGATRON, 0x1p10f, 1.0f, 2.0f, 0.5f, 5, 2};
    const oc_loss_scale_state bad_states[] = {{NAN, 0, 2}, {-1.0f, 0, 2}, {1.0f, 5, 2},
                                              {1.0f, -1, 2}, {1.0f, 0, 3}};
    for (size_t i = 0; i < sizeof bad_states / sizeof bad_states[0]; i++) {
        oc_loss_scale_state s = bad_states[i];
        CU_ASSERT_EQUAL(oc_fast_loss_scale_update(&c, &s, 1), OC_ERR_BAD_STEP);
        CU_ASSERT(memcmp(&s, &bad_states[i], sizeof s) == 0);
    }
    oc_loss_scale_state s = {0x1p10f, 0, 2}, keep = s;
    c.backoff_factor = 1.0f;
    CU_ASSERT_EQUAL(oc_fast_loss_scale_update(&c, &s, 1), OC_ERR_BAD_HPARAM);
    CU_ASSERT_EQUAL(oc_fast_loss_scale_update(NULL, &s, 1), OC_ERR_NULL_POINTER);
    CU_ASSERT(memcmp(&s, &keep, sizeof s) == 0);
}

/* ---- FAST-CLIP-1 ---- */

enum { MAX_VIEWS = 64 };

/* Views of a TP x PP x DP layout: per stage, one TP-sharded and one replicated parameter per TP
 * rank, a tied embedding on the first and last stage (the last one's copy `shared`), two
 * sub-optimizers; under ZeRO-1 each DP rank holds a disjoint slice, else a full replica. */
static size_t make_views(const oc_clip_config *c, size_t len, float scale, oc_clip_view *v,
                         float **grads)
{
    size_t nv = 0;
    for (int32_t pp = 0; pp < c->pp_size; pp++)
        for (int32_t tp = 0; tp < c->tp_size; tp++)
            for (int32_t dp = 0; dp < c->dp_size; dp++)
                for (int kind = 0; kind < 3; kind++) {
                    if (kind == 2 && pp != 0 && pp != c->pp_size - 1)
                        continue;
                    int shared = kind == 2 && pp == c->pp_size - 1 && c->pp_size > 1;
                    v[nv] = (oc_clip_view){tp, pp, dp, kind == 1, kind == 0, shared,
                                           len + (size_t)kind * 3, NULL};
                    grads[nv] = malloc(v[nv].length * sizeof(float));
                    for (size_t i = 0; i < v[nv].length; i++)
                        grads[nv][i] = rnd_sym(scale);
                    v[nv].grad = grads[nv];
                    nv++;
                }
    return nv;
}

/* One configuration: norm and clipped gradients within CLIP-TOL-2 of the reference's. */
static void clip_against_reference(oc_clip_config c, size_t len, float scale)
{
    oc_clip_view vf[MAX_VIEWS], vr[MAX_VIEWS];
    float *gf[MAX_VIEWS], *gr[MAX_VIEWS];
    size_t nv = make_views(&c, len, scale, vf, gf), m = 0;
    for (size_t i = 0; i < nv; i++) {
        vr[i] = vf[i];
        gr[i] = malloc(vf[i].length * sizeof(float));
        memcpy(gr[i], gf[i], vf[i].length * sizeof(float));
        vr[i].grad = gr[i];
        m += oc_clip_view_counted(&c, &vf[i]) ? vf[i].length : 0;
    }
    float nf, nr;
    int sf, sr;
    CU_ASSERT_EQUAL_FATAL(oc_fast_clip_step(&c, nv, vf, &nf, &sf), OC_OK);
    CU_ASSERT_EQUAL_FATAL(oc_ref_clip_step(&c, nv, vr, &nr, &sr), OC_OK);
    const double u = 0x1p-24, norm_rel = c.inf_norm ? 0 : ((double)m + 5) * u;
    CU_ASSERT(fabs((double)nf - nr) <= norm_rel * nr);
    CU_ASSERT_EQUAL(sf, sr);
    size_t bad = 0;
    for (size_t i = 0; i < nv; i++)
        for (size_t j = 0; j < vf[i].length; j++)
            bad += !(fabs((double)gf[i][j] - gr[i][j]) <=
                     fabs((double)gr[i][j]) * (norm_rel + 5 * u) + 0x1p-149);
    CU_ASSERT_EQUAL(bad, 0);
    for (size_t i = 0; i < nv; i++)
        free(gf[i]), free(gr[i]);
}

static void test_clip_matches_reference(void)
{
    for (int profile = 0; profile < OC_CLIP_PROFILE_COUNT; profile++)
        for (int inf = 0; inf < 2; inf++)
            for (int dist = 0; dist < 2; dist++) {
                oc_clip_config c = {(oc_clip_profile)profile, 1.0, inf, INFINITY, dist, 2, 3, 2};
                clip_against_reference(c, 100, 1.0f);             /* clipped */
                c.max_norm = 1e30;
                clip_against_reference(c, 100, 1.0f);             /* not clipped */
                c.max_norm = 1.0, c.tp_size = 1, c.pp_size = 1, c.dp_size = 1;
                clip_against_reference(c, 2 * OC_FAST_CHUNK + 5, 1e30f); /* squares > FLT_MAX */
                clip_against_reference(c, 2 * OC_FAST_CHUNK + 5, 1e-30f); /* squares < FLT_MIN */
            }
    oc_clip_config skip = {OC_CLIP_MEGATRON, 1.0, 0, 5.0, 0, 1, 1, 1};
    clip_against_reference(skip, 100, 1.0f); /* norm ~ 5.8 > 5: skipped, nothing scaled */
}

static void test_clip_bad_input_writes_nothing(void)
{
    float g[4] = {1, 2, NAN, 4}, keep[4];
    memcpy(keep, g, sizeof g);
    oc_clip_view v = {0, 0, 0, 0, 0, 0, 4, g};
    oc_clip_config c = {OC_CLIP_MEGATRON, 1.0, 0, INFINITY, 0, 1, 1, 1};
    float norm = -1.0f;
    int skipped = -1;
    CU_ASSERT_EQUAL(oc_fast_clip_step(&c, 1, &v, &norm, &skipped), OC_ERR_BAD_HPARAM);
    g[2] = 3;
    keep[2] = 3;
    CU_ASSERT_EQUAL(oc_fast_clip_step(&c, 1, &v, NULL, &skipped), OC_ERR_NULL_POINTER);
    v.tp_rank = 1; /* outside tp_size */
    CU_ASSERT_EQUAL(oc_fast_clip_step(&c, 1, &v, &norm, &skipped), OC_ERR_BAD_HPARAM);
    CU_ASSERT(memcmp(g, keep, sizeof g) == 0 && norm == -1.0f && skipped == -1);
}

/* ---- FAST-STEP-1 ---- */

/* A chain of two sub-optimizers: AdamW on two parameters (40 and 24 elements), Lion on one
 * (16): p, two states and the gradient of each parameter in one buffer. */
enum { CH_N = 80 };
typedef struct chain {
    float buf[4][CH_N];
    oc_guarded_param params[3];
    oc_sub_optimizer subs[2];
} chain;

static void chain_init(chain *c, float gscale)
{
    static const size_t len[3] = {40, 24, 16}, off[3] = {0, 40, 64};
    for (int b = 0; b < 4; b++)
        for (int i = 0; i < CH_N; i++)
            c->buf[b][i] = b == 2 ? 0.01f + fabsf(rnd_sym(0.01f)) : rnd_sym(b == 3 ? gscale : 1.0f);
    for (int i = 0; i < 3; i++)
        c->params[i] = (oc_guarded_param){len[i], c->buf[0] + off[i],
                                          {c->buf[1] + off[i], c->buf[2] + off[i], NULL},
                                          c->buf[3] + off[i]};
    oc_adam_hparams adam = adamw;
    adam.amsgrad = 0;
    c->subs[0] = (oc_sub_optimizer){.kind = OC_ALG_ADAM, .hp.adam = adam, .step = 4,
                                    .nparams = 2, .params = c->params};
    c->subs[1] = (oc_sub_optimizer){.kind = OC_ALG_LION,
                                    .hp.lion = {OC_LION_TORCH, 1e-4, 0.9, 0.99, 0.1},
                                    .step = 7, .nparams = 1, .params = c->params + 2};
}

static int same_scaler(const oc_loss_scale_state *a, const oc_loss_scale_state *b)
{
    return a->scale == b->scale && a->growth_tracker == b->growth_tracker &&
           a->hysteresis_tracker == b->hysteresis_tracker;
}

/* x and y the same up to rel relative error, or both NaN. */
static int close_to(float x, float y, double rel)
{
    return (isnan(x) && isnan(y)) || x == y || fabs((double)x - y) <= rel * fabs((double)y);
}

/* One guarded step by the reference and by the fast backend on the same chain (poisoned at
 * element 50 of the gradients by `poison` unless 0): the same status, outcome, scaler states,
 * position and counters; the norm, gradients and parameters within 1e-5 relative. A finite
 * norm takes FAST-STEP-2's two passes, a poisoned gradient or scales that differ the
 * four-pass route. second_scale: 0 for one scaler for the chain, else a scaler per
 * sub-optimizer (STEP-SCALER-2), the second one's at this scale. */
static void guarded_against_reference(oc_guard_mode mode, double clip, int inf_norm,
                                      double threshold, float poison, float second_scale,
                                      oc_guard_config *out_cfg)
{
    oc_guard_config cfg = {.mode = mode, .clip_grad = clip, .inf_norm = inf_norm,
                           .skip_threshold = threshold, .sub_scalers = second_scale != 0.0f};
    oc_loss_scaler scaler = {OC_LS_MEGATRON, 1024.0f, 1.0f, 2.0f, 0.5f, 3, 1};
    const oc_loss_scale_state second = {second_scale, 2, 1};
    oc_loss_scale_state ls[2][2] = {{{1024.0f, 2, 1}, second}, {{1024.0f, 2, 1}, second}};
    uint64_t seed = rng_state;
    chain *c[2];
    int64_t pos[2] = {100, 100};
    float norm[2] = {-1.0f, -1.0f};
    oc_step_outcome oc[2] = {OC_STEP_OUTCOME_COUNT, OC_STEP_OUTCOME_COUNT};
    oc_status st[2];
    for (int k = 0; k < 2; k++) {
        rng_state = seed;
        c[k] = malloc(sizeof *c[k]);
        chain_init(c[k], mode == OC_GUARD_SCALED ? 1024.0f : 1.0f);
        if (poison != 0.0f)
            c[k]->buf[3][50] = poison;
    }
    st[0] = oc_ref_guarded_step(&cfg, &scaler, ls[0], 2, c[0]->subs, &pos[0], 8, &norm[0], &oc[0]);
    st[1] = oc_fast_guarded_step(&cfg, &scaler, ls[1], 2, c[1]->subs, &pos[1], 8, &norm[1], &oc[1]);
    CU_ASSERT_EQUAL(st[0], OC_OK);
    CU_ASSERT_EQUAL(st[1], st[0]);
    CU_ASSERT_EQUAL(oc[1], oc[0]);
    CU_ASSERT_EQUAL(pos[1], pos[0]);
    CU_ASSERT(same_scaler(&ls[0][0], &ls[1][0]) && same_scaler(&ls[0][1], &ls[1][1]));
    CU_ASSERT(c[1]->subs[0].step == c[0]->subs[0].step && c[1]->subs[1].step == c[0]->subs[1].step);
    CU_ASSERT(close_to(norm[1], norm[0], 1e-6));
    size_t bad = 0;
    for (int b = 0; b < 4; b++)
        for (int i = 0; i < CH_N; i++)
            bad += !close_to(c[1]->buf[b][i], c[0]->buf[b][i], 1e-5);
    CU_ASSERT_EQUAL(bad, 0);
    if (out_cfg)
        *out_cfg = cfg;
    free(c[0]), free(c[1]);
}

static void test_guarded_matches_reference(void)
{
    guarded_against_reference(OC_GUARD_SCALED, 1.0, 0, INFINITY, 0.0f, 0, NULL);    /* clipped */
    guarded_against_reference(OC_GUARD_SCALED, 1.0, 0, INFINITY, INFINITY, 0, NULL); /* inf skip */
    guarded_against_reference(OC_GUARD_UNCHECKED, 1.0, 1, INFINITY, NAN, 0, NULL); /* NaN norm */
    guarded_against_reference(OC_GUARD_UNCHECKED, 1.0, 0, 1e3, -INFINITY, 0, NULL); /* norm skip */
    guarded_against_reference(OC_GUARD_CHECKED, 0.0, 0, INFINITY, 0.0f, 0, NULL);  /* norm only */
    guarded_against_reference(OC_GUARD_CHECKED, 1.0, 1, 0.5, 0.0f, 0, NULL);       /* norm skip */
    /* STEP-SCALER-2: a scaler per sub-optimizer, the same scale (two passes), the second's
     * halved (four passes), and an inf seen by one of them */
    guarded_against_reference(OC_GUARD_SCALED, 1.0, 0, INFINITY, 0.0f, 1024.0f, NULL);
    guarded_against_reference(OC_GUARD_SCALED, 1.0, 0, INFINITY, 0.0f, 512.0f, NULL);
    guarded_against_reference(OC_GUARD_SCALED, 1.0, 0, INFINITY, INFINITY, 512.0f, NULL);
}

/* STEP-ERR-1: the reference's status and nothing written (gradients, states, scaler). */
static void test_guarded_bad_input_writes_nothing(void)
{
    chain *c = malloc(sizeof *c), *keep = malloc(sizeof *keep);
    chain_init(c, 1024.0f);
    oc_guard_config cfg = {.mode = OC_GUARD_SCALED, .clip_grad = 1.0, .skip_threshold = INFINITY},
                    bad;
    oc_loss_scaler scaler = {OC_LS_MEGATRON, 1024.0f, 1.0f, 2.0f, 0.5f, 3, 1};
    oc_loss_scale_state ls = {1024.0f, 2, 1}, ls_keep = ls;
    int64_t pos = 100;
    float norm = -1.0f;
    oc_step_outcome outc = OC_STEP_OUTCOME_COUNT;
    memcpy(keep, c, sizeof *c);
#define GUARD_EXPECT(cfgp, nsub, incr)                                                           \
    do {                                                                                         \
        oc_status want = oc_ref_guarded_step(cfgp, &scaler, &ls, nsub, c->subs, &pos, incr,     \
                                             &norm, &outc);                                      \
        CU_ASSERT_NOT_EQUAL(want, OC_OK);                                                        \
        CU_ASSERT_EQUAL(oc_fast_guarded_step(cfgp, &scaler, &ls, nsub, c->subs, &pos, incr,     \
                                             &norm, &outc), want);                               \
        CU_ASSERT(memcmp(c->buf, keep->buf, sizeof c->buf) == 0 && pos == 100 &&                 \
                  norm == -1.0f && outc == OC_STEP_OUTCOME_COUNT &&                              \
                  same_scaler(&ls, &ls_keep));                                                     \
    } while (0)
    GUARD_EXPECT(NULL, 2, 8);
    bad = cfg, bad.mode = OC_GUARD_MODE_COUNT;
    GUARD_EXPECT(&bad, 2, 8);
    GUARD_EXPECT(&cfg, 2, -1);
    GUARD_EXPECT(&cfg, OC_GUARD_MAX_SUBS + 1, 8);
    bad = cfg, bad.clip_grad = NAN;
    GUARD_EXPECT(&bad, 2, 8);
    c->subs[1].hp.lion.beta1 = 1.5; /* the second sub-optimizer: the first is left alone too */
    GUARD_EXPECT(&cfg, 2, 8);
    c->subs[1].hp.lion.beta1 = 0.9;
    c->params[2].state[0] = c->params[2].p + 1; /* overlaps its own parameter */
    GUARD_EXPECT(&cfg, 2, 8);
    c->params[2].state[0] = c->buf[1] + 64;
    ls.growth_tracker = 7; /* not a reachable state */
    ls_keep = ls;
    GUARD_EXPECT(&cfg, 2, 8);
#undef GUARD_EXPECT
    free(c), free(keep);
}

void register_suites(void)
{
    ADD_SUITE("fast_step_control",
              {"mixed: the fp32 step, narrowed to nearest even", test_mixed_is_fp32_step_and_narrowing},
              {"mixed: bad input, nothing written", test_mixed_bad_input_writes_nothing},
              {"loss scale: the reference's states, bit for bit", test_loss_scale_matches_reference},
              {"loss scale: bad input, nothing written", test_loss_scale_bad_input_writes_nothing},
              {"clip: within CLIP-TOL-2 of the reference", test_clip_matches_reference},
              {"clip: bad input, nothing written", test_clip_bad_input_writes_nothing},
              {"guarded step: the reference's decisions, within 1e-5", test_guarded_matches_reference},
              {"guarded step: bad input, nothing written", test_guarded_bad_input_writes_nothing});
}
