/* Parameter routing of a mixed Muon + AdamW optimizer (spec/muon.md §11, rules ROUTE-*): which
 * optimizer steps a parameter, and the step itself through ref/muon.c and ref/adam.c. Scalar
 * C11, no allocation, no I/O, no globals. */
#include <errno.h>
#include <string.h>
#include "optcert/buffers.h"
#include "optcert/muon_route.h"

/* rest one dim further, and prefix as dims[0] times rest: calling this ghost function puts
 * the instances among the hypotheses. */
/*@ ghost
  /@ assigns \nothing;
     ensures \forall integer k; 1 <= k < OC_PARAM_MAX_DIMS ==>
             rest(info, k + 1) == rest(info, k) * info->dims[k];
     ensures \forall integer k; 1 <= k <= OC_PARAM_MAX_DIMS ==>
             prefix(info, k) == info->dims[0] * rest(info, k); @/
  static void rest_steps(const oc_param_info *info) { }
*/

static const char bias[] = ".bias";   /* ROUTE-WD-1: Megatron's name.endswith(".bias") */

/* A dim below the bound's quotient keeps the product within the bound (the provers find this
 * in this small context, not in the loop's). */
/*@ ghost
  /@ requires 1 <= n && d <= OC_NS_MAX_ELEMS / n;
     assigns \nothing;
     ensures n * d <= OC_NS_MAX_ELEMS; @/
  static void product_fits(size_t n, size_t d) { }
*/

/* ROUTE-PARAM-1: the status of oc_param_check and, when OC_OK, the element count n and the
 * product of the dims after the first (rest): n = dims[0] * rest. */
typedef struct checked_numel {
    oc_status status;
    size_t n, rest;
} checked_numel;

/*@ requires info_readable(info);
    assigns \nothing;
    ensures ok: \result.status == OC_OK ==> route_param_ok(info);
    ensures count: \result.status == OC_OK ==> \result.n == numel_of(info) &&
                   \result.n == info->dims[0] * \result.rest; */
static checked_numel check_numel(const oc_param_info *info)
{
    const checked_numel bad_shape = {OC_ERR_BAD_SHAPE, 0, 0};
    if (info == NULL || info->name == NULL)
        return (checked_numel){OC_ERR_NULL_POINTER, 0, 0};
    if (info->ndim < 1 || info->ndim > OC_PARAM_MAX_DIMS ||
        strlen(info->name) >= OC_PARAM_MAX_NAME || info->dims[0] < 1)
        return bad_shape;
    size_t r = 1;
    //@ ghost rest_steps(info);
    /*@ loop invariant 1 <= k <= info->ndim;
        loop invariant bound: 1 <= r <= OC_NS_MAX_ELEMS;
        loop invariant product: r == rest(info, k);
        loop invariant \forall integer j; 0 <= j < k ==> info->dims[j] >= 1;
        loop assigns k, r;
        loop variant info->ndim - k; */
    for (int k = 1; k < info->ndim; k++) {
        if (info->dims[k] < 1 || info->dims[k] > OC_NS_MAX_ELEMS / r)
            return bad_shape;
        //@ assert fits: info->dims[k] <= OC_NS_MAX_ELEMS / r;
        //@ ghost product_fits(r, info->dims[k]);
        r *= info->dims[k];
    }
    if (info->dims[0] > OC_NS_MAX_ELEMS / r)
        return bad_shape;
    //@ assert fits_0: info->dims[0] <= OC_NS_MAX_ELEMS / r;
    //@ ghost product_fits(r, info->dims[0]);
    //@ assert whole: r == rest(info, info->ndim) && prefix(info, info->ndim) == info->dims[0] * r;
    return (checked_numel){OC_OK, info->dims[0] * r, r};
}

oc_status oc_param_check(const oc_param_info *info)
{
    return check_numel(info).status;
}

/* ROUTE-PARAM-1: the helpers return 0 (the route OC_ROUTE_ADAMW) for a parameter
 * oc_param_check rejects, whose dims may be 0, too many or overflow. */
size_t oc_param_numel(const oc_param_info *info)
{
    checked_numel c = check_numel(info);
    return c.status == OC_OK ? c.n : 0;
}

/* ROUTE-RULE-1 (Megatron-LM _is_nonlinear_or_embedding). */
oc_route oc_param_route(const oc_param_info *info)
{
    return oc_param_check(info) == OC_OK && info->ndim == 2 && !info->is_embedding_or_output
               ? OC_ROUTE_MUON
               : OC_ROUTE_ADAMW;
}

/* The matrix Muon sees: the 2-D shape; a 1-D parameter as 1 x n and a 3-D / 4-D one as
 * dims[0] x rest (only a mistaken route takes those to Muon, conformance/mutants/muon_route.c). */
typedef struct matrix_shape {
    size_t rows, cols;
} matrix_shape;

/*@ requires route_param_ok(info) && c.n == info->dims[0] * c.rest;
    assigns \nothing;
    ensures \result.rows * \result.cols == c.n; */
static matrix_shape matrix_view(const oc_param_info *info, checked_numel c)
{
    return info->ndim == 1 ? (matrix_shape){1, c.n} : (matrix_shape){info->dims[0], c.rest};
}

size_t oc_routed_work_len(const oc_param_info *info)
{
    checked_numel c = check_numel(info);
    if (c.status != OC_OK)
        return 0;
    matrix_shape view = matrix_view(info, c);
    size_t a = oc_muon_work_len(view.rows, view.cols), b = oc_muon_work_len(1, c.n);
    return a > b ? a : b;
}

size_t oc_routed_scratch_len(const oc_param_info *info) { return 3 * oc_param_numel(info); }

/* ROUTE-WD-1: Megatron's default no_weight_decay_cond: biases (by name) and 1-D parameters. */
int oc_param_decays(const oc_param_info *info)
{
    if (oc_param_check(info) != OC_OK)
        return 0;
    size_t len = strlen(info->name);
    //@ assert bias_str: \valid_read(&bias[0] + (0 .. 5)) && bias[5] == '\0';
    //@ assert valid_read_string(&bias[0]);
    return !(info->ndim == 1 || (len >= 5 && strcmp(info->name + len - 5, bias) == 0));
}

oc_status oc_routed_step_as(const oc_route_hparams *hp, const oc_param_info *info, int64_t step,
                            oc_route r, int decays, float *p, float *m, float *v, const float *g,
                            oc_route *route, double *work, size_t work_len, float *scratch,
                            size_t scratch_len)
{
    if (hp == NULL || route == NULL)
        return OC_ERR_NULL_POINTER;
    const checked_numel c = check_numel(info);
    const size_t n = c.n;
    oc_status st = c.status;
    if (st != OC_OK)
        return st; /* ROUTE-ERR-1 */
    /* ROUTE-HP-1: both optimizers' hyper-parameters, whichever the parameter goes to; AdamW is
     * the decoupled torch form without AMSGrad or maximize. */
    oc_adam_hparams adamw = hp->adamw;
    if ((st = oc_muon_hparams_check(&hp->muon)) != OC_OK || (st = oc_adam_check(&adamw, step)) != OC_OK)
        return st;
    if (adamw.profile != OC_ADAM_TORCH || !adamw.decoupled || adamw.amsgrad || adamw.maximize)
        return OC_ERR_BAD_HPARAM;
    if ((st = oc_buffer_check(v, n, sizeof(float))) != OC_OK)
        return st;
    if (r == OC_ROUTE_MUON) {
        matrix_shape view = matrix_view(info, c);
        if (scratch_len < 3 * n)
            return OC_ERR_BAD_SHAPE;
        st = oc_ref_muon_step(&hp->muon, view.rows, view.cols, p, m, g, work, work_len, scratch); /* MUON-* */
    } else {
        if (!decays)
            adamw.weight_decay = 0; /* ROUTE-WD-1 */
        st = oc_ref_adam_step(&adamw, step, n, p, m, v, NULL, g); /* ADAM-* */
    }
    if (st == OC_OK)
        *route = r;
    return st;
}

oc_status oc_ref_routed_step(const oc_route_hparams *hp, const oc_param_info *info, int64_t step,
                             float *p, float *m, float *v, const float *g, oc_route *route,
                             double *work, size_t work_len, float *scratch, size_t scratch_len)
{
    oc_route r = oc_param_route(info); /* ROUTE-RULE-1 */
    int decays = oc_param_decays(info); /* ROUTE-WD-1 */
    return oc_routed_step_as(hp, info, step, r, decays, p, m, v, g, route, work, work_len,
                             scratch, scratch_len);
}
