/* The products of `steps` Newton-Schulz iterations on X (k x n, row-major, k <= n), as the
 * benchmarks' baselines (fast/bench/ns_bench.c, fast/bench/bench_lib.c; RESULTS.md §3, §3b):
 *   ns_sgemm_products: X X^T, A A, B X as three cblas_sgemm calls (4 k^2 n + 2 k^3 flops per
 *     iteration: the products of torch.optim.Muon's Newton-Schulz);
 *   ns_blas_products: the BLAS calls of fast/cpu/newton_schulz.c alone (SSYRK, SSYRK, SSYMM:
 *     3 k^2 n + k^3 flops per iteration, the symmetric products computed once), A and B with
 *     rows ld apart as there (oc_fast_ns_gram_ld).
 *   ns_bf16_products: the oneDNN products of fast/cpu/newton_schulz.c's bf16 mode where the CPU
 *     multiplies bfloat16 natively (FAST-NS-6: X X^T, A A, B X as full products, 4 k^2 n + 2 k^3
 *     flops per iteration), on bfloat16 bits x16, a16, b16; 0, or -1 when not native.
 * y: k x n, a and b: k x k (ns_blas_products: k x ld). */
#ifndef OPTCERT_FAST_BENCH_NS_PRODUCTS_H
#define OPTCERT_FAST_BENCH_NS_PRODUCTS_H

#include <stdint.h>

void ns_sgemm_products(int k, int n, int steps, const float *x, float *y, float *a, float *b);
void ns_blas_products(int k, int n, int ld, int steps, const float *x, float *y, float *a,
                      float *b);
int ns_bf16_products(int k, int n, int steps, const uint16_t *x16, float *y, float *a,
                     const uint16_t *a16, const uint16_t *b16);

#endif
