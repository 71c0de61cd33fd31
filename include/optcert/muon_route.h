/* Parameter routing of a mixed Muon + AdamW optimizer and its step on one parameter
 * (spec/muon.md §11, rules ROUTE-*). */
#ifndef OPTCERT_MUON_ROUTE_H
#define OPTCERT_MUON_ROUTE_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/adam.h"
#include "optcert/muon.h"
#include "optcert/status.h"
#ifdef __FRAMAC__
#include <errno.h>  /* for the ACSL below: the steps may set errno, */
#include <string.h> /* and a parameter's name is a string (valid_read_string) */
#endif

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

/*@ // What the helpers may be given: info NULL or readable, its name NULL or a string.
    predicate info_readable(oc_param_info *info) =
        info == \null || (\valid_read(info) &&
                          (info->name == \null || valid_read_string(info->name)));
    // The product of the first k dims, and the element count (ROUTE-PARAM-1).
    logic integer prefix(oc_param_info *info, integer k) =
        (k > 0 ? info->dims[0] : 1) * (k > 1 ? info->dims[1] : 1) *
        (k > 2 ? info->dims[2] : 1) * (k > 3 ? info->dims[3] : 1);
    logic integer numel_of(oc_param_info *info) = prefix(info, info->ndim);
    // The product of dims[1 .. k-1]: what the matrix view calls the columns above 1-D.
    logic integer rest(oc_param_info *info, integer k) =
        (k > 1 ? info->dims[1] : 1) * (k > 2 ? info->dims[2] : 1) * (k > 3 ? info->dims[3] : 1);
    // What oc_param_check accepts (ROUTE-PARAM-1): a name, 1 .. 4 dims, each >= 1, at most
    // 2^24 elements.
    predicate route_param_ok(oc_param_info *info) =
        info != \null && \valid_read(info) && info->name != \null &&
        valid_read_string(info->name) && 1 <= info->ndim <= OC_PARAM_MAX_DIMS &&
        (\forall integer k; 0 <= k < info->ndim ==> info->dims[k] >= 1) &&
        numel_of(info) <= OC_NS_MAX_ELEMS;
    // The buffers of a step on a valid parameter, as the Muon and AdamW steps require them:
    // p, m, v, g of numel_of(info) elements, the workspace and scratch of their lengths, all
    // separated from each other and from what the step reads.
    predicate routed_buffers_ok(oc_route_hparams *hp, oc_param_info *info, float *p, float *m,
                                float *v, float *g, oc_route *route, double *work,
                                integer work_len, float *scratch, integer scratch_len) =
        \valid(p + (0 .. numel_of(info) - 1)) && \valid(m + (0 .. numel_of(info) - 1)) &&
        \valid(v + (0 .. numel_of(info) - 1)) && \valid_read(g + (0 .. numel_of(info) - 1)) &&
        \valid(work + (0 .. work_len - 1)) && \valid(scratch + (0 .. scratch_len - 1)) &&
        \separated(p + (0 .. numel_of(info) - 1), m + (0 .. numel_of(info) - 1),
                   v + (0 .. numel_of(info) - 1), g + (0 .. numel_of(info) - 1),
                   work + (0 .. work_len - 1), scratch + (0 .. scratch_len - 1), hp, info, route);
    // The arguments of a step (ROUTE-ERR-1: NULL pointers and rejected parameters allowed), as
    // oc_routed_step_as requires them one by one.
    predicate routed_args_ok(oc_route_hparams *hp, oc_param_info *info, float *p, float *m,
                             float *v, float *g, oc_route *route, double *work, integer work_len,
                             float *scratch, integer scratch_len) =
        (hp == \null || \valid_read(hp)) && (route == \null || \valid(route)) &&
        info_readable(info) &&
        (route_param_ok(info) ==>
         routed_buffers_ok(hp, info, p, m, v, g, route, work, work_len, scratch, scratch_len));
*/

/* ROUTE-PARAM-1: OC_OK when info describes a parameter (name, 1 .. 4 dims, each >= 1, at most
 * 2^24 elements). */
/*@ requires info_ok: info_readable(info);
    assigns \nothing;
    ensures ok: \result == OC_OK ==> route_param_ok(info); */
oc_status oc_param_check(const oc_param_info *info);

/* The helpers below take any info (NULL included) and read nothing oc_param_check has not
 * accepted: for a parameter it rejects they return 0 (the route: OC_ROUTE_ADAMW). */

/* Elements of the parameter. */
/*@ requires info_ok: info_readable(info);
    assigns \nothing;
    ensures count: \result == 0 || (route_param_ok(info) && \result == numel_of(info)); */
size_t oc_param_numel(const oc_param_info *info);

/* ROUTE-RULE-1: the optimizer of a valid parameter. */
/*@ requires info_ok: info_readable(info);
    assigns \nothing; */
oc_route oc_param_route(const oc_param_info *info);

/* ROUTE-WD-1: 1 when AdamW decays a valid parameter (not 1-D, name not ending in ".bias"). */
/*@ requires info_ok: info_readable(info);
    assigns \nothing; */
int oc_param_decays(const oc_param_info *info);

/* Doubles of workspace and floats of scratch for oc_ref_routed_step on this parameter (enough
 * for either route's matrix view: 1 x n, or dims[0] x the rest). */
/*@ requires info_ok: info_readable(info);
    assigns \nothing; */
size_t oc_routed_work_len(const oc_param_info *info);
/*@ requires info_ok: info_readable(info);
    assigns \nothing; */
size_t oc_routed_scratch_len(const oc_param_info *info);

/* The step of the mixed optimizer on one parameter given its route r and whether AdamW decays
 * it: the Muon step (MUON-*, state m; v untouched) on the parameter's matrix view (the 2-D
 * shape, 1 x n for 1-D, dims[0] x the rest above 2-D), or the AdamW step (ADAM-*, step count
 * `step`, states m, v; decay multiplier 0 unless `decays`), with the checks of ROUTE-HP-1; r
 * written to *route. On error nothing is written (ROUTE-ERR-1). The mistaken routes of
 * conformance/mutants/muon_route.c are built on it. */
/*@ requires hp_ok: hp == \null || \valid_read(hp);
    requires route_ok: route == \null || \valid(route);
    requires info_ok: info_readable(info);
    requires buffers_ok: route_param_ok(info) ==>
             routed_buffers_ok(hp, info, p, m, v, g, route, work, work_len, scratch, scratch_len);
    assigns *route, p[0 .. numel_of(info) - 1], m[0 .. numel_of(info) - 1],
            v[0 .. numel_of(info) - 1], work[0 .. work_len - 1], scratch[0 .. scratch_len - 1],
            errno; */
oc_status oc_routed_step_as(const oc_route_hparams *hp, const oc_param_info *info, int64_t step,
                            oc_route r, int decays, float *p, float *m, float *v, const float *g,
                            oc_route *route, double *work, size_t work_len, float *scratch,
                            size_t scratch_len);

/* One step of the mixed optimizer on one parameter: oc_routed_step_as with the route of
 * ROUTE-RULE-1 (oc_param_route) and the decay of ROUTE-WD-1 (oc_param_decays). */
/*@ requires args_ok:
        routed_args_ok(hp, info, p, m, v, g, route, work, work_len, scratch, scratch_len);
    assigns *route, p[0 .. numel_of(info) - 1], m[0 .. numel_of(info) - 1],
            v[0 .. numel_of(info) - 1], work[0 .. work_len - 1], scratch[0 .. scratch_len - 1],
            errno; */
oc_status oc_ref_routed_step(const oc_route_hparams *hp, const oc_param_info *info, int64_t step,
                             float *p, float *m, float *v, const float *g, oc_route *route,
                             double *work, size_t work_len, float *scratch, size_t scratch_len);

#endif
