/* MuonClip (Kimi K2 QK-clip) reference (spec/muon.md, rules MUONCLIP-*). Scalar C11, no
 * allocation, no I/O, no globals. Binary64 arithmetic from the fp32 inputs; every clipped weight
 * is rounded once to binary32 (MUONCLIP-STORE-1). */
#include <math.h>
#include <string.h>
#include "optcert/buffers.h"
#include "optcert/muon_clip.h"

#define QK_CLIP_MAX_DIM ((size_t)1 << 20) /* MUONCLIP-LAYOUT-1: each size at most 2^20 */

static const char *const mutant_names[OC_QK_CLIP_MUTANT_COUNT] = {
    "correct",       "gamma-on-both", "all-heads-clipped", "logit-not-divided-by-sqrt-d",
    "rotary-query-by-sqrt-gamma", "shared-rotary-key-clipped"};
static const char *const profile_names[OC_QK_CLIP_PROFILE_COUNT] = {"kimi", "megatron",
                                                                    "kimi-mla"};

const char *oc_qk_clip_mutant_name(oc_qk_clip_mutant mu)
{
    return (unsigned)mu < OC_QK_CLIP_MUTANT_COUNT ? mutant_names[mu] : NULL;
}

const char *oc_qk_clip_profile_name(oc_qk_clip_profile pr)
{
    return (unsigned)pr < OC_QK_CLIP_PROFILE_COUNT ? profile_names[pr] : NULL;
}

/*@ requires valid_read_string(name) && \valid(out);
    assigns *out;
    ensures \result == OC_OK ==> 0 <= *out < OC_QK_CLIP_PROFILE_COUNT; */
oc_status oc_qk_clip_profile_parse(const char *name, oc_qk_clip_profile *out)
{
    /* The names are valid strings: literals of 4, 8 and 8 characters (-wp-literals). */
    //@ assert name_0: \valid_read(profile_names[0] + (0 .. 4)) && profile_names[0][4] == '\0';
    //@ assert name_0_str: valid_read_string(profile_names[0]);
    //@ assert name_1: \valid_read(profile_names[1] + (0 .. 8)) && profile_names[1][8] == '\0';
    //@ assert name_1_str: valid_read_string(profile_names[1]);
    //@ assert name_2: \valid_read(profile_names[2] + (0 .. 8)) && profile_names[2][8] == '\0';
    //@ assert name_2_str: valid_read_string(profile_names[2]);
    /*@ loop invariant 0 <= i <= OC_QK_CLIP_PROFILE_COUNT;
        loop assigns i;
        loop variant OC_QK_CLIP_PROFILE_COUNT - i; */
    for (int i = 0; i < OC_QK_CLIP_PROFILE_COUNT; i++)
        if (strcmp(name, profile_names[i]) == 0) {
            *out = (oc_qk_clip_profile)i;
            return OC_OK;
        }
    return OC_ERR_BAD_PROFILE;
}

/* A layout oc_qk_clip_check accepts (its integer conditions; every size at most 2^20, so no
 * size_t product below overflows), and the elements of its weight (oc_qk_clip_len). */
/*@ predicate mla_sizes_ok(oc_qk_clip_config *c) =
        1 <= c->rope_dim <= QK_CLIP_MAX_DIM && 1 <= c->v_dim <= QK_CLIP_MAX_DIM &&
        1 <= c->q_cols <= QK_CLIP_MAX_DIM && 1 <= c->kv_cols <= QK_CLIP_MAX_DIM;
    predicate layout_ok(oc_qk_clip_config *c) =
        0 <= c->profile < OC_QK_CLIP_PROFILE_COUNT &&
        1 <= c->groups <= c->heads <= QK_CLIP_MAX_DIM && c->heads % c->groups == 0 &&
        1 <= c->head_dim <= QK_CLIP_MAX_DIM && 1 <= c->hidden <= QK_CLIP_MAX_DIM &&
        (c->profile != OC_QK_CLIP_MEGATRON ==> c->groups == c->heads) &&
        (c->profile == OC_QK_CLIP_KIMI_MLA ==> mla_sizes_ok(c));
    logic integer q_head(oc_qk_clip_config *c) = (c->head_dim + c->rope_dim) * c->q_cols;
    logic integer kv_head(oc_qk_clip_config *c) = (c->head_dim + c->v_dim) * c->kv_cols;
    logic integer shared_key(oc_qk_clip_config *c) = c->heads * (q_head(c) + kv_head(c));
    logic integer qk_len(oc_qk_clip_config *c) =
        c->profile == OC_QK_CLIP_KIMI_MLA ? shared_key(c) + c->rope_dim * c->hidden
        : c->groups * (c->heads / c->groups + 2) * c->head_dim * c->hidden; */

/*@ requires \valid_read(c);
    requires c->groups >= 1 && c->groups <= QK_CLIP_MAX_DIM && c->heads <= QK_CLIP_MAX_DIM;
    requires c->head_dim <= QK_CLIP_MAX_DIM && c->heads % c->groups == 0;
    assigns \nothing;
    ensures \result == c->groups * (c->heads / c->groups + 2) * c->head_dim; */
static size_t rows_of(const oc_qk_clip_config *c)
{
    return c->groups * (c->heads / c->groups + 2) * c->head_dim;
}

size_t oc_qk_clip_rows(const oc_qk_clip_config *c) { return rows_of(c); }

/* MUONCLIP-LAYOUT-MLA: elements of one head's rows of W_q up and of W_kv up, and where the
 * shared rotary key W_kr starts. */
/*@ requires \valid_read(c);
    assigns \nothing;
    ensures layout_ok(c) && mla_sizes_ok(c) ==> \result == q_head(c); */
static size_t mla_q_head(const oc_qk_clip_config *c)
{
    return (c->head_dim + c->rope_dim) * c->q_cols;
}
/*@ requires \valid_read(c);
    assigns \nothing;
    ensures layout_ok(c) && mla_sizes_ok(c) ==> \result == kv_head(c); */
static size_t mla_kv_head(const oc_qk_clip_config *c)
{
    return (c->head_dim + c->v_dim) * c->kv_cols;
}
/*@ requires \valid_read(c);
    assigns \nothing;
    ensures layout_ok(c) && mla_sizes_ok(c) ==> \result == shared_key(c); */
static size_t mla_shared_key(const oc_qk_clip_config *c)
{
    return c->heads * (mla_q_head(c) + mla_kv_head(c));
}

/*@ requires \valid_read(c);
    requires c->groups >= 1 && c->groups <= QK_CLIP_MAX_DIM && c->heads <= QK_CLIP_MAX_DIM;
    requires c->head_dim <= QK_CLIP_MAX_DIM && c->heads % c->groups == 0;
    assigns \nothing;
    ensures layout_ok(c) ==> \result == qk_len(c); */
size_t oc_qk_clip_len(const oc_qk_clip_config *c)
{
    return c->profile == OC_QK_CLIP_KIMI_MLA ? mla_shared_key(c) + c->rope_dim * c->hidden
                                             : rows_of(c) * c->hidden;
}

/*@ requires \valid_read(c) && \valid(seg + (0 .. 2)) && \separated(c, seg + (0 .. 2));
    requires c->groups >= 1 && c->groups <= QK_CLIP_MAX_DIM && c->heads <= QK_CLIP_MAX_DIM;
    requires c->heads % c->groups == 0;
    assigns seg[0 .. 2];
    ensures 2 <= \result <= 3;
    ensures inside: layout_ok(c) && g < c->groups ==>
        \forall integer k; 0 <= k < \result ==>
            0 <= seg[k].part <= OC_QK_PART_Q_ROTARY && seg[k].offset + seg[k].len <= qk_len(c); */
size_t oc_qk_clip_segments(const oc_qk_clip_config *c, size_t g, oc_qk_clip_segment seg[3])
{
    if (c->profile == OC_QK_CLIP_KIMI_MLA) { /* MUONCLIP-LAYOUT-MLA: head g */
        size_t q = g * mla_q_head(c), qc = c->head_dim * c->q_cols;
        seg[0] = (oc_qk_clip_segment){q, qc, OC_QK_PART_Q};
        seg[1] = (oc_qk_clip_segment){q + qc, c->rope_dim * c->q_cols, OC_QK_PART_Q_ROTARY};
        seg[2] = (oc_qk_clip_segment){c->heads * mla_q_head(c) + g * mla_kv_head(c),
                                      c->head_dim * c->kv_cols, OC_QK_PART_K};
        return 3;
    }
    size_t per = c->heads / c->groups, dh = c->head_dim * c->hidden; /* one head's rows */
    size_t block = g * (per + 2) * dh; /* [q heads; k; v] of group g (MUONCLIP-LAYOUT-1) */
    seg[0] = (oc_qk_clip_segment){block, per * dh, OC_QK_PART_Q};
    seg[1] = (oc_qk_clip_segment){block + per * dh, dh, OC_QK_PART_K};
    return 2;
}

/*@ assigns \nothing;
    ensures \result == (1 <= v <= QK_CLIP_MAX_DIM); */
static int size_ok(size_t v) { return v >= 1 && v <= QK_CLIP_MAX_DIM; }

/* MUONCLIP-CFG-1, MUONCLIP-LAYOUT-1, MUONCLIP-LAYOUT-MLA */
/*@ requires \valid_read(c);
    assigns \nothing;
    ensures \result == OC_OK ==> layout_ok(c); */
oc_status oc_qk_clip_check(const oc_qk_clip_config *c)
{
    if ((unsigned)c->profile >= OC_QK_CLIP_PROFILE_COUNT)
        return OC_ERR_BAD_PROFILE;
    if (!(c->tau >= 0x1p-20 && c->tau <= 0x1p20) || !(c->alpha >= 0 && c->alpha <= 1))
        return OC_ERR_BAD_HPARAM;
    if (c->groups < 1 || c->heads > QK_CLIP_MAX_DIM || c->groups > c->heads ||
        c->heads % c->groups != 0 || !size_ok(c->head_dim) || !size_ok(c->hidden) ||
        (c->profile != OC_QK_CLIP_MEGATRON && c->groups != c->heads))
        return OC_ERR_BAD_SHAPE;
    double elements = (double)rows_of(c) * (double)c->hidden;
    if (c->profile == OC_QK_CLIP_KIMI_MLA) {
        if (!size_ok(c->rope_dim) || !size_ok(c->v_dim) || !size_ok(c->q_cols) ||
            !size_ok(c->kv_cols))
            return OC_ERR_BAD_SHAPE;
        elements = (double)c->heads * ((double)(c->head_dim + c->rope_dim) * c->q_cols +
                                       (double)(c->head_dim + c->v_dim) * c->kv_cols) +
                   (double)c->rope_dim * c->hidden;
    }
    return elements <= 0x1p28 ? OC_OK : OC_ERR_BAD_SHAPE; /* the whole weight */
}

/* MUONCLIP-LOGIT-1: S_h = max_dot[h] / sqrt(d), d = d_c + d_r under MLA (MUONCLIP-LOGIT-MLA). */
/*@ requires \valid_read(c);
    assigns \nothing; */
static double logit(const oc_qk_clip_config *c, float max_dot, oc_qk_clip_mutant mutant)
{
    size_t d = c->head_dim + (c->profile == OC_QK_CLIP_KIMI_MLA ? c->rope_dim : 0);
    return mutant == OC_QK_CLIP_MUT_NO_SQRT_D ? (double)max_dot : (double)max_dot / sqrt((double)d);
}

/* MUONCLIP-GROUP-1: the largest logit of heads first .. first + count - 1 (count >= 1). */
/*@ requires \valid_read(c) && count >= 1 && first + count <= QK_CLIP_MAX_DIM;
    requires \valid_read(max_dot + (first .. first + count - 1));
    assigns \nothing; */
static double max_logit(const oc_qk_clip_config *c, const float *max_dot, size_t first,
                        size_t count, oc_qk_clip_mutant mutant)
{
    double s = logit(c, max_dot[first], mutant);
    /*@ loop invariant 1 <= j <= count;
        loop assigns j, s;
        loop variant count - j; */
    for (size_t j = 1; j < count; j++)
        s = fmax(s, logit(c, max_dot[first + j], mutant));
    return s;
}

/*@ requires \valid(w + (0 .. len - 1));
    requires 0 <= f <= 1;
    assigns w[0 .. len - 1]; */
static void scale_rows(float *w, size_t len, double f)
{
    /*@ loop invariant 0 <= i <= len;
        loop assigns i, w[0 .. len - 1];
        loop variant len - i; */
    for (size_t i = 0; i < len; i++)
        w[i] = (float)(w[i] * f); /* MUONCLIP-STORE-1 */
}

/* The buffers valid and apart for a layout the checks accept (oc_buffer_check and
 * oc_buffer_disjoint check NULL, alignment and overlap, not validity). */
/*@ requires c == \null || \valid_read(c);
    requires c != \null && layout_ok(c) ==>
        \valid_read(max_dot + (0 .. c->heads - 1)) && \valid(w + (0 .. qk_len(c) - 1)) &&
        \separated(w + (0 .. qk_len(c) - 1), c, max_dot + (0 .. c->heads - 1));
    assigns w[0 .. qk_len(c) - 1]; */
oc_status oc_ref_qk_clip(const oc_qk_clip_config *c, const float *max_dot, float *w,
                         oc_qk_clip_mutant mutant)
{
    if (c == NULL)
        return OC_ERR_NULL_POINTER;
    if ((unsigned)mutant >= OC_QK_CLIP_MUTANT_COUNT)
        return OC_ERR_BAD_PROFILE;
    oc_status st = oc_qk_clip_check(c);
    if (st != OC_OK)
        return st;
    size_t n = oc_qk_clip_len(c), per = c->heads / c->groups;
    if ((st = oc_buffer_check(max_dot, c->heads, sizeof(float))) ||
        (st = oc_buffer_check(w, n, sizeof(float))) ||
        (st = oc_buffer_disjoint(max_dot, c->heads * sizeof(float), w, n * sizeof(float))))
        return st;
    /*@ loop invariant 0 <= h <= c->heads;
        loop assigns h;
        loop variant c->heads - h; */
    for (size_t h = 0; h < c->heads; h++) /* MUONCLIP-ERR-1: checked before any write */
        if (!isfinite(max_dot[h]))
            return OC_ERR_NONFINITE;
    /*@ loop invariant 0 <= i <= n;
        loop assigns i;
        loop variant n - i; */
    for (size_t i = 0; i < n; i++)
        if (!isfinite(w[i]))
            return OC_ERR_NONFINITE;
    double layer_max = max_logit(c, max_dot, 0, c->heads, mutant);
    /*@ loop invariant 0 <= g <= c->groups;
        loop assigns g, w[0 .. n - 1];
        loop variant c->groups - g; */
    for (size_t g = 0; g < c->groups; g++) {
        //@ assert group_in: g * per + per <= c->groups * per == c->heads;
        double s = mutant == OC_QK_CLIP_MUT_ALL_HEADS ? layer_max
                                                      : max_logit(c, max_dot, g * per, per, mutant);
        if (!(s > c->tau))                /* MUONCLIP-GAMMA-1: only above tau */
            continue;
        double ratio = c->tau / s, gamma = ratio < 1 ? ratio : 1.0; /* min(1, tau / S) */
        /* MUONCLIP-SCALE-1, MUONCLIP-SCALE-MLA: indexed by oc_qk_clip_part */
        double factor[3] = {pow(gamma, c->alpha), pow(gamma, 1.0 - c->alpha), gamma};
        if (mutant == OC_QK_CLIP_MUT_GAMMA_ON_BOTH)
            factor[OC_QK_PART_Q] = factor[OC_QK_PART_K] = gamma;
        if (mutant == OC_QK_CLIP_MUT_ROTARY_Q_SQRT)
            factor[OC_QK_PART_Q_ROTARY] = factor[OC_QK_PART_Q];
        oc_qk_clip_segment seg[3];
        size_t parts = oc_qk_clip_segments(c, g, seg); /* v rows, W_kr untouched */
        /*@ loop invariant 0 <= k <= parts;
            loop assigns k, w[0 .. n - 1];
            loop variant parts - k; */
        for (size_t k = 0; k < parts; k++)
            scale_rows(w + seg[k].offset, seg[k].len, factor[seg[k].part]);
        if (mutant == OC_QK_CLIP_MUT_SHARED_KEY && c->profile == OC_QK_CLIP_KIMI_MLA)
            scale_rows(w + mla_shared_key(c), c->rope_dim * c->hidden, factor[OC_QK_PART_K]);
    }
    return OC_OK;
}
