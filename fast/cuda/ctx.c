/* The CUDA backend's context: device check (FAST-CUDA-DEV-1), stream, cuBLAS handle, the device
 * table and its upload (FAST-CUDA-MT-1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/fast_cuda.h"
#include "host.h"

oc_status oc_cuda_status(int err)
{
    if (err == cudaSuccess)
        return OC_OK;
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
        return OC_ERR_NO_DEVICE;
    return OC_ERR_INTERNAL;
}

oc_status oc_cuda_device_check(char *why, size_t len)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaSuccess && count > 0)
        return OC_OK;
    if (why && len > 0)
        snprintf(why, len, "%s", e != cudaSuccess ? cudaGetErrorString(e)
                                                  : "cudaGetDeviceCount reports 0 devices");
    return OC_ERR_NO_DEVICE;
}

oc_status oc_cuda_create(oc_cuda_ctx **out)
{
    if (!out)
        return OC_ERR_NULL_POINTER;
    *out = NULL;
    oc_status st = oc_cuda_device_check(NULL, 0);
    if (st != OC_OK)
        return st;
    oc_cuda_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return OC_ERR_INTERNAL;
    int err = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
    if (!err)
        err = cudaEventCreateWithFlags(&c->table_copied, cudaEventDisableTiming);
    if (!err)
        err = cudaMalloc((void **)&c->flag, sizeof(unsigned) + sizeof(float));
    if (!err) {
        c->clip = (float *)(c->flag + 1);
        err = cudaMemsetAsync(c->flag, 0, sizeof(unsigned), c->stream);
    }
    if (!err && cublasCreate(&c->blas) != CUBLAS_STATUS_SUCCESS)
        err = cudaErrorUnknown, c->blas = NULL;
    if (!err && cublasSetStream(c->blas, c->stream) != CUBLAS_STATUS_SUCCESS)
        err = cudaErrorUnknown;
    if (err) {
        oc_cuda_destroy(c);
        return oc_cuda_status(err);
    }
    *out = c;
    return OC_OK;
}

void oc_cuda_destroy(oc_cuda_ctx *c)
{
    if (!c)
        return;
    if (c->stream)
        cudaStreamSynchronize(c->stream);
    if (c->blas)
        cublasDestroy(c->blas);
    cudaFree(c->table_dev);
    cudaFreeHost(c->table_host);
    cudaFree(c->flag);
    cudaFree(c->norm);
    cudaFree(c->part);
    cudaFree(c->ns_work);
    if (c->table_copied)
        cudaEventDestroy(c->table_copied);
    if (c->stream)
        cudaStreamDestroy(c->stream);
    free(c);
}

void *oc_cuda_stream(oc_cuda_ctx *c) { return c ? (void *)c->stream : NULL; }

oc_status oc_cuda_sync(oc_cuda_ctx *c)
{
    if (!c)
        return OC_ERR_NULL_POINTER;
    return oc_cuda_status(cudaStreamSynchronize(c->stream));
}

oc_status oc_cuda_reserve(oc_cuda_ctx *c, void **buf, size_t *cap, size_t bytes)
{
    if (bytes <= *cap)
        return OC_OK;
    int err = *buf ? cudaFreeAsync(*buf, c->stream) : 0;
    *buf = NULL;
    *cap = 0;
    if (!err)
        err = cudaMallocAsync(buf, bytes, c->stream);
    if (err)
        return oc_cuda_status(err);
    *cap = bytes;
    return OC_OK;
}

/* FAST-CUDA-MT-1: the table is built in pinned memory and copied in one transfer. A training loop
 * passes the same list every step: then the table is unchanged and nothing is copied. The
 * pinned copy is rewritten only after its previous transfer has run (an event wait that
 * happens only when the list changes). */
oc_status oc_cuda_table_upload(oc_cuda_ctx *c, size_t nt, const oc_fast_tensor *t,
                               const oc_fast_opts *o, oc_cuda_launch *l)
{
    if (nt > UINT32_MAX)
        return OC_ERR_UNSUPPORTED;
    size_t bytes = oc_cuda_table_bytes(nt);
    void *fresh = malloc(bytes);
    if (!fresh)
        return OC_ERR_INTERNAL;
    uint64_t chunks = oc_cuda_table_fill(fresh, nt, t);
    if (chunks > 0x7fffffffu) {
        free(fresh);
        return OC_ERR_UNSUPPORTED; /* one block per chunk: the grid's x limit */
    }
    int err = 0;
    if (bytes != c->table_len || memcmp(fresh, c->table_host, bytes) != 0) {
        err = cudaEventSynchronize(c->table_copied);
        if (!err && bytes > c->table_host_cap) {
            cudaFreeHost(c->table_host);
            c->table_host = NULL;
            c->table_host_cap = 0;
            c->table_len = 0;
            err = cudaMallocHost(&c->table_host, bytes);
            if (!err)
                c->table_host_cap = bytes;
        }
        oc_status st = err ? OC_OK : oc_cuda_reserve(c, &c->table_dev, &c->table_cap, bytes);
        if (st != OC_OK) {
            free(fresh);
            return st;
        }
        if (!err) {
            memcpy(c->table_host, fresh, bytes);
            c->table_len = bytes;
            err = cudaMemcpyAsync(c->table_dev, c->table_host, bytes, cudaMemcpyHostToDevice,
                                  c->stream);
        }
        if (!err)
            err = cudaEventRecord(c->table_copied, c->stream);
        if (err)
            c->table_len = 0; /* the device copy is unknown: upload again next time */
    }
    free(fresh);
    *l = (oc_cuda_launch){.table = c->table_dev, .ntensors = (uint32_t)nt, .nchunks = chunks,
                          .model_kind = (int)o->model, .inv_scale = o->inv_scale,
                          .clip = o->clip_coeff, .clip_dev = NULL, .flag = c->flag,
                          .stream = c->stream};
    return oc_cuda_status(err);
}
