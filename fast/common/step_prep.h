/* Host-side preparation of a multi-tensor step (spec/fast.md): the checks of FAST-ERR-1 and the
 * per-step binary32 scalars of FAST-DET-1, computed in binary64 from the hyper-parameters and
 * rounded once. One definition serves both backends: the CPU steps (fast/cpu/step.c) and the
 * CUDA steps call these, and fast/cuda/tests/test_cuda_host.c checks that the two backends'
 * steps agree bit for bit. Pointers are only compared, never read, so
 * the checks serve host and device buffers alike. */
#ifndef OPTCERT_FAST_STEP_PREP_H
#define OPTCERT_FAST_STEP_PREP_H

#include "elementwise.h"
#include "optcert/fast.h"

/* FAST-ERR-1: the family's own check (hp_status), the options, and every tensor's buffers
 * (present, aligned, pairwise disjoint within the tensor, the model copy included); `states`
 * is the number of state tensors the step reads and writes. */
oc_status oc_fast_prep_check(oc_status hp_status, const oc_fast_opts *o, size_t nt,
                             const oc_fast_tensor *t, int states);

oc_fast_adam_coef oc_fast_prep_adam(const oc_adam_hparams *hp, int64_t step);
oc_fast_sgd_coef oc_fast_prep_sgd(const oc_sgd_hparams *hp);
oc_fast_lion_coef oc_fast_prep_lion(const oc_lion_hparams *hp);

#endif
