/* The guarded-step-megatron family (spec/guarded_step.md §4, §5) has teeth: the reference passes the exact
 * class, an outside fp32 implementation (the example plugin's guarded step) passes the fp32
 * class and fails the exact one, every mutant of §3 fails the fp32 class, and an
 * implementation that moves a parameter by one ulp on a skipped iteration fails (STEP-SKIP-1,
 * STEP-TOL-1, STEP-TOL-2). The family is read as VEC-FMT-17 describes it. */
#include <math.h>
#include <string.h>
#include "abi3.h"
#include "certify.h"
#include "cunit_main.h"
#include "test_plugin.h"

#define FAMILY "guarded-step-megatron"

static const char *vector_dir(void) { return OPTCERT_SOURCE_DIR "/vectors"; }

/* Certifies impl on the family in class cls: *fails, *passes and the worst ratio. */
static void certify(const oc_impl_v3 *impl, oc_class cls, size_t *passes, size_t *fails,
                    double *worst_ratio)
{
    oc_certificate cert;
    oc_diag d;
    CU_ASSERT_EQUAL_FATAL(oc_certify(impl, vector_dir(), FAMILY, cls, &cert, &d), OC_OK);
    CU_ASSERT_EQUAL_FATAL(cert.nfams, 1);
    *passes = cert.fams[0].counts[OC_PASS];
    *fails = cert.fams[0].counts[OC_FAIL];
    *worst_ratio = cert.fams[0].worst_ratio;
    oc_certificate_free(&cert);
}

/* STEP-TOL-1: the reference within 1 ulp, every decision, counter and skipped value exact. */
static void test_reference_exact(void)
{
    size_t pass, fail;
    double ratio;
    certify(oc_ref(), OC_CLASS_EXACT, &pass, &fail, &ratio);
    CU_ASSERT_EQUAL(fail, 0);
    CU_ASSERT(pass >= 17);
}

/* STEP-TOL-2: float sum of squares, float coefficient and fp32 sub-optimizers stay within the
 * bounds, and use a real part of them; the exact class tells it from the reference. The
 * example plugin's guarded step implements Megatron's scaler per sub-optimizer (STEP-SCALER-2),
 * an option only a v3 table can claim: its entry is listed here in one. */
static void test_fp32_implementation_accepted(void)
{
    size_t pass, fail, pass_v2;
    double ratio;
    oc_abi2_families plugin; /* the v2 example plugin (VEC-ABI-4) */
    oc_abi2_translate(test_plugin(), &plugin);
    certify(&plugin.table, OC_CLASS_FP32, &pass, &fail, &ratio);
    CU_ASSERT_EQUAL(fail, 0);
    pass_v2 = pass;
    const oc_family_entry *v2 = oc_abi3_find(&plugin.table, FAMILY);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v2);
    oc_family_entry e = {FAMILY, "scaled unchecked checked scalers", v2->entry};
    oc_impl_v3 t = {OC_IMPL_ABI_V3, "naive-v3", "0", plugin.table.ctx, 1, &e};
    certify(&t, OC_CLASS_FP32, &pass, &fail, &ratio);
    CU_ASSERT_EQUAL(fail, 0);
    CU_ASSERT(pass >= 30 && pass > pass_v2);
    CU_ASSERT(ratio <= 1.0 && ratio > 0.05);
    certify(&t, OC_CLASS_EXACT, &pass, &fail, &ratio);
    CU_ASSERT(fail > 0);
}

/* Every mutant of spec/guarded_step.md §3 fails the fp32 class: among them the order of STEP-ORDER-1
 * (clip-before-unscale) and the schedule of STEP-SCHED-1 (schedule-advanced-on-skip). */
static void test_every_mutant_fails(void)
{
    for (int mu = 1; mu < oc_algo_guarded_step.nmutants; mu++) {
        size_t pass, fail;
        double ratio;
        certify(oc_ref_mutant(&oc_algo_guarded_step, mu), OC_CLASS_FP32, &pass, &fail, &ratio);
        CU_ASSERT(fail > 0);
    }
}

/* The reference, except that a skipped iteration moves the first parameter element by one
 * ulp: within every bound, but not the same bits (STEP-SKIP-1). */
static oc_status moves_on_skip(void *ctx, const oc_guard_config *cfg, const oc_loss_scaler *sc,
                               oc_loss_scale_state *ls, size_t nsub, oc_sub_optimizer *subs,
                               int64_t *position, int64_t increment, float *norm,
                               oc_step_outcome *outcome)
{
    (void)ctx;
    oc_guarded_step_fn ref = (oc_guarded_step_fn)test_ref_entry("guarded-step-megatron");
    oc_status st = ref(oc_ref()->ctx, cfg, sc, ls, nsub, subs, position, increment, norm, outcome);
    if (st == OC_OK && *outcome != OC_STEP_TAKEN && nsub > 0 && subs[0].nparams > 0)
        subs[0].params[0].p[0] = nextafterf(subs[0].params[0].p[0], INFINITY);
    return st;
}

static void test_skip_is_bit_for_bit(void)
{
    test_table impl;
    size_t pass, fail;
    double ratio;
    certify(test_ref_replacing(&impl, "moves-on-skip", "guarded-step-megatron",
                               (oc_entry_point)moves_on_skip),
            OC_CLASS_FP32, &pass, &fail, &ratio);
    CU_ASSERT(fail >= 7); /* every valid case with a skipped iteration: 1-3, 7, 9, 12, 13 */
}

void register_suites(void)
{
    ADD_SUITE("guarded-step-megatron family",
              {"reference exact (STEP-TOL-1)", test_reference_exact},
              {"fp32 implementation accepted (STEP-TOL-2)", test_fp32_implementation_accepted},
              {"every mutant fails", test_every_mutant_fails},
              {"a skipped step keeps the state bit for bit (STEP-SKIP-1)", test_skip_is_bit_for_bit});
}
