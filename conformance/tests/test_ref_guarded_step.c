/* Unit tests of the guarded step (ref/guarded_step.c, spec/draft/step.md): a chained optimizer of
 * Adam, SGD and Lion sub-optimizers; a skipped step leaves every parameter, state, step counter
 * and the schedule position bit-identical while the scaler is updated. */
#include <math.h>
#include <string.h>
#include "cunit_main.h"
#include "optcert/guarded_step.h"

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
    c->subs[0] = (oc_sub_optimizer){.kind = OC_SUB_ADAM, .step = 4, .nparams = 2, .params = &c->params[0]};
    c->subs[0].hp.adam = (oc_adam_hparams){OC_ADAM_TORCH, 1e-3, 0.9, 0.999, 1e-8, 0.01, 0, 1, 1, 0, 0};
    c->subs[1] = (oc_sub_optimizer){.kind = OC_SUB_SGD, .step = 4, .nparams = 1, .params = &c->params[2]};
    c->subs[1].hp.sgd = (oc_sgd_hparams){OC_SGD_TORCH, 0.1, 0.9, 0, 0, 0, 0};
    c->subs[2] = (oc_sub_optimizer){.kind = OC_SUB_LION, .step = 4, .nparams = 1, .params = &c->params[3]};
    c->subs[2].hp.lion = (oc_lion_hparams){OC_LION_TORCH, 1e-4, 0.9, 0.99, 0.1};
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

/* STEP-UNSCALE-1, STEP-TAKE-1: a clean step equals the sub-optimizers' own steps on the
 * unscaled gradients (the loss scale 2^16 divides exactly). */
static void test_clean_step(void)
{
    static chain c, ref;
    make_chain(&c, 0x1p16f);
    make_chain(&ref, 1.0f);
    oc_loss_scale_state ls = {0x1p16f, 5, 2};
    int64_t position = 1024;
    int skipped = -1;
    CU_ASSERT_EQUAL_FATAL(oc_ref_guarded_step(OC_GUARD_SCALED, &megatron, &ls, NSUB, c.subs,
                                              &position, 256, &skipped), OC_OK);
    CU_ASSERT_EQUAL(skipped, 0);
    CU_ASSERT_EQUAL(position, 1280);
    CU_ASSERT(ls.scale == 0x1p16f && ls.growth_tracker == 6 && ls.hysteresis_tracker == 2);
    CU_ASSERT(memcmp(c.g, ref.g, sizeof c.g) == 0);             /* unscaled exactly */
    for (int i = 0; i < 2; i++)
        CU_ASSERT_EQUAL(oc_ref_adam_step(&ref.subs[0].hp.adam, 5, N, ref.p[i], ref.s[i][0],
                                         ref.s[i][1], NULL, ref.g[i], OC_ADAM_CORRECT), OC_OK);
    CU_ASSERT_EQUAL(oc_ref_sgd_step(&ref.subs[1].hp.sgd, 5, N, ref.p[2], ref.s[2][0], ref.g[2],
                                    OC_SGD_CORRECT), OC_OK);
    CU_ASSERT_EQUAL(oc_ref_lion_step(&ref.subs[2].hp.lion, 5, N, ref.p[3], ref.s[3][0], ref.g[3],
                                     OC_LION_CORRECT), OC_OK);
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
            int skipped = -1;
            CU_ASSERT_EQUAL_FATAL(oc_ref_guarded_step(OC_GUARD_SCALED, &megatron, &ls, NSUB,
                                                      c.subs, &position, 256, &skipped), OC_OK);
            CU_ASSERT_EQUAL(skipped, 1);
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
    int skipped = -1;
    oc_status st = oc_ref_guarded_step(OC_GUARD_UNCHECKED, NULL, NULL, NSUB, c.subs, &position,
                                       8, &skipped);
    CU_ASSERT_EQUAL(st, OC_OK);
    CU_ASSERT_EQUAL(skipped, 0);
    CU_ASSERT(isnan(c.p[2][1]) && position == 8);
    make_chain(&c, 1.0f);
    c.g[2][1] = NAN;
    position = 0;
    CU_ASSERT_EQUAL(oc_ref_guarded_step(OC_GUARD_CHECKED, NULL, NULL, NSUB, c.subs, &position,
                                        8, &skipped), OC_OK);
    CU_ASSERT(skipped == 1 && position == 0 && same_optimizer_state(&c, &before));
}

/* STEP-ERR-1: an invalid sub-optimizer is found before anything is written (not even the
 * unscaling of the gradients). */
static void test_rejection_writes_nothing(void)
{
    static chain c, before;
    make_chain(&c, 0x1p16f);
    c.subs[2].hp.lion.beta1 = 1.5;
    before = c;
    oc_loss_scale_state ls = {0x1p16f, 5, 2};
    int64_t position = 7;
    int skipped = -1;
    CU_ASSERT_EQUAL(oc_ref_guarded_step(OC_GUARD_SCALED, &megatron, &ls, NSUB, c.subs, &position,
                                        1, &skipped), OC_ERR_BAD_HPARAM);
    CU_ASSERT(same_optimizer_state(&c, &before) && memcmp(c.g, before.g, sizeof c.g) == 0);
    CU_ASSERT(position == 7 && skipped == -1 && ls.growth_tracker == 5);
    CU_ASSERT_EQUAL(oc_ref_guarded_step(OC_GUARD_SCALED, NULL, &ls, NSUB, before.subs, &position,
                                        1, &skipped), OC_ERR_NULL_POINTER);
}

void register_suites(void)
{
    ADD_SUITE("guarded-step",
              {"clean step = the sub-optimizers' steps (STEP-UNSCALE-1, STEP-TAKE-1)",
               test_clean_step},
              {"inf/-inf/NaN anywhere: skipped bit for bit, scaler updated (STEP-FOUND-INF-1, "
               "STEP-SKIP-1, STEP-SCALER-1)", test_skipped_step_is_bit_identical},
              {"bf16: Megatron unchecked vs guarded (STEP-BF16-1)", test_bf16_modes},
              {"rejection writes nothing (STEP-ERR-1)", test_rejection_writes_nothing});
}
