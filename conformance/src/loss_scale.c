/* The loss-scale family's descriptor (spec/loss_scale.md): values inline in the JSON
 * (VEC-FMT-10), each test a found_inf history and the expected state after every update; in
 * the resume-loss-scale-* families a break after resumeAt updates (VEC-FMT-20, RESUME-LS-1). */
#include <stdlib.h>
#include <string.h>
#include "judge.h"
#include "vectors.h"
#include "ref_impl.h"
#include "../mutants/loss_scale.h"
#include "../mutants/resume.h"

enum { LS_SCALE, LS_GROWTH, LS_HYST };

/* The loss scaler's own mutants, then its restore mistakes (RESUME-MUT-1). */
static const char *ls_mutant(int mu)
{
    return mu < OC_LS_MUTANT_COUNT
               ? oc_loss_scale_mutant_name((oc_loss_scale_mutant)mu)
               : oc_resume_mutant_name(
                     (oc_resume_mutant)(mu - OC_LS_MUTANT_COUNT + OC_RESUME_FIRST_SCALER));
}

/* Outputs a profile has (LS-STATE-1): the constant scaler only a scale, torch no hysteresis. */
static int ls_nstate(const oc_hparams *hp)
{
    return hp->ls.profile == OC_LS_MEGATRON ? 3 : hp->ls.profile == OC_LS_TORCH ? 2 : 1;
}

static oc_status ls_parse(const char *path, const char *profile, json_t *h, oc_hparams *u,
                          oc_diag *d)
{
    oc_loss_scaler *c = &u->ls;
    double x[4];
    int64_t v;
    oc_status st;
    if (oc_loss_scale_profile_parse(profile, &c->profile) != OC_OK)
        return oc_fail(d, OC_ERR_FORMAT, "%s: unknown loss-scale profile '%s'", path, profile);
    if ((st = oc_get_hex(path, h, "initialScale", &x[0], d)) ||
        (st = oc_get_hex(path, h, "minScale", &x[1], d)) ||
        (st = oc_get_hex(path, h, "growthFactor", &x[2], d)) ||
        (st = oc_get_hex(path, h, "backoffFactor", &x[3], d)))
        return st;
    c->initial_scale = (float)x[0]; /* exact: oc_get_hex accepts binary32 values only */
    c->min_scale = (float)x[1];
    c->growth_factor = (float)x[2];
    c->backoff_factor = (float)x[3];
    if ((st = oc_get_int(path, 0, h, "growthInterval", INT64_MIN / 2, INT64_MAX / 2, &v, d)))
        return st;
    c->growth_interval = v;
    if ((st = oc_get_int(path, 0, h, "hysteresis", INT64_MIN / 2, INT64_MAX / 2, &v, d)))
        return st;
    c->hysteresis = v;
    return OC_OK;
}

/* "foundInf": "0010...", "expected": {"scale": [hex, ...], "growthTracker": [int, ...],
 * "hysteresisTracker": [int, ...]} (the outputs of the profile, valid cases only). */
static oc_status ls_load_case(const char *path, const oc_st_file *st, json_t *t, oc_case *c,
                              oc_diag *d)
{
    (void)st;
    const char *h = json_string_value(json_object_get(t, "foundInf"));
    if (!h || !*h || strspn(h, "01") != strlen(h))
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: foundInf must be a non-empty 0/1 string",
                       path, c->tcid);
    c->n = 1;
    c->steps = strlen(h);
    c->positions = calloc(c->steps, sizeof *c->positions);
    for (size_t i = 0; i < c->steps; i++)
        c->positions[i] = h[i] == '1';
    oc_status s;
    if (json_object_get(t, "resumeAt") && /* VEC-FMT-20: a break after 0 .. steps updates */
        (s = oc_get_int(path, c->tcid, t, "resumeAt", 0, (int64_t)c->steps, &c->resume_at, d)))
        return s;
    if (c->result != OC_RESULT_VALID)
        return OC_OK;
    json_t *exp = json_object_get(t, "expected");
    for (int k = 0; k < c->nstate; k++) {
        const char *name = c->algo->state_names[k];
        json_t *a = json_object_get(exp, name), *v;
        size_t i;
        if (!json_is_array(a) || json_array_size(a) != c->steps)
            return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: expected.%s needs one value per update",
                           path, c->tcid, name);
        c->exp[k].stored = calloc(c->steps, sizeof(double));
        c->exp[k].f64 = calloc(c->steps, sizeof(double));
        c->exp[k].tol = calloc(c->steps, sizeof(double)); /* LS-TOL-1: exact */
        json_array_foreach(a, i, v) {
            double x;
            if (k == LS_SCALE) {
                json_t *one = json_pack("{s:O}", "v", v);
                oc_status s = oc_get_hex(path, one, "v", &x, d);
                json_decref(one);
                if (s != OC_OK)
                    return s;
            } else if (json_is_integer(v)) {
                x = (double)json_integer_value(v);
            } else {
                return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: expected.%s must hold integers",
                               path, c->tcid, name);
            }
            c->exp[k].stored[i] = c->exp[k].f64[i] = x;
        }
    }
    return OC_OK;
}

static void record(const oc_case *c, const oc_loss_scale_state *s, size_t row, oc_outputs *o)
{
    double v[3] = {s->scale, (double)s->growth_tracker, (double)s->hysteresis_tracker};
    for (int k = 0; k < c->nstate; k++)
        o->out[k][row] = v[k];
}

/* Runs the history from the initial state (LS-INIT-1); a rejected update must leave the state
 * untouched. A resume case saves and restores the scaler after resumeAt updates through the
 * implementation's state entry (VEC-RESUME-1, RESUME-LS-1): the restored state is row
 * resumeAt - 1. */
static void ls_run(const oc_runner *impl, const oc_case *c, oc_outputs *o, oc_status *st,
                   int *dirty)
{
    const oc_loss_scaler *cfg = &c->hp.ls;
    void *buf[1] = {oc_alloc_guarded(sizeof(oc_loss_scale_state))};
    *(oc_loss_scale_state *)buf[0] = (oc_loss_scale_state){cfg->initial_scale, 0, cfg->hysteresis};
    for (int k = 0; k < c->nstate; k++)
        o->out[k] = calloc(c->steps + 1, sizeof(double));
    *st = OC_OK;
    for (size_t i = 0; i <= c->steps; i++) {
        if (c->resume_at == (int64_t)i) {
            static const char *const name[1] = {"scaler state"};
            const size_t bytes[1] = {sizeof(oc_loss_scale_state)};
            const oc_saved_state ss = {OC_STATE_LOSS_SCALER, cfg, NULL, 1, 1, bytes, name};
            int64_t done = (int64_t)i;
            *st = oc_save_and_restore(impl, &ss, buf, &done, o);
            if (*st != OC_OK || o->fault[0])
                break;
            if (i > 0)
                record(c, buf[0], i - 1, o);
        }
        if (i == c->steps)
            break;
        oc_loss_scale_state *s = buf[0], before = *s;
        *st = OC_ENTRY(impl, oc_loss_scale_update_fn)(impl->ctx, cfg, s, (int)c->positions[i]);
        if (!oc_check_output(o, "scaler state", s, sizeof *s))
            break;
        if (*st != OC_OK) {
            *dirty = memcmp(&before.scale, &s->scale, sizeof s->scale) != 0 || /* bits: NaN too */
                     before.growth_tracker != s->growth_tracker ||
                     before.hysteresis_tracker != s->hysteresis_tracker;
            break;
        }
        record(c, s, i, o);
    }
    free(buf[0]);
}

/* The case's hyper-parameters: oc_hparams.ls (algos.h). */
OC_HPARAMS(oc_loss_scaler, ls);

/* VEC-ABI-1: the reference's entry point, running the mutant its table selects (ref_impl.h). */
static oc_status ref_loss_scale(void *ctx, const oc_loss_scaler *c, oc_loss_scale_state *s,
                                int found_inf)
{
    int mu = oc_ref_mutant_of(ctx, &oc_algo_loss_scale); /* the restore mistakes come after LS's */
    return oc_loss_scale_mutant_update((oc_loss_scale_mutant)(mu < OC_LS_MUTANT_COUNT ? mu : 0), c,
                                       s, found_inf);
}

const oc_algo oc_algo_loss_scale = {
    .name = "loss-scale",
    .group_type = "LossScaleUpdate",
    .state_names = {"scale", "growthTracker", "hysteresisTracker"},
    .precision = 24,
    .nmutants = OC_LS_MUTANT_COUNT + OC_RESUME_MUTANT_COUNT - OC_RESUME_FIRST_SCALER,
    .mutant_name = ls_mutant,
    .nstate = ls_nstate,
    .parse = ls_parse,
    .load_case = ls_load_case,
    .run = ls_run,
    .alg = OC_ALG_COUNT,
    .reference = (oc_entry_point)ref_loss_scale,
};
