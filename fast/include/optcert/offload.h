/* CPU offload of part of the optimizer (spec/layouts.md §10): Megatron's HybridDeviceOptimizer.
 * The parameters are split into a host group and a device group (LAYOUT-OFFLOAD-1, -2); the
 * device group is stepped where it lives, the host group on host copies (fp32 parameters, or
 * the fp32 master of a 16-bit model parameter, and every state tensor), with the gradients
 * copied device to host and the updated parameters host to device (LAYOUT-OFFLOAD-3). The
 * step is a step function of the layout engine (oc_dist_step_fn), so it runs under every
 * layout and under step control, bit-identical to the step without offload (LAYOUT-OFFLOAD-4).
 *
 * The device is whatever the tensors handed to the step point to: the caller's buffers. The
 * copies between host and device go through an oc_offload_copier (memcpy where the device is
 * host memory, as on a machine without a GPU: a second set of buffers with explicit copies,
 * both steps fast-cpu; with a GPU, oc_cuda_offload_copier and a fast-cuda device step). */
#ifndef OPTCERT_OFFLOAD_H
#define OPTCERT_OFFLOAD_H

#include <stddef.h>
#include "optcert/dist.h"
#include "optcert/fast.h"
#include "optcert/layout.h"

/* LAYOUT-OFFLOAD-1: Megatron's split (_get_sub_optimizer_param_groups) of n parameters of
 * numel[0..n-1], in the optimizer's order, all on the device: host[i] = 1 iff parameter i is
 * offloaded. fraction in [0, 1] (OC_ERR_BAD_HPARAM otherwise, NaN included). */
oc_status oc_offload_split(size_t n, const size_t *numel, double fraction, unsigned char *host);

/* LAYOUT-OFFLOAD-2: the split of the pieces rank `rank` owns under layout l, walked in
 * increasing flat position (Megatron's order under the distributed optimizer); host[i] is
 * the flag of the i-th segment of oc_layout_segments (its order, the order of the step's
 * tensors), host holding oc_layout_segments(l, rank, NULL, 0) entries. */
oc_status oc_offload_split_layout(const oc_layout *l, int rank, double fraction,
                                  unsigned char *host);

/* The copies between the two memories: bytes from src to dst, complete on return. host_alloc
 * and host_free (both NULL: malloc and free, nothing pinned) make and release the engine's
 * host buffers; pinned: page-locked, as Megatron's pin_memory() (LAYOUT-OFFLOAD-7). */
typedef struct oc_offload_copier {
    void *ctx;
    oc_status (*to_host)(void *ctx, void *dst, const void *src, size_t bytes);
    oc_status (*to_device)(void *ctx, void *dst, const void *src, size_t bytes);
    void *(*host_alloc)(void *ctx, size_t bytes, int pinned);
    void (*host_free)(void *ctx, void *p, int pinned);
} oc_offload_copier;

/* The copier of a device that is host memory (memcpy both ways; nothing to pin). */
oc_offload_copier oc_offload_copier_memcpy(void);

typedef struct oc_offload oc_offload;

typedef struct oc_offload_config {
    const unsigned char *host; /* [nt] the split: 1 = on the host (LAYOUT-OFFLOAD-1, -2) */
    int overlap;               /* Megatron's overlap_cpu_optimizer_d2h_h2d (LAYOUT-OFFLOAD-5) */
    oc_dist_step_fn step;      /* the device group's element-wise step (device pointers) */
    void *step_ctx;
    oc_dist_step_fn host_step; /* the host group's: the same family's fast-cpu step */
    void *host_ctx;
    oc_offload_copier copier;
    /* Megatron's pin_cpu_grads and pin_cpu_params (both True by default there; 0 here means
     * False): which host buffers the copier's host_alloc is asked to pin (LAYOUT-OFFLOAD-7). */
    int pin_cpu_grads, pin_cpu_params;
} oc_offload_config;

/* Builds the host side for the device tensors t[0..nt-1] (device pointers; the same list,
 * same sizes and buffers, is passed to every step): the host copies of the host group are
 * made from the device values now (Megatron clones at construction). A tensor with a model
 * copy (t.model != NULL) is a 16-bit parameter with param_update_in_fp32: its fp32 master
 * t.param is cloned to the host; without one, t.param is the fp32 parameter itself. */
oc_status oc_offload_create(const oc_offload_config *cfg, size_t nt, const oc_fast_tensor *t,
                            oc_offload **out);
void oc_offload_free(oc_offload *off);

/* LAYOUT-OFFLOAD-3..5: one step; an oc_dist_step_fn (ctx: the oc_offload). t: the device
 * tensors of creation (their grad buffers holding this step's gradients). The state and
 * master slots of the host group on the device are neither read nor written. */
oc_status oc_offload_step(void *off, const oc_fast_opts *o, size_t nt, const oc_fast_tensor *t);

/* The host copy of tensor i (its master or fp32 parameter and states; grad and model are the
 * host staging buffers), or of nothing (n = 0) when tensor i is on the device. */
oc_fast_tensor oc_offload_host_tensor(const oc_offload *off, size_t i);

/* LAYOUT-OFFLOAD-7: whether the engine asks its copier to pin a host buffer of a tensor (with
 * a model copy or not): slot 0 the parameter or master, 1 the gradient staging, 2 the 16-bit
 * model staging, 3 a state. */
enum { OC_OFFLOAD_PARAM, OC_OFFLOAD_GRAD, OC_OFFLOAD_MODEL, OC_OFFLOAD_STATE };
int oc_offload_pins(const oc_offload_config *cfg, int slot, int has_model);

/* LAYOUT-OFFLOAD-6: Megatron's offload_to_cpu / restore_from_cpu for the whole optimizer:
 * the device group's state (and masters of tensors with a model copy) copied to the host;
 * the device memory they occupied may be reused until restore_from_cpu copies them back. No
 * step between the two (OC_ERR_BAD_HPARAM). */
oc_status oc_offload_to_cpu(oc_offload *off, size_t nt, const oc_fast_tensor *t);
oc_status oc_offload_restore_from_cpu(oc_offload *off, size_t nt, const oc_fast_tensor *t);

/* Seconds the last step spent in each activity (wall time of each, summed over its pieces),
 * and the step's own wall time: the overlap benchmark's figures. */
typedef struct oc_offload_times {
    double to_host, device_step, host_step, to_device, total;
} oc_offload_times;
oc_offload_times oc_offload_last_times(const oc_offload *off);

#endif
