/* Parameter routing of a mixed Muon + AdamW optimizer and its step on one parameter
 * (spec/muon.md §11, rules ROUTE-*). */
#ifndef OPTCERT_MUON_ROUTE_H
#define OPTCERT_MUON_ROUTE_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/adam.h"
#include "optcert/muon.h"
#include "optcert/status.h"

typedef enum oc_route {
    OC_ROUTE_ADAMW = 0, /* embeddings, the output head, gains, biases, non-2-D   ROUTE-RULE-1 */
    OC_ROUTE_MUON       /* 2-D hidden weights                                   ROUTE-RULE-1 */
} oc_route;

#define OC_PARAM_MAX_DIMS 4
#define OC_PARAM_MAX_NAME 128

/* One parameter of the model as the optimizer sees it (ROUTE-PARAM-1). */
typedef struct oc_param_info {
    const char *name;            /* module path, e.g. "decoder.layers.0.mlp.linear_fc1.weight" */
    int ndim;                    /* 1 .. OC_PARAM_MAX_DIMS */
    size_t dims[OC_PARAM_MAX_DIMS];
    int is_embedding_or_output;  /* Megatron's is_embedding_or_output_parameter attribute */
} oc_param_info;

/* The two optimizers of the mixed step: Muon for the routed matrices, AdamW (decoupled decay,
 * torch profile) for the rest (ROUTE-HP-1). */
typedef struct oc_route_hparams {
    oc_muon_hparams muon;
    oc_adam_hparams adamw;
} oc_route_hparams;

/* ROUTE-PARAM-1: OC_OK when info describes a parameter (name, 1 .. 4 dims, each >= 1, at most
 * 2^24 elements). */
oc_status oc_param_check(const oc_param_info *info);

/* The helpers below take any info (NULL included) and read nothing oc_param_check has not
 * accepted: for a parameter it rejects they return 0 (the route: OC_ROUTE_ADAMW). */

/* Elements of the parameter. */
size_t oc_param_numel(const oc_param_info *info);

/* ROUTE-RULE-1: the optimizer of a valid parameter. */
oc_route oc_param_route(const oc_param_info *info);

/* ROUTE-WD-1: 1 when AdamW decays a valid parameter (not 1-D, name not ending in ".bias"). */
int oc_param_decays(const oc_param_info *info);

/* Doubles of workspace and floats of scratch for oc_ref_routed_step on this parameter (enough
 * for either route's matrix view: 1 x n, or dims[0] x the rest). */
size_t oc_routed_work_len(const oc_param_info *info);
size_t oc_routed_scratch_len(const oc_param_info *info);

/* The step of the mixed optimizer on one parameter given its route r and whether AdamW decays
 * it: the Muon step (MUON-*, state m; v untouched) on the parameter's matrix view (the 2-D
 * shape, 1 x n for 1-D, dims[0] x the rest above 2-D), or the AdamW step (ADAM-*, step count
 * `step`, states m, v; decay multiplier 0 unless `decays`), with the checks of ROUTE-HP-1; r
 * written to *route. On error nothing is written (ROUTE-ERR-1). The mistaken routes of
 * conformance/mutants/muon_route.c are built on it. */
oc_status oc_routed_step_as(const oc_route_hparams *hp, const oc_param_info *info, int64_t step,
                            oc_route r, int decays, float *p, float *m, float *v, const float *g,
                            oc_route *route, double *work, size_t work_len, float *scratch,
                            size_t scratch_len);

/* One step of the mixed optimizer on one parameter: oc_routed_step_as with the route of
 * ROUTE-RULE-1 (oc_param_route) and the decay of ROUTE-WD-1 (oc_param_decays). */
oc_status oc_ref_routed_step(const oc_route_hparams *hp, const oc_param_info *info, int64_t step,
                             float *p, float *m, float *v, const float *g, oc_route *route,
                             double *work, size_t work_len, float *scratch, size_t scratch_len);

#endif
