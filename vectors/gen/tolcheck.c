/* optcert-gen tolcheck (spec/adam.md ADAM-TOL-3, spec/sgd.md SGD-TOL-3, spec/lion.md
 * LION-TOL-3): the generator's fp32-class bound against the bound built from the rounding
 * coefficients Gappa proved, on every entry of the Adam, SGD and Lion families.
 *
 * The proven coefficients are read from proofs/cache/<family>.gappa.json, which proofs/prove
 * writes after Gappa proved them (and replays only while the proof files are unchanged). The
 * families are regenerated at the ci level into a temporary directory: gen_verify checks that
 * this reproduces the committed vectors bit for bit, so every committed entry is checked. Each
 * element step is computed a second time with the proven model from the same stored state
 * (family.c), carrying its own bound from step to step; an entry fails when the generator's
 * bound is below the proven one (unsound) or more than the family's factor above it (loose). */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"

/* Where each coefficient comes from: the largest proven magnitude over the goals of a file
 * whose names start with a prefix (proofs/gappa/<file>.g). */
typedef struct source {
    size_t field; /* offsetof(gen_tol, ...) */
    const char *goals[6]; /* "file:prefix" */
} source;

static const source sources[] = {
    {offsetof(gen_tol, grad), {"l2:"}},
    {offsetof(gen_tol, moment), {"sum2_same:k_", "sum2_opp:k_", "lerp_same:k_", "lerp_opp:k_"}},
    {offsetof(gen_tol, square), {"adam_v:k_"}},
    {offsetof(gen_tol, nesterov), {"l2:", "sum2_same:l_", "sum2_opp:l_", "lerp_same:l_", "lerp_opp:l_"}},
    {offsetof(gen_tol, interp), {"sum2_same:l_", "sum2_opp:l_", "lerp_same:l_", "lerp_opp:l_"}},
    {offsetof(gen_tol, param), {"param_sub:k_", "param_add:k_"}},
    {offsetof(gen_tol, param_lion), {"param_sub:k_", "param_add:k_"}},
    {offsetof(gen_tol, dir), {"adam_dir:k_paper", "adam_dir:k_torch"}},
    {offsetof(gen_tol, dir_keras), {"adam_dir:k_keras"}},
};

/* The largest magnitude of the goals of `files` (the cache entry's "gappa" object) that `spec`
 * names; -1 when the part has no such file (the family does not use that order), NAN when the
 * file was not proved or has no such goal. */
static double proven_max(json_t *files, const char *spec)
{
    const char *colon = strchr(spec, ':');
    double m = -1;
    const char *path;
    json_t *r;
    json_object_foreach(files, path, r) {
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        if (strncmp(base, spec, (size_t)(colon - spec)) != 0 || strcmp(base + (colon - spec), ".g"))
            continue;
        if (json_integer_value(json_object_get(r, "rc")) != 0 ||
            json_array_size(json_object_get(r, "warnings")) != 0)
            return NAN;
        const char *goal;
        json_t *v;
        json_object_foreach(json_object_get(r, "goals"), goal, v) {
            if (strncmp(goal, colon + 1, strlen(colon + 1)) != 0)
                continue;
            double x = json_real_value(json_array_get(v, 2));
            m = m < 0 ? x : fmax(m, x);
        }
        return m < 0 ? NAN : m;
    }
    return -1;
}

/* The proven model of one family; a coefficient its part does not prove (no file, or a file
 * not proved) is NaN, which fails every entry that uses it. Returns -1 when the cache entry is
 * missing. */
static int load_proven(const char *cache, const char *fam, gen_tol *out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.gappa.json", cache, fam);
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    json_t *files = json_object_get(doc, "gappa");
    if (!json_is_object(files)) {
        fprintf(stderr, "optcert-gen: %s: no Gappa results (%s); run proofs/prove --only %s.gappa\n",
                path, doc ? "no \"gappa\" object" : err.text, fam);
        json_decref(doc);
        return -1;
    }
    for (size_t i = 0; i < sizeof sources / sizeof *sources; i++) {
        double m = -1;
        for (int k = 0; k < 6 && sources[i].goals[k] && !isnan(m); k++) {
            double x = proven_max(files, sources[i].goals[k]);
            m = isnan(x) ? NAN : fmax(m, x);
        }
        *(double *)((char *)out + sources[i].field) = m < 0 ? NAN : m;
    }
    json_decref(doc);
    return 0;
}

/* The looseness factor per family: spec/adam.md ADAM-TOL-3, spec/sgd.md SGD-TOL-3,
 * spec/lion.md LION-TOL-3. */
static const struct {
    const char *fam;
    double factor;
    int (*gen)(const gen_options *, const char *);
} families[] = {
    {"adam", 2.5, gen_adam},
    {"sgd", 2.5, gen_sgd},
    {"lion", 2, gen_lion},
};

int gen_tolcheck_run(const char *cache)
{
    char tmp[] = "/tmp/optcert-tolcheck-XXXXXX";
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "optcert-gen: cannot create a temporary directory\n");
        return 2;
    }
    gen_options g = {.level = "ci", .prec = 256, .seed = GEN_DEFAULT_SEED};
    int rc = 0;
    for (size_t i = 0; i < sizeof families / sizeof *families; i++) {
        gen_tol proven;
        if (load_proven(cache, families[i].fam, &proven) != 0) {
            rc = 2;
            break;
        }
        gen_tolcheck tc = {.proven = &proven, .factor = families[i].factor};
        gen_tolcheck_active = &tc;
        int failed = families[i].gen(&g, tmp) != 0;
        gen_tolcheck_active = NULL;
        if (failed) {
            fprintf(stderr, "optcert-gen: %s: regeneration failed\n", families[i].fam);
            rc = 2;
            break;
        }
        int ok = tc.entries > 0 && tc.unsound == 0 && tc.loose == 0 && tc.outside == 0;
        printf("%s: %ld entries, generator/proven bound in [%.4g, %.4g] (factor %g): "
               "%ld unsound, %ld loose, %ld element steps outside the proven ranges: %s\n",
               families[i].fam, tc.entries, tc.min_ratio, tc.max_ratio, tc.factor, tc.unsound,
               tc.loose, tc.outside, ok ? "ok" : "FAIL");
        rc |= !ok;
    }
    gen_remove_tree(tmp);
    return rc;
}
