/* The guarded optimizer step (spec/guarded_step.md, rules STEP-*): Megatron's MixedPrecisionOptimizer /
 * ChainedOptimizer control flow around the global-norm clipping (ref/clip.c) and the
 * element-wise reference steps. Scalar C11, no allocation, no I/O, no globals. */
#include <float.h>
#include <math.h>
#include "optcert/buffers.h"
#include "optcert/clip.h"
#include "optcert/elementwise.h"
#include "optcert/guarded_step.h"

/* The sub-optimizer's algorithm, as its element-wise interface (optcert/elementwise.h); NULL
 * for a kind without one (STEP-CFG-1). */
/*@ requires \valid_read(s);
    assigns \nothing;
    ensures interface: interface_of(s->kind, (oc_elementwise *)\result);
*/
static const oc_elementwise *interface_of(const oc_sub_optimizer *s)
{
    return oc_elementwise_of(s->kind);
}

/* A parameter's buffers, the ones its sub-optimizer's step reads or writes (the parameter, its
 * gradient, then the algorithm's state layout); returns how many. */
/*@ requires \valid_read(s) && \valid_read(q) && \valid(b + (0 .. 4));
    requires ew != \null && interface_of(s->kind, (oc_elementwise *)ew);
    assigns b[0 .. 4];
    ensures 2 <= \result <= 5;
*/
static int param_buffers(const oc_elementwise *ew, const oc_sub_optimizer *s,
                         const oc_guarded_param *q, const void *b[5])
{
    b[0] = q->p;
    b[1] = q->grad;
    b[2] = q->state[0];
    b[3] = q->state[1];
    b[4] = q->state[2];
    /*@ calls OC_ELEMENTWISE_STATE_COUNTS; */
    return 2 + ew->state_count(&s->hp);
}

/* STEP-ERR-1: the checks the sub-optimizer's own step makes (buffers present, aligned and
 * pairwise disjoint), made before anything is written, so that no step can fail halfway. */
/*@ requires \valid_read(s) && \valid_read(q);
    requires ew != \null && interface_of(s->kind, (oc_elementwise *)ew);
    assigns \nothing;
*/
static oc_status check_param(const oc_elementwise *ew, const oc_sub_optimizer *s,
                             const oc_guarded_param *q)
{
    const void *b[5];
    oc_status st;
    int nb = param_buffers(ew, s, q, b);
    /*@ loop invariant 0 <= i <= nb;
        loop assigns i, st;
        loop variant nb - i;
    */
    for (int i = 0; i < nb; i++) {
        if ((st = oc_buffer_check(b[i], q->n, sizeof(float))) != OC_OK)
            return st;
        /*@ loop invariant 0 <= o <= i;
            loop assigns o, st;
            loop variant i - o;
        */
        for (int o = 0; o < i; o++)
            if ((st = oc_buffer_disjoint(b[o], q->n * sizeof(float), b[i],
                                         q->n * sizeof(float))) != OC_OK)
                return st;
    }
    return OC_OK;
}

/* The hyper-parameters and buffers of one sub-optimizer, for its next step (STEP-ERR-1);
 * `counted` parameters of the sub-optimizers before it (STEP-CFG-1). */
/*@ requires \valid_read(s) && sub_ok(s) && counted <= OC_GUARD_MAX_PARAMS;
    assigns \nothing;
    ensures \result == OC_OK ==> sub_checked(s) && counted + s->nparams <= OC_GUARD_MAX_PARAMS;
*/
static oc_status check_sub(const oc_sub_optimizer *s, size_t counted)
{
    oc_status st;
    if (s->step < 0 || s->step == INT64_MAX)
        return OC_ERR_BAD_STEP;
    const oc_elementwise *ew = interface_of(s);
    if (ew == NULL)
        return OC_ERR_BAD_PROFILE;
    /*@ calls OC_ELEMENTWISE_CHECKS; */
    st = ew->check(&s->hp, s->step + 1); /* the algorithm's ERR rule */
    if (st != OC_OK)
        return st;
    if (s->nparams > OC_GUARD_MAX_PARAMS - counted)
        return OC_ERR_BAD_HPARAM;
    if (s->nparams > 0 && s->params == NULL)
        return OC_ERR_NULL_POINTER;
    /*@ loop invariant 0 <= i <= s->nparams;
        loop assigns i, st;
        loop variant s->nparams - i;
    */
    for (size_t i = 0; i < s->nparams; i++)
        if ((st = check_param(ew, s, &s->params[i])) != OC_OK)
            return st;
    return OC_OK;
}

/* STEP-UNSCALE-1: g *= inv_scale, with found_inf raised by a value that is not finite before
 * the multiplication (as _amp_foreach_non_finite_check_and_unscale_ checks it). An inv_scale of
 * exactly 1 leaves the value alone (the kernel's `inv_scale == 1 ? val : val * inv_scale`).
 * Returns the sub-optimizers holding a non-finite value, bit k for sub-optimizer k. */
unsigned oc_guard_unscale(size_t nsub, oc_sub_optimizer *subs, const float *inv_scale,
                          int scale_them)
{
    unsigned found_inf = 0;
    /*@ loop invariant 0 <= k <= nsub;
        loop assigns k, found_inf, subs[0 .. nsub - 1].params[..].grad[..];
        loop variant nsub - k;
    */
    for (size_t k = 0; k < nsub; k++)
        /*@ loop invariant 0 <= i <= subs[k].nparams;
            loop assigns i, found_inf, subs[k].params[..].grad[..];
            loop variant subs[k].nparams - i;
        */
        for (size_t i = 0; i < subs[k].nparams; i++) {
            oc_guarded_param *q = &subs[k].params[i];
            /*@ loop invariant 0 <= j <= q->n;
                loop assigns j, found_inf, q->grad[0 .. q->n - 1];
                loop variant q->n - j;
            */
            for (size_t j = 0; j < q->n; j++) {
                if (!(fabsf(q->grad[j]) <= FLT_MAX))            /* STEP-FOUND-INF-1 */
                    found_inf |= 1u << k;
                if (scale_them && inv_scale[k] != 1.0f)
                    q->grad[j] *= inv_scale[k];
            }
        }
    return found_inf;
}



/* params_upto one sub-optimizer further: calling this ghost function puts the instances among
 * the hypotheses (the provers do not find the case split over k themselves). */
/*@ ghost
  /@ assigns \nothing;
     ensures \forall integer k; 0 <= k < OC_GUARD_MAX_SUBS ==>
             params_upto(subs, k + 1) == params_upto(subs, k) + subs[k].nparams; @/
  static void params_upto_steps(const oc_sub_optimizer *subs) { }
*/

/* What the step's checks establish gives what oc_guard_norm_and_clip needs; calling this ghost
 * function once puts that fact among the hypotheses, where the writes of the float buffers and
 * the scaler state (other WP memories) leave it untouched. */
/*@ ghost
  /@ requires subs_ok(subs, nsub) && subs_checked(subs, nsub);
     assigns \nothing;
     ensures grads_ok(subs, nsub); @/
  static void grads_ok_of(oc_sub_optimizer *subs, size_t nsub) { }
*/

/* STEP-GROUP-1: whether parameter `at` of the chain (the sub-optimizers' parameters counted in
 * order) is in the separate grad-norm group 'mtp'. */
/*@ requires \valid_read(cfg) && at < OC_GUARD_MAX_PARAMS;
    assigns \nothing;
*/
static int in_mtp(const oc_guard_config *cfg, size_t at)
{
    return (cfg->mtp_params >> at & 1u) != 0;
}

/* Parameter `at` of the chain (q) as a counted view owned by sub-optimizer k (STEP-CLIP-1),
 * empty (it adds nothing to the norm) unless it is in the 'mtp' group if `mtp`, outside it
 * otherwise (STEP-GROUP-1). */
/*@ requires \valid_read(q) && \valid_read(cfg) && at < OC_GUARD_MAX_PARAMS;
    assigns \nothing;
    ensures \result.optimizer == k && \result.grad == q->grad &&
            (\result.length == q->n || \result.length == 0);
*/
static oc_clip_view view_of(int32_t k, const oc_guarded_param *q, const oc_guard_config *cfg,
                            size_t at, int mtp)
{
    return (oc_clip_view){0, 0, 0, k, 0, 0, in_mtp(cfg, at) == mtp ? q->n : 0, q->grad};
}

/* STEP-CLIP-1 (ChainedOptimizer.step), first half: one global norm over the gradients of the
 * sub-optimizers in `which` (bit k: sub-optimizer k) whose parameters are in the 'mtp' group
 * if `mtp`, else outside it (STEP-GROUP-1), computed even without clipping, and each
 * sub-optimizer's clip factor for its own clip_grad (ref/clip.c, profile megatron, one rank:
 * every parameter a counted view owned by its sub-optimizer; STEP-CLIP-2). Nothing but *norm
 * and the factors is written. */
/*@ requires \valid_read(cfg) && \valid_read(cc) && \valid(norm);
    requires \valid_read(max_norm + (0 .. OC_GUARD_MAX_SUBS - 1));
    requires \valid(factor + (0 .. OC_GUARD_MAX_SUBS - 1));
    requires \valid_read(subs + (0 .. nsub - 1));
    requires nsub <= OC_GUARD_MAX_SUBS && params_bounded(subs, nsub) && grads_ok(subs, nsub);
    assigns *norm, factor[0 .. OC_GUARD_MAX_SUBS - 1];
*/
static oc_status chained_norm(const oc_guard_config *cfg, const oc_clip_config *cc,
                              const double *max_norm, size_t nsub, const oc_sub_optimizer *subs,
                              unsigned which, int mtp, float *norm, double *factor)
{
    oc_clip_view views[OC_GUARD_MAX_PARAMS];
    size_t nviews = 0, first = 0;
    //@ ghost params_upto_steps(subs);
    /*@ loop invariant 0 <= k <= nsub && nviews <= first && first == params_upto{Pre}(subs, k);
        loop invariant params_kept: params_kept{Here, Pre}(subs, nsub);
        loop invariant grads_kept: grads_kept{Here, Pre}(subs, nsub);
        loop invariant views_valid: views_valid(&views[0], nviews);
        loop assigns k, nviews, first, views[0 .. OC_GUARD_MAX_PARAMS - 1];
        loop variant nsub - k;
    */
    for (size_t k = 0; k < nsub; k++) {
        /*@ loop invariant 0 <= i <= subs[k].nparams && nviews <= first + i;
            loop invariant params_kept: params_kept{Here, Pre}(subs, nsub);
            loop invariant grads_kept: grads_kept{Here, Pre}(subs, nsub);
            loop invariant room:
                params_upto{Pre}(subs, k) + subs[k].nparams <= OC_GUARD_MAX_PARAMS;
            loop invariant views_valid: views_valid(&views[0], nviews);
            loop assigns i, nviews, views[0 .. OC_GUARD_MAX_PARAMS - 1];
            loop variant subs[k].nparams - i;
        */
        for (size_t i = 0; (which >> k & 1u) && i < subs[k].nparams; i++)
            views[nviews++] = view_of((int32_t)k, &subs[k].params[i], cfg, first + i, mtp);
        first += subs[k].nparams;
    }
    return oc_ref_clip_chained_factors(cc, max_norm, nviews, views, norm, factor);
}

/* STEP-CLIP-1: the global norm of the main group and, for every sub-optimizer in `which`
 * whose clip_grad is > 0 (STEP-CLIP-2), the second half: its gradients times its factor, for
 * the main group's norm or, in the 'mtp' group, for that group's own norm (STEP-GROUP-1). The
 * threshold is checked by the caller, after the clipping. */
oc_status oc_guard_norm_and_clip(const oc_guard_config *cfg, size_t nsub, oc_sub_optimizer *subs,
                                 unsigned which, float *norm)
{
    double max_norm[OC_GUARD_MAX_SUBS], factor[OC_GUARD_MAX_SUBS], mtp_factor[OC_GUARD_MAX_SUBS];
    float mtp_norm;
    /*@ loop invariant 0 <= k <= OC_GUARD_MAX_SUBS;
        loop assigns k, max_norm[0 .. OC_GUARD_MAX_SUBS - 1];
        loop variant OC_GUARD_MAX_SUBS - k;
    */
    for (size_t k = 0; k < OC_GUARD_MAX_SUBS; k++)
        max_norm[k] = oc_guard_sub_clip_grad(cfg, k);
    const oc_clip_config cc = oc_guard_clip_config(cfg);
    oc_status st = chained_norm(cfg, &cc, max_norm, nsub, subs, which, 0, norm, factor);
    if (st == OC_OK)
        st = chained_norm(cfg, &cc, max_norm, nsub, subs, which, 1, &mtp_norm, mtp_factor);
    size_t first = 0;
    //@ ghost params_upto_steps(subs);
    /*@ loop invariant 0 <= k <= nsub && first == params_upto(subs, k);
        loop assigns k, first, st, subs[0 .. nsub - 1].params[..].grad[..];
        loop variant nsub - k;
    */
    for (size_t k = 0; k < nsub && st == OC_OK; k++) {
        /*@ loop invariant 0 <= i <= subs[k].nparams;
            loop invariant room: params_upto(subs, k) + subs[k].nparams <= OC_GUARD_MAX_PARAMS;
            loop assigns i, st, subs[k].params[..].grad[..];
            loop variant subs[k].nparams - i;
        */
        for (size_t i = 0; (which >> k & 1u) && max_norm[k] > 0 && i < subs[k].nparams &&
                           st == OC_OK; i++)                /* CLIP-DISABLE-1: the norm only */
            st = oc_ref_clip_scale(subs[k].params[i].n, subs[k].params[i].grad,
                                   in_mtp(cfg, first + i) ? mtp_factor[k] : factor[k]);
        first += subs[k].nparams;
    }
    return st;
}

/* STEP-TAKE-1: the sub-optimizer's own update of every parameter with counter step + 1,
 * through its algorithm's element-wise interface. */
/*@ requires \valid(s) && sub_ok(s) && sub_checked(s);
    requires s->params != \null ==> \separated(s->params + (0 .. s->nparams - 1), s);
    assigns s->step, errno, s->params[..].p[..], s->params[..].state[0 .. 2][..];
*/
static oc_status step_sub(oc_sub_optimizer *s)
{
    oc_status st = OC_OK;
    int64_t next = s->step + 1;
    const oc_elementwise *ew = interface_of(s);
    /*@ loop invariant 0 <= i <= s->nparams;
        loop assigns i, st, errno, s->params[..].p[..], s->params[..].state[0 .. 2][..];
        loop variant s->nparams - i;
    */
    for (size_t i = 0; i < s->nparams && st == OC_OK; i++) {
        oc_guarded_param *q = &s->params[i];
        /*@ calls OC_ELEMENTWISE_STEPS; */
        st = ew->step(&s->hp, next, q->n, q->p, q->state, q->grad);
    }
    if (st == OC_OK)
        s->step = next;
    return st;
}

/* STEP-TAKE-1, STEP-SKIP-1: the sub-optimizers in `stepping` (bit k: sub-optimizer k) step;
 * the others keep their counters. */
oc_status oc_guard_step_subs(size_t nsub, oc_sub_optimizer *subs, unsigned stepping)
{
    oc_status st;
    /*@ loop invariant 0 <= k <= nsub && subs_ok(subs, nsub);
        loop invariant \forall integer j; k <= j < nsub ==> sub_checked(subs + j);
        loop assigns k, st, errno, subs[0 .. nsub - 1].step,
                     subs[0 .. nsub - 1].params[..].p[..],
                     subs[0 .. nsub - 1].params[..].state[0 .. 2][..];
        loop variant nsub - k;
    */
    for (size_t k = 0; k < nsub; k++)
        if ((stepping >> k & 1u) && (st = step_sub(&subs[k])) != OC_OK)
            return st;
    return OC_OK;
}

/* STEP-SCALER-2: how many loss-scaler states the step reads and writes in the scaled mode. */
/*@ requires \valid_read(cfg);
    assigns \nothing;
    ensures \result == scaler_count(cfg, nsub);
*/
static size_t count_scalers(const oc_guard_config *cfg, size_t nsub)
{
    return cfg->sub_scalers != 0 ? nsub : 1;
}

/* STEP-SCALER-1: one loss scaler's update with its found_inf. */
/*@ requires \valid_read(scaler) && \valid(state);
    assigns *state;
*/
static void update_scaler(const oc_loss_scaler *scaler, oc_loss_scale_state *state, int found_inf)
{
    oc_loss_scale_state next = *state;
    if (oc_ref_loss_scale_update(scaler, &next, found_inf) == OC_OK)
        *state = next;
}

/* STEP-SCALER-1: the chain's one scaler sees any sub-optimizer's non-finite value;
 * STEP-SCALER-2: Megatron's scaler k sees sub-optimizer k's alone. */
void oc_guard_update_scalers(const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                             oc_loss_scale_state *states, size_t nsub, unsigned bad)
{
    if (!cfg->sub_scalers) {
        update_scaler(scaler, states, bad != 0);
        return;
    }
    /*@ loop invariant 0 <= k <= nsub;
        loop assigns k, states[0 .. nsub - 1];
        loop variant nsub - k;
    */
    for (size_t k = 0; k < nsub; k++)
        update_scaler(scaler, &states[k], (bad >> k & 1u) != 0);
}

/* STEP-UNSCALE-1: Megatron's inv_scale = scale.double().reciprocal().float() (the float
 * computations of the step are in functions of their own: WP's memory goals stay free of them). */
/*@ requires \valid_read(state);
    assigns \nothing;
*/
static float inverse_scale(const oc_loss_scale_state *state)
{
    return (float)(1.0 / (double)state->scale);
}

/* STEP-SCALER-2: with sub_scalers, sub-optimizer k unscales with its own scaler's scale (the
 * loss was multiplied by the first one's: ChainedOptimizer.get_loss_scale). */
void oc_guard_inverse_scales(const oc_guard_config *cfg, const oc_loss_scale_state *states,
                             size_t nsub, float *inv_scale)
{
    /*@ loop invariant 0 <= k <= nsub;
        loop assigns k, inv_scale[0 .. nsub - 1];
        loop variant nsub - k;
    */
    for (size_t k = 0; k < nsub; k++)
        inv_scale[k] = cfg->mode != OC_GUARD_SCALED ? 1.0f
                       : inverse_scale(&states[cfg->sub_scalers ? k : 0]);
}

double oc_guard_sub_clip_grad(const oc_guard_config *cfg, size_t k)
{
    return cfg->per_sub ? cfg->sub_clip_grad[k] : cfg->clip_grad;
}

double oc_guard_sub_skip_threshold(const oc_guard_config *cfg, size_t k)
{
    return cfg->per_sub ? cfg->sub_skip_threshold[k] : cfg->skip_threshold;
}

/* CLIP-SKIP-1: each sub-optimizer's threshold checked only when finite (Megatron:
 * math.isfinite), on the binary32 norm, and only by a sub-optimizer with a parameter in the
 * main norm (`if main_params and ...`, STEP-CLIP-2). */
int oc_guard_norm_skips(const oc_guard_config *cfg, size_t nsub, const oc_sub_optimizer *subs,
                        float norm)
{
    int skip = 0;
    size_t at = 0;
    //@ ghost params_upto_steps(subs);
    /*@ loop invariant 0 <= k <= nsub && at == params_upto(subs, k);
        loop assigns k, at, skip;
        loop variant nsub - k;
    */
    for (size_t k = 0; k < nsub; k++) {
        int main_params = 0;
        /*@ loop invariant 0 <= i <= subs[k].nparams && at == params_upto(subs, k) + i;
            loop assigns i, at, main_params;
            loop variant subs[k].nparams - i;
        */
        for (size_t i = 0; i < subs[k].nparams; i++, at++)
            main_params |= !in_mtp(cfg, at);
        double threshold = oc_guard_sub_skip_threshold(cfg, k);
        skip |= main_params && threshold <= DBL_MAX && norm > threshold;
    }
    return skip;
}

oc_clip_config oc_guard_clip_config(const oc_guard_config *cfg)
{
    return (oc_clip_config){OC_CLIP_MEGATRON, cfg->clip_grad, cfg->inf_norm, cfg->skip_threshold,
                            0, 1, 1, 1};
}

/* CLIP-CFG-1: the clipping configuration of the step and, with per_sub, of every
 * sub-optimizer (STEP-CLIP-2; its own frame: the local configuration is not in the memory WP
 * reads the sub-optimizers from). */
/*@ requires \valid_read(cfg) && nsub <= OC_GUARD_MAX_SUBS;
    assigns \nothing;
*/
static oc_status check_clip(const oc_guard_config *cfg, size_t nsub)
{
    oc_clip_config cc = oc_guard_clip_config(cfg);
    oc_status st = oc_clip_check(&cc, 0, NULL);
    if (cfg->per_sub != 0 && cfg->per_sub != 1)
        return OC_ERR_BAD_HPARAM;
    /*@ loop invariant 0 <= k <= nsub;
        loop assigns k, st, cc;
        loop variant nsub - k;
    */
    for (size_t k = 0; k < nsub && st == OC_OK; k++) {
        cc.max_norm = oc_guard_sub_clip_grad(cfg, k);
        cc.skip_threshold = oc_guard_sub_skip_threshold(cfg, k);
        st = oc_clip_check(&cc, 0, NULL);
    }
    return st;
}

oc_status oc_guarded_step_check(const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                                const oc_loss_scale_state *scaler_state, size_t nsub,
                                const oc_sub_optimizer *subs, const int64_t *position,
                                int64_t increment, const float *grad_norm,
                                const oc_step_outcome *outcome)
{
    oc_status st;
    if (cfg == NULL || position == NULL || grad_norm == NULL || outcome == NULL ||
        (nsub > 0 && subs == NULL))
        return OC_ERR_NULL_POINTER;
    if (cfg->mode == OC_GUARD_SCALED && (scaler == NULL || scaler_state == NULL))
        return OC_ERR_NULL_POINTER;
    if ((unsigned)cfg->mode >= OC_GUARD_MODE_COUNT)
        return OC_ERR_BAD_PROFILE;
    if (increment < 0 || *position < 0 || *position > INT64_MAX - increment)
        return OC_ERR_BAD_STEP;
    if (nsub > OC_GUARD_MAX_SUBS || (cfg->sub_scalers != 0 && cfg->sub_scalers != 1))
        return OC_ERR_BAD_HPARAM;
    if ((st = check_clip(cfg, nsub)) != OC_OK)
        return st;
    size_t nparams = 0;
    /*@ loop invariant 0 <= k <= nsub;
        loop invariant nparams == params_upto(subs, k) <= OC_GUARD_MAX_PARAMS;
        loop invariant params_bounded(subs, k);
        loop invariant \forall integer j; 0 <= j < k ==> sub_checked(subs + j);
        loop assigns k, nparams, st;
        loop variant nsub - k;
    */
    for (size_t k = 0; k < nsub; k++) {
        if ((st = check_sub(&subs[k], nparams)) != OC_OK)
            return st;
        nparams += subs[k].nparams;
    }
    if (nparams < OC_GUARD_MAX_PARAMS && cfg->mtp_params >> nparams != 0)
        return OC_ERR_BAD_HPARAM;       /* STEP-CFG-1: 'mtp' names a parameter the chain lacks */
    const size_t nscalers = cfg->mode == OC_GUARD_SCALED ? count_scalers(cfg, nsub) : 0;
    /*@ loop invariant 0 <= k <= nscalers;
        loop assigns k, st;
        loop variant nscalers - k;
    */
    for (size_t k = 0; k < nscalers; k++) {
        oc_loss_scale_state copy = scaler_state[k]; /* validates each, on a copy (LS-ERR-1) */
        if ((st = oc_ref_loss_scale_update(scaler, &copy, 0)) != OC_OK)
            return st;
    }
    return OC_OK;
}

oc_status oc_ref_guarded_step(const oc_guard_config *cfg, const oc_loss_scaler *scaler,
                              oc_loss_scale_state *scaler_state, size_t nsub,
                              oc_sub_optimizer *subs, int64_t *position, int64_t increment,
                              float *grad_norm, oc_step_outcome *outcome)
{
    oc_status st = oc_guarded_step_check(cfg, scaler, scaler_state, nsub, subs, position,
                                         increment, grad_norm, outcome); /* STEP-ERR-1 */
    if (st != OC_OK)
        return st;
    //@ ghost grads_ok_of(subs, nsub);
    const int64_t advanced = *position + increment;        /* checked: no overflow */
    /* Nothing fails from here on (STEP-ERR-1). STEP-ORDER-1: unscale and check, scaler, skip
     * or clip, step. */
    const unsigned all = (unsigned)((1ull << nsub) - 1);
    float norm = 0.0f;
    float inv[OC_GUARD_MAX_SUBS];
    oc_guard_inverse_scales(cfg, scaler_state, nsub, inv);
    unsigned bad = cfg->mode == OC_GUARD_UNCHECKED
                       ? 0u : oc_guard_unscale(nsub, subs, inv, cfg->mode == OC_GUARD_SCALED);
    int found_inf = bad != 0;
    if (cfg->mode == OC_GUARD_SCALED)        /* STEP-SCALER-1, -SCALER-2: before any update */
        oc_guard_update_scalers(cfg, scaler, scaler_state, nsub, bad);
    unsigned stepping = !found_inf ? all : 0u;
    if (stepping != 0 && (st = oc_guard_norm_and_clip(cfg, nsub, subs, stepping, &norm)) != OC_OK)
        return st;                                          /* STEP-CLIP-1 */
    int norm_skip = oc_guard_norm_skips(cfg, nsub, subs, norm);
    if (norm_skip)
        stepping = 0;                                       /* CLIP-SKIP-1: nobody steps */
    if ((st = oc_guard_step_subs(nsub, subs, stepping)) != OC_OK)
        return st;
    int taken = !found_inf && !norm_skip;
    if (taken)
        *position = advanced;                               /* STEP-SCHED-1 */
    *grad_norm = norm;                                      /* STEP-NORM-1: pre-clip */
    *outcome = found_inf ? OC_STEP_SKIPPED_INF : norm_skip ? OC_STEP_SKIPPED_NORM : OC_STEP_TAKEN;
    return OC_OK;
}
