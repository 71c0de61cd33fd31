/* The kernel launchers of the CUDA backend (fast/cuda/kernels.cu), callable from C. Each
 * enqueues on `stream` and returns the launch's cudaError_t as an int (0: enqueued). */
#ifndef OPTCERT_FAST_CUDA_KERNELS_H
#define OPTCERT_FAST_CUDA_KERNELS_H

#include <stdint.h>
#include "../common/elementwise.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One multi-tensor launch (FAST-CUDA-MT-1): the device table (table.h), its size, the options. */
typedef struct oc_cuda_launch {
    const void *table;     /* device: oc_cuda_table_bytes(ntensors) bytes */
    uint32_t ntensors;
    uint64_t nchunks;      /* chunks of OC_FAST_CHUNK elements over all tensors (> 0) */
    int model_kind;        /* oc_fast_dtype */
    float inv_scale, clip; /* FAST-GRAD-1; clip is replaced by *clip_dev when that is set */
    const float *clip_dev;
    unsigned *flag;        /* device: ORed with 1 when an update gradient is not finite */
    void *stream;
} oc_cuda_launch;

int oc_cuda_launch_adam(const oc_cuda_launch *l, const oc_fast_adam_coef *c, int amsgrad);
int oc_cuda_launch_sgd(const oc_cuda_launch *l, const oc_fast_sgd_coef *c, int ema, int momentum,
                       int first, int nesterov);
int oc_cuda_launch_lion(const oc_cuda_launch *l, const oc_fast_lion_coef *c);
/* FAST-CUDA-NORM-1: part[nchunks], per_tensor[ntensors], total[1] (device). */
int oc_cuda_launch_sumsq(const oc_cuda_launch *l, double *part, double *per_tensor,
                         double *total);
/* FAST-CUDA-CLIP-1: *clip_dev = min(1, max_norm / (sqrt(*total) + 1e-6)) rounded to binary32. */
int oc_cuda_launch_clip(const double *total, double max_norm, float *clip_dev, void *stream);
/* FAST-CUDA-NS-1 normalization: matrix i of `batch` (n elements each, fp32 or bf16 bits) is
 * divided by scale ||X_i||_F + eps, or max(scale ||X_i||_F, eps) if max (NS-NORM-1);
 * sumsq[batch] is device scratch. */
int oc_cuda_launch_ns_normalize(void *x, int bf16, uint64_t n, int batch, float eps, float scale,
                                int max, double *sumsq, void *stream);

#ifdef __cplusplus
}
#endif

#endif
