/* A float32 Muon for the tolerance tests (conformance/tests/f32_muon.c). */
#ifndef OPTCERT_TEST_F32_MUON_H
#define OPTCERT_TEST_F32_MUON_H

#include <stddef.h>
#include "optcert/muon.h"

/* Newton-Schulz (NS-*) in binary32 on a rows x cols matrix, transposing tall inputs. */
void ns_f32(const oc_ns_hparams *hp, size_t rows, size_t cols, const float *g, float *out);

/* MUON-* over the blocks of MUON-BLK-* in binary32 (the layout from oc_muon_block_at); with a
 * non-NULL ctx the whole matrix as one block (the mistake of ignoring the partition). The
 * oc_impl.muon_block_step signature. */
oc_status f32_block_step(void *ctx, const oc_muon_hparams *hp, const oc_muon_partition *given,
                         size_t rows, size_t cols, float *p, float *m, const float *g);

#endif
