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
            CU_ASSERT_EQUAL_FATAL(oc_ref_loss_scale_update(&cfgs[c], &r, inf, OC_LS_CORRECT), OC_OK);
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
    CU_ASSERT_EQUAL_FATAL(oc_ref_clip_step(&c, nv, vr, &nr, &sr, OC_CLIP_CORRECT), OC_OK);
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

void register_suites(void)
{
    ADD_SUITE("fast_step_control",
              {"mixed: the fp32 step, narrowed to nearest even", test_mixed_is_fp32_step_and_narrowing},
              {"mixed: bad input, nothing written", test_mixed_bad_input_writes_nothing},
              {"loss scale: the reference's states, bit for bit", test_loss_scale_matches_reference},
              {"loss scale: bad input, nothing written", test_loss_scale_bad_input_writes_nothing},
              {"clip: within CLIP-TOL-2 of the reference", test_clip_matches_reference},
              {"clip: bad input, nothing written", test_clip_bad_input_writes_nothing});
}
