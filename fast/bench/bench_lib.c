/* The bandwidth peers of fast/bench/bench.py (loaded with ctypes; results in RESULTS.md):
 * streaming kernels that move exactly the bytes of an optimizer pass and do no arithmetic, and
 * STREAM's copy/scale/add/triad, all written one way: AVX2 loads and stores of 8 floats, with
 * ordinary or non-temporal (streaming) stores, cut into the chunks of OC_FAST_CHUNK elements
 * the fast steps use and shared among the OpenMP threads as they share them (FAST-MT-1:
 * schedule(dynamic, 1) over the chunks of all tensors). The file is compiled with -mavx2. */
#include <cblas.h>
#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/fast.h"
#include "ns_products.h"

/* Which streams a same-traffic pass moves (bits of `pattern`). */
enum {
    ST_READ_ONLY = 1, /* read g only (the FAST-NORM-1 pass); the other bits are ignored */
    ST_STATE1 = 2,    /* read and write state[0] */
    ST_STATE2 = 4,    /* read and write state[1] too */
    ST_WRITE_G = 8,   /* write g back in place (the guarded step's unscaled, clipped gradient) */
};

/* Makes the compiler treat x as unknown: the load is needed and the store of it is kept. */
#define KEEP(x) __asm__ volatile("" : "+x"(x))

static inline void put(float *d, __m256 x, int nt)
{
    if (nt)
        _mm256_stream_ps(d, x);
    else
        _mm256_store_ps(d, x);
}

/* The upper halves of 8 floats (bf16 truncation: a 16-bit store stream, no rounding work). */
static inline void put_half(uint16_t *d, __m256 x, int nt)
{
    __m256i h = _mm256_srli_epi32(_mm256_castps_si256(x), 16);
    __m128i s = _mm_packus_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    if (nt)
        _mm_stream_si128((__m128i *)d, s);
    else
        _mm_store_si128((__m128i *)d, s);
}

static inline int aligned(const void *x, uintptr_t a) { return ((uintptr_t)x & (a - 1)) == 0; }

/* nt: bit 0 non-temporal stores of the fp32 streams, bit 1 of the copy. One chunk: loads of p (unless read-only), the states and g; stores of the same values to the
 * streams the pattern writes and of the upper halves of p to the copy h (NULL: none). */
static inline __attribute__((always_inline)) void
same_chunk(const int pat, const int nt, size_t n, float *p, float *s0, float *s1, float *g,
           uint16_t *h)
{
    const int ro = pat & ST_READ_ONLY, ns = ro ? 0 : (pat & ST_STATE2) ? 2 : (pat & ST_STATE1) ? 1 : 0;
    const int wg = !ro && (pat & ST_WRITE_G);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 xg = _mm256_load_ps(g + i);
        KEEP(xg);
        if (wg)
            put(g + i, xg, nt & 1);
        if (ro)
            continue;
        __m256 xp = _mm256_load_ps(p + i);
        KEEP(xp);
        if (ns > 0) {
            __m256 x0 = _mm256_load_ps(s0 + i);
            KEEP(x0);
            put(s0 + i, x0, nt & 1);
        }
        if (ns > 1) {
            __m256 x1 = _mm256_load_ps(s1 + i);
            KEEP(x1);
            put(s1 + i, x1, nt & 1);
        }
        put(p + i, xp, nt & 1);
        if (h)
            put_half(h + i, xp, nt & 2);
    }
    for (; i < n; i++) { /* the tail of a tensor: ordinary scalar moves */
        volatile float x = g[i];
        if (wg)
            g[i] = x;
        if (!ro) {
            p[i] = *(volatile float *)&p[i];
            if (ns > 0)
                s0[i] = *(volatile float *)&s0[i];
            if (ns > 1)
                s1[i] = *(volatile float *)&s1[i];
            if (h)
                h[i] = (uint16_t)(*(volatile uint32_t *)&p[i] >> 16);
        }
    }
}

/* One chunk of tensor k: elements [off, off + len). */
typedef void (*chunk_fn)(const void *ctx, size_t k, size_t off, size_t len);

/* Calls f for every chunk of every tensor (lengths len[0..ntensors-1]), the chunks shared
 * among the threads as the fast steps share them; then orders the streaming stores. */
static void for_each_chunk(size_t ntensors, size_t (*len)(const void *ctx, size_t k),
                           chunk_fn f, const void *ctx)
{
    long long nc = 0;
    for (size_t k = 0; k < ntensors; k++)
        nc += (long long)((len(ctx, k) + OC_FAST_CHUNK - 1) / OC_FAST_CHUNK);
#pragma omp parallel for schedule(dynamic, 1) if (nc > 2)
    for (long long c = 0; c < nc; c++) {
        size_t k = 0, rest = (size_t)c, m;
        while (rest >= (m = (len(ctx, k) + OC_FAST_CHUNK - 1) / OC_FAST_CHUNK))
            rest -= m, k++;
        size_t off = rest * OC_FAST_CHUNK, left = len(ctx, k) - off;
        f(ctx, k, off, left < OC_FAST_CHUNK ? left : OC_FAST_CHUNK);
    }
    _mm_sfence();
}

typedef struct same_ctx {
    const oc_fast_tensor *t;
} same_ctx;

static size_t tensor_len(const void *ctx, size_t k) { return ((const same_ctx *)ctx)->t[k].n; }

/* One compiled loop per pattern and store kind. */
#define SAME(pat, nt)                                                                         \
    static void same_##pat##_##nt(const void *ctx, size_t k, size_t off, size_t len)          \
    {                                                                                         \
        const oc_fast_tensor *t = &((const same_ctx *)ctx)->t[k];                             \
        same_chunk(pat, nt, len, t->param + off, t->state[0] ? t->state[0] + off : NULL,       \
                   t->state[1] ? t->state[1] + off : NULL, (float *)t->grad + off,            \
                   t->model ? t->model + off : NULL);                                         \
    }
SAME(1, 0)  /* g read: the FAST-NORM-1 pass */
SAME(2, 0)  /* p, one state, g read; p, the state (and the copy) written: SGD momentum, Lion */
SAME(2, 2)
SAME(2, 3)
SAME(6, 0)  /* p, m, v, g read; p, m, v (and the copy) written: Adam */
SAME(6, 2)
SAME(6, 3)
SAME(14, 0) /* as Adam, g written too: the guarded step's fused pass */
SAME(14, 2)
SAME(14, 3)

/* The same-traffic pass over the tensors of a step: pattern 1, 2, 6 or 14 as above, the copy
 * where t[i].model is set; nt: the stores, 0 ordinary, 1 non-temporal for the copy only, 2
 * non-temporal for every stream. Returns 0; -1 if a stream is not aligned to 32 bytes (16 for
 * the copy), which the vector loads and stores need; -2 for another pattern or nt. */
int oc_bench_same_traffic(int pattern, int nt, size_t ntensors, const oc_fast_tensor *t)
{
    for (size_t i = 0; i < ntensors; i++)
        if (!aligned(t[i].param, 32) || !aligned(t[i].grad, 32) || !aligned(t[i].state[0], 32) ||
            !aligned(t[i].state[1], 32) || !aligned(t[i].model, 16))
            return -1;
    static const chunk_fn fns[][3] = {{same_2_0, same_2_2, same_2_3},
                                      {same_6_0, same_6_2, same_6_3},
                                      {same_14_0, same_14_2, same_14_3}};
    int row = pattern == 2 ? 0 : pattern == 6 ? 1 : pattern == 14 ? 2 : -1;
    if ((pattern != 1 && row < 0) || nt < 0 || nt > 2)
        return -2;
    chunk_fn f = pattern == 1 ? same_1_0 : fns[row][nt];
    same_ctx ctx = {t};
    for_each_chunk(ntensors, tensor_len, f, &ctx);
    return 0;
}

/* STREAM's kernels (kind 0 copy c = a, 1 scale b = s c, 2 add c = a + b, 3 triad
 * a = b + s c) over n floats (a multiple of 8, 32-byte aligned), chunked and threaded as above. */
typedef struct stream_ctx {
    size_t n;
    float *a, *b, *c;
} stream_ctx;

static size_t stream_len(const void *ctx, size_t k) { return (void)k, ((const stream_ctx *)ctx)->n; }

#define STREAM(name, nt, dst, expr)                                                           \
    static void name##_##nt(const void *ctx, size_t k, size_t off, size_t len)                \
    {                                                                                         \
        const stream_ctx *x = ctx;                                                            \
        const float *a = x->a, *b = x->b, *c = x->c;                                          \
        const __m256 s = _mm256_set1_ps(3.0f);                                                \
        (void)k, (void)a, (void)b, (void)c, (void)s;                                          \
        for (size_t i = off; i + 8 <= off + len; i += 8)                                      \
            put(x->dst + i, expr, nt);                                                        \
    }
#define STREAM_BOTH(name, dst, expr) STREAM(name, 0, dst, expr) STREAM(name, 1, dst, expr)
STREAM_BOTH(copy, c, _mm256_load_ps(a + i))
STREAM_BOTH(scale, b, _mm256_mul_ps(s, _mm256_load_ps(c + i)))
STREAM_BOTH(add, c, _mm256_add_ps(_mm256_load_ps(a + i), _mm256_load_ps(b + i)))
STREAM_BOTH(triad, a, _mm256_add_ps(_mm256_load_ps(b + i), _mm256_mul_ps(s, _mm256_load_ps(c + i))))

void oc_bench_stream(int kind, int nt, size_t n, float *a, float *b, float *c)
{
    static const chunk_fn fns[4][2] = {
        {copy_0, copy_1}, {scale_0, scale_1}, {add_0, add_1}, {triad_0, triad_1}};
    stream_ctx ctx = {n, a, b, c};
    for_each_chunk(1, stream_len, fns[kind & 3][nt != 0], &ctx);
}

/* ---- The subjects the ctypes side cannot describe without mirroring the structures ---- */

/* A guarded step (FAST-STEP-1) of one AdamW sub-optimizer over ntensors <= OC_GUARD_MAX_PARAMS
 * tensors (param, grad, state[0..1] of t): fp16 mode with Megatron's scaler at scale 2^16, the
 * 2-norm clipped to clip_grad. The step unscales and clips the gradients in place: the caller
 * restores them between steps. */
typedef struct oc_bench_guard {
    oc_guard_config cfg;
    oc_loss_scaler scaler;
    oc_loss_scale_state state;
    oc_sub_optimizer sub;
    oc_guarded_param params[OC_GUARD_MAX_PARAMS];
    int64_t position;
    float norm;
} oc_bench_guard;

oc_bench_guard *oc_bench_guard_new(size_t ntensors, const oc_fast_tensor *t, double clip_grad)
{
    oc_bench_guard *b = ntensors <= OC_GUARD_MAX_PARAMS ? calloc(1, sizeof *b) : NULL;
    if (!b)
        return NULL;
    b->cfg = (oc_guard_config){.mode = OC_GUARD_SCALED, .clip_grad = clip_grad,
                               .skip_threshold = INFINITY};
    b->scaler = (oc_loss_scaler){OC_LS_MEGATRON, 65536.0f, 1.0f, 2.0f, 0.5f, 1000, 2};
    b->state = (oc_loss_scale_state){65536.0f, 0, 2};
    b->sub.kind = OC_ALG_ADAM;
    b->sub.hp.adam = (oc_adam_hparams){OC_ADAM_TORCH, 1e-3, 0.9, 0.95, 1e-8, 0.1, 0.0, 1.0, 1, 0, 0};
    b->sub.nparams = ntensors;
    b->sub.params = b->params;
    for (size_t i = 0; i < ntensors; i++)
        b->params[i] = (oc_guarded_param){t[i].n, t[i].param, {t[i].state[0], t[i].state[1], NULL},
                                          (float *)t[i].grad};
    return b;
}

/* 0 if the step was taken, else the status (or 100 + the outcome). */
int oc_bench_guard_step(oc_bench_guard *b)
{
    oc_step_outcome out;
    oc_status st = oc_fast_guarded_step(&b->cfg, &b->scaler, &b->state, 1, &b->sub, &b->position,
                                        1, &b->norm, &out);
    return st != OC_OK ? (int)st : out != OC_STEP_TAKEN ? 100 + (int)out : 0;
}

void oc_bench_guard_free(oc_bench_guard *b) { free(b); }

/* Newton-Schulz of the given profile (NS-PROF-*, its default steps) with the caller's
 * workspace; Muon's step of the given profile (MUON-PROF-*) on rows x cols. */
int oc_bench_ns(int profile, int bf16, size_t rows, size_t cols, const float *g, float *out,
                float *work, size_t work_len)
{
    oc_ns_hparams hp;
    oc_status st = oc_ns_profile_defaults((oc_ns_profile)profile, &hp);
    return st != OC_OK ? (int)st
                       : (int)oc_fast_newton_schulz(&hp, bf16 ? OC_FAST_NS_BF16 : OC_FAST_NS_FP32,
                                                    rows, cols, g, out, work, work_len);
}

int oc_bench_muon(int profile, int bf16, size_t rows, size_t cols, float *p, float *m, const float *g,
                  float *work, size_t work_len)
{
    oc_muon_hparams hp;
    oc_status st = oc_muon_profile_defaults((oc_muon_profile)profile, &hp);
    return st != OC_OK ? (int)st
                       : (int)oc_fast_muon_step(&hp, bf16 ? OC_FAST_NS_BF16 : OC_FAST_NS_FP32, rows,
                                                cols, p, m, g, work, work_len);
}

/* The products of `steps` Newton-Schulz iterations on x (k x n): which 0 as three sgemm calls
 * (a, b: k x k), 1 as the implementation's SSYRK, SSYRK, SSYMM (a, b: k rows of
 * oc_fast_ns_gram_ld(k) floats; ns_products.h). */
void oc_bench_ns_products(int which, int k, int n, int steps, const float *x, float *y, float *a,
                          float *b)
{
    if (which)
        ns_blas_products(k, n, (int)oc_fast_ns_gram_ld((size_t)k), steps, x, y, a, b);
    else
        ns_sgemm_products(k, n, steps, x, y, a, b);
}

/* The threads OpenBLAS runs its products on, and its build. */
int oc_bench_blas_threads(void) { return openblas_get_num_threads(); }

const char *oc_bench_blas_config(void) { return openblas_get_config(); }

int oc_bench_threads(void) { return omp_get_max_threads(); }

void oc_bench_set_threads(int n) { omp_set_num_threads(n); }
