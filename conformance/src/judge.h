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

/* What the HTML certificate's plots need of one case (report_html.c; the JSON report's "plot"),
 * a fixed size whatever the case's size: at most OC_PLOT_POINTS points per series. */
enum { OC_PLOT_POINTS = 64, OC_PLOT_SERIES = 3 };
typedef struct oc_case_plot {
    /* Judgements by steps (element-wise, the guarded step): the steps cut into nruns runs of
     * run_length consecutive steps (1 up to OC_PLOT_POINTS steps), run b starting at step
     * first_step + b * run_length, with the largest error / bound of its entries. */
    int nruns;
    int64_t first_step, run_length;
    double run_ratio[OC_PLOT_POINTS];
    /* Trajectory families (loss-scale: the state after each update; schedule: lr and wd at each
     * position): ntraj points of nseries outputs, x the update number or the position, the
     * expected value against the implementation's. */
    int ntraj, nseries;
    int64_t traj_x[OC_PLOT_POINTS];
    double traj_expected[OC_PLOT_SERIES][OC_PLOT_POINTS], traj_got[OC_PLOT_SERIES][OC_PLOT_POINTS];
    /* Matrix families (Newton-Schulz, Muon): singular values, largest first, at nsv ranks
     * sv_rank (1 = the largest): of the input (the gradient), and after (the output, or for a
     * Muon step the change of p, p before - p after) the implementation's and the expected. */
    int nsv;
    int sv_rank[OC_PLOT_POINTS];
    double sv_input[OC_PLOT_POINTS], sv_got[OC_PLOT_POINTS], sv_expected[OC_PLOT_POINTS];
} oc_case_plot;

typedef struct oc_case_result {
    int tcid;
    oc_verdict verdict;
    double max_ulps;    /* max |got - exact| in ulps of the storage format at the exact value */
    double max_ratio;   /* max |got - f32| / tolFp32 (0 when both are 0) */
    char detail[256];   /* first failing entry, or why skipped */
    const char *diagnosis; /* mutant name that reproduces the failure, or NULL */
    char locate[512];      /* without one: where the failure starts (VEC-DIAG-1), or "" */
    oc_case_plot plot;     /* filled by the judgement of a valid case's outputs */
} oc_case_result;

/* Outputs of one case: per output name a [steps * n] array (binary32 values widened). */
typedef struct oc_outputs {
    double *out[OC_MAX_STATE];
    char fault[128]; /* VEC-PLUG-2, VEC-PLUG-3: how the run wrote where it must not; "" if not */
    char unbroken[128]; /* VEC-RESUME-2: where a resumed run differs from its unbroken run */
} oc_outputs;

/* The spacing of binary32 numbers at |x| (2^-149 in the subnormal range). */
double oc_ulp32(double x);
/* The spacing at |x| of a binary format with `precision` significand bits (24 or 53). */
double oc_ulp(double x, int precision);

/* Runs impl over case c; on return *st is the status of the first failing call (or OC_OK,
 * or OC_ERR_UNSUPPORTED if impl does not claim the case) and *dirty tells whether a failing
 * call modified the state. */
void oc_run_case(const oc_impl_v3 *impl, const oc_case *c, oc_outputs *o, oc_status *st,
                 int *dirty);
/* The elementwise algorithms' run: fresh aligned fp32 buffers, one step call per step. */
void oc_run_elementwise(const oc_runner *impl, const oc_case *c, oc_outputs *o, oc_status *st,
                        int *dirty);
void oc_outputs_free(oc_outputs *o);

/* VEC-PLUG-3: bytes for an implementation, 64-byte aligned, followed by guard bytes. */
void *oc_alloc_guarded(size_t bytes);
/* What the harness hands a state entry point (VEC-ABI-3): an element-wise state (alg, hp,
 * storage, n as for mixed_step) or a loss scaler's (OC_STATE_LOSS_SCALER); its nbuf buffers of
 * bytes[k] bytes (oc_alloc_guarded), names[k] for the messages. */
typedef struct oc_saved_state {
    oc_algorithm alg;
    const void *hp;
    const oc_storage *storage;
    size_t n;
    int nbuf;
    const size_t *bytes;
    const char *const *names;
} oc_saved_state;
/* VEC-RESUME-1: the state in s[] saved through impl's state_io, fresh poisoned buffers put in
 * s[] and restored from the save (*steps_done in and out); the failing call's status, faults
 * in o->fault. */
oc_status oc_save_and_restore(const oc_runner *impl, const oc_saved_state *ss, void **s,
                              int64_t *steps_done, oc_outputs *o);
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

/* Whether impl lists what case c needs (VEC-ABI-1..3), and if not, what it lacks. */
typedef enum oc_claim {
    OC_CLAIMED,
    OC_UNCLAIMED_ALGORITHM, /* the family (without "resume-", "-mixed") */
    OC_UNCLAIMED_OPTION,    /* the family, but not every option the case needs (VEC-ABI-1) */
    OC_UNCLAIMED_RESUME,    /* the "resume-" family */
    OC_UNCLAIMED_MIXED,     /* the "-mixed" family with the case's storage option */
} oc_claim;
/* The runner of case c on impl (the entry points of the families it runs on) in *r. */
oc_claim oc_impl_runner(const oc_impl_v3 *impl, const oc_case *c, oc_runner *r);
/* Whether impl claims what case c needs (oc_impl_runner gives OC_CLAIMED). */
int oc_impl_supports(const oc_impl_v3 *impl, const oc_case *c);

/* Judges valid-case outputs against the expected tensors for the class. */
void oc_judge_outputs(const oc_case *c, const oc_outputs *o, oc_class cls, oc_case_result *r);

/* The two judgements oc_judge_outputs dispatches to: element by element against exp[k].tol
 * (ADAM-TOL-1/2 and the other element-wise families), and as whole matrices against the
 * [class][frobenius, band] table exp[k].tol (NS-TOL-1, MUON-TOL-1). r starts as a pass. */
void oc_judge_elementwise(const oc_case *c, const oc_outputs *o, oc_class cls, oc_case_result *r);
void oc_judge_matrix(const oc_case *c, const oc_outputs *o, int cls, oc_case_result *r);

/* Runs and judges one case of any result kind; diagnoses failures with the mutants. */
void oc_certify_case(const oc_impl_v3 *impl, const oc_case *c, oc_class cls, oc_case_result *r);

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
/* The plots' data (plot_data.c). The index of kept point b of count points when at most
 * kept are kept: evenly spaced, the first and the last included. */
size_t oc_plot_sample(size_t b, size_t count, size_t kept);
/* Starts the runs of steps of a case with `steps` steps numbered from first_step. */
void oc_plot_steps_begin(oc_case_plot *p, size_t steps, int64_t first_step);
/* The error / bound of an entry of step `step` (0-based) into its run. */
void oc_plot_step_ratio(oc_case_plot *p, size_t step, double ratio);
/* A trajectory family's points (loss-scale, schedule; nothing for the others): every output's
 * expected and observed values at up to OC_PLOT_POINTS points, point first_wrong among them
 * (the first point with an entry out of its bound; SIZE_MAX if none). */
void oc_plot_trajectory(const oc_case *c, const oc_outputs *o, size_t first_wrong,
                        oc_case_plot *p);
/* A matrix family's singular values (NS-TOL-1, MUON-TOL-1): of the input gradient, and after:
 * output k = 0 (Newton-Schulz) or the change of p it makes (a Muon step), observed and
 * expected; nsv stays 0 if an SVD fails (no memory) or the observed output is not finite. */
void oc_plot_spectra(const oc_case *c, const oc_outputs *o, oc_case_plot *p);

/* The quantity entry j of output k holds (oc_algo.quantity, else the output's name). */
const char *oc_quantity(const oc_case *c, int k, size_t j);

#endif
