/* The shared comparison of the CUDA tests (fixture.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fixture.h"

static const size_t sizes[FX_TENSORS] = {16385, 0, 1, 16384, 40000, 7, 3 * 16384 - 1};

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}
/* Uniform in [-1, 1) scaled by 2^e, e in [lo, hi). */
static float value(uint64_t *s, int lo, int hi)
{
    uint64_t r = next(s);
    float u = (float)(r >> 40) * 0x1p-23f - 1.0f;
    return ldexpf(u, lo + (int)((r >> 8) % (uint64_t)(hi - lo)));
}

void fx_init(fx_model *m, uint64_t seed, size_t bad_tensor)
{
    uint64_t s = seed | 1;
    m->nt = FX_TENSORS;
    for (size_t i = 0; i < FX_TENSORS; i++) {
        size_t n = m->n[i] = sizes[i], c = n ? n : 1;
        m->p[i] = malloc(c * sizeof(float));
        m->g[i] = malloc(c * sizeof(float));
        for (int k = 0; k < 3; k++)
            m->s[k][i] = malloc(c * sizeof(float));
        m->model[i] = malloc(c * sizeof(uint16_t));
        for (size_t j = 0; j < n; j++) {
            m->p[i][j] = value(&s, -4, 1);
            m->g[i][j] = value(&s, -12, 4);
            m->s[0][i][j] = value(&s, -12, 0);
            m->s[1][i][j] = fabsf(value(&s, -24, -4));
            m->s[2][i][j] = m->s[1][i][j] * (float)(next(&s) & 1);
            m->model[i][j] = 0;
        }
    }
    if (bad_tensor < FX_TENSORS && m->n[bad_tensor] > 0)
        m->g[bad_tensor][0] = INFINITY;
}

void fx_free(fx_model *m)
{
    for (size_t i = 0; i < m->nt; i++) {
        free(m->p[i]);
        free(m->g[i]);
        for (int k = 0; k < 3; k++)
            free(m->s[k][i]);
        free(m->model[i]);
    }
}

size_t fx_tensors(const fx_model *m, const fx_case *c, oc_fast_tensor *t)
{
    for (size_t i = 0; i < m->nt; i++)
        t[i] = (oc_fast_tensor){m->n[i], m->p[i], m->g[i],
                                {c->states > 0 ? m->s[0][i] : NULL,
                                 c->states > 1 ? m->s[1][i] : NULL,
                                 c->states > 2 ? m->s[2][i] : NULL},
                                i == 2 ? NULL : m->model[i]}; /* one tensor without a copy */
    return m->nt;
}

size_t fx_cases(fx_case *out, size_t max)
{
    static const oc_fast_opts opts[3] = {{1.0f, 1.0f, OC_FAST_MODEL_NONE},
                                         {0x1p-10f, 0.75f, OC_FAST_MODEL_BF16},
                                         {0x1p-3f, 0.3f, OC_FAST_MODEL_FP16}};
    size_t k = 0;
#define ADD(...)                                                                                  \
    do {                                                                                          \
        if (k < max)                                                                              \
            out[k] = (fx_case){__VA_ARGS__};                                                      \
        k++;                                                                                      \
    } while (0)
    for (int o = 0; o < 3; o++) {
        for (int pr = 0; pr < 4; pr++) {
            oc_adam_hparams a = {(oc_adam_profile)pr, 1e-3, 0.9, 0.999, 1e-8, 0.1, 0.0, 1.0,
                                 1, 0, 0};
            if (pr == OC_ADAM_OPTAX)
                a.eps_root = 1e-12;
            if (pr == OC_ADAM_PAPER)
                a.schedule_multiplier = 0.5;
            ADD("adam", FX_ADAM, .adam = a, .opts = opts[o], .states = 2);
            if (pr == OC_ADAM_TORCH) {
                a.amsgrad = 1, a.maximize = 1, a.decoupled = 0;
                ADD("adam amsgrad maximize l2", FX_ADAM, .adam = a, .opts = opts[o], .states = 3);
            }
        }
        oc_sgd_hparams sg[] = {{OC_SGD_TORCH, 1e-2, 0.9, 0.1, 1e-4, 0, 1},
                               {OC_SGD_TORCH, 1e-2, 0.9, 0.0, 0.0, 1, 0},
                               {OC_SGD_TORCH, 1e-2, 0.0, 0.0, 1e-4, 0, 0},
                               {OC_SGD_EMA, 2e-2, 0.95, 0.0, 0.01, 1, 0},
                               {OC_SGD_EMA, 2e-2, 0.95, 0.0, 0.01, 0, 0}};
        for (size_t i = 0; i < sizeof sg / sizeof sg[0]; i++)
            ADD("sgd", FX_SGD, .sgd = sg[i], .opts = opts[o], .states = sg[i].momentum != 0.0);
        ADD("lion", FX_LION, .lion = {OC_LION_TORCH, 1e-4, 0.9, 0.99, 0.1}, .opts = opts[o],
            .states = 1);
    }
#undef ADD
    return k;
}

oc_status fx_cpu_step(const fx_case *c, int64_t step, size_t nt, const oc_fast_tensor *t,
                      int *found)
{
    switch (c->family) {
    case FX_ADAM: return oc_fast_adam_step(&c->adam, step, &c->opts, nt, t, found);
    case FX_SGD: return oc_fast_sgd_step(&c->sgd, step, &c->opts, nt, t, found);
    default: return oc_fast_lion_step(&c->lion, step, &c->opts, nt, t, found);
    }
}

static size_t diff_f32(const float *a, const float *b, size_t n)
{
    size_t d = 0;
    for (size_t i = 0; i < n; i++)
        d += !(isnan(a[i]) && isnan(b[i])) && memcmp(&a[i], &b[i], sizeof(float)) != 0;
    return d;
}

static size_t diff_models(const fx_model *a, const fx_model *b, const fx_case *c)
{
    size_t d = 0;
    for (size_t i = 0; i < a->nt; i++) {
        d += diff_f32(a->p[i], b->p[i], a->n[i]);
        for (int k = 0; k < c->states; k++)
            d += diff_f32(a->s[k][i], b->s[k][i], a->n[i]);
        for (size_t j = 0; j < a->n[i]; j++) { /* NaN copies: both NaN */
            uint16_t x = a->model[i][j], y = b->model[i][j];
            int nan = c->opts.model == OC_FAST_MODEL_BF16 ? 0x7f80 : 0x7c00;
            int frac = c->opts.model == OC_FAST_MODEL_BF16 ? 0x7f : 0x3ff;
            d += x != y && !((x & nan) == nan && (x & frac) && (y & nan) == nan && (y & frac));
        }
    }
    return d;
}

size_t fx_compare_with_cpu(fx_runner run, int steps)
{
    fx_case cases[64];
    size_t nc = fx_cases(cases, 64), total = 0, shown = 0;
    for (size_t k = 0; k < nc && k < 64; k++) {
        fx_model a, b;
        oc_fast_tensor ta[FX_TENSORS], tb[FX_TENSORS];
        size_t bad = k % 5 == 4 ? 4 : FX_TENSORS; /* some cases see an infinite gradient */
        fx_init(&a, 1000 + k, bad);
        fx_init(&b, 1000 + k, bad);
        size_t nt = fx_tensors(&a, &cases[k], ta), d = 0;
        fx_tensors(&b, &cases[k], tb);
        for (int s = 1; s <= steps; s++) {
            int fa = -1, fb = -1;
            oc_status sa = fx_cpu_step(&cases[k], s, nt, ta, &fa);
            oc_status sb = run(&cases[k], s, nt, tb, &fb);
            d += (sa != OC_OK) + (sb != OC_OK) + (fa != fb) + (fa != (bad < FX_TENSORS));
        }
        d += diff_models(&a, &b, &cases[k]);
        if (d && shown++ < 5)
            printf("case %zu (%s, model kind %d): %zu differences\n", k, cases[k].name,
                   (int)cases[k].opts.model, d);
        total += d;
        fx_free(&a);
        fx_free(&b);
    }
    return total;
}

void fx_ns_normalize(double *x, size_t n, float eps)
{
    double nrm = 0.0;
    for (size_t i = 0; i < n; i++)
        nrm += x[i] * x[i];
    double d = (double)((float)sqrt(nrm) + eps);
    for (size_t i = 0; i < n; i++)
        x[i] /= d;
}

void fx_ns_iterate(double *x, int r, int c, int steps, const oc_cuda_ns_coef *k)
{
    int wide = r <= c, s = wide ? r : c, l = wide ? c : r;
    double *a = calloc((size_t)s * s, sizeof *a), *b = calloc((size_t)s * s, sizeof *b);
    double *y = calloc((size_t)r * c, sizeof *y);
    /* Z = X (s x l) when wide, else X^T: element (i, j) of Z */
#define Z(i, j) (*(wide ? &x[(size_t)(i) * c + (j)] : &x[(size_t)(j) * c + (i)]))
    for (int it = 0; it < steps; it++) {
        for (int i = 0; i < s; i++)
            for (int j = 0; j < s; j++) {
                double acc = 0.0;
                for (int q = 0; q < l; q++)
                    acc += Z(i, q) * Z(j, q);
                a[(size_t)i * s + j] = acc;
            }
        for (int i = 0; i < s; i++)
            for (int j = 0; j < s; j++) {
                double acc = 0.0;
                for (int q = 0; q < s; q++)
                    acc += a[(size_t)i * s + q] * a[(size_t)q * s + j];
                b[(size_t)i * s + j] = k[it].b * a[(size_t)i * s + j] + k[it].c * acc;
            }
        for (int i = 0; i < s; i++)
            for (int j = 0; j < l; j++) {
                double acc = 0.0;
                for (int q = 0; q < s; q++)
                    acc += b[(size_t)i * s + q] * Z(q, j);
                y[(size_t)i * l + j] = k[it].a * Z(i, j) + acc;
            }
        for (int i = 0; i < s; i++)
            for (int j = 0; j < l; j++)
                Z(i, j) = y[(size_t)i * l + j];
    }
#undef Z
    free(a);
    free(b);
    free(y);
}
