/* The fast CPU backend's Adafactor (fast/cpu/adafactor.c) against spec/fast.md FAST-ADAFACTOR-1:
 * class fp32 on every committed adafactor case (ADAFACTOR-TOL-2), the reference's rejections,
 * and binary32 arithmetic (it is not the binary64 reference: some entry differs). */
#include <math.h>
#include <string.h>
#include "../../conformance/tests/cunit_main.h"
#include "optcert/fast.h"

static oc_status fast_step(void *ctx, const oc_adafactor_hparams *hp, oc_adafactor_shape sh,
                           int64_t step, oc_adafactor_state *s, const float *g)
{
    (void)ctx;
    return oc_fast_adafactor_step(hp, sh, step, s, g);
}

static const oc_impl_v3 *fast_table(void)
{
    static test_table t;
    return test_algorithm_table(&t, "fast-cpu adafactor", NULL, "adafactor", NULL,
                                (oc_entry_point)fast_step);
}

/* FAST-ADAFACTOR-1, ADAFACTOR-TOL-2: every committed case within its fp32 bound. */
static void test_conforms(void)
{
    double worst;
    size_t passed;
    CU_ASSERT_EQUAL(test_failures(fast_table(), OPTCERT_SOURCE_DIR "/vectors", "adafactor",
                                  OC_CLASS_FP32, &worst, &passed), 0);
    CU_ASSERT(passed > 100);
    CU_ASSERT(worst > 0 && worst <= 1);
}

/* FAST-ADAFACTOR-1: binary32 arithmetic, so the exact class (1 ulp) is not met everywhere. */
static void test_binary32(void)
{
    double worst;
    size_t passed;
    CU_ASSERT(test_failures(fast_table(), OPTCERT_SOURCE_DIR "/vectors", "adafactor",
                            OC_CLASS_EXACT, &worst, &passed) > 0);
}

/* ADAFACTOR-HP-1 through the backend: a rejected step writes nothing. */
static void test_rejects(void)
{
    oc_adafactor_hparams hp = {.profile = OC_ADAFACTOR_TORCH, .lr = 1e-2, .relative_step = 1,
                               .scale_parameter = 1, .decay_rate = 0.8, .eps1 = 0x1p-23,
                               .eps2 = 1e-3, .clip_threshold = 0.5, .factored = 1};
    float p[4] = {1, 2, 3, 4}, v[4] = {0}, g[4] = {1, 1, 1, 1};
    oc_adafactor_state s = {p, NULL, v, NULL, NULL};
    CU_ASSERT_EQUAL(oc_fast_adafactor_step(&hp, (oc_adafactor_shape){1, 1, 4}, 1, &s, g),
                    OC_ERR_BAD_HPARAM);
    CU_ASSERT(p[0] == 1 && p[3] == 4 && v[0] == 0);
    hp.clip_threshold = 1;
    CU_ASSERT_EQUAL(oc_fast_adafactor_step(&hp, (oc_adafactor_shape){1, 1, 4}, 1, &s, g), OC_OK);
    CU_ASSERT(v[0] == 1 && p[0] < 1);
}

void register_suites(void)
{
    ADD_SUITE("fast-adafactor",
              {"class fp32 on every case (FAST-ADAFACTOR-1, ADAFACTOR-TOL-2)", test_conforms},
              {"binary32, not the reference (FAST-ADAFACTOR-1)", test_binary32},
              {"rejections write nothing (ADAFACTOR-HP-1)", test_rejects});
}
