/* Unit tests of the guarded step (ref/guarded_step.c, spec/guarded_step.md): a chained optimizer of
 * Adam, SGD and Lion sub-optimizers; a skipped step leaves every parameter, state, step counter
 * and the schedule position bit-identical while the scaler is updated; clipping uses one global
 * norm; a rejection writes nothing; every mutant (conformance/mutants/guarded_step.c) is
 * caught. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "cunit_main.h"
#include "optcert/clip.h"
#include "optcert/guarded_step.h"
#include "algos.h"
#include "../mutants/guarded_step.h"

#define N 8
enum { NSUB = 3, NPAR = 4 }; /* Adam: 2 parameters, SGD: 1, Lion: 1 */

typedef struct chain {
    float p[NPAR][N], s[NPAR][3][N], g[NPAR][N];
    oc_guarded_param params[NPAR];
    oc_sub_optimizer subs[NSUB];
} chain;

static void make_chain(chain *c, float grad_scale)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < NPAR; i++)
        for (int j = 0; j < N; j++) {
            c->p[i][j] = 0.25f * (float)(j - 3) + 0.125f * (float)i;
            c->s[i][0][j] = 0.01f * (float)(j + 1);
            c->s[i][1][j] = 0.001f * (float)(j + 2);
            c->g[i][j] = grad_scale * 0.0625f * (float)(j - i - 2);
        }
    for (int i = 0; i < NPAR; i++)
        c->params[i] = (oc_guarded_param){N, c->p[i], {c->s[i][0], c->s[i][1], NULL}, c->g[i]};
    c->subs[0] = (oc_sub_optimizer){.kind = OC_ALG_ADAM, .step = 4, .nparams = 2, .params = &c->params[0]};
    c->subs[0].hp.adam = (oc_adam_hparams){OC_ADAM_TORCH, 1e-3, 0.9, 0.999, 1e-8, 0.01, 0, 1, 1, 0, 0};
    c->subs[1] = (oc_sub_optimizer){.kind = OC_ALG_SGD, .step = 4, .nparams = 1, .params = &c->params[2]};
    c->subs[1].hp.sgd = (oc_sgd_hparams){OC_SGD_TORCH, 0.1, 0.9, 0, 0, 0, 0};
    c->subs[2] = (oc_sub_optimizer){.kind = OC_ALG_LION, .step = 4, .nparams = 1, .params = &c->params[3]};
    c->subs[2].hp.lion = (oc_lion_hparams){OC_LION_TORCH, 1e-4, 0.9, 0.99, 0.1};
}

/* The global norm of chain c's gradients as they are (clip.c, every parameter a view). */
static float global_norm(chain *c)
{
    oc_clip_view views[NPAR];
    const oc_clip_config cc = {OC_CLIP_MEGATRON, 0.0, 0, INFINITY, 0, 1, 1, 1};
    const double max_norm[OC_CLIP_MAX_OPTIMIZERS] = {0};
    float norm = -1.0f;
    double factor[OC_CLIP_MAX_OPTIMIZERS];
    for (int i = 0; i < NPAR; i++)
        views[i] = (oc_clip_view){0, 0, 0, i < 2 ? 0 : i - 1, 0, 0, N, c->g[i]};
    CU_ASSERT_EQUAL(oc_ref_clip_chained_factors(&cc, max_norm, NPAR, views, &norm, factor), OC_OK);
    return norm;
}

/* Everything a skipped step must not change, as bytes. */
static int same_optimizer_state(const chain *a, const chain *b)
{
    int same = memcmp(a->p, b->p, sizeof a->p) == 0 && memcmp(a->s, b->s, sizeof a->s) == 0;
    for (int k = 0; k < NSUB; k++)
        same &= a->subs[k].step == b->subs[k].step;
    return same;
}

static const oc_loss_scaler megatron = {OC_LS_MEGATRON, 0x1p16f, 1.0f, 2.0f, 0.5f, 1000, 2};
static const oc_guard_config scaled = {.mode = OC_GUARD_SCALED, .skip_threshold = INFINITY};
static const oc_guard_config unchecked = {.mode = OC_GUARD_UNCHECKED, .skip_threshold = INFINITY};
static const oc_guard_config checked = {.mode = OC_GUARD_CHECKED, .skip_threshold = INFINITY};

/* One guarded step of chain c, the correct reference. */
static oc_status step(const oc_guard_config *cfg, oc_loss_scale_state *ls, chain *c,
                      int64_t *position, float *norm, oc_step_outcome *outcome)
{
    return oc_ref_guarded_step(cfg, &megatron, ls, NSUB, c->subs, position, 256, norm, outcome);
}

/* STEP-UNSCALE-1, STEP-TAKE-1: a clean step equals the sub-optimizers' own steps on the
 * unscaled gradients (the loss scale 2^16 divides exactly). */
static void test_clean_step(void)
{
    static chain c, ref;
    make_chain(&c, 0x1p16f);
    make_chain(&ref, 1.0f);
    oc_loss_scale_state ls = {0x1p16f, 5, 2};
    int64_t position = 1024;
    oc_step_outcome outcome = OC_STEP_OUTCOME_COUNT;
    float norm = -1.0f;
    CU_ASSERT_EQUAL_FATAL(step(&scaled, &ls, &c, &position, &norm, &outcome), OC_OK);
    CU_ASSERT_EQUAL(outcome, OC_STEP_TAKEN);
    CU_ASSERT(norm == global_norm(&ref) && norm > 0.0f); /* computed, clipping disabled */
    CU_ASSERT_EQUAL(position, 1280);
    CU_ASSERT(ls.scale == 0x1p16f && ls.growth_tracker == 6 && ls.hysteresis_tracker == 2);
    CU_ASSERT(memcmp(c.g, ref.g, sizeof c.g) == 0);             /* unscaled exactly */
    for (int i = 0; i < 2; i++)
        CU_ASSERT_EQUAL(oc_ref_adam_step(&ref.subs[0].hp.adam, 5, N, ref.p[i], ref.s[i][0],
                                         ref.s[i][1], NULL, ref.g[i]), OC_OK);
    CU_ASSERT_EQUAL(oc_ref_sgd_step(&ref.subs[1].hp.sgd, 5, N, ref.p[2], ref.s[2][0], ref.g[2]),
                    OC_OK);
    CU_ASSERT_EQUAL(oc_ref_lion_step(&ref.subs[2].hp.lion, 5, N, ref.p[3], ref.s[3][0], ref.g[3]),
                    OC_OK);
    for (int k = 0; k < NSUB; k++)
        ref.subs[k].step = 5;
    CU_ASSERT(same_optimizer_state(&c, &ref));
}

/* STEP-FOUND-INF-1, STEP-SKIP-1, STEP-SCALER-1: inf, -inf or NaN in one element of one
 * parameter of any sub-optimizer skips everything, bit for bit; the scaler sees the inf. */
static void test_skipped_step_is_bit_identical(void)
{
    static const float bad[3] = {INFINITY, -INFINITY, NAN};
    static chain c, before;
    for (int v = 0; v < 3; v++)
        for (int par = 0; par < NPAR; par++) {
            make_chain(&c, 0x1p16f);
            c.g[par][(par * 3 + v) % N] = bad[v];
            before = c;
            oc_loss_scale_state ls = {0x1p16f, 5, 1};
            int64_t position = 1024;
            oc_step_outcome outcome = OC_STEP_OUTCOME_COUNT;
            float norm = -1.0f;
            oc_guard_config clipping = scaled;
            clipping.clip_grad = 1.0;
            CU_ASSERT_EQUAL_FATAL(step(&clipping, &ls, &c, &position, &norm, &outcome), OC_OK);
            CU_ASSERT_EQUAL(outcome, OC_STEP_SKIPPED_INF);
            CU_ASSERT(norm == 0.0f);
            CU_ASSERT_EQUAL(position, 1024);
            CU_ASSERT(same_optimizer_state(&c, &before));
            /* the scaler was updated: hysteresis 1 -> 0, backoff, growth tracker reset */
            CU_ASSERT(ls.scale == 0x1p15f && ls.growth_tracker == 0 && ls.hysteresis_tracker == 0);
        }
}

/* STEP-BF16-1: Megatron bf16 (no scaler) does not check: a NaN gradient reaches the weights;
 * the guarded mode skips instead. */
static void test_bf16_modes(void)
{
    static chain c, before;
    make_chain(&c, 1.0f);
    c.g[2][1] = NAN;                                             /* the SGD parameter */
    before = c;
    int64_t position = 0;
    oc_step_outcome outcome = OC_STEP_OUTCOME_COUNT;
    float norm = -1.0f;
    CU_ASSERT_EQUAL(step(&unchecked, NULL, &c, &position, &norm, &outcome), OC_OK);
    CU_ASSERT_EQUAL(outcome, OC_STEP_TAKEN);
    CU_ASSERT(isnan(c.p[2][1]) && position == 256);
    make_chain(&c, 1.0f);
    c.g[2][1] = NAN;
    position = 0;
    CU_ASSERT_EQUAL(step(&checked, NULL, &c, &position, &norm, &outcome), OC_OK);
    CU_ASSERT(outcome == OC_STEP_SKIPPED_INF && position == 0 && same_optimizer_state(&c, &before));
    /* unchecked with clipping (STEP-NONFINITE-1): a NaN norm leaves the gradients unclipped,
     * an infinite one zeroes every finite gradient and the threshold skips it */
    oc_guard_config clipping = unchecked;
    clipping.clip_grad = 1.0;
    make_chain(&c, 1.0f);
    c.g[2][1] = NAN;
    CU_ASSERT_EQUAL(step(&clipping, NULL, &c, &position, &norm, &outcome), OC_OK);
    CU_ASSERT(isnan(norm) && outcome == OC_STEP_TAKEN && c.g[0][0] == before.g[0][0]);
    make_chain(&c, 1.0f);
    c.g[2][1] = INFINITY;
    CU_ASSERT_EQUAL(step(&clipping, NULL, &c, &position, &norm, &outcome), OC_OK);
    CU_ASSERT(isinf(norm) && outcome == OC_STEP_TAKEN && c.g[0][0] == 0.0f && isnan(c.g[2][1]));
    make_chain(&c, 1.0f);
    c.g[2][1] = INFINITY;
    clipping.skip_threshold = 1e30;
    position = 0;
    CU_ASSERT_EQUAL(step(&clipping, NULL, &c, &position, &norm, &outcome), OC_OK);
    CU_ASSERT(outcome == OC_STEP_SKIPPED_NORM && position == 0);
}

/* STEP-ERR-1, STEP-CFG-1: an invalid sub-optimizer or configuration is found before anything
 * is written (not even the unscaling of the gradients). */
static void test_rejection_writes_nothing(void)
{
    static chain c, before;
    make_chain(&c, 0x1p16f);
    c.subs[2].hp.lion.beta1 = 1.5;
    before = c;
    oc_loss_scale_state ls = {0x1p16f, 5, 2};
    int64_t position = 7;
    oc_step_outcome outcome = OC_STEP_OUTCOME_COUNT;
    float norm = -1.0f;
    CU_ASSERT_EQUAL(step(&scaled, &ls, &c, &position, &norm, &outcome), OC_ERR_BAD_HPARAM);
    CU_ASSERT(same_optimizer_state(&c, &before) && memcmp(c.g, before.g, sizeof c.g) == 0);
    CU_ASSERT(position == 7 && outcome == OC_STEP_OUTCOME_COUNT && norm == -1.0f &&
              ls.growth_tracker == 5);
    CU_ASSERT_EQUAL(oc_ref_guarded_step(&scaled, NULL, &ls, NSUB, before.subs, &position, 1,
                                        &norm, &outcome), OC_ERR_NULL_POINTER);
    /* the last sub-optimizer's buffers alias (Lion's m is its p): its own step would reject
     * this after Adam and SGD had stepped; the guarded step rejects it first */
    make_chain(&c, 0x1p16f);
    c.params[3].state[0] = c.params[3].p;
    before = c;
    CU_ASSERT_EQUAL(step(&scaled, &ls, &c, &position, &norm, &outcome), OC_ERR_ALIASING);
    CU_ASSERT(same_optimizer_state(&c, &before) && memcmp(c.g, before.g, sizeof c.g) == 0);
    CU_ASSERT(position == 7 && ls.growth_tracker == 5);
    /* an invalid clipping configuration (CLIP-CFG-1) */
    oc_guard_config bad = scaled;
    bad.clip_grad = NAN;
    CU_ASSERT_EQUAL(step(&bad, &ls, &c, &position, &norm, &outcome), OC_ERR_BAD_HPARAM);
    CU_ASSERT(same_optimizer_state(&c, &before) && memcmp(c.g, before.g, sizeof c.g) == 0);
    /* STEP-CFG-1: 9 sub-optimizers, or 65 parameters in all */
    oc_sub_optimizer nine[OC_GUARD_MAX_SUBS + 1];
    for (int k = 0; k <= OC_GUARD_MAX_SUBS; k++) {
        nine[k] = c.subs[1];
        nine[k].nparams = 0;
    }
    CU_ASSERT_EQUAL(oc_ref_guarded_step(&scaled, &megatron, &ls, OC_GUARD_MAX_SUBS + 1, nine,
                                        &position, 1, &norm, &outcome),
                    OC_ERR_BAD_HPARAM);
    static oc_guarded_param many[OC_GUARD_MAX_PARAMS + 1];
    nine[0].nparams = OC_GUARD_MAX_PARAMS + 1;
    nine[0].params = many;
    CU_ASSERT_EQUAL(oc_ref_guarded_step(&scaled, &megatron, &ls, 1, nine, &position, 1, &norm,
                                        &outcome), OC_ERR_BAD_HPARAM);
    /* STEP-ERR-1's pointer and mode guards: the harness never passes NULL or an unknown mode
     * (VEC-PLUG-2) */
    nine[0].nparams = 0;
    CU_ASSERT_EQUAL(oc_guarded_step_check(NULL, &megatron, &ls, 1, nine, &position, 1, &norm,
                                          &outcome), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_guarded_step_check(&scaled, &megatron, &ls, 1, nine, NULL, 1, &norm,
                                          &outcome), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_guarded_step_check(&scaled, &megatron, &ls, 1, nine, &position, 1, NULL,
                                          &outcome), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_guarded_step_check(&scaled, &megatron, &ls, 1, nine, &position, 1, &norm,
                                          NULL), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_guarded_step_check(&scaled, &megatron, &ls, 1, NULL, &position, 1, &norm,
                                          &outcome), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_guarded_step_check(&scaled, &megatron, NULL, 1, nine, &position, 1, &norm,
                                          &outcome), OC_ERR_NULL_POINTER);
    oc_guard_config unknown = scaled;
    unknown.mode = OC_GUARD_MODE_COUNT;
    CU_ASSERT_EQUAL(oc_guarded_step_check(&unknown, &megatron, &ls, 1, nine, &position, 1, &norm,
                                          &outcome), OC_ERR_BAD_PROFILE);
    /* a negative position or step counter (the vectors' are integers >= 0) */
    int64_t negative = -1;
    CU_ASSERT_EQUAL(oc_guarded_step_check(&scaled, &megatron, &ls, 1, nine, &negative, 1, &norm,
                                          &outcome), OC_ERR_BAD_STEP);
    nine[0].step = -1;
    CU_ASSERT_EQUAL(oc_guarded_step_check(&scaled, &megatron, &ls, 1, nine, &position, 1, &norm,
                                          &outcome), OC_ERR_BAD_STEP);
    CU_ASSERT(position == 7 && ls.growth_tracker == 5 && norm == -1.0f);
}

/* STEP-CLIP-1, STEP-NORM-1: one global norm over every sub-optimizer (the clipping reference
 * over all the unscaled gradients), the same coefficient for all, the pre-clip norm returned;
 * then the sub-optimizers' steps on the clipped gradients. */
static void test_global_clipping(void)
{
    static chain c, ref;
    make_chain(&c, 0x1p16f);
    make_chain(&ref, 1.0f);
    oc_clip_view views[NPAR];
    for (int i = 0; i < NPAR; i++)
        views[i] = (oc_clip_view){0, 0, 0, i < 2 ? 0 : i - 1, 0, 0, N, ref.g[i]};
    const oc_clip_config cc = {OC_CLIP_MEGATRON, 0.5, 0, INFINITY, 0, 1, 1, 1};
    float want_norm;
    int clip_skipped;
    CU_ASSERT_EQUAL_FATAL(oc_ref_clip_step(&cc, NPAR, views, &want_norm, &clip_skipped), OC_OK);
    CU_ASSERT(want_norm > 0.5f);                                 /* clipping is active */
    oc_guard_config cfg = scaled;
    cfg.clip_grad = 0.5;
    oc_loss_scale_state ls = {0x1p16f, 5, 2};
    int64_t position = 0;
    oc_step_outcome outcome = OC_STEP_OUTCOME_COUNT;
    float norm = -1.0f;
    CU_ASSERT_EQUAL_FATAL(step(&cfg, &ls, &c, &position, &norm, &outcome), OC_OK);
    CU_ASSERT(outcome == OC_STEP_TAKEN && norm == want_norm && position == 256);
    CU_ASSERT(memcmp(c.g, ref.g, sizeof c.g) == 0);
    for (int i = 0; i < 2; i++)
        oc_ref_adam_step(&ref.subs[0].hp.adam, 5, N, ref.p[i], ref.s[i][0], ref.s[i][1], NULL,
                         ref.g[i]);
    oc_ref_sgd_step(&ref.subs[1].hp.sgd, 5, N, ref.p[2], ref.s[2][0], ref.g[2]);
    oc_ref_lion_step(&ref.subs[2].hp.lion, 5, N, ref.p[3], ref.s[3][0], ref.g[3]);
    for (int k = 0; k < NSUB; k++)
        ref.subs[k].step = 5;
    CU_ASSERT(same_optimizer_state(&c, &ref));
    /* grad_norm_skip_threshold below the norm: nothing steps, but the gradients were clipped
     * first (ChainedOptimizer.step), and the scaler counts a clean iteration */
    static chain before;
    make_chain(&c, 0x1p16f);
    make_chain(&before, 1.0f);
    memcpy(before.g, ref.g, sizeof ref.g);                      /* the clipped gradients */
    cfg.skip_threshold = 0.25;
    ls = (oc_loss_scale_state){0x1p16f, 5, 2};
    CU_ASSERT_EQUAL(step(&cfg, &ls, &c, &position, &norm, &outcome), OC_OK);
    CU_ASSERT(outcome == OC_STEP_SKIPPED_NORM && norm == want_norm && position == 256);
    CU_ASSERT(same_optimizer_state(&c, &before) && memcmp(c.g, before.g, sizeof c.g) == 0);
    CU_ASSERT(ls.growth_tracker == 6);
}

/* Megatron's per-sub-optimizer configuration (STEP-CLIP-2) and 'mtp' group (STEP-GROUP-1) on
 * chain c: Adam's second parameter and Lion's only one in the group; Lion's threshold below
 * every norm, the others' infinite. */
static const double group_clip[NSUB] = {0.5, 0.1, 0.2}, group_threshold[NSUB] = {INFINITY, INFINITY, 1e-3};
static const uint64_t group_mtp = 1u << 1 | 1u << 3;
static const int owner[NPAR] = {0, 0, 1, 2};

static void set_groups(oc_guard_config *cfg)
{
    cfg->per_sub = 1;
    cfg->mtp_params = group_mtp;
    for (int k = 0; k < NSUB; k++) {
        cfg->sub_clip_grad[k] = group_clip[k];
        cfg->sub_skip_threshold[k] = group_threshold[k];
    }
}

/* STEP-CLIP-2, STEP-GROUP-1 (ChainedOptimizer.step, megatron-core 0.19.2): each sub-optimizer
 * clips with its own clip_grad against the main norm, the 'mtp' group's gradients against that
 * group's own norm; only a sub-optimizer with a main parameter checks its threshold; the
 * reported norm is the main one. Expected values from the formulas (the squares of these
 * multiples of 2^-4 sum exactly in binary64). */
static void test_groups(void)
{
    static chain c, want;
    make_chain(&c, 1.0f);
    make_chain(&want, 1.0f);
    oc_guard_config cfg = checked;
    set_groups(&cfg);
    double sq[2] = {0, 0};
    for (int i = 0; i < NPAR; i++)
        for (int j = 0; j < N; j++)
            sq[group_mtp >> i & 1u] += (double)want.g[i][j] * want.g[i][j];
    const double main_norm = sqrt(sq[0]), mtp_norm = sqrt(sq[1]);
    for (int i = 0; i < NPAR; i++) {
        double coeff = group_clip[owner[i]] / ((group_mtp >> i & 1u ? mtp_norm : main_norm) + 1e-6);
        CU_ASSERT(coeff < 1.0);                                  /* every one clips */
        for (int j = 0; j < N; j++)
            want.g[i][j] = (float)(want.g[i][j] * coeff);
    }
    int64_t position = 0;
    float norm = -1.0f;
    oc_step_outcome outcome = OC_STEP_OUTCOME_COUNT;
    CU_ASSERT_EQUAL_FATAL(step(&cfg, NULL, &c, &position, &norm, &outcome), OC_OK);
    CU_ASSERT(outcome == OC_STEP_TAKEN && norm == (float)main_norm && position == 256);
    CU_ASSERT(memcmp(c.g, want.g, sizeof c.g) == 0);
    /* the SGD's threshold below the main norm: nothing steps */
    make_chain(&c, 1.0f);
    cfg.sub_skip_threshold[1] = main_norm / 2;
    CU_ASSERT_EQUAL(step(&cfg, NULL, &c, &position, &norm, &outcome), OC_OK);
    CU_ASSERT(outcome == OC_STEP_SKIPPED_NORM && position == 256);
    /* STEP-CFG-1, CLIP-CFG-1: rejected, nothing written */
    make_chain(&c, 1.0f);
    oc_guard_config bad[4];
    for (int b = 0; b < 4; b++)
        bad[b] = cfg;
    bad[0].mtp_params |= 1u << NPAR;                  /* a parameter the chain does not have */
    bad[1].sub_clip_grad[2] = NAN;
    bad[2].sub_skip_threshold[0] = 0;
    bad[3].per_sub = 2;
    for (int b = 0; b < 4; b++) {
        norm = -1.0f;
        CU_ASSERT_EQUAL(step(&bad[b], NULL, &c, &position, &norm, &outcome), OC_ERR_BAD_HPARAM);
        CU_ASSERT(norm == -1.0f && position == 256);
    }
}

/* STEP-SCALER-2 (Megatron): a scaler per sub-optimizer. Each unscales its own sub-optimizer's
 * gradients (the Lion's scaler at half the others' scale: its gradients come out doubled) and
 * sees only that sub-optimizer's inf; every state is checked before anything is written. */
static void test_sub_scalers(void)
{
    static chain c, want, before;
    oc_guard_config cfg = scaled;
    cfg.sub_scalers = 1;
    make_chain(&c, 0x1p16f);
    make_chain(&want, 1.0f);
    for (int j = 0; j < N; j++)
        want.g[3][j] *= 2.0f;
    oc_loss_scale_state ls[NSUB] = {{0x1p16f, 5, 2}, {0x1p16f, 5, 2}, {0x1p15f, 0, 0}};
    int64_t position = 0;
    float norm = -1.0f;
    oc_step_outcome outcome = OC_STEP_OUTCOME_COUNT;
    CU_ASSERT_EQUAL_FATAL(step(&cfg, ls, &c, &position, &norm, &outcome), OC_OK);
    CU_ASSERT(outcome == OC_STEP_TAKEN && memcmp(c.g, want.g, sizeof c.g) == 0);
    CU_ASSERT(ls[0].growth_tracker == 6 && ls[1].growth_tracker == 6 && ls[2].growth_tracker == 1);
    /* an inf in the SGD's gradient: everything skips, only the SGD's scaler sees it */
    make_chain(&c, 0x1p16f);
    c.g[2][5] = INFINITY;
    before = c;
    CU_ASSERT_EQUAL_FATAL(step(&cfg, ls, &c, &position, &norm, &outcome), OC_OK);
    CU_ASSERT(outcome == OC_STEP_SKIPPED_INF && same_optimizer_state(&c, &before));
    CU_ASSERT(ls[0].growth_tracker == 7 && ls[0].hysteresis_tracker == 2);
    CU_ASSERT(ls[1].growth_tracker == 0 && ls[1].hysteresis_tracker == 1);
    CU_ASSERT(ls[2].growth_tracker == 2 && ls[2].scale == 0x1p15f);
    /* the one scaler for the chain (STEP-SCALER-1) sees it instead */
    oc_loss_scale_state one = {0x1p16f, 5, 2};
    make_chain(&c, 0x1p16f);
    c.g[2][5] = INFINITY;
    CU_ASSERT_EQUAL_FATAL(step(&scaled, &one, &c, &position, &norm, &outcome), OC_OK);
    CU_ASSERT(outcome == OC_STEP_SKIPPED_INF && one.growth_tracker == 0 &&
              one.hysteresis_tracker == 1);
    /* STEP-ERR-1: the third state outside LS-STATE-1, or sub_scalers not 0 or 1 */
    make_chain(&c, 0x1p16f);
    before = c;
    ls[2].growth_tracker = -1;
    CU_ASSERT_EQUAL(step(&cfg, ls, &c, &position, &norm, &outcome), OC_ERR_BAD_STEP);
    CU_ASSERT(same_optimizer_state(&c, &before) && memcmp(c.g, before.g, sizeof c.g) == 0);
    CU_ASSERT(ls[0].growth_tracker == 7 && ls[1].hysteresis_tracker == 1);
    ls[2].growth_tracker = 0;
    cfg.sub_scalers = 2;
    CU_ASSERT_EQUAL(step(&cfg, ls, &c, &position, &norm, &outcome), OC_ERR_BAD_HPARAM);
    CU_ASSERT(memcmp(c.g, before.g, sizeof c.g) == 0 && ls[0].growth_tracker == 7);
}

/* Everything a step can change, for comparing a mutant with the reference. */
typedef struct outcome_of {
    chain c;
    oc_loss_scale_state ls[NSUB];
    int64_t position;
    float norm;
    oc_step_outcome outcome;
} outcome_of;

static void run_scenario(int scenario, oc_guard_mutant mu, outcome_of *o)
{
    oc_guard_config cfg = scaled;
    cfg.clip_grad = 0.5;
    make_chain(&o->c, 0x1p16f);
    if (scenario == 1)
        o->c.g[1][3] = INFINITY;             /* an inf in Adam's second parameter */
    if (scenario == 2)
        o->c.g[3][0] = 0x1p28f;              /* Lion's gradient dominates the norm */
    if (scenario == 3)
        set_groups(&cfg);                    /* STEP-CLIP-2, STEP-GROUP-1 */
    if (scenario == 4) {                     /* STEP-SCALER-2: an inf in the SGD's gradient */
        cfg.sub_scalers = 1;
        o->c.g[2][1] = INFINITY;
    }
    for (int k = 0; k < NSUB; k++)
        o->ls[k] = (oc_loss_scale_state){0x1p16f, 5, 2};
    o->position = 64;
    CU_ASSERT_EQUAL(oc_guard_mutant_step(mu, &cfg, &megatron, o->ls, NSUB, o->c.subs,
                                         &o->position, 256, &o->norm, &o->outcome), OC_OK);
}

static int same_outcome(const outcome_of *a, const outcome_of *b)
{
    return same_optimizer_state(&a->c, &b->c) && memcmp(a->c.g, b->c.g, sizeof a->c.g) == 0 &&
           memcmp(&a->ls, &b->ls, sizeof a->ls) == 0 && a->position == b->position &&
           a->norm == b->norm && a->outcome == b->outcome;
}

/* Each catalogued mistake changes what a step leaves behind in one of five scenarios (clean,
 * an inf in one sub-optimizer, one sub-optimizer dominating the norm, Megatron's
 * per-sub-optimizer configuration and 'mtp' group, Megatron's per-sub-optimizer scalers). */
static void test_mutants_are_caught(void)
{
    static outcome_of want, got;
    for (int mu = 1; mu < OC_GUARD_MUTANT_COUNT; mu++) {
        int caught = 0;
        for (int scenario = 0; scenario < 5; scenario++) {
            run_scenario(scenario, OC_GUARD_CORRECT, &want);
            run_scenario(scenario, (oc_guard_mutant)mu, &got);
            caught |= !same_outcome(&want, &got);
        }
        if (!caught)
            fprintf(stderr, "mutant %s not caught\n", oc_guard_mutant_name((oc_guard_mutant)mu));
        CU_ASSERT(caught);
    }
    CU_ASSERT_PTR_NULL(oc_guard_mutant_name(OC_GUARD_MUTANT_COUNT));
}

/* The reference's ABI entry point (include/optcert/impl.h) is the reference, bit for bit. */
static void test_abi_entry(void)
{
    static chain a, b;
    const oc_family_entry *e = oc_abi3_find(oc_ref(), "guarded-step-megatron");
    oc_guard_config cfg = scaled;
    cfg.clip_grad = 0.5;
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT(oc_abi3_has_option(e->options, "scaled") &&
              oc_abi3_has_option(e->options, "unchecked") &&
              oc_abi3_has_option(e->options, "checked") &&
              oc_abi3_has_option(e->options, "groups") &&
              oc_abi3_has_option(e->options, "scalers")); /* the whole list, none cut off */
    oc_guarded_step_fn ref_step = (oc_guarded_step_fn)e->entry;
    make_chain(&a, 0x1p16f);
    make_chain(&b, 0x1p16f);
    oc_loss_scale_state la = {0x1p16f, 5, 2}, lb = la;
    int64_t pa = 0, pb = 0;
    float na = -1.0f, nb = -2.0f;
    oc_step_outcome oa = OC_STEP_OUTCOME_COUNT, ob = OC_STEP_TAKEN;
    CU_ASSERT_EQUAL(step(&cfg, &la, &a, &pa, &na, &oa), OC_OK);
    CU_ASSERT_EQUAL(ref_step(oc_ref()->ctx, &cfg, &megatron, &lb, NSUB, b.subs, &pb, 256, &nb,
                             &ob), OC_OK);
    CU_ASSERT(same_optimizer_state(&a, &b) && memcmp(a.g, b.g, sizeof a.g) == 0);
    CU_ASSERT(memcmp(&la, &lb, sizeof la) == 0 && pa == pb && na == nb && oa == ob);
}

void register_suites(void)
{
    ADD_SUITE("guarded-step",
              {"clean step = the sub-optimizers' steps (STEP-UNSCALE-1, STEP-TAKE-1)",
               test_clean_step},
              {"inf/-inf/NaN anywhere: skipped bit for bit, scaler updated (STEP-FOUND-INF-1, "
               "STEP-SKIP-1, STEP-SCALER-1)", test_skipped_step_is_bit_identical},
              {"bf16: Megatron unchecked vs guarded (STEP-BF16-1)", test_bf16_modes},
              {"rejection writes nothing, also an aliasing last sub-optimizer (STEP-ERR-1)",
               test_rejection_writes_nothing},
              {"one global norm, pre-clip norm, threshold skip (STEP-CLIP-1, STEP-NORM-1)",
               test_global_clipping},
              {"per-sub-optimizer clip_grad and threshold, the 'mtp' group (STEP-CLIP-2, "
               "STEP-GROUP-1)", test_groups},
              {"a loss scaler per sub-optimizer (STEP-SCALER-2)", test_sub_scalers},
              {"every mutant is caught", test_mutants_are_caught},
              {"the reference's ABI entry point", test_abi_entry});
}
