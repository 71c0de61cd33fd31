/* optcert-gen tolcheck (spec/adam.md ADAM-TOL-3, spec/sgd.md SGD-TOL-3, spec/lion.md
 * LION-TOL-3, spec/clip.md CLIP-TOL-3, spec/mixed.md MP-TOL-3): the generator's fp32-class
 * bound against the bound built from the rounding coefficients Gappa proved, on every entry of
 * the Adam, SGD, Lion and clip families, and every 16-bit narrowing of the mixed families.
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
#include "gen_registry.h"

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
    {offsetof(gen_tol, clip), {"clip_coeff:k_"}},
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

void gen_tolcheck_entry(double gen, double proven)
{
    gen_tolcheck *tc = gen_tolcheck_active;
    double r = gen / proven;
    tc->entries++;
    tc->unsound += !(gen >= proven);
    tc->loose += !(r <= tc->factor);
    tc->min_ratio = tc->entries == 1 ? r : fmin(tc->min_ratio, r);
    tc->max_ratio = tc->entries == 1 ? r : fmax(tc->max_ratio, r);
}

/* x rounded to format f (MP-CONV-1: p bits, ties to even, subnormals, overflow to infinity),
 * by MPFR in the format's exponent range (MPFR's emulation of IEEE formats: round, check the
 * range, subnormalize); independent of the generator's gen_round_format. */
static double rn16(oc_format f, double x)
{
    const mpfr_prec_t p = f == OC_FMT_BF16 ? 8 : 11;
    const mpfr_exp_t emin = f == OC_FMT_BF16 ? -126 : -14, emax = f == OC_FMT_BF16 ? 127 : 15;
    mpfr_exp_t old_emin = mpfr_get_emin(), old_emax = mpfr_get_emax();
    mpfr_t y;
    mpfr_init2(y, p);
    mpfr_set_emin(emin - (mpfr_exp_t)p + 2); /* MPFR's significands lie in [1/2, 1) */
    mpfr_set_emax(emax + 1);
    int t = mpfr_set_d(y, x, MPFR_RNDN);
    t = mpfr_check_range(y, t, MPFR_RNDN);
    mpfr_subnormalize(y, t, MPFR_RNDN);
    double r = mpfr_get_d(y, MPFR_RNDN);
    mpfr_set_emin(old_emin);
    mpfr_set_emax(old_emax);
    mpfr_clear(y);
    return r;
}

/* MP-TOL-3: the binary32 values an implementation within E of b may hold are those of [lo, hi],
 * the binary32 rounding of b - E upward and of b + E downward (b - E and b + E exact in MPFR);
 * RN16 is monotone (Flocq's round_le), so RN16 of each lies in [RN16(lo), RN16(hi)], and both
 * ends are attained. A non-finite RN16(b) is judged exactly (MP-TOL-1). */
double gen_tolcheck_narrow(oc_format f, double b, double E)
{
    double r = rn16(f, b);
    if (E == 0 || !isfinite(r))
        return 0;
    int eb, eE;
    frexp(b, &eb);
    frexp(E, &eE);
    mpfr_t t;
    mpfr_init2(t, (mpfr_prec_t)abs(eb - eE) + 120); /* b +- E exact */
    mpfr_set_d(t, b, MPFR_RNDN);
    mpfr_sub_d(t, t, E, MPFR_RNDN);
    float lo = mpfr_get_flt(t, MPFR_RNDU);
    mpfr_set_d(t, b, MPFR_RNDN);
    mpfr_add_d(t, t, E, MPFR_RNDN);
    float hi = mpfr_get_flt(t, MPFR_RNDD);
    mpfr_clear(t);
    return fmax(fabs(r - rn16(f, lo)), fabs(rn16(f, hi) - r));
}

/* CLIP-TOL-3: the proven relative bound of a clipped gradient against its golden value, and
 * each gradient compared.
 *   The norm (by hand, CLIP-TOL-2): every square, addition, and rounded square root squared
 *   again rounds once, so the computed sum of squares is within gamma_K = K u / (1 - K u),
 *   K = m + T + R + 4 (m squares and additions, a tensor's norm squared, T tensors, a rank's
 *   norm squared, R ranks), and the norm after its rounded square root within
 *   dN = (1 + gamma_K / (1 + sqrt(1 - gamma_K))) (1 + u) - 1 of the exact norm; the inf-norm
 *   is exact (dN = 0).
 *   The coefficient max_norm / (N' + 1e-6) from a norm N' = N (1 + d), |d| <= dN, is within
 *   rho = dN / (1 - dN) of the exact one; Gappa (clip_coeff.g) proves the clipped gradient
 *   from N' within k u of its exact value at N'; the golden value is within u of the exact
 *   one. So |out - golden| <= |golden| (rho + k u (1 + rho) + u) / (1 - u). */
void gen_tolcheck_clip(size_t m, int tensors, int ranks, int inf_norm, double max_norm,
                       double norm, double grad_rel_tol, const float *golden, size_t n)
{
    const double u = 0x1p-24, K = (double)m + tensors + ranks + 4;
    double gk = K * u / (1 - K * u);
    double dN = inf_norm ? 0 : (1 + gk / (1 + sqrt(1 - gk))) * (1 + u) - 1;
    double rho = dN / (1 - dN), k = gen_tolcheck_active->proven->clip * u;
    double proven = gen_bound_up((rho + k * (1 + rho) + u) / (1 - u));
    /* clip_coeff.g's ranges (max_norm a binary32 value), and a binary32 coefficient that is
     * normal: the unbounded exponent range of the proof */
    double mn = fabs(max_norm), c = mn / (norm + 1e-6);
    int inside = (double)(float)max_norm == max_norm && mn >= 0x1p-200 && mn <= 0x1p200 &&
                 norm * (1 - dN) >= 0x1p-200 && norm * (1 + dN) <= 0x1p200 &&
                 c * (1 - rho) >= 0x1p-126 && c * (1 + rho) < 0x1p127;
    for (size_t j = 0; j < n; j++)
        if (golden[j] != 0) { /* a zero is exact in both: the coefficient is 0 */
            gen_tolcheck_active->outside += !inside;
            gen_tolcheck_entry(grad_rel_tol, proven);
        }
}

/* The looseness factor per family: spec/adam.md ADAM-TOL-3, spec/sgd.md SGD-TOL-3,
 * spec/lion.md LION-TOL-3, spec/clip.md CLIP-TOL-3. */
static const struct {
    const char *fam;
    double factor;
    const gen_family *gen;
} families[] = {
    {"adam", 2.5, &gen_family_adam},
    {"sgd", 2.5, &gen_family_sgd},
    {"lion", 2, &gen_family_lion},
    {"clip", 2, &gen_family_clip},
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
        int failed = families[i].gen->generate(&g, tmp) != 0;
        gen_tolcheck_active = NULL;
        if (failed) {
            fprintf(stderr, "optcert-gen: %s: regeneration failed\n", families[i].fam);
            rc = 2;
            break;
        }
        int ok = tc.entries > 0 && tc.unsound == 0 && tc.loose == 0 && tc.outside == 0;
        printf("%s: %ld entries, generator/proven bound in [%.4g, %.4g] (factor %g): "
               "%ld unsound, %ld loose, %ld outside the proven ranges: %s\n",
               families[i].fam, tc.entries, tc.min_ratio, tc.max_ratio, tc.factor, tc.unsound,
               tc.loose, tc.outside, ok ? "ok" : "FAIL");
        if (tc.narrowings > 0) { /* the -mixed family's write-backs and 16-bit state */
            int nok = tc.narrow_unsound == 0 && tc.narrow_wider == 0;
            printf("%s-mixed: %ld 16-bit narrowings (%ld with a 16-bit rounding boundary within "
                   "the fp32 bound): %ld unsound, %ld wider than proven: %s\n",
                   families[i].fam, tc.narrowings, tc.narrow_boundary, tc.narrow_unsound,
                   tc.narrow_wider, nok ? "ok" : "FAIL");
            ok &= nok;
        }
        rc |= !ok;
    }
    gen_remove_tree(tmp);
    return rc;
}
