#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "algos.h"
#include "judge.h"
#include "tolcap.h"
#include "vectors.h"
#include "ref_impl.h"
#include "../mutants/adam.h"
#include "../mutants/lion.h"
#include "../mutants/mixed.h"
#include "../mutants/resume.h"
#include "../mutants/sgd.h"

/* VEC-FMT-1: a hex-float string (or nan/inf) exactly representable in binary32. */
oc_status oc_get_hex(const char *path, json_t *obj, const char *key, double *out, oc_diag *d)
{
    const char *s = json_string_value(json_object_get(obj, key));
    const char *t = s ? s + (*s == '-' || *s == '+') : NULL;
    int hexlike = t && (strncmp(t, "0x", 2) == 0 || strncmp(t, "0X", 2) == 0 ||
                        strcmp(t, "nan") == 0 || strcmp(t, "inf") == 0);
    char *end = NULL;
    if (hexlike)
        *out = strtod(s, &end);
    if (!hexlike || end == s || *end != '\0' ||
        !(isnan(*out) || isinf(*out) || (fabs(*out) <= FLT_MAX && (double)(float)*out == *out)))
        return oc_fail(d, OC_ERR_FORMAT,
                       "%s: hparams.%s must be a hex-float string exact in binary32", path, key);
    return OC_OK;
}

/* A hex-float string exact in binary64 (the binary64 families and bounds, VEC-FMT-1). */
oc_status oc_get_hex64(const char *path, json_t *obj, const char *key, double *out, oc_diag *d)
{
    const char *s = json_string_value(json_object_get(obj, key));
    char *end = NULL;
    if (s && (strstr(s, "0x") || strstr(s, "nan") || strstr(s, "inf")))
        *out = strtod(s, &end);
    if (!end || end == s || *end != '\0')
        return oc_fail(d, OC_ERR_FORMAT, "%s: %s must be a hex-float string", path, key);
    return OC_OK;
}

oc_status oc_get_bool(const char *path, json_t *obj, const char *key, int *out, oc_diag *d)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_boolean(v))
        return oc_fail(d, OC_ERR_FORMAT, "%s: hparams.%s must be a boolean", path, key);
    *out = json_is_true(v);
    return OC_OK;
}

static oc_status bad_profile(const char *path, const char *algo, const char *profile, oc_diag *d)
{
    return oc_fail(d, OC_ERR_FORMAT, "%s: unknown %s profile '%s'", path, algo, profile);
}

/* Element-wise algorithms: own mutants first, then the mixed-precision ones (spec/mixed.md). */
#define MIXED_MUTANTS (OC_MIXED_MUTANT_COUNT - 1)
static const char *mixed_mutant(int mu, int own)
{
    return oc_mixed_mutant_name((oc_mixed_mutant)(mu - own + 1));
}

/* ---- Adam ---- */
/* Adam's mutants: its own, the mixed-precision ones, then the restore mistakes of the resume
 * families (RESUME-MUT-1). */
#define ADAM_RESUME_FIRST (OC_ADAM_MUTANT_COUNT + MIXED_MUTANTS)
static const char *adam_mutant(int mu)
{
    return mu < OC_ADAM_MUTANT_COUNT ? oc_adam_mutant_name((oc_adam_mutant)mu)
           : mu < ADAM_RESUME_FIRST  ? mixed_mutant(mu, OC_ADAM_MUTANT_COUNT)
                                     : oc_resume_mutant_name(
                                           (oc_resume_mutant)(mu - ADAM_RESUME_FIRST + 1));
}
static int adam_nstate(const oc_hparams *hp) { return hp->adam.amsgrad ? 4 : 3; }

static oc_status adam_parse(const char *path, const char *profile, json_t *h, oc_hparams *u,
                            oc_diag *d)
{
    oc_adam_hparams *hp = &u->adam;
    oc_status st;
    if (oc_adam_profile_parse(profile, &hp->profile) != OC_OK)
        return bad_profile(path, "Adam", profile, d);
    if ((st = oc_get_hex(path, h, "lr", &hp->lr, d)) || (st = oc_get_hex(path, h, "beta1", &hp->beta1, d)) ||
        (st = oc_get_hex(path, h, "beta2", &hp->beta2, d)) || (st = oc_get_hex(path, h, "eps", &hp->eps, d)) ||
        (st = oc_get_hex(path, h, "weightDecay", &hp->weight_decay, d)) ||
        (st = oc_get_hex(path, h, "epsRoot", &hp->eps_root, d)) ||
        (st = oc_get_hex(path, h, "scheduleMultiplier", &hp->schedule_multiplier, d)) ||
        (st = oc_get_bool(path, h, "decoupled", &hp->decoupled, d)) ||
        (st = oc_get_bool(path, h, "amsgrad", &hp->amsgrad, d)) ||
        (st = oc_get_bool(path, h, "maximize", &hp->maximize, d)))
        return st;
    return OC_OK;
}

/* VEC-ABI-2: bit 0 "amsgrad", bit 1 "maximize" (options[]). */
static unsigned adam_needs(const oc_hparams *hp)
{
    return (hp->adam.amsgrad ? 1u : 0u) | (hp->adam.maximize ? 2u : 0u);
}

static oc_status adam_step(const oc_runner *impl, const oc_hparams *hp, int64_t t, size_t n,
                           float *const *s, const float *g)
{
    return OC_ENTRY(impl, oc_adam_step_fn)(impl->ctx, &hp->adam, t, n, s[0], s[1], s[2],
                           hp->adam.amsgrad ? s[3] : NULL, g);
}

static double *adam_decay(oc_hparams *hp) { return &hp->adam.weight_decay; }

/* The case's hyper-parameters: oc_hparams.adam (algos.h). */
OC_HPARAMS(oc_adam_hparams, adam);

/* VEC-ABI-1: the reference's entry point, running the mutant its table selects (ref_impl.h). */
static oc_status ref_adam(void *ctx, const oc_adam_hparams *hp, int64_t step, size_t n, float *p,
                          float *m, float *v, float *vmax, const float *g)
{
    if (oc_ref_mixed_mutant(ctx, &oc_algo_adam) != OC_MIXED_CORRECT) {
        void *const state[] = {m, v, vmax};
        return oc_ref_fp32_step(ctx, &oc_algo_adam, hp, step, n, p, state, g);
    }
    return oc_adam_mutant_step((oc_adam_mutant)oc_ref_own_mutant(ctx, &oc_algo_adam), hp, step, n,
                               p, m, v, vmax, g);
}

const oc_algo oc_algo_adam = {
    .name = "adam",
    .group_type = "AdamStep",
    .state_names = {"p", "m", "v", "vmax"},
    .precision = 24,
    .nmutants = ADAM_RESUME_FIRST + OC_RESUME_FIRST_SCALER - 1,
    .mutant_name = adam_mutant,
    .nstate = adam_nstate,
    .parse = adam_parse,
    .options = {"amsgrad", "maximize"},
    .needs = adam_needs,
    .load_case = oc_load_tensor_case,
    .run = oc_run_elementwise,
    .step = adam_step,
    .own_mutants = OC_ADAM_MUTANT_COUNT,
    .alg = OC_ALG_ADAM,
    .decay = adam_decay,
    .cap_tolerances = oc_tolcap_elementwise,
    .reference = (oc_entry_point)ref_adam,
};

/* ---- SGD ---- */
static const char *sgd_mutant(int mu)
{
    return mu < OC_SGD_MUTANT_COUNT ? oc_sgd_mutant_name((oc_sgd_mutant)mu)
                                    : mixed_mutant(mu, OC_SGD_MUTANT_COUNT);
}
static int sgd_nstate(const oc_hparams *hp) { return hp->sgd.momentum != 0.0 ? 2 : 1; }

static oc_status sgd_parse(const char *path, const char *profile, json_t *h, oc_hparams *u,
                           oc_diag *d)
{
    oc_sgd_hparams *hp = &u->sgd;
    oc_status st;
    if (oc_sgd_profile_parse(profile, &hp->profile) != OC_OK)
        return bad_profile(path, "SGD", profile, d);
    if ((st = oc_get_hex(path, h, "lr", &hp->lr, d)) ||
        (st = oc_get_hex(path, h, "momentum", &hp->momentum, d)) ||
        (st = oc_get_hex(path, h, "dampening", &hp->dampening, d)) ||
        (st = oc_get_hex(path, h, "weightDecay", &hp->weight_decay, d)) ||
        (st = oc_get_bool(path, h, "nesterov", &hp->nesterov, d)) ||
        (st = oc_get_bool(path, h, "maximize", &hp->maximize, d)))
        return st;
    return OC_OK;
}

/* VEC-ABI-2: bit 0 "nesterov", bit 1 "maximize" (options[]). */
static unsigned sgd_needs(const oc_hparams *hp)
{
    return (hp->sgd.nesterov ? 1u : 0u) | (hp->sgd.maximize ? 2u : 0u);
}

static oc_status sgd_step(const oc_runner *impl, const oc_hparams *hp, int64_t t, size_t n,
                          float *const *s, const float *g)
{
    return OC_ENTRY(impl, oc_sgd_step_fn)(impl->ctx, &hp->sgd, t, n, s[0],
                                          hp->sgd.momentum != 0.0 ? s[1] : NULL, g);
}

static double *sgd_decay(oc_hparams *hp) { return &hp->sgd.weight_decay; }

/* The case's hyper-parameters: oc_hparams.sgd (algos.h). */
OC_HPARAMS(oc_sgd_hparams, sgd);

/* VEC-ABI-1: the reference's entry point, running the mutant its table selects (ref_impl.h). */
static oc_status ref_sgd(void *ctx, const oc_sgd_hparams *hp, int64_t step, size_t n, float *p,
                         float *buf, const float *g)
{
    if (oc_ref_mixed_mutant(ctx, &oc_algo_sgd) != OC_MIXED_CORRECT) {
        void *const state[] = {buf};
        return oc_ref_fp32_step(ctx, &oc_algo_sgd, hp, step, n, p, state, g);
    }
    return oc_sgd_mutant_step((oc_sgd_mutant)oc_ref_own_mutant(ctx, &oc_algo_sgd), hp, step, n, p,
                              buf, g);
}

const oc_algo oc_algo_sgd = {
    .name = "sgd",
    .group_type = "SgdStep",
    .state_names = {"p", "buf"},
    .precision = 24,
    .nmutants = OC_SGD_MUTANT_COUNT + MIXED_MUTANTS,
    .mutant_name = sgd_mutant,
    .nstate = sgd_nstate,
    .parse = sgd_parse,
    .options = {"nesterov", "maximize"},
    .needs = sgd_needs,
    .load_case = oc_load_tensor_case,
    .run = oc_run_elementwise,
    .step = sgd_step,
    .own_mutants = OC_SGD_MUTANT_COUNT,
    .alg = OC_ALG_SGD,
    .decay = sgd_decay,
    .cap_tolerances = oc_tolcap_elementwise,
    .reference = (oc_entry_point)ref_sgd,
};

/* ---- Lion ---- */
static const char *lion_mutant(int mu)
{
    return mu < OC_LION_MUTANT_COUNT ? oc_lion_mutant_name((oc_lion_mutant)mu)
                                     : mixed_mutant(mu, OC_LION_MUTANT_COUNT);
}
static int lion_nstate(const oc_hparams *hp) { return (void)hp, 2; }

static oc_status lion_parse(const char *path, const char *profile, json_t *h, oc_hparams *u,
                            oc_diag *d)
{
    oc_lion_hparams *hp = &u->lion;
    oc_status st;
    if (oc_lion_profile_parse(profile, &hp->profile) != OC_OK)
        return bad_profile(path, "Lion", profile, d);
    if ((st = oc_get_hex(path, h, "lr", &hp->lr, d)) || (st = oc_get_hex(path, h, "beta1", &hp->beta1, d)) ||
        (st = oc_get_hex(path, h, "beta2", &hp->beta2, d)) ||
        (st = oc_get_hex(path, h, "weightDecay", &hp->weight_decay, d)))
        return st;
    return OC_OK;
}

static oc_status lion_step(const oc_runner *impl, const oc_hparams *hp, int64_t t, size_t n,
                           float *const *s, const float *g)
{
    return OC_ENTRY(impl, oc_lion_step_fn)(impl->ctx, &hp->lion, t, n, s[0], s[1], g);
}

static double *lion_decay(oc_hparams *hp) { return &hp->lion.weight_decay; }

/* The case's hyper-parameters: oc_hparams.lion (algos.h). */
OC_HPARAMS(oc_lion_hparams, lion);

/* VEC-ABI-1: the reference's entry point, running the mutant its table selects (ref_impl.h). */
static oc_status ref_lion(void *ctx, const oc_lion_hparams *hp, int64_t step, size_t n, float *p,
                          float *m, const float *g)
{
    if (oc_ref_mixed_mutant(ctx, &oc_algo_lion) != OC_MIXED_CORRECT) {
        void *const state[] = {m};
        return oc_ref_fp32_step(ctx, &oc_algo_lion, hp, step, n, p, state, g);
    }
    return oc_lion_mutant_step((oc_lion_mutant)oc_ref_own_mutant(ctx, &oc_algo_lion), hp, step, n,
                               p, m, g);
}

const oc_algo oc_algo_lion = {
    .name = "lion",
    .group_type = "LionStep",
    .state_names = {"p", "m"},
    .precision = 24,
    .nmutants = OC_LION_MUTANT_COUNT + MIXED_MUTANTS,
    .mutant_name = lion_mutant,
    .nstate = lion_nstate,
    .parse = lion_parse,
    .load_case = oc_load_tensor_case,
    .run = oc_run_elementwise,
    .step = lion_step,
    .own_mutants = OC_LION_MUTANT_COUNT,
    .alg = OC_ALG_LION,
    .decay = lion_decay,
    .cap_tolerances = oc_tolcap_elementwise,
    .reference = (oc_entry_point)ref_lion,
};

const oc_algo *oc_algo_find(const char *name)
{
    for (int i = 0; i < OC_NALGOS; i++)
        if (strcmp(oc_algos[i]->name, name) == 0)
            return oc_algos[i];
    return NULL;
}
