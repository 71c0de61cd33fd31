/* TESTORE-SPLIT-2 on the compiled code: reconstruct(split(u)) == u for every one of the 2^32
 * masters, finite or not (the WP part split_wp proves it for the source). About 20 s of CPU:
 * label heavy (conformance/tests/CMakeLists.txt). */
#include "cunit_main.h"
#include "optcert/te_storage.h"

static void test_roundtrip_exhaustive(void)
{
    uint32_t bad = 0, u = 0;
    do {
        bad += oc_te_join(oc_te_split_param(u), (uint16_t)(u & 0xffffu)) != u;
    } while (++u != 0);
    CU_ASSERT_EQUAL(bad, 0);
}

void register_suites(void)
{
    ADD_SUITE("te-storage-exhaustive",
              {"reconstruct(split(u)) == u for all 2^32 u (TESTORE-SPLIT-2)",
               test_roundtrip_exhaustive});
}
