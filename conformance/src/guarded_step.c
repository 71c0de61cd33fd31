/* The guarded step's descriptor (spec/guarded_step.md, VEC-FMT-17): a test is a chained optimizer
 * (sub-optimizers with their hyper-parameters, step counters and parameter sizes), the state
 * of every parameter, and the scaled gradients of a few iterations. The one output, "value",
 * holds one row per iteration: outcome, norm, position, per loss scaler (one, or one per
 * sub-optimizer: STEP-SCALER-2) its scale, growth tracker and hysteresis tracker, every
 * sub-optimizer's counter, then per parameter its p, its state tensors and its gradient after
 * the iteration (STEP-TOL-1, STEP-TOL-2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "judge.h"
#include "tolcap.h"
#include "vectors.h"
#include "ref_impl.h"
#include "../mutants/guarded_step.h"

#define HEAD_FIXED 3 /* outcome, norm, position; then 3 entries per loss scaler */
#define MAX_SUBS OC_GUARD_MAX_SUBS
#define MAX_PARAMS OC_GUARD_MAX_PARAMS

/* What a test adds to its group's configuration. oc_case has no slot of its own for it: it
 * lives in the (otherwise unused) c->positions block, allocated as this struct and freed with
 * it. */
typedef struct step_meta {
    oc_loss_scale_state scaler[MAX_SUBS]; /* nscalers: 1, or nsub with sub_scalers */
    size_t nscalers;
    int64_t position, increment;
    size_t nsub, nparams, ngrad, nstate_values;
    oc_sub_optimizer sub[MAX_SUBS]; /* params: indexes into n[] (filled at run time) */
    size_t first[MAX_SUBS];         /* the sub-optimizer's first parameter in n[] */
    size_t n[MAX_PARAMS];
} step_meta;

static const step_meta *meta(const oc_case *c) { return (const step_meta *)(const void *)c->positions; }

/* The row's head: outcome, norm, position and the loss scalers' states. */
static size_t head_width(const step_meta *m) { return HEAD_FIXED + 3 * m->nscalers; }

static const char *step_mutant(int mu) { return oc_guard_mutant_name((oc_guard_mutant)mu); }
static int step_nstate(const oc_hparams *hp) { return (void)hp, 1; }

/* The tensors a parameter of sub-optimizer s carries in the rows: p, then its algorithm's state
 * (oc_algorithm_state_count: MP-STORE-1's layout). */
static int sub_nstate(const oc_sub_optimizer *s) { return 1 + oc_algorithm_state_count(s->kind, &s->hp); }

/* Sub-optimizer s's hyper-parameters as its algorithm's descriptor reads them: the member of
 * either union sits at the union's address. */
static oc_hparams sub_hparams(const oc_sub_optimizer *s)
{
    oc_hparams hp;
    memset(&hp, 0, sizeof hp);
    memcpy(&hp, &s->hp, sizeof s->hp);
    return hp;
}

/* The harness's descriptor of element-wise algorithm alg (its .alg), NULL if none. */
static const oc_algo *elementwise_algo(oc_algorithm alg)
{
    for (int i = 0; i < OC_NALGOS; i++)
        if (oc_algos[i]->alg == alg && alg != OC_ALG_COUNT)
            return oc_algos[i];
    return NULL;
}

static oc_status step_parse(const char *path, const char *profile, json_t *h, oc_hparams *u,
                            oc_diag *d)
{
    static const char *const modes[OC_GUARD_MODE_COUNT] = {"scaled", "unchecked", "checked"};
    oc_step_family_config *c = &u->step;
    const char *mode = json_string_value(json_object_get(h, "mode"));
    const char *norm = json_string_value(json_object_get(h, "normType"));
    oc_status st;
    if (strcmp(profile, "megatron") != 0)
        return oc_fail(d, OC_ERR_FORMAT, "%s: unknown guarded-step profile '%s'", path, profile);
    c->guard.mode = OC_GUARD_MODE_COUNT;
    for (int m = 0; mode && m < OC_GUARD_MODE_COUNT; m++)
        if (strcmp(mode, modes[m]) == 0)
            c->guard.mode = (oc_guard_mode)m;
    if (c->guard.mode == OC_GUARD_MODE_COUNT)
        return oc_fail(d, OC_ERR_FORMAT, "%s: hparams.mode must be scaled, unchecked or checked",
                       path);
    if (!norm || (strcmp(norm, "2") != 0 && strcmp(norm, "inf") != 0))
        return oc_fail(d, OC_ERR_FORMAT, "%s: hparams.normType must be \"2\" or \"inf\"", path);
    c->guard.inf_norm = strcmp(norm, "inf") == 0;
    if ((st = oc_get_hex(path, h, "clipGrad", &c->guard.clip_grad, d)) ||
        (st = oc_get_hex(path, h, "skipThreshold", &c->guard.skip_threshold, d)))
        return st;
    json_t *scaler = json_object_get(h, "scaler");
    if ((c->guard.mode == OC_GUARD_SCALED) != (scaler != NULL))
        return oc_fail(d, OC_ERR_FORMAT, "%s: hparams.scaler is required in mode scaled only",
                       path);
    if (scaler) { /* the loss-scale family's hyper-parameters (VEC-FMT-10) */
        oc_hparams ls;
        if ((st = oc_algo_loss_scale.parse(path, "megatron", scaler, &ls, d)))
            return st;
        c->scaler = ls.ls;
    }
    return OC_OK;
}

/* VEC-ABI-2: a case needs the option of its guard mode (options[], in oc_guard_mode's order),
 * "groups" with Megatron's per-sub-optimizer configuration or 'mtp' group, and "scalers" with
 * its loss scaler per sub-optimizer. */
static unsigned step_needs(const oc_hparams *hp)
{
    const oc_guard_config *g = &hp->step.guard;
    return 1u << g->mode | (g->per_sub || g->mtp_params ? 1u << OC_GUARD_MODE_COUNT : 0u) |
           (g->sub_scalers ? 1u << (OC_GUARD_MODE_COUNT + 1) : 0u);
}

/* STEP-CLIP-2, STEP-GROUP-1: an entry's own "clipGrad" and "skipThreshold" (both or neither)
 * and "gradNormGroups" (per parameter null or "mtp"), into the case's configuration. */
static oc_status load_sub_groups(const char *path, int tcid, json_t *o, size_t k, size_t first,
                                 oc_guard_config *g, int *per_sub, oc_diag *d)
{
    json_t *clip = json_object_get(o, "clipGrad"), *thr = json_object_get(o, "skipThreshold");
    json_t *groups = json_object_get(o, "gradNormGroups"), *v;
    oc_status st;
    size_t i;
    *per_sub = clip != NULL;
    if ((clip != NULL) != (thr != NULL))
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: optimizers[%zu] needs both clipGrad and "
                       "skipThreshold or neither", path, tcid, k);
    if (clip && ((st = oc_get_hex(path, o, "clipGrad", &g->sub_clip_grad[k], d)) ||
                 (st = oc_get_hex(path, o, "skipThreshold", &g->sub_skip_threshold[k], d))))
        return st;
    if (!groups)
        return OC_OK;
    if (!json_is_array(groups) ||
        json_array_size(groups) != json_array_size(json_object_get(o, "params")))
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: optimizers[%zu].gradNormGroups must have "
                       "one entry per parameter", path, tcid, k);
    json_array_foreach(groups, i, v) {
        if (json_is_string(v) && strcmp(json_string_value(v), "mtp") == 0)
            g->mtp_params |= 1ull << (first + i);
        else if (!json_is_null(v))
            return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: a grad-norm group is null or \"mtp\"",
                           path, tcid);
    }
    return OC_OK;
}

/* One entry of "optimizers": {"kind", "profile", "hparams", "step", "params": [n, ...]}; the
 * hyper-parameters are read by the sub-optimizer's own family's reader. */
static oc_status load_sub(const char *path, int tcid, json_t *o, step_meta *m, oc_diag *d)
{
    const char *kind = json_string_value(json_object_get(o, "kind"));
    const char *profile = json_string_value(json_object_get(o, "profile"));
    json_t *params = json_object_get(o, "params"), *v;
    oc_sub_optimizer *s = &m->sub[m->nsub];
    oc_hparams hp;
    oc_status st;
    int64_t x;
    size_t i;
    const oc_algo *a = kind ? oc_algo_find(kind) : NULL;
    if (!a || a->alg == OC_ALG_COUNT || !profile || !json_is_array(params) ||
        json_array_size(params) > MAX_PARAMS - m->nparams)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: optimizers[] needs kind (an element-wise "
                       "algorithm), profile, hparams, step, params (%d in all at most)", path, tcid,
                       MAX_PARAMS);
    memset(&hp, 0, sizeof hp);
    if ((st = a->parse(path, profile, json_object_get(o, "hparams"), &hp, d)) ||
        (st = oc_get_int(path, tcid, o, "step", 0, INT64_MAX, &x, d)))
        return st;
    s->kind = a->alg;
    /* the member a->parse filled: every member of either union starts at the union's address */
    _Static_assert(sizeof s->hp <= sizeof hp, "oc_hparams holds every sub-optimizer's hp");
    memcpy(&s->hp, &hp, sizeof s->hp);
    s->step = x;
    s->nparams = json_array_size(params);
    m->first[m->nsub++] = m->nparams;
    json_array_foreach(params, i, v) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 1 << 20)
            return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: a parameter size must be in [1, 2^20]",
                           path, tcid);
        size_t n = (size_t)json_integer_value(v);
        m->n[m->nparams++] = n;
        m->ngrad += n;
        m->nstate_values += n * (size_t)sub_nstate(s);
    }
    return OC_OK;
}

static size_t row_width(const step_meta *m)
{
    return head_width(m) + m->nsub + m->nstate_values + m->ngrad;
}

/* A loss scaler's state (VEC-FMT-17): {"scale", "growthTracker", "hysteresisTracker"}. */
static oc_status load_scaler_state(const char *path, int tcid, json_t *ls, oc_loss_scale_state *s,
                                   oc_diag *d)
{
    double scale;
    oc_status st;
    if ((st = oc_get_hex(path, ls, "scale", &scale, d)) ||
        (st = oc_get_int(path, tcid, ls, "growthTracker", INT64_MIN, INT64_MAX, &s->growth_tracker,
                         d)) ||
        (st = oc_get_int(path, tcid, ls, "hysteresisTracker", INT64_MIN, INT64_MAX,
                         &s->hysteresis_tracker, d)))
        return st;
    s->scale = (float)scale;
    return OC_OK;
}

/* The scaled mode's loss-scaler states: "scalerState", the chain's one (STEP-SCALER-1), or
 * "scalerStates", one per sub-optimizer in order (STEP-SCALER-2). */
static oc_status load_scalers(const char *path, const oc_case *c, json_t *t, step_meta *m,
                              oc_guard_config *g, oc_diag *d)
{
    json_t *one = json_object_get(t, "scalerState"), *each = json_object_get(t, "scalerStates"), *o;
    oc_status s;
    size_t k;
    m->nscalers = 1;
    if (g->mode != OC_GUARD_SCALED)
        return one || each ? oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: a loss-scaler state in a "
                                     "mode without a scaler", path, c->tcid) : OC_OK;
    if ((one != NULL) == (each != NULL))
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: the scaled mode needs scalerState or "
                       "scalerStates (one of them)", path, c->tcid);
    if (one)
        return load_scaler_state(path, c->tcid, one, &m->scaler[0], d);
    if (!json_is_array(each) || json_array_size(each) != m->nsub)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: scalerStates needs one state per "
                       "sub-optimizer (%zu)", path, c->tcid, m->nsub);
    json_array_foreach(each, k, o)
        if ((s = load_scaler_state(path, c->tcid, o, &m->scaler[k], d)))
            return s;
    g->sub_scalers = 1;
    m->nscalers = m->nsub;
    return OC_OK;
}

/* "scalerState" or "scalerStates" (scaled mode), "position", "increment", "steps", "optimizers",
 * "inputs": {"state", "grad"}, "expected": {"value": {"stored", "f64", "tol"}} (valid cases). */
static oc_status step_load_case(const char *path, const oc_st_file *st, json_t *t, oc_case *c,
                                oc_diag *d)
{
    step_meta *m = calloc(1, sizeof *m);
    json_t *subs = json_object_get(t, "optimizers"), *o, *inputs = json_object_get(t, "inputs");
    oc_status s;
    int64_t steps;
    size_t i;
    c->positions = (int64_t *)(void *)m; /* freed with the case */
    if ((s = oc_get_int(path, c->tcid, t, "position", 0, INT64_MAX, &m->position, d)) ||
        (s = oc_get_int(path, c->tcid, t, "increment", INT64_MIN, INT64_MAX, &m->increment, d)) ||
        (s = oc_get_int(path, c->tcid, t, "steps", 1, 64, &steps, d)))
        return s;
    if (!json_is_array(subs) || json_array_size(subs) < 1 || json_array_size(subs) > MAX_SUBS)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: optimizers must list 1 to %d entries", path,
                       c->tcid, MAX_SUBS);
    size_t per_sub = 0;
    json_array_foreach(subs, i, o) {
        size_t first = m->nparams;
        int own;
        if ((s = load_sub(path, c->tcid, o, m, d)) ||
            (s = load_sub_groups(path, c->tcid, o, i, first, &c->hp.step.guard, &own, d)))
            return s;
        per_sub += (size_t)own;
    }
    if (per_sub != 0 && per_sub != m->nsub)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: clipGrad and skipThreshold are given for "
                       "every sub-optimizer or for none", path, c->tcid);
    c->hp.step.guard.per_sub = per_sub != 0;
    if ((s = load_scalers(path, c, t, m, &c->hp.step.guard, d)))
        return s;
    c->steps = (size_t)steps;
    c->n = row_width(m);
    void *buf;
    if ((s = oc_tensor_ref(st, path, c->tcid, inputs, "state", OC_F32, 1, m->nstate_values, &buf, d)))
        return s;
    c->in[0] = buf;
    if ((s = oc_tensor_ref(st, path, c->tcid, inputs, "grad", OC_F32, c->steps, m->ngrad, &buf, d)))
        return s;
    c->g = buf;
    if (c->result != OC_RESULT_VALID)
        return OC_OK;
    json_t *exp = json_object_get(json_object_get(t, "expected"), "value");
    static const char *const keys[3] = {"stored", "f64", "tol"};
    double **dst[3] = {&c->exp[0].stored, &c->exp[0].f64, &c->exp[0].tol};
    for (int k = 0; k < 3; k++) {
        if ((s = oc_tensor_ref(st, path, c->tcid, exp, keys[k], OC_F64, c->steps, c->n, &buf, d)))
            return s;
        *dst[k] = buf;
    }
    return oc_check_tol_entries(path, c->tcid, "value", c->exp[0].tol, c->exp[0].f64, NULL,
                                c->steps, c->n, OC_FMT_F32, d); /* VEC-TOL-1 */
}

/* The scale sub-optimizer k unscales iteration r with: its scaler's (STEP-SCALER-2) or the
 * one's, as the previous row (or the input state) left it; 1 without a scaler. */
static double scale_of(const oc_case *c, size_t k, size_t r)
{
    const step_meta *m = meta(c);
    const size_t s = c->hp.step.guard.sub_scalers ? k : 0;
    return c->hp.step.guard.mode != OC_GUARD_SCALED ? 1
           : r ? c->exp[0].stored[(r - 1) * c->n + HEAD_FIXED + 3 * s] : m->scaler[s].scale;
}

/* STEP-GROUP-1: the norm of the 'mtp' group's unscaled input gradients of iteration r, in
 * binary64 (the rows hold the main norm only); it decides whether the group clips, which the
 * generator keeps away from the boundary (STEP-TOL-1). Unscaling by a power of two is exact. */
static double group_norm(const oc_case *c, size_t r)
{
    const step_meta *m = meta(c);
    const oc_guard_config *cfg = &c->hp.step.guard;
    double acc = 0;
    for (size_t k = 0, at = 0; k < m->nsub; k++)
        for (size_t q = m->first[k]; q < m->first[k] + m->sub[k].nparams; at += m->n[q++])
            for (size_t j = 0; (cfg->mtp_params >> q & 1u) && j < m->n[q]; j++) {
                double x = fabs(c->g[r * m->ngrad + at + j] / scale_of(c, k, r));
                acc = isnan(x) || isnan(acc) ? NAN : cfg->inf_norm ? fmax(acc, x) : acc + x * x;
            }
    return cfg->inf_norm ? acc : sqrt(acc);
}

/* VEC-TOL-2 for the guarded step: STEP-TOL-2 re-evaluated from the golden rows. The norm within
 * rho |N| (CLIP-TOL-2, m = every gradient element, R = 1; 0 for the inf-norm); where the row
 * clips (c = clipGrad / (N + 1e-6) < 1, N the golden f64 norm: every decision lies away from
 * its boundary, STEP-TOL-1), a clipped gradient within e_g = |g'| (rho + 5u) + 2^-149; on a
 * taken row each element's state within its algorithm's own bound (tolcap.c) plus the
 * sensitivity to e_g times 1 + 2^-12; a skipped row keeps the bounds; non-finite values exact. */
static oc_status step_cap_tolerances(const char *path, const oc_case *c, oc_tolcap_stats *stats,
                                     oc_diag *d)
{
    const step_meta *m = meta(c);
    const oc_guard_config *cfg = &c->hp.step.guard;
    for (size_t k = 0; k < m->nsub; k++) {
        const oc_hparams hp = sub_hparams(&m->sub[k]);
        const oc_algo *a = elementwise_algo(m->sub[k].kind);
        if (!oc_tolcap_sensitivity_defined(a, &hp))
            return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: sub-optimizer %zu is outside what "
                           "STEP-TOL-2 derives bounds for (%s: %s)", path, c->tcid, k, a->name,
                           a->tolcap->sensitivity_domain);
    }
    size_t mtp_elements = 0;
    for (size_t q = 0; q < m->nparams; q++)
        mtp_elements += (cfg->mtp_params >> q & 1u) ? m->n[q] : 0;
    const double u = 0x1p-24, rho = cfg->inf_norm ? 0 : (double)(m->ngrad - mtp_elements + 5) * u;
    const double rho_mtp = cfg->inf_norm ? 0 : (double)(mtp_elements + 5) * u;
    double *E = calloc(m->nstate_values + 1, sizeof *E); /* per state value, as inputs.state */
    oc_status s = E ? OC_OK : oc_fail(d, OC_ERR_INTERNAL, "out of memory checking %s", path);
    for (size_t r = 0; r < c->steps && s == OC_OK; r++) {
        const double *row = c->exp[0].stored + r * c->n, *exact = c->exp[0].f64 + r * c->n;
        const double mtp_norm = group_norm(c, r);
        const int taken = row[0] == OC_STEP_TAKEN, found_inf = row[0] == OC_STEP_SKIPPED_INF;
        const double norm_bound = isfinite(row[1]) ? rho * fabs(row[1]) : 0;
        s = oc_tolcap_within(path, c, 0, r * c->n + 1,
                             norm_bound > 0 ? oc_tolcap_widen(norm_bound) : 0, stats, d);
        size_t col = head_width(m) + m->nsub, sv = 0;
        for (size_t k = 0; k < m->nsub && s == OC_OK; k++) {
            const oc_sub_optimizer *sub = &m->sub[k];
            const oc_algo *a = elementwise_algo(sub->kind);
            const int ns = sub_nstate(sub);
            const double counter = row[head_width(m) + k]; /* golden: checked before the cast */
            if (!(counter >= 0 && counter <= 0x1p62 && counter == floor(counter))) {
                s = oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: expected step counter of "
                            "sub-optimizer %zu in row %zu is not an integer in [0, 2^62]", path,
                            c->tcid, k, r);
                break;
            }
            const int64_t t = (int64_t)counter;
            /* STEP-CLIP-2: its own clip_grad; STEP-GROUP-1: a gradient of the 'mtp' group
             * against that group's norm (group_norm) */
            const double clip_grad = oc_guard_sub_clip_grad(cfg, k);
            const oc_hparams hp = sub_hparams(sub);
            for (size_t i = 0; i < sub->nparams && s == OC_OK; i++) {
                size_t n = m->n[m->first[k] + i];
                const int mtp = (cfg->mtp_params >> (m->first[k] + i) & 1u) != 0;
                const int clip = !found_inf && clip_grad > 0 &&
                                 clip_grad / ((mtp ? mtp_norm : exact[1]) + 1e-6) < 1;
                const double egrel = clip ? (mtp ? rho_mtp : rho) + 5 * u : 0;
                for (size_t j = 0; j < n && s == OC_OK; j++) {
                    double before[OC_MAX_STATE] = {0}, after[OC_MAX_STATE] = {0};
                    double Ej[OC_MAX_STATE] = {0}, add[OC_MAX_STATE];
                    double g = row[col + (size_t)ns * n + j];
                    double eg = clip ? fabs(g) * egrel + 0x1p-149 : 0;
                    for (int q = 0; q < ns; q++) {
                        before[q] = r ? row[col + (size_t)q * n + j - c->n]
                                      : c->in[0][sv + (size_t)q * n + j];
                        after[q] = row[col + (size_t)q * n + j];
                        Ej[q] = E[sv + (size_t)q * n + j];
                    }
                    if (taken) {
                        oc_tolcap_grad_sensitivity(a, &hp, t, before, Ej, g, eg, add);
                        oc_tolcap_element(a, &hp, t, before, after, g, Ej);
                        for (int q = 0; q < ns; q++)
                            Ej[q] = oc_tolcap_widen(Ej[q] + add[q] * (1 + 0x1p-12));
                    }
                    for (int q = 0; q <= ns && s == OC_OK; q++) {
                        double x = row[col + (size_t)q * n + j];
                        double cap = !isfinite(x) ? 0 : q < ns ? Ej[q]
                                   : eg > 0 ? oc_tolcap_widen(eg) : 0;
                        if (q < ns)
                            E[sv + (size_t)q * n + j] = Ej[q];
                        s = oc_tolcap_within(path, c, 0, r * c->n + col + (size_t)q * n + j, cap,
                                             stats, d);
                    }
                }
                col += (size_t)(ns + 1) * n;
                sv += (size_t)ns * n;
            }
        }
    }
    free(E);
    return s;
}

/* Every buffer of every parameter in one arena, each 64-byte aligned: p, state 0..2, grad, each
 * followed by at least GUARD_FLOATS floats of GUARD_FILL bytes (VEC-PLUG-3). */
#define SLOTS 5
#define GUARD_FLOATS 16
#define GUARD_FILL 0xA5
static size_t padded(size_t n) { return (n + GUARD_FLOATS + 15) / 16 * 16; }

/* VEC-PLUG-3: the guard after every buffer of every parameter intact. */
static void check_guards(const oc_sub_optimizer *subs, size_t nsub, oc_outputs *o)
{
    static const char *const slot[SLOTS] = {"p", "state[0]", "state[1]", "state[2]", "grad"};
    for (size_t k = 0; k < nsub; k++)
        for (size_t i = 0; i < subs[k].nparams; i++) {
            const oc_guarded_param *q = &subs[k].params[i];
            for (int s = 0; s < SLOTS; s++) {
                const unsigned char *b = (const unsigned char *)(q->p + (size_t)s * padded(q->n));
                for (size_t j = q->n * sizeof(float); j < padded(q->n) * sizeof(float); j++)
                    if (b[j] != GUARD_FILL) {
                        snprintf(o->fault, sizeof o->fault, "wrote past the end of %s of "
                                 "parameter %zu of sub-optimizer %zu", slot[s], i, k);
                        return;
                    }
            }
        }
}

/* The sub-optimizers and parameters the implementation was given: only the step counters are
 * its to change. */
static int same_descriptors(const oc_sub_optimizer *a, const oc_sub_optimizer *b, size_t nsub,
                            const oc_guarded_param *pa, const oc_guarded_param *pb, size_t nparams)
{
    for (size_t k = 0; k < nsub; k++)
        if (a[k].kind != b[k].kind || memcmp(&a[k].hp, &b[k].hp, sizeof a[k].hp) != 0 ||
            a[k].nparams != b[k].nparams || a[k].params != b[k].params)
            return 0;
    return memcmp(pa, pb, nparams * sizeof *pa) == 0;
}

static void step_run(const oc_runner *impl, const oc_case *c, oc_outputs *o, oc_status *st,
                     int *dirty)
{
    const step_meta *m = meta(c);
    const oc_guard_config *cfg = &c->hp.step.guard;
    const int scaled = cfg->mode == OC_GUARD_SCALED;
    size_t total = 0;
    for (size_t q = 0; q < m->nparams; q++)
        total += SLOTS * padded(m->n[q]);
    float *arena = aligned_alloc(64, (total + 16) * sizeof(float));
    float *snap = malloc((total + 16) * sizeof(float));
    oc_guarded_param params[MAX_PARAMS], params_given[MAX_PARAMS];
    oc_sub_optimizer subs[MAX_SUBS], subs_given[MAX_SUBS];
    memset(arena, GUARD_FILL, (total + 16) * sizeof(float));
    o->out[0] = calloc(c->steps * c->n + 1, sizeof(double));
    size_t at = 0, sv = 0;
    for (size_t k = 0; k < m->nsub; k++) {
        subs[k] = m->sub[k];
        subs[k].params = &params[m->first[k]];
        const int ns = sub_nstate(&subs[k]);
        for (size_t i = 0; i < subs[k].nparams; i++) {
            oc_guarded_param *q = &params[m->first[k] + i];
            size_t n = m->n[m->first[k] + i];
            float *b = arena + at;
            at += SLOTS * padded(n);
            *q = (oc_guarded_param){n, b, {NULL, NULL, NULL}, b + 4 * padded(n)};
            memcpy(q->p, c->in[0] + sv, n * sizeof(float));
            sv += n;
            for (int s = 1; s < ns; s++) { /* Adam m, v; SGD buf (with momentum); Lion m */
                q->state[s - 1] = b + (size_t)s * padded(n);
                memcpy(q->state[s - 1], c->in[0] + sv, n * sizeof(float));
                sv += n;
            }
        }
    }
    oc_loss_scale_state ls[MAX_SUBS], ls_before[MAX_SUBS];
    memcpy(ls, m->scaler, sizeof ls);
    int64_t position = m->position, pos_before;
    *st = OC_OK;
    for (size_t step = 0; step < c->steps; step++) {
        size_t g = 0;
        for (size_t q = 0; q < m->nparams; q++) {
            memcpy(params[q].grad, c->g + step * m->ngrad + g, params[q].n * sizeof(float));
            g += params[q].n;
        }
        memcpy(snap, arena, total * sizeof(float));
        memcpy(ls_before, ls, sizeof ls);
        pos_before = position;
        int64_t counters[MAX_SUBS];
        for (size_t k = 0; k < m->nsub; k++)
            counters[k] = subs[k].step;
        float norm = -1.0f; /* sentinels */
        oc_step_outcome outcome = OC_STEP_OUTCOME_COUNT;
        memcpy(subs_given, subs, m->nsub * sizeof *subs);
        memcpy(params_given, params, m->nparams * sizeof *params);
        *st = OC_ENTRY(impl, oc_guarded_step_fn)(impl->ctx, cfg, scaled ? &c->hp.step.scaler : NULL,
                                 scaled ? ls : NULL, m->nsub, subs, &position, m->increment,
                                 &norm, &outcome);
        if (!same_descriptors(subs, subs_given, m->nsub, params, params_given, m->nparams)) {
            snprintf(o->fault, sizeof o->fault, "changed its sub-optimizer or parameter "
                     "descriptors (only the step counters are outputs)");
            break; /* the harness must not follow pointers the implementation rewrote */
        }
        check_guards(subs, m->nsub, o);
        if (o->fault[0])
            break;
        if (*st != OC_OK) { /* STEP-ERR-1: nothing written */
            *dirty = memcmp(snap, arena, total * sizeof(float)) != 0 || norm != -1.0f ||
                     outcome != OC_STEP_OUTCOME_COUNT || position != pos_before;
            for (size_t k = 0; k < m->nscalers; k++)
                *dirty |= memcmp(&ls[k].scale, &ls_before[k].scale, sizeof ls[k].scale) != 0 ||
                          ls[k].growth_tracker != ls_before[k].growth_tracker ||
                          ls[k].hysteresis_tracker != ls_before[k].hysteresis_tracker;
            for (size_t k = 0; k < m->nsub; k++)
                *dirty |= subs[k].step != counters[k];
            break;
        }
        double *row = o->out[0] + step * c->n;
        size_t w = 0;
        row[w++] = outcome;
        row[w++] = norm;
        row[w++] = (double)position;
        for (size_t k = 0; k < m->nscalers; k++) {
            row[w++] = scaled ? ls[k].scale : 0;
            row[w++] = scaled ? (double)ls[k].growth_tracker : 0;
            row[w++] = scaled ? (double)ls[k].hysteresis_tracker : 0;
        }
        for (size_t k = 0; k < m->nsub; k++)
            row[w++] = (double)subs[k].step;
        for (size_t k = 0; k < m->nsub; k++)
            for (size_t i = 0; i < subs[k].nparams; i++) {
                const oc_guarded_param *q = &subs[k].params[i];
                const float *out[SLOTS] = {q->p, q->state[0], q->state[1], q->state[2], NULL};
                int ns = sub_nstate(&subs[k]);
                out[ns] = q->grad;
                for (int s = 0; s <= ns; s++)
                    for (size_t j = 0; j < q->n; j++)
                        row[w++] = out[s][j];
            }
    }
    free(arena);
    free(snap);
}

/* VEC-FMT-17: the quantity at entry j of the rows (the head, the counters, then per parameter
 * its p and state tensors and its gradient). */
static const char *step_quantity(const oc_case *c, int k, size_t j)
{
    static const char *const head[HEAD_FIXED] = {"outcome", "norm", "position"};
    static const char *const scaler[3] = {"scale", "growthTracker", "hysteresisTracker"};
    const step_meta *m = meta(c);
    size_t i = j % c->n, at = head_width(m) + m->nsub;
    (void)k;
    if (i < HEAD_FIXED)
        return head[i];
    if (i < head_width(m))
        return scaler[(i - HEAD_FIXED) % 3];
    if (i < at)
        return "counter";
    for (size_t s = 0; s < m->nsub; s++)
        for (size_t q = m->first[s]; q < m->first[s] + m->sub[s].nparams; q++) {
            size_t ns = (size_t)sub_nstate(&m->sub[s]);
            if (i < at + (ns + 1) * m->n[q])
                return i < at + ns * m->n[q] ? elementwise_algo(m->sub[s].kind)->state_names[(i - at) / m->n[q]] : "grad";
            at += (ns + 1) * m->n[q];
        }
    return "?";
}

/* Whether entry i of a row is a parameter or state value (not a gradient, not the head). */
static int is_state_entry(const oc_case *c, size_t i)
{
    return i >= head_width(meta(c)) + meta(c)->nsub && strcmp(step_quantity(c, 0, i), "grad") != 0;
}

/* STEP-SKIP-1: a skipped iteration leaves every parameter and state bit-identical to the
 * implementation's own values before it (the previous row, or the inputs). */
static int skip_kept_state(const oc_case *c, const oc_outputs *o, size_t step, size_t *bad)
{
    const step_meta *m = meta(c);
    size_t in = 0;
    for (size_t i = head_width(m) + m->nsub; i < c->n; i++) {
        if (!is_state_entry(c, i))
            continue;
        double before = step ? o->out[0][(step - 1) * c->n + i] : c->in[0][in++];
        double now = o->out[0][step * c->n + i];
        if (!(isnan(before) && isnan(now)) && memcmp(&before, &now, sizeof now) != 0) {
            *bad = i;
            return 0;
        }
    }
    return 1;
}

/* STEP-TOL-1, STEP-TOL-2: an entry whose bound is 0 (the skip decision, counters, position,
 * scaler, unclipped gradients, and the state until the first taken step) must be bit-identical
 * (NaN matches NaN); the others within 1 ulp of the exact value (class exact) or within the
 * bound of the stored value (class fp32); and a skipped iteration keeps the state bit for bit. */
static void step_judge(const oc_case *c, const oc_outputs *o, int cls, oc_case_result *r)
{
    for (size_t step = 0; step < c->steps && r->verdict == OC_PASS; step++) {
        size_t bad;
        if (c->exp[0].stored[step * c->n] != OC_STEP_TAKEN && !skip_kept_state(c, o, step, &bad)) {
            r->verdict = OC_FAIL;
            r->max_ulps = r->max_ratio = INFINITY;
            snprintf(r->detail, sizeof r->detail,
                     "iteration %zu was skipped but value[%zu] changed", step + 1, bad);
        }
    }
    oc_plot_steps_begin(&r->plot, c->steps, 1); /* iterations from 1 */
    for (size_t j = 0; j < c->steps * c->n; j++) {
        double got = o->out[0][j], e = c->exp[0].stored[j], x = c->exp[0].f64[j];
        double tol = c->exp[0].tol[j], ulps = 0, ratio = 0;
        int ok;
        if (tol == 0 || !isfinite(e)) {
            ok = (isnan(e) && isnan(got)) || (got == e && signbit(got) == signbit(e));
            ulps = ratio = ok ? 0 : INFINITY;
        } else if (!isfinite(got)) {
            ok = 0;
            ulps = ratio = INFINITY;
        } else {
            ulps = fabs(got - x) / oc_ulp(x, 24);
            ratio = fabs(got - e) / tol;
            ok = cls == OC_CLASS_EXACT ? ulps <= 1.0 : fabs(got - e) <= tol;
        }
        r->max_ulps = fmax(r->max_ulps, ulps);
        r->max_ratio = fmax(r->max_ratio, ratio);
        oc_plot_step_ratio(&r->plot, j / c->n, ratio);
        if (!ok && r->verdict == OC_PASS) {
            r->verdict = OC_FAIL;
            snprintf(r->detail, sizeof r->detail,
                     "iteration %zu, value[%zu]: got %.9g, expected %.9g (exact %.17g), bound %.3g",
                     j / c->n + 1, j % c->n, got, e, x, tol);
        }
    }
}

/* The case's hyper-parameters: oc_hparams.step (algos.h). */
OC_HPARAMS(oc_step_family_config, step);

/* VEC-ABI-1: the reference's entry point, running the mutant its table selects (ref_impl.h). */
static oc_status ref_guarded(void *ctx, const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                             oc_loss_scale_state *scaler_state, size_t nsub, oc_sub_optimizer *subs,
                             int64_t *position, int64_t increment, float *grad_norm,
                             oc_step_outcome *outcome)
{
    return oc_guard_mutant_step((oc_guard_mutant)oc_ref_mutant_of(ctx, &oc_algo_guarded_step), cfg, scaler,
                                scaler_state, nsub, subs, position, increment, grad_norm, outcome);
}

const oc_algo oc_algo_guarded_step = {
    .name = "guarded-step",
    .group_type = "GuardedStep",
    .state_names = {"value"},
    .precision = 24,
    .nmutants = OC_GUARD_MUTANT_COUNT,
    .mutant_name = step_mutant,
    .nstate = step_nstate,
    .parse = step_parse,
    .options = {"scaled", "unchecked", "checked", "groups", "scalers"},
    .needs = step_needs,
    .load_case = step_load_case,
    .run = step_run,
    .alg = OC_ALG_COUNT,
    .judge = step_judge,
    .quantity = step_quantity,
    .cap_tolerances = step_cap_tolerances,
    .reference = (oc_entry_point)ref_guarded,
};
