/* Loading a vector family (spec/vectors.md) into memory, fully validated. */
#ifndef OPTCERT_VECTORS_H
#define OPTCERT_VECTORS_H

#include <jansson.h>
#include <stdint.h>
#include "algos.h"
#include "diag.h"
#include "safetensors.h"

typedef enum oc_result { OC_RESULT_VALID, OC_RESULT_INVALID, OC_RESULT_ACCEPTABLE } oc_result;

typedef struct oc_expect {
    double *stored; /* [steps * n] correctly rounded storage values (binary32 ones widened) */
    double *f64;    /* [steps * n] exact values rounded to binary64 */
    double *tol;    /* [steps * n] absolute bound of the implementation class fp32 (or fp64) */
} oc_expect;

typedef struct oc_case {
    int tcid;
    const char *comment;
    oc_result result;
    json_t *flags, *rules;  /* borrowed from the document */
    const char *family;     /* the family's name (borrowed): what an implementation lists */
    const oc_algo *algo;
    oc_hparams hp;
    int64_t first_step;
    size_t steps, n;
    int64_t resume_at;       /* element-wise: the steps run before the state is saved and
                              * restored (VEC-RESUME-1, "resumeAt"); -1: not a resume case */
    int nstate;              /* outputs used, named by names[] */
    oc_storage storage;      /* element-wise: where values are stored (spec/mixed.md) */
    const char *names[OC_MAX_STATE]; /* output names: algo->state_names, or with mixed
                                        precision p, master, then the state tensors */
    oc_format fmt[OC_MAX_STATE];     /* element-wise: storage format of each output */
    int precision[OC_MAX_STATE];     /* significand bits of each output: 8, 11, 24, 53 */
    float *in[OC_MAX_STATE]; /* elementwise: input state [n] (16-bit values widened) */
    float *g;                /* elementwise: gradients [steps * n] */
    int64_t *positions;      /* schedules: evaluation points [n]; loss scale: found_inf
                              * [steps]; clip: view metadata (conformance/src/clip.c) */
    oc_expect exp[OC_MAX_STATE];
    json_t *test;            /* the test object (borrowed): muon_route reads its parameter */
    /* VEC-DIAG-1: the reference's mutants' runs on this case, kept for later diagnoses of it
     * where a caller asked for that (oc_keep_mutant_runs, judge.h); NULL: run each time */
    struct oc_mutant_runs *mutant_runs;
} oc_case;

typedef struct oc_family {
    char *json_path;
    const char *name, *algorithm, *profile; /* borrowed from doc */
    json_t *doc;
    oc_case *cases;
    size_t ncases;
} oc_family;

/* Elementwise algorithms' load_case: n, steps, firstStep, input tensors, expected tensors
 * (VEC-FMT-4, VEC-FMT-5). */
oc_status oc_load_tensor_case(const char *path, const oc_st_file *st, json_t *test, oc_case *c,
                              oc_diag *d);

/* Reads the tensor whose key is obj[key] (dtype dt, shape [rows, cols]) into a new buffer. */
oc_status oc_tensor_ref(const oc_st_file *st, const char *path, int tcid, json_t *obj,
                        const char *key, oc_dtype dt, size_t rows, size_t cols, void **out,
                        oc_diag *d);

/* VEC-FMT-18: every tol[i] finite, >= 0 and <= max; else OC_ERR_FORMAT naming the case and the
 * entry `what`[i]. */
oc_status oc_check_tol(const char *path, int tcid, const char *what, const double *tol, size_t n,
                       double max, oc_diag *d);

/* VEC-TOL-1: the per-entry bounds tol [rows, cols] of an output stored in format fmt, each at
 * most 2^-4 S + floor(fmt), S the largest finite magnitude of that element so far (the input
 * in[col] when in is not NULL, the golden f64 rows up to this one). */
oc_status oc_check_tol_entries(const char *path, int tcid, const char *what, const double *tol,
                               const double *f64, const float *in, size_t rows, size_t cols,
                               oc_format fmt, oc_diag *d);

/* VEC-TOL-1: a matrix output's [OC_NCLASSES, 2] table (T_C, B_C per class, VEC-FMT-12), each
 * at most 2^24 u_C ||f64||_F (B_C twice that) + 2^-100; f64 has n entries. */
oc_status oc_check_tol_classes(const char *path, int tcid, const char *what, const double *tol,
                               const double *f64, size_t n, oc_diag *d);

/* Reads an integer field of a test in [lo, hi]. */
oc_status oc_get_int(const char *path, int tcid, json_t *obj, const char *key, int64_t lo,
                     int64_t hi, int64_t *out, oc_diag *d);

/* Loads <json_path> and the safetensors file it names (same directory), if any. */
oc_status oc_family_load(const char *json_path, oc_family *fam, oc_diag *d);
void oc_family_free(oc_family *fam);

/* Lists the families under dir (sub-directories <name>/<name>.json), sorted by name.
 * *paths is a NULL-terminated array the caller frees with oc_free_list. */
oc_status oc_family_list(const char *dir, char ***paths, oc_diag *d);
void oc_free_list(char **list);

#endif
