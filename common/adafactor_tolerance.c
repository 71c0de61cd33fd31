/* ADAFACTOR-TOL-2 (spec/adafactor.md §4): the bound of every stored entry after one step,
 * carried from the last, in binary64 from the step's quantities (adafactor_tolerance.h). */
#include <math.h>
#include "adafactor_tolerance.h"

#define U 0x1p-24 /* u of binary32 */

/* gamma(k) = k u / (1 - k u): a sum of k nonnegative terms and its quotient */
static double gamma_n(double k) { return k * U / (1 - k * U); }

/* B: the running mean beta2 x + (1 - beta2) s of a stored statistic x with sample s (relative
 * error rs), golden result x1: the propagated error, the sample's, beta2's (dbeta times
 * |x - s|), four roundings of the two terms and both storage roundings. */
static double running_mean(double e, double beta, double dbeta, double x, double s, double rs,
                           double x1)
{
    return (beta + dbeta) * e + (1 - beta) * rs * s + dbeta * fabs(x - s) +
           4 * U * (beta * fabs(x) + (1 - beta) * s) + 2 * U * fabs(x1);
}

void ada_tol_step_bounds(const ada_tol_step *s, ada_tol_parts *e, double *work)
{
    const oc_adafactor_hparams *hp = s->hp;
    const size_t R = s->rows, C = s->cols, n = R * C;
    double *rel_v = work, *r_u = work + n;
    /* A: beta2_t by pow and a subtraction */
    const double dbeta = 3 * U * s->wt + U;
    /* F: the parameter's RMS within e_rms_p (Minkowski, then the roundings); alpha's error */
    double e_sq = 0;
    for (size_t i = 0; i < n; i++)
        e_sq += e->p[i] * e->p[i];
    const double e_rms = sqrt(e_sq / (double)n);
    const double e_rms_p = e_rms + gamma_n((double)n + 4) * (s->rms_p + e_rms);
    double r_alpha = hp->relative_step ? 2 * U : 0;
    if (hp->scale_parameter)
        r_alpha += e_rms_p / s->scale + U;
    /* B, C: the statistics and the estimate's relative error */
    if (!s->factored) {
        for (size_t i = 0; i < n; i++) {
            e->v[i] = running_mean(e->v[i], s->beta, dbeta, s->before.v[i], s->sample[i], 2 * U,
                                   s->golden.v[i]);
            rel_v[i] = s->after.v[i] ? e->v[i] / (s->after.v[i] * (1 - U)) : 0;
        }
    } else {
        for (size_t r = 0; r < R; r++)
            e->row[r] = running_mean(e->row[r], s->beta, dbeta, s->before.row[r], s->sample[r],
                                     gamma_n((double)C + 3), s->golden.row[r]);
        for (size_t c = 0; c < C; c++)
            e->col[c] = running_mean(e->col[c], s->beta, dbeta, s->before.col[c],
                                     s->sample[R + c], gamma_n((double)R + 3), s->golden.col[c]);
        const size_t k = s->by_col ? C : R;
        const double *es = s->by_col ? e->col : e->row;
        double e_mean = 0;
        for (size_t i = 0; i < k; i++)
            e_mean += es[i] / (double)k;
        const double r_norm =
            (e_mean + gamma_n((double)k + 1) * (s->norm + e_mean)) / (s->norm * (1 - U));
        for (size_t r = 0; r < R; r++)
            for (size_t c = 0; c < C; c++)
                rel_v[r * C + c] =
                    (s->after.row[r] ? e->row[r] / (s->after.row[r] * (1 - U)) : 0) +
                    (s->after.col[c] ? e->col[c] / (s->after.col[c] * (1 - U)) : 0) + r_norm;
    }
    /* D: U = G / sqrt(V^) */
    double r_max = 0;
    for (size_t i = 0; i < n; i++) {
        r_u[i] = rel_v[i] / 2 * (1 + rel_v[i]) + 10 * U;
        r_max = fmax(r_max, r_u[i]);
    }
    /* E: D = max(1, RMS(U) / d) */
    const double r_denom =
        hp->clip_threshold != 0 ? (r_max + gamma_n((double)n + 4)) * (1 + 0x1p-10) + U : 0;
    for (size_t i = 0; i < n; i++) {
        /* G: delta = alpha U / D */
        const double delta = fabs(s->delta[i]);
        const double r_delta = (r_alpha + r_u[i] + r_denom + 3 * U) * (1 + 0x1p-10);
        double e_upd = r_delta * delta, upd = delta;
        if (hp->first_moment) { /* H */
            const double b1 = hp->beta1;
            e->m[i] = b1 * e->m[i] + (1 - b1) * e_upd +
                      6 * U * (b1 * fabs(s->before.m[i]) + (1 - b1) * delta);
            e_upd = e->m[i];
            upd = s->after.m[i];
        }
        /* I: the decayed parameter f = k p (transformers: k = 1 - wd alpha), then the update */
        const double p0 = s->before.p[i], wd = hp->weight_decay;
        double k = 1, dk = 0;
        if (hp->profile == OC_ADAFACTOR_TORCH) {
            k = 1 - hp->lr * wd;
        } else if (hp->profile == OC_ADAFACTOR_TRANSFORMERS) {
            k = 1 - wd * s->alpha;
            dk = wd * s->alpha * r_alpha;
        } else if (hp->profile == OC_ADAFACTOR_OPTAX) {
            k = 1 - wd;
        }
        const double e_f =
            fabs(k) * e->p[i] + fabs(p0) * dk + 4 * U * fabs(p0) * (fabs(k) + fabs(1 - k));
        e->p[i] = e_f + e_upd + 4 * U * (fabs(k * p0) + fabs(upd));
    }
}
