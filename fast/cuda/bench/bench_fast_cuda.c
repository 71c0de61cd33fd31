/* Benchmarks of the CUDA backend against peers measured in the same run (spec/fast.md §5.3).
 * Not a test: it prints ratios. ci/gpu-check runs it.
 *   bench_fast_cuda adamw       fused AdamW (fp32 master + bf16 copy) over the parameter
 *                               tensors of a 1.1B model (TinyLlama-1.1B shapes) vs a
 *                               device-to-device copy, in bytes moved per second
 *   bench_fast_cuda ns N        Newton–Schulz bf16 on one N x N matrix (5 iterations) vs one
 *                               cuBLAS bf16 GEMM N x N x N, in TFLOP/s
 * Output: one line "key value" per measurement, for the script's table. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/fast_cuda.h"

#define CHECK(x)                                                                                  \
    do {                                                                                          \
        if (!(x)) {                                                                               \
            fprintf(stderr, "bench_fast_cuda: %s failed (line %d)\n", #x, __LINE__);              \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

/* Best time (ms) of reps runs of f on stream s, after one warm-up run. */
static float best_ms(void (*f)(void *), void *arg, cudaStream_t s, int reps)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a) == cudaSuccess && cudaEventCreate(&b) == cudaSuccess);
    f(arg);
    float best = 1e30f;
    for (int r = 0; r < reps; r++) {
        float ms;
        CHECK(cudaEventRecord(a, s) == cudaSuccess);
        f(arg);
        CHECK(cudaEventRecord(b, s) == cudaSuccess);
        CHECK(cudaEventSynchronize(b) == cudaSuccess);
        CHECK(cudaEventElapsedTime(&ms, a, b) == cudaSuccess);
        best = ms < best ? ms : best;
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return best;
}

/* ---- fused AdamW ---- */

/* TinyLlama-1.1B: vocab 32000, hidden 2048, 22 layers, MLP 5632, 4 KV heads of 64. */
static size_t model_shapes(size_t *n, size_t max)
{
    size_t k = 0;
#define T(x) (k < max ? (void)(n[k] = (x)) : (void)0), k++
    T(32000u * 2048u);
    for (int l = 0; l < 22; l++) {
        T(2048u * 2048u), T(256u * 2048u), T(256u * 2048u), T(2048u * 2048u);
        T(5632u * 2048u), T(5632u * 2048u), T(2048u * 5632u), T(2048u), T(2048u);
    }
    T(2048u), T(32000u * 2048u);
#undef T
    return k;
}

typedef struct adam_bench {
    oc_cuda_ctx *ctx;
    oc_adam_hparams hp;
    oc_fast_opts o;
    size_t nt;
    oc_fast_tensor *t;
    float *src, *dst;
    size_t copy_bytes;
    int64_t step;
} adam_bench;

static void adam_run(void *arg)
{
    adam_bench *b = arg;
    CHECK(oc_cuda_adam_step(b->ctx, &b->hp, ++b->step, &b->o, b->nt, b->t) == OC_OK);
}

static void copy_run(void *arg)
{
    adam_bench *b = arg;
    CHECK(cudaMemcpyAsync(b->dst, b->src, b->copy_bytes, cudaMemcpyDeviceToDevice,
                          oc_cuda_stream(b->ctx)) == cudaSuccess);
}

static void bench_adamw(oc_cuda_ctx *ctx)
{
    size_t n[256], nt = model_shapes(n, 256), total = 0;
    for (size_t i = 0; i < nt; i++)
        total += (n[i] + 63) / 64 * 64; /* 256-byte aligned tensors */
    float *pool[4];
    uint16_t *model;
    for (int k = 0; k < 4; k++) {
        CHECK(cudaMalloc((void **)&pool[k], total * sizeof(float)) == cudaSuccess);
        CHECK(cudaMemset(pool[k], 0x3c, total * sizeof(float)) == cudaSuccess); /* 0.0115 */
    }
    CHECK(cudaMalloc((void **)&model, total * sizeof(uint16_t)) == cudaSuccess);
    oc_fast_tensor *t = calloc(nt, sizeof *t);
    CHECK(t != NULL);
    size_t off = 0, elems = 0;
    for (size_t i = 0; i < nt; i++) {
        t[i] = (oc_fast_tensor){n[i], pool[0] + off, pool[1] + off,
                                {pool[2] + off, pool[3] + off, NULL},
                                model + off};
        off += (n[i] + 63) / 64 * 64;
        elems += n[i];
    }
    adam_bench b = {ctx, {OC_ADAM_TORCH, 1e-4, 0.9, 0.95, 1e-8, 0.1, 0.0, 1.0, 1, 0, 0},
                    {1.0f, 1.0f, OC_FAST_MODEL_BF16}, nt, t, pool[0], pool[2],
                    total * sizeof(float), 0};
    cudaStream_t s = oc_cuda_stream(ctx);
    float adam_ms = best_ms(adam_run, &b, s, 20);
    float copy_ms = best_ms(copy_run, &b, s, 20);
    /* per element: read p, g, m, v; write p, m, v (fp32) and the bf16 copy */
    double adam_bytes = (double)elems * (7 * 4 + 2), copy_bytes = 2.0 * (double)b.copy_bytes;
    printf("adamw_params %zu\n", elems);
    printf("adamw_tensors %zu\n", nt);
    printf("adamw_ms %.3f\n", adam_ms);
    printf("adamw_GBps %.1f\n", adam_bytes / adam_ms * 1e-6);
    printf("copy_GBps %.1f\n", copy_bytes / copy_ms * 1e-6);
    printf("adamw_vs_copy %.3f\n", (adam_bytes / adam_ms) / (copy_bytes / copy_ms));
    for (int k = 0; k < 4; k++)
        cudaFree(pool[k]);
    cudaFree(model);
    free(t);
}

/* ---- Newton–Schulz bf16 vs GEMM ---- */

typedef struct ns_bench {
    oc_cuda_ctx *ctx;
    cublasHandle_t blas;
    int n;
    void *x, *a, *c, *work;
    oc_cuda_ns_coef k[5];
} ns_bench;

static void ns_run(void *arg)
{
    ns_bench *b = arg;
    static const oc_cuda_ns_norm keller = {1e-7f, 1.0f, 0}; /* ||X||_F + 1e-7 */
    CHECK(oc_cuda_newton_schulz(b->ctx, OC_CUDA_NS_BF16, b->n, b->n, 1, b->x, &keller, 5, b->k,
                                b->work) == OC_OK);
}

static void gemm_run(void *arg)
{
    ns_bench *b = arg;
    float one = 1.0f, zero = 0.0f;
    CHECK(cublasGemmEx(b->blas, CUBLAS_OP_N, CUBLAS_OP_N, b->n, b->n, b->n, &one, b->a,
                       CUDA_R_16BF, b->n, b->a, CUDA_R_16BF, b->n, &zero, b->c, CUDA_R_16BF, b->n,
                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS);
}

static void bench_ns(oc_cuda_ctx *ctx, int n)
{
    ns_bench b = {.ctx = ctx, .n = n};
    size_t bytes = (size_t)n * n * 2;
    CHECK(oc_cuda_ns_coefficients("simple", 5, b.k) == OC_OK);
    CHECK(cudaMalloc(&b.x, bytes) == cudaSuccess && cudaMalloc(&b.a, bytes) == cudaSuccess &&
          cudaMalloc(&b.c, bytes) == cudaSuccess);
    CHECK(cudaMalloc(&b.work, oc_cuda_ns_workspace_bytes(n, n, 1, OC_CUDA_NS_BF16)) ==
          cudaSuccess);
    CHECK(cudaMemset(b.x, 0x3c, bytes) == cudaSuccess);
    CHECK(cudaMemset(b.a, 0x3c, bytes) == cudaSuccess);
    CHECK(cublasCreate(&b.blas) == CUBLAS_STATUS_SUCCESS);
    cudaStream_t s = oc_cuda_stream(ctx);
    CHECK(cublasSetStream(b.blas, s) == CUBLAS_STATUS_SUCCESS);
    float ns_ms = best_ms(ns_run, &b, s, 10), gemm_ms = best_ms(gemm_run, &b, s, 10);
    double nn = (double)n * n * n;
    double ns_tf = 5 * 3 * 2 * nn / ns_ms * 1e-9, gemm_tf = 2 * nn / gemm_ms * 1e-9;
    printf("ns%d_ms %.3f\n", n, ns_ms);
    printf("ns%d_TFLOPs %.1f\n", n, ns_tf);
    printf("gemm%d_TFLOPs %.1f\n", n, gemm_tf);
    printf("ns%d_vs_gemm %.3f\n", n, ns_tf / gemm_tf);
    cublasDestroy(b.blas);
    cudaFree(b.x), cudaFree(b.a), cudaFree(b.c), cudaFree(b.work);
}

int main(int argc, char **argv)
{
    oc_cuda_ctx *ctx;
    char why[256];
    if (oc_cuda_device_check(why, sizeof why) != OC_OK) {
        printf("no CUDA device: %s\n", why);
        return 77;
    }
    CHECK(oc_cuda_create(&ctx) == OC_OK);
    if (argc >= 2 && strcmp(argv[1], "adamw") == 0)
        bench_adamw(ctx);
    else if (argc >= 3 && strcmp(argv[1], "ns") == 0 && atoi(argv[2]) > 0)
        bench_ns(ctx, atoi(argv[2]));
    else {
        fprintf(stderr, "usage: bench_fast_cuda adamw | ns N\n");
        return 2;
    }
    oc_cuda_destroy(ctx);
    return 0;
}
