/* The harness judges correctly: the reference certifies `exact`, an outside fp32 plugin
 * certifies `fp32` but not `exact`, every catalogued mistake is rejected and diagnosed,
 * invalid inputs must be rejected cleanly, and the results path judges like the plugin path. */
#include <dlfcn.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "abi3.h"
#include "certify.h"
#include "cunit_main.h"
#include "selftest.h"
#include "test_plugin.h"
#include "../../vectors/gen/st_writer.h"
#include "../mutants/adam.h"
#include "../mutants/mixed.h"

static const char *vector_dir(void) { return OPTCERT_SOURCE_DIR "/vectors"; }

static size_t total(const oc_certificate *c, oc_verdict v)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nfams; i++)
        n += c->fams[i].counts[v];
    return n;
}

/* ADAM-TOL-1, SGD-TOL-1, LION-TOL-1, SCHED-TOL-1, MP-TOL-2, MP-TOL-4: the reference is within 1 ulp everywhere
 * and rejects every invalid case. */
static void test_reference_is_exact(void)
{
    oc_certificate cert;
    oc_diag d;
    CU_ASSERT_EQUAL_FATAL(oc_certify(oc_ref(), vector_dir(), NULL, OC_CLASS_EXACT,
                                     &cert, &d), OC_OK);
    CU_ASSERT(cert.conforms);
    char **paths;
    size_t nfams = 0;
    CU_ASSERT_EQUAL_FATAL(oc_family_list(vector_dir(), &paths, &d), OC_OK);
    while (paths[nfams])
        nfams++;
    oc_free_list(paths);
    CU_ASSERT_EQUAL(cert.nfams, nfams); /* every committed family */
    for (size_t i = 0; i < cert.nfams; i++) {
        CU_ASSERT(cert.fams[i].counts[OC_PASS] >= 10);
        CU_ASSERT_EQUAL(cert.fams[i].counts[OC_FAIL], 0);
        CU_ASSERT(cert.fams[i].worst_ulps <= 1.0);
    }
    oc_certificate_free(&cert);
}

/* ADAM-TOL-2, SGD-TOL-2, LION-TOL-2, SCHED-TOL-2, MP-TOL-1: a straight fp32 (binary64 for the
 * SCHED-PROF-MEGATRON schedule) implementation with its own operation order is accepted by the
 * fp32 class and rejected by the exact class (the classes differ). */
static void test_outside_plugin_is_fp32_not_exact(void)
{
    const oc_impl *impl = test_plugin();
    oc_certificate cert;
    oc_diag d;
    CU_ASSERT_EQUAL_FATAL(oc_certify_v2(impl, vector_dir(), NULL, OC_CLASS_FP32, NULL, &cert, &d),
                          OC_OK);
    CU_ASSERT(cert.conforms);
    for (size_t i = 0; i < cert.nfams; i++)
        if (strncmp(cert.fams[i].algorithm, "muon", 4) != 0 && /* no Muon, blocks, route, clip */
            strcmp(cert.fams[i].algorithm, "adafactor") != 0 && /* nor Adafactor */
            (strstr(cert.fams[i].name, "-torch") || strstr(cert.fams[i].name, "-megatron")) &&
            strncmp(cert.fams[i].name, "loss-scale-", 11) != 0 &&
            strncmp(cert.fams[i].name, "resume-", 7) != 0 && /* no resume entry (VEC-ABI-3) */
            strncmp(cert.fams[i].name, "clip-", 5) != 0 && /* not claimed by it */
            /* v2 cannot claim the guarded step's option "scalers" (most of its scaled cases):
             * test_guarded_step_family.c certifies that entry through a v3 table */
            strcmp(cert.fams[i].name, "guarded-step-megatron") != 0) {
            CU_ASSERT(cert.fams[i].counts[OC_PASS] > 15); /* the profiles it claims */
            CU_ASSERT(cert.fams[i].worst_ratio <= 1.0 && cert.fams[i].worst_ratio > 0.01);
        }
    oc_certificate_free(&cert);
    CU_ASSERT_EQUAL_FATAL(oc_certify_v2(impl, vector_dir(), NULL, OC_CLASS_EXACT, NULL, &cert, &d),
                          OC_OK);
    CU_ASSERT(!cert.conforms);
    oc_certificate_free(&cert);
}

/* Wrappers around the reference that get input validation wrong. */
static oc_status accepts_everything(void *ctx, const oc_adam_hparams *hp, int64_t step,
                                    size_t n, float *p, float *m, float *v, float *vmax,
                                    const float *g)
{
    (void)ctx;
    if (oc_adam_check(hp, step) != OC_OK)
        return OC_OK; /* silently does nothing */
    return oc_ref_adam_step(hp, step, n, p, m, v, vmax, g);
}

static oc_status rejects_dirty(void *ctx, const oc_adam_hparams *hp, int64_t step, size_t n,
                               float *p, float *m, float *v, float *vmax, const float *g)
{
    (void)ctx;
    if (oc_adam_check(hp, step) != OC_OK) {
        m[0] += 1.0f; /* touches the state before noticing */
        return OC_ERR_BAD_HPARAM;
    }
    return oc_ref_adam_step(hp, step, n, p, m, v, vmax, g);
}

static void certify_wrapper(oc_adam_step_fn fn, const char *expected_detail)
{
    test_table impl;
    oc_certificate cert;
    oc_diag d;
    test_algorithm_table(&impl, "wrapper", NULL, "adam", "amsgrad maximize", (oc_entry_point)fn);
    CU_ASSERT_EQUAL_FATAL(oc_certify(&impl.t, vector_dir(), NULL, OC_CLASS_EXACT, &cert, &d),
                          OC_OK);
    CU_ASSERT(!cert.conforms);
    size_t invalid_failed = 0;
    for (size_t i = 0; i < cert.nfams; i++)
        for (size_t k = 0; k < cert.fams[i].ncases; k++)
            invalid_failed += cert.fams[i].cases[k].verdict == OC_FAIL &&
                              strstr(cert.fams[i].cases[k].detail, expected_detail) != NULL;
    CU_ASSERT(invalid_failed >= 4 * 13); /* the Adam families' invalid cases */
    oc_certificate_free(&cert);
}

/* VEC-FMT-3, ADAM-ERR-1: invalid inputs must be rejected and the state left unchanged. */
static void test_invalid_inputs_must_be_rejected_cleanly(void)
{
    certify_wrapper(accepts_everything, "accepted an invalid input");
    certify_wrapper(rejects_dirty, "modified the state");
}

/* Writes a results file (spec/vectors.md §2) from an implementation's outputs. */
static void write_results(const oc_impl_v3 *impl, const char *path)
{
    char **paths;
    oc_diag d;
    st_writer *w = st_writer_new();
    CU_ASSERT_EQUAL_FATAL(oc_family_list(vector_dir(), &paths, &d), OC_OK);
    st_writer_metadata(w, "impl", impl->name);
    st_writer_metadata(w, "implVersion", "test");
    st_writer_metadata(w, "adapter", "test_certify");
    for (size_t i = 0; paths[i]; i++) {
        oc_family fam;
        CU_ASSERT_EQUAL_FATAL(oc_family_load(paths[i], &fam, &d), OC_OK);
        for (size_t k = 0; k < fam.ncases; k++) {
            const oc_case *c = &fam.cases[k];
            char key[128];
            oc_outputs o;
            oc_status st;
            int dirty;
            oc_run_case(impl, c, &o, &st, &dirty);
            snprintf(key, sizeof key, "status/%s/%d", fam.name, c->tcid);
            st_writer_metadata(w, key, st == OC_OK ? "ok" : "rejected");
            if (st == OC_OK)
                test_add_case_results(w, fam.name, c, &o);
            oc_outputs_free(&o);
        }
        oc_family_free(&fam);
    }
    oc_free_list(paths);
    CU_ASSERT_EQUAL(st_writer_save(w, path), 0);
    st_writer_free(w);
}

/* VEC-RES-1 .. VEC-RES-4: the results path gives the same verdicts as the plugin
 * path, including the diagnosis of a mistake. */
static void test_results_path(void)
{
    char path[] = "/tmp/optcert-results-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    oc_certificate cert;
    oc_diag d;
    write_results(oc_ref(), path);
    CU_ASSERT_EQUAL_FATAL(oc_judge_results(path, vector_dir(), NULL, OC_CLASS_EXACT, &cert, &d), OC_OK);
    CU_ASSERT(cert.conforms);
    CU_ASSERT_EQUAL(total(&cert, OC_FAIL), 0);
    CU_ASSERT_EQUAL(total(&cert, OC_SKIP), 0);
    CU_ASSERT_STRING_EQUAL(cert.version, "test");
    oc_certificate_free(&cert);

    write_results(oc_ref_mutant(&oc_algo_adam, OC_ADAM_MUT_EPS_INSIDE_SQRT), path);
    CU_ASSERT_EQUAL_FATAL(oc_judge_results(path, vector_dir(), NULL, OC_CLASS_FP32, &cert, &d), OC_OK);
    CU_ASSERT(!cert.conforms);
    int named = 0;
    for (size_t i = 0; i < cert.nfams; i++)
        for (size_t k = 0; k < cert.fams[i].ncases; k++)
            named |= cert.fams[i].cases[k].diagnosis &&
                     strcmp(cert.fams[i].cases[k].diagnosis, "eps-inside-sqrt") == 0;
    CU_ASSERT(named);
    oc_certificate_free(&cert);
    remove(path);
}

/* The error unit: spacing of binary32 at x. */
static void test_ulp32(void)
{
    CU_ASSERT_EQUAL(oc_ulp32(1.0), 0x1p-23);
    CU_ASSERT_EQUAL(oc_ulp32(1.9999), 0x1p-23);
    CU_ASSERT_EQUAL(oc_ulp32(-3.0), 0x1p-22);
    CU_ASSERT_EQUAL(oc_ulp32(0.0), 0x1p-149);
    CU_ASSERT_EQUAL(oc_ulp32(0x1p-126), 0x1p-149);
    CU_ASSERT_EQUAL(oc_ulp32(0x1p-130), 0x1p-149);
    /* binary64 storage (the schedule family, VEC-FMT-9) */
    CU_ASSERT_EQUAL(oc_ulp(1.0, 53), 0x1p-52);
    CU_ASSERT_EQUAL(oc_ulp(-3e-4, 53), 0x1p-64);
    CU_ASSERT_EQUAL(oc_ulp(0x1p-1022, 53), 0x1p-1074);
    CU_ASSERT_EQUAL(oc_ulp(0x1p-1030, 53), 0x1p-1074);
}

/* MP-TOL-4: in the exact class a 16-bit output is also held to its narrowing extent, so the
 * exact class rejects a truncating write-back (within one 16-bit ulp of the exact value, which
 * the one-ulp rule of MP-TOL-2 alone let through) in every case the fp32 class does, not only
 * where the truncation is more than one ulp off; the reference still conforms in that class
 * (test_reference_is_exact). */
static void test_exact_class_narrowing_bit_for_bit(void)
{
    const char *families[] = {"adam-torch-mixed", "sgd-torch-mixed", "lion-torch-mixed"};
    const oc_algo *algos[] = {&oc_algo_adam, &oc_algo_sgd, &oc_algo_lion};
    for (int a = 0; a < 3; a++) {
        int mu = algos[a]->own_mutants + OC_MIXED_MUT_TRUNCATING_WRITEBACK - 1;
        CU_ASSERT_STRING_EQUAL_FATAL(algos[a]->mutant_name(mu), "truncating-write-back");
        size_t fails[2];
        oc_class classes[2] = {OC_CLASS_FP32, OC_CLASS_EXACT};
        for (int k = 0; k < 2; k++) {
            oc_certificate cert;
            oc_diag d;
            CU_ASSERT_EQUAL_FATAL(oc_certify(oc_ref_mutant(algos[a], mu), vector_dir(),
                                             families[a], classes[k], &cert, &d), OC_OK);
            CU_ASSERT(!cert.conforms);
            fails[k] = total(&cert, OC_FAIL);
            oc_certificate_free(&cert);
        }
        CU_ASSERT(fails[0] > 0);
        CU_ASSERT(fails[1] >= fails[0]);
    }
}

/* JSON and JUnit reports carry the same counts as the certificate. */
static void test_reports(void)
{
    oc_certificate cert;
    oc_diag d;
    CU_ASSERT_EQUAL_FATAL(oc_certify(oc_ref_mutant(&oc_algo_adam, OC_ADAM_MUT_BETAS_SWAPPED), vector_dir(),
                                     NULL, OC_CLASS_FP32, &cert, &d), OC_OK);
    char jpath[] = "/tmp/optcert-json-XXXXXX", xpath[] = "/tmp/optcert-junit-XXXXXX";
    close(mkstemp(jpath));
    close(mkstemp(xpath));
    CU_ASSERT_EQUAL(oc_report_json(&cert, jpath, &d), OC_OK);
    CU_ASSERT_EQUAL(oc_report_junit(&cert, xpath, &d), OC_OK);
    json_t *doc = json_load_file(jpath, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    CU_ASSERT(json_is_false(json_object_get(doc, "conforms")));
    size_t fails = 0, i;
    json_t *f;
    json_array_foreach(json_object_get(doc, "families"), i, f)
        fails += (size_t)json_integer_value(json_object_get(f, "fail"));
    CU_ASSERT_EQUAL(fails, total(&cert, OC_FAIL));
    json_decref(doc);
    FILE *x = fopen(xpath, "r");
    char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, x);
    fclose(x);
    buf[n] = '\0';
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<failure message="));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "behaves like betas-swapped"));
    remove(jpath);
    remove(xpath);
    oc_certificate_free(&cert);
}

/* VEC-ABI-2: a v3 table is checked entry by entry; each problem named. */
static void test_abi3_checks(void)
{
    oc_family_entry e[2] = {{"adam-torch", "amsgrad", test_ref_entry("adam-torch")},
                            {"sgd-torch", NULL, test_ref_entry("sgd-torch")}};
    oc_impl_v3 t = {OC_IMPL_ABI_V3, "t", "0", NULL, 2, e};
    oc_diag d;
    CU_ASSERT_EQUAL(oc_abi3_check(&t, &d), OC_OK);
    static const struct {
        const char *family, *options;
        int null_entry;
        const char *msg;
    } bad[] = {
        {"adam-torhc", NULL, 0, "family 0 is 'adam-torhc': not a family optcert knows"},
        {"ns-simple", NULL, 0, "family 0 is 'ns-simple': renamed 'newton-schulz-simple' "
                               "(VEC-NAME-1)"},
        {NULL, NULL, 0, "family 0 is NULL"},
        {"sgd-torch", NULL, 0, "lists family 'sgd-torch' twice"},
        {"adam-torch", "amsgrad nesterov", 0, "family 'adam-torch' lists option 'nesterov'"},
        {"adam-torch", NULL, 1, "family 'adam-torch' has no entry point"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        oc_family_entry f[2] = {{bad[i].family, bad[i].options,
                                 bad[i].null_entry ? NULL : e[0].entry},
                                e[1]};
        t.families = f;
        CU_ASSERT_NOT_EQUAL(oc_abi3_check(&t, &d), OC_OK);
        CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, bad[i].msg));
    }
    t.families = e;
    t.abi_version = 2;
    CU_ASSERT_NOT_EQUAL(oc_abi3_check(&t, &d), OC_OK);
    t.abi_version = OC_IMPL_ABI_V3;
    t.nfamilies = 0;
    CU_ASSERT_NOT_EQUAL(oc_abi3_check(&t, &d), OC_OK);
}

/* VEC-ABI-1: a case runs on the entries of the families it needs, listed with its options: an
 * adam-torch-mixed case on adam-torch's entry (its amsgrad and maximize options) and, in 16-bit
 * storage, on adam-torch-mixed's (its storage option); a case needing an option the entry does
 * not list is skipped, the skip naming it. */
static void test_abi3_runners(void)
{
    oc_entry_point adam = test_ref_entry("adam-torch"), mixed = test_ref_entry("adam-torch-mixed");
    oc_family_entry e[] = {{"adam-torch", "amsgrad", adam},
                           {"adam-torch-mixed", "bf16 bf16-state", mixed},
                           {"guarded-step-megatron", "checked",
                            test_ref_entry("guarded-step-megatron")}};
    oc_impl_v3 t = {OC_IMPL_ABI_V3, "t", "0", NULL, 3, e}, no_base = {OC_IMPL_ABI_V3, "t", "0",
                                                                      NULL, 1, e + 1};
    char path[4096];
    oc_family fam;
    oc_diag d;
    snprintf(path, sizeof path, "%s/adam-torch-mixed/adam-torch-mixed.json", vector_dir());
    CU_ASSERT_EQUAL_FATAL(oc_family_load(path, &fam, &d), OC_OK);
    size_t claims[OC_UNCLAIMED_MIXED + 1] = {0};
    for (size_t k = 0; k < fam.ncases; k++) {
        const oc_case *c = &fam.cases[k];
        int fp32 = c->storage.param == OC_FMT_F32 && c->storage.state == OC_FMT_F32;
        int listed = (c->storage.param == OC_FMT_BF16 && c->storage.state != OC_FMT_F16) || fp32;
        oc_claim want = c->hp.adam.maximize ? OC_UNCLAIMED_OPTION
                        : listed            ? OC_CLAIMED
                                            : OC_UNCLAIMED_MIXED;
        oc_runner r;
        CU_ASSERT_EQUAL(oc_impl_runner(&t, c, &r), want);

        CU_ASSERT(want != OC_CLAIMED || (r.entry == adam && r.mixed == mixed && !r.state_io));
        CU_ASSERT_EQUAL(oc_impl_runner(&no_base, c, &r), OC_UNCLAIMED_ALGORITHM);
        claims[want]++;
    }
    CU_ASSERT(claims[OC_CLAIMED] > 0 && claims[OC_UNCLAIMED_MIXED] > 0);
    oc_family_free(&fam);
    /* The guarded step listed with mode checked alone: a scaled case is skipped, naming the
     * option it needs and the entry. */
    snprintf(path, sizeof path, "%s/guarded-step-megatron/guarded-step-megatron.json",
             vector_dir());
    CU_ASSERT_EQUAL_FATAL(oc_family_load(path, &fam, &d), OC_OK);
    size_t scaled = 0, checked = 0;
    for (size_t k = 0; k < fam.ncases; k++) {
        const oc_case *c = &fam.cases[k];
        oc_runner r;
        oc_case_result res;
        oc_claim claim = oc_impl_runner(&t, c, &r);
        if (c->hp.step.guard.mode == OC_GUARD_SCALED) {
            scaled++;
            CU_ASSERT_EQUAL(claim, OC_UNCLAIMED_OPTION);
            oc_certify_case(&t, c, OC_CLASS_FP32, &res);
            CU_ASSERT_EQUAL(res.verdict, OC_SKIP);
            CU_ASSERT_PTR_NOT_NULL(strstr(res.detail, "'scaled'"));
            CU_ASSERT_PTR_NOT_NULL(strstr(res.detail, "which its guarded-step-megatron entry "
                                                      "does not list"));
        } else if (c->hp.step.guard.mode == OC_GUARD_CHECKED && claim == OC_CLAIMED) {
            checked++;
        }
    }
    CU_ASSERT(scaled > 0 && checked > 0);
    oc_family_free(&fam);
}

/* VEC-ABI-4: a v2 table lists the families its slots and bits claimed in v2, with the options
 * its bits claim; the Newton-Schulz bit every family of that algorithm in the registry. */
static void test_abi2_translation(void)
{
    oc_impl v2 = {.abi_version = OC_IMPL_ABI_VERSION, .name = "v2", .version = "0",
                  .capabilities = OC_CAP_ADAM_TORCH | OC_CAP_ADAM_AMSGRAD | OC_CAP_MIXED_BF16 |
                                  OC_CAP_NEWTON_SCHULZ | OC_CAP_SGD_EMA,
                  .adam_step = (oc_adam_step_fn)test_ref_entry("adam-torch"),
                  .mixed_step = (oc_mixed_step_fn)test_ref_entry("adam-torch-mixed"),
                  .newton_schulz = (oc_newton_schulz_fn)test_ref_entry("newton-schulz-simple")};
    oc_abi2_families t;
    oc_abi2_translate(&v2, &t);
    const oc_family_entry *adam = oc_abi3_find(&t.table, "adam-torch");
    const oc_family_entry *mixed = oc_abi3_find(&t.table, "adam-torch-mixed");
    CU_ASSERT_FATAL(adam && mixed);
    CU_ASSERT(adam->entry == (oc_entry_point)v2.adam_step);
    CU_ASSERT_STRING_EQUAL(adam->options, "amsgrad");
    CU_ASSERT_STRING_EQUAL(mixed->options, "bf16");
    CU_ASSERT_PTR_NULL(oc_abi3_find(&t.table, "adam-optax"));
    CU_ASSERT_PTR_NULL(oc_abi3_find(&t.table, "sgd-ema")); /* no sgd_step */
    size_t ns = 0, listed = 0;
    for (size_t k = 0; k < OC_NKNOWN_FAMILIES; k++)
        if (strcmp(oc_known_families[k].algorithm, "newton-schulz") == 0) {
            ns++;
            listed += oc_abi3_find(&t.table, oc_known_families[k].name) != NULL;
        }
    CU_ASSERT(ns >= 8 && listed == ns);
    CU_ASSERT_EQUAL(t.table.abi_version, OC_IMPL_ABI_VERSION);
}

/* VEC-ABI-1 (issue 16 items 1-2: no shared list names a family): every family of the shipped
 * vector set is listed by the reference, with every option it has, and a v3 table listing it
 * (with those options) passes the loader's check (VEC-ABI-2); the registry has no family the
 * vector set lacks. */
static void test_every_family_known(void)
{
    char **paths;
    oc_diag d;
    size_t n = 0;
    CU_ASSERT_EQUAL_FATAL(oc_family_list(vector_dir(), &paths, &d), OC_OK);
    for (; paths[n]; n++) {
        const char *slash = strrchr(paths[n], '/');
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(strlen(slash + 1) - 5), slash + 1);
        const oc_family_entry *e = oc_abi3_find(oc_ref(), name);
        CU_ASSERT_PTR_NOT_NULL(e);
        if (!e) {
            fprintf(stderr, "%s: not listed by the reference\n", name);
            continue;
        }
        const char *const *options = oc_family_options(name);
        for (int o = 0; o < OC_MAX_OPTIONS && options[o]; o++)
            CU_ASSERT(oc_abi3_has_option(e->options, options[o]));
        oc_family_entry one = {name, e->options, e->entry};
        oc_impl_v3 t = {OC_IMPL_ABI_V3, "one", "0", NULL, 1, &one};
        CU_ASSERT_EQUAL(oc_abi3_check(&t, &d), OC_OK);
    }
    CU_ASSERT_EQUAL(n, OC_NKNOWN_FAMILIES);
    CU_ASSERT_EQUAL(oc_ref()->nfamilies, OC_NKNOWN_FAMILIES);
    oc_free_list(paths);
}

/* VEC-ABI-1: the reference behind a v3 table that lists adam-torch without "maximize": that
 * family's cases pass except the maximize ones, skipped; the families not listed are skipped. */
static void test_abi3_certify(void)
{
    oc_family_entry e[] = {{"adam-torch", "amsgrad", test_ref_entry("adam-torch")}};
    oc_impl_v3 t = {OC_IMPL_ABI_V3, "ref-v3", "0", oc_ref()->ctx, 1, e};
    oc_certificate cert;
    oc_diag d;
    CU_ASSERT_EQUAL_FATAL(oc_certify_v3(&t, vector_dir(), NULL, OC_CLASS_EXACT, NULL, &cert, &d),
                          OC_OK);
    for (size_t i = 0; i < cert.nfams; i++) {
        const oc_family_report *f = &cert.fams[i];
        CU_ASSERT_EQUAL(f->counts[OC_FAIL], 0);
        int listed = strcmp(f->name, "adam-torch") == 0;
        CU_ASSERT(!listed || (f->counts[OC_PASS] > 0 && f->counts[OC_SKIP] > 0));
        CU_ASSERT(listed || f->counts[OC_PASS] + f->counts[OC_REJECTED] == 0);
    }
    CU_ASSERT_STRING_EQUAL(cert.source, "plugin ABI v3");
    oc_certificate_free(&cert);
}

/* VEC-JUDGE-1, CLIP-SKIP-1: every output of every shipped family is judged; and the self-test
 * has teeth: with the skip decision's bound opened (the judgement before issue 19 compared no
 * skip flag) it names the unjudged output. */
static void test_every_output_judged(void)
{
    oc_diag d;
    FILE *sink = tmpfile();
    CU_ASSERT_EQUAL(oc_selftest(vector_dir(), NULL, sink, &d), 0);
    oc_family fam;
    char path[4096], line[512];
    snprintf(path, sizeof path, "%s/clip-megatron/clip-megatron.json", vector_dir());
    CU_ASSERT_EQUAL_FATAL(oc_family_load(path, &fam, &d), OC_OK);
    CU_ASSERT_EQUAL(oc_selftest_family(&fam, sink), 0);
    for (size_t k = 0; k < fam.ncases; k++)
        if (fam.cases[k].result == OC_RESULT_VALID)
            fam.cases[k].exp[0].tol[fam.cases[k].n - 1] = INFINITY;
    rewind(sink);
    CU_ASSERT_EQUAL(oc_selftest_family(&fam, sink), 1);
    fflush(sink);
    rewind(sink);
    int named = 0;
    while (fgets(line, sizeof line, sink))
        named |= strstr(line, "skipped (value[") != NULL && strstr(line, "is not judged") != NULL;
    CU_ASSERT(named);
    oc_family_free(&fam);
    fclose(sink);
}

/* The first valid case of a shipped family, with the reference's outputs. */
static const oc_case *ref_case(const char *name, oc_family *fam, oc_outputs *o)
{
    char path[4096];
    oc_diag d;
    oc_status st;
    int dirty;
    snprintf(path, sizeof path, "%s/%s/%s.json", vector_dir(), name, name);
    CU_ASSERT_EQUAL_FATAL(oc_family_load(path, fam, &d), OC_OK);
    for (size_t k = 0; k < fam->ncases; k++)
        if (fam->cases[k].result == OC_RESULT_VALID && fam->cases[k].steps >= 2) {
            oc_run_case(oc_ref(), &fam->cases[k], o, &st, &dirty);
            CU_ASSERT_EQUAL_FATAL(st, OC_OK);
            return &fam->cases[k];
        }
    CU_FAIL_FATAL("no valid case of two steps");
    return NULL;
}

/* VEC-DIAG-1: with the mutants' runs kept (oc_keep_mutant_runs, what the fuzz harnesses use)
 * every diagnosis is the one made without them, when the runs are made and when they are
 * reused: each mutant's own outputs on the first valid cases of an element-wise family and of
 * one judged as a whole. */
static void test_kept_mutant_runs_same_diagnosis(void)
{
    static const char *const names[] = {"lion-torch", "newton-schulz-simple"};
    for (size_t f = 0; f < sizeof names / sizeof names[0]; f++) {
        oc_family fam;
        oc_diag d;
        char path[4096];
        int diagnosed = 0, valid = 0;
        snprintf(path, sizeof path, "%s/%s/%s.json", vector_dir(), names[f], names[f]);
        CU_ASSERT_EQUAL_FATAL(oc_family_load(path, &fam, &d), OC_OK);
        for (size_t k = 0; k < fam.ncases && valid < 4; k++) {
            oc_case *c = &fam.cases[k];
            if (c->result != OC_RESULT_VALID)
                continue;
            valid++;
            for (int mu = 1; mu < c->algo->nmutants; mu++) {
                oc_outputs o;
                oc_status st;
                int dirty;
                oc_run_case(oc_ref_mutant(c->algo, mu), c, &o, &st, &dirty);
                if (st == OC_OK) {
                    oc_mutant_runs_free(c->mutant_runs);
                    c->mutant_runs = NULL;
                    const char *fresh = oc_diagnose(c, &o);
                    CU_ASSERT_EQUAL_FATAL(oc_keep_mutant_runs(c), 0);
                    const char *made = oc_diagnose(c, &o), *reused = oc_diagnose(c, &o);
                    CU_ASSERT(made == fresh && reused == fresh);
                    diagnosed += fresh != NULL;
                }
                oc_outputs_free(&o);
            }
        }
        CU_ASSERT(diagnosed > 0);
        oc_family_free(&fam);
    }
}

/* VEC-DIAG-1: "behaves like X" needs X to reproduce every entry within its bound: a one-ulp
 * error of a 16-bit write-back (which fails the case) is no catalogued mistake; a failure no
 * mistake reproduces is localised: the first wrong step, what is wrong and what is not. */
static void test_diagnosis_beyond_the_catalogue(void)
{
    oc_family fam;
    oc_outputs o;
    int failed = 0;
    char path[4096];
    oc_diag d;
    snprintf(path, sizeof path, "%s/adam-torch-mixed/adam-torch-mixed.json", vector_dir());
    CU_ASSERT_EQUAL_FATAL(oc_family_load(path, &fam, &d), OC_OK);
    for (size_t k = 0; k < fam.ncases; k++) {
        const oc_case *c = &fam.cases[k];
        oc_status st;
        int dirty;
        if (c->result != OC_RESULT_VALID || c->fmt[0] == OC_FMT_F32 || c->n == 0)
            continue; /* n = 0 (issue 19 item 3): no parameter to nudge */
        oc_run_case(oc_ref(), c, &o, &st, &dirty);
        size_t j = c->steps * c->n - 1; /* the last p written back, one 16-bit ulp up */
        o.out[0][j] += oc_ulp(o.out[0][j], c->precision[0]);
        oc_case_result r = {0};
        oc_judge_outputs(c, &o, OC_CLASS_FP32, &r);
        if (r.verdict == OC_FAIL) {
            failed++;
            oc_explain_failure(c, &o, OC_CLASS_FP32, &r);
            CU_ASSERT_PTR_NULL(r.diagnosis);
            CU_ASSERT_PTR_NOT_NULL(strstr(r.locate, "first wrong at step"));
        }
        oc_outputs_free(&o);
    }
    CU_ASSERT(failed > 0);
    oc_family_free(&fam);
    /* lion: p wrong from the second step on, m right: the error is in the update */
    const oc_case *c = ref_case("lion-torch", &fam, &o);
    for (size_t j = c->n; j < c->steps * c->n; j++)
        o.out[0][j] *= 1.5;
    oc_case_result r = {0};
    oc_judge_outputs(c, &o, OC_CLASS_FP32, &r);
    CU_ASSERT_EQUAL(r.verdict, OC_FAIL);
    oc_explain_failure(c, &o, OC_CLASS_FP32, &r);
    char want[96];
    snprintf(want, sizeof want, "first wrong at step %lld: p (", (long long)c->first_step + 1);
    CU_ASSERT_PTR_NULL(r.diagnosis);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.locate, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.locate, "within bound there: m (the error is not in them)"));
    oc_outputs_free(&o);
    oc_family_free(&fam);
    /* a NaN where a finite p is expected: the two values, not an error of NaN */
    c = ref_case("lion-torch", &fam, &o);
    o.out[0][c->n] = NAN;
    oc_case_result rn = {0};
    oc_judge_outputs(c, &o, OC_CLASS_FP32, &rn);
    oc_explain_failure(c, &o, OC_CLASS_FP32, &rn);
    CU_ASSERT_PTR_NULL(rn.diagnosis); /* no catalogued Lion mistake gives one NaN there */
    CU_ASSERT_PTR_NOT_NULL(strstr(rn.locate, "p[0] nan where "));
    CU_ASSERT_PTR_NULL(strstr(rn.locate, "off by nan"));
    oc_outputs_free(&o);
    oc_family_free(&fam);
    /* a lion that forgets its weight decay (no such mutant): -1 x the decay term at step 1 */
    char path2[4096];
    snprintf(path2, sizeof path2, "%s/lion-torch/lion-torch.json", vector_dir());
    CU_ASSERT_EQUAL_FATAL(oc_family_load(path2, &fam, &d), OC_OK);
    int seen = 0;
    for (size_t k = 0; k < fam.ncases && !seen; k++) {
        oc_case forgot = fam.cases[k];
        oc_status st;
        int dirty;
        if (forgot.result != OC_RESULT_VALID || forgot.hp.lion.weight_decay == 0)
            continue;
        forgot.hp.lion.weight_decay = 0;
        oc_run_case(oc_ref(), &forgot, &o, &st, &dirty);
        oc_case_result rr = {0};
        oc_judge_outputs(&fam.cases[k], &o, OC_CLASS_FP32, &rr);
        if (st == OC_OK && rr.verdict == OC_FAIL) {
            oc_explain_failure(&fam.cases[k], &o, OC_CLASS_FP32, &rr);
            const char *t = strstr(rr.locate, "against the terms of the update of p: ");
            CU_ASSERT_PTR_NOT_NULL_FATAL(t);
            double times = strtod(t + strlen("against the terms of the update of p: "), NULL);
            CU_ASSERT(times > -1.01 && times < -0.99);
            seen = 1;
        }
        oc_outputs_free(&o);
    }
    CU_ASSERT(seen);
    oc_family_free(&fam);
}

void register_suites(void)
{
    ADD_SUITE("certify",
              {"reference is exact (ADAM-TOL-1)", test_reference_is_exact},
              {"outside plugin is fp32, not exact (ADAM-TOL-2)", test_outside_plugin_is_fp32_not_exact},
              {"invalid inputs rejected cleanly (VEC-FMT-3)", test_invalid_inputs_must_be_rejected_cleanly},
              {"results path (VEC-RES-1..3)", test_results_path},
              {"ulp32", test_ulp32},
              {"reports", test_reports},
              {"every output judged (VEC-JUDGE-1)", test_every_output_judged},
              {"exact class: narrowing bit for bit (MP-TOL-4)", test_exact_class_narrowing_bit_for_bit},
              {"diagnosis beyond the catalogue (VEC-DIAG-1)", test_diagnosis_beyond_the_catalogue},
              {"kept mutant runs, same diagnoses (VEC-DIAG-1)", test_kept_mutant_runs_same_diagnosis},
              {"plugin ABI v3: table checks (VEC-ABI-2)", test_abi3_checks},
              {"every family of vectors/ is the reference's and the loader's (VEC-ABI-1)",
               test_every_family_known},
              {"plugin ABI v3: a case's runner (VEC-ABI-1)", test_abi3_runners},
              {"plugin ABI v2: the frozen translation (VEC-ABI-4)", test_abi2_translation},
              {"plugin ABI v3: certify (VEC-ABI-1)", test_abi3_certify});
}
