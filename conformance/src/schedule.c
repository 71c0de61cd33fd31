/* The schedule family's descriptor (spec/schedule.md): values inline in the JSON (VEC-FMT-9),
 * each test a list of positions with the expected lr and weight decay in binary64. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "judge.h"
#include "vectors.h"
#include "ref_impl.h"
#include "../mutants/schedule.h"

enum { SCHED_LR, SCHED_WD };

static const char *schedule_mutant(int mu) { return oc_schedule_mutant_name((oc_schedule_mutant)mu); }
static int schedule_nstate(const oc_hparams *hp) { return (void)hp, 2; }

/* A style name from a fixed list. */
static oc_status get_style(const char *path, json_t *h, const char *key, const char *const *names,
                           int count, int *out, oc_diag *d)
{
    const char *s = json_string_value(json_object_get(h, key));
    for (int i = 0; s && i < count; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return OC_OK;
        }
    return oc_fail(d, OC_ERR_FORMAT, "%s: hparams.%s: unknown style '%s'", path, key, s ? s : "");
}

static oc_status schedule_parse(const char *path, const char *profile, json_t *h, oc_hparams *u,
                                oc_diag *d)
{
    static const char *const lr_styles[] = {"constant", "linear", "cosine", "inverse-square-root", "WSD"};
    static const char *const wsd_styles[] = {"linear", "cosine", "exponential", "minus_sqrt"};
    static const char *const wd_styles[] = {"constant", "linear", "cosine"};
    oc_schedule *s = &u->sched;
    int64_t v;
    int style;
    oc_status st;
    if (strcmp(profile, "megatron") != 0)
        return oc_fail(d, OC_ERR_FORMAT, "%s: unknown schedule profile '%s'", path, profile);
    if ((st = oc_get_hex64(path, h, "initLr", &s->init_lr, d)) ||
        (st = oc_get_hex64(path, h, "maxLr", &s->max_lr, d)) ||
        (st = oc_get_hex64(path, h, "minLr", &s->min_lr, d)) ||
        (st = oc_get_hex64(path, h, "startWd", &s->start_wd, d)) ||
        (st = oc_get_hex64(path, h, "endWd", &s->end_wd, d)) ||
        (st = oc_get_hex64(path, h, "wdMult", &s->wd_mult, d)))
        return st;
    if ((st = oc_get_int(path, 0, h, "warmupSteps", INT64_MIN / 2, INT64_MAX / 2, &v, d)))
        return st;
    s->warmup_steps = v;
    if ((st = oc_get_int(path, 0, h, "decaySteps", INT64_MIN / 2, INT64_MAX / 2, &v, d)))
        return st;
    s->decay_steps = v;
    if ((st = oc_get_int(path, 0, h, "wsdDecaySteps", INT64_MIN / 2, INT64_MAX / 2, &v, d)))
        return st;
    s->wsd_decay_steps = v;
    if ((st = oc_get_int(path, 0, h, "wdIncrSteps", INT64_MIN / 2, INT64_MAX / 2, &v, d)))
        return st;
    s->wd_incr_steps = v;
    if ((st = get_style(path, h, "decayStyle", lr_styles, 5, &style, d)))
        return st;
    s->decay_style = (oc_lr_decay_style)style;
    if ((st = get_style(path, h, "wsdStyle", wsd_styles, 4, &style, d)))
        return st;
    s->wsd_style = (oc_wsd_decay_style)style;
    if ((st = get_style(path, h, "wdStyle", wd_styles, 3, &style, d)))
        return st;
    s->wd_style = (oc_wd_incr_style)style;
    return OC_OK;
}

/* "points": [{"samples": N, "lr": hex, "wd": hex, "lrF64": hex, "wdF64": hex,
 *             "lrTol": hex, "wdTol": hex}, ...] (the last four only in valid cases). */
static oc_status schedule_load_case(const char *path, const oc_st_file *st, json_t *t, oc_case *c,
                                    oc_diag *d)
{
    static const char *const keys[2][3] = {{"lr", "lrF64", "lrTol"}, {"wd", "wdF64", "wdTol"}};
    (void)st;
    json_t *pts = json_object_get(t, "points"), *pt;
    size_t i;
    if (!json_is_array(pts) || json_array_size(pts) == 0)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: needs a non-empty points list", path, c->tcid);
    c->n = json_array_size(pts);
    c->steps = 1;
    c->positions = calloc(c->n, sizeof *c->positions);
    /* SCHED-TOL-2: the bounds written, 16 u (|init| + |max| + |min|) and
     * 16 u (|start| + |end|) |wd_mult|, with the generator's upward rounding as slack. */
    const oc_schedule *h = &c->hp.sched;
    const double k = 16 * 0x1p-53 * (1 + 0x1p-30);
    const double max[2] = {k * (fabs(h->init_lr) + fabs(h->max_lr) + fabs(h->min_lr)),
                           k * (fabs(h->start_wd) + fabs(h->end_wd)) * fabs(h->wd_mult)};
    for (int k = 0; k < 2 && c->result == OC_RESULT_VALID; k++) {
        c->exp[k].stored = calloc(c->n, sizeof(double));
        c->exp[k].f64 = calloc(c->n, sizeof(double));
        c->exp[k].tol = calloc(c->n, sizeof(double));
    }
    json_array_foreach(pts, i, pt) {
        oc_status s = oc_get_int(path, c->tcid, pt, "samples", INT64_MIN / 2, INT64_MAX / 2,
                                 &c->positions[i], d);
        for (int k = 0; k < 2 && s == OC_OK && c->result == OC_RESULT_VALID; k++) {
            if ((s = oc_get_hex64(path, pt, keys[k][0], &c->exp[k].stored[i], d)) ||
                (s = oc_get_hex64(path, pt, keys[k][1], &c->exp[k].f64[i], d)) ||
                (s = oc_get_hex64(path, pt, keys[k][2], &c->exp[k].tol[i], d)))
                break;
            if (s == OC_OK)
                s = oc_check_tol(path, c->tcid, keys[k][2], &c->exp[k].tol[i], 1, max[k], d);
        }
        if (s != OC_OK)
            return s;
    }
    return OC_OK;
}

/* Evaluates every point; a rejected point must leave the outputs untouched. */
static void schedule_run(const oc_runner *impl, const oc_case *c, oc_outputs *o, oc_status *st,
                         int *dirty)
{
    for (int k = 0; k < 2; k++)
        o->out[k] = calloc(c->n + 1, sizeof(double));
    *st = OC_OK;
    for (size_t i = 0; i < c->n && *st == OC_OK; i++) {
        double lr = -1.0, wd = -1.0; /* sentinels: a rejecting implementation must not write */
        *st = OC_ENTRY(impl, oc_schedule_eval_fn)(impl->ctx, &c->hp.sched, c->positions[i], &lr,
                                                  &wd);
        if (*st != OC_OK)
            *dirty = lr != -1.0 || wd != -1.0;
        o->out[SCHED_LR][i] = lr;
        o->out[SCHED_WD][i] = wd;
    }
}

/* The case's hyper-parameters: oc_hparams.sched (algos.h). */
OC_HPARAMS(oc_schedule, sched);

/* VEC-ABI-1: the reference's entry point, running the mutant its table selects (ref_impl.h). */
static oc_status ref_schedule(void *ctx, const oc_schedule *s, int64_t samples, double *lr,
                              double *wd)
{
    return oc_schedule_mutant_eval((oc_schedule_mutant)oc_ref_mutant_of(ctx, &oc_algo_schedule), s,
                                   samples, lr, wd);
}

const oc_algo oc_algo_schedule = {
    .name = "schedule",
    .group_type = "ScheduleEval",
    .state_names = {"lr", "wd"},
    .precision = 53,
    .nmutants = OC_SCHED_MUTANT_COUNT,
    .mutant_name = schedule_mutant,
    .nstate = schedule_nstate,
    .parse = schedule_parse,
    .load_case = schedule_load_case,
    .run = schedule_run,
    .alg = OC_ALG_COUNT,
    .reference = (oc_entry_point)ref_schedule,
};
