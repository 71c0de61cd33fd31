/* The te-storage family (spec/te_storage.md): TransformerEngine FusedAdam's storage around the
 * Adam kernel, in both directions, computed from the rules: the split and the reconstruction
 * on integers, every binary32 operation (a / R, 1 / s, 1 / q, products) in MPFR rounded once
 * to binary32, the 16-bit roundings by gen_round_format and the E4M3 one here. Values inline
 * (VEC-FMT-19). tcIds in generation order: append new cases at the end. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/te_storage.h"
#include "family.h"
#include "gen.h"
#include "rng.h"

#define MAXN 32

static const char *const master_names[OC_TE_MASTER_COUNT] = {"off", "f32", "remainder"};
static const char *const moment_names[OC_TE_MOM_COUNT] = {"f32", "bf16", "f16", "fp8"};

typedef struct te_gen {
    family *f;
    gen_rng rng;
    mpfr_t x, y;
} te_gen;

/* One case before it is computed: the fp32 values after the kernel and the incoming scales. */
typedef struct te_case {
    oc_te_config c;
    const char *comment, *flag, *rules;
    size_t n;
    uint32_t master[MAXN]; /* bits: NaN payloads travel (TESTORE-SPLIT-1) */
    float mom[2][MAXN];
    float scale[2];
} te_case;

/* The stored state of a case (bits) and its values. */
typedef struct te_stored {
    uint32_t param[MAXN], second[MAXN]; /* remainder or master bits */
    uint32_t bits[2][MAXN];             /* moment bits; binary32 bits for f32 */
    double value[2][MAXN];              /* moment values as stored (decoded) */
    float scale[2];
} te_stored;

typedef union { float f; uint32_t u; } f32u;
static float f32_of(uint32_t u) { return (f32u){.u = u}.f; }
static uint32_t bits_of(float x) { return (f32u){.f = x}.u; }

/* One binary32 operation, correctly rounded (MPFR at the working precision, then once). */
static float rn32_div(te_gen *g, float a, float b)
{
    mpfr_set_flt(g->x, a, MPFR_RNDN);
    mpfr_set_flt(g->y, b, MPFR_RNDN);
    mpfr_div(g->x, g->x, g->y, MPFR_RNDN);
    return mpfr_get_flt(g->x, MPFR_RNDN);
}

static float rn32_mul(te_gen *g, float a, float b)
{
    mpfr_set_flt(g->x, a, MPFR_RNDN);
    mpfr_set_flt(g->y, b, MPFR_RNDN);
    mpfr_mul(g->x, g->x, g->y, MPFR_RNDN);
    return mpfr_get_flt(g->x, MPFR_RNDN);
}

/* TESTORE-FP8-1: E4M3 to nearest even on a grid of 4 significant bits (quantum 2^-9 below
 * 2^-6), saturating above 464, NaN kept. */
static double e4m3_round(float y)
{
    if (isnan(y))
        return NAN;
    if (fabsf(y) > 464.0f)
        return copysign(448.0, y);
    if (y == 0)
        return y;
    const int e = ilogb(y), qexp = (e < -6 ? -6 : e) - 3;
    return ldexp(nearbyint(ldexp(y, -qexp)), qexp);
}

/* Bits of an E4M3 / binary16 / bfloat16 value (TESTORE-FMT-1, MP-FMT-1). */
static uint32_t small_bits(oc_te_moment f, double v)
{
    if (f == OC_TE_MOM_BF16)
        return isnan(v) ? 0x7fc0u : bits_of((float)v) >> 16;
    const int mbits = f == OC_TE_MOM_FP8 ? 3 : 10, emin = f == OC_TE_MOM_FP8 ? -6 : -14;
    const uint32_t sign = signbit(v) ? (f == OC_TE_MOM_FP8 ? 0x80u : 0x8000u) : 0u;
    if (isnan(v))
        return f == OC_TE_MOM_FP8 ? 0x7fu : 0x7e00u;
    if (isinf(v))
        return sign | 0x7c00u;
    const double a = fabs(v);
    if (a == 0)
        return sign;
    const int e = ilogb(a);
    if (e < emin)
        return sign | (uint32_t)ldexp(a, mbits - emin);
    return sign | ((uint32_t)(e - emin + 1) << mbits) |
           ((uint32_t)ldexp(a, mbits - e) - (1u << mbits));
}

/* TESTORE-SCALE-1: max(-min, max), NaN if an entry is. */
static float absmax(size_t n, const float *x)
{
    float lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i]))
            return NAN;
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    return -lo > hi ? -lo : hi;
}

/* The read of one stored moment (TESTORE-MOM-1, TESTORE-Q16-1, TESTORE-FP8-1). */
static float moment_read(te_gen *g, oc_te_moment f, double v, float s)
{
    if (f == OC_TE_MOM_F16)
        return rn32_mul(g, (float)v, s);
    if (f == OC_TE_MOM_FP8)
        return rn32_mul(g, (float)v, rn32_div(g, 1.0f, rn32_div(g, 1.0f, s)));
    return (float)v;
}

/* TESTORE-MASTER-1, TESTORE-SPLIT-1, TESTORE-MOM-1, TESTORE-SCALE-1/2, TESTORE-Q16-1,
 * TESTORE-FP8-1: the state TE stores after the kernel. */
static void store(te_gen *g, const te_case *tc, te_stored *o)
{
    for (size_t i = 0; i < tc->n; i++) {
        const uint32_t u = tc->master[i];
        if (tc->c.master == OC_TE_MASTER_REMAINDER) {
            o->param[i] = ((u >> 16) + ((u >> 15) & 1u)) & 0xffffu;
            o->second[i] = u & 0xffffu;
        } else {
            o->param[i] = small_bits(OC_TE_MOM_BF16,
                                     gen_round_format(OC_FMT_BF16, f32_of(u)));
            o->second[i] = u;
        }
    }
    for (int k = 0; k < 2; k++) {
        const oc_te_moment f = tc->c.moment[k];
        const float *x = tc->mom[k];
        float s = tc->scale[k], r = 0;
        if (f >= OC_TE_MOM_F16) {
            s = rn32_div(g, absmax(tc->n, x), f == OC_TE_MOM_F16 ? 32752.0f : 448.0f);
            r = f == OC_TE_MOM_F16 ? (s > 0 ? rn32_div(g, 1.0f, s) : 0.0f)
                                   : rn32_div(g, 1.0f, s);
        }
        o->scale[k] = s;
        for (size_t i = 0; i < tc->n; i++) {
            double v = x[i];
            if (f == OC_TE_MOM_BF16)
                v = gen_round_format(OC_FMT_BF16, x[i]);
            else if (f == OC_TE_MOM_F16)
                v = gen_round_format(OC_FMT_F16, rn32_mul(g, x[i], r));
            else if (f == OC_TE_MOM_FP8)
                v = e4m3_round(rn32_mul(g, x[i], r));
            o->value[k][i] = v;
            o->bits[k][i] = f == OC_TE_MOM_F32 ? bits_of(x[i]) : small_bits(f, v);
        }
    }
}

/* TESTORE-SPLIT-2 / TESTORE-MASTER-1: the master the kernel reads. */
static float master_read(const te_case *tc, const te_stored *o, size_t i)
{
    if (tc->c.master == OC_TE_MASTER_OFF)
        return f32_of(o->param[i] << 16);
    if (tc->c.master == OC_TE_MASTER_F32)
        return f32_of(o->second[i]);
    const uint32_t rem = o->second[i], hi = (o->param[i] - ((rem >> 15) & 1u)) & 0xffffu;
    return f32_of(hi << 16 | rem);
}

static json_t *hparams_json(const oc_te_config *c)
{
    return json_pack("{s:s,s:s,s:s}", "master", master_names[c->master], "expAvg",
                     moment_names[c->moment[0]], "expAvgSq", moment_names[c->moment[1]]);
}

static json_t *int_array(const uint32_t *u, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_integer((json_int_t)u[i]));
    return a;
}

static json_t *test_json(const te_case *tc, const char *direction, const char *result,
                         const char *rules)
{
    json_t *jr = json_array();
    char buf[512];
    snprintf(buf, sizeof buf, "%s TESTORE-TOL-1", rules);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
        json_array_append_new(jr, json_string(tok));
    return json_pack("{s:s,s:[s],s:o,s:s,s:s}", "comment", tc->comment, "flags", tc->flag,
                     "specRules", jr, "result", result, "direction", direction);
}

static void push(json_t *a, double v) { json_array_append_new(a, hexfloat(v)); }

/* The store case: inputs the kernel's fp32 values and the incoming scales; expected the
 * parameter, the remainder or master (none for off), each moment then its scale (VEC-FMT-19). */
static void emit_store(te_gen *g, const te_case *tc, const te_stored *o)
{
    json_t *t = test_json(tc, "store", "valid", tc->rules), *exp = json_array();
    json_t *in = json_pack("{s:o,s:[o,o]}", "master", int_array(tc->master, tc->n), "scales",
                           hexfloat(tc->scale[0]), hexfloat(tc->scale[1]));
    for (int k = 0; k < 2; k++) {
        json_t *m = json_array();
        for (size_t i = 0; i < tc->n; i++)
            push(m, tc->mom[k][i]);
        json_object_set_new(in, k ? "expAvgSq" : "expAvg", m);
    }
    for (size_t i = 0; i < tc->n; i++)
        push(exp, f32_of(o->param[i] << 16));
    if (tc->c.master != OC_TE_MASTER_OFF)
        for (size_t i = 0; i < tc->n; i++)
            push(exp, tc->c.master == OC_TE_MASTER_F32 ? (double)f32_of(o->second[i])
                                                       : (double)o->second[i]);
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < tc->n; i++)
            push(exp, o->value[k][i]);
        push(exp, o->scale[k]);
    }
    json_object_set_new(t, "inputs", in);
    json_object_set_new(t, "expected", exp);
    family_group(g->f, "TeStorage", hparams_json(&tc->c));
    family_test(g->f, t);
}

/* The load case of that stored state: expected the master and both moments the kernel reads. */
static void emit_load(te_gen *g, const te_case *tc, const te_stored *o, const char *result)
{
    json_t *t = test_json(tc, "load", result,
                          strcmp(result, "valid") ? "TESTORE-ERR-1"
                                                  : "TESTORE-SPLIT-2 TESTORE-MASTER-1 "
                                                    "TESTORE-MOM-1");
    json_t *in = json_pack("{s:o,s:[o,o]}", "param", int_array(o->param, tc->n), "scales",
                           hexfloat(o->scale[0]), hexfloat(o->scale[1]));
    if (tc->c.master != OC_TE_MASTER_OFF)
        json_object_set_new(in, tc->c.master == OC_TE_MASTER_F32 ? "master" : "remainder",
                            int_array(o->second, tc->n));
    json_object_set_new(in, "expAvg", int_array(o->bits[0], tc->n));
    json_object_set_new(in, "expAvgSq", int_array(o->bits[1], tc->n));
    json_object_set_new(t, "inputs", in);
    if (strcmp(result, "valid") == 0) {
        json_t *exp = json_array();
        for (size_t i = 0; i < tc->n; i++)
            push(exp, master_read(tc, o, i));
        for (int k = 0; k < 2; k++)
            for (size_t i = 0; i < tc->n; i++)
                push(exp, moment_read(g, tc->c.moment[k], o->value[k][i], o->scale[k]));
        json_object_set_new(t, "expected", exp);
    }
    family_group(g->f, "TeStorage", hparams_json(&tc->c));
    family_test(g->f, t);
}

/* Both directions of a case. */
static void emit(te_gen *g, const te_case *tc)
{
    te_stored o;
    store(g, tc, &o);
    emit_store(g, tc, &o);
    emit_load(g, tc, &o, "valid");
}

/* Random moments: exp_avg signed, exp_avg_sq positive, magnitudes 2^lo .. 2^hi. */
static void random_moments(te_gen *g, te_case *tc, int lo, int hi)
{
    for (size_t i = 0; i < tc->n; i++) {
        tc->mom[0][i] = rng_mag(&g->rng, lo, hi, 1);
        tc->mom[1][i] = rng_mag(&g->rng, 2 * lo, 2 * hi, 0);
    }
}

static void random_masters(te_gen *g, te_case *tc)
{
    for (size_t i = 0; i < tc->n; i++)
        tc->master[i] = bits_of(rng_mag(&g->rng, -12, 2, 1));
}

static te_case config(oc_te_master m, oc_te_moment a, oc_te_moment b)
{
    te_case tc;
    memset(&tc, 0, sizeof tc);
    tc.c.master = m;
    tc.c.moment[0] = a;
    tc.c.moment[1] = b;
    tc.scale[0] = tc.scale[1] = 1.0f;
    return tc;
}

static void split_cases(te_gen *g)
{
    te_case tc = config(OC_TE_MASTER_REMAINDER, OC_TE_MOM_F32, OC_TE_MOM_F32);
    static const uint32_t lows[] = {0x0000, 0x7fff, 0x8000, 0x8001, 0xffff};
    tc.n = 0;
    for (uint32_t sign = 0; sign < 2; sign++)
        for (uint32_t hi = 0x3f80; hi < 0x3f82; hi++) /* even, odd high half */
            for (size_t j = 0; j < sizeof lows / sizeof lows[0]; j++)
                tc.master[tc.n++] = sign << 31 | hi << 16 | lows[j];
    random_moments(g, &tc, -8, 0);
    tc.comment = "remainders 0x0000, 0x7fff, 0x8000, 0x8001, 0xffff under even and odd high "
                 "halves, both signs: the round-up follows the remainder's sign, ties go away "
                 "from zero";
    tc.flag = "SplitTies";
    tc.rules = "TESTORE-SPLIT-1 TESTORE-MASTER-1 TESTORE-MOM-1";
    emit(g, &tc);

    static const uint32_t edges[] = {
        0x3fffc000u, 0x3f7f8000u, 0xbfffffffu, 0x007f8000u, 0x807fffffu, 0x00008000u,
        0x00000000u, 0x80000000u, 0x7f7f8000u, 0x7f7f7fffu, 0xff7fffffu, 0x7f800000u,
        0xff800000u, 0x7fffffffu, 0xffffffffu, 0x7fc00000u, 0x7f808000u};
    tc.n = sizeof edges / sizeof edges[0];
    memcpy(tc.master, edges, sizeof edges);
    random_moments(g, &tc, -8, 0);
    tc.comment = "carries into the exponent (1.99.. to 2, the largest subnormal to the smallest "
                 "normal), the largest finite master to an infinite parameter, signed zeros, "
                 "infinities, NaNs whose round-up wraps the high half to a zero";
    tc.flag = "SplitCarry";
    emit(g, &tc);

    tc = config(OC_TE_MASTER_REMAINDER, OC_TE_MOM_BF16, OC_TE_MOM_BF16);
    tc.n = MAXN;
    random_masters(g, &tc);
    random_moments(g, &tc, -10, 2);
    tc.comment = "random masters, bf16 moments (Megatron's --exp-avg-dtype bf16)";
    tc.flag = "RandomMasters";
    tc.rules = "TESTORE-SPLIT-1 TESTORE-MASTER-1 TESTORE-MOM-1";
    emit(g, &tc);
}

/* A moment tensor whose absmax is `a` exactly (the first entry), others random below it. */
static void moment_with_absmax(te_gen *g, float *x, size_t n, float a, int sign)
{
    x[0] = sign ? -a : a;
    for (size_t i = 1; i < n; i++)
        x[i] = (float)(a * rng_unit(&g->rng)) * (sign && (i & 1) ? -1.0f : 1.0f);
}

static void scale_cases(te_gen *g)
{
    for (oc_te_moment f = OC_TE_MOM_F16; f <= OC_TE_MOM_FP8; f++) {
        te_case tc = config(OC_TE_MASTER_REMAINDER, f, f);
        const float R = f == OC_TE_MOM_F16 ? 32752.0f : 448.0f;
        tc.n = 16;
        random_masters(g, &tc);
        moment_with_absmax(g, tc.mom[0], tc.n, 0x1.3p-3f, 1);
        moment_with_absmax(g, tc.mom[1], tc.n, 0x1.7p-9f, 0);
        tc.scale[0] = rn32_div(g, 0x1.3p-5f, R); /* the old absmax: a quarter of the new */
        tc.scale[1] = rn32_div(g, 0x1.7p-11f, R);
        tc.comment = f == OC_TE_MOM_F16
                         ? "fp16 moments grown fourfold since the last step: the new scale "
                           "comes from the new absmax (the old one overflows binary16)"
                         : "FP8 moments grown fourfold since the last step: the new scale "
                           "comes from the new absmax (the old one saturates at 448)";
        tc.flag = "ScaleGrowth";
        tc.rules = f == OC_TE_MOM_F16 ? "TESTORE-SCALE-1 TESTORE-SCALE-2 TESTORE-Q16-1"
                                      : "TESTORE-SCALE-1 TESTORE-SCALE-2 TESTORE-FP8-1";
        emit(g, &tc);

        tc.n = MAXN;
        random_moments(g, &tc, -20, 0);
        tc.scale[0] = tc.scale[1] = 1.0f;
        tc.comment = "random moments across 20 binades: subnormal and rounded quantized values";
        tc.flag = "RandomMoments";
        tc.rules = f == OC_TE_MOM_F16 ? "TESTORE-SCALE-1 TESTORE-Q16-1 TESTORE-FMT-1"
                                      : "TESTORE-SCALE-1 TESTORE-FP8-1 TESTORE-FMT-1";
        emit(g, &tc);

        /* TESTORE-TINY-1: 1/s overflows; zero entries are 0 * inf. */
        tc.n = 6;
        moment_with_absmax(g, tc.mom[0], tc.n, f == OC_TE_MOM_F16 ? 0x1.8p-115f : 0x1.8p-121f, 1);
        tc.mom[0][3] = 0.0f;
        for (size_t i = 0; i < tc.n; i++)
            tc.mom[1][i] = 0.0f; /* an all-zero moment: s = 0 */
        tc.comment = f == OC_TE_MOM_F16
                         ? "fp16: absmax below 2^-128 * 32752, so 1/s is infinite: non-zero "
                           "entries stored as infinities, zeros as NaN; an all-zero moment "
                           "stays zero (r = 0)"
                         : "FP8: absmax below 2^-128 * 448, so q = 1/s is infinite: non-zero "
                           "entries saturate to 448, zeros become NaN, and read back as 0 and "
                           "NaN; an all-zero moment becomes NaN";
        tc.flag = "TinyAbsmax";
        tc.rules = f == OC_TE_MOM_F16 ? "TESTORE-TINY-1 TESTORE-Q16-1 TESTORE-SCALE-1"
                                      : "TESTORE-TINY-1 TESTORE-FP8-1 TESTORE-SCALE-1";
        emit(g, &tc);
    }
}

/* TESTORE-TINY-1 at its threshold: exp_avg's absmax just below 448 * 2^-128 (q infinite: every
 * entry saturates) and exp_avg_sq's just above it (q finite, near 2^127). */
static void tiny_threshold_case(te_gen *g)
{
    te_case tc = config(OC_TE_MASTER_OFF, OC_TE_MOM_FP8, OC_TE_MOM_FP8);
    tc.n = 8;
    random_masters(g, &tc);
    moment_with_absmax(g, tc.mom[0], tc.n, 0x1.bfp-120f, 1);
    moment_with_absmax(g, tc.mom[1], tc.n, 0x1.c1p-120f, 0);
    tc.comment = "FP8 absmax just below (exp_avg) and just above (exp_avg_sq) 448 * 2^-128: "
                 "every non-zero entry saturates on one side, none on the other";
    tc.flag = "TinyAbsmax";
    tc.rules = "TESTORE-TINY-1 TESTORE-FP8-1 TESTORE-SCALE-1";
    emit(g, &tc);
}

/* FP8 scales whose double reciprocal is not s: the read must use scale_inv. */
static void scale_inverse_case(te_gen *g)
{
    te_case tc = config(OC_TE_MASTER_F32, OC_TE_MOM_FP8, OC_TE_MOM_FP8);
    tc.n = 8;
    random_masters(g, &tc);
    for (int k = 0; k < 2; k++) {
        float a;
        do {
            a = rng_mag(&g->rng, -6, 0, 0);
        } while (rn32_div(g, 1.0f, rn32_div(g, 1.0f, rn32_div(g, a, 448.0f))) ==
                 rn32_div(g, a, 448.0f));
        moment_with_absmax(g, tc.mom[k], tc.n, a, k == 0);
    }
    tc.comment = "FP8 scales s with RN(1/RN(1/s)) != s: read back with scale_inv, not s";
    tc.flag = "ScaleInverse";
    tc.rules = "TESTORE-FP8-1 TESTORE-MASTER-1";
    emit(g, &tc);
}

/* Formats chosen independently for the two moments, and the other master modes. */
static void mixed_cases(te_gen *g)
{
    static const oc_te_config cs[] = {
        {OC_TE_MASTER_F32, {OC_TE_MOM_F16, OC_TE_MOM_FP8}},
        {OC_TE_MASTER_OFF, {OC_TE_MOM_BF16, OC_TE_MOM_F16}},
        {OC_TE_MASTER_OFF, {OC_TE_MOM_F32, OC_TE_MOM_FP8}},
        {OC_TE_MASTER_F32, {OC_TE_MOM_FP8, OC_TE_MOM_BF16}},
    };
    for (size_t j = 0; j < sizeof cs / sizeof cs[0]; j++) {
        te_case tc = config(cs[j].master, cs[j].moment[0], cs[j].moment[1]);
        tc.n = MAXN;
        random_masters(g, &tc);
        tc.master[0] = 0x3f808000u; /* an even tie: rounded to nearest even here */
        random_moments(g, &tc, -12, -1);
        tc.comment = "exp_avg and exp_avg_sq in different formats; the parameter rounded to "
                     "nearest even (no remainder)";
        tc.flag = "IndependentFormats";
        tc.rules = "TESTORE-MASTER-1 TESTORE-MOM-1 TESTORE-SCALE-1 TESTORE-Q16-1 "
                   "TESTORE-FP8-1 TESTORE-FMT-1";
        emit(g, &tc);
    }
}

static void invalid_cases(te_gen *g)
{
    te_case tc = config(OC_TE_MASTER_REMAINDER, OC_TE_MOM_F16, OC_TE_MOM_F32);
    tc.n = 4;
    random_masters(g, &tc);
    random_moments(g, &tc, -4, 0);
    tc.comment = "a negative incoming fp16 scale (a corrupted state): rejected, nothing written";
    tc.flag = "CorruptScale";
    tc.rules = "TESTORE-ERR-1";
    te_stored o;
    store(g, &tc, &o);
    o.scale[0] = -o.scale[0];
    emit_load(g, &tc, &o, "invalid");
    tc.scale[0] = -1.0f;
    json_t *t = test_json(&tc, "store", "invalid", tc.rules);
    json_t *in = json_pack("{s:o,s:[o,o]}", "master", int_array(tc.master, tc.n), "scales",
                           hexfloat(tc.scale[0]), hexfloat(tc.scale[1]));
    for (int k = 0; k < 2; k++) {
        json_t *m = json_array();
        for (size_t i = 0; i < tc.n; i++)
            push(m, tc.mom[k][i]);
        json_object_set_new(in, k ? "expAvgSq" : "expAvg", m);
    }
    json_object_set_new(t, "inputs", in);
    family_group(g->f, "TeStorage", hparams_json(&tc.c));
    family_test(g->f, t);
}

/* Appended (issue 19 item 3): TESTORE-FP8-1's ties, at scale 1 (absmax 448 = R, so every entry
 * is quantized as it is): halfway between two E4M3 values with an even and with an odd lower
 * neighbour, normal and subnormal; then TESTORE-SCALE-1's NaN: a NaN entry (not the first) in
 * exp_avg makes its absmax, scale and every stored entry NaN. */
static void fp8_tie_and_nan_cases(te_gen *g)
{
    static const float ties[] = {448.0f, 0x1.1p0f, -0x1.3p0f, 0x1.8p-9f, -0x1.4p-8f,
                                 21.0f, -19.0f, -448.0f};
    te_case tc = config(OC_TE_MASTER_OFF, OC_TE_MOM_FP8, OC_TE_MOM_FP8);
    tc.n = sizeof ties / sizeof ties[0];
    random_masters(g, &tc);
    for (size_t i = 0; i < tc.n; i++) {
        tc.mom[0][i] = ties[i];
        tc.mom[1][i] = fabsf(ties[i]);
    }
    tc.comment = "FP8 at scale 1 (absmax 448): entries halfway between two E4M3 values, the "
                 "lower one even (down) or odd (up), normal and subnormal";
    tc.flag = "Fp8Ties";
    tc.rules = "TESTORE-FP8-1 TESTORE-SCALE-1 TESTORE-FMT-1";
    emit(g, &tc);
    tc = config(OC_TE_MASTER_OFF, OC_TE_MOM_FP8, OC_TE_MOM_F16);
    tc.n = 4;
    random_masters(g, &tc);
    random_moments(g, &tc, -6, 0);
    tc.mom[0][1] = NAN;
    tc.comment = "a NaN entry in exp_avg (FP8): its absmax and scale are NaN and so is every "
                 "stored entry; exp_avg_sq (fp16) as usual";
    tc.flag = "NanMoment";
    tc.rules = "TESTORE-SCALE-1 TESTORE-FP8-1";
    emit(g, &tc);
}

static void notes(family *f)
{
    static const char *const n[][4] = {
        {"SplitTies", "KNOWN_MISTAKE", "remainders at and around half a bf16 ulp",
         "truncation and ties-to-even splits differ from TE's round-up here"},
        {"SplitCarry", "EDGE_CASE", "masters whose round-up carries or wraps",
         "the exponent, infinity and NaN edges of the split"},
        {"RandomMasters", "STORAGE_ROUNDING", "random masters and bf16 moments",
         "typical values"},
        {"ScaleGrowth", "KNOWN_MISTAKE", "moments grown since the last scale",
         "a scale from the old absmax overflows or saturates"},
        {"RandomMoments", "STORAGE_ROUNDING", "moments over many binades",
         "every quantization rounds once"},
        {"TinyAbsmax", "EDGE_CASE", "absmax so small that 1/s overflows",
         "infinities, saturation and NaN by 0 * inf (TESTORE-TINY-1)"},
        {"ScaleInverse", "KNOWN_MISTAKE", "FP8 scales whose double reciprocal differs",
         "reading with s instead of scale_inv is off by an ulp"},
        {"IndependentFormats", "STORAGE_ROUNDING", "the two moments in different formats",
         "each moment has its own format and scale"},
        {"CorruptScale", "INVALID_INPUT", "a negative incoming scale",
         "must be rejected with nothing written"},
    };
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
        family_note(f, n[i][0], n[i][1], n[i][2], n[i][3], NULL);
}

static int gen_te_storage(const gen_options *opt, const char *outdir)
{
    static const char *const rules[] = {
        "TESTORE-FMT-1", "TESTORE-SPLIT-1", "TESTORE-SPLIT-2", "TESTORE-MASTER-1",
        "TESTORE-MOM-1", "TESTORE-SCALE-1", "TESTORE-SCALE-2", "TESTORE-Q16-1",
        "TESTORE-FP8-1", "TESTORE-TINY-1", "TESTORE-ERR-1", "TESTORE-TOL-1", NULL};
    family f;
    te_gen g = {.f = &f, .rng = {opt->seed ^ (0x7e5ull << 40)}};
    mpfr_inits2(opt->prec, g.x, g.y, (mpfr_ptr)0);
    int rc = family_init(&f, "te-storage-fusedadam", "te-storage", "fusedadam", rules, opt);
    if (rc == 0) {
        family_inline(&f);
        notes(&f);
        split_cases(&g);
        scale_cases(&g);
        scale_inverse_case(&g);
        mixed_cases(&g);
        invalid_cases(&g);
        tiny_threshold_case(&g); /* appended: tcIds in generation order */
        family_note(&f, "Fp8Ties", "EDGE_CASE", "E4M3 entries halfway between two values",
                    "ties round to even: truncation or ties away from zero differ", NULL);
        family_note(&f, "NanMoment", "EDGE_CASE", "a NaN moment entry",
                    "the absmax, the scale and every stored entry are NaN", NULL);
        fp8_tie_and_nan_cases(&g);
        rc = family_save(&f, outdir);
        family_free(&f);
    }
    mpfr_clears(g.x, g.y, (mpfr_ptr)0);
    return rc;
}

/* Writes vectors/te-storage-fusedadam (spec/te_storage.md). */
const gen_family gen_family_te_storage = {.name = "te-storage", .generate = gen_te_storage};
