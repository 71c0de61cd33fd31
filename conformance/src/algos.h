/* The algorithm families the harness knows: how to read their hyper-parameters, which state
 * tensors they carry, and how to call an implementation's entry point for them. An algorithm
 * adds its descriptor in its own file, conformance/src/<fam>.c (CONTRIBUTING.md, step 6). */
#ifndef OPTCERT_ALGOS_H
#define OPTCERT_ALGOS_H

#include <jansson.h>
#include "optcert/impl.h"
#include "diag.h"

#define OC_MAX_STATE 5 /* outputs of a case: p, master (mixed precision), up to 3 states */
/* muon_route (spec/muon.md §11; its outputs are p, m, v): the output slot holding the route,
 * one value (0 AdamW, 1 Muon); results files carry it as metadata "route/<family>/<tcId>" =
 * "adamw" | "muon". Other algorithms use this slot for outputs. */
#define OC_ROUTE_OUTPUT (OC_MAX_STATE - 1)

struct oc_case;
struct oc_outputs;
struct oc_st_file;
struct oc_case_result;
struct oc_tolcap_stats;

/* One family of an implementation as the harness runs a case of it (VEC-ABI-1, VEC-ABI-3):
 * the implementation's context and the entry points the case uses, each of the type
 * include/optcert/impl.h gives its family; NULL where the implementation lists no such
 * family. */
typedef struct oc_runner {
    void *ctx;
    oc_entry_point entry;    /* the algorithm's: the case's family without "resume-", "-mixed" */
    oc_entry_point mixed;    /* oc_mixed_step_fn: the "-mixed" family's */
    oc_entry_point state_io; /* oc_state_io_fn: the "resume-" family's */
} oc_runner;

/* The entry point of r as type T (the algorithm's entry-point type). */
#define OC_ENTRY(r, T) ((T)(r)->entry)

#define OC_MAX_OPTIONS 5

/* The guarded step's group configuration (spec/guarded_step.md, VEC-FMT-17): the step's own and, in
 * mode scaled, the loss scaler's. */
typedef struct oc_step_family_config {
    oc_guard_config guard;
    oc_loss_scaler scaler;
} oc_step_family_config;

/* Muon over blocks (MUON-BLK-*): the Muon step's hyper-parameters and the partition. */
typedef struct oc_muon_blocks_hparams {
    oc_muon_hparams muon; /* first: the Muon fields are parsed into hp->muon */
    oc_muon_partition part;
} oc_muon_blocks_hparams;

/* The hyper-parameters of a case, one member per algorithm: the file of each declares its
 * member with a line `OC_HPARAMS(TYPE, NAME);` at the start of a line, from which
 * cmake/registry.cmake generates the union (hparams_registry.h); TYPE comes from
 * include/optcert/ (impl.h includes the families' headers) or from above. The line expands to
 * a check that the union has that member with that type's size. */
#include "hparams_registry.h"
#define OC_HPARAMS(type, name)                                                                 \
    _Static_assert(sizeof(((oc_hparams *)0)->name) == sizeof(type), "oc_hparams." #name)

typedef struct oc_algo {
    const char *name;                      /* "algorithm" in the vector files */
    const char *group_type;                /* testGroups[].type */
    const char *state_names[OC_MAX_STATE]; /* outputs (state tensors, parameter first) */
    int precision;                         /* significand bits of the stored outputs: 24, 53 */
    int nmutants;                          /* including 0 = correct */
    const char *(*mutant_name)(int mu);
    int (*nstate)(const oc_hparams *hp);   /* state tensors a case with these hparams uses */
    oc_status (*parse)(const char *path, const char *profile, json_t *h, oc_hparams *hp,
                       oc_diag *d);
    /* VEC-ABI-2: the options a family of this algorithm may list (the "-mixed" families'
     * storage options are the harness's, judge.c), and those a case with hp needs (bit k:
     * options[k]; NULL: none). A family runs a case if the implementation lists it with them. */
    const char *options[OC_MAX_OPTIONS];
    unsigned (*needs)(const oc_hparams *hp);
    /* Reads a test's inputs and expected outputs (the common fields are already read; st is
     * the family's tensor file, NULL for families with inline values). */
    oc_status (*load_case)(const char *path, const struct oc_st_file *st, json_t *test,
                           struct oc_case *c, oc_diag *d);
    /* Runs a whole case through impl: outputs [steps * n] per output name; *st is the status of
     * the first failing call, *dirty whether that call changed any state. */
    void (*run)(const oc_runner *impl, const struct oc_case *c, struct oc_outputs *o,
                oc_status *st, int *dirty);
    /* Elementwise algorithms: one step through impl's table; state[k] follows state_names. */
    oc_status (*step)(const oc_runner *impl, const oc_hparams *hp, int64_t t, size_t n,
                      float *const *state, const float *g);
    /* Element-wise algorithms only (0 elsewhere): mutants 0 .. own_mutants-1 are the
     * algorithm's own, the rest up to nmutants the mixed-precision ones (spec/mixed.md §5);
     * alg names the algorithm for oc_mixed_step_fn (OC_ALG_COUNT: not element-wise). */
    int own_mutants;
    oc_algorithm alg;
    /* Families judged as a whole rather than element by element (Newton–Schulz, NS-TOL-1);
     * NULL for the elementwise judgement. judge: valid-case outputs against the expected ones
     * under class cls (an oc_class); explains: whether a mutant's outputs reproduce observed
     * ones. */
    void (*judge)(const struct oc_case *c, const struct oc_outputs *o, int cls,
                  struct oc_case_result *r);
    int (*explains)(const struct oc_case *c, const struct oc_outputs *got,
                    const struct oc_outputs *mutant);
    /* The quantity entry j of output k holds where one output packs several (clip: "norm",
     * "grad", "skipped"; the guarded step's rows); NULL: every entry is the output's name. The
     * harness self-test (optcert selftest) shows each quantity judged. */
    const char *(*quantity)(const struct oc_case *c, int k, size_t j);
    /* Element-wise algorithms: the weight decay of hp, which the localisation of a failure
     * separates from the rest of the update (VEC-DIAG-1); NULL elsewhere. */
    double *(*decay)(oc_hparams *hp);
    /* VEC-TOL-2: a valid case's per-entry bounds against the family's derivation, re-evaluated
     * from the case's own numbers (conformance/src/tolcap.c); NULL where the harness does not
     * redo it (VEC-TOL-1's cap alone). stats may be NULL. */
    oc_status (*cap_tolerances)(const char *path, const struct oc_case *c,
                                struct oc_tolcap_stats *stats, oc_diag *d);
    /* Element-wise algorithms: the error model of one element's step that their cap, the AdamW
     * routes' and the guarded step's are built from (tolcap.h); NULL elsewhere. */
    const struct oc_tolcap_model *tolcap;
    /* VEC-ABI-1: the reference's entry point for the algorithm's families, of the type
     * include/optcert/impl.h gives them, running the mutant its table's context selects
     * (ref_impl.h); the reference lists every family of the algorithm with it. */
    oc_entry_point reference;
} oc_algo;

/* Every descriptor `const oc_algo oc_algo_<name> = {...};` of the harness's sources, listed
 * in oc_algos[OC_NALGOS] by cmake/registry.cmake (issue 16 item 1: no shared list names a
 * family). */
#include "algos_registry.h"

/* VEC-FMT-1 readers shared by the descriptors: a hex-float string exact in binary32 (or
 * nan/inf), and a boolean. */
oc_status oc_get_hex(const char *path, json_t *obj, const char *key, double *out, oc_diag *d);
oc_status oc_get_bool(const char *path, json_t *obj, const char *key, int *out, oc_diag *d);
/* A hex-float string exact in binary64. */
oc_status oc_get_hex64(const char *path, json_t *obj, const char *key, double *out, oc_diag *d);

/* A JSON array a of n hex floats exact in binary32 (VEC-FMT-1) into out[0 .. n-1]. */
oc_status oc_get_hex_array(const char *path, int tcid, json_t *a, size_t n, float *out,
                           oc_diag *d);

/* The descriptor named `name`, or NULL. */
const oc_algo *oc_algo_find(const char *name);
/* The "unknown profile" error of algorithm algo's parser (VEC-FMT-1). */
oc_status oc_bad_profile(const char *path, const char *algo, const char *profile, oc_diag *d);
/* The element-wise algorithms' catalogues: their own mutants 0 .. own - 1, then the
 * mixed-precision ones (spec/mixed.md), OC_MIXED_MUTANTS of them; mu's name for mu >= own. */
#define OC_MIXED_MUTANTS (OC_MIXED_MUTANT_COUNT - 1)
const char *oc_elementwise_mutant_name(int mu, int own);

/* The reference with every algorithm correct: every family of the vector set
 * (families_registry.h). */
const oc_impl_v3 *oc_ref(void);
/* The reference with mutant mu of algorithm a: the families of algorithm a alone. */
const oc_impl_v3 *oc_ref_mutant(const oc_algo *a, int mu);

#endif
