/* Running an implementation over a family and judging its outputs: through the plugin ABI
 * (include/optcert/impl.h) or from a results file (spec/vectors.md §2). */
#ifndef OPTCERT_JUDGE_H
#define OPTCERT_JUDGE_H

#include "optcert/impl.h"
#include "vectors.h"

/* tf32 and bf16 (matrix-product operand precisions, NS-TOL-1) judge the elementwise families
 * like fp32: they have no matrix products. */
typedef enum oc_class { OC_CLASS_EXACT, OC_CLASS_FP32, OC_CLASS_TF32, OC_CLASS_BF16 } oc_class;
/* The classes in the order of the rows of a matrix-judged output's `tol` tensor (VEC-FMT-12). */
enum { OC_NCLASSES = OC_CLASS_BF16 + 1 };

typedef enum oc_verdict {
    OC_PASS,          /* valid case within tolerance, or invalid case rejected cleanly */
    OC_FAIL,
    OC_SKIP,          /* not claimed by the implementation / unsupported: reported */
    OC_ACCEPTED,      /* acceptable case that the implementation accepted: reported */
    OC_REJECTED       /* acceptable case that the implementation rejected: reported */
} oc_verdict;

typedef struct oc_case_result {
    int tcid;
    oc_verdict verdict;
    double max_ulps;    /* max |got - exact| in ulps of the storage format at the exact value */
    double max_ratio;   /* max |got - f32| / tolFp32 (0 when both are 0) */
    char detail[256];   /* first failing entry, or why skipped */
    const char *diagnosis; /* mutant name that reproduces the failure, or NULL */
    char locate[512];      /* without one: where the failure starts (VEC-DIAG-1), or "" */
} oc_case_result;

/* Outputs of one case: per output name a [steps * n] array (binary32 values widened). */
typedef struct oc_outputs {
    double *out[OC_MAX_STATE];
    char fault[128]; /* VEC-PLUG-2, VEC-PLUG-3: how the run wrote where it must not; "" if not */
} oc_outputs;

/* The spacing of binary32 numbers at |x| (2^-149 in the subnormal range). */
double oc_ulp32(double x);
/* The spacing at |x| of a binary format with `precision` significand bits (24 or 53). */
double oc_ulp(double x, int precision);

/* Runs impl over case c; on return *st is the status of the first failing call (or OC_OK,
 * or OC_ERR_UNSUPPORTED if impl does not claim the case) and *dirty tells whether a failing
 * call modified the state. */
void oc_run_case(const oc_impl *impl, const oc_case *c, oc_outputs *o, oc_status *st,
                 int *dirty);
/* The elementwise algorithms' run: fresh aligned fp32 buffers, one step call per step. */
void oc_run_elementwise(const oc_impl *impl, const oc_case *c, oc_outputs *o, oc_status *st,
                        int *dirty);
void oc_outputs_free(oc_outputs *o);

/* VEC-PLUG-3: bytes for an implementation, 64-byte aligned, followed by guard bytes. */
void *oc_alloc_guarded(size_t bytes);
/* After a call: VEC-PLUG-2, the input `name` (an oc_alloc_guarded copy of orig) unchanged;
 * VEC-PLUG-3, nothing written past the end of the output `name` (from oc_alloc_guarded).
 * The first fault goes to o->fault; each returns whether there is none. */
int oc_check_input(oc_outputs *o, const char *name, const void *copy, const void *orig,
                   size_t bytes);
int oc_check_output(oc_outputs *o, const char *name, const void *buf, size_t bytes);
/* VEC-PLUG-2 for a plain copy (no guard after it): `copy` still equals `orig`. */
int oc_check_unchanged(oc_outputs *o, const char *name, const void *copy, const void *orig,
                       size_t bytes);
/* An oc_alloc_guarded copy of the input orig (bytes long), or NULL. */
void *oc_guarded_copy(const void *orig, size_t bytes);

/* Whether impl claims what case c needs (algorithm, profile, options). */
int oc_impl_supports(const oc_impl *impl, const oc_case *c);

/* Judges valid-case outputs against the expected tensors for the class. */
void oc_judge_outputs(const oc_case *c, const oc_outputs *o, oc_class cls, oc_case_result *r);

/* The two judgements oc_judge_outputs dispatches to: element by element against exp[k].tol
 * (ADAM-TOL-1/2 and the other element-wise families), and as whole matrices against the
 * [class][frobenius, band] table exp[k].tol (NS-TOL-1, MUON-TOL-1). r starts as a pass. */
void oc_judge_elementwise(const oc_case *c, const oc_outputs *o, oc_class cls, oc_case_result *r);
void oc_judge_matrix(const oc_case *c, const oc_outputs *o, int cls, oc_case_result *r);

/* Runs and judges one case of any result kind; diagnoses failures with the mutants. */
void oc_certify_case(const oc_impl *impl, const oc_case *c, oc_class cls, oc_case_result *r);

/* Finds the catalogued mistake whose outputs match o, every entry within its own fp32 bound
 * (VEC-DIAG-1); NULL if none. */
const char *oc_diagnose(const oc_case *c, const oc_outputs *o);
/* VEC-DIAG-1: from now on oc_diagnose runs each mutant on case c once and keeps its outputs
 * and fp32 verdict (they depend on the case alone) until the case is freed: for a caller that
 * diagnoses the same case many times (the fuzz harnesses). 0, or -1 out of memory (then
 * nothing is kept). */
int oc_keep_mutant_runs(oc_case *c);
void oc_mutant_runs_free(struct oc_mutant_runs *runs);
/* A failed valid case: its diagnosis, or else (element-wise judgement) where it goes wrong in
 * r->locate (VEC-DIAG-1). */
void oc_explain_failure(const oc_case *c, const oc_outputs *o, oc_class cls, oc_case_result *r);
/* The quantity entry j of output k holds (oc_algo.quantity, else the output's name). */
const char *oc_quantity(const oc_case *c, int k, size_t j);

#endif
