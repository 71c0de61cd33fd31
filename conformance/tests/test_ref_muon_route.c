/* Unit tests of the mixed Muon + AdamW routing (ref/muon_route.c, spec/muon.md §11, ROUTE-*):
 * the rule on a model's parameters, the routed step against the plain Muon and AdamW steps,
 * the decay multiplier, and rejections. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cunit_main.h"
#include "f32_muon.h"
#include "optcert/impl.h"
#include "optcert/muon_route.h"
#include "../mutants/muon_route.h"

static oc_route_hparams megatron(void)
{
    oc_route_hparams hp;
    oc_muon_profile_defaults(OC_MUON_MEGATRON, &hp.muon);
    hp.muon.lr = 0.01;
    hp.muon.weight_decay = 0.1;
    hp.adamw = (oc_adam_hparams){OC_ADAM_TORCH, 0.01, 0.9, 0.999, 1e-8, 0.1, 0, 1, 1, 0, 0};
    return hp;
}

static float *pattern(size_t n, unsigned seed, float scale, int positive)
{
    float *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        float x = scale * ((float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f);
        v[i] = positive ? fabsf(x) : x;
    }
    return v;
}

static oc_status routed(const oc_route_hparams *hp, const oc_param_info *info, float *p, float *m,
                        float *v, const float *g, oc_route *route, oc_route_mutant mu)
{
    size_t len = oc_param_check(info) == OC_OK ? oc_routed_work_len(info) : 1;
    size_t slen = oc_param_check(info) == OC_OK ? oc_routed_scratch_len(info) : 1;
    double *work = malloc(len * sizeof *work);
    float *scratch = malloc(slen * sizeof *scratch);
    oc_status st = oc_route_mutant_step(mu, hp, info, 3, p, m, v, g, route, work, len, scratch, slen);
    free(work);
    free(scratch);
    return st;
}

static const struct {
    oc_param_info info;
    oc_route want;
} model[] = {
    {{"embedding.word_embeddings.weight", 2, {12, 4}, 1}, OC_ROUTE_ADAMW},
    {{"decoder.layers.0.input_layernorm.weight", 1, {4}, 0}, OC_ROUTE_ADAMW},
    {{"decoder.layers.0.self_attention.linear_qkv.weight", 2, {12, 4}, 0}, OC_ROUTE_MUON},
    {{"decoder.layers.0.self_attention.linear_qkv.bias", 1, {12}, 0}, OC_ROUTE_ADAMW},
    {{"decoder.layers.0.mlp.linear_fc1.weight", 2, {8, 4}, 0}, OC_ROUTE_MUON},
    {{"output_layer.weight", 2, {12, 4}, 1}, OC_ROUTE_ADAMW},
    {{"vision.conv1.weight", 4, {4, 3, 2, 2}, 0}, OC_ROUTE_ADAMW},
    {{"decoder.layers.0.mlp.experts.weight1", 3, {2, 4, 8}, 0}, OC_ROUTE_ADAMW},
};
#define NMODEL (sizeof model / sizeof model[0])

/* ROUTE-RULE-1: Muon exactly for the 2-D weights without the attribute; the mutants' routes. */
static void test_rule(void)
{
    for (size_t i = 0; i < NMODEL; i++) {
        CU_ASSERT_EQUAL(oc_param_check(&model[i].info), OC_OK);
        CU_ASSERT_EQUAL(oc_param_route(&model[i].info), model[i].want);
    }
    /* the head (index 5) by name, the embedding (0) and head by ignoring the attribute, the
     * gain (1) and the 4-D kernel (6) by the mutants that take them */
    static const struct { oc_route_mutant mu; size_t idx; } wrong[] = {
        {OC_ROUTE_MUT_ATTRIBUTE_IGNORED, 0}, {OC_ROUTE_MUT_ATTRIBUTE_IGNORED, 5},
        {OC_ROUTE_MUT_HEAD_BY_NAME, 5},      {OC_ROUTE_MUT_GAIN_TO_MUON, 1},
        {OC_ROUTE_MUT_NON_2D_TO_MUON, 6},
    };
    for (size_t k = 0; k < sizeof wrong / sizeof wrong[0]; k++) {
        const oc_param_info *info = &model[wrong[k].idx].info;
        size_t n = oc_param_numel(info);
        float *p = pattern(n, 1, 1, 0), *m = pattern(n, 2, 0.01f, 0), *v = pattern(n, 3, 1e-4f, 1);
        float *g = pattern(n, 4, 0.01f, 0);
        oc_route_hparams hp = megatron();
        oc_route r = OC_ROUTE_ADAMW;
        CU_ASSERT_EQUAL(routed(&hp, info, p, m, v, g, &r, wrong[k].mu), OC_OK);
        CU_ASSERT_EQUAL(r, OC_ROUTE_MUON);
        free(p), free(m), free(v), free(g);
    }
    /* the embedding keeps "embed" in its name: routing by name alone gets it right */
    oc_route_hparams hp = megatron();
    size_t n = 48;
    float *p = pattern(n, 1, 1, 0), *m = pattern(n, 2, 0.01f, 0), *v = pattern(n, 3, 1e-4f, 1);
    float *g = pattern(n, 4, 0.01f, 0);
    oc_route r = OC_ROUTE_MUON;
    CU_ASSERT_EQUAL(routed(&hp, &model[0].info, p, m, v, g, &r, OC_ROUTE_MUT_HEAD_BY_NAME), OC_OK);
    CU_ASSERT_EQUAL(r, OC_ROUTE_ADAMW);
    free(p), free(m), free(v), free(g);
}

/* ROUTE-RULE-1, ROUTE-WD-1: each routed step is the plain step of its optimizer bit for bit
 * (Muon on the 2-D shape with v untouched; AdamW with decay 0 on 1-D parameters and biases). */
static void test_steps(void)
{
    oc_route_hparams hp = megatron();
    for (size_t i = 0; i < NMODEL; i++) {
        const oc_param_info *info = &model[i].info;
        size_t n = oc_param_numel(info);
        float *p = pattern(n, 5, 1, 0), *m = pattern(n, 6, 0.01f, 0), *v = pattern(n, 7, 1e-4f, 1);
        float *g = pattern(n, 8, 0.01f, 0);
        float *p2 = malloc(n * sizeof *p2), *m2 = malloc(n * sizeof *m2), *v2 = malloc(n * sizeof *v2);
        memcpy(p2, p, n * sizeof *p), memcpy(m2, m, n * sizeof *m), memcpy(v2, v, n * sizeof *v);
        oc_route r;
        CU_ASSERT_EQUAL_FATAL(routed(&hp, info, p, m, v, g, &r, OC_ROUTE_CORRECT), OC_OK);
        if (model[i].want == OC_ROUTE_MUON) {
            size_t len = oc_muon_work_len(info->dims[0], info->dims[1]);
            double *work = malloc(len * sizeof *work);
            float *scratch = malloc(3 * n * sizeof *scratch);
            CU_ASSERT_EQUAL(oc_ref_muon_step(&hp.muon, info->dims[0], info->dims[1], p2, m2, g,
                                             work, len, scratch), OC_OK);
            free(work), free(scratch);
        } else {
            oc_adam_hparams a = hp.adamw;
            if (info->ndim == 1)
                a.weight_decay = 0;
            CU_ASSERT_EQUAL(oc_ref_adam_step(&a, 3, n, p2, m2, v2, NULL, g), OC_OK);
        }
        CU_ASSERT(memcmp(p, p2, n * sizeof *p) == 0);
        CU_ASSERT(memcmp(m, m2, n * sizeof *m) == 0);
        CU_ASSERT(memcmp(v, v2, n * sizeof *v) == 0);
        /* decay-on-gains changes exactly the 1-D parameters */
        memcpy(p2, p, n * sizeof *p);
        float *q = pattern(n, 5, 1, 0), *mq = pattern(n, 6, 0.01f, 0), *vq = pattern(n, 7, 1e-4f, 1);
        float *q2 = pattern(n, 5, 1, 0), *mq2 = pattern(n, 6, 0.01f, 0), *vq2 = pattern(n, 7, 1e-4f, 1);
        CU_ASSERT_EQUAL(routed(&hp, info, q, mq, vq, g, &r, OC_ROUTE_CORRECT), OC_OK);
        CU_ASSERT_EQUAL(routed(&hp, info, q2, mq2, vq2, g, &r, OC_ROUTE_MUT_DECAY_ON_GAINS), OC_OK);
        CU_ASSERT_EQUAL(memcmp(q, q2, n * sizeof *q) != 0, info->ndim == 1);
        free(p), free(m), free(v), free(g), free(p2), free(m2), free(v2);
        free(q), free(mq), free(vq), free(q2), free(mq2), free(vq2);
    }
    /* ROUTE-WD-1 by name: a 2-D parameter named *.bias is not decayed */
    oc_param_info bias2d = {"decoder.layers.0.odd.bias", 2, {2, 2}, 1};
    float p[4] = {1, -1, 0.5f, 2}, m[4] = {0}, v[4] = {0}, g[4] = {0}, p0[4];
    memcpy(p0, p, sizeof p);
    oc_route r;
    CU_ASSERT_EQUAL(routed(&hp, &bias2d, p, m, v, g, &r, OC_ROUTE_CORRECT), OC_OK);
    CU_ASSERT_EQUAL(r, OC_ROUTE_ADAMW);
    CU_ASSERT(memcmp(p, p0, sizeof p) == 0); /* zero gradient, no decay: unchanged */
}

/* ROUTE-PARAM-1, ROUTE-HP-1, ROUTE-ERR-1: rejected with nothing written and no route. */
/* ROUTE-PARAM-1's bounds: at most 2^24 elements (the product checked without wrapping: four
 * dims of 2^16 would wrap to 0 in size_t), names below 128 bytes; and the matrix view of a
 * 1-D and a 3-D parameter (1 x n, dims[0] x rest) in the workspace length. */
static void test_param_bounds(void)
{
    static char long_name[OC_PARAM_MAX_NAME + 1];
    memset(long_name, 'w', OC_PARAM_MAX_NAME);
    static const struct { oc_param_info info; size_t numel; } cases[] = {
        {{"w", 2, {4096, 4096}, 0}, 1u << 24},
        {{"w", 2, {4096, 4097}, 0}, 0},
        {{"w", 4, {1, 1, 1, 1u << 24}, 0}, 1u << 24},
        {{"w", 4, {1u << 24, 1, 1, 2}, 0}, 0},
        {{"w", 1, {(1u << 24) + 1}, 0}, 0},
        {{"w", 4, {1u << 16, 1u << 16, 1u << 16, 1u << 16}, 0}, 0},
        {{"w", 4, {1, 1u << 24, 1u << 24, 1u << 16}, 0}, 0},   /* dims[1..3] wrap to 0 */
        {{"w", 3, {6, 5, 4}, 0}, 120},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const oc_param_info *info = &cases[i].info;
        CU_ASSERT_EQUAL(oc_param_check(info), cases[i].numel ? OC_OK : OC_ERR_BAD_SHAPE);
        CU_ASSERT_EQUAL(oc_param_numel(info), cases[i].numel);
        CU_ASSERT_EQUAL(oc_routed_scratch_len(info), 3 * cases[i].numel);
    }
    oc_param_info name = {long_name, 1, {4}, 0};
    CU_ASSERT_EQUAL(oc_param_check(&name), OC_ERR_BAD_SHAPE);  /* 128 bytes */
    long_name[OC_PARAM_MAX_NAME - 1] = '\0';
    CU_ASSERT_EQUAL(oc_param_check(&name), OC_OK);             /* 127 bytes */
    size_t a = oc_muon_work_len(6, 20), b = oc_muon_work_len(1, 120);
    CU_ASSERT_EQUAL(oc_routed_work_len(&cases[7].info), a > b ? a : b);
    oc_param_info row = {"w", 1, {7}, 0};
    CU_ASSERT_EQUAL(oc_routed_work_len(&row), oc_muon_work_len(1, 7));
}

static void test_rejections(void)
{
    static const oc_param_info bad[] = {
        {"scalar", 0, {0}, 0},
        {"five", 5, {1, 1, 1, 1}, 0},
        {"empty", 2, {4, 0}, 0},
        {NULL, 2, {2, 2}, 0},
    };
    static const oc_status want[] = {OC_ERR_BAD_SHAPE, OC_ERR_BAD_SHAPE, OC_ERR_BAD_SHAPE,
                                     OC_ERR_NULL_POINTER};
    oc_route_hparams hp = megatron();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        float p[4] = {1, 2, 3, 4}, m[4] = {0}, v[4] = {0}, g[4] = {1, 1, 1, 1};
        oc_route r = (oc_route)7;
        CU_ASSERT_EQUAL(routed(&hp, &bad[i], p, m, v, g, &r, OC_ROUTE_CORRECT), want[i]);
        CU_ASSERT_EQUAL(r, (oc_route)7);
        CU_ASSERT_EQUAL(p[0], 1);
        /* the helpers on a rejected parameter: 0, no division by its 0 dim, no read past 4 */
        CU_ASSERT(oc_param_numel(&bad[i]) == 0 && oc_routed_work_len(&bad[i]) == 0 &&
                  oc_routed_scratch_len(&bad[i]) == 0 && oc_param_decays(&bad[i]) == 0 &&
                  oc_param_route(&bad[i]) == OC_ROUTE_ADAMW);
    }
    oc_param_info zero_rows = {"w", 2, {0, 3}, 0};
    CU_ASSERT(oc_param_numel(NULL) == 0 && oc_routed_work_len(&zero_rows) == 0);
    oc_param_info ok = {"decoder.layers.0.mlp.linear_fc1.weight", 2, {2, 2}, 0};
    float p[4] = {1, 2, 3, 4}, m[4] = {0}, v[4] = {0}, g[4] = {1, -1, 1, NAN};
    oc_route r = (oc_route)7;
    oc_route_hparams amsgrad = hp, nan_lr = hp;
    amsgrad.adamw.amsgrad = 1;
    nan_lr.muon.lr = NAN;
    CU_ASSERT_EQUAL(routed(&amsgrad, &ok, p, m, v, g, &r, OC_ROUTE_CORRECT), OC_ERR_BAD_HPARAM);
    CU_ASSERT_EQUAL(routed(&nan_lr, &ok, p, m, v, g, &r, OC_ROUTE_CORRECT), OC_ERR_BAD_HPARAM);
    CU_ASSERT_EQUAL(routed(&hp, &ok, p, m, v, g, &r, OC_ROUTE_CORRECT), OC_ERR_NONFINITE);
    CU_ASSERT_EQUAL(routed(&hp, &ok, p, m, v, g, NULL, OC_ROUTE_CORRECT), OC_ERR_NULL_POINTER);
    /* the API's pointer and workspace guards (ROUTE-ERR-1): the harness passes its own
     * configuration and buffers of the sizes the reference asks for (VEC-PLUG-2) */
    g[3] = 1;
    size_t wl = oc_routed_work_len(&ok);
    double *work = malloc(wl * sizeof *work);
    float scratch[12];
    CU_ASSERT_FATAL(work != NULL && oc_routed_scratch_len(&ok) == 12);
    CU_ASSERT_EQUAL(oc_ref_routed_step(NULL, &ok, 3, p, m, v, g, &r, work, wl, scratch, 12),
                    OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_routed_step(&hp, &ok, 3, p, m, NULL, g, &r, work, wl, scratch, 12),
                    OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_routed_step(&hp, &ok, 3, p, m, v, g, &r, work, wl, scratch, 11),
                    OC_ERR_BAD_SHAPE);
    free(work);
    CU_ASSERT_EQUAL(r, (oc_route)7);
    CU_ASSERT_EQUAL(p[0], 1);
    CU_ASSERT_EQUAL(m[0], 0);
}

/* ---- A float32 mixed optimizer for the judgement of §11 ---- */

/* torch.optim.AdamW's single-tensor step in binary32 (ADAM-*), decay as ROUTE-WD-1. */
static void adamw_f32(const oc_adam_hparams *hp, int decay, int64_t t, size_t n, float *p,
                      float *m, float *v, const float *g)
{
    float lr = (float)hp->lr, b1 = (float)hp->beta1, b2 = (float)hp->beta2, eps = (float)hp->eps;
    float bc1 = 1.0f - powf(b1, (float)t), bc2 = 1.0f - powf(b2, (float)t);
    for (size_t i = 0; i < n; i++) {
        if (decay)
            p[i] *= 1.0f - lr * (float)hp->weight_decay;
        m[i] += (g[i] - m[i]) * (1.0f - b1);
        v[i] = v[i] * b2 + (1.0f - b2) * g[i] * g[i];
        float denom = sqrtf(v[i]) / sqrtf(bc2) + eps;
        p[i] -= lr / bc1 * (m[i] / denom);
    }
}

/* The oc_routed_step_fn of the float32 optimizer: routes by ROUTE-RULE-1, or (non-NULL ctx)
 * by name like modded-nanogpt (2-D and no "embed" in the name). */
static oc_status f32_routed(void *ctx, const oc_route_hparams *hp, const oc_param_info *info,
                            int64_t step, float *p, float *m, float *v, const float *g,
                            oc_route *route)
{
    static const oc_muon_partition whole = {1, OC_MUON_TP_NONE, OC_MUON_SCALE_GLOBAL, 0, 0, 0};
    oc_status st = oc_param_check(info);
    if (st != OC_OK || (st = oc_muon_hparams_check(&hp->muon)) != OC_OK ||
        (st = oc_adam_check(&hp->adamw, step)) != OC_OK)
        return st;
    if (hp->adamw.amsgrad || hp->adamw.maximize || !hp->adamw.decoupled) /* ROUTE-HP-1 */
        return OC_ERR_BAD_HPARAM;
    size_t n = oc_param_numel(info), len = strlen(info->name);
    int muon = ctx ? info->ndim == 2 && strstr(info->name, "embed") == NULL
                   : oc_param_route(info) == OC_ROUTE_MUON;
    if (muon)
        st = f32_block_step(NULL, &hp->muon, &whole, info->dims[0], info->dims[1], p, m, g);
    else
        adamw_f32(&hp->adamw, !(info->ndim == 1 || (len >= 5 && !strcmp(info->name + len - 5, ".bias"))),
                  step, n, p, m, v, g);
    *route = muon ? OC_ROUTE_MUON : OC_ROUTE_ADAMW;
    return st;
}

/* ROUTE-RULE-1 with MUON-TOL-1 and ADAM-TOL-2: a float32 mixed optimizer conforms under the
 * fp32 class; the same optimizer routing by name fails the head's cases. */
static void test_f32_conforms(void)
{
    static int by_name = 1;
    test_table impl;
    test_algorithm_table(&impl, "float32 mixed", NULL, "muon-route", NULL,
                         (oc_entry_point)f32_routed);
    const char *dir = OPTCERT_SOURCE_DIR "/vectors";
    size_t passed;
    double worst;
    size_t fails = test_failures(&impl.t, dir, "muon-route", OC_CLASS_FP32, &worst, &passed);
    fprintf(stderr, "float32 mixed under fp32: %zu pass, %zu fail, worst %.3g\n", passed, fails,
            worst);
    CU_ASSERT_EQUAL(fails, 0);
    CU_ASSERT(passed >= 26);
    CU_ASSERT(worst < 0.5);
    impl.t.ctx = &by_name;
    fails = test_failures(&impl.t, dir, "muon-route", OC_CLASS_FP32, &worst, &passed);
    CU_ASSERT_EQUAL(fails, 2); /* output_layer.weight in both groups */
}

void register_suites(void)
{
    ADD_SUITE("muon route", {"rule", test_rule}, {"steps", test_steps},
              {"rejections", test_rejections}, {"parameter bounds", test_param_bounds}, {"float32 conforms", test_f32_conforms});
}
