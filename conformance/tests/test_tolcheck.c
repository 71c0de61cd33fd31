/* The comparison of the generator's fp32-class bounds with the proven ones (spec/adam.md
 * ADAM-TOL-3, spec/sgd.md SGD-TOL-3, spec/lion.md LION-TOL-3): it passes on the committed Gappa
 * results, and it has teeth: proven coefficients made larger than the generator's (unsound),
 * much smaller (loose) or taken from a file Gappa did not prove each make it fail. */
#define _XOPEN_SOURCE 700
#include <CUnit/Basic.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cunit_main.h"
#include "../../vectors/gen/gen.h"

static const char *const families[] = {"adam", "sgd", "lion"};

/* A copy of the three Gappa cache entries in a new temporary directory, every proven magnitude
 * times `scale`, and with `unproved` (a Gappa file name, or NULL) marked as not proved. */
static char *doctored_cache(double scale, const char *unproved)
{
    static char dir[64];
    strcpy(dir, "/tmp/optcert-tolcheck-test-XXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    for (size_t i = 0; i < sizeof families / sizeof *families; i++) {
        char src[4096], dst[4096];
        snprintf(src, sizeof src, "%s/proofs/cache/%s.gappa.json", OPTCERT_SOURCE_DIR, families[i]);
        snprintf(dst, sizeof dst, "%s/%s.gappa.json", dir, families[i]);
        json_t *doc = json_load_file(src, 0, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        const char *path, *goal;
        json_t *r, *v;
        json_object_foreach(json_object_get(doc, "gappa"), path, r) {
            json_object_foreach(json_object_get(r, "goals"), goal, v)
                json_array_set_new(v, 2, json_real(json_real_value(json_array_get(v, 2)) * scale));
            if (unproved && strstr(path, unproved))
                json_object_set_new(r, "rc", json_integer(1));
        }
        CU_ASSERT_EQUAL_FATAL(json_dump_file(doc, dst, 0), 0);
        json_decref(doc);
    }
    return dir;
}

static void test_committed_results_pass(void)
{
    char cache[4096];
    snprintf(cache, sizeof cache, "%s/proofs/cache", OPTCERT_SOURCE_DIR);
    CU_ASSERT_EQUAL(gen_tolcheck_run(cache), 0);
}

/* The largest proven coefficients are within 20% of the generator's (5.02 against 6 for the
 * moments): 1.3 times them is above, so the generator's bound is smaller somewhere. */
static void test_larger_proven_is_unsound(void)
{
    char *dir = doctored_cache(1.3, NULL);
    CU_ASSERT_EQUAL(gen_tolcheck_run(dir), 1);
    gen_remove_tree(dir);
}

/* A fifth of the proven coefficients makes the generator's bound more than the factor above. */
static void test_smaller_proven_is_loose(void)
{
    char *dir = doctored_cache(0.2, NULL);
    CU_ASSERT_EQUAL(gen_tolcheck_run(dir), 1);
    gen_remove_tree(dir);
}

/* A coefficient from a file Gappa did not prove is not a proven one. */
static void test_unproved_file_fails(void)
{
    char *dir = doctored_cache(1, "param_sub.g");
    CU_ASSERT_EQUAL(gen_tolcheck_run(dir), 1);
    gen_remove_tree(dir);
}

void register_suites(void)
{
    ADD_SUITE("proven tolerances",
              {"committed Gappa results: every entry within (ADAM-TOL-3, SGD-TOL-3, LION-TOL-3)",
               test_committed_results_pass},
              {"larger proven coefficients: unsound entries found", test_larger_proven_is_unsound},
              {"smaller proven coefficients: loose entries found", test_smaller_proven_is_loose},
              {"a file not proved: its coefficients are not used", test_unproved_file_fails});
}
