#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "abi3.h"
#include "certify.h"
#include "isolate.h"

static const char *const class_names[] = {"exact", "fp32", "tf32", "bf16"};

const char *oc_class_name(oc_class cls) { return class_names[cls]; }

const char *oc_bound_class_name(const char *algorithm, oc_class cls)
{
    const oc_algo *a = oc_algo_find(algorithm);
    if (a && a->judge == oc_judge_matrix) /* NS-TOL-1: the class's own row of the tol table */
        return oc_class_name(cls);
    return a && a->precision == 53 ? "fp64" : "fp32"; /* ADAM-TOL-2, SCHED-TOL-2, ... */
}

int oc_class_parse(const char *name, oc_class *out)
{
    for (int i = 0; i < (int)(sizeof class_names / sizeof class_names[0]); i++)
        if (strcmp(name, class_names[i]) == 0) {
            *out = (oc_class)i;
            return 0;
        }
    return -1;
}

const char *oc_verdict_name(oc_verdict v)
{
    static const char *const names[] = {"pass", "FAIL", "skipped", "accepted", "rejected"};
    return names[v];
}

void oc_family_add_result(oc_family_report *fr, const oc_case_result *r)
{
    fr->cases[fr->ncases++] = *r;
    fr->counts[r->verdict]++;
    fr->worst_ulps = fmax(fr->worst_ulps, r->max_ulps);
    fr->worst_ratio = fmax(fr->worst_ratio, r->max_ratio);
}

static void finish(oc_certificate *cert)
{
    size_t pass = 0, fail = 0;
    for (size_t i = 0; i < cert->nfams; i++) {
        pass += cert->fams[i].counts[OC_PASS];
        fail += cert->fams[i].counts[OC_FAIL];
    }
    cert->conforms = fail == 0 && pass > 0;
}

/* Loads every family and applies fn to each case (in a child process per family if iso). */
static oc_status for_each_case(const char *vector_dir, const char *only,
                               const oc_isolation *iso, oc_certificate *cert, oc_case_fn fn,
                               void *ctx, oc_diag *d)
{
    char **paths;
    oc_status s = oc_family_list(vector_dir, &paths, d);
    if (s != OC_OK)
        return s;
    size_t n = 0;
    while (paths[n])
        n++;
    cert->fams = calloc(n, sizeof *cert->fams);
    for (size_t i = 0; i < n && s == OC_OK; i++) {
        oc_family fam;
        if ((s = oc_family_load(paths[i], &fam, d)) != OC_OK)
            break;
        if (only && strcmp(only, fam.name) != 0) {
            oc_family_free(&fam);
            continue;
        }
        oc_family_report *fr = &cert->fams[cert->nfams++];
        snprintf(fr->name, sizeof fr->name, "%s", fam.name);
        snprintf(fr->algorithm, sizeof fr->algorithm, "%s", fam.algorithm);
        snprintf(fr->profile, sizeof fr->profile, "%s", fam.profile);
        const char *level = json_string_value(json_object_get(json_object_get(fam.doc, "generator"), "level"));
        if (!cert->level[0] || strcmp(cert->level, level ? level : "?") != 0)
            snprintf(cert->level, sizeof cert->level, "%s", cert->level[0] ? "mixed" : level ? level : "?");
        fr->cases = calloc(fam.ncases ? fam.ncases : 1, sizeof *fr->cases);
        oc_run_family(iso, fn, ctx, &fam, fr);
        oc_family_free(&fam);
    }
    oc_free_list(paths);
    if (s == OC_OK && cert->nfams == 0)
        s = oc_fail(d, OC_ERR_IO, "%s: no family named '%s'", vector_dir, only);
    finish(cert);
    return s;
}

typedef struct impl_ctx {
    const oc_impl_v3 *impl;
    oc_class cls;
} impl_ctx;

static void certify_one(void *ctx, const oc_family *fam, const oc_case *c, oc_case_result *r)
{
    impl_ctx *ic = ctx;
    (void)fam;
    oc_certify_case(ic->impl, c, ic->cls, r);
}

oc_status oc_impl_check(const oc_impl *impl, oc_diag *d)
{
    if (!impl)
        return oc_fail(d, OC_ERR_NULL_POINTER, "no implementation table");
    if (impl->abi_version != OC_IMPL_ABI_VERSION)
        return oc_fail(d, OC_ERR_UNSUPPORTED, "implementation ABI version %u, harness speaks %u",
                       impl->abi_version, OC_IMPL_ABI_VERSION);
    return OC_OK;
}

oc_status oc_certify(const oc_impl_v3 *impl, const char *vector_dir, const char *only,
                     oc_class cls, oc_certificate *cert, oc_diag *d)
{
    return oc_certify_v3(impl, vector_dir, only, cls, NULL, cert, d);
}

/* Certifies the family list impl, a v3 table or a v2 table's translation (its abi_version
 * says which; the translation needs no check). */
static oc_status certify_table(const oc_impl_v3 *impl, const char *vector_dir, const char *only,
                               oc_class cls, const oc_isolation *iso, oc_certificate *cert,
                               oc_diag *d)
{
    memset(cert, 0, sizeof *cert);
    oc_status s = impl->abi_version == OC_IMPL_ABI_V3 ? oc_abi3_check(impl, d) : OC_OK;
    if (s != OC_OK)
        return s;
    snprintf(cert->impl, sizeof cert->impl, "%s", impl->name ? impl->name : "?");
    snprintf(cert->version, sizeof cert->version, "%s", impl->version ? impl->version : "?");
    snprintf(cert->source, sizeof cert->source, "plugin ABI v%u", impl->abi_version);
    cert->cls = cls;
    impl_ctx ic = {.impl = impl, .cls = cls};
    return for_each_case(vector_dir, only, iso, cert, certify_one, &ic, d);
}

oc_status oc_certify_v2(const oc_impl *impl, const char *vector_dir, const char *only,
                        oc_class cls, const oc_isolation *iso, oc_certificate *cert, oc_diag *d)
{
    oc_abi2_families t;
    memset(cert, 0, sizeof *cert);
    oc_status s = oc_impl_check(impl, d);
    if (s != OC_OK)
        return s;
    oc_abi2_translate(impl, &t);
    return certify_table(&t.table, vector_dir, only, cls, iso, cert, d);
}

oc_status oc_certify_v3(const oc_impl_v3 *impl, const char *vector_dir, const char *only,
                        oc_class cls, const oc_isolation *iso, oc_certificate *cert, oc_diag *d)
{
    return certify_table(impl, vector_dir, only, cls, iso, cert, d);
}

typedef struct results_ctx {
    const oc_st_file *st;
    oc_class cls;
    oc_status bad; /* VEC-RES-5: the first problem of the results file, in msg */
    oc_diag msg;
    char **used;   /* the tensor keys judging read, [nused] */
    size_t nused, cap;
} results_ctx;

static void note_used(results_ctx *rc, const char *key)
{
    if (rc->nused == rc->cap) {
        rc->cap = rc->cap ? 2 * rc->cap : 64;
        rc->used = realloc(rc->used, rc->cap * sizeof *rc->used);
    }
    rc->used[rc->nused++] = strdup(key);
}

/* VEC-RES-5: a problem of the results file itself (not of the implementation): judging goes on,
 * but the command ends with status 2 and the first such message. */
static void results_problem(results_ctx *rc, oc_case_result *r, const char *msg)
{
    if (rc->bad == OC_OK) {
        rc->bad = OC_ERR_FORMAT;
        snprintf(rc->msg.msg, sizeof rc->msg.msg, "%s", msg);
    }
    r->verdict = OC_FAIL;
    snprintf(r->detail, sizeof r->detail, "%.200s", msg);
}

/* VEC-RES-1, VEC-RES-2 (status metadata), VEC-RES-3: the same judgement as for a plugin,
 * outputs read from the file. */
static void judge_one(void *ctx, const oc_family *fam, const oc_case *c, oc_case_result *r)
{
    results_ctx *rc = ctx;
    char key[256], msg[sizeof rc->msg.msg];
    memset(r, 0, sizeof *r);
    r->tcid = c->tcid;
    snprintf(key, sizeof key, "status/%s/%d", fam->name, c->tcid);
    const char *status = oc_st_metadata(rc->st, key);
    if (!status || strcmp(status, "unsupported") == 0) {
        r->verdict = OC_SKIP;
        snprintf(r->detail, sizeof r->detail, "%s", status ? "unsupported by the library"
                                                           : "not in the results file");
        return;
    }
    int ran = strcmp(status, "ok") == 0;
    if (!ran && strcmp(status, "rejected") != 0) {
        snprintf(msg, sizeof msg, "%s: %s = '%.40s': unknown status (ok, rejected or "
                 "unsupported, VEC-RES-2)", rc->st->path, key, status);
        results_problem(rc, r, msg);
        return;
    }
    for (int k = 0; k < c->nstate && ran && c->result != OC_RESULT_VALID; k++) {
        snprintf(key, sizeof key, "%s/%d/%s", fam->name, c->tcid, c->names[k]);
        note_used(rc, key); /* outputs of a case it ran may be there; they are not judged */
    }
    if (c->result != OC_RESULT_VALID) {
        r->verdict = c->result == OC_RESULT_INVALID ? (ran ? OC_FAIL : OC_PASS)
                                                    : (ran ? OC_ACCEPTED : OC_REJECTED);
        snprintf(r->detail, sizeof r->detail, "%s",
                 ran ? (c->result == OC_RESULT_INVALID ? "accepted an invalid input"
                                                       : "accepted (implementation-defined)")
                     : "rejected");
        return;
    }
    if (!ran) {
        r->verdict = OC_FAIL;
        snprintf(r->detail, sizeof r->detail, "rejected a valid input");
        return;
    }
    oc_outputs o = {0};
    oc_diag d;
    for (int k = 0; k < c->nstate; k++) {
        snprintf(key, sizeof key, "%s/%d/%s", fam->name, c->tcid, c->names[k]);
        oc_status s = c->precision[k] == 53 /* VEC-RES-1: F64, or the output's storage format */
                          ? oc_st_tensor(rc->st, key, OC_F64, c->steps, c->n, (void **)&o.out[k], &d)
                          : oc_st_tensor_widened(rc->st, key, c->fmt[k], c->steps, c->n, &o.out[k], &d);
        if (s != OC_OK) { /* missing, wrong dtype or shape: the file's problem (VEC-RES-5) */
            results_problem(rc, r, d.msg);
            oc_outputs_free(&o);
            return;
        }
        note_used(rc, key);
    }
    snprintf(key, sizeof key, "route/%s/%d", fam->name, c->tcid); /* VEC-RES-4 */
    const char *route = c->algo == &oc_algo_muon_route ? oc_st_metadata(rc->st, key) : NULL;
    if (route && strcmp(route, "muon") != 0 && strcmp(route, "adamw") != 0) {
        snprintf(msg, sizeof msg, "%s: %s = '%.40s': a route is muon or adamw (VEC-RES-4)",
                 rc->st->path, key, route);
        results_problem(rc, r, msg);
        oc_outputs_free(&o);
        return;
    }
    if (route && (o.out[OC_ROUTE_OUTPUT] = malloc(sizeof(double))) != NULL)
        o.out[OC_ROUTE_OUTPUT][0] = strcmp(route, "muon") == 0   ? 1
                                    : strcmp(route, "adamw") == 0 ? 0
                                                                  : -1;
    snprintf(key, sizeof key, "unbroken/%s/%d", fam->name, c->tcid); /* VEC-RES-6 */
    const char *unbroken = c->resume_at >= 0 ? oc_st_metadata(rc->st, key) : NULL;
    if (unbroken && strcmp(unbroken, "identical") != 0 && strcmp(unbroken, "differs") != 0) {
        snprintf(msg, sizeof msg, "%s: %s = '%.40s': identical or differs (VEC-RES-6)",
                 rc->st->path, key, unbroken);
        results_problem(rc, r, msg);
        oc_outputs_free(&o);
        return;
    }
    oc_judge_outputs(c, &o, rc->cls, r);
    if (r->verdict == OC_FAIL)
        oc_explain_failure(c, &o, rc->cls, r);
    else if (c->resume_at >= 0 && (!unbroken || strcmp(unbroken, "identical") != 0)) {
        r->verdict = OC_FAIL; /* VEC-RESUME-2 through the results path */
        snprintf(r->detail, sizeof r->detail, "%s", unbroken
                 ? "resumed run differs from its own unbroken run (VEC-RESUME-2, the adapter's "
                   "comparison)"
                 : "no unbroken/<family>/<tcId> entry for a resume case (VEC-RES-6)");
    }
    oc_outputs_free(&o);
}

/* The family and tcId a results key names: "<family>/<tcId>/<name>" for a tensor,
 * "status/", "route/" or "unbroken/<family>/<tcId>" in the metadata. 0 if malformed. */
static int key_case(const char *key, int meta, char *family, size_t size, long *tcid)
{
    const char *f = key;
    if (meta) {
        if (strncmp(key, "status/", 7) != 0 && strncmp(key, "route/", 6) != 0 &&
            strncmp(key, "unbroken/", 9) != 0)
            return -1; /* other metadata: impl, implVersion, adapter, anything else */
        f = strchr(key, '/') + 1;
    }
    const char *slash = strchr(f, '/');
    char *end;
    if (!slash || slash == f || (size_t)(slash - f) >= size)
        return 0;
    snprintf(family, size, "%.*s", (int)(slash - f), f);
    *tcid = strtol(slash + 1, &end, 10);
    return end != slash + 1 && *tcid >= 1 && *tcid <= INT32_MAX &&
           (meta ? *end == '\0' : *end == '/' && end[1] != '\0');
}

static int cmp_tcid(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* VEC-RES-5: every tensor and every status/route entry names a family of the vector set and,
 * for a family judged, one of its tcIds; every tensor of a judged family is one that judging
 * read (used: sorted, nused keys). */
static oc_status check_result_keys(const oc_st_file *st, const char *vector_dir,
                                   const oc_certificate *cert, char **used, size_t nused,
                                   oc_diag *d)
{
    char **paths;
    oc_status s = oc_family_list(vector_dir, &paths, d);
    if (s != OC_OK)
        return s;
    json_t *meta = json_object_get(st->header, "__metadata__");
    int **ids = calloc(cert->nfams + 1, sizeof *ids); /* each judged family's tcIds, sorted */
    for (size_t f = 0; f < cert->nfams; f++) {
        ids[f] = malloc((cert->fams[f].ncases + 1) * sizeof(int));
        for (size_t k = 0; k < cert->fams[f].ncases; k++)
            ids[f][k] = cert->fams[f].cases[k].tcid;
        qsort(ids[f], cert->fams[f].ncases, sizeof(int), cmp_tcid);
    }
    for (int pass = 0; pass < 2 && s == OC_OK; pass++) {
        const char *key;
        json_t *v;
        json_object_foreach(pass ? meta : st->header, key, v) {
            char family[128];
            long tcid;
            if (!pass && strcmp(key, "__metadata__") == 0)
                continue;
            int form = key_case(key, pass, family, sizeof family, &tcid);
            if (form < 0)
                continue;
            if (form == 0) {
                s = oc_fail(d, OC_ERR_FORMAT, "%s: %s '%s' is not named %s (VEC-RES-%d)",
                            st->path, pass ? "metadata key" : "tensor", key,
                            pass ? "status|route|unbroken/<family>/<tcId>" : "<family>/<tcId>/<name>",
                            pass ? 2 : 1);
                break;
            }
            int known = 0;
            for (size_t i = 0; paths[i] && !known; i++) { /* DIR/<family>/<family>.json */
                const char *base = strrchr(paths[i], '/') + 1;
                known = strlen(base) == strlen(family) + 5 && strncmp(base, family, strlen(family)) == 0;
            }
            if (!known) {
                const char *now = oc_family_renamed(family); /* VEC-NAME-1 */
                s = oc_fail(d, OC_ERR_FORMAT, "%s: %s '%s' names family '%s', which %s does not "
                            "have (%s%s%s)", st->path, pass ? "metadata key" : "tensor", key,
                            family, vector_dir, now ? "renamed '" : "wrong family",
                            now ? now : "", now ? "', VEC-NAME-1" : "");
                break;
            }
            for (size_t f = 0; f < cert->nfams; f++) {
                const oc_family_report *fr = &cert->fams[f];
                int want = (int)tcid;
                if (strcmp(fr->name, family) != 0)
                    continue;
                if (!bsearch(&want, ids[f], fr->ncases, sizeof(int), cmp_tcid))
                    s = oc_fail(d, OC_ERR_FORMAT, "%s: %s '%s' names tcId %ld, which family '%s' "
                                "does not have", st->path, pass ? "metadata key" : "tensor", key,
                                tcid, family);
                else if (!pass && !bsearch(&key, used, nused, sizeof *used, cmp_key))
                    s = oc_fail(d, OC_ERR_FORMAT, "%s: tensor '%s' is not an output of that case "
                                "(an unknown output name, or a case whose status is not 'ok'; "
                                "VEC-RES-1)", st->path, key);
            }
            if (s != OC_OK)
                break;
        }
    }
    for (size_t f = 0; f < cert->nfams; f++)
        free(ids[f]);
    free(ids);
    oc_free_list(paths);
    return s;
}

void oc_judge_results_case(const oc_st_file *st, const oc_family *fam, const oc_case *c,
                           oc_class cls, oc_case_result *r)
{
    results_ctx rc = {.st = st, .cls = cls};
    judge_one(&rc, fam, c, r);
    for (size_t i = 0; i < rc.nused; i++)
        free(rc.used[i]);
    free(rc.used);
}

oc_status oc_judge_results(const char *results_path, const char *vector_dir, const char *only,
                           oc_class cls, oc_certificate *cert, oc_diag *d)
{
    memset(cert, 0, sizeof *cert);
    oc_st_file st;
    oc_status s = oc_st_open(results_path, &st, d);
    if (s != OC_OK)
        return s;
    const char *impl = oc_st_metadata(&st, "impl"), *ver = oc_st_metadata(&st, "implVersion");
    const char *adapter = oc_st_metadata(&st, "adapter");
    if (!impl || !ver) {
        oc_st_close(&st);
        return oc_fail(d, OC_ERR_FORMAT, "%s: __metadata__ needs 'impl' and 'implVersion'",
                       results_path);
    }
    snprintf(cert->impl, sizeof cert->impl, "%s", impl);
    snprintf(cert->version, sizeof cert->version, "%s", ver);
    snprintf(cert->source, sizeof cert->source, "results file via %s",
             adapter ? adapter : "unknown adapter");
    cert->cls = cls;
    results_ctx rc = {&st, cls, OC_OK, {{0}}, NULL, 0, 0};
    s = for_each_case(vector_dir, only, NULL, cert, judge_one, &rc, d);
    if (s == OC_OK && rc.bad != OC_OK) {
        *d = rc.msg;
        s = rc.bad;
    }
    if (rc.nused)
        qsort(rc.used, rc.nused, sizeof *rc.used, cmp_key);
    if (s == OC_OK)
        s = check_result_keys(&st, vector_dir, cert, rc.used, rc.nused, d);
    for (size_t i = 0; i < rc.nused; i++)
        free(rc.used[i]);
    free(rc.used);
    oc_st_close(&st);
    return s;
}

void oc_certificate_free(oc_certificate *cert)
{
    for (size_t i = 0; i < cert->nfams; i++)
        free(cert->fams[i].cases);
    free(cert->fams);
    memset(cert, 0, sizeof *cert);
}
