/* FAST-CUDA-NORM-1: the per-lane sums of FAST-NORM-1 as the norm kernel computes them, plain C
 * shared by the kernel (fast/cuda/kernels.cu) and the CPU test that replays the kernel's
 * order on the host (fast/cuda/tests/test_cuda_host.c). */
#ifndef OPTCERT_FAST_CUDA_NORM_H
#define OPTCERT_FAST_CUDA_NORM_H

#include <stdint.h>
#include "../common/elementwise.h"

#define OC_CUDA_NORM_LANES 16

/* Lane k of a chunk: the squares of the unscaled gradients g[j], j = k (mod 16), in index
 * order, from 0. Each square of a binary32 value is exact in binary64. */
OC_HD double oc_cuda_lane_sumsq(const float *g, uint64_t len, unsigned lane, float inv_scale)
{
    double acc = 0.0;
    for (uint64_t j = lane; j < len; j += OC_CUDA_NORM_LANES) {
        double x = (double)(g[j] * inv_scale);
        acc += x * x;
    }
    return acc;
}

#endif
