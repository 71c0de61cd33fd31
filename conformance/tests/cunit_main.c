/* Shared main() of the CUnit suites: each suite file defines register_suites(). */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "certify.h"
#include "cunit_main.h"

float *test_narrow(const double *x, size_t n)
{
    float *f = malloc((n + 1) * sizeof(float));
    for (size_t i = 0; i < n; i++)
        f[i] = (float)x[i];
    return f;
}

void test_add_case_results(st_writer *w, const char *family, const oc_case *c,
                           const oc_outputs *o)
{
    char key[192];
    for (int k = 0; k < c->nstate; k++) {
        snprintf(key, sizeof key, "%s/%d/%s", family, c->tcid, c->names[k]);
        test_add_results(w, key, c, k, o->out[k]);
    }
    if (c->algo == &oc_algo_muon_route && o->out[OC_ROUTE_OUTPUT]) {
        snprintf(key, sizeof key, "route/%s/%d", family, c->tcid);
        st_writer_metadata(w, key, o->out[OC_ROUTE_OUTPUT][0] == 1 ? "muon" : "adamw");
    }
    if (c->resume_at >= 0) { /* VEC-RES-6: the comparison the plugin run made (VEC-RESUME-2) */
        snprintf(key, sizeof key, "unbroken/%s/%d", family, c->tcid);
        st_writer_metadata(w, key, o->unbroken[0] ? "differs" : "identical");
    }
}

const oc_impl_v3 *test_algorithm_table(test_table *b, const char *name, void *ctx,
                                       const char *algorithm, const char *options,
                                       oc_entry_point entry)
{
    b->t = (oc_impl_v3){OC_IMPL_ABI_V3, name, "test", ctx, 0, b->e};
    for (size_t k = 0; k < OC_NKNOWN_FAMILIES; k++) {
        const char *family = oc_known_families[k].name;
        char base[128];
        int resume, mixed;
        oc_family_base(family, base, sizeof base, &resume, &mixed);
        if (!resume && !mixed && strcmp(oc_known_families[k].algorithm, algorithm) == 0)
            b->e[b->t.nfamilies++] = (oc_family_entry){family, options, entry};
    }
    return &b->t;
}

const oc_impl_v3 *test_ref_replacing(test_table *b, const char *name, const char *prefix,
                                     oc_entry_point entry)
{
    const oc_impl_v3 *ref = oc_ref();
    b->t = *ref;
    b->t.name = name;
    b->t.families = b->e;
    for (size_t i = 0; i < ref->nfamilies; i++) {
        b->e[i] = ref->families[i];
        if (strncmp(b->e[i].family, prefix, strlen(prefix)) == 0)
            b->e[i].entry = entry;
    }
    return &b->t;
}

oc_entry_point test_ref_entry(const char *family)
{
    const oc_family_entry *e = oc_abi3_find(oc_ref(), family);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    return e->entry;
}

size_t test_failures(const oc_impl_v3 *impl, const char *dir, const char *algorithm, oc_class cls,
                     double *worst, size_t *passed)
{
    oc_certificate cert;
    oc_diag d;
    size_t fails = 0;
    *worst = 0;
    *passed = 0;
    CU_ASSERT_EQUAL_FATAL(oc_certify(impl, dir, NULL, cls, &cert, &d), OC_OK);
    for (size_t i = 0; i < cert.nfams; i++)
        if (strcmp(cert.fams[i].algorithm, algorithm) == 0) {
            fails += cert.fams[i].counts[OC_FAIL];
            *passed += cert.fams[i].counts[OC_PASS];
            *worst = fmax(*worst, cert.fams[i].worst_ratio);
        }
    oc_certificate_free(&cert);
    return fails;
}

void test_add_results(st_writer *w, const char *key, const oc_case *c, int k, const double *x)
{
    static const char *const dtypes[OC_FMT_COUNT] = {"F32", "BF16", "F16"};
    size_t n = c->steps * c->n;
    if (c->precision[k] == 53) {
        st_writer_add(w, key, "F64", c->steps, c->n, 1, x);
        return;
    }
    float *f = test_narrow(x, n);
    uint16_t *h = malloc((n + 1) * sizeof(uint16_t));
    for (size_t i = 0; i < n && c->fmt[k] != OC_FMT_F32; i++)
        h[i] = oc_narrow(c->fmt[k], f[i]); /* exact: the outputs lie on the format's grid */
    st_writer_add(w, key, dtypes[c->fmt[k]], c->steps, c->n, 1,
                  c->fmt[k] == OC_FMT_F32 ? (void *)f : (void *)h);
    free(f);
    free(h);
}

/* `SUITE --only TEST` runs that test alone, `SUITE --skip TEST` all but it (by hand: a slow test
 * alone, or timed). Exit 2 if no test has that name (ctest test_certify_bad_usage). */
static int select_tests(int argc, char **argv)
{
    if (argc == 1)
        return 0;
    int only = argc == 3 && strcmp(argv[1], "--only") == 0;
    if (argc != 3 || (!only && strcmp(argv[1], "--skip") != 0)) {
        fprintf(stderr, "usage: %s [--only TEST | --skip TEST]\n", argv[0]);
        return 2;
    }
    int found = 0;
    for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext)
        for (CU_pTest t = s->pTest; t; t = t->pNext) {
            int match = strcmp(t->pName, argv[2]) == 0;
            found |= match;
            CU_set_test_active(t, match == only ? CU_TRUE : CU_FALSE);
        }
    if (!found) {
        fprintf(stderr, "%s: no test named '%s'\n", argv[0], argv[2]);
        return 2;
    }
    CU_set_fail_on_inactive(CU_FALSE);
    return 0;
}

int main(int argc, char **argv)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    register_suites();
    int usage = select_tests(argc, argv);
    if (usage) {
        CU_cleanup_registry();
        return usage;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    /* CU_basic_run_tests() returns 0 even when tests fail (CUnit 2.1-3, observed: a failing test
     * still returns CUE_SUCCESS). */
    int failed = CU_get_number_of_failures() != 0 || CU_get_number_of_tests_failed() != 0 ||
                 CU_get_error() != CUE_SUCCESS;
    CU_cleanup_registry();
    return failed;
}

oc_status test_load_family_text(const char *text, oc_family *fam)
{
    char dir[] = "/tmp/optcert-family-XXXXXX", path[256];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/f.json", dir);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
    oc_diag d = {{0}};
    oc_status st = oc_family_load(path, fam, &d);
    remove(path);
    remove(dir);
    return st;
}
