/* An example third-party plugin, written the way an outsider would: plain fp32 loops with
 * their own operation order (Adam's bias corrections with powf in fp32, step size folded, FMA
 * contraction allowed). It claims Adam (torch profile, with amsgrad and maximize), SGD (torch
 * profile, with Nesterov and maximize), Lion, Megatron's schedule in binary64, the guarded
 * chained step of those three (spec/guarded_step.md) in fp32, and runs the
 * element-wise ones with bf16/fp16 parameters and bf16 state by widening into fp32 scratch
 * copies, stepping them, and narrowing back (the compiler's _Float16 for fp16, the usual
 * rounding bit trick for bf16).
 * Build: cc -O2 -ffp-contract=fast -shared -fPIC naive_plugin.c -Iinclude -lm -o libnaive_plugin.so
 * Certify: optcert certify --impl ./libnaive_plugin.so */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/impl.h"

static oc_status naive_adam_step(void *ctx, const oc_adam_hparams *hp, int64_t step, size_t n,
                                 float *p, float *m, float *v, float *vmax, const float *g)
{
    (void)ctx;
    if (hp->profile != OC_ADAM_TORCH || hp->eps_root != 0 || hp->schedule_multiplier != 1)
        return OC_ERR_UNSUPPORTED;
    if (!(hp->beta1 >= 0 && hp->beta1 < 1) || !(hp->beta2 >= 0 && hp->beta2 < 1) ||
        !(hp->eps > 0 && isfinite(hp->eps)) || !(hp->lr >= 0 && isfinite(hp->lr)) ||
        !(hp->weight_decay >= 0 && isfinite(hp->weight_decay)))
        return OC_ERR_BAD_HPARAM;
    if (step < 1)
        return OC_ERR_BAD_STEP;
    if (n && (!p || !m || !v || !g || (hp->amsgrad && !vmax)))
        return OC_ERR_NULL_POINTER;
    const float lr = (float)hp->lr, b1 = (float)hp->beta1, b2 = (float)hp->beta2;
    const float eps = (float)hp->eps, wd = (float)hp->weight_decay;
    const float bc1 = 1.0f - powf(b1, (float)step);
    const float bc2_sqrt = sqrtf(1.0f - powf(b2, (float)step));
    const float step_size = lr / bc1;
    for (size_t i = 0; i < n; i++) {
        float grad = hp->maximize ? -g[i] : g[i];
        float param = p[i];
        if (hp->decoupled)
            param *= 1.0f - lr * wd;
        else
            grad += wd * param;
        m[i] = b1 * m[i] + (1.0f - b1) * grad;
        v[i] = b2 * v[i] + (1.0f - b2) * grad * grad;
        float second = v[i];
        if (hp->amsgrad) {
            vmax[i] = fmaxf(vmax[i], v[i]);
            second = vmax[i];
        }
        float denom = sqrtf(second) / bc2_sqrt + eps;
        p[i] = param - step_size * (m[i] / denom);
    }
    return OC_OK;
}

static oc_status naive_sgd_step(void *ctx, const oc_sgd_hparams *hp, int64_t step, size_t n,
                                float *p, float *buf, const float *g)
{
    (void)ctx;
    if (hp->profile != OC_SGD_TORCH)
        return OC_ERR_UNSUPPORTED;
    if (!(hp->lr >= 0 && isfinite(hp->lr)) || !(hp->momentum >= 0 && hp->momentum < 1) ||
        !(hp->dampening >= 0 && hp->dampening <= 1) ||
        !(hp->weight_decay >= 0 && isfinite(hp->weight_decay)) ||
        (hp->nesterov && (hp->momentum == 0 || hp->dampening != 0)))
        return OC_ERR_BAD_HPARAM;
    if (step < 1)
        return OC_ERR_BAD_STEP;
    if (n && (!p || !g || (hp->momentum != 0 && !buf)))
        return OC_ERR_NULL_POINTER;
    const float lr = (float)hp->lr, mu = (float)hp->momentum, wd = (float)hp->weight_decay;
    const float damp = (float)hp->dampening;
    for (size_t i = 0; i < n; i++) {
        float d = (hp->maximize ? -g[i] : g[i]) + wd * p[i];
        if (mu != 0) {
            buf[i] = step == 1 ? d : mu * buf[i] + (1 - damp) * d;
            d = hp->nesterov ? d + mu * buf[i] : buf[i];
        }
        p[i] -= lr * d;
    }
    return OC_OK;
}

static oc_status naive_lion_step(void *ctx, const oc_lion_hparams *hp, int64_t step, size_t n,
                                 float *p, float *m, const float *g)
{
    (void)ctx;
    if (!(hp->lr >= 0 && isfinite(hp->lr)) || !(hp->beta1 >= 0 && hp->beta1 < 1) ||
        !(hp->beta2 >= 0 && hp->beta2 < 1) ||
        !(hp->weight_decay >= 0 && isfinite(hp->weight_decay)))
        return OC_ERR_BAD_HPARAM;
    if (step < 1)
        return OC_ERR_BAD_STEP;
    if (n && (!p || !m || !g))
        return OC_ERR_NULL_POINTER;
    const float lr = (float)hp->lr, b1 = (float)hp->beta1, b2 = (float)hp->beta2;
    const float wd = (float)hp->weight_decay;
    for (size_t i = 0; i < n; i++) {
        float c = b1 * m[i] + (1 - b1) * g[i];
        float sign = (c > 0) - (c < 0);
        p[i] = p[i] * (1 - lr * wd) - lr * sign;
        m[i] = b2 * m[i] + (1 - b2) * g[i];
    }
    return OC_OK;
}

/* Megatron's schedule written out in binary64, in Megatron's own forms. */
static oc_status naive_schedule_eval(void *ctx, const oc_schedule *s, int64_t n, double *lr,
                                     double *wd)
{
    (void)ctx;
    if (!(s->min_lr >= 0 && s->max_lr >= s->min_lr && s->init_lr >= 0 &&
          s->init_lr <= s->max_lr && isfinite(s->max_lr)) ||
        s->decay_steps <= 0 || s->warmup_steps < 0 || s->warmup_steps >= s->decay_steps ||
        (s->decay_style == OC_LR_WSD &&
         (s->wsd_decay_steps <= 0 || s->wsd_decay_steps > s->decay_steps)) ||
        !(s->start_wd >= 0 && s->end_wd >= s->start_wd && isfinite(s->end_wd)) ||
        (s->wd_style == OC_WD_CONSTANT && s->start_wd != s->end_wd) || s->wd_incr_steps <= 0 ||
        !(s->wd_mult >= 0) || !isfinite(s->end_wd * s->wd_mult))
        return OC_ERR_BAD_HPARAM;
    if (n < 0)
        return OC_ERR_BAD_STEP;
    const double pi = 3.141592653589793;
    int64_t W = s->warmup_steps, D = s->decay_steps;
    double coeff = 1.0, l;
    if (W > 0 && n <= W)
        l = s->init_lr + (s->max_lr - s->init_lr) * (double)n / (double)W;
    else if (s->decay_style == OC_LR_CONSTANT)
        l = s->max_lr;
    else if (n > D)
        l = s->min_lr;
    else if (s->decay_style == OC_LR_INVERSE_SQRT)
        l = fmax(s->min_lr, s->max_lr * sqrt((double)(W > 1 ? W : 1)) / sqrt((double)(n > 1 ? n : 1)));
    else {
        double r = (double)(n - W) / (double)(D - W);
        if (s->decay_style == OC_LR_LINEAR)
            coeff = 1.0 - r;
        else if (s->decay_style == OC_LR_COSINE)
            coeff = 0.5 * (cos(pi * r) + 1.0);
        else if (n > D - s->wsd_decay_steps) {
            double w = (double)(n - (D - s->wsd_decay_steps)) / (double)s->wsd_decay_steps;
            coeff = s->wsd_style == OC_WSD_LINEAR        ? 1.0 - w
                    : s->wsd_style == OC_WSD_COSINE      ? 0.5 * (cos(pi * w) + 1.0)
                    : s->wsd_style == OC_WSD_EXPONENTIAL ? 2.0 * pow(0.5, w) - 1.0
                                                         : 1.0 - sqrt(w);
        }
        l = s->min_lr + coeff * (s->max_lr - s->min_lr);
    }
    double w = s->end_wd;
    if (n <= s->wd_incr_steps && s->wd_style != OC_WD_CONSTANT) {
        double r = (double)n / (double)s->wd_incr_steps;
        double c = s->wd_style == OC_WD_LINEAR ? r : 0.5 * (cos(pi * (1 - r)) + 1.0);
        w = s->start_wd + c * (s->end_wd - s->start_wd);
    }
    *lr = l;
    *wd = w * s->wd_mult;
    return OC_OK;
}

static uint16_t to_bf16(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40); /* NaN stays a quiet NaN */
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static float from_16(oc_format f, uint16_t h)
{
    if (f == OC_FMT_F16) {
        _Float16 x;
        memcpy(&x, &h, sizeof x);
        return (float)x;
    }
    uint32_t u = (uint32_t)h << 16;
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static uint16_t to_16(oc_format f, float x)
{
    if (f == OC_FMT_BF16)
        return to_bf16(x);
    _Float16 y = (_Float16)x;
    uint16_t h;
    memcpy(&h, &y, sizeof h);
    return h;
}

static oc_status naive_mixed_step(void *ctx, oc_algorithm alg, const void *hp,
                                  const oc_storage *s, int64_t step, size_t n, void *param,
                                  float *master, void *const *state, const float *g)
{
    int ns = alg == OC_ALG_ADAM ? 2 + (((const oc_adam_hparams *)hp)->amsgrad != 0)
             : alg == OC_ALG_SGD ? ((const oc_sgd_hparams *)hp)->momentum != 0
                                 : 1;
    if ((s->param != OC_FMT_F32) != (master != NULL) || (n && !param))
        return OC_ERR_NULL_POINTER;
    float *w = malloc((size_t)(ns + 1) * (n + 1) * sizeof(float));
    if (!w)
        return OC_ERR_INTERNAL;
    float *ws[4];
    for (int k = 0; k <= ns; k++)
        ws[k] = w + (size_t)k * (n + 1);
    for (size_t i = 0; i < n; i++) {
        ws[0][i] = master ? master[i] : ((float *)param)[i];
        for (int k = 0; k < ns; k++)
            ws[k + 1][i] = s->state == OC_FMT_F32 ? ((float *)state[k])[i]
                                                  : from_16(s->state, ((uint16_t *)state[k])[i]);
    }
    oc_status st = alg == OC_ALG_ADAM ? naive_adam_step(ctx, hp, step, n, ws[0], ws[1], ws[2],
                                                        ns == 3 ? ws[3] : NULL, g)
                   : alg == OC_ALG_SGD ? naive_sgd_step(ctx, hp, step, n, ws[0],
                                                        ns ? ws[1] : NULL, g)
                                       : naive_lion_step(ctx, hp, step, n, ws[0], ws[1], g);
    for (size_t i = 0; i < n && st == OC_OK; i++) {
        if (master)
            master[i] = ws[0][i];
        if (s->param == OC_FMT_F32)
            ((float *)param)[i] = ws[0][i];
        else
            ((uint16_t *)param)[i] = to_16(s->param, ws[0][i]);
        for (int k = 0; k < ns; k++)
            if (s->state == OC_FMT_F32)
                ((float *)state[k])[i] = ws[k + 1][i];
            else
                ((uint16_t *)state[k])[i] = to_16(s->state, ws[k + 1][i]);
    }
    free(w);
    return st;
}

/* One sub-optimizer of a chain on one parameter (q NULL: its checks only, nothing written). */
static oc_status naive_sub_step(const oc_sub_optimizer *s, const oc_guarded_param *q)
{
    static const oc_guarded_param none = {0, NULL, {NULL, NULL, NULL}, NULL};
    const oc_guarded_param *b = q ? q : &none;
    if (s->kind == OC_ALG_ADAM)
        return naive_adam_step(NULL, &s->hp.adam, s->step + 1, b->n, b->p, b->state[0],
                               b->state[1], b->state[2], b->grad);
    if (s->kind == OC_ALG_SGD)
        return naive_sgd_step(NULL, &s->hp.sgd, s->step + 1, b->n, b->p, b->state[0], b->grad);
    if (s->kind == OC_ALG_LION)
        return naive_lion_step(NULL, &s->hp.lion, s->step + 1, b->n, b->p, b->state[0], b->grad);
    return OC_ERR_BAD_PROFILE;
}

/* Megatron's DynamicGradScaler.update, in float. */
static void naive_scaler_update(const oc_loss_scaler *c, oc_loss_scale_state *s, int found_inf)
{
    if (found_inf) {
        s->growth_tracker = 0;
        if (--s->hysteresis_tracker <= 0)
            s->scale = fmaxf(s->scale * c->backoff_factor, c->min_scale);
    } else if (++s->growth_tracker == c->growth_interval) {
        s->growth_tracker = 0;
        s->hysteresis_tracker = c->hysteresis;
        s->scale *= c->growth_factor;
    }
}

/* The loss-scaler state `ls` as LS-CFG-1 and LS-STATE-1 require: 0, else the status. */
static oc_status naive_scaler_check(const oc_loss_scaler *scaler, const oc_loss_scale_state *ls)
{
    if (!(ls->scale > 0 && isfinite(ls->scale)) || !(scaler->growth_factor > 1) ||
        !(scaler->backoff_factor > 0 && scaler->backoff_factor < 1) ||
        !(scaler->min_scale > 0) || scaler->growth_interval < 1 || scaler->hysteresis < 1)
        return OC_ERR_BAD_HPARAM;
    if (ls->growth_tracker < 0 || ls->growth_tracker >= scaler->growth_interval ||
        ls->hysteresis_tracker <= OC_LS_MIN_HYSTERESIS_TRACKER ||
        ls->hysteresis_tracker > scaler->hysteresis)
        return OC_ERR_BAD_STEP;
    return OC_OK;
}

/* The guarded chained step (spec/guarded_step.md) written out in fp32: unscale and check, update the
 * scaler (or, with cfg->sub_scalers, each sub-optimizer's own: STEP-SCALER-2), one float sum of
 * squares over every gradient, a float coefficient, the threshold, then each sub-optimizer's
 * own fp32 step. Everything is checked before anything is written. The option "scalers" needs
 * plugin ABI v3 to be claimed; conformance/tests/test_guarded_step_family.c claims it for this
 * function through a v3 table. */
static oc_status naive_guarded_step(void *ctx, const oc_guard_config *cfg,
                                    const oc_loss_scaler *scaler, oc_loss_scale_state *ls,
                                    size_t nsub, oc_sub_optimizer *subs, int64_t *position,
                                    int64_t increment, float *grad_norm, oc_step_outcome *outcome)
{
    (void)ctx;
    if (!cfg || !position || !grad_norm || !outcome || (nsub && !subs) ||
        (cfg->mode == OC_GUARD_SCALED && (!scaler || !ls)))
        return OC_ERR_NULL_POINTER;
    if ((unsigned)cfg->mode >= OC_GUARD_MODE_COUNT)
        return OC_ERR_BAD_PROFILE;
    if (increment < 0 || *position < 0 || *position > INT64_MAX - increment)
        return OC_ERR_BAD_STEP;
    if (nsub > OC_GUARD_MAX_SUBS || isnan(cfg->clip_grad) || isinf(cfg->clip_grad) ||
        !(cfg->skip_threshold > 0) || (cfg->inf_norm != 0 && cfg->inf_norm != 1) ||
        (cfg->sub_scalers != 0 && cfg->sub_scalers != 1))
        return OC_ERR_BAD_HPARAM;
    const size_t nscalers = cfg->mode != OC_GUARD_SCALED ? 0 : cfg->sub_scalers ? nsub : 1;
    for (size_t k = 0; k < nscalers; k++) {
        oc_status st = naive_scaler_check(scaler, &ls[k]);
        if (st != OC_OK)
            return st;
    }
    for (size_t k = 0; k < nsub; k++) {
        oc_status st;
        if (subs[k].step < 0 || subs[k].step == INT64_MAX)
            return OC_ERR_BAD_STEP;
        if ((st = naive_sub_step(&subs[k], NULL)) != OC_OK)
            return st;
        for (size_t i = 0; i < subs[k].nparams; i++)
            if (!subs[k].params || !subs[k].params[i].p || !subs[k].params[i].grad)
                return OC_ERR_NULL_POINTER;
    }
    int found_inf = 0, bad[OC_GUARD_MAX_SUBS] = {0};
    float sum = 0.0f;
    for (size_t k = 0; k < nsub; k++) {
        const float inv = cfg->mode == OC_GUARD_SCALED
                              ? 1.0f / ls[cfg->sub_scalers ? k : 0].scale : 1.0f;
        for (size_t i = 0; i < subs[k].nparams; i++)
            for (size_t j = 0; j < subs[k].params[i].n; j++) {
                float *g = &subs[k].params[i].grad[j];
                bad[k] |= cfg->mode != OC_GUARD_UNCHECKED && !isfinite(*g);
                *g *= inv;
            }
        found_inf |= bad[k];
    }
    for (size_t k = 0; k < nscalers; k++)
        naive_scaler_update(scaler, &ls[k], cfg->sub_scalers ? bad[k] : found_inf);
    if (found_inf) {
        *grad_norm = 0.0f;
        *outcome = OC_STEP_SKIPPED_INF;
        return OC_OK;
    }
    for (size_t k = 0; k < nsub; k++)
        for (size_t i = 0; i < subs[k].nparams; i++)
            for (size_t j = 0; j < subs[k].params[i].n; j++) {
                float g = subs[k].params[i].grad[j];
                sum = cfg->inf_norm ? (isnan(g) || isnan(sum) ? NAN : fmaxf(sum, fabsf(g)))
                                    : sum + g * g;
            }
    const float norm = cfg->inf_norm ? sum : sqrtf(sum);
    const float coeff = (float)cfg->clip_grad / (norm + 1e-6f);
    for (size_t k = 0; cfg->clip_grad > 0 && coeff < 1.0f && k < nsub; k++)
        for (size_t i = 0; i < subs[k].nparams; i++)
            for (size_t j = 0; j < subs[k].params[i].n; j++)
                subs[k].params[i].grad[j] *= coeff;
    *grad_norm = norm;
    *outcome = OC_STEP_TAKEN;
    if (isfinite(cfg->skip_threshold) && norm > cfg->skip_threshold) {
        *outcome = OC_STEP_SKIPPED_NORM;
        return OC_OK;
    }
    for (size_t k = 0; k < nsub; k++) {
        for (size_t i = 0; i < subs[k].nparams; i++)
            naive_sub_step(&subs[k], &subs[k].params[i]); /* checked above: cannot fail */
        subs[k].step++;
    }
    *position += increment;
    return OC_OK;
}

static const oc_impl naive_plugin = {
    .abi_version = OC_IMPL_ABI_VERSION,
    .name = "naive-plugin (example)",
    .version = "1.0",
    .capabilities = OC_CAP_ADAM_TORCH | OC_CAP_ADAM_AMSGRAD | OC_CAP_ADAM_MAXIMIZE |
                    OC_CAP_SGD_TORCH | OC_CAP_SGD_NESTEROV | OC_CAP_SGD_MAXIMIZE |
                    OC_CAP_LION_TORCH | OC_CAP_SCHEDULE_MEGATRON | OC_CAP_MIXED_BF16 |
                    OC_CAP_MIXED_F16 | OC_CAP_MIXED_STATE_BF16 | OC_CAP_STEP_SCALED |
                    OC_CAP_STEP_UNCHECKED | OC_CAP_STEP_CHECKED,
    .adam_step = naive_adam_step,
    .sgd_step = naive_sgd_step,
    .lion_step = naive_lion_step,
    .schedule_eval = naive_schedule_eval,
    .mixed_step = naive_mixed_step,
    .guarded_step = naive_guarded_step,
};

const oc_impl *optcert_impl_v1(void) { return &naive_plugin; }
