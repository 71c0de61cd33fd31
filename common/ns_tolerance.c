/* NS-TOL-1's error model (see ns_tolerance.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ns_tolerance.h"

/* Unit roundoffs of NS-TOL-1: operands/intermediates, inner-product accumulation, storage of
 * the output. */
static const double class_u[NS_NCLASSES][3] = {
    {0x1p-53, 0x1p-53, 0x1p-24}, /* exact: binary64 throughout, output rounded to fp32 */
    {0x1p-24, 0x1p-24, 0x1p-24}, /* fp32 */
    {0x1p-11, 0x1p-24, 0x1p-24}, /* tf32: operands rounded to 11 bits, fp32 accumulation */
    {0x1p-8, 0x1p-24, 0x1p-8},   /* bf16: every intermediate and the output in bf16 */
};

static double sumsq(const double *v, size_t k)
{
    double s = 0;
    for (size_t i = 0; i < k; i++)
        s += v[i] * v[i];
    return s;
}

/* Variance of one injected error of Frobenius size `loc`, spread evenly over the k*n entries,
 * after the amplification of the later steps (psym: k x k, pq: k). */
static double injected(double loc, const double *psym, const double *pq, size_t k, size_t n)
{
    double s = 0, q = 0;
    for (size_t i = 0; i < k * k; i++)
        s += psym[i];
    for (size_t i = 0; i < k; i++)
        q += pq[i];
    return loc * loc / ((double)k * (double)n) * (s + (double)(n - k) * q);
}

/* NS-SCHED-1: cycle takes tuple i mod ncoef, repeat_last stays on the last tuple once the
 * list is used up. */
int ns_tuple_of(const oc_ns_hparams *hp, int i)
{
    if (hp->schedule == OC_NS_REPEAT_LAST && i >= hp->ncoef)
        return hp->ncoef - 1;
    return hp->schedule == OC_NS_REPEAT_LAST ? i : i % hp->ncoef;
}

/* NS-TOL-1's divided differences of p(s) = a s + b s^3 + c s^5 at (x, y), D- = (p(x) - p(y)) /
 * (x - y) and D+ = (p(x) + p(y)) / (x + y), written out as the polynomials they equal wherever
 * the quotients are defined (and their limits where those are 0 / 0: p'(x), and a at x = y =
 * 0). The quotients themselves lose their accuracy once two singular values have converged
 * (x - y a few ulps: up to 0.9% of a tolerance measured on the vectors of 2026-12-02). */
static void divided_differences(const double abc[3], double x, double y, double *dm, double *dp)
{
    double x2 = x * x, y2 = y * y, xy = x * y;
    *dm = abc[0] + abc[1] * (x2 + xy + y2) + abc[2] * (x2 * x2 + xy * (x2 + y2) + xy * xy + y2 * y2);
    *dp = abc[0] + abc[1] * (x2 - xy + y2) + abc[2] * (x2 * x2 - xy * (x2 + y2) + xy * xy + y2 * y2);
}

int ns_tolerances(const oc_ns_hparams *hp, const double *sv0, size_t k, size_t n,
                  double tol[NS_NCLASSES][2], double *exact_norm)
{
    int steps = hp->steps;
    double *traj = malloc((size_t)(steps + 1) * k * sizeof *traj);
    double *psym = malloc(k * k * sizeof *psym), *pq = malloc(k * sizeof *pq);
    if (!traj || !psym || !pq) {
        free(traj), free(psym), free(pq);
        return -1;
    }
    /* NS-TOL-1 (1): the exact singular values of every iterate, sigma <- p_m(sigma). */
    memcpy(traj, sv0, k * sizeof *traj);
    for (int m = 0; m < steps; m++) {
        const double *abc = hp->coef[ns_tuple_of(hp, m)];
        for (size_t i = 0; i < k; i++) {
            double s = traj[m * k + i], s2 = s * s;
            traj[(m + 1) * k + i] = s * (abc[0] + s2 * (abc[1] + s2 * abc[2]));
        }
    }
    if (exact_norm)
        *exact_norm = sqrt(sumsq(traj + (size_t)steps * k, k));
    for (int cls = 0; cls < NS_NCLASSES; cls++) {
        double uc = class_u[cls][0], ua = class_u[cls][1], us = class_u[cls][2];
        double cfac = 1 + sqrt((double)n) * ua / uc;
        for (size_t i = 0; i < k * k; i++)
            psym[i] = 1;
        for (size_t i = 0; i < k; i++)
            pq[i] = 1;
        /* (2) the output's storage rounding, (3) each step's local error, amplified by the
         * later steps, (4) the input's conversion and normalisation, amplified by all. */
        double var = injected(us * sqrt(sumsq(traj + (size_t)steps * k, k)), psym, pq, k, n);
        for (int m = steps - 1; m >= 0; m--) {
            const double *abc = hp->coef[ns_tuple_of(hp, m)];
            const double *s = traj + (size_t)m * k, *p = s + k;
            double l2 = 0;
            for (size_t i = 0; i < k; i++) {
                double s2 = s[i] * s[i];
                double t1 = abc[0] * s[i], t3 = abc[1] * s2 * s[i], t5 = abc[2] * s2 * s2 * s[i];
                l2 += t1 * t1 + t3 * t3 + t5 * t5 + p[i] * p[i];
            }
            var += injected(cfac * uc * sqrt(l2), psym, pq, k, n);
            for (size_t i = 0; i < k; i++) {
                for (size_t j = 0; j < k; j++) {
                    double dm, dp;
                    divided_differences(abc, s[i], s[j], &dm, &dp);
                    psym[i * k + j] *= (dm * dm + dp * dp) / 2;
                }
                double q = abc[0] + abc[1] * s[i] * s[i] + abc[2] * s[i] * s[i] * s[i] * s[i];
                pq[i] *= q * q;
            }
        }
        var += injected(2 * uc * sqrt(sumsq(traj, k)), psym, pq, k, n);
        double model = sqrt(var);
        tol[cls][0] = NS_TOL_SAFETY * model;
        tol[cls][1] = NS_TOL_SAFETY * model * (1 / sqrt((double)k) + 1 / sqrt((double)n));
    }
    free(traj), free(psym), free(pq);
    return 0;
}
