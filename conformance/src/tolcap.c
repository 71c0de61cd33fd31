/* VEC-TOL-2: the derived cap on the per-entry bounds of the element-wise families and their
 * mixed-precision variants, and the pieces the AdamW routes (muon_route.c) and the guarded step
 * (guarded_step.c) build theirs from. The harness re-evaluates each family's fp32-class bound in
 * binary64 from the case's own numbers (its hyper-parameters, inputs and golden stored
 * trajectory) with the error model of its algorithm's step, which the algorithm's own file
 * defines (oc_tolcap_model: adam.c, ADAM-TOL-2 §4.2; sgd.c, spec/sgd.md §4; lion.c,
 * spec/lion.md §4); here, the 16-bit storage points (spec/mixed.md MP-TOL-1) and the bounds'
 * carrying from step to step. It links neither the reference nor the generator (ctest
 * layers_*): the formulas are written from the spec rules they cite. */
#include <math.h>
#include <stdlib.h>
#include "optcert/formats.h"
#include "tolcap_model.h"

#define SLACK 0x1p-20  /* VEC-TOL-2: the harness's binary64 re-evaluation against the generator's */

/* VEC-TOL-2: a bound carried to the next step, widened by the slack. */
static double widen(double e) { return nextafter(e * (1 + SLACK), INFINITY); }
double oc_tolcap_widen(double e) { return widen(e); }

/* x rounded to binary32 toward -inf (dir < 0) or +inf (dir > 0). */
static float to_float_directed(double x, int dir)
{
    float f = (float)x;
    if (dir < 0 && (double)f > x)
        f = nextafterf(f, -INFINITY);
    if (dir > 0 && (double)f < x)
        f = nextafterf(f, INFINITY);
    return f;
}

static double round16(oc_format f, float x) { return oc_widen(f, oc_narrow(f, x)); }

/* MP-TOL-1: the bound of a 16-bit storage point. The golden fp32 value is b = RN32(exact),
 * and f64 = RN64(exact), so b lies in [RN32(f64-), RN32(f64+)] (f64's binary64 neighbours,
 * RN32 monotone); stored16 = RN16(b). An implementation within E of b stores a value in
 * [RN16(b - E), RN16(b + E)]: the cap is the larger distance from stored16 over that range
 * widened to the bracket of b, each end one binary64 step outward (as the generator's) and
 * rounded outward to binary32. */
static double narrowing_cap(oc_format f, double f64, double stored16, double E)
{
    if (E == 0 || !isfinite(stored16))
        return 0; /* judged exactly (MP-TOL-1) */
    double b_lo = (float)nextafter(f64, -INFINITY), b_hi = (float)nextafter(f64, INFINITY);
    double lo = round16(f, to_float_directed(nextafter(b_lo - E, -INFINITY), -1));
    double hi = round16(f, to_float_directed(nextafter(b_hi + E, INFINITY), 1));
    return fmax(fabs(stored16 - lo), fabs(hi - stored16));
}

void oc_tolcap_element(const oc_algo *a, const oc_hparams *hp, int64_t t, const double *before,
                       const double *after, double g, double *E)
{
    a->tolcap->element(hp, t, before, after, g, E);
}

int oc_tolcap_sensitivity_defined(const oc_algo *a, const oc_hparams *hp)
{
    return a && a->tolcap && a->tolcap->sensitivity_defined(hp);
}

/* STEP-TOL-2 (b), spec/guarded_step.md: the sensitivity of one element's step to an error eg of its
 * gradient, bounded from the golden state before the step (before, its bounds E). */
void oc_tolcap_grad_sensitivity(const oc_algo *a, const oc_hparams *hp, int64_t t,
                                const double *before, const double *E, double g, double eg,
                                double *add)
{
    for (int k = 0; k < OC_MAX_STATE; k++)
        add[k] = 0;
    if (eg != 0)
        a->tolcap->grad_sensitivity(hp, t, before, E, g, eg, add);
}

static oc_status refuse(const char *path, const oc_case *c, int slot, size_t i, double cap,
                        oc_diag *d)
{
    return oc_fail(d, OC_ERR_FORMAT,
                   "%s: tcId %d: tolerance %s[%zu] = %g exceeds %.17g, the bound the spec's "
                   "derivation gives for that entry (VEC-TOL-2)",
                   path, c->tcid, c->names[slot], i, c->exp[slot].tol[i], cap);
}

oc_status oc_tolcap_within(const char *path, const oc_case *c, int k, size_t i, double cap,
                            oc_tolcap_stats *stats, oc_diag *d)
{
    double tol = c->exp[k].tol[i];
    if (!(tol <= cap))
        return refuse(path, c, k, i, cap, d);
    if (stats) {
        stats->entries++;
        if (tol > 0)
            stats->worst = fmax(stats->worst, cap / tol);
        stats->wider += cap > tol * (1 + 0x1p-10);
    }
    return OC_OK;
}

oc_status oc_tolcap_entry_within(const char *path, const oc_case *c, int k, size_t i, double cap,
                                 oc_tolcap_stats *stats, oc_diag *d)
{
    if (!isfinite(c->exp[k].stored[i])) /* judged exactly, whatever its tolerance (VEC-TOL-2) */
        return OC_OK;
    return oc_tolcap_within(path, c, k, i, cap, stats, d);
}

oc_status oc_tolcap_check(const char *path, const oc_case *c, oc_tolcap_stats *stats, oc_diag *d)
{
    return c->result == OC_RESULT_VALID && c->algo->cap_tolerances
               ? c->algo->cap_tolerances(path, c, stats, d) : OC_OK;
}

oc_status oc_tolcap_elementwise(const char *path, const oc_case *c, oc_tolcap_stats *stats,
                                oc_diag *d)
{
    const int mixed = c->storage.param != OC_FMT_F32, nalg = c->nstate - mixed;
    /* algorithm state a sits in output slot a + mixed, p in the master's (MP-STORE-1) */
    double *E = calloc(c->n * OC_MAX_STATE, sizeof(double));
    if (!E)
        return oc_fail(d, OC_ERR_INTERNAL, "out of memory checking tolerances of %s", path);
    oc_status s = OC_OK;
    for (size_t r = 0; r < c->steps && s == OC_OK; r++) {
        for (size_t j = 0; j < c->n && s == OC_OK; j++) {
            double before[OC_MAX_STATE] = {0}, after[OC_MAX_STATE] = {0}, *e = E + j * OC_MAX_STATE;
            size_t i = r * c->n + j;
            for (int a = 0; a < nalg; a++) {
                int k = a + mixed;
                before[a] = r == 0 ? c->in[k][j] : c->exp[k].stored[i - c->n];
                /* the fp32 value before a 16-bit narrowing: RN32 of the golden f64 */
                after[a] = c->fmt[k] == OC_FMT_F32 ? c->exp[k].stored[i] : (float)c->exp[k].f64[i];
            }
            c->algo->tolcap->element(&c->hp, c->first_step + (int64_t)r, before, after, c->g[i], e);
            for (int a = 0; a < nalg; a++) { /* MP-TOL-1: 16-bit state narrowed, carried on */
                int k = a + mixed;
                if (c->fmt[k] != OC_FMT_F32)
                    e[a] = narrowing_cap(c->fmt[k], c->exp[k].f64[i], c->exp[k].stored[i], e[a]);
                if ((s = oc_tolcap_entry_within(path, c, k, i, e[a], stats, d)))
                    break;
            }
            if (s == OC_OK && mixed) { /* the 16-bit parameter written back from the master */
                double cap = narrowing_cap(c->fmt[0], c->exp[1].f64[i], c->exp[0].stored[i], e[0]);
                s = oc_tolcap_entry_within(path, c, 0, i, cap, stats, d);
            }
        }
    }
    free(E);
    return s;
}
