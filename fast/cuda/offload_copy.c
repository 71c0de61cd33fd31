/* LAYOUT-OFFLOAD-3 on a GPU (spec/layouts.md §10): the CPU offload's copies as cudaMemcpyAsync
 * on a stream per direction, each waited for before it returns (the engine's streams order
 * them), so that both directions and the context's compute stream can run side by side. The
 * engine's host buffers that Megatron pins (LAYOUT-OFFLOAD-7) are page-locked with
 * cudaHostAlloc, so that the copies are DMA from them; the others are pageable. */
#include <stdlib.h>
#include "optcert/fast_cuda.h"
#include "host.h"

typedef struct copy_streams {
    cudaStream_t to_host, to_device;
} copy_streams;

static oc_status copy_on(cudaStream_t s, void *dst, const void *src, size_t bytes)
{
    int err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s);
    if (!err)
        err = cudaStreamSynchronize(s);
    return oc_cuda_status(err);
}

static oc_status to_host(void *ctx, void *dst, const void *src, size_t bytes)
{
    return copy_on(((copy_streams *)ctx)->to_host, dst, src, bytes);
}

static oc_status to_device(void *ctx, void *dst, const void *src, size_t bytes)
{
    return copy_on(((copy_streams *)ctx)->to_device, dst, src, bytes);
}

static void *host_alloc(void *ctx, size_t bytes, int pinned)
{
    (void)ctx;
    void *p = NULL;
    if (!pinned)
        return malloc(bytes);
    return cudaHostAlloc(&p, bytes, cudaHostAllocDefault) ? NULL : p;
}

static void host_free(void *ctx, void *p, int pinned)
{
    (void)ctx;
    if (pinned)
        cudaFreeHost(p);
    else
        free(p);
}

oc_status oc_cuda_offload_copier(oc_offload_copier *out)
{
    if (!out)
        return OC_ERR_NULL_POINTER;
    copy_streams *s = calloc(1, sizeof *s);
    if (!s)
        return OC_ERR_INTERNAL;
    int err = cudaStreamCreateWithFlags(&s->to_host, cudaStreamNonBlocking);
    if (!err && (err = cudaStreamCreateWithFlags(&s->to_device, cudaStreamNonBlocking)) != 0)
        cudaStreamDestroy(s->to_host);
    if (err) {
        free(s);
        return oc_cuda_status(err);
    }
    *out = (oc_offload_copier){s, to_host, to_device, host_alloc, host_free};
    return OC_OK;
}

void oc_cuda_offload_copier_free(oc_offload_copier *c)
{
    copy_streams *s = c ? c->ctx : NULL;
    if (s) {
        cudaStreamDestroy(s->to_host);
        cudaStreamDestroy(s->to_device);
        free(s);
        c->ctx = NULL;
    }
}
