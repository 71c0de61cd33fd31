/* The comparison both CUDA test programs make (spec/fast.md §5): a list of tensors of awkward
 * sizes (empty, one element, chunk boundaries, several chunks), every family and option of the
 * multi-tensor steps, three steps each, run by the CPU backend (optcert/fast.h) and by a
 * `runner` (the kernels replayed on the host in test_cuda_host.c, the GPU in test_fast_cuda.c),
 * compared bit for bit. */
#ifndef OPTCERT_FAST_CUDA_FIXTURE_H
#define OPTCERT_FAST_CUDA_FIXTURE_H

#include <stdint.h>
#include "optcert/fast_cuda.h"

#define FX_TENSORS 7

typedef struct fx_model {
    size_t nt, n[FX_TENSORS];
    float *p[FX_TENSORS], *g[FX_TENSORS], *s[3][FX_TENSORS];
    uint16_t *model[FX_TENSORS];
} fx_model;

typedef enum fx_family { FX_ADAM, FX_SGD, FX_LION } fx_family;

typedef struct fx_case {
    const char *name;
    fx_family family;
    oc_adam_hparams adam;
    oc_sgd_hparams sgd;
    oc_lion_hparams lion;
    oc_fast_opts opts;
    int states;
} fx_case;

/* Random model (seeded); gradient g[bad_tensor][0] = +inf when bad_tensor < nt. */
void fx_init(fx_model *m, uint64_t seed, size_t bad_tensor);
void fx_free(fx_model *m);
/* The tensor list of m as a step of case c uses it. */
size_t fx_tensors(const fx_model *m, const fx_case *c, oc_fast_tensor *t);
/* Every case (at most max), returns how many. */
size_t fx_cases(fx_case *out, size_t max);
/* The CPU backend's step for case c. */
oc_status fx_cpu_step(const fx_case *c, int64_t step, size_t nt, const oc_fast_tensor *t,
                      int *found);

typedef oc_status (*fx_runner)(const fx_case *c, int64_t step, size_t nt, const oc_fast_tensor *t,
                               int *found);
/* Runs every case for `steps` steps with the CPU backend and with run, on equal models; returns
 * the number of differing elements (params, states, model copies, the found flag; NaN equals
 * NaN) and prints the first cases that differ. */
size_t fx_compare_with_cpu(fx_runner run, int steps);

/* Newton–Schulz written from the row-major formulas in binary64 (FAST-CUDA-NS-1):
 * x /= (float)||x||_F + eps; then X <- a X + (b A + c A A) X with A = X X^T, on X^T when
 * rows > cols. */
void fx_ns_normalize(double *x, size_t n, float eps);
void fx_ns_iterate(double *x, int rows, int cols, int steps, const oc_cuda_ns_coef *k);

#endif
