#ifndef OPTCERT_CUNIT_MAIN_H
#define OPTCERT_CUNIT_MAIN_H

#include <CUnit/CUnit.h>
#include <stddef.h>
#include "../../vectors/gen/st_writer.h"
#include "abi3.h"
#include "judge.h"
#include "vectors.h"

/* Each suite file adds its suites and tests to the registry. */
void register_suites(void);

/* A binary32 copy of n widened values (caller frees). */
float *test_narrow(const double *x, size_t n);

/* Adds output k of case c (x: [steps * n]) to a results file as the results path stores it
 * (spec/vectors.md VEC-RES-1): in its storage format (F32, BF16, F16), F64 for binary64. */
void test_add_results(st_writer *w, const char *key, const oc_case *c, int k, const double *x);

/* Adds a case's outputs o to a results file (VEC-RES-1) under <family>/<tcId>/<name>, and the
 * route of a muon_route case (VEC-RES-4) and a resume case's comparison with its unbroken run
 * (VEC-RES-6) as metadata. */
void test_add_case_results(st_writer *w, const char *family, const oc_case *c,
                           const oc_outputs *o);

/* Writes `text` as a vector file in a fresh temporary directory and loads it into fam (removing
 * the file): oc_family_load's status. */
oc_status test_load_family_text(const char *text, oc_family *fam);

/* Certifies impl on the families of `algorithm` in dir under cls: the number of failed cases,
 * with the passed ones and the worst error/bound ratio. */
size_t test_failures(const oc_impl_v3 *impl, const char *dir, const char *algorithm, oc_class cls,
                     double *worst, size_t *passed);

/* A test's implementation of one algorithm as a v3 table (VEC-ABI-1): every family of
 * `algorithm` in the registry (not its "-mixed" and "resume-" families), each with entry and
 * options. */
typedef struct test_table {
    oc_impl_v3 t;
    oc_family_entry e[OC_NKNOWN_FAMILIES];
} test_table;
const oc_impl_v3 *test_algorithm_table(test_table *b, const char *name, void *ctx,
                                       const char *algorithm, const char *options,
                                       oc_entry_point entry);

/* The reference's table (oc_ref()) named `name`, with `entry` for every family whose name
 * starts with `prefix`. */
const oc_impl_v3 *test_ref_replacing(test_table *b, const char *name, const char *prefix,
                                     oc_entry_point entry);

/* The reference's entry point of `family`. */
oc_entry_point test_ref_entry(const char *family);

#define ADD_SUITE(name, ...)                                                                   \
    do {                                                                                       \
        CU_pSuite s_ = CU_add_suite(name, NULL, NULL);                                         \
        struct { const char *n; CU_TestFunc f; } t_[] = {__VA_ARGS__};                         \
        for (size_t i_ = 0; i_ < sizeof t_ / sizeof t_[0]; i_++)                               \
            CU_add_test(s_, t_[i_].n, t_[i_].f);                                               \
    } while (0)

#endif
