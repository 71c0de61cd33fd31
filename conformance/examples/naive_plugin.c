/* An example third-party plugin, written the way an outsider would: plain fp32 loops with
 * their own operation order (Adam's bias corrections with powf in fp32, step size folded, FMA
 * contraction allowed). It claims Adam (torch profile, with amsgrad and maximize), SGD (torch
 * profile, with Nesterov and maximize) and Lion.
 * Build: cc -O2 -ffp-contract=fast -shared -fPIC naive_plugin.c -Iinclude -lm -o libnaive_plugin.so
 * Certify: optcert certify --impl ./libnaive_plugin.so */
#include <math.h>
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

static const oc_impl naive_plugin = {
    .abi_version = OC_IMPL_ABI_VERSION,
    .name = "naive-plugin (example)",
    .version = "1.0",
    .capabilities = OC_CAP_ADAM_TORCH | OC_CAP_ADAM_AMSGRAD | OC_CAP_ADAM_MAXIMIZE |
                    OC_CAP_SGD_TORCH | OC_CAP_SGD_NESTEROV | OC_CAP_SGD_MAXIMIZE |
                    OC_CAP_LION_TORCH,
    .adam_step = naive_adam_step,
    .sgd_step = naive_sgd_step,
    .lion_step = naive_lion_step,
};

const oc_impl *optcert_impl_v1(void) { return &naive_plugin; }
