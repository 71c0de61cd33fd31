/* Newton–Schulz orthogonalisation, the matrix core of Muon (spec/muon.md, rules NS-*). */
#ifndef OPTCERT_NEWTON_SCHULZ_H
#define OPTCERT_NEWTON_SCHULZ_H

#include <stddef.h>
#include "optcert/status.h"

#define OC_NS_MAX_COEFS 16      /* coefficient tuples in one schedule           NS-HP-1 */
#define OC_NS_MAX_STEPS 99      /* torch.optim.Muon rejects ns_steps >= 100     NS-HP-1 */
#define OC_NS_MAX_ELEMS (1u << 24) /* rows * cols                               NS-IN-1 */
#define OC_NS_MAX_COEF_ABS 128.0   /* |a|, |b|, |c|                             NS-HP-1 */

/* Named coefficient sets (NS-PROF-*): the vectors carry the tuples explicitly; the profile
 * names where they come from and selects the reference's canonical set for the mutants. */
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

typedef enum oc_ns_mutant {
    OC_NS_CORRECT = 0,
    OC_NS_MUT_WRONG_COEFFICIENTS,   /* the simple set (the quintic set for the simple profile) */
    OC_NS_MUT_SCHEDULE_REVERSED,    /* tuples applied last to first */
    OC_NS_MUT_GRAM_WRONG_SIDE,      /* square X: A = X^T X, still left-multiplied */
    OC_NS_MUT_SPECTRAL_NORM,        /* G / (sigma_max(G) + eps) instead of the Frobenius norm */
    OC_NS_MUT_MAX_NORM,             /* G / (max |g_ij| + eps) */
    OC_NS_MUT_EPS_OMITTED,          /* d = s*||G||_F */
    OC_NS_MUT_EPS_MODE_SWAPPED,     /* add <-> max */
    OC_NS_MUT_ONE_STEP_FEWER,
    OC_NS_MUT_ONE_STEP_MORE,
    OC_NS_MUTANT_COUNT
} oc_ns_mutant;

const char *oc_ns_mutant_name(oc_ns_mutant mu);
const char *oc_ns_mutant_description(oc_ns_mutant mu);
const char *oc_ns_profile_name(oc_ns_profile pr);
oc_status oc_ns_profile_parse(const char *name, oc_ns_profile *out);

/* The canonical tuples of a profile (NS-PROF-*), rounded to binary32 as the vectors carry
 * them: fills coef[0 .. *ncoef-1], *schedule, *eps_mode, *eps, *norm_scale and *steps (the
 * profile's default iteration count). OC_ERR_BAD_PROFILE for an unknown profile. */
oc_status oc_ns_profile_defaults(oc_ns_profile pr, oc_ns_hparams *hp);

/* NS-SCHED-1: the index of the tuple iteration i (from 0) uses; i >= 0, ncoef >= 1. */
int oc_ns_tuple_index(const oc_ns_hparams *hp, int i);

/* NS-HP-1 and NS-IN-1: hyper-parameters and shape. */
oc_status oc_ns_check(const oc_ns_hparams *hp, size_t rows, size_t cols);

/* Doubles of workspace oc_ref_newton_schulz needs for a rows x cols input:
 * 2*k*n + 2*k*k + 2*k with k = min(rows, cols), n = max(rows, cols). */
size_t oc_ns_work_len(size_t rows, size_t cols);

/* Orthogonalises the row-major rows x cols fp32 matrix g into out (fp32, row-major, same
 * shape), computing in binary64 in the caller's workspace `work` (work_len doubles, at least
 * oc_ns_work_len). g must be finite. On error nothing is written to out (NS-ERR-1);
 * OC_ERR_NONFINITE if an intermediate entry leaves [-2^64, 2^64] (NS-DOM-1: only possible for
 * coefficient schedules that diverge). */
oc_status oc_ref_newton_schulz(const oc_ns_hparams *hp, size_t rows, size_t cols, const float *g,
                               float *out, double *work, size_t work_len, oc_ns_mutant mutant);

#endif
