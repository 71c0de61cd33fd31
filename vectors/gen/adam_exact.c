/* Golden Adam step in MPFR (spec/adam.md §3) and the fp32-class error bound (§4.2).
 * Every intermediate is correctly rounded to the working precision (>= 200 bits); values are
 * rounded to binary32 only at the storage points of ADAM-STORE-1. */
#include <math.h>
#include <stdlib.h>
#include "adam_exact.h"

#define U 0x1p-24    /* unit roundoff of binary32 */
#define ETA 0x1p-149 /* absolute error of one operation in the subnormal range */

enum { B1, B2, BT1, BT2, BC1, BC2, EPS, EPSR, STEPM, DECAY, L2, KCOEF,
       G, P, M, V, VM, T1, T2, D, NVARS };

struct adam_exact_ctx {
    mpfr_t x[NVARS];
    double bc1, bc2, r1, r2; /* bias corrections and the relative error an fp32 impl may make */
};

adam_exact_ctx *adam_exact_new(mpfr_prec_t prec)
{
    adam_exact_ctx *cx = calloc(1, sizeof *cx);
    if (cx)
        for (int i = 0; i < NVARS; i++)
            mpfr_init2(cx->x[i], prec);
    return cx;
}

void adam_exact_free(adam_exact_ctx *cx)
{
    if (!cx)
        return;
    for (int i = 0; i < NVARS; i++)
        mpfr_clear(cx->x[i]);
    free(cx);
}

/* Relative error bound of 1 - beta^t as an fp32 implementation may compute it:
 * beta^t within 2u (pow within 1 ulp), t rounded to binary32 (t*|ln beta|*u), one
 * subtraction (spec/adam.md §4.2, item B). */
static double bc_rel_error(double beta, double beta_t, double bc, double t)
{
    double e = beta_t * (2 * U + (beta > 0 ? t * fabs(log(beta)) * U : 0)) + U * bc + ETA;
    return e / bc;
}

void adam_exact_begin_step(adam_exact_ctx *cx, const oc_adam_hparams *hp, int64_t t)
{
    mpfr_t *x = cx->x;
    mpfr_set_d(x[B1], hp->beta1, MPFR_RNDN);
    mpfr_set_d(x[B2], hp->beta2, MPFR_RNDN);
    mpfr_pow_ui(x[BT1], x[B1], (unsigned long)t, MPFR_RNDN);     /* ADAM-BC-1 */
    mpfr_pow_ui(x[BT2], x[B2], (unsigned long)t, MPFR_RNDN);
    mpfr_ui_sub(x[BC1], 1, x[BT1], MPFR_RNDN);
    mpfr_ui_sub(x[BC2], 1, x[BT2], MPFR_RNDN);
    mpfr_set_d(x[EPS], hp->eps, MPFR_RNDN);
    mpfr_set_d(x[EPSR], hp->eps_root, MPFR_RNDN);
    double eta = hp->profile == OC_ADAM_PAPER ? hp->schedule_multiplier : 1.0;
    mpfr_set_d(x[STEPM], eta, MPFR_RNDN);
    mpfr_mul_d(x[STEPM], x[STEPM], hp->lr, MPFR_RNDN);             /* ADAM-UPD-1 */
    mpfr_set_d(x[DECAY], hp->decoupled ? hp->weight_decay : 0.0, MPFR_RNDN);
    mpfr_mul_d(x[DECAY], x[DECAY], hp->profile == OC_ADAM_PAPER ? eta : hp->lr,
               MPFR_RNDN);                                         /* ADAM-WD-2 */
    mpfr_set_d(x[L2], hp->decoupled ? 0.0 : hp->weight_decay, MPFR_RNDN); /* ADAM-WD-1 */
    mpfr_sqrt(x[KCOEF], x[BC2], MPFR_RNDN);                        /* ADAM-PROF-KERAS */
    mpfr_div(x[KCOEF], x[KCOEF], x[BC1], MPFR_RNDN);
    cx->bc1 = mpfr_get_d(x[BC1], MPFR_RNDN);
    cx->bc2 = mpfr_get_d(x[BC2], MPFR_RNDN);
    cx->r1 = bc_rel_error(hp->beta1, mpfr_get_d(x[BT1], MPFR_RNDN), cx->bc1, (double)t);
    cx->r2 = bc_rel_error(hp->beta2, mpfr_get_d(x[BT2], MPFR_RNDN), cx->bc2, (double)t);
}

/* Error of sqrt(X~) against sqrt(X) when |X~ - X| <= e (§4.2, item D). */
static double sqrt_propagated(double x, double e)
{
    return x > 0 ? fmin(sqrt(e), e / sqrt(x)) : sqrt(e);
}

/* The same plus one rounding of the square root. */
static double sqrt_error(double x, double e)
{
    double ds = sqrt_propagated(x, e);
    return ds + U * (sqrt(x) + ds);
}

void adam_exact_element(adam_exact_ctx *cx, const oc_adam_hparams *hp, float grad, float *s,
                        double *E, gen_golden *out)
{
    mpfr_t *x = cx->x;
    const double b1 = hp->beta1, b2 = hp->beta2;
    const double P0 = fabs((double)s[ADAM_P]), M0 = fabs((double)s[ADAM_M]);
    const double V0 = s[ADAM_V];

    /* ---- exact step ---- */
    mpfr_set_flt(x[G], hp->maximize ? -grad : grad, MPFR_RNDN);   /* ADAM-MAX-1 */
    mpfr_set_flt(x[P], s[ADAM_P], MPFR_RNDN);
    mpfr_fma(x[G], x[L2], x[P], x[G], MPFR_RNDN);                  /* ADAM-WD-1 */
    double Ge = fabs(mpfr_get_d(x[G], MPFR_RNDN));

    mpfr_set_flt(x[M], s[ADAM_M], MPFR_RNDN);                  /* ADAM-M-1 */
    mpfr_sub(x[T1], x[G], x[M], MPFR_RNDN);
    mpfr_ui_sub(x[T2], 1, x[B1], MPFR_RNDN);
    mpfr_fma(x[M], x[T1], x[T2], x[M], MPFR_RNDN);
    s[ADAM_M] = gen_store(x[M], out, ADAM_M);

    mpfr_set_flt(x[V], s[ADAM_V], MPFR_RNDN);                  /* ADAM-V-1 */
    mpfr_sqr(x[T1], x[G], MPFR_RNDN);
    mpfr_sub(x[T1], x[T1], x[V], MPFR_RNDN);
    mpfr_ui_sub(x[T2], 1, x[B2], MPFR_RNDN);
    mpfr_fma(x[V], x[T1], x[T2], x[V], MPFR_RNDN);
    s[ADAM_V] = gen_store(x[V], out, ADAM_V);

    mpfr_ptr vv = x[V];
    if (hp->amsgrad) {                                              /* ADAM-AMS-1 */
        mpfr_set_flt(x[VM], s[ADAM_VMAX], MPFR_RNDN);
        mpfr_max(x[VM], x[VM], x[V], MPFR_RNDN);
        s[ADAM_VMAX] = gen_store(x[VM], out, ADAM_VMAX);
        vv = x[VM];
    } else {
        out->f32[ADAM_VMAX] = 0.0f;
        out->f64[ADAM_VMAX] = 0.0;
    }

    if (hp->profile == OC_ADAM_KERAS) {                            /* ADAM-PROF-KERAS */
        mpfr_sqrt(x[T1], vv, MPFR_RNDN);
        mpfr_add(x[T1], x[T1], x[EPS], MPFR_RNDN);
        mpfr_mul(x[D], x[KCOEF], x[M], MPFR_RNDN);
        mpfr_div(x[D], x[D], x[T1], MPFR_RNDN);
    } else {                                                        /* ADAM-EPS-1, ADAM-DIR-1 */
        mpfr_div(x[T1], vv, x[BC2], MPFR_RNDN);
        mpfr_add(x[T1], x[T1], x[EPSR], MPFR_RNDN);
        mpfr_sqrt(x[T1], x[T1], MPFR_RNDN);
        mpfr_add(x[T1], x[T1], x[EPS], MPFR_RNDN);
        mpfr_div(x[D], x[M], x[BC1], MPFR_RNDN);
        mpfr_div(x[D], x[D], x[T1], MPFR_RNDN);
    }
    double dabs = fabs(mpfr_get_d(x[D], MPFR_RNDN));
    mpfr_mul(x[T1], x[DECAY], x[P], MPFR_RNDN);                    /* ADAM-UPD-1, ADAM-WD-2 */
    mpfr_sub(x[P], x[P], x[T1], MPFR_RNDN);
    mpfr_mul(x[T1], x[STEPM], x[D], MPFR_RNDN);
    mpfr_sub(x[P], x[P], x[T1], MPFR_RNDN);
    s[ADAM_P] = gen_store(x[P], out, ADAM_P);

    /* ---- fp32-class bound (spec/adam.md §4.2; coefficients ADAM-TOL-3) ---- */
    const gen_tol *K = gen_tol_model;
    const double l2 = hp->decoupled ? 0.0 : hp->weight_decay;
    const double decay = fabs(mpfr_get_d(x[DECAY], MPFR_RNDN));
    const double stepm = mpfr_get_d(x[STEPM], MPFR_RNDN);
    /* A: gradient with L2 term */
    double Eg = l2 > 0 ? l2 * E[ADAM_P] + K->grad * U * (fabs(grad) + l2 * (P0 + E[ADAM_P])) + ETA : 0;
    /* B: moments, propagated (contraction by beta) plus 6 roundings incl. storage */
    double Em = b1 * E[ADAM_M] + (1 - b1) * Eg +
                K->moment * U * (b1 * (M0 + E[ADAM_M]) + (1 - b1) * (Ge + Eg)) + 4 * ETA;
    double Eg2 = (2 * Ge + Eg) * Eg;
    double Ev = b2 * E[ADAM_V] + (1 - b2) * Eg2 +
                K->square * U * (b2 * (V0 + E[ADAM_V]) + (1 - b2) * (Ge * Ge + Eg2)) +
                4 * ETA * fmax(1, Ge + Eg); /* (1-b2)*g may underflow before the product with g */
    double Vbar = out->f32[ADAM_V];
    if (isinf(Vbar))
        Ev = 0; /* overflow of the stored v is judged exactly (§4.3) */
    double VV = Vbar, Evv = Ev, Evmax = 0;
    if (hp->amsgrad) {
        Evmax = fmax(E[ADAM_VMAX], Ev);
        VV = out->f32[ADAM_VMAX];
        Evv = Evmax;
    }
    /* C, D: direction numerator and denominator */
    double Mbar = fabs((double)out->f32[ADAM_M]);
    /* the proven model (ADAM-TOL-3): the propagated errors of D below without their roundings
     * (r = 0), and the whole quotient's rounding as one proven relative error kd */
    const double r = K->dir > 0 ? 0 : 1;
    const double kd = hp->profile == OC_ADAM_KERAS ? K->dir_keras : K->dir;
    double N, En, Vh, Evh;
    if (hp->profile == OC_ADAM_KERAS) {
        double c = mpfr_get_d(x[KCOEF], MPFR_RNDN), rc = (cx->r2 / 2 + cx->r1 + 3 * U) * 1.01;
        N = c * Mbar;
        En = c * Em * (1 + rc) + N * rc + r * U * N;
        Vh = VV;
        Evh = Evv;
    } else {
        double X = (Em + Mbar * cx->r1) / (cx->bc1 * (1 - cx->r1));
        N = Mbar / cx->bc1;
        En = X + r * 2 * U * (N + X);
        Vh = VV / cx->bc2 + hp->eps_root;
        double Y = (Evv + VV * cx->r2) / (cx->bc2 * (1 - cx->r2));
        Evh = Y + r * 3 * U * (Vh + Y) + ETA;
    }
    double Ed, Dlo = hp->eps * (1 - r * 2 * U);
    gen_tol_range((b1 == 0 || b1 >= 0.5) && hp->eps >= 0x1p-200 && hp->eps <= 0x1p20 && hp->eps_root <= 0x1p20 &&
                  cx->bc1 >= 0x1p-30 && cx->bc2 >= 0x1p-30 && stepm <= 0x1p20 &&
                  (stepm == 0 || stepm >= 0x1p-60) && decay <= 0.5 &&
                  (VV == 0 || isinf(VV) || (VV >= 0x1p-300 && VV <= 0x1p300)));
    if (isinf(Vh)) {
        Ed = 0; /* direction is exactly 0 */
    } else {
        double Es = r > 0 ? sqrt_error(Vh, Evh) : sqrt_propagated(Vh, Evh);
        double Dn = sqrt(Vh) + hp->eps;
        double Edn = Es + r * 2 * U * (Dn + Es);
        Dlo = fmax(Dn - Edn, Dlo);
        Ed = En / Dlo + N * Edn / (Dn * Dlo) + (r > 0 ? 3 : kd) * U * (N + En) / Dlo;
    }
    /* E: parameter update */
    double A = fabs(1 - decay);
    /* F: an intermediate of lr*m/(bc1*D) that underflows loses up to ETA absolutely, which the
     * remaining factors (each of lr, 1/bc1, 1/D in any order) can amplify */
    double underflow = 4 * ETA * fmax(1, stepm) * fmax(1, 1 / cx->bc1) * fmax(1, 1 / Dlo);
    double Ep = A * E[ADAM_P] + stepm * Ed +
                K->param * U * ((P0 + E[ADAM_P]) * (A + decay) + stepm * (dabs + Ed)) + underflow;

    E[ADAM_P] = gen_bound_up(Ep);
    E[ADAM_M] = gen_bound_up(Em);
    E[ADAM_V] = gen_bound_up(Ev);
    E[ADAM_VMAX] = hp->amsgrad ? gen_bound_up(Evmax) : 0;
    for (int k = 0; k < ADAM_NOUT; k++)
        out->tol[k] = E[k];
}
