#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "certify.h"
#include "isolate.h"

static const char *const class_names[] = {"exact", "fp32", "tf32", "bf16"};

const char *oc_class_name(oc_class cls) { return class_names[cls]; }

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
    const oc_impl *impl;
    oc_class cls;
} impl_ctx;

static void certify_one(void *ctx, const oc_family *fam, const oc_case *c, oc_case_result *r)
{
    const impl_ctx *ic = ctx;
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

oc_status oc_certify(const oc_impl *impl, const char *vector_dir, const char *only,
                     oc_class cls, oc_certificate *cert, oc_diag *d)
{
    return oc_certify_isolated(impl, vector_dir, only, cls, NULL, cert, d);
}

oc_status oc_certify_isolated(const oc_impl *impl, const char *vector_dir, const char *only,
                              oc_class cls, const oc_isolation *iso, oc_certificate *cert,
                              oc_diag *d)
{
    memset(cert, 0, sizeof *cert);
    oc_status s = oc_impl_check(impl, d);
    if (s != OC_OK)
        return s;
    snprintf(cert->impl, sizeof cert->impl, "%s", impl->name ? impl->name : "?");
    snprintf(cert->version, sizeof cert->version, "%s", impl->version ? impl->version : "?");
    snprintf(cert->source, sizeof cert->source, "plugin ABI v%u", OC_IMPL_ABI_VERSION);
    cert->cls = cls;
    impl_ctx ic = {impl, cls};
    return for_each_case(vector_dir, only, iso, cert, certify_one, &ic, d);
}

typedef struct results_ctx {
    const oc_st_file *st;
    oc_class cls;
} results_ctx;

/* VEC-RES-1, VEC-RES-2 (status metadata), VEC-RES-3: the same judgement as for a plugin,
 * outputs read from the file. */
static void judge_one(void *ctx, const oc_family *fam, const oc_case *c, oc_case_result *r)
{
    const results_ctx *rc = ctx;
    char key[256];
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
        r->verdict = OC_FAIL;
        snprintf(r->detail, sizeof r->detail, "unknown status '%s' in results file", status);
        return;
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
        if (s != OC_OK) {
            r->verdict = OC_FAIL;
            snprintf(r->detail, sizeof r->detail, "%.200s", d.msg);
            oc_outputs_free(&o);
            return;
        }
    }
    snprintf(key, sizeof key, "route/%s/%d", fam->name, c->tcid); /* VEC-RES-4 */
    const char *route = c->algo == &oc_algo_muon_route ? oc_st_metadata(rc->st, key) : NULL;
    if (route && (o.out[OC_ROUTE_OUTPUT] = malloc(sizeof(double))) != NULL)
        o.out[OC_ROUTE_OUTPUT][0] = strcmp(route, "muon") == 0   ? 1
                                    : strcmp(route, "adamw") == 0 ? 0
                                                                  : -1;
    oc_judge_outputs(c, &o, rc->cls, r);
    if (r->verdict == OC_FAIL)
        r->diagnosis = oc_diagnose(c, &o);
    oc_outputs_free(&o);
}

void oc_judge_results_case(const oc_st_file *st, const oc_family *fam, const oc_case *c,
                           oc_class cls, oc_case_result *r)
{
    results_ctx rc = {st, cls};
    judge_one(&rc, fam, c, r);
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
    results_ctx rc = {&st, cls};
    s = for_each_case(vector_dir, only, NULL, cert, judge_one, &rc, d);
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
