/* Newton–Schulz orthogonalisation, the matrix core of Muon (spec/muon.md, rules NS-*). */
#ifndef OPTCERT_NEWTON_SCHULZ_H
#define OPTCERT_NEWTON_SCHULZ_H

#include <stddef.h>
#include "optcert/status.h"
#include <string.h> /* for the ACSL below (valid_read_string) */

#define OC_NS_MAX_COEFS 16      /* coefficient tuples in one schedule           NS-HP-1 */
#define OC_NS_MAX_STEPS 99      /* torch.optim.Muon rejects ns_steps >= 100     NS-HP-1 */
#define OC_NS_MAX_ELEMS (1u << 24) /* rows * cols                               NS-IN-1 */
#define OC_NS_MAX_COEF_ABS 128.0   /* |a|, |b|, |c|                             NS-HP-1 */

/* Named coefficient sets (NS-PROF-*): the vectors carry the tuples explicitly; the profile
 * names where they come from and selects the reference's canonical set (oc_ns_profile_defaults). */
typedef enum oc_ns_profile {
    OC_NS_SIMPLE = 0,           /* Keller (3.4445, -4.7750, 2.0315), x / (||x|| + eps)   NS-PROF-SIMPLE */
    OC_NS_QUINTIC,              /* Megatron/Emerging default, modded-nanogpt 5 tuples     NS-PROF-QUINTIC */
    OC_NS_POLAR_EXPRESS,        /* Emerging's 8 Polar Express tuples, max(||x||, eps)     NS-PROF-POLAR */
    OC_NS_POLAR_EXPRESS_SAFETY, /* same tuples, x / (1.01 ||x|| + 1e-7) (paper's code)   NS-PROF-POLAR-SAFETY */
    OC_NS_AOL,                  /* Emerging's 4 "aol" tuples, max(||x||, eps)             NS-PROF-AOL */
    OC_NS_CANS,                 /* Emerging's 5 "cans" tuples, repeat-last, max(.., eps)  NS-PROF-CANS */
    OC_NS_DEEPSEEKV4,           /* Emerging's "deepseekv4": 8 simple + 2 x (2, -1.5, 0.5) NS-PROF-DEEPSEEKV4 */
    OC_NS_CUBIC5,               /* Emerging's 5 "cubic5" tuples (c = 0), cycle            NS-PROF-CUBIC5 */
    OC_NS_PROFILE_COUNT
} oc_ns_profile;

typedef enum oc_ns_schedule {
    OC_NS_CYCLE = 0,    /* step i uses tuple i mod ncoef                          NS-SCHED-1 */
    OC_NS_REPEAT_LAST   /* step i uses tuple min(i, ncoef - 1)                    NS-SCHED-1 */
} oc_ns_schedule;

typedef enum oc_ns_eps_mode {
    OC_NS_EPS_ADD = 0,  /* d = s*||G||_F + eps        (Keller, Moonlight, optax)  NS-NORM-1 */
    OC_NS_EPS_MAX       /* d = max(s*||G||_F, eps)    (torch clamp, F.normalize)  NS-NORM-1 */
} oc_ns_eps_mode;

typedef struct oc_ns_hparams {
    oc_ns_profile profile;
    int steps;                          /* 1 .. OC_NS_MAX_STEPS                    NS-HP-1 */
    int ncoef;                          /* 1 .. OC_NS_MAX_COEFS                    NS-HP-1 */
    double coef[OC_NS_MAX_COEFS][3];    /* (a, b, c), finite, |.| <= 128           NS-HP-1 */
    oc_ns_schedule schedule;
    oc_ns_eps_mode eps_mode;
    double eps;                         /* > 0, finite                             NS-HP-1 */
    double norm_scale;                  /* s in [1, 2]                             NS-HP-1 */
} oc_ns_hparams;

/*@ // NS-HP-1, NS-IN-1: what oc_ns_check accepts.
    predicate coef_ok(oc_ns_hparams *hp) =
        \forall integer t, u; 0 <= t < hp->ncoef && 0 <= u < 3 ==>
            \is_finite(hp->coef[t][u]) && -128.0 <= hp->coef[t][u] <= 128.0;
    predicate ns_hparams_ok(oc_ns_hparams *hp, integer rows, integer cols) =
        1 <= rows && 1 <= cols && rows * cols <= OC_NS_MAX_ELEMS &&
        1 <= hp->steps <= OC_NS_MAX_STEPS && 1 <= hp->ncoef <= OC_NS_MAX_COEFS &&
        coef_ok(hp) &&
        (hp->schedule == OC_NS_CYCLE || hp->schedule == OC_NS_REPEAT_LAST) &&
        (hp->eps_mode == OC_NS_EPS_ADD || hp->eps_mode == OC_NS_EPS_MAX) &&
        \is_finite(hp->eps) && 0x1p-149 <= hp->eps <= 1.0 &&
        \is_finite(hp->norm_scale) && 1.0 <= hp->norm_scale <= 2.0 &&
        0 <= hp->profile < OC_NS_PROFILE_COUNT;
*/

const char *oc_ns_profile_name(oc_ns_profile pr);
/*@ requires name_ok: valid_read_string(name);
    requires out_ok: \valid(out);
    assigns *out;
    ensures status: \result == OC_OK || \result == OC_ERR_BAD_PROFILE;
    ensures known: \result == OC_OK ==> 0 <= *out < OC_NS_PROFILE_COUNT; */
oc_status oc_ns_profile_parse(const char *name, oc_ns_profile *out);

/* The canonical tuples of a profile (NS-PROF-*), rounded to binary32 as the vectors carry
 * them: fills coef[0 .. *ncoef-1], *schedule, *eps_mode, *eps, *norm_scale and *steps (the
 * profile's default iteration count). OC_ERR_BAD_PROFILE for an unknown profile. */
/*@ requires valid_hp: \valid(hp);
    assigns *hp;
*/
oc_status oc_ns_profile_defaults(oc_ns_profile pr, oc_ns_hparams *hp);

/* NS-SCHED-1: the index of the tuple iteration i (from 0) uses; i >= 0, ncoef >= 1. */
/*@ requires tuples: \valid_read(hp) && 1 <= hp->ncoef <= OC_NS_MAX_COEFS && 0 <= i;
    assigns \nothing;
    ensures index_range: 0 <= \result < hp->ncoef;
*/
int oc_ns_tuple_index(const oc_ns_hparams *hp, int i);

/* NS-HP-1 and NS-IN-1: hyper-parameters and shape. */
/*@ requires valid_hp: \valid_read(hp);
    assigns \nothing;
    ensures ok: \result == OC_OK ==> ns_hparams_ok(hp, rows, cols);
*/
oc_status oc_ns_check(const oc_ns_hparams *hp, size_t rows, size_t cols);

/* Doubles of workspace oc_ref_newton_schulz needs for a rows x cols input:
 * 2*k*n + 2*k*k + 2*k with k = min(rows, cols), n = max(rows, cols). */
/*@ assigns \nothing; */
size_t oc_ns_work_len(size_t rows, size_t cols);

/* Orthogonalises the row-major rows x cols fp32 matrix g into out (fp32, row-major, same
 * shape), computing in binary64 in the caller's workspace `work` (work_len doubles, at least
 * oc_ns_work_len). g must be finite. On error nothing is written to out (NS-ERR-1);
 * OC_ERR_NONFINITE if an intermediate entry leaves [-2^64, 2^64] (NS-DOM-1: only possible for
 * coefficient schedules that diverge). */
/*@ requires valid_hp: \valid_read(hp);
    requires valid_io: ns_hparams_ok(hp, rows, cols) ==>
             \valid_read(g + (0 .. rows * cols - 1)) && \valid(out + (0 .. rows * cols - 1));
    requires valid_work: ns_hparams_ok(hp, rows, cols) && work_len >= 1 ==>
             \valid(work + (0 .. work_len - 1));
    requires separated_io: \separated(out + (0 .. rows * cols - 1), g + (0 .. rows * cols - 1));
    requires separated_work: \separated(work + (0 .. work_len - 1), g + (0 .. rows * cols - 1),
                        out + (0 .. rows * cols - 1));
    assigns out[0 .. rows * cols - 1], work[0 .. work_len - 1];
    behavior invalid:
      assumes !ns_hparams_ok(hp, rows, cols);
      assigns \nothing;
      ensures rejected: \result != OC_OK;
    behavior maybe_valid:
      assumes ns_hparams_ok(hp, rows, cols);
    complete behaviors;
    disjoint behaviors;
*/
oc_status oc_ref_newton_schulz(const oc_ns_hparams *hp, size_t rows, size_t cols, const float *g,
                               float *out, double *work, size_t work_len);

/* The pieces of oc_ref_newton_schulz (conformance/mutants/newton_schulz.c recombines them), on
 * X, k x n with k = min(rows, cols) <= n (NS-SHAPE-1), in binary64.
 * NS-ERR-1: the checks of oc_ref_newton_schulz (hp not NULL), all made before any write. */
/*@ requires valid_hp: \valid_read(hp);
    assigns \nothing;
    ensures ok: \result == OC_OK ==> ns_hparams_ok(hp, rows, cols);
    ensures work_enough: \result == OC_OK ==> work_len >= 2 * (rows * cols) +
        2 * ((rows < cols ? rows : cols) * (rows < cols ? rows : cols)) +
        2 * (rows < cols ? rows : cols);
*/
oc_status oc_ns_check_args(const oc_ns_hparams *hp, size_t rows, size_t cols, const float *g,
                           const float *out, const double *work, size_t work_len);
/* NS-SHAPE-1, NS-IN-1: X from g (transposed if tall, rows > cols); OC_ERR_NONFINITE for a
 * non-finite entry. */
/*@ requires shape: 1 <= k <= n && k * n <= OC_NS_MAX_ELEMS;
    requires layout: tall != 0 ? cols == k : cols == n;
    requires valid_bufs: \valid_read(g + (0 .. k * n - 1)) && \valid(x + (0 .. k * n - 1));
    assigns x[0 .. k * n - 1];
*/
oc_status oc_ns_load(const float *g, size_t cols, int tall, size_t k, size_t n, double *x);
/* NS-NORM-1: ||X||_F of len entries; the divisor s ||G|| + eps or max(s ||G||, eps) of a norm;
 * X / d (NS-DOM-1: OC_ERR_NONFINITE when an entry leaves [-2^64, 2^64]). */
/*@ requires valid_x: \valid_read(x + (0 .. len - 1));
    assigns \nothing;
*/
double oc_ns_frobenius(const double *x, size_t len);
/*@ requires valid_hp: \valid_read(hp);
    assigns \nothing;
*/
double oc_ns_divisor(const oc_ns_hparams *hp, double norm);
/*@ requires valid_x: \valid(x + (0 .. len - 1));
    assigns x[0 .. len - 1];
*/
oc_status oc_ns_normalise(double *x, size_t len, double d);
/* NS-SCHED-1: the tuple (a, b, c) of iteration i. */
/*@ requires tuples: \valid_read(hp) && 1 <= hp->ncoef <= OC_NS_MAX_COEFS && 0 <= i;
    requires valid_abc: \valid(abc + (0 .. 2)) && \separated(abc + (0 .. 2), hp);
    assigns abc[0 .. 2];
*/
void oc_ns_tuple(const oc_ns_hparams *hp, int i, double abc[3]);
/* NS-ITER-1: A = X X^T (k x k); one iteration X <- a X + (b A + c A A) X given A, B and X' in
 * bm (k x k) and t (k x n) (NS-DOM-1 as above). */
/*@ requires shape: 1 <= k <= n && k * n <= OC_NS_MAX_ELEMS;
    requires valid_bufs: \valid_read(x + (0 .. k * n - 1)) && \valid(a + (0 .. k * k - 1));
    requires separated: \separated(a + (0 .. k * k - 1), x + (0 .. k * n - 1));
    assigns a[0 .. k * k - 1];
*/
void oc_ns_gram(const double *x, size_t k, size_t n, double *a);
/*@ requires shape: 1 <= k <= n && k * n <= OC_NS_MAX_ELEMS;
    requires valid_xt: \valid(x + (0 .. k * n - 1)) && \valid(t + (0 .. k * n - 1));
    requires valid_abm: \valid_read(a + (0 .. k * k - 1)) && \valid(bm + (0 .. k * k - 1));
    requires valid_abc: \valid_read(abc + (0 .. 2));
    requires separated: \separated(x + (0 .. k * n - 1), t + (0 .. k * n - 1), a + (0 .. k * k - 1),
                        bm + (0 .. k * k - 1), abc + (0 .. 2));
    assigns x[0 .. k * n - 1], t[0 .. k * n - 1], bm[0 .. k * k - 1];
*/
oc_status oc_ns_iteration(double *x, size_t k, size_t n, const double abc[3], const double *a,
                          double *bm, double *t);
/* NS-STORE-1: out = X (transposed back if tall, n = max(rows, cols)), each entry rounded once
 * to binary32. */
/*@ requires shape: 1 <= rows && 1 <= cols && rows * cols <= OC_NS_MAX_ELEMS;
    requires layout: tall != 0 ? n == rows : n == cols;
    requires valid_bufs: \valid_read(x + (0 .. rows * cols - 1)) &&
             \valid(out + (0 .. rows * cols - 1));
    assigns out[0 .. rows * cols - 1];
*/
void oc_ns_store(const double *x, size_t rows, size_t cols, int tall, size_t n, float *out);

#endif
