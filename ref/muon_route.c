/* Parameter routing of a mixed Muon + AdamW optimizer (spec/muon.md §11, rules ROUTE-*): which
 * optimizer steps a parameter, and the step itself through ref/muon.c and ref/adam.c. Scalar
 * C11, no allocation, no I/O, no globals. */
#include <string.h>
#include "optcert/buffers.h"
#include "optcert/muon_route.h"

/*@ // What the helpers may be given: info NULL or readable, its name NULL or a string.
    predicate info_readable(oc_param_info *info) =
        info == \null || (\valid_read(info) &&
                          (info->name == \null || valid_read_string(info->name)));
    // What oc_param_check accepts, as far as memory goes (ROUTE-PARAM-1): a name, 1 .. 4
    // dims, each >= 1.
    predicate param_ok(oc_param_info *info) =
        info != \null && \valid_read(info) && info->name != \null &&
        valid_read_string(info->name) && 1 <= info->ndim <= OC_PARAM_MAX_DIMS &&
        \forall integer k; 0 <= k < info->ndim ==> info->dims[k] >= 1;
*/

static const char bias[] = ".bias";   /* ROUTE-WD-1: Megatron's name.endswith(".bias") */
static const char embed[] = "embed";   /* the head-by-name mutant's test */

static const char *const mutant_names[OC_ROUTE_MUTANT_COUNT] = {
    "correct",        "head-by-name", "attribute-ignored",
    "gain-to-muon",   "non-2d-to-muon",    "decay-on-gains"};

/*@ assigns \result \from mu, mutant_names[0 .. OC_ROUTE_MUTANT_COUNT - 1]; */
const char *oc_route_mutant_name(oc_route_mutant mu)
{
    return (unsigned)mu < OC_ROUTE_MUTANT_COUNT ? mutant_names[mu] : NULL;
}

/* ROUTE-PARAM-1 */
/*@ requires info_readable(info);
    assigns \nothing;
    ensures \result == OC_OK ==> param_ok(info); */
oc_status oc_param_check(const oc_param_info *info)
{
    if (info == NULL || info->name == NULL)
        return OC_ERR_NULL_POINTER;
    if (info->ndim < 1 || info->ndim > OC_PARAM_MAX_DIMS ||
        strlen(info->name) >= OC_PARAM_MAX_NAME)
        return OC_ERR_BAD_SHAPE;
    size_t n = 1;
    /*@ loop invariant 0 <= k <= info->ndim && 1 <= n <= OC_NS_MAX_ELEMS;
        loop invariant \forall integer j; 0 <= j < k ==> info->dims[j] >= 1;
        loop assigns k, n;
        loop variant info->ndim - k; */
    for (int k = 0; k < info->ndim; k++) {
        if (info->dims[k] < 1 || info->dims[k] > OC_NS_MAX_ELEMS / n)
            return OC_ERR_BAD_SHAPE;
        n *= info->dims[k];
    }
    return OC_OK;
}

/* ROUTE-PARAM-1: the helpers return 0 (the route OC_ROUTE_ADAMW) for a parameter
 * oc_param_check rejects, whose dims may be 0, too many or overflow. */
/*@ requires info_readable(info);
    assigns \nothing;
    ensures \result == 0 || param_ok(info); */
size_t oc_param_numel(const oc_param_info *info)
{
    if (oc_param_check(info) != OC_OK)
        return 0;
    size_t n = 1;
    /*@ loop invariant 0 <= k <= info->ndim;
        loop assigns k, n;
        loop variant info->ndim - k; */
    for (int k = 0; k < info->ndim; k++)
        n *= info->dims[k];
    return n;
}

/* ROUTE-RULE-1 (Megatron-LM _is_nonlinear_or_embedding), or the mutant's rule. */
/*@ requires param_ok(info);
    assigns \nothing; */
static oc_route route_of(const oc_param_info *info, oc_route_mutant mutant)
{
    switch (mutant) {
    case OC_ROUTE_MUT_ATTRIBUTE_IGNORED:
        return info->ndim == 2 ? OC_ROUTE_MUON : OC_ROUTE_ADAMW;
    case OC_ROUTE_MUT_HEAD_BY_NAME:
        //@ assert embed_str: \valid_read(&embed[0] + (0 .. 5)) && embed[5] == '\0';
        //@ assert valid_read_string(&embed[0]);
        return info->ndim == 2 && strstr(info->name, embed) == NULL ? OC_ROUTE_MUON
                                                                     : OC_ROUTE_ADAMW;
    case OC_ROUTE_MUT_GAIN_TO_MUON:
        if (info->ndim == 1)
            return OC_ROUTE_MUON;
        break;
    case OC_ROUTE_MUT_NON_2D_TO_MUON:
        if (info->ndim > 2)
            return OC_ROUTE_MUON;
        break;
    default:
        break;
    }
    return info->ndim == 2 && !info->is_embedding_or_output ? OC_ROUTE_MUON : OC_ROUTE_ADAMW;
}

/*@ requires info_readable(info);
    assigns \nothing; */
oc_route oc_param_route(const oc_param_info *info)
{
    return oc_param_check(info) == OC_OK ? route_of(info, OC_ROUTE_CORRECT) : OC_ROUTE_ADAMW;
}

/* The matrix Muon sees: the 2-D shape; a 1-D parameter as 1 x n and a 3-D / 4-D one as
 * dims[0] x rest (only the mutants route those to Muon). */
/*@ requires param_ok(info) && \valid(rows) && \valid(cols);
    assigns *rows, *cols; */
static void matrix_view(const oc_param_info *info, size_t *rows, size_t *cols)
{
    size_t n = oc_param_numel(info);
    *rows = info->ndim == 1 ? 1 : info->dims[0];
    *cols = n / *rows;
}

/*@ requires info_readable(info);
    assigns \nothing; */
size_t oc_routed_work_len(const oc_param_info *info)
{
    size_t rows, cols, n = oc_param_numel(info), a, b;
    if (n == 0)
        return 0;
    matrix_view(info, &rows, &cols);
    a = oc_muon_work_len(rows, cols);
    b = oc_muon_work_len(1, n);
    return a > b ? a : b;
}

/*@ requires info_readable(info);
    assigns \nothing; */
size_t oc_routed_scratch_len(const oc_param_info *info) { return 3 * oc_param_numel(info); }

/* ROUTE-WD-1: Megatron's default no_weight_decay_cond: biases (by name) and 1-D parameters. */
/*@ requires info_readable(info);
    assigns \nothing; */
int oc_param_decays(const oc_param_info *info)
{
    if (oc_param_check(info) != OC_OK)
        return 0;
    size_t len = strlen(info->name);
    //@ assert bias_str: \valid_read(&bias[0] + (0 .. 5)) && bias[5] == '\0';
    //@ assert valid_read_string(&bias[0]);
    return !(info->ndim == 1 || (len >= 5 && strcmp(info->name + len - 5, bias) == 0));
}

oc_status oc_ref_routed_step(const oc_route_hparams *hp, const oc_param_info *info, int64_t step,
                             float *p, float *m, float *v, const float *g, oc_route *route,
                             double *work, size_t work_len, float *scratch, size_t scratch_len,
                             oc_route_mutant mutant)
{
    if (hp == NULL || route == NULL)
        return OC_ERR_NULL_POINTER;
    if ((unsigned)mutant >= OC_ROUTE_MUTANT_COUNT)
        return OC_ERR_BAD_PROFILE;
    oc_status st = oc_param_check(info);
    if (st != OC_OK)
        return st; /* ROUTE-ERR-1 */
    /* ROUTE-HP-1: both optimizers' hyper-parameters, whichever the parameter goes to; AdamW is
     * the decoupled torch form without AMSGrad or maximize. */
    oc_adam_hparams adamw = hp->adamw;
    if ((st = oc_muon_hparams_check(&hp->muon)) != OC_OK || (st = oc_adam_check(&adamw, step)) != OC_OK)
        return st;
    if (adamw.profile != OC_ADAM_TORCH || !adamw.decoupled || adamw.amsgrad || adamw.maximize)
        return OC_ERR_BAD_HPARAM;
    size_t n = oc_param_numel(info), rows, cols;
    if ((st = oc_buffer_check(v, n, sizeof(float))) != OC_OK)
        return st;
    oc_route r = route_of(info, mutant);
    if (r == OC_ROUTE_MUON) {
        matrix_view(info, &rows, &cols);
        if (scratch_len < 3 * n)
            return OC_ERR_BAD_SHAPE;
        st = oc_ref_muon_step(&hp->muon, rows, cols, p, m, g, work, work_len, scratch,
                              OC_MUON_CORRECT); /* MUON-* */
    } else {
        if (!oc_param_decays(info) && mutant != OC_ROUTE_MUT_DECAY_ON_GAINS)
            adamw.weight_decay = 0; /* ROUTE-WD-1 */
        st = oc_ref_adam_step(&adamw, step, n, p, m, v, NULL, g, OC_ADAM_CORRECT); /* ADAM-* */
    }
    if (st == OC_OK)
        *route = r;
    return st;
}
