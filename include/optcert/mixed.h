/* Mixed-precision storage of the element-wise algorithms (spec/mixed.md): 16-bit model
 * parameters with an fp32 master copy, and optimizer state in fp32 or a 16-bit format. The
 * algorithm itself is unchanged; only its storage points move (ARCHITECTURE §2). */
#ifndef OPTCERT_MIXED_H
#define OPTCERT_MIXED_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/adam.h"
#include "optcert/formats.h"
#include "optcert/lion.h"
#include "optcert/sgd.h"

/* The element-wise algorithms a mixed-precision step can run. */
typedef enum oc_algorithm {
    OC_ALG_ADAM = 0, /* hparams: oc_adam_hparams */
    OC_ALG_SGD,      /* hparams: oc_sgd_hparams */
    OC_ALG_LION,     /* hparams: oc_lion_hparams */
    OC_ALG_COUNT
} oc_algorithm;

#define OC_MIXED_MAX_STATE 3

/* State tensors the algorithm carries with these hyper-parameters (Adam: m, v and vmax with
 * AMSGrad; SGD: buf with momentum; Lion: m); -1 if alg is out of range or hp is NULL. */
int oc_algorithm_state_count(oc_algorithm alg, const void *hp);

/* One step of algorithm alg (hyper-parameters hp) under storage s (MP-STORE-1..3, MP-MASTER-1):
 *   param   s->param format, [n]: the model parameter; when 16-bit it is written back from
 *           the master (MP-CONV-1); when f32 it is itself stepped and master must be NULL;
 *   master  fp32 [n], required iff s->param is 16-bit, stepped by the algorithm;
 *   state   oc_algorithm_state_count entries, each [n] in s->state format (float or
 *           uint16_t bits), in the algorithm's order (m, v, vmax / buf / m);
 *   g       fp32 gradient [n].
 * Within the step the state is held in fp32; each 16-bit tensor is widened on entry and
 * narrowed on exit (MP-STORE-2). On any error nothing is written. */
oc_status oc_ref_mixed_step(oc_algorithm alg, const void *hp, const oc_storage *s, int64_t step,
                            size_t n, void *param, float *master, void *const *state,
                            const float *g);

/* MP-ERR-1: the status oc_ref_mixed_step returns for these arguments if it is an error, else
 * OC_OK (formats, master presence, the algorithm's check, the buffers); reads no tensor. */
oc_status oc_mixed_check(oc_algorithm alg, const void *hp, const oc_storage *s, int64_t step,
                         size_t n, const void *param, const float *master, void *const *state,
                         const float *g);

#endif
