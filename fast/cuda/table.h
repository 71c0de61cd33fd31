/* FAST-CUDA-MT-1: the device-side table of a multi-tensor launch, and the arithmetic that maps a
 * block to its chunk. Plain C shared by the host (which builds the table, fast/cuda/step.c),
 * the kernels (fast/cuda/kernels.cu) and the CPU tests (fast/cuda/tests/test_cuda_host.c).
 *
 * Every tensor is cut into chunks of OC_FAST_CHUNK elements, as on the CPU (FAST-MT-1); block b
 * of the launch updates chunk b of the concatenated chunk list. The table holds one descriptor
 * per tensor and the prefix sums of the chunk counts, so it grows with the number of tensors,
 * not with their sizes. */
#ifndef OPTCERT_FAST_CUDA_TABLE_H
#define OPTCERT_FAST_CUDA_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "../common/elementwise.h"

/* One tensor as the kernels see it (device pointers; NULL where unused). */
typedef struct oc_cuda_tdesc {
    float *p;
    const float *g;
    float *s0, *s1, *s2;
    uint16_t *model;
    uint64_t n;
} oc_cuda_tdesc;

/* The table's bytes: ntensors descriptors, then ntensors + 1 chunk starts (uint64). */
OC_HD size_t oc_cuda_table_bytes(size_t ntensors)
{
    return ntensors * sizeof(oc_cuda_tdesc) + (ntensors + 1) * sizeof(uint64_t);
}

/* The tensor whose chunks contain global chunk b: the largest i with start[i] <= b (empty
 * tensors have start[i] == start[i+1] and are never chosen). Requires b < start[nt].
 * Proved with WP (proofs/parts/cuda.toml). */
/*@ requires nt >= 1 && \valid_read(start + (0 .. nt));
    requires sorted: \forall integer i, j; 0 <= i <= j <= nt ==> start[i] <= start[j];
    requires start[0] == 0 && b < start[nt];
    assigns \nothing;
    ensures range: 0 <= \result < nt;
    ensures owner: start[\result] <= b < start[\result + 1];
*/
OC_HD uint32_t oc_cuda_chunk_tensor(const uint64_t *start, uint32_t nt, uint64_t b)
{
    uint32_t lo = 0, hi = nt - 1; /* invariant: start[lo] <= b, answer in [lo, hi] */
    /*@ loop invariant 0 <= lo <= hi <= nt - 1;
        loop invariant start[lo] <= b < start[hi + 1];
        loop assigns lo, hi;
        loop variant hi - lo; */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (start[mid] <= b)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The element range [*off, *off + *len) of tensor i that global chunk b covers: non-empty,
 * inside the tensor, at a multiple of the chunk. WP (proofs/parts/cuda.toml) proves every goal
 * but the monotonicity step `kc` ((k+1)·chunk <= q·chunk from k+1 <= q), which z3 and cvc5
 * do not close (nonlinear); the rest follows from it. */
/*@ requires \valid_read(start + (i .. i + 1)) && \valid_read(t + i);
    requires \valid(off) && \valid(len);
    requires \separated(off, len, start + (i .. i + 1), t + i);
    requires 1 <= chunk <= 0x100000000 && t[i].n <= 0xffffffff00000000;
    requires tiling: start[i + 1] - start[i] == (t[i].n + chunk - 1) / chunk;
    requires start[i] <= b < start[i + 1];
    assigns *off, *len;
    ensures *off == (b - start[i]) * chunk;
    ensures 1 <= *len <= chunk && *off + *len <= t[i].n;
*/
OC_HD void oc_cuda_chunk_range(const uint64_t *start, const oc_cuda_tdesc *t, uint32_t i,
                               uint64_t b, uint64_t chunk, uint64_t *off, uint64_t *len)
{
    /*@ assert q: (t[i].n + chunk - 1) / chunk * chunk <= t[i].n + chunk - 1; */
    /*@ assert k: b - start[i] + 1 <= (t[i].n + chunk - 1) / chunk; */
    /*@ assert kc: (b - start[i] + 1) * chunk <= (t[i].n + chunk - 1) / chunk * chunk; */
    /*@ assert below: (b - start[i]) * chunk < t[i].n; */
    *off = (b - start[i]) * chunk;
    *len = t[i].n - *off < chunk ? t[i].n - *off : chunk;
}

#endif
