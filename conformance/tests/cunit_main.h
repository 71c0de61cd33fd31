#ifndef OPTCERT_CUNIT_MAIN_H
#define OPTCERT_CUNIT_MAIN_H

#include <CUnit/CUnit.h>

/* Each suite file adds its suites and tests to the registry. */
void register_suites(void);

#define ADD_SUITE(name, ...)                                                                   \
    do {                                                                                       \
        CU_pSuite s_ = CU_add_suite(name, NULL, NULL);                                         \
        struct { const char *n; CU_TestFunc f; } t_[] = {__VA_ARGS__};                         \
        for (size_t i_ = 0; i_ < sizeof t_ / sizeof t_[0]; i_++)                               \
            CU_add_test(s_, t_[i_].n, t_[i_].f);                                               \
    } while (0)

#endif
