/* Mixed-precision storage of the element-wise algorithms (spec/mixed.md): 16-bit model
 * parameters with an fp32 master copy, and optimizer state in fp32 or a 16-bit format. The
 * algorithm itself is unchanged; only its storage points move (spec/mixed.md §2,
 * MP-STORE-1..3). */
#ifndef OPTCERT_MIXED_H
#define OPTCERT_MIXED_H

#include <stddef.h>
#include <stdint.h>
#include "optcert/adam.h"
#include "optcert/formats.h"
#include "optcert/lion.h"
#include "optcert/sgd.h"
#ifdef __FRAMAC__
#include <errno.h> /* for the ACSL below (the Adam step may set errno); no C compiler reads it */
#endif

/* The element-wise algorithms a mixed-precision step can run. */
typedef enum oc_algorithm {
    OC_ALG_ADAM = 0, /* hparams: oc_adam_hparams */
    OC_ALG_SGD,      /* hparams: oc_sgd_hparams */
    OC_ALG_LION,     /* hparams: oc_lion_hparams */
    OC_ALG_COUNT
} oc_algorithm;

#define OC_MIXED_MAX_STATE 3

#ifdef __FRAMAC__
/* ACSL over every element-wise algorithm (proofs/NOTES.md): interface_of, hp_readable (the
 * hyper-parameters hp of algorithm alg are readable), state_count (oc_algorithm_state_count),
 * buffers_ok, and the interface's functions for `calls` clauses, generated from the
 * algorithms' descriptors and their headers' facts (cmake/registry.cmake); the proofs read the
 * copy in proofs/registry/. */
#include "elementwise_logic.h"
#endif

/* ACSL (proofs/NOTES.md). args_ok holds when none of the argument checks of oc_mixed_check
 * rejects (those before the algorithm's own check and the buffers). */
/*@ predicate args_ok(oc_algorithm alg, void *hp, oc_storage *s, size_t n, float *master,
                      void **state) =
        s != \null && hp != \null && (n > 0 ==> state != \null) && 0 <= s->param < OC_FMT_COUNT &&
        0 <= s->state < OC_FMT_COUNT && (s->param == OC_FMT_F32 <==> master == \null) &&
        0 <= alg < OC_ALG_COUNT;
    // t holds n values of format f.
    predicate tensor_valid(oc_format f, void *t, integer n) =
        f == OC_FMT_F32 ? \valid((float *)t + (0 .. n-1)) : \valid((uint16_t *)t + (0 .. n-1));
*/

/* State tensors the algorithm carries with these hyper-parameters (Adam: m, v and vmax with
 * AMSGrad; SGD: buf with momentum; Lion: m); -1 if alg is out of range or hp is NULL. */
/*@ requires hp_ok: hp != \null ==> hp_readable(alg, hp);
    assigns \nothing;
    ensures null_hp: hp == \null ==> \result == -1;
    ensures count: hp != \null ==> \result == state_count(alg, hp);
    ensures range: -1 <= \result <= OC_MIXED_MAX_STATE;
*/
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
/*@ requires n_bound: n <= 0x10000000;
    requires s_ok: s != \null ==> \valid_read(s);
    requires hp_ok: hp != \null ==> hp_readable(alg, hp);
    requires state_ok: n > 0 && hp != \null && state != \null ==>
             \valid_read(state + (0 .. state_count(alg, hp) - 1));
    requires tensors_ok: args_ok(alg, hp, s, n, master, state) && n > 0 ==>
             tensor_valid(s->param, param, n) && \valid_read(g + (0 .. n-1)) &&
             (master != \null ==> \valid(master + (0 .. n-1))) &&
             \forall integer k; 0 <= k < state_count(alg, hp) ==>
                 tensor_valid(s->state, state[k], n);
    assigns master[0 .. n-1], ((float *)param)[0 .. n-1], ((uint16_t *)param)[0 .. n-1],
            ((float *)state[0 .. OC_MIXED_MAX_STATE - 1])[0 .. n-1],
            ((uint16_t *)state[0 .. OC_MIXED_MAX_STATE - 1])[0 .. n-1], errno;
    // That nothing is written here is proved on mixed_step (behavior invalid_arguments):
    // WP does not use a callee's behavior assigns at a call (STATUS.md).
    behavior invalid_arguments: // MP-ERR-1
      assumes !args_ok(alg, hp, s, n, master, state);
      ensures rejected: \result != OC_OK;
    behavior maybe_valid:
      assumes args_ok(alg, hp, s, n, master, state);
    complete behaviors;
    disjoint behaviors;
*/
oc_status oc_ref_mixed_step(oc_algorithm alg, const void *hp, const oc_storage *s, int64_t step,
                            size_t n, void *param, float *master, void *const *state,
                            const float *g);

/* MP-ERR-1: the status oc_ref_mixed_step returns for these arguments if it is an error, else
 * OC_OK (formats, master presence, the algorithm's check, the buffers); reads no tensor. */
/*@ requires n_bound: n <= 0x10000000;
    requires s_ok: s != \null ==> \valid_read(s);
    requires hp_ok: hp != \null ==> hp_readable(alg, hp);
    requires state_ok: n > 0 && hp != \null && state != \null ==>
             \valid_read(state + (0 .. state_count(alg, hp) - 1));
    assigns \nothing;
    ensures invalid: !args_ok(alg, hp, s, n, master, state) ==> \result != OC_OK;
*/
oc_status oc_mixed_check(oc_algorithm alg, const void *hp, const oc_storage *s, int64_t step,
                         size_t n, const void *param, const float *master, void *const *state,
                         const float *g);

#endif
