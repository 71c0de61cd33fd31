/* Generic builder for one vector family: the JSON document and its safetensors file
 * (spec/vectors.md). Algorithm generators (gen_adam.c, ...) fill it. */
#ifndef OPTCERT_GEN_FAMILY_H
#define OPTCERT_GEN_FAMILY_H

#include <jansson.h>
#include <mpfr.h>
#include <stdint.h>
#include "optcert/formats.h"
#include "st_writer.h"

typedef struct gen_options {
    const char *level;  /* "ci" or "cert" */
    mpfr_prec_t prec;   /* working precision, >= 200 */
    unsigned long long seed;
} gen_options;

typedef struct family {
    char name[64];
    json_t *doc;        /* the whole JSON document */
    json_t *groups;     /* doc.testGroups */
    json_t *group;      /* current group */
    st_writer *tensors;
    int next_tcid;
    int count;
} family;

int family_init(family *f, const char *name, const char *algorithm, const char *profile,
                const char *const *rules, const gen_options *opt);
void family_free(family *f);
/* Scalar families keep their values inline in the JSON (VEC-FMT-9): no tensors file. */
void family_inline(family *f);
void family_note(family *f, const char *flag, const char *bug_type, const char *description,
                 const char *effect, const char *link);
/* Starts a new test group unless `hparams` equals the current group's (the group takes
 * ownership of hparams). */
void family_group(family *f, const char *type, json_t *hparams);
/* Appends a test to the current group, assigning the next tcId; returns that tcId. */
int family_test(family *f, json_t *test);
/* Writes <dir>/<name>/<name>.json and .safetensors; returns 0 on success. */
int family_save(family *f, const char *dir);

/* Writes the 2-D tensor "<id>/<name>" and stores its key in obj[field] (VEC-FMT-7). */
void family_add_tensor(family *f, int id, const char *name, const char *dtype, size_t rows,
                       size_t cols, const void *data, json_t *obj, const char *field);

/* Hex-float JSON string of an exactly representable value (VEC-FMT-1). */
json_t *hexfloat(double x);

#define GEN_MAX_STATE 4

/* One element's golden outputs after a step (VEC-FMT-5). */
typedef struct gen_golden {
    float f32[GEN_MAX_STATE];
    double f64[GEN_MAX_STATE];
    double tol[GEN_MAX_STATE];
} gen_golden;

/* How an algorithm advances one element exactly (and its fp32-class bound). */
typedef struct gen_stepper {
    const char *group_type;            /* testGroups[].type */
    const char *const *state_names;    /* parameter first */
    int nstate;                        /* state tensors a case uses */
    void *ctx;
    void (*begin_step)(void *ctx, int64_t t);
    /* state: stored golden values (updated); bound: accumulated bound (updated). */
    void (*element)(void *ctx, float grad, float *state, double *bound, gen_golden *out);
} gen_stepper;

/* One test case before it is computed (VEC-FMT-3, VEC-FMT-4). */
typedef struct gen_case {
    const char *comment;
    const char *flags[6];
    const char *rules[8];
    const char *result; /* "valid", "invalid", "acceptable" */
    int64_t first_step;
    size_t steps, n;
    oc_storage storage;       /* spec/mixed.md; zero = everything fp32 */
    int resume;               /* VEC-FMT-20: 1 writes "resumeAt": resume_at */
    int64_t resume_at;
    float *in[GEN_MAX_STATE]; /* [n] each; with a 16-bit parameter in[0] is the fp32 master
                                 and the parameter input is its write-back (MP-STORE-1) */
    float *g;                 /* [steps * n] */
} gen_case;

/* Rounds x to its binary32 storage value (ties to even), records that value and x's binary64
 * rounding as output k, and leaves the stored value in x for the next step. */
float gen_store(mpfr_t x, gen_golden *out, int k);

/* x rounded to format f, ties to even, overflow to infinity (MP-CONV-1), computed
 * independently of ref/formats.c. */
double gen_round_format(oc_format f, double x);

/* A computed error bound made safe against its own binary64 rounding: times 1 + 2^-40, then
 * rounded up to the next binary64. */
double gen_bound_up(double e);

/* The rounding coefficients of the fp32-class bounds of the element-wise families, in units of
 * u = 2^-24 of the magnitudes the bounds use (spec/adam.md ADAM-TOL-2, ADAM-TOL-3,
 * spec/sgd.md SGD-TOL-2, spec/lion.md LION-TOL-2): the generator's own (gen_tol_generator), or
 * the ones Gappa proved, which `optcert-gen tolcheck` substitutes to compare the two bounds on
 * every entry. */
typedef struct gen_tol {
    double grad;       /* g + wd*p (L2 gradient), not stored */
    double moment;     /* b*m + (1-b)*g (Adam m, SGD buffer, Lion m), both storage roundings */
    double square;     /* b2*v + (1-b2)*g^2, both storage roundings */
    double nesterov;   /* SGD's Nesterov direction, not stored */
    double interp;     /* Lion's c = b1*m + (1-b1)*g, not stored */
    double param;      /* Adam and SGD parameter update, both storage roundings */
    double param_lion; /* Lion's parameter update, both storage roundings */
    /* Adam's direction: 0 selects the generator's per-operation analysis (ADAM-TOL-2 D); else
     * the proven relative error of the whole quotient (torch/optax/paper, keras), ADAM-TOL-3 */
    double dir, dir_keras;
    double clip;       /* the clipped gradient from the implementation's norm (clip_coeff.g) */
} gen_tol;

extern const gen_tol gen_tol_generator;
extern const gen_tol *gen_tol_model; /* the model the bounds use; &gen_tol_generator */

/* `optcert-gen tolcheck`: while `proven` is set, every element step of a valid case is also
 * computed with the proven model, and its bounds compared with the generator's (family.c). */
typedef struct gen_tolcheck {
    const gen_tol *proven;
    double factor;      /* the looseness factor of the family being generated */
    long entries, unsound, loose, outside;
    double min_ratio, max_ratio; /* generator's bound / proven bound */
    /* the 16-bit narrowings (spec/mixed.md MP-TOL-3): the generator's narrowed bound against
     * the proven one from the same fp32 bound */
    long narrowings, narrow_boundary, narrow_unsound, narrow_wider; /* boundary: bound > 0 */
} gen_tolcheck;

extern gen_tolcheck *gen_tolcheck_active;

/* Counts one entry of the active check: the generator's bound `gen` against the proven bound
 * `proven` (tolcheck.c). */
void gen_tolcheck_entry(double gen, double proven);

/* The proven bound on the 16-bit value an fp32 implementation stores when its binary32 value
 * lies within E of the golden binary32 value b (spec/mixed.md MP-TOL-3): the largest
 * |RN16(a) - RN16(b)| over the binary32 a in [b - E, b + E], in MPFR (tolcheck.c). */
double gen_tolcheck_narrow(oc_format f, double b, double E);

/* spec/clip.md CLIP-TOL-3: the clipped gradients `golden` (n values of one parameter, written
 * with the relative bound grad_rel_tol) against the proven bound composed from the norm's
 * bound (the 2-norm over m elements in `tensors` tensors per rank and `ranks` ranks, or the
 * exact inf-norm), the exact norm and max_norm (tolcheck.c). */
void gen_tolcheck_clip(size_t m, int tensors, int ranks, int inf_norm, double max_norm,
                       double norm, double grad_rel_tol, const float *golden, size_t n);

/* Counts an element step whose inputs lie outside the ranges the Gappa proofs cover (only
 * while tolcheck runs the proven model). */
void gen_tol_range(int inside);

/* Allocates zeroed inputs for n elements and `steps` gradients. */
void gen_case_alloc(gen_case *c, size_t n, size_t steps);

/* Computes a valid case with s, writes its tensors and JSON under the group of `hparams`
 * (owned), and frees the case's buffers. */
void family_emit(family *f, const gen_stepper *s, json_t *hparams, gen_case *c);

#endif
