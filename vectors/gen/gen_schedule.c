/* Schedule vector family (spec/schedule.md): lr and weight decay at chosen positions, computed
 * in MPFR and rounded once to binary64, with the fp64-class bound of §4. Values are inline in
 * the JSON. tcIds are assigned in generation order: append new cases at the end. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/schedule.h"
#include "family.h"
#include "gen.h"

#define U64 0x1p-53

static const char *const lr_styles[OC_LR_DECAY_STYLE_COUNT] = {
    "constant", "linear", "cosine", "inverse-square-root", "WSD"};
static const char *const wsd_styles[OC_WSD_DECAY_STYLE_COUNT] = {
    "linear", "cosine", "exponential", "minus_sqrt"};
static const char *const wd_styles[OC_WD_INCR_STYLE_COUNT] = {"constant", "linear", "cosine"};

_Static_assert(sizeof(long) == 8, "positions are passed to MPFR as long");

enum { R, C, X, PI, NVARS };

typedef struct sched_ctx {
    mpfr_t x[NVARS];
} sched_ctx;

/* coeff = 0.5 * (cos(pi * x[R]) + 1), exactly (to the working precision), into x[C] */
static void half_cosine(sched_ctx *cx)
{
    mpfr_t *x = cx->x;
    mpfr_mul(x[X], x[PI], x[R], MPFR_RNDN);
    mpfr_cos(x[C], x[X], MPFR_RNDN);
    mpfr_add_ui(x[C], x[C], 1, MPFR_RNDN);
    mpfr_div_2ui(x[C], x[C], 1, MPFR_RNDN);
}

/* x[R] = num / den exactly (both integers below 2^62) */
static void ratio(sched_ctx *cx, int64_t num, int64_t den)
{
    mpfr_set_si(cx->x[R], (long)num, MPFR_RNDN); /* long is 64-bit on the supported hosts */
    mpfr_div_si(cx->x[R], cx->x[R], (long)den, MPFR_RNDN);
}

/* lr at position n (SCHED-WARMUP-1 ... SCHED-WSD-1), into x[X]. */
static void exact_lr(sched_ctx *cx, const oc_schedule *s, int64_t n)
{
    mpfr_t *x = cx->x;
    if (s->warmup_steps > 0 && n <= s->warmup_steps) {            /* SCHED-WARMUP-1 */
        ratio(cx, n, s->warmup_steps);                              /* init + (max - init) n/W */
        mpfr_mul_d(x[X], x[R], s->max_lr, MPFR_RNDN);
        mpfr_mul_d(x[C], x[R], s->init_lr, MPFR_RNDN);
        mpfr_sub(x[X], x[X], x[C], MPFR_RNDN);
        mpfr_add_d(x[X], x[X], s->init_lr, MPFR_RNDN);
        return;
    }
    if (s->decay_style == OC_LR_CONSTANT) {                        /* SCHED-CONST-1 */
        mpfr_set_d(x[X], s->max_lr, MPFR_RNDN);
        return;
    }
    if (n > s->decay_steps) {                                      /* SCHED-END-1 */
        mpfr_set_d(x[X], s->min_lr, MPFR_RNDN);
        return;
    }
    if (s->decay_style == OC_LR_INVERSE_SQRT) {                    /* SCHED-ISQRT-1 */
        ratio(cx, s->warmup_steps > 1 ? s->warmup_steps : 1, n > 1 ? n : 1);
        mpfr_sqrt(x[X], x[R], MPFR_RNDN);
        mpfr_mul_d(x[X], x[X], s->max_lr, MPFR_RNDN);
        mpfr_set_d(x[C], s->min_lr, MPFR_RNDN);
        mpfr_max(x[X], x[X], x[C], MPFR_RNDN);
        return;
    }
    if (s->decay_style == OC_LR_WSD) {                             /* SCHED-WSD-1 */
        int64_t anneal_start = s->decay_steps - s->wsd_decay_steps;
        if (n <= anneal_start) {
            mpfr_set_ui(x[C], 1, MPFR_RNDN);
        } else {
            ratio(cx, n - anneal_start, s->wsd_decay_steps);
            switch (s->wsd_style) {
            case OC_WSD_LINEAR:
                mpfr_ui_sub(x[C], 1, x[R], MPFR_RNDN);
                break;
            case OC_WSD_COSINE:
                half_cosine(cx);
                break;
            case OC_WSD_EXPONENTIAL: /* 2 * 0.5^w - 1 = 2^(1-w) - 1 */
                mpfr_ui_sub(x[X], 1, x[R], MPFR_RNDN);
                mpfr_exp2(x[C], x[X], MPFR_RNDN);
                mpfr_sub_ui(x[C], x[C], 1, MPFR_RNDN);
                break;
            default: /* minus_sqrt */
                mpfr_sqrt(x[X], x[R], MPFR_RNDN);
                mpfr_ui_sub(x[C], 1, x[X], MPFR_RNDN);
                break;
            }
        }
    } else {                                                       /* SCHED-DECAY-1 */
        ratio(cx, n - s->warmup_steps, s->decay_steps - s->warmup_steps);
        if (s->decay_style == OC_LR_LINEAR)                        /* SCHED-LINEAR-1 */
            mpfr_ui_sub(x[C], 1, x[R], MPFR_RNDN);
        else                                                       /* SCHED-COSINE-1 */
            half_cosine(cx);
    }
    mpfr_mul_d(x[X], x[C], s->max_lr, MPFR_RNDN);                  /* min + coeff (max - min) */
    mpfr_mul_d(x[R], x[C], s->min_lr, MPFR_RNDN);
    mpfr_sub(x[X], x[X], x[R], MPFR_RNDN);
    mpfr_add_d(x[X], x[X], s->min_lr, MPFR_RNDN);
}

/* weight decay at position n (SCHED-WD-1, SCHED-MULT-1), into x[X]. */
static void exact_wd(sched_ctx *cx, const oc_schedule *s, int64_t n)
{
    mpfr_t *x = cx->x;
    if (n > s->wd_incr_steps || s->wd_style == OC_WD_CONSTANT) {
        mpfr_set_d(x[X], s->end_wd, MPFR_RNDN);
    } else {
        ratio(cx, n, s->wd_incr_steps);
        if (s->wd_style == OC_WD_COSINE) { /* 0.5 (cos(pi (1 - r)) + 1) */
            mpfr_ui_sub(x[R], 1, x[R], MPFR_RNDN);
            half_cosine(cx);
        } else {
            mpfr_set(x[C], x[R], MPFR_RNDN);
        }
        mpfr_mul_d(x[X], x[C], s->end_wd, MPFR_RNDN);
        mpfr_mul_d(x[R], x[C], s->start_wd, MPFR_RNDN);
        mpfr_sub(x[X], x[X], x[R], MPFR_RNDN);
        mpfr_add_d(x[X], x[X], s->start_wd, MPFR_RNDN);
    }
    mpfr_mul_d(x[X], x[X], s->wd_mult, MPFR_RNDN);
}

static json_t *hparams_json(const oc_schedule *s)
{
    return json_pack("{s:o,s:o,s:o,s:I,s:I,s:s,s:I,s:s,s:o,s:o,s:I,s:s,s:o}",
                     "initLr", hexfloat(s->init_lr), "maxLr", hexfloat(s->max_lr), "minLr",
                     hexfloat(s->min_lr), "warmupSteps", (json_int_t)s->warmup_steps,
                     "decaySteps", (json_int_t)s->decay_steps, "decayStyle",
                     lr_styles[s->decay_style], "wsdDecaySteps", (json_int_t)s->wsd_decay_steps,
                     "wsdStyle", wsd_styles[s->wsd_style], "startWd", hexfloat(s->start_wd),
                     "endWd", hexfloat(s->end_wd), "wdIncrSteps", (json_int_t)s->wd_incr_steps,
                     "wdStyle", wd_styles[s->wd_style], "wdMult", hexfloat(s->wd_mult));
}

/* The fp64-class bounds (spec/schedule.md §4, SCHED-TOL-2): every style's coefficient is within
 * 8 u of exact and at most three more roundings touch terms no larger than the largest lr (or
 * wd) value; 16 u of that magnitude covers both with margin. */
static double lr_bound(const oc_schedule *s)
{
    return 16 * U64 * (fabs(s->init_lr) + fabs(s->max_lr) + fabs(s->min_lr));
}

static double wd_bound(const oc_schedule *s)
{
    return 16 * U64 * (fabs(s->start_wd) + fabs(s->end_wd)) * s->wd_mult;
}

static void emit(family *f, sched_ctx *cx, const oc_schedule *s, const char *comment,
                 const char *flag, const char *rules, const char *result, const int64_t *pos,
                 size_t npos)
{
    json_t *jr = json_array();
    char buf[256];
    snprintf(buf, sizeof buf, "%s SCHED-TOL-1 SCHED-TOL-2", rules); /* space-separated IDs */
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
        json_array_append_new(jr, json_string(tok));
    json_t *points = json_array();
    for (size_t i = 0; i < npos; i++) {
        json_t *pt = json_pack("{s:I}", "samples", (json_int_t)pos[i]);
        if (strcmp(result, "valid") == 0) {
            exact_lr(cx, s, pos[i]);
            double lr = mpfr_get_d(cx->x[X], MPFR_RNDN);
            exact_wd(cx, s, pos[i]);
            double wd = mpfr_get_d(cx->x[X], MPFR_RNDN);
            json_object_set_new(pt, "lr", hexfloat(lr));
            json_object_set_new(pt, "lrF64", hexfloat(lr));
            json_object_set_new(pt, "lrTol", hexfloat(gen_bound_up(lr_bound(s))));
            json_object_set_new(pt, "wd", hexfloat(wd));
            json_object_set_new(pt, "wdF64", hexfloat(wd));
            json_object_set_new(pt, "wdTol", hexfloat(gen_bound_up(wd_bound(s))));
        }
        json_array_append_new(points, pt);
    }
    family_group(f, "ScheduleEval", hparams_json(s));
    family_test(f, json_pack("{s:s,s:[s],s:o,s:s,s:o}", "comment", comment, "flags", flag,
                             "specRules", jr, "result", result, "points", points));
}

/* Megatron-like defaults: 3e-4 peak, 10% floor, 2000-sample warmup, 100000-sample decay. */
static oc_schedule defaults(oc_lr_decay_style style)
{
    return (oc_schedule){.init_lr = 0.0, .max_lr = 3e-4, .min_lr = 3e-5, .warmup_steps = 2000,
                         .decay_steps = 100000, .decay_style = style, .wsd_decay_steps = 20000,
                         .wsd_style = OC_WSD_LINEAR, .start_wd = 0.1, .end_wd = 0.1,
                         .wd_incr_steps = 100000, .wd_style = OC_WD_CONSTANT, .wd_mult = 1.0};
}

/* The boundaries of a schedule (SCHED-POS-1 positions in samples). */
static size_t boundaries(const oc_schedule *s, int64_t *p)
{
    int64_t W = s->warmup_steps, D = s->decay_steps, A = D - s->wsd_decay_steps;
    int64_t cand[] = {0, 1, W - 1, W, W + 1, (W + D) / 2, D - 1, D, D + 1, 10 * D,
                      A - 1, A, A + 1, (A + D) / 2, s->wd_incr_steps / 3};
    size_t n = 0;
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        int dup = cand[i] < 0;
        for (size_t j = 0; j < n && !dup; j++)
            dup = p[j] == cand[i];
        if (!dup)
            p[n++] = cand[i];
    }
    return n;
}

/* Invalid configurations (SCHED-CFG-1): each is `base` with one field set (an int64_t field
 * when `integer`, else a double), evaluated at 0. */
typedef struct bad_field { const char *what; size_t field; double value; int integer; } bad_field;

static void invalid_fields(family *f, sched_ctx *cx, oc_schedule base, const bad_field *bad,
                           size_t n)
{
    static const int64_t zero = 0;
    for (size_t i = 0; i < n; i++) {
        oc_schedule s = base;
        char *at = (char *)&s + bad[i].field;
        if (bad[i].integer)
            *(int64_t *)at = (int64_t)bad[i].value;
        else
            *(double *)at = bad[i].value;
        emit(f, cx, &s, bad[i].what, "InvalidSchedule", "SCHED-CFG-1 SCHED-ERR-1", "invalid", &zero,
             1);
    }
}

static void cases(family *f, sched_ctx *cx)
{
    int64_t pos[64];
    size_t np;
    static const char *const style_rules[OC_LR_DECAY_STYLE_COUNT] = {
        "SCHED-CONST-1 SCHED-WARMUP-1 SCHED-RANGE-1 SCHED-PROF-MEGATRON",
        "SCHED-LINEAR-1 SCHED-DECAY-1 SCHED-END-1 SCHED-RANGE-1 SCHED-PROF-MEGATRON",
        "SCHED-COSINE-1 SCHED-DECAY-1 SCHED-END-1 SCHED-RANGE-1 SCHED-PROF-MEGATRON",
        "SCHED-ISQRT-1 SCHED-END-1 SCHED-RANGE-1 SCHED-PROF-MEGATRON",
        "SCHED-WSD-1 SCHED-DECAY-1 SCHED-END-1 SCHED-RANGE-1 SCHED-PROF-MEGATRON"};
    for (int st = 0; st < OC_LR_DECAY_STYLE_COUNT; st++) {
        oc_schedule s = defaults((oc_lr_decay_style)st);
        int wsd_styles_n = st == OC_LR_WSD ? OC_WSD_DECAY_STYLE_COUNT : 1;
        for (int ws = 0; ws < wsd_styles_n; ws++) {
            s.wsd_style = (oc_wsd_decay_style)ws;
            np = boundaries(&s, pos);
            emit(f, cx, &s, "the schedule's boundaries: warmup end, decay, end, past the end",
                 "Boundaries", style_rules[st], "valid", pos, np);
        }
    }
    oc_schedule s = defaults(OC_LR_COSINE);
    s.warmup_steps = 0;
    np = boundaries(&s, pos);
    emit(f, cx, &s, "no warmup: the first position already decays", "NoWarmup", "SCHED-WARMUP-1",
         "valid", pos, np);
    s = defaults(OC_LR_LINEAR);
    s.init_lr = 1e-5;
    s.min_lr = 0.0;
    np = boundaries(&s, pos);
    emit(f, cx, &s, "warmup from init_lr > 0, linear decay to 0", "InitLr", "SCHED-WARMUP-1",
         "valid", pos, np);
    s = defaults(OC_LR_INVERSE_SQRT);
    s.min_lr = 1e-4;
    np = boundaries(&s, pos);
    emit(f, cx, &s, "inverse square root reaching its min_lr floor", "MinLrFloor", "SCHED-ISQRT-1",
         "valid", pos, np);
    for (int ws = 1; ws < OC_WD_INCR_STYLE_COUNT; ws++) {
        s = defaults(OC_LR_COSINE);
        s.wd_style = (oc_wd_incr_style)ws;
        s.start_wd = 0.01;
        s.end_wd = 0.1;
        s.wd_mult = 0.5;
        s.wd_incr_steps = 60000;
        np = boundaries(&s, pos);
        emit(f, cx, &s, "weight-decay increment from 0.01 to 0.1 with a group multiplier 0.5",
             "WeightDecayIncrement", "SCHED-WD-1 SCHED-MULT-1", "valid", pos, np);
    }
    /* batch-size ramp: positions accumulate per-iteration increments micro*batch*dp that grow */
    s = defaults(OC_LR_COSINE);
    np = 0;
    for (int64_t it = 0, n = 0; it < 40; it++) {
        pos[np++] = n;
        n += 256 * (1 + it / 10) * 8; /* global batch 2048, 4096, 6144, 8192 samples */
    }
    emit(f, cx, &s, "batch-size ramp: positions are samples consumed, increments grow",
         "BatchRamp", "SCHED-POS-1", "valid", pos, np);
    /* invalid configurations (SCHED-CFG-1) and positions */
    static const bad_field bad[] = {
        {"min_lr < 0", offsetof(oc_schedule, min_lr), -1e-5, 0},
        {"max_lr < min_lr", offsetof(oc_schedule, max_lr), 1e-5, 0},
        {"init_lr > max_lr", offsetof(oc_schedule, init_lr), 1e-3, 0},
        {"max_lr = NaN", offsetof(oc_schedule, max_lr), NAN, 0},
        {"start_wd < 0", offsetof(oc_schedule, start_wd), -0.1, 0},
        {"end_wd < start_wd", offsetof(oc_schedule, end_wd), 0.05, 0},
    };
    int64_t zero = 0, neg = -1;
    oc_schedule linear_wd = defaults(OC_LR_COSINE);
    linear_wd.wd_style = OC_WD_LINEAR;
    invalid_fields(f, cx, linear_wd, bad, sizeof bad / sizeof bad[0]);
    static const bad_field badi[] = {
        {"decay_steps = 0", offsetof(oc_schedule, decay_steps), 0, 1},
        {"warmup_steps = decay_steps", offsetof(oc_schedule, warmup_steps), 100000, 1},
        {"WSD decay longer than the decay", offsetof(oc_schedule, wsd_decay_steps), 100001, 1},
        {"wd_incr_steps = 0", offsetof(oc_schedule, wd_incr_steps), 0, 1},
    };
    invalid_fields(f, cx, defaults(OC_LR_WSD), badi, sizeof badi / sizeof badi[0]);
    s = defaults(OC_LR_COSINE);
    s.end_wd = 0.2;
    emit(f, cx, &s, "constant wd style with start_wd != end_wd", "InvalidSchedule",
         "SCHED-CFG-1", "invalid", &zero, 1);
    s = defaults(OC_LR_COSINE);
    emit(f, cx, &s, "negative position", "InvalidSchedule", "SCHED-POS-1 SCHED-ERR-1", "invalid",
         &neg, 1);
    /* warmups from init_lr > 0 into cosine and constant: the shapes torch's LinearLR,
     * CosineAnnealingLR and SequentialLR express (spec/schedule.md §7) */
    for (int style = 0; style < 2; style++) {
        s = defaults(style ? OC_LR_CONSTANT : OC_LR_COSINE);
        s.init_lr = 1e-5;
        np = boundaries(&s, pos);
        emit(f, cx, &s, style ? "warmup from init_lr > 0, then constant"
                              : "warmup from init_lr > 0, then cosine to min_lr",
             "InitLr", "SCHED-WARMUP-1", "valid", pos, np);
    }
    /* appended: the boundaries of the configuration (SCHED-CFG-1) not reached above. W = 0 for
     * every style (cosine has it above); the WSD decay as long as the whole decay (S = D); a
     * second cosine weight-decay increment, from start 0 with the multiplier 1 */
    for (int st = 0; st < OC_LR_DECAY_STYLE_COUNT; st++) {
        if (st == OC_LR_COSINE)
            continue;
        s = defaults((oc_lr_decay_style)st);
        s.warmup_steps = 0;
        np = boundaries(&s, pos);
        emit(f, cx, &s, "no warmup: the first position already decays", "NoWarmup",
             style_rules[st], "valid", pos, np);
    }
    s = defaults(OC_LR_WSD);
    s.wsd_decay_steps = s.decay_steps;
    s.wsd_style = OC_WSD_COSINE;
    np = boundaries(&s, pos);
    emit(f, cx, &s, "WSD decay as long as the whole decay (S = D): no stable phase",
         "WsdWholeDecay", style_rules[OC_LR_WSD], "valid", pos, np);
    s = defaults(OC_LR_LINEAR);
    s.wd_style = OC_WD_COSINE;
    s.start_wd = 0.0;
    s.end_wd = 0.05;
    s.wd_incr_steps = 30000;
    np = boundaries(&s, pos);
    emit(f, cx, &s, "cosine weight-decay increment from 0 to 0.05", "WeightDecayIncrement",
         "SCHED-WD-1 SCHED-MULT-1", "valid", pos, np);
    /* appended (issue 19 item 3): the SCHED-CFG-1 boundaries no invalid case above reaches: an
     * infinite max_lr, a negative init_lr, a negative warmup, a WSD decay of 0 samples, an
     * infinite end_wd, a negative multiplier, and end_wd * wd_mult beyond binary64 */
    static const bad_field bad2[] = {
        {"max_lr = +inf", offsetof(oc_schedule, max_lr), INFINITY, 0},
        {"init_lr < 0", offsetof(oc_schedule, init_lr), -1e-5, 0},
        {"end_wd = +inf", offsetof(oc_schedule, end_wd), INFINITY, 0},
        {"wd_mult < 0", offsetof(oc_schedule, wd_mult), -0.5, 0},
    };
    invalid_fields(f, cx, linear_wd, bad2, sizeof bad2 / sizeof bad2[0]);
    static const bad_field overflow[] = {
        {"end_wd * wd_mult overflows binary64 (end_wd 4, wd_mult 2^1023)",
         offsetof(oc_schedule, wd_mult), 0x1p1023, 0}};
    oc_schedule big_wd = linear_wd;
    big_wd.end_wd = 4.0;
    invalid_fields(f, cx, big_wd, overflow, 1);
    static const bad_field badi2[] = {
        {"warmup_steps < 0", offsetof(oc_schedule, warmup_steps), -1, 1},
        {"wsd_decay_steps = 0", offsetof(oc_schedule, wsd_decay_steps), 0, 1},
    };
    invalid_fields(f, cx, defaults(OC_LR_WSD), badi2, sizeof badi2 / sizeof badi2[0]);
}

static void notes(family *f)
{
    static const char *const n[][4] = {
        {"Boundaries", "KNOWN_MISTAKE", "positions at every boundary of the schedule",
         "off-by-one warmup, missing warmup offset, late WSD decay and a missing floor show here"},
        {"NoWarmup", "EDGE_CASE", "warmup_steps = 0", "decay starts at position 0"},
        {"InitLr", "EDGE_CASE", "init_lr > 0 and min_lr = 0", "warmup starts above 0; decay ends at 0"},
        {"MinLrFloor", "KNOWN_MISTAKE", "inverse square root below its floor",
         "min_lr must clamp the inverse square root"},
        {"WeightDecayIncrement", "KNOWN_MISTAKE", "weight decay increasing over time",
         "the cosine increment rises as 0.5 (cos(pi (1 - r)) + 1); a decreasing cosine shows"},
        {"WsdWholeDecay", "EDGE_CASE", "wsd_decay_steps = decay_steps",
         "the WSD decay starts right after the warmup"},
        {"BatchRamp", "EDGE_CASE", "positions reached with growing increments",
         "the schedule depends on samples consumed only"},
        {"InvalidSchedule", "INVALID_INPUT", "configuration or position outside SCHED-CFG-1",
         "must be rejected with nothing written"},
    };
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
        family_note(f, n[i][0], n[i][1], n[i][2], n[i][3], NULL);
}

static int gen_schedule(const gen_options *opt, const char *outdir)
{
    static const char *const rules[] = {
        "SCHED-CFG-1", "SCHED-POS-1", "SCHED-WARMUP-1", "SCHED-CONST-1", "SCHED-END-1",
        "SCHED-ISQRT-1", "SCHED-DECAY-1", "SCHED-LINEAR-1", "SCHED-COSINE-1", "SCHED-WSD-1",
        "SCHED-WD-1", "SCHED-MULT-1", "SCHED-ERR-1", "SCHED-RANGE-1", "SCHED-TOL-1", "SCHED-TOL-2",
        "SCHED-PROF-MEGATRON", NULL};
    sched_ctx cx;
    for (int i = 0; i < NVARS; i++)
        mpfr_init2(cx.x[i], opt->prec);
    mpfr_const_pi(cx.x[PI], MPFR_RNDN);
    family f;
    int rc = family_init(&f, "schedule-megatron", "schedule", "megatron", rules, opt);
    if (rc == 0) {
        family_inline(&f);
        notes(&f);
        cases(&f, &cx);
        rc = family_save(&f, outdir);
        family_free(&f);
    }
    for (int i = 0; i < NVARS; i++)
        mpfr_clear(cx.x[i]);
    return rc;
}

/* Writes vectors/schedule-megatron (spec/schedule.md). */
const gen_family gen_family_schedule = {.name = "schedule", .generate = gen_schedule};
