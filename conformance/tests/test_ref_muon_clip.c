/* Unit tests of the MuonClip reference (ref/muon_clip.c) against closed forms of spec/muon.md
 * §9, and of the fp32 tolerance with a plain float32 implementation written here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "certify.h"
#include "../mutants/muon_clip.h"
#include "cunit_main.h"
#include "optcert/muon_clip.h"

/* 2 heads, d 4, hidden 1 (MHA): rows q0 k0 v0 q1 k1 v1, 4 each. */
static oc_muon_clip_config mha(void)
{
    return (oc_muon_clip_config){.profile = OC_MUON_CLIP_KIMI, .tau = 100, .alpha = 0.5, .heads = 2,
                                 .groups = 2, .head_dim = 4, .hidden = 1};
}

static void fill(float *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        w[i] = 1.0f + (float)i;
}

/* MUONCLIP-LOGIT-1, -GAMMA-1, -SCALE-1: head 0 at S = 800 / 2 = 400 (gamma 1/4: q and k rows
 * halved, v untouched), head 1 at S = 200 / 2 = 100 = tau exactly (untouched). */
static void test_closed_form(void)
{
    oc_muon_clip_config c = mha();
    float md[2] = {800, 200}, w[24], w0[24];
    fill(w, 24);
    memcpy(w0, w, sizeof w);
    CU_ASSERT_EQUAL_FATAL(oc_muon_clip_rows(&c), 24u); /* 2 groups of (1 + 2) x 4 rows */
    CU_ASSERT_EQUAL_FATAL(oc_ref_muon_clip(&c, md, w), OC_OK);
    for (size_t i = 0; i < 24; i++)
        CU_ASSERT_EQUAL(w[i], i < 8 ? w0[i] / 2 : w0[i]);
    /* the mutants: gamma on both quarters q and k; no sqrt(d) clips head 1 too (S 200) */
    fill(w, 24);
    CU_ASSERT_EQUAL(oc_muon_clip_mutant_clip(OC_MUON_CLIP_MUT_GAMMA_ON_BOTH, &c, md, w), OC_OK);
    CU_ASSERT_EQUAL(w[0], w0[0] / 4);
    fill(w, 24);
    CU_ASSERT_EQUAL(oc_muon_clip_mutant_clip(OC_MUON_CLIP_MUT_NO_SQRT_D, &c, md, w), OC_OK);
    CU_ASSERT_EQUAL(w[12], (float)(w0[12] * sqrt(0.5)));
    fill(w, 24);
    CU_ASSERT_EQUAL(oc_muon_clip_mutant_clip(OC_MUON_CLIP_MUT_ALL_HEADS, &c, md, w), OC_OK);
    CU_ASSERT_EQUAL(w[12], w0[12] / 2);
}

/* MUONCLIP-GROUP-1: 4 heads in 2 groups, d 1: group 0 by its largest head (S 400), group 1
 * (S 50, 90) untouched. Rows: q0 q1 k v | q2 q3 k v. */
static void test_groups(void)
{
    oc_muon_clip_config c = {.profile = OC_MUON_CLIP_MEGATRON, .tau = 100, .alpha = 0.5, .heads = 4,
                             .groups = 2, .head_dim = 1, .hidden = 1};
    float md[4] = {10, 400, 50, 90}, w[8], w0[8];
    fill(w, 8);
    memcpy(w0, w, sizeof w);
    CU_ASSERT_EQUAL_FATAL(oc_ref_muon_clip(&c, md, w), OC_OK);
    for (size_t i = 0; i < 8; i++)
        CU_ASSERT_EQUAL(w[i], i < 3 ? w0[i] / 2 : w0[i]);
    c.profile = OC_MUON_CLIP_KIMI; /* per head: grouped layouts are rejected */
    CU_ASSERT_EQUAL(oc_ref_muon_clip(&c, md, w), OC_ERR_BAD_SHAPE);
}

/* MUONCLIP-LAYOUT-MLA, -LOGIT-MLA, -SCALE-MLA: 2 heads, d_c 3 + d_r 1 (d 4), d_v 1, one
 * column each: rows W_qc0 (3) W_qr0 W_qc1 (3) W_qr1 | W_kc0 (3) W_v0 W_kc1 (3) W_v1 | W_kr.
 * Head 0 at S = 800 / 2 = 400 (gamma 1/4): W_qc0, W_kc0 halved, W_qr0 quartered; head 1 at
 * S = tau exactly; W_v and the shared rotary key W_kr untouched. */
static void test_mla(void)
{
    oc_muon_clip_config c = {.profile = OC_MUON_CLIP_KIMI_MLA, .tau = 100, .alpha = 0.5, .heads = 2,
                             .groups = 2, .head_dim = 3, .hidden = 1, .rope_dim = 1, .v_dim = 1,
                             .q_cols = 1, .kv_cols = 1};
    float md[2] = {800, 200}, w[17], w0[17];
    static const float want[17] = {2, 2, 2, 4, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1}; /* divisor */
    fill(w, 17);
    memcpy(w0, w, sizeof w);
    CU_ASSERT_EQUAL_FATAL(oc_muon_clip_len(&c), 17u);
    CU_ASSERT_EQUAL_FATAL(oc_ref_muon_clip(&c, md, w), OC_OK);
    for (size_t i = 0; i < 17; i++)
        CU_ASSERT_EQUAL(w[i], w0[i] / want[i]);
    /* the mutants: W_qr0 by sqrt(gamma) = 1/2; W_kr by sqrt(gamma) */
    fill(w, 17);
    CU_ASSERT_EQUAL(oc_muon_clip_mutant_clip(OC_MUON_CLIP_MUT_ROTARY_Q_SQRT, &c, md, w), OC_OK);
    CU_ASSERT_EQUAL(w[3], w0[3] / 2);
    fill(w, 17);
    CU_ASSERT_EQUAL(oc_muon_clip_mutant_clip(OC_MUON_CLIP_MUT_SHARED_KEY, &c, md, w), OC_OK);
    CU_ASSERT_EQUAL(w[16], w0[16] / 2);
    c.rope_dim = 0; /* MLA needs rotary rows */
    CU_ASSERT_EQUAL(oc_ref_muon_clip(&c, md, w), OC_ERR_BAD_SHAPE);
    c.rope_dim = 1;
    c.groups = 1; /* per head */
    CU_ASSERT_EQUAL(oc_ref_muon_clip(&c, md, w), OC_ERR_BAD_SHAPE);
}

/* MUONCLIP-CFG-1, MUONCLIP-ERR-1: rejected with nothing written. */
static void test_rejections(void)
{
    float md[2] = {800, NAN}, w[24], w0[24];
    fill(w, 24);
    memcpy(w0, w, sizeof w);
    oc_muon_clip_config c = mha();
    CU_ASSERT_EQUAL(oc_ref_muon_clip(&c, md, w), OC_ERR_NONFINITE);
    md[1] = 1;
    w[23] = INFINITY;
    CU_ASSERT_EQUAL(oc_ref_muon_clip(&c, md, w), OC_ERR_NONFINITE);
    w[23] = w0[23];
    c.tau = 0;
    CU_ASSERT_EQUAL(oc_ref_muon_clip(&c, md, w), OC_ERR_BAD_HPARAM);
    c = mha();
    c.alpha = -0.5;
    CU_ASSERT_EQUAL(oc_ref_muon_clip(&c, md, w), OC_ERR_BAD_HPARAM);
    c = mha();
    c.groups = 0;
    CU_ASSERT_EQUAL(oc_ref_muon_clip(&c, md, w), OC_ERR_BAD_SHAPE);
    c = mha();
    CU_ASSERT_EQUAL(oc_ref_muon_clip(&c, NULL, w), OC_ERR_NULL_POINTER);
    /* MUONCLIP-ERR-1: logits overlapping the weight, a misaligned weight */
    CU_ASSERT_EQUAL(oc_ref_muon_clip(&c, w + 22, w), OC_ERR_ALIASING);
    _Alignas(16) unsigned char raw[sizeof w + 1] = {0};
    float *misaligned = (float *)(void *)(raw + 1);
    CU_ASSERT_EQUAL(oc_ref_muon_clip(&c, md, misaligned), OC_ERR_MISALIGNED);
    CU_ASSERT_EQUAL(oc_ref_muon_clip(NULL, md, w), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(memcmp(w, w0, sizeof w), 0);
    /* the profile names (MUONCLIP-PROF-*): none for a value outside the enum or a misspelling */
    oc_muon_clip_profile pr;
    CU_ASSERT_STRING_EQUAL(oc_muon_clip_profile_name(OC_MUON_CLIP_KIMI_MLA), "kimi-mla");
    CU_ASSERT_PTR_NULL(oc_muon_clip_profile_name(OC_MUON_CLIP_PROFILE_COUNT));
    CU_ASSERT_EQUAL(oc_muon_clip_profile_parse("kimi_mla", &pr), OC_ERR_BAD_PROFILE);
}

/* Everything in float: S, gamma, powf, the product (spec/muon.md MUONCLIP-TOL-1). */
static oc_status float_clip(void *ctx, const oc_muon_clip_config *c, const float *max_dot, float *w)
{
    (void)ctx;
    size_t n = c && w && c->groups ? oc_muon_clip_len(c) : 0;
    /* The reference only validates, on a copy: first the configuration and the logits on zero
     * weights (n is w's length only for a configuration it accepts), then the weights. */
    float *copy = calloc(n + 1, sizeof *copy);
    if (!copy)
        return OC_ERR_INTERNAL;
    oc_status st = oc_ref_muon_clip(c, max_dot, n ? copy : NULL);
    if (st == OC_OK) {
        memcpy(copy, w, n * sizeof *copy);
        st = oc_ref_muon_clip(c, max_dot, copy);
    }
    free(copy);
    if (st != OC_OK)
        return st;
    size_t per = c->heads / c->groups;
    size_t d = c->head_dim + (c->profile == OC_MUON_CLIP_KIMI_MLA ? c->rope_dim : 0);
    float sd = sqrtf((float)d), tau = (float)c->tau, alpha = (float)c->alpha;
    for (size_t g = 0; g < c->groups; g++) {
        float s = -INFINITY;
        for (size_t j = 0; j < per; j++)
            s = fmaxf(s, max_dot[g * per + j] / sd);
        if (!(s > tau))
            continue;
        float gamma = tau / s, factor[3] = {powf(gamma, alpha), powf(gamma, 1.0f - alpha), gamma};
        oc_muon_clip_segment seg[3];
        for (size_t p = 0, parts = oc_muon_clip_segments(c, g, seg); p < parts; p++)
            for (size_t i = seg[p].offset; i < seg[p].offset + seg[p].len; i++)
                w[i] *= factor[seg[p].part];
    }
    return OC_OK;
}

static void test_fp32_tolerance(void)
{
    test_table impl;
    test_algorithm_table(&impl, "float-qk-clip", NULL, "muonclip", NULL,
                         (oc_entry_point)float_clip);
    oc_certificate cert;
    oc_diag d;
    CU_ASSERT_EQUAL_FATAL(oc_certify(&impl.t, OPTCERT_SOURCE_DIR "/vectors", NULL, OC_CLASS_FP32,
                                     &cert, &d), OC_OK);
    size_t passes = 0, fails = 0;
    for (size_t f = 0; f < cert.nfams; f++) {
        if (strncmp(cert.fams[f].name, "muonclip-", 9) != 0)
            continue;
        passes += cert.fams[f].counts[OC_PASS];
        fails += cert.fams[f].counts[OC_FAIL];
        printf("\n%s: worst ratio %.3f of the bound\n", cert.fams[f].name, cert.fams[f].worst_ratio);
        CU_ASSERT(cert.fams[f].worst_ratio < 0.5);
    }
    CU_ASSERT(fails == 0 && passes == 68); /* 56, then 12 boundary cases (issue 19 item 3) */
    oc_certificate_free(&cert);
}

void register_suites(void)
{
    ADD_SUITE("muonclip",
              {"closed form and mutants (MUONCLIP-LOGIT-1, MUONCLIP-GAMMA-1, MUONCLIP-SCALE-1, "
               "MUONCLIP-STORE-1, MUONCLIP-LAYOUT-1)",
               test_closed_form},
              {"query groups (MUONCLIP-GROUP-1, MUONCLIP-PROF-MEGATRON, MUONCLIP-PROF-KIMI)",
               test_groups},
              {"multi-head latent attention (MUONCLIP-LAYOUT-MLA, MUONCLIP-LOGIT-MLA, "
               "MUONCLIP-SCALE-MLA, MUONCLIP-PROF-KIMI-MLA)",
               test_mla},
              {"rejections (MUONCLIP-CFG-1, MUONCLIP-ERR-1)", test_rejections},
              {"a float32 implementation passes fp32 (MUONCLIP-TOL-1, VEC-FMT-13)",
               test_fp32_tolerance});
}
