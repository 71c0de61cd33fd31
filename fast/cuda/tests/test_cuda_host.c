/* CUnit suite of the CUDA backend's host side, run on every machine (no GPU needed;
 * spec/fast.md §5): the device table and the block-to-chunk map (FAST-CUDA-MT-1), the kernels'
 * per-element work replayed on the host from that table and the shared step preparation
 * against the CPU backend, bit for bit (FAST-CUDA-DET-1), the norm kernel's order replayed on the
 * host against the CPU backend's norm (FAST-CUDA-NORM-1), the checks (FAST-ERR-1) and the
 * Newton–Schulz coefficient lists (FAST-CUDA-NS-2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../../../conformance/tests/cunit_main.h"
#include "../../common/step_prep.h"
#include "../host.h"
#include "../norm.h"
#include "../ns_iter.h"
#include "fixture.h"
#include "optcert/fast_cuda.h"

/* ---- FAST-CUDA-MT-1 ---- */

/* The table against an independent enumeration: tensor by tensor, chunk by chunk. */
static void test_table_maps_every_chunk(void)
{
    fx_model m;
    fx_init(&m, 7, FX_TENSORS);
    fx_case c = {.family = FX_ADAM, .opts = {1.0f, 1.0f, OC_FAST_MODEL_BF16}, .states = 2};
    oc_fast_tensor t[FX_TENSORS];
    size_t nt = fx_tensors(&m, &c, t);
    void *buf = malloc(oc_cuda_table_bytes(nt));
    uint64_t chunks = oc_cuda_table_fill(buf, nt, t);
    const oc_cuda_tdesc *d = buf;
    const uint64_t *start = (const uint64_t *)(d + nt);
    uint64_t b = 0, wrong = 0;
    for (size_t i = 0; i < nt; i++) {
        wrong += d[i].p != t[i].param || d[i].g != t[i].grad || d[i].s0 != t[i].state[0] ||
                 d[i].s1 != t[i].state[1] || d[i].s2 != NULL || d[i].model != t[i].model ||
                 d[i].n != t[i].n;
        for (uint64_t off = 0; off < t[i].n; off += OC_FAST_CHUNK, b++) {
            uint64_t o, len;
            uint32_t ti = oc_cuda_chunk_tensor(start, (uint32_t)nt, b);
            oc_cuda_chunk_range(start, d, ti, b, OC_FAST_CHUNK, &o, &len);
            uint64_t want = t[i].n - off < OC_FAST_CHUNK ? t[i].n - off : OC_FAST_CHUNK;
            wrong += ti != i || o != off || len != want;
        }
    }
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(chunks, b);
    CU_ASSERT_EQUAL(start[nt], b);
    CU_ASSERT(chunks > nt); /* several chunks in some tensors, none in the empty one */
    free(buf);
    fx_free(&m);
}

/* The kernels' work on the host: block b of the launch updates chunk b exactly as
 * multi_tensor<Op> in kernels.cu does, the chunks visited last to first (any block order is a
 * legal schedule on the GPU). */
static oc_status replay_step(const fx_case *c, int64_t step, size_t nt, const oc_fast_tensor *t,
                             int *found)
{
    oc_status hp_st = c->family == FX_ADAM ? oc_adam_check(&c->adam, step)
                      : c->family == FX_SGD ? oc_sgd_check(&c->sgd, step)
                                            : oc_lion_check(&c->lion, step);
    oc_status st = oc_fast_prep_check(hp_st, &c->opts, nt, t, c->states);
    if (st != OC_OK)
        return st;
    oc_fast_adam_coef ac = oc_fast_prep_adam(&c->adam, step);
    oc_fast_sgd_coef sc = oc_fast_prep_sgd(&c->sgd);
    oc_fast_lion_coef lc = oc_fast_prep_lion(&c->lion);
    int ams = c->adam.amsgrad != 0, mom = c->sgd.momentum != 0.0;
    void *buf = malloc(oc_cuda_table_bytes(nt));
    uint64_t chunks = oc_cuda_table_fill(buf, nt, t);
    const oc_cuda_tdesc *d = buf;
    const uint64_t *start = (const uint64_t *)(d + nt);
    int bad = 0;
    for (uint64_t b = chunks; b-- > 0;) {
        uint64_t off, len;
        uint32_t ti = oc_cuda_chunk_tensor(start, (uint32_t)nt, b);
        oc_cuda_chunk_range(start, d, ti, b, OC_FAST_CHUNK, &off, &len);
        oc_cuda_tdesc e = d[ti];
        for (uint64_t i = off; i < off + len; i++) {
            float g = oc_fast_grad(e.g[i], c->opts.inv_scale, c->opts.clip_coeff);
            bad |= (g - g) != 0.0f;
            if (c->family == FX_ADAM)
                oc_fast_adam_element(&ac, ams, &e.p[i], &e.s0[i], &e.s1[i],
                                     ams ? &e.s2[i] : &e.s1[i], g);
            else if (c->family == FX_LION)
                oc_fast_lion_element(&lc, &e.p[i], &e.s0[i], g);
            else if (c->sgd.profile == OC_SGD_EMA)
                oc_fast_sgd_ema_element(&sc, mom, c->sgd.nesterov, &e.p[i],
                                        mom ? &e.s0[i] : &e.p[i], g);
            else
                oc_fast_sgd_torch_element(&sc, mom, step == 1, c->sgd.nesterov, &e.p[i],
                                          mom ? &e.s0[i] : &e.p[i], g);
            if (e.model && c->opts.model == OC_FAST_MODEL_BF16)
                e.model[i] = oc_fast_to_bf16(e.p[i]);
            else if (e.model && c->opts.model == OC_FAST_MODEL_FP16)
                e.model[i] = oc_fast_to_fp16(e.p[i]);
        }
    }
    free(buf);
    *found = bad;
    return OC_OK;
}

static void test_replayed_kernels_match_cpu(void)
{
    CU_ASSERT_EQUAL(fx_compare_with_cpu(replay_step, 3), 0);
}

/* The comparison has teeth: a replay whose coefficients are off by one binary32 ulp in one
 * scalar (the step size) differs from the CPU backend. */
static oc_status replay_step_off(const fx_case *c, int64_t step, size_t nt,
                                 const oc_fast_tensor *t, int *found)
{
    fx_case d = *c;
    d.adam.lr = nextafter((double)(float)c->adam.lr, 1.0);
    d.sgd.lr = nextafter((double)(float)c->sgd.lr, 1.0);
    d.lion.lr = nextafter((double)(float)c->lion.lr, 1.0);
    return replay_step(&d, step, nt, t, found);
}

static void test_comparison_has_teeth(void)
{
    CU_ASSERT(fx_compare_with_cpu(replay_step_off, 1) > 0);
}

/* ---- FAST-CUDA-NORM-1 ---- */

/* The norm kernels on the host: 16 lanes per chunk (norm.h), the shuffle tree (lane k takes
 * lane k + w's value when k + w < 16, else keeps its own, as __shfl_down_sync with width 16),
 * per-tensor sums in chunk order, the total in tensor order. */
static double replay_norm(size_t nt, const oc_fast_tensor *t, float inv_scale, double *per)
{
    void *buf = malloc(oc_cuda_table_bytes(nt));
    uint64_t chunks = oc_cuda_table_fill(buf, nt, t);
    const oc_cuda_tdesc *d = buf;
    const uint64_t *start = (const uint64_t *)(d + nt);
    double *part = malloc((chunks + 1) * sizeof *part);
    for (uint64_t b = 0; b < chunks; b++) {
        uint64_t off, len;
        uint32_t ti = oc_cuda_chunk_tensor(start, (uint32_t)nt, b);
        oc_cuda_chunk_range(start, d, ti, b, OC_FAST_CHUNK, &off, &len);
        double acc[OC_CUDA_NORM_LANES], nxt[OC_CUDA_NORM_LANES];
        for (unsigned k = 0; k < OC_CUDA_NORM_LANES; k++)
            acc[k] = oc_cuda_lane_sumsq(d[ti].g + off, len, k, inv_scale);
        for (unsigned w = OC_CUDA_NORM_LANES / 2; w > 0; w /= 2) {
            for (unsigned k = 0; k < OC_CUDA_NORM_LANES; k++)
                nxt[k] = acc[k] + (k + w < OC_CUDA_NORM_LANES ? acc[k + w] : acc[k]);
            memcpy(acc, nxt, sizeof acc);
        }
        part[b] = acc[0];
    }
    double total = 0.0;
    for (size_t i = 0; i < nt; i++) {
        double s = 0.0;
        for (uint64_t b = start[i]; b < start[i + 1]; b++)
            s += part[b];
        per[i] = s;
        total += s;
    }
    free(part);
    free(buf);
    return total;
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void test_norm_order_matches_cpu(void)
{
    fx_model m;
    fx_init(&m, 11, FX_TENSORS);
    fx_case c = {.family = FX_LION, .opts = {0x1p-7f, 1.0f, OC_FAST_MODEL_NONE}, .states = 1};
    oc_fast_tensor t[FX_TENSORS];
    size_t nt = fx_tensors(&m, &c, t);
    double per_cpu[FX_TENSORS], per_gpu[FX_TENSORS], total_cpu, naive = 0.0;
    int found = -1;
    CU_ASSERT_EQUAL(oc_fast_grad_sumsq(nt, t, 0x1p-7f, per_cpu, &total_cpu, &found), OC_OK);
    double total_gpu = replay_norm(nt, t, 0x1p-7f, per_gpu);
    CU_ASSERT(same_bits(total_cpu, total_gpu));
    for (size_t i = 0; i < nt; i++)
        CU_ASSERT(same_bits(per_cpu[i], per_gpu[i]));
    CU_ASSERT_EQUAL(found, 0);
    /* teeth: the plain left-to-right sum of the same squares has other bits */
    for (size_t i = 0; i < nt; i++)
        for (size_t j = 0; j < t[i].n; j++) {
            double x = (double)(t[i].grad[j] * 0x1p-7f);
            naive += x * x;
        }
    CU_ASSERT(!same_bits(naive, total_cpu));
    fx_free(&m);
}

/* ---- FAST-ERR-1: the CUDA backend's checks give the CPU backend's statuses; the same check
 * guards the plugin's host buffers (FAST-CUDA-ABI-1) ---- */

static void test_checks_match_cpu(void)
{
    float a[8], b[8], cc[8];
    oc_adam_hparams hp = {OC_ADAM_TORCH, 1e-3, 0.9, 0.999, 1e-8, 0.0, 0.0, 1.0, 1, 0, 0};
    oc_fast_opts o = {1.0f, 1.0f, OC_FAST_MODEL_NONE};
    struct {
        oc_fast_tensor t;
        oc_fast_opts o;
        double beta2;
    } cases[] = {
        {{8, a, b, {cc, cc, NULL}, NULL}, o, 0.999},                 /* m aliases v */
        {{8, a, NULL, {b, cc, NULL}, NULL}, o, 0.999},               /* no gradient */
        {{8, a, b, {cc, a, NULL}, NULL}, o, 0.999},                  /* v aliases p */
        {{7, (float *)((char *)a + 2), b, {cc, a + 7, NULL}, NULL}, o, 0.999}, /* misaligned */
        {{8, a, b, {cc, a, NULL}, NULL}, o, 1.0},                    /* bad beta2 */
        {{8, a, b, {cc, NULL, NULL}, NULL}, {0.0f, 1.0f, OC_FAST_MODEL_NONE}, 0.999},
        {{8, a, b, {cc, NULL, NULL}, NULL}, {1.0f, NAN, OC_FAST_MODEL_NONE}, 0.999},
        {{8, a, b, {cc, NULL, NULL}, (uint16_t *)cc}, {1.0f, 1.0f, OC_FAST_MODEL_BF16}, 0.999},
        {{8, a, b, {cc, NULL, NULL}, NULL}, {1.0f, 1.0f, (oc_fast_dtype)7}, 0.999},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hp.beta2 = cases[i].beta2;
        oc_status cpu = oc_fast_adam_step(&hp, 1, &cases[i].o, 1, &cases[i].t, NULL);
        oc_status prep = oc_fast_prep_check(oc_adam_check(&hp, 1), &cases[i].o, 1, &cases[i].t, 2);
        CU_ASSERT_NOT_EQUAL(cpu, OC_OK);
        CU_ASSERT_EQUAL(prep, cpu);
    }
}

/* ---- FAST-CUDA-NS-2 ---- */

static void test_ns_coefficient_lists(void)
{
    oc_cuda_ns_coef c[12];
    CU_ASSERT_EQUAL(oc_cuda_ns_coefficients("simple", 12, c), OC_OK);
    CU_ASSERT(c[0].a == 3.4445f && c[0].b == -4.7750f && c[0].c == 2.0315f);
    CU_ASSERT(memcmp(&c[0], &c[11], sizeof c[0]) == 0);
    CU_ASSERT_EQUAL(oc_cuda_ns_coefficients("quintic", 12, c), OC_OK); /* cycles */
    CU_ASSERT(memcmp(&c[5], &c[0], sizeof c[0]) == 0 && memcmp(&c[11], &c[1], sizeof c[0]) == 0);
    CU_ASSERT(memcmp(&c[4], &c[0], sizeof c[0]) != 0);
    CU_ASSERT_EQUAL(oc_cuda_ns_coefficients("polar_express", 12, c), OC_OK); /* repeats last */
    CU_ASSERT(memcmp(&c[8], &c[7], sizeof c[0]) == 0 && memcmp(&c[11], &c[7], sizeof c[0]) == 0);
    CU_ASSERT(memcmp(&c[7], &c[6], sizeof c[0]) != 0);
    CU_ASSERT_EQUAL(oc_cuda_ns_coefficients("keller", 5, c), OC_ERR_BAD_PROFILE);
    CU_ASSERT_EQUAL(oc_cuda_ns_coefficients("simple", -1, c), OC_ERR_BAD_HPARAM);
    CU_ASSERT_EQUAL(oc_cuda_ns_coefficients("simple", 2, NULL), OC_ERR_NULL_POINTER);
}

/* ---- FAST-CUDA-NS-1: the operand mapping of the cuBLAS calls ---- */

/* cuBLAS's gemm semantics in binary64: column-major, op = transpose when t, strided batch. */
static int host_gemm(void *ctx, int ta, int tb, int m, int n, int k, float alpha, const void *a,
                     int lda, long long sa, const void *b, int ldb, long long sb, float beta,
                     void *c, int ldc, long long sc, int batch)
{
    (void)ctx;
    for (int z = 0; z < batch; z++) {
        const double *A = (const double *)a + z * sa, *B = (const double *)b + z * sb;
        double *C = (double *)c + z * sc;
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                double acc = 0.0;
                for (int q = 0; q < k; q++)
                    acc += (ta ? A[q + (size_t)i * lda] : A[i + (size_t)q * lda]) *
                           (tb ? B[j + (size_t)q * ldb] : B[q + (size_t)j * ldb]);
                C[i + (size_t)j * ldc] = alpha * acc + beta * C[i + (size_t)j * ldc];
            }
    }
    return 0;
}

static int host_copy(void *ctx, void *dst, const void *src, size_t bytes)
{
    (void)ctx;
    memcpy(dst, src, bytes);
    return 0;
}

/* The products and copies the GPU issues, performed on the host, against the row-major
 * formula, for a batch of r x c matrices. mistake 1: the buffer read as c x r (a reshape in
 * place of the transposed problem); mistake 2: the "simple" coefficients in place of the
 * "quintic" ones the formula uses. Both must be seen (the comparison has teeth). */
static double ns_mapping_error(int r, int c, int batch, int mistake)
{
    size_t mat = (size_t)r * c, n = mat * batch, s = (size_t)(r < c ? r : c);
    double *x = malloc(n * sizeof *x), *ref = malloc(n * sizeof *ref);
    double *ga = malloc(s * s * batch * sizeof *ga), *gb = malloc(s * s * batch * sizeof *gb);
    double *y = malloc(n * sizeof *y);
    uint64_t st = 12345;
    for (size_t i = 0; i < n; i++) {
        st ^= st << 13, st ^= st >> 7, st ^= st << 17;
        x[i] = (double)(st >> 11) * 0x1p-53 - 0.5;
    }
    oc_cuda_ns_coef k[5], used[5];
    oc_cuda_ns_coefficients("quintic", 5, k);
    oc_cuda_ns_coefficients(mistake == 2 ? "simple" : "quintic", 5, used);
    for (int m = 0; m < batch; m++)
        fx_ns_normalize(x + m * mat, mat, 1e-7f);
    memcpy(ref, x, n * sizeof *x);
    for (int m = 0; m < batch; m++)
        fx_ns_iterate(ref + m * mat, r, c, 5, k);
    oc_ns_ops ops = {NULL, sizeof(double), host_gemm, host_copy};
    CU_ASSERT_EQUAL(oc_ns_iterate(&ops, mistake == 1 ? c : r, mistake == 1 ? r : c, batch, x, ga,
                                  gb, y, 5, used), 0);
    double err = 0.0;
    for (size_t i = 0; i < n; i++)
        err = fmax(err, fabs(x[i] - ref[i]));
    free(x), free(ref), free(ga), free(gb), free(y);
    return err;
}

static void test_ns_operand_mapping(void)
{
    static const int shapes[][3] = {{5, 9, 3}, {9, 5, 2}, {7, 7, 1}, {1, 6, 2}, {6, 1, 1}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        double e = ns_mapping_error(shapes[i][0], shapes[i][1], shapes[i][2], 0);
        CU_ASSERT(e < 1e-12);
    }
    CU_ASSERT(ns_mapping_error(9, 5, 2, 1) > 1e-3);
    CU_ASSERT(ns_mapping_error(5, 9, 3, 2) > 1e-3);
}

void register_suites(void)
{
    ADD_SUITE("fast_cuda_host",
              {"table maps every chunk (FAST-CUDA-MT-1)", test_table_maps_every_chunk},
              {"kernels replayed on the host = CPU backend, bit for bit",
               test_replayed_kernels_match_cpu},
              {"the comparison rejects a one-ulp coefficient change", test_comparison_has_teeth},
              {"norm kernels' order replayed = CPU norm, bit for bit", test_norm_order_matches_cpu},
              {"checks give the CPU backend's statuses (FAST-ERR-1)", test_checks_match_cpu},
              {"Newton-Schulz coefficient lists (FAST-CUDA-NS-2)", test_ns_coefficient_lists},
              {"Newton-Schulz cuBLAS operand mapping (FAST-CUDA-NS-1)", test_ns_operand_mapping});
}
