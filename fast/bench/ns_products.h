/* The products of `steps` Newton-Schulz iterations on X (k x n, row-major, k <= n), as the
 * benchmarks' baselines (fast/bench/ns_bench.c, fast/bench/bench_lib.c; RESULTS.md §3, §3b):
 *   ns_sgemm_products: X X^T, A A, B X as three cblas_sgemm calls (4 k^2 n + 2 k^3 flops per
 *     iteration: the products of torch.optim.Muon's Newton-Schulz);
 *   ns_blas_products: the BLAS calls of fast/cpu/newton_schulz.c alone (SSYRK, SSYRK, SSYMM:
 *     3 k^2 n + k^3 flops per iteration, the symmetric products computed once).
 * y: k x n, a and b: k x k. */
#ifndef OPTCERT_FAST_BENCH_NS_PRODUCTS_H
#define OPTCERT_FAST_BENCH_NS_PRODUCTS_H

void ns_sgemm_products(int k, int n, int steps, const float *x, float *y, float *a, float *b);
void ns_blas_products(int k, int n, int steps, const float *x, float *y, float *a, float *b);

#endif
