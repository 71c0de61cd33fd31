/* Internals of the CUDA backend's host side shared by its C files. */
#ifndef OPTCERT_FAST_CUDA_HOST_H
#define OPTCERT_FAST_CUDA_HOST_H

#include "optcert/fast.h"
#include "table.h"

/* Writes the table of the tensors (oc_cuda_table_bytes(nt) bytes, 8-aligned) to buf: their
 * descriptors and chunk starts. The table does not depend on the options (the launch carries
 * them), so a norm and a step over the same list share one upload. Returns the number of
 * chunks over all tensors. */
uint64_t oc_cuda_table_fill(void *buf, size_t nt, const oc_fast_tensor *t);

#ifdef OPTCERT_FAST_CUDA_RUNTIME /* the files that talk to the CUDA runtime */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include "kernels.h"

struct oc_cuda_ctx {
    cudaStream_t stream;
    cublasHandle_t blas;
    void *table_dev;        /* the device table of the last launch */
    size_t table_cap;       /* its capacity (bytes) */
    void *table_host;       /* pinned copy of what was last uploaded */
    size_t table_len;       /* its length (bytes); 0: nothing uploaded */
    size_t table_host_cap;
    cudaEvent_t table_copied; /* recorded after the last upload (the pinned copy is free) */
    uint32_t table_nt;
    uint64_t table_chunks;
    unsigned *flag;         /* device: the non-finite flag */
    float *clip;            /* device: the clip coefficient of FAST-CUDA-CLIP-1 */
    int clip_pending;       /* oc_cuda_clip_from_norm ran since the last step */
    double *norm;           /* device: per-tensor sums, then the total */
    size_t norm_cap;        /* bytes */
    double *part;           /* device: chunk sums */
    size_t part_cap;        /* bytes */
    size_t norm_nt;         /* tensors of the last norm */
    void *ns_work;          /* device scratch of the Newton-Schulz */
    size_t ns_cap;
};

/* The status of a CUDA runtime error (0: OC_OK). */
oc_status oc_cuda_status(int err);
/* Grows a stream-ordered device allocation to at least `bytes`. */
oc_status oc_cuda_reserve(oc_cuda_ctx *ctx, void **buf, size_t *cap, size_t bytes);
/* Makes the device table describe these tensors (uploading only when it changed) and fills
 * the launch's table fields. */
oc_status oc_cuda_table_upload(oc_cuda_ctx *ctx, size_t nt, const oc_fast_tensor *t,
                               const oc_fast_opts *o, oc_cuda_launch *l);
#endif

#endif
