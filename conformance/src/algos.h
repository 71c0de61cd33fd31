/* The algorithm families the harness knows: how to read their hyper-parameters, which state
 * tensors they carry, and how to call an implementation's entry point for them. Adding an
 * algorithm means adding one descriptor here (and its spec, reference and generator). */
#ifndef OPTCERT_ALGOS_H
#define OPTCERT_ALGOS_H

#include <jansson.h>
#include "optcert/impl.h"
#include "diag.h"

#define OC_MAX_STATE 4

typedef union oc_hparams {
    oc_adam_hparams adam;
    oc_sgd_hparams sgd;
    oc_lion_hparams lion;
} oc_hparams;

typedef struct oc_algo {
    const char *name;                      /* "algorithm" in the vector files */
    const char *group_type;                /* testGroups[].type */
    const char *state_names[OC_MAX_STATE]; /* state tensors, parameter first */
    int nmutants;                          /* including 0 = correct */
    const char *(*mutant_name)(int mu);
    int (*nstate)(const oc_hparams *hp);   /* state tensors a case with these hparams uses */
    oc_status (*parse)(const char *path, const char *profile, json_t *h, oc_hparams *hp,
                       oc_diag *d);
    int (*supports)(const oc_impl *impl, const oc_hparams *hp);
    /* One step through impl's table; state[k] follows state_names. */
    oc_status (*step)(const oc_impl *impl, const oc_hparams *hp, int64_t t, size_t n,
                      float *const *state, const float *g);
    /* The reference's own entry point, with a mutant. */
    oc_status (*ref_step)(const oc_hparams *hp, int64_t t, size_t n, float *const *state,
                          const float *g, int mutant);
} oc_algo;

extern const oc_algo oc_algo_adam, oc_algo_sgd, oc_algo_lion;
extern const oc_algo *const oc_algos[];
#define OC_NALGOS 3

/* The descriptor named `name`, or NULL. */
const oc_algo *oc_algo_find(const char *name);

/* The reference with every algorithm correct. */
const oc_impl *oc_ref(void);
/* The reference with mutant mu of algorithm a (other algorithms not claimed). */
const oc_impl *oc_ref_mutant(const oc_algo *a, int mu);

#endif
