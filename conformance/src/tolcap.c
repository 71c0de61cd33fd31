/* VEC-TOL-2: the derived cap on the per-entry bounds of the element-wise families (Adam, SGD,
 * Lion and their mixed-precision variants) and the pieces the AdamW routes (muon_route.c) and
 * the guarded step (step.c) build theirs from. The harness re-evaluates each family's fp32-class
 * bound (spec/adam.md ADAM-TOL-2 §4.2, spec/sgd.md §4, spec/lion.md §4, spec/mixed.md MP-TOL-1,
 * spec/guarded_step.md STEP-TOL-2) in binary64 from the case's own numbers: its hyper-parameters, inputs
 * and golden stored trajectory. It links neither the reference nor the generator (ctest layers_*): the formulas
 * below are written from the spec rules they cite. */
#include <math.h>
#include <stdlib.h>
#include "optcert/formats.h"
#include "tolcap.h"

#define U 0x1p-24      /* binary32 unit roundoff */
#define ETA 0x1p-149   /* absolute error of one binary32 operation in the subnormal range */
#define SLACK 0x1p-20  /* VEC-TOL-2: the harness's binary64 re-evaluation against the generator's */

/* The generator's coefficients (ADAM-TOL-3 table, "generator" column; SGD-TOL-3; LION-TOL-3). */
#define K_GRAD (2 + 0x1p-20)
#define K_MOMENT 6.0
#define K_SQUARE 6.0
#define K_NESTEROV (4 + 0x1p-20)
#define K_INTERP (4 + 0x1p-20)
#define K_PARAM 8.0
#define K_PARAM_LION 6.0

/* VEC-TOL-2: a bound carried to the next step, widened by the slack. */
static double widen(double e) { return nextafter(e * (1 + SLACK), INFINITY); }
double oc_tolcap_widen(double e) { return widen(e); }

/* One element step of an algorithm: before[a], after[a] the golden stored values of algorithm
 * state a (p first) before and after the step (after: before any 16-bit narrowing), g the
 * gradient, E[a] the carried bound, replaced by the step's. */
typedef struct step_ctx {
    const oc_hparams *hp;
    int64_t t;
    double bc1, bc2, r1, r2, keras_c; /* Adam: ADAM-BC-1 and ADAM-TOL-2 C */
} step_ctx;

typedef void (*element_fn)(const step_ctx *s, const double *before, const double *after,
                           double g, double *E);

/* ADAM-TOL-2 C: the relative error of 1 - b^t as an fp32 implementation may compute it. */
static double bias_error(double b, double t, double *bc)
{
    double bt = pow(b, t);
    *bc = 1 - bt;
    return (bt * (2 * U + (b > 0 ? t * fabs(log(b)) * U : 0)) + U * *bc + ETA) / *bc;
}

static void adam_begin(step_ctx *s)
{
    const oc_adam_hparams *hp = &s->hp->adam;
    s->r1 = bias_error(hp->beta1, (double)s->t, &s->bc1);
    s->r2 = bias_error(hp->beta2, (double)s->t, &s->bc2);
    s->keras_c = sqrt(s->bc2) / s->bc1; /* ADAM-PROF-KERAS */
}

/* ADAM-TOL-2 D: error of sqrt(x~) against sqrt(x) when |x~ - x| <= e, plus one rounding. */
static double root_error(double x, double e)
{
    double prop = x > 0 ? fmin(sqrt(e), e / sqrt(x)) : sqrt(e);
    return prop + U * (sqrt(x) + prop);
}

/* ADAM-TOL-2 A-F (spec/adam.md §4.2); states p, m, v, vmax. */
static void adam_element(const step_ctx *s, const double *before, const double *after, double g,
                         double *E)
{
    const oc_adam_hparams *hp = &s->hp->adam;
    const double b1 = hp->beta1, b2 = hp->beta2, eta = hp->profile == OC_ADAM_PAPER
                                                         ? hp->schedule_multiplier : 1.0;
    const double step = eta * hp->lr;                                         /* ADAM-UPD-1 */
    const double decay = hp->decoupled ? hp->weight_decay * (hp->profile == OC_ADAM_PAPER ? eta
                                                                                : hp->lr) : 0;
    const double l2 = hp->decoupled ? 0 : hp->weight_decay;                  /* ADAM-WD-1 */
    const double p0 = fabs(before[0]), m0 = fabs(before[1]), v0 = before[2];
    const double geff = fabs(fma(l2, before[0], hp->maximize ? -g : g)); /* ADAM-MAX-1 */
    /* A */
    double eg = l2 > 0 ? l2 * E[0] + K_GRAD * U * (fabs(g) + l2 * (p0 + E[0])) + ETA : 0;
    /* B */
    double em = b1 * E[1] + (1 - b1) * eg +
                K_MOMENT * U * (b1 * (m0 + E[1]) + (1 - b1) * (geff + eg)) + 4 * ETA;
    double eg2 = (2 * geff + eg) * eg;
    double ev = isinf(after[2]) ? 0 /* judged exactly, ADAM-STORE-2 */
              : b2 * E[2] + (1 - b2) * eg2 +
                K_SQUARE * U * (b2 * (v0 + E[2]) + (1 - b2) * (geff * geff + eg2)) +
                4 * ETA * fmax(1, geff + eg);
    double evmax = hp->amsgrad ? fmax(E[3], ev) : 0;                          /* ADAM-AMS-1 */
    double vv = hp->amsgrad ? after[3] : after[2], evv = hp->amsgrad ? evmax : ev;
    double mbar = fabs(after[1]), n, en, vh, evh;
    /* C, D */
    if (hp->profile == OC_ADAM_KERAS) {
        double rc = (s->r2 / 2 + s->r1 + 3 * U) * 1.01;
        n = s->keras_c * mbar;
        en = s->keras_c * em * (1 + rc) + n * rc + U * n;
        vh = vv;
        evh = evv;
    } else {
        double x = (em + mbar * s->r1) / (s->bc1 * (1 - s->r1));
        double y = (evv + vv * s->r2) / (s->bc2 * (1 - s->r2));
        n = mbar / s->bc1;
        en = x + 2 * U * (n + x);
        vh = vv / s->bc2 + hp->eps_root;
        evh = y + 3 * U * (vh + y) + ETA;
    }
    double ed = 0, dlo = hp->eps * (1 - 2 * U), dabs = 0;
    if (!isinf(vh)) { /* else the direction is exactly 0 */
        double es = root_error(vh, evh), dn = sqrt(vh) + hp->eps;
        double edn = es + 2 * U * (dn + es);
        dlo = fmax(dn - edn, dlo);
        ed = en / dlo + n * edn / (dn * dlo) + 3 * U * (n + en) / dlo;
        dabs = n / dn; /* ADAM-DIR-1 */
    }
    /* E, F */
    double a = fabs(1 - decay);
    double under = 4 * ETA * fmax(1, step) * fmax(1, 1 / s->bc1) * fmax(1, 1 / dlo);
    E[0] = widen(a * E[0] + step * ed +
                 K_PARAM * U * ((p0 + E[0]) * (a + decay) + step * (dabs + ed)) + under);
    E[1] = widen(em);
    E[2] = widen(ev);
    E[3] = hp->amsgrad ? widen(evmax) : 0;
}

/* SGD-TOL-1/2 (spec/sgd.md §4); states p, buf. */
static void sgd_element(const step_ctx *s, const double *before, const double *after, double g,
                        double *E)
{
    const oc_sgd_hparams *hp = &s->hp->sgd;
    const int torch = hp->profile == OC_SGD_TORCH, momentum = hp->momentum != 0;
    const double mu = hp->momentum, lr = hp->lr, damp = torch ? hp->dampening : mu;
    const double l2 = torch ? hp->weight_decay : 0, decay = torch ? 0 : lr * hp->weight_decay;
    const double p0 = fabs(before[0]), b0 = fabs(before[1]);
    const double geff = fma(l2, before[0], hp->maximize ? -g : g); /* SGD-MAX-1, SGD-WD-1 */
    double eg = l2 > 0 ? l2 * E[0] + K_GRAD * U * (fabs(g) + l2 * (p0 + E[0])) + ETA : 0;
    double eb = 0, ed = eg, d = geff;
    if (momentum) {
        if (torch && s->t == 1) /* SGD-BUF-1: buf = g */
            eb = eg + 2 * U * (fabs(geff) + eg) + ETA;
        else
            eb = mu * E[1] + (1 - damp) * eg +
                 K_MOMENT * U * (mu * (b0 + E[1]) + (1 - damp) * (fabs(geff) + eg)) + 4 * ETA;
        double wg = torch ? 1 : 1 - mu, bbar = fabs(after[1]);
        d = hp->nesterov ? mu * after[1] + wg * geff : after[1]; /* SGD-NEST-1/2 */
        if (hp->nesterov)
            ed = wg * eg + mu * eb + K_NESTEROV * U * (wg * (fabs(geff) + eg) + mu * (bbar + eb)) +
                 2 * ETA;
        else
            ed = eb;
    }
    double a = fabs(1 - decay);
    E[0] = widen(a * E[0] + lr * ed +
                 K_PARAM * U * ((p0 + E[0]) * (a + decay) + lr * (fabs(d) + ed)) +
                 4 * ETA * fmax(1, lr));
    E[1] = momentum ? widen(eb) : 0;
}

/* LION-TOL-1/2 (spec/lion.md §4); states p, m. */
static void lion_element(const step_ctx *s, const double *before, const double *after, double g,
                         double *E)
{
    (void)after;
    const oc_lion_hparams *hp = &s->hp->lion;
    const double b1 = hp->beta1, b2 = hp->beta2, lr = hp->lr, decay = hp->lr * hp->weight_decay;
    const double p0 = fabs(before[0]), m0 = fabs(before[1]), g0 = fabs(g);
    double cmag = b1 * (m0 + E[1]) + (1 - b1) * g0;
    /* |c| computed in binary64 (within 2^-51 cmag of the exact |c|) is below the widened E_c
     * whenever the exact |c| is below E_c; E_c = 0 (c and its error exactly zero) as is */
    double ec = b1 * E[1] + K_INTERP * U * cmag + (cmag > 0 ? 3 * ETA : 0);
    double cabs = fabs(b1 * before[1] + (1 - b1) * g);                   /* LION-DIR-1 */
    /* LION-SIGN-1: an infinite c has the same sign in every evaluation */
    double sign_error = isfinite(cabs) && cabs <= widen(ec) && ec > 0 ? 2 : 0;
    double a = fabs(1 - decay);
    E[0] = widen(a * E[0] + lr * sign_error +
                 K_PARAM_LION * U * ((p0 + E[0]) * (a + decay) + lr) + 4 * ETA);
    E[1] = widen(b2 * E[1] + K_MOMENT * U * (b2 * (m0 + E[1]) + (1 - b2) * g0) + 4 * ETA);
}

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

/* The element step of algorithm a (Adam, SGD, Lion), NULL for the others. */
static element_fn element_of(const oc_algo *a)
{
    return a == &oc_algo_adam ? adam_element : a == &oc_algo_sgd ? sgd_element
         : a == &oc_algo_lion ? lion_element : NULL;
}

static step_ctx begin_step(const oc_algo *a, const oc_hparams *hp, int64_t t)
{
    step_ctx ctx = {hp, t, 0, 0, 0, 0, 0};
    if (a == &oc_algo_adam)
        adam_begin(&ctx);
    return ctx;
}

void oc_tolcap_element(const oc_algo *a, const oc_hparams *hp, int64_t t, const double *before,
                       const double *after, double g, double *E)
{
    step_ctx ctx = begin_step(a, hp, t);
    element_of(a)(&ctx, before, after, g, E);
}

/* STEP-TOL-2 (b), spec/guarded_step.md: the sensitivity of one element's step to an error eg of its
 * gradient, bounded from the golden state before the step (before, its bounds E). */
void oc_tolcap_grad_sensitivity(const oc_algo *a, const oc_hparams *hp, int64_t t,
                                const double *before, const double *E, double g, double eg,
                                double *add)
{
    for (int k = 0; k < OC_MAX_STATE; k++)
        add[k] = 0;
    if (eg == 0)
        return;
    if (a == &oc_algo_adam) { /* the torch formula: direction (a + k x) / (sqrt(b + d x^2) + eps) */
        const oc_adam_hparams *h = &hp->adam;
        double l2 = h->decoupled ? 0 : h->weight_decay;
        double x = fabs(g + l2 * before[0]) + l2 * E[0];
        double bc1 = 1 - pow(h->beta1, (double)t), bc2 = 1 - pow(h->beta2, (double)t);
        double am = h->beta1 * (fabs(before[1]) + E[1]) / bc1, k = (1 - h->beta1) / bc1;
        double bhi = h->beta2 * (before[2] + E[2]) / bc2 + h->eps_root;
        double blo = h->beta2 * fmax(0, before[2] - E[2]) / bc2 + h->eps_root;
        double dd = (1 - h->beta2) / bc2, xmin = fmax(0, x - eg);
        double smin = sqrt(blo + dd * xmin * xmin);
        double lip = (k * (sqrt(bhi) + h->eps) + am * sqrt(dd)) / ((smin + h->eps) * (smin + h->eps));
        add[0] = h->lr * lip * eg;
        add[1] = (1 - h->beta1) * eg;
        add[2] = (1 - h->beta2) * (2 * x + eg) * eg;
    } else if (a == &oc_algo_sgd) { /* torch: buf and p affine in g (buf = g at step 1) */
        const oc_sgd_hparams *h = &hp->sgd;
        double eb = h->momentum == 0 ? 0 : (t == 1 ? 1 : 1 - h->dampening) * eg;
        add[0] = h->lr * (h->momentum == 0 ? eg : h->nesterov ? eg + h->momentum * eb : eb);
        add[1] = eb;
    } else { /* Lion: the sign of c may flip within its bound */
        const oc_lion_hparams *h = &hp->lion;
        double m0 = fabs(before[1]) + E[1];
        double c = h->beta1 * before[1] + (1 - h->beta1) * g;
        double ec = h->beta1 * E[1] + K_INTERP * U * (h->beta1 * m0 + (1 - h->beta1) * fabs(g)) +
                    3 * ETA + (1 - h->beta1) * eg;
        add[0] = fabs(c) <= 2 * widen(ec) ? 2 * h->lr : 0;
        add[1] = (1 - h->beta2) * eg;
    }
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
    element_fn element = element_of(c->algo);
    const int mixed = c->storage.param != OC_FMT_F32, nalg = c->nstate - mixed;
    /* algorithm state a sits in output slot a + mixed, p in the master's (MP-STORE-1) */
    double *E = calloc(c->n * OC_MAX_STATE, sizeof(double));
    if (!E)
        return oc_fail(d, OC_ERR_INTERNAL, "out of memory checking tolerances of %s", path);
    oc_status s = OC_OK;
    for (size_t r = 0; r < c->steps && s == OC_OK; r++) {
        step_ctx ctx = begin_step(c->algo, &c->hp, c->first_step + (int64_t)r);
        for (size_t j = 0; j < c->n && s == OC_OK; j++) {
            double before[OC_MAX_STATE] = {0}, after[OC_MAX_STATE] = {0}, *e = E + j * OC_MAX_STATE;
            size_t i = r * c->n + j;
            for (int a = 0; a < nalg; a++) {
                int k = a + mixed;
                before[a] = r == 0 ? c->in[k][j] : c->exp[k].stored[i - c->n];
                /* the fp32 value before a 16-bit narrowing: RN32 of the golden f64 */
                after[a] = c->fmt[k] == OC_FMT_F32 ? c->exp[k].stored[i] : (float)c->exp[k].f64[i];
            }
            element(&ctx, before, after, c->g[i], e);
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
