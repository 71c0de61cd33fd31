/* CUnit suite of the CUDA backend on a GPU (spec/fast.md §5). Without a usable device it
 * prints why and exits 77, which ctest reports as Skipped (FAST-CUDA-DEV-1). On a device:
 * the kernels against the CPU backend bit for bit on every family and option (FAST-CUDA-DET-1,
 * FAST-CUDA-MT-1), the norm bit for bit and run to run (FAST-CUDA-NORM-1), the clip coefficient
 * (FAST-CUDA-CLIP-1), bad input (FAST-ERR-1), Newton–Schulz against a binary64 host evaluation of
 * the same iteration (FAST-CUDA-NS-1), NCCL collectives on a world of one rank
 * (FAST-CUDA-COMM-1), and the CPU offload with this backend as its device against the CPU
 * backend bit for bit (LAYOUT-OFFLOAD-3, LAYOUT-OFFLOAD-4). */
#include <CUnit/Basic.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fixture.h"
#include "optcert/comm_nccl.h"
#include "optcert/fast_cuda.h"

static oc_cuda_ctx *ctx;

/* ---- device copies of a host tensor list ---- */

typedef struct dev_list {
    size_t nt;
    oc_fast_tensor d[FX_TENSORS];
} dev_list;

static void *dup_dev(const void *h, size_t bytes)
{
    void *d = NULL;
    if (!h)
        return NULL;
    if (cudaMalloc(&d, bytes ? bytes : 1) != cudaSuccess)
        return NULL;
    cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
    return d;
}

static void to_dev(dev_list *l, size_t nt, const oc_fast_tensor *t)
{
    l->nt = nt;
    for (size_t i = 0; i < nt; i++) {
        size_t fb = t[i].n * sizeof(float);
        l->d[i] = (oc_fast_tensor){t[i].n, dup_dev(t[i].param, fb), dup_dev(t[i].grad, fb),
                                   {dup_dev(t[i].state[0], fb), dup_dev(t[i].state[1], fb),
                                    dup_dev(t[i].state[2], fb)},
                                   dup_dev(t[i].model, t[i].n * sizeof(uint16_t))};
    }
}

static void back_to_host(dev_list *l, const oc_fast_tensor *t)
{
    for (size_t i = 0; i < l->nt; i++) {
        size_t fb = t[i].n * sizeof(float);
        cudaMemcpy(t[i].param, l->d[i].param, fb, cudaMemcpyDeviceToHost);
        for (int k = 0; k < 3; k++)
            if (t[i].state[k])
                cudaMemcpy(t[i].state[k], l->d[i].state[k], fb, cudaMemcpyDeviceToHost);
        if (t[i].model)
            cudaMemcpy(t[i].model, l->d[i].model, t[i].n * sizeof(uint16_t),
                       cudaMemcpyDeviceToHost);
        cudaFree(l->d[i].param);
        cudaFree((void *)l->d[i].grad);
        for (int k = 0; k < 3; k++)
            cudaFree(l->d[i].state[k]);
        cudaFree(l->d[i].model);
    }
}

/* The fixture's runner: one multi-tensor launch on the GPU. */
static oc_status gpu_step(const fx_case *c, int64_t step, size_t nt, const oc_fast_tensor *t,
                          int *found)
{
    dev_list l;
    to_dev(&l, nt, t);
    const oc_fast_opts *o = &c->opts;
    oc_status st = c->family == FX_ADAM ? oc_cuda_adam_step(ctx, &c->adam, step, o, nt, l.d)
                   : c->family == FX_SGD ? oc_cuda_sgd_step(ctx, &c->sgd, step, o, nt, l.d)
                                         : oc_cuda_lion_step(ctx, &c->lion, step, o, nt, l.d);
    if (st == OC_OK)
        st = oc_cuda_found_nonfinite_sync(ctx, found);
    back_to_host(&l, t);
    return st;
}

static void test_kernels_match_cpu(void)
{
    CU_ASSERT_EQUAL(fx_compare_with_cpu(gpu_step, 3), 0);
}

/* ---- LAYOUT-OFFLOAD-3, -4 with fast-cuda as the device (spec/layouts.md §10) ---- */

typedef struct offload_case {
    const fx_case *c;
    int64_t step;
    int host_found;
} offload_case;

static oc_status offload_device_part(void *p, const oc_fast_opts *o, size_t nt,
                                     const oc_fast_tensor *t)
{
    const offload_case *x = p;
    const fx_case *c = x->c;
    oc_status st = c->family == FX_ADAM ? oc_cuda_adam_step(ctx, &c->adam, x->step, o, nt, t)
                   : c->family == FX_SGD ? oc_cuda_sgd_step(ctx, &c->sgd, x->step, o, nt, t)
                                         : oc_cuda_lion_step(ctx, &c->lion, x->step, o, nt, t);
    return st == OC_OK ? oc_cuda_sync(ctx) : st;
}

static oc_status offload_host_part(void *p, const oc_fast_opts *o, size_t nt,
                                   const oc_fast_tensor *t)
{
    offload_case *x = p;
    fx_case c = *x->c;
    int found = 0;
    c.opts = *o;
    oc_status st = fx_cpu_step(&c, x->step, nt, t, &found);
    x->host_found |= found;
    return st;
}

/* LAYOUT-OFFLOAD-7 with pin_cpu_grads and pin_cpu_params: the host group's parameter or master,
 * gradient and model staging are page-locked host memory, its states pageable. Returns the
 * number of buffers that differ. */
static int pinned_as_megatron(const oc_offload *off, size_t nt, const oc_fast_tensor *t,
                              const unsigned char *host)
{
    int bad = 0;
    for (size_t i = 0; i < nt; i++) {
        if (!host[i])
            continue;
        oc_fast_tensor h = oc_offload_host_tensor(off, i);
        const void *pinned[] = {h.param, h.grad, t[i].model ? h.model : NULL};
        for (size_t k = 0; k < 3; k++) {
            struct cudaPointerAttributes a;
            bad += pinned[k] && (cudaPointerGetAttributes(&a, pinned[k]) != cudaSuccess ||
                                 a.type != cudaMemoryTypeHost);
        }
        for (int k = 0; k < 3; k++) {
            struct cudaPointerAttributes a;
            bad += h.state[k] && cudaPointerGetAttributes(&a, h.state[k]) == cudaSuccess &&
                   a.type == cudaMemoryTypeHost;
        }
    }
    return bad;
}

/* The fixture's runner: half the list (oc_offload_split at 0.5) offloaded to the host through
 * the offload engine with overlap, the rest stepped on the GPU; the host copies written back
 * into the fixture's tensors after the step. */
static oc_status offloaded_gpu_step(const fx_case *c, int64_t step, size_t nt,
                                    const oc_fast_tensor *t, int *found)
{
    dev_list l;
    size_t numel[FX_TENSORS];
    unsigned char host[FX_TENSORS];
    for (size_t i = 0; i < nt; i++)
        numel[i] = t[i].n;
    to_dev(&l, nt, t);
    offload_case x = {c, step, 0};
    oc_offload_copier copier = {0};
    oc_offload *off = NULL;
    int device_found = 0;
    oc_status st = oc_offload_split(nt, numel, 0.5, host);
    if (st == OC_OK)
        st = oc_cuda_offload_copier(&copier);
    oc_offload_config cfg = {host, 1, offload_device_part, &x, offload_host_part, &x, copier,
                             1, 1}; /* Megatron's default pin_cpu_grads, pin_cpu_params */
    if (st == OC_OK && (st = oc_offload_create(&cfg, nt, l.d, &off)) == OC_OK) {
        CU_ASSERT_EQUAL(pinned_as_megatron(off, nt, t, host), 0);
        st = oc_offload_step(off, &c->opts, nt, l.d);
    }
    if (st == OC_OK)
        st = oc_cuda_found_nonfinite_sync(ctx, &device_found);
    *found = device_found || x.host_found;
    back_to_host(&l, t);
    for (size_t i = 0; st == OC_OK && i < nt; i++) {
        oc_fast_tensor h = oc_offload_host_tensor(off, i);
        if (!host[i])
            continue;
        memcpy(t[i].param, h.param, t[i].n * sizeof(float));
        for (int k = 0; k < 3; k++)
            if (t[i].state[k])
                memcpy(t[i].state[k], h.state[k], t[i].n * sizeof(float));
    }
    oc_offload_free(off);
    oc_cuda_offload_copier_free(&copier);
    return st;
}

static void test_offload_matches_cpu(void)
{
    CU_ASSERT_EQUAL(fx_compare_with_cpu(offloaded_gpu_step, 3), 0);
}

/* ---- FAST-CUDA-NORM-1, FAST-CUDA-CLIP-1 ---- */

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void test_norm_matches_cpu_and_repeats(void)
{
    for (size_t bad = FX_TENSORS - 1; bad <= FX_TENSORS; bad++) {
        fx_model m;
        fx_init(&m, 21, bad);
        fx_case c = {.family = FX_LION, .opts = {0x1p-5f, 1.0f, OC_FAST_MODEL_NONE}, .states = 1};
        oc_fast_tensor t[FX_TENSORS];
        size_t nt = fx_tensors(&m, &c, t);
        double per_cpu[FX_TENSORS], per_gpu[FX_TENSORS], tc, tg, tg2;
        int fc, fg, fg2;
        CU_ASSERT_EQUAL(oc_fast_grad_sumsq(nt, t, 0x1p-5f, per_cpu, &tc, &fc), OC_OK);
        dev_list l;
        to_dev(&l, nt, t);
        CU_ASSERT_EQUAL(oc_cuda_grad_sumsq(ctx, nt, l.d, 0x1p-5f), OC_OK);
        CU_ASSERT_EQUAL(oc_cuda_grad_sumsq_read_sync(ctx, per_gpu, &tg, &fg), OC_OK);
        CU_ASSERT_EQUAL(oc_cuda_grad_sumsq(ctx, nt, l.d, 0x1p-5f), OC_OK);
        CU_ASSERT_EQUAL(oc_cuda_grad_sumsq_read_sync(ctx, NULL, &tg2, &fg2), OC_OK);
        CU_ASSERT(same_bits(tc, tg) && same_bits(tg, tg2));
        for (size_t i = 0; i < nt; i++)
            CU_ASSERT(same_bits(per_cpu[i], per_gpu[i]));
        CU_ASSERT_EQUAL(fc, fg);
        CU_ASSERT_EQUAL(fg, bad < FX_TENSORS);
        if (bad == FX_TENSORS) { /* FAST-CUDA-CLIP-1: a Lion step with the device coefficient */
            double max_norm = sqrt(tc) / 3.0;
            float want = (float)(max_norm / (sqrt(tc) + 1e-6));
            fx_model h;
            fx_init(&h, 21, bad);
            oc_fast_tensor th[FX_TENSORS];
            fx_case hc = c;
            hc.opts.clip_coeff = want;
            fx_tensors(&h, &hc, th);
            CU_ASSERT_EQUAL(fx_cpu_step(&hc, 1, nt, th, NULL), OC_OK);
            CU_ASSERT_EQUAL(oc_cuda_clip_from_norm(ctx, max_norm), OC_OK);
            CU_ASSERT_EQUAL(oc_cuda_lion_step(ctx, &c.lion, 1, &c.opts, nt, l.d), OC_OK);
            size_t diff = 0;
            for (size_t i = 0; i < nt; i++) {
                float *p = malloc(t[i].n * sizeof(float) + 1);
                cudaMemcpy(p, l.d[i].param, t[i].n * sizeof(float), cudaMemcpyDeviceToHost);
                diff += memcmp(p, th[i].param, t[i].n * sizeof(float)) != 0;
                free(p);
            }
            CU_ASSERT_EQUAL(diff, 0);
            fx_free(&h);
        }
        back_to_host(&l, t);
        fx_free(&m);
    }
}

/* ---- FAST-ERR-1 on device pointers: status, nothing written ---- */

static void test_bad_input_writes_nothing(void)
{
    fx_model m;
    fx_init(&m, 5, FX_TENSORS);
    fx_case c = {.family = FX_ADAM, .opts = {1.0f, 1.0f, OC_FAST_MODEL_NONE}, .states = 2};
    oc_fast_tensor t[FX_TENSORS];
    size_t nt = fx_tensors(&m, &c, t);
    dev_list l;
    to_dev(&l, nt, t);
    oc_adam_hparams hp = {OC_ADAM_TORCH, 1e-3, 0.9, 1.0, 1e-8, 0.0, 0.0, 1.0, 1, 0, 0};
    CU_ASSERT_EQUAL(oc_cuda_adam_step(ctx, &hp, 1, NULL, nt, l.d), OC_ERR_BAD_HPARAM);
    hp.beta2 = 0.999;
    float *keep = l.d[4].state[1];
    l.d[4].state[1] = l.d[4].state[0]; /* m aliases v in the fifth tensor */
    CU_ASSERT_EQUAL(oc_cuda_adam_step(ctx, &hp, 1, NULL, nt, l.d), OC_ERR_ALIASING);
    l.d[4].state[1] = keep;
    CU_ASSERT_EQUAL(oc_cuda_sync(ctx), OC_OK);
    fx_model h;
    fx_init(&h, 5, FX_TENSORS);
    back_to_host(&l, t);
    size_t diff = 0;
    for (size_t i = 0; i < nt; i++)
        diff += memcmp(m.p[i], h.p[i], m.n[i] * sizeof(float)) != 0 ||
                memcmp(m.s[0][i], h.s[0][i], m.n[i] * sizeof(float)) != 0;
    CU_ASSERT_EQUAL(diff, 0);
    fx_free(&h);
    fx_free(&m);
}

/* ---- FAST-CUDA-NS-1 ---- */

static const oc_cuda_ns_norm keller = {1e-7f, 1.0f, 0}; /* ||X||_F + 1e-7 (fx_ns_normalize's) */

static uint16_t to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
static float from_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Relative Frobenius distance of the GPU result to the binary64 evaluation, for a batch of
 * random matrices; the GPU run is repeated to check it gives the same bits. */
static double ns_error(oc_cuda_ns_mode mode, int r, int c, int batch)
{
    size_t n = (size_t)r * c * batch, esz = mode == OC_CUDA_NS_BF16 ? 2 : 4;
    oc_cuda_ns_coef k[5];
    oc_cuda_ns_coefficients("simple", 5, k);
    double *ref = malloc(n * sizeof *ref);
    float *f = malloc(n * sizeof *f);
    uint16_t *h = malloc(n * sizeof *h);
    void *out = malloc(n * esz), *out2 = malloc(n * esz);
    uint64_t s = 99;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        f[i] = (float)((double)(s >> 11) * 0x1p-53 - 0.5);
        h[i] = to_bf16(f[i]);
        ref[i] = mode == OC_CUDA_NS_BF16 ? from_bf16(h[i]) : f[i];
    }
    for (int m = 0; m < batch; m++) {
        fx_ns_normalize(ref + (size_t)m * r * c, (size_t)r * c, 1e-7f);
        fx_ns_iterate(ref + (size_t)m * r * c, r, c, 5, k);
    }
    void *d = NULL;
    double num = 0.0, den = 0.0;
    int same = 1;
    for (int rep = 0; rep < 2; rep++) {
        cudaMalloc(&d, n * esz);
        cudaMemcpy(d, mode == OC_CUDA_NS_BF16 ? (void *)h : (void *)f, n * esz,
                   cudaMemcpyHostToDevice);
        CU_ASSERT_EQUAL(oc_cuda_newton_schulz(ctx, mode, r, c, batch, d, &keller, 5, k, NULL),
                        OC_OK);
        CU_ASSERT_EQUAL(oc_cuda_sync(ctx), OC_OK);
        cudaMemcpy(rep ? out2 : out, d, n * esz, cudaMemcpyDeviceToHost);
        cudaFree(d);
    }
    same = memcmp(out, out2, n * esz) == 0;
    CU_ASSERT(same);
    for (size_t i = 0; i < n; i++) {
        double g = mode == OC_CUDA_NS_BF16 ? from_bf16(((uint16_t *)out)[i]) : ((float *)out)[i];
        num += (g - ref[i]) * (g - ref[i]);
        den += ref[i] * ref[i];
    }
    free(ref), free(f), free(h), free(out), free(out2);
    return sqrt(num / den);
}

static void test_newton_schulz(void)
{
    /* provisional smoke thresholds (fast/cuda/README.md): 2^-14 (fp32), 2^-8 (TF32), 2^-4 (bf16) */
    static const double tol[3] = {0x1p-14, 0x1p-8, 0x1p-4};
    static const int shapes[3][3] = {{48, 80, 3}, {80, 48, 2}, {64, 64, 1}};
    for (int mode = 0; mode < 3; mode++)
        for (int s = 0; s < 3; s++) {
            double e = ns_error((oc_cuda_ns_mode)mode, shapes[s][0], shapes[s][1], shapes[s][2]);
            printf("  NS mode %d %dx%d batch %d: relative error %.3g\n", mode, shapes[s][0],
                   shapes[s][1], shapes[s][2], e);
            CU_ASSERT(e <= tol[mode]);
        }
    CU_ASSERT_EQUAL(oc_cuda_newton_schulz(ctx, OC_CUDA_NS_FP32, 0, 4, 1, ctx, &keller, 0, NULL,
                                          NULL), OC_ERR_BAD_HPARAM);
}

/* ---- FAST-CUDA-COMM-1 on one rank ---- */

static void test_nccl_world_of_one(void)
{
    int dev = 0, flag = 1;
    oc_comm c;
    CU_ASSERT_EQUAL_FATAL(oc_comm_nccl_init_all(1, &dev, &c), OC_OK);
    CU_ASSERT(c.rank == 0 && c.size == 1);
    float h[64], back[64];
    for (int i = 0; i < 64; i++)
        h[i] = (float)i * 0.25f - 3.0f;
    float *a = dup_dev(h, sizeof h), *b = NULL;
    cudaMalloc((void **)&b, sizeof h);
    CU_ASSERT_EQUAL(c.allreduce_sum(c.ctx, a, 64), OC_OK);
    CU_ASSERT_EQUAL(c.reduce_scatter_sum(c.ctx, a, b, 64), OC_OK);
    CU_ASSERT_EQUAL(c.allgather(c.ctx, b, 64, sizeof(float)), OC_OK);
    CU_ASSERT_EQUAL(c.allgather(c.ctx, b, 32, sizeof(uint16_t)), OC_OK);
    CU_ASSERT_EQUAL(c.allreduce_max_int(c.ctx, &flag), OC_OK);
    CU_ASSERT_EQUAL(flag, 1);
    CU_ASSERT_EQUAL(oc_comm_nccl_broadcast(&c, b, 64, 0), OC_OK);
    CU_ASSERT_EQUAL(oc_comm_nccl_broadcast(&c, b, 64, 1), OC_ERR_BAD_HPARAM);
    CU_ASSERT_EQUAL(c.allreduce_sum(c.ctx, NULL, 64), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_comm_nccl_gather(&c, b, a, 64, 0), OC_OK);
    CU_ASSERT_EQUAL(oc_comm_nccl_scatter(&c, a, b, 64, 0), OC_OK);
    CU_ASSERT_EQUAL(oc_comm_nccl_scatter(&c, a, b, 64, 2), OC_ERR_BAD_HPARAM);
    cudaMemcpy(back, b, sizeof back, cudaMemcpyDeviceToHost);
    CU_ASSERT(memcmp(back, h, sizeof h) == 0);
    cudaFree(a);
    cudaFree(b);
    oc_comm_nccl_free(&c);
    CU_ASSERT_PTR_NULL(c.ctx);
}

int main(void)
{
    char why[256];
    if (oc_cuda_device_check(why, sizeof why) != OC_OK) {
        printf("SKIPPED: no CUDA device: %s\n", why);
        return 77;
    }
    if (oc_cuda_create(&ctx) != OC_OK || CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("fast_cuda", NULL, NULL);
    CU_add_test(s, "kernels = CPU backend, bit for bit", test_kernels_match_cpu);
    CU_add_test(s, "CPU offload, fast-cuda device = CPU backend", test_offload_matches_cpu);
    CU_add_test(s, "norm = CPU norm, run to run; device clip", test_norm_matches_cpu_and_repeats);
    CU_add_test(s, "bad input: status, nothing written", test_bad_input_writes_nothing);
    CU_add_test(s, "Newton-Schulz vs binary64, repeatable", test_newton_schulz);
    CU_add_test(s, "NCCL collectives, one rank", test_nccl_world_of_one);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    int failed = CU_get_number_of_failures() != 0 || CU_get_number_of_tests_failed() != 0;
    CU_cleanup_registry();
    oc_cuda_destroy(ctx);
    return failed;
}
