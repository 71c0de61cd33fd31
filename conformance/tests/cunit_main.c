/* Shared main() of the CUnit suites: each suite file defines register_suites(). */
#include <CUnit/Basic.h>
#include "cunit_main.h"

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    register_suites();
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    /* CU_basic_run_tests() returns 0 even when tests fail (shared/toolchain.md §2). */
    int failed = CU_get_number_of_failures() != 0 || CU_get_number_of_tests_failed() != 0 ||
                 CU_get_error() != CUE_SUCCESS;
    CU_cleanup_registry();
    return failed;
}
