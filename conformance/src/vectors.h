/* Loading a vector family (spec/vectors.md) into memory, fully validated. */
#ifndef OPTCERT_VECTORS_H
#define OPTCERT_VECTORS_H

#include <jansson.h>
#include <stdint.h>
#include "algos.h"
#include "diag.h"

typedef enum oc_result { OC_RESULT_VALID, OC_RESULT_INVALID, OC_RESULT_ACCEPTABLE } oc_result;

typedef struct oc_expect {
    float *f32;  /* [steps * n] correctly rounded storage values */
    double *f64; /* [steps * n] exact values rounded to binary64 */
    double *tol; /* [steps * n] fp32-class absolute bound */
} oc_expect;

typedef struct oc_case {
    int tcid;
    const char *comment;
    oc_result result;
    json_t *flags, *rules;  /* borrowed from the document */
    const oc_algo *algo;
    oc_hparams hp;
    int64_t first_step;
    size_t steps, n;
    int nstate;              /* state tensors used, named by algo->state_names */
    float *in[OC_MAX_STATE]; /* [n] */
    float *g;                /* [steps * n] */
    oc_expect exp[OC_MAX_STATE];
} oc_case;

typedef struct oc_family {
    char *json_path;
    const char *name, *algorithm, *profile; /* borrowed from doc */
    json_t *doc;
    oc_case *cases;
    size_t ncases;
} oc_family;

/* Loads <json_path> and the safetensors file it names (same directory). */
oc_status oc_family_load(const char *json_path, oc_family *fam, oc_diag *d);
void oc_family_free(oc_family *fam);

/* Lists the families under dir (sub-directories <name>/<name>.json), sorted by name.
 * *paths is a NULL-terminated array the caller frees with oc_free_list. */
oc_status oc_family_list(const char *dir, char ***paths, oc_diag *d);
void oc_free_list(char **list);

#endif
