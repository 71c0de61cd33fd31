/* The CUDA backend (spec/fast.md §5): the multi-tensor steps of the fast CPU backend
 * (optcert/fast.h) on one GPU, with device pointers, plus a Newton–Schulz orthogonalization on
 * cuBLAS.
 *
 * Everything is enqueued on the context's stream; no call waits for the GPU except those that
 * say so (oc_cuda_sync and the *_sync readers). Tensors (oc_fast_tensor) hold DEVICE pointers.
 * Hyper-parameters, steps and pointers are validated on the host as the CPU backend validates
 * them (FAST-ERR-1), before anything is enqueued; on error nothing is written. */
#ifndef OPTCERT_FAST_CUDA_H
#define OPTCERT_FAST_CUDA_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/fast.h"
#include "optcert/offload.h"

typedef struct oc_cuda_ctx oc_cuda_ctx;

/* FAST-CUDA-DEV-1: OC_OK if a CUDA device can run the backend; else OC_ERR_NO_DEVICE with the
 * runtime's reason in why[0..len-1] (NUL-terminated; why may be NULL). Never aborts. */
oc_status oc_cuda_device_check(char *why, size_t len);

/* A context on the current device: its own stream, the device-side tensor table, a non-finite
 * flag, a norm workspace and a cuBLAS handle. OC_ERR_NO_DEVICE without a device. */
oc_status oc_cuda_create(oc_cuda_ctx **ctx);
void oc_cuda_destroy(oc_cuda_ctx *ctx);
/* The context's stream (a cudaStream_t), for callers that order their own work with it. */
void *oc_cuda_stream(oc_cuda_ctx *ctx);
/* Waits for everything enqueued so far; reports an asynchronous CUDA error as OC_ERR_INTERNAL. */
oc_status oc_cuda_sync(oc_cuda_ctx *ctx);

/* FAST-CUDA-MT-1: one launch updates every tensor of the list (device pointers). The gradient the
 * update sees is (g * inv_scale) * clip (FAST-GRAD-1) where clip is o->clip_coeff, or, if
 * oc_cuda_clip_from_norm was called since the last step, the coefficient it left on the device
 * (no host round trip). Non-finite update gradients raise the context's flag
 * (oc_cuda_found_nonfinite_sync); the update still runs, as on the CPU. */
oc_status oc_cuda_adam_step(oc_cuda_ctx *ctx, const oc_adam_hparams *hp, int64_t step,
                            const oc_fast_opts *o, size_t ntensors, const oc_fast_tensor *t);
oc_status oc_cuda_sgd_step(oc_cuda_ctx *ctx, const oc_sgd_hparams *hp, int64_t step,
                           const oc_fast_opts *o, size_t ntensors, const oc_fast_tensor *t);
oc_status oc_cuda_lion_step(oc_cuda_ctx *ctx, const oc_lion_hparams *hp, int64_t step,
                            const oc_fast_opts *o, size_t ntensors, const oc_fast_tensor *t);

/* FAST-CUDA-NORM-1: the squared gradient norm of FAST-NORM-1 in the same order, so the result is
 * bit-identical to oc_fast_grad_sumsq on the same values. Enqueued only: the per-tensor sums
 * and the total stay on the device until oc_cuda_grad_sumsq_read_sync copies them out
 * (per_tensor may be NULL; ntensors as given to the last oc_cuda_grad_sumsq). */
oc_status oc_cuda_grad_sumsq(oc_cuda_ctx *ctx, size_t ntensors, const oc_fast_tensor *t,
                             float inv_scale);
oc_status oc_cuda_grad_sumsq_read_sync(oc_cuda_ctx *ctx, double *per_tensor, double *total,
                                       int *found_nonfinite);
/* FAST-CUDA-CLIP-1: on the device, from the last norm: clip = max_norm / (sqrt(total) + 1e-6) if
 * that is below 1, else 1 (Megatron's float path: NVIDIA/Megatron-LM@d98e8a64
 * megatron/core/optimizer/clip_grads.py L179, L189-192), rounded to binary32;
 * the next step uses it. */
oc_status oc_cuda_clip_from_norm(oc_cuda_ctx *ctx, double max_norm);
/* The non-finite flag raised by the steps since the last read; reading clears it. Waits. */
oc_status oc_cuda_found_nonfinite_sync(oc_cuda_ctx *ctx, int *found);

/* ---- Newton–Schulz (FAST-CUDA-NS-1) ---- */

typedef enum oc_cuda_ns_mode {
    OC_CUDA_NS_FP32 = 0, /* fp32 operands, fp32 products */
    OC_CUDA_NS_TF32,     /* fp32 storage, TF32 tensor-core products */
    OC_CUDA_NS_BF16,     /* bf16 operands and storage, fp32 accumulation */
} oc_cuda_ns_mode;

/* The (a, b, c) of each iteration: X <- a X + (b A + c A A) X with A = X X^T. */
typedef struct oc_cuda_ns_coef {
    float a, b, c;
} oc_cuda_ns_coef;

/* Named coefficient lists (NVIDIA-NeMo/Emerging-Optimizers@fd772926 muon_utils.py L30-90,
 * L239-240): "simple" (3.4445, -4.7750, 2.0315) every
 * iteration; "quintic" (5 tuples, cycled); "polar_express" (8 tuples, last repeated). Writes
 * the coefficients of `steps` iterations to out[0..steps-1]. */
oc_status oc_cuda_ns_coefficients(const char *name, int steps, oc_cuda_ns_coef *out);

/* NS-NORM-1's divisor of X: scale ||X||_F + eps (add mode; Keller Jordan's with scale 1 and
 * eps 1e-7) or max(scale ||X||_F, eps) (max mode). */
typedef struct oc_cuda_ns_norm {
    float eps;   /* >= 0, finite */
    float scale; /* > 0, finite */
    int max;     /* 1: max mode, 0: add mode */
} oc_cuda_ns_norm;

/* Orthogonalizes `batch` row-major rows x cols matrices in place (device pointer x, element
 * type float for FP32/TF32, bf16 bits (uint16_t) for BF16, matrix i at x + i*rows*cols):
 * X <- X / (the divisor `norm` gives), then the iterations, with the Gram matrix on the smaller
 * side (X X^T when rows <= cols, else X^T X: the transposed problem without a transpose). All
 * iterations are enqueued without a host wait. work: device scratch of
 * oc_cuda_ns_workspace_bytes bytes (NULL: the context allocates and keeps one). */
size_t oc_cuda_ns_workspace_bytes(int rows, int cols, int batch, oc_cuda_ns_mode mode);
oc_status oc_cuda_newton_schulz(oc_cuda_ctx *ctx, oc_cuda_ns_mode mode, int rows, int cols,
                                int batch, void *x, const oc_cuda_ns_norm *norm, int steps,
                                const oc_cuda_ns_coef *coef, void *work);

/* LAYOUT-OFFLOAD-3 on a GPU: the CPU offload's copier (oc_offload_config.copier) between the
 * engine's host buffers and device memory, on two streams of its own (one per direction);
 * the device step is then a fast-cuda step that waits for its update (oc_cuda_sync). */
oc_status oc_cuda_offload_copier(oc_offload_copier *out);
void oc_cuda_offload_copier_free(oc_offload_copier *c);

#endif
