/* MuonClip (Kimi K2 QK-clip) reference (spec/muon.md, rules MUONCLIP-*). Scalar C11, no
 * allocation, no I/O, no globals. Binary64 arithmetic from the fp32 inputs; every clipped weight
 * is rounded once to binary32 (MUONCLIP-STORE-1). */
#include <errno.h>
#include <math.h>
#include <string.h>
#include "optcert/buffers.h"
#include "optcert/muon_clip.h"

static const char *const profile_names[OC_MUON_CLIP_PROFILE_COUNT] = {"kimi", "megatron",
                                                                      "kimi-mla"};

const char *oc_muon_clip_profile_name(oc_muon_clip_profile pr)
{
    return (unsigned)pr < OC_MUON_CLIP_PROFILE_COUNT ? profile_names[pr] : NULL;
}

oc_status oc_muon_clip_profile_parse(const char *name, oc_muon_clip_profile *out)
{
    /* The names are valid strings: literals of 4, 8 and 8 characters (-wp-literals). */
    //@ assert name_0: \valid_read(profile_names[0] + (0 .. 4)) && profile_names[0][4] == '\0';
    //@ assert name_0_str: valid_read_string(profile_names[0]);
    //@ assert name_1: \valid_read(profile_names[1] + (0 .. 8)) && profile_names[1][8] == '\0';
    //@ assert name_1_str: valid_read_string(profile_names[1]);
    //@ assert name_2: \valid_read(profile_names[2] + (0 .. 8)) && profile_names[2][8] == '\0';
    //@ assert name_2_str: valid_read_string(profile_names[2]);
    /*@ loop invariant 0 <= i <= OC_MUON_CLIP_PROFILE_COUNT;
        loop assigns i;
        loop variant OC_MUON_CLIP_PROFILE_COUNT - i; */
    for (int i = 0; i < OC_MUON_CLIP_PROFILE_COUNT; i++)
        if (strcmp(name, profile_names[i]) == 0) {
            *out = (oc_muon_clip_profile)i;
            return OC_OK;
        }
    return OC_ERR_BAD_PROFILE;
}

/* The size products are named by the logic functions of muon_clip.h (WP keeps them as atoms), so that
 * the bounds below are products of two atoms. Block g of n blocks of x elements ends inside
 * them: calling this ghost function puts that instance among the hypotheses (the provers do
 * not reliably find it themselves). */
/*@ ghost
  /@ assigns \nothing;
     ensures g < n ==> g * x + x <= n * x; @/
  static void block_ends_inside(size_t g, size_t n, size_t x) { }
*/

/*@ requires \valid_read(c);
    requires c->groups >= 1 && c->groups <= OC_MUON_CLIP_MAX_DIM &&
             c->heads <= OC_MUON_CLIP_MAX_DIM;
    requires c->head_dim <= OC_MUON_CLIP_MAX_DIM && c->heads % c->groups == 0;
    assigns \nothing;
    ensures \result == c->groups * (c->heads / c->groups + 2) * c->head_dim; */
static size_t rows_of(const oc_muon_clip_config *c)
{
    return c->groups * (c->heads / c->groups + 2) * c->head_dim;
}

size_t oc_muon_clip_rows(const oc_muon_clip_config *c) { return rows_of(c); }

/* MUONCLIP-LAYOUT-MLA: elements of one head's rows of W_q up and of W_kv up, and where the
 * shared rotary key W_kr starts (each size at most 2^20: a head at most 2^41, W_kr's start at
 * most 2^62). */
/*@ requires \valid_read(c);
    assigns \nothing;
    ensures layout_ok(c) && mla_sizes_ok(c) ==> \result == q_head(c) <= 0x20000000000; */
static size_t mla_q_head(const oc_muon_clip_config *c)
{
    return (c->head_dim + c->rope_dim) * c->q_cols;
}
/*@ requires \valid_read(c);
    assigns \nothing;
    ensures layout_ok(c) && mla_sizes_ok(c) ==> \result == kv_head(c) <= 0x20000000000; */
static size_t mla_kv_head(const oc_muon_clip_config *c)
{
    return (c->head_dim + c->v_dim) * c->kv_cols;
}
/*@ requires \valid_read(c);
    assigns \nothing;
    ensures layout_ok(c) && mla_sizes_ok(c) ==> \result == shared_key(c) <= 0x4000000000000000; */
static size_t mla_shared_key(const oc_muon_clip_config *c)
{
    return c->heads * (mla_q_head(c) + mla_kv_head(c));
}

/* MUONCLIP-LAYOUT-1: elements of one group's block [q heads; k; v] (groups of them: at most
 * 3 2^60 in all). */
/*@ requires \valid_read(c) && c->groups >= 1;
    assigns \nothing;
    ensures layout_ok(c) ==> \result == group_elems(c) &&
                             c->groups * group_elems(c) <= 0x3000000000000000; */
static size_t group_len(const oc_muon_clip_config *c)
{
    //@ assert per_exact: layout_ok(c) ==> c->groups * (c->heads / c->groups) == c->heads;
    //@ assert head_fits: layout_ok(c) ==> 0 <= head_elems(c) <= 0x10000000000;
    /*@ assert groups_fit: layout_ok(c) ==>
            0 <= c->groups * (c->heads / c->groups + 2) <= 3 * OC_MUON_CLIP_MAX_DIM; */
    /*@ assert len_fits: layout_ok(c) ==>
            (c->groups * (c->heads / c->groups + 2)) * head_elems(c) <= 0x3000000000000000; */
    return (c->heads / c->groups + 2) * (c->head_dim * c->hidden);
}

size_t oc_muon_clip_len(const oc_muon_clip_config *c)
{
    return c->profile == OC_MUON_CLIP_KIMI_MLA ? mla_shared_key(c) + c->rope_dim * c->hidden
                                               : c->groups * group_len(c);
}

/*@ requires \valid(s);
    assigns *s;
    ensures s->offset == offset && s->len == len && s->part == part; */
static void set_segment(oc_muon_clip_segment *s, size_t offset, size_t len, oc_muon_clip_part part)
{
    *s = (oc_muon_clip_segment){offset, len, part};
}

size_t oc_muon_clip_segments(const oc_muon_clip_config *c, size_t g, oc_muon_clip_segment seg[3])
{
    if (c->profile == OC_MUON_CLIP_KIMI_MLA) { /* MUONCLIP-LAYOUT-MLA: head g */
        size_t qh = mla_q_head(c), kvh = mla_kv_head(c);
        size_t qc = c->head_dim * c->q_cols, qr = c->rope_dim * c->q_cols; /* W_qc, W_qr rows */
        size_t kc = c->head_dim * c->kv_cols;                                /* W_kc rows */
        size_t q = g * qh, k = c->heads * qh + g * kvh;
        /* head g < heads: its rows of W_q up end at (g + 1) qh <= heads qh, of W_kv up at
         * heads qh + (g + 1) kvh <= shared_key */
        /*@ assert head_sizes: in_group(c, g) ==>
                g < c->heads <= OC_MUON_CLIP_MAX_DIM && qh <= 0x20000000000 &&
                kvh <= 0x20000000000; */
        //@ ghost block_ends_inside(g, c->heads, qh);
        //@ ghost block_ends_inside(g, c->heads, kvh);
        //@ assert q_in: in_group(c, g) ==> g * qh + qh <= c->heads * qh;
        //@ assert kv_in: in_group(c, g) ==> g * kvh + kvh <= c->heads * kvh;
        //@ assert q_fits: in_group(c, g) ==> c->heads * qh <= 0x2000000000000000;
        //@ assert kv_fits: in_group(c, g) ==> c->heads * kvh <= 0x2000000000000000;
        /*@ assert q_split: in_group(c, g) ==>
                qc == c->head_dim * c->q_cols && qr == c->rope_dim * c->q_cols && qh == qc + qr; */
        //@ assert kv_split: in_group(c, g) ==> kc == c->head_dim * c->kv_cols && kc <= kvh;
        //@ assert key_fits: in_group(c, g) ==> c->rope_dim * c->hidden <= 0x10000000000;
        /*@ assert mla_len: in_group(c, g) ==>
                qk_len(c) == c->heads * qh + c->heads * kvh + c->rope_dim * c->hidden; */
        //@ assert q_at: in_group(c, g) ==> q == g * qh && q + qc + qr <= qk_len(c);
        //@ assert k_at: in_group(c, g) ==> k == c->heads * qh + g * kvh && k + kc <= qk_len(c);
        set_segment(&seg[0], q, qc, OC_QK_PART_Q);
        set_segment(&seg[1], q + qc, qr, OC_QK_PART_Q_ROTARY);
        set_segment(&seg[2], k, kc, OC_QK_PART_K);
        return 3;
    }
    size_t gl = group_len(c), per = c->heads / c->groups, dh = c->head_dim * c->hidden;
    size_t block = g * gl; /* [q heads; k; v] of group g (MUONCLIP-LAYOUT-1) */
    /* group g < groups ends at (g + 1) gl <= groups gl = qk_len; its q rows (per heads) and
     * k rows (one head) are the first (per + 1) dh <= gl elements */
    //@ assert group_sizes: in_group(c, g) ==> g < c->groups && c->groups * gl == qk_len(c);
    //@ ghost block_ends_inside(g, c->groups, gl);
    //@ assert block_in: in_group(c, g) ==> g * gl + gl <= c->groups * gl;
    //@ assert block_is: in_group(c, g) ==> block == g * gl;
    /*@ assert rows_in: in_group(c, g) ==>
            dh == head_elems(c) && per * dh + dh <= gl && per * dh == per * head_elems(c); */
    //@ assert group_ends: in_group(c, g) ==> block + per * dh + dh <= qk_len(c);
    set_segment(&seg[0], block, per * dh, OC_QK_PART_Q);
    set_segment(&seg[1], block + per * dh, dh, OC_QK_PART_K);
    return 2;
}

/*@ assigns \nothing;
    ensures \result == (1 <= v <= OC_MUON_CLIP_MAX_DIM); */
static int size_ok(size_t v) { return v >= 1 && v <= OC_MUON_CLIP_MAX_DIM; }

/* MUONCLIP-CFG-1, MUONCLIP-LAYOUT-1, MUONCLIP-LAYOUT-MLA */
oc_status oc_muon_clip_check(const oc_muon_clip_config *c)
{
    if ((unsigned)c->profile >= OC_MUON_CLIP_PROFILE_COUNT)
        return OC_ERR_BAD_PROFILE;
    if (!(c->tau >= 0x1p-20 && c->tau <= 0x1p20) || !(c->alpha >= 0 && c->alpha <= 1))
        return OC_ERR_BAD_HPARAM;
    if (c->groups < 1 || c->heads > OC_MUON_CLIP_MAX_DIM || c->groups > c->heads ||
        c->heads % c->groups != 0 || !size_ok(c->head_dim) || !size_ok(c->hidden) ||
        (c->profile != OC_MUON_CLIP_MEGATRON && c->groups != c->heads))
        return OC_ERR_BAD_SHAPE;
    double elements = (double)rows_of(c) * (double)c->hidden;
    if (c->profile == OC_MUON_CLIP_KIMI_MLA) {
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
double oc_muon_clip_logit(const oc_muon_clip_config *c, float max_dot)
{
    size_t d = c->head_dim + (c->profile == OC_MUON_CLIP_KIMI_MLA ? c->rope_dim : 0);
    return (double)max_dot / sqrt((double)d);
}

/* MUONCLIP-GROUP-1: the largest logit of heads first .. first + count - 1 (count >= 1). */
/*@ requires \valid_read(c) && count >= 1 && first + count <= OC_MUON_CLIP_MAX_DIM;
    requires \valid_read(max_dot + (first .. first + count - 1));
    assigns \nothing; */
static double max_logit(const oc_muon_clip_config *c, const float *max_dot, size_t first,
                        size_t count)
{
    double s = oc_muon_clip_logit(c, max_dot[first]);
    /*@ loop invariant 1 <= j <= count;
        loop assigns j, s;
        loop variant count - j; */
    for (size_t j = 1; j < count; j++)
        s = fmax(s, oc_muon_clip_logit(c, max_dot[first + j]));
    return s;
}

void oc_muon_clip_scale(float *w, size_t len, double f)
{
    /*@ loop invariant 0 <= i <= len;
        loop assigns i, w[0 .. len - 1];
        loop variant len - i; */
    for (size_t i = 0; i < len; i++)
        w[i] = (float)(w[i] * f); /* MUONCLIP-STORE-1 */
}

/* MUONCLIP-GAMMA-1: whether a group of largest logit s is clipped; if so its factors, indexed
 * by oc_muon_clip_part (MUONCLIP-SCALE-1, MUONCLIP-SCALE-MLA). */
int oc_muon_clip_factors(const oc_muon_clip_config *c, double s, double factor[3])
{
    if (!(s > c->tau)) /* only above tau */
        return 0;
    double ratio = c->tau / s, gamma = ratio < 1 ? ratio : 1.0; /* min(1, tau / S) */
    factor[OC_QK_PART_Q] = pow(gamma, c->alpha);
    factor[OC_QK_PART_K] = pow(gamma, 1.0 - c->alpha);
    factor[OC_QK_PART_Q_ROTARY] = gamma;
    /* Checked by Eva, not by WP, which does not model pow (proofs/STATUS.md): */
    //@ assert factor_range: \forall integer k; 0 <= k <= 2 ==> 0 <= factor[k] <= 1;
    return 1;
}

/* The parts of group g scaled by their factors (oc_muon_clip_segments; v rows, W_kr untouched). */
void oc_muon_clip_group(const oc_muon_clip_config *c, size_t g, const double factor[3], float *w)
{
    oc_muon_clip_segment seg[3];
    size_t parts = oc_muon_clip_segments(c, g, seg);
    /*@ loop invariant 0 <= k <= parts;
        loop invariant inside: \forall integer j; 0 <= j < parts ==>
            0 <= seg[j].part <= OC_QK_PART_Q_ROTARY && seg[j].offset + seg[j].len <= qk_len(c);
        loop assigns k, w[0 .. qk_len(c) - 1];
        loop variant parts - k; */
    for (size_t k = 0; k < parts; k++) {
        //@ assert segment_in: seg[k].offset + seg[k].len <= qk_len(c);
        oc_muon_clip_scale(w + seg[k].offset, seg[k].len, factor[seg[k].part]);
    }
}

/* MUONCLIP-ERR-1: the checks of oc_ref_muon_clip, all before any write (the configuration, the
 * buffers, finite max_dot and w). */
oc_status oc_muon_clip_check_args(const oc_muon_clip_config *c, const float *max_dot,
                                  const float *w)
{
    if (c == NULL)
        return OC_ERR_NULL_POINTER;
    oc_status st = oc_muon_clip_check(c);
    if (st != OC_OK)
        return st;
    size_t n = oc_muon_clip_len(c);
    if ((st = oc_buffer_check(max_dot, c->heads, sizeof(float))) ||
        (st = oc_buffer_check(w, n, sizeof(float))) ||
        (st = oc_buffer_disjoint(max_dot, c->heads * sizeof(float), w, n * sizeof(float))))
        return st;
    /*@ loop invariant 0 <= h <= c->heads;
        loop assigns h;
        loop variant c->heads - h; */
    for (size_t h = 0; h < c->heads; h++)
        if (!isfinite(max_dot[h]))
            return OC_ERR_NONFINITE;
    /*@ loop invariant 0 <= i <= n;
        loop assigns i;
        loop variant n - i; */
    for (size_t i = 0; i < n; i++)
        if (!isfinite(w[i]))
            return OC_ERR_NONFINITE;
    return OC_OK;
}

/* The buffers valid and apart for a layout the checks accept (oc_buffer_check and
 * oc_buffer_disjoint check NULL, alignment and overlap, not validity). */
oc_status oc_ref_muon_clip(const oc_muon_clip_config *c, const float *max_dot, float *w)
{
    oc_status st = oc_muon_clip_check_args(c, max_dot, w); /* MUONCLIP-ERR-1 */
    if (st != OC_OK)
        return st;
    size_t per = c->heads / c->groups;
    /*@ loop invariant 0 <= g <= c->groups;
        loop invariant layout_ok(c);
        loop assigns g, w[0 .. qk_len(c) - 1], errno;
        loop variant c->groups - g; */
    for (size_t g = 0; g < c->groups; g++) {
        double factor[3];
        //@ ghost block_ends_inside(g, c->groups, per);
        //@ assert group_in: g * per + per <= c->groups * per == c->heads;
        if (oc_muon_clip_factors(c, max_logit(c, max_dot, g * per, per), factor)) /* GROUP-1 */
            oc_muon_clip_group(c, g, factor, w);
    }
    return OC_OK;
}
