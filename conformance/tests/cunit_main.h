#ifndef OPTCERT_CUNIT_MAIN_H
#define OPTCERT_CUNIT_MAIN_H

#include <CUnit/CUnit.h>
#include <stddef.h>
#include "../../vectors/gen/st_writer.h"

/* Each suite file adds its suites and tests to the registry. */
void register_suites(void);

/* A binary32 copy of n widened values (caller frees). */
float *test_narrow(const double *x, size_t n);

/* Adds outputs x [rows * cols] to a results file as the results path stores them (spec/vectors.md
 * VEC-RES-1): F32 for binary32 storage (precision 24), F64 otherwise. */
void test_add_results(st_writer *w, const char *key, int precision, size_t rows, size_t cols,
                      const double *x);

#define ADD_SUITE(name, ...)                                                                   \
    do {                                                                                       \
        CU_pSuite s_ = CU_add_suite(name, NULL, NULL);                                         \
        struct { const char *n; CU_TestFunc f; } t_[] = {__VA_ARGS__};                         \
        for (size_t i_ = 0; i_ < sizeof t_ / sizeof t_[0]; i_++)                               \
            CU_add_test(s_, t_[i_].n, t_[i_].f);                                               \
    } while (0)

#endif
