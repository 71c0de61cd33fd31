/* Restore mistakes (spec/checkpoint.md RESUME-MUT-1): the reference's restore, then one value
 * put back to what a fresh optimizer or scaler holds. */
#include <string.h>
#include "resume.h"

const char *oc_resume_mutant_name(oc_resume_mutant mu)
{
    static const char *const names[OC_RESUME_MUTANT_COUNT] = {
        "correct", "restore-drops-step", "restore-drops-amsgrad-max", "restore-master-from-param",
        "restore-drops-growth-tracker", "restore-drops-hysteresis"};
    return (unsigned)mu < OC_RESUME_MUTANT_COUNT ? names[mu] : "unknown";
}

oc_status oc_resume_mutant_state_io(oc_resume_mutant mu, oc_state_op op, oc_algorithm alg,
                                    const void *hp, const oc_storage *s, size_t n,
                                    void *const *state, int64_t *steps_done, void *bytes,
                                    size_t *len)
{
    oc_status st = oc_ref_state_io(op, alg, hp, s, n, state, steps_done, bytes, len);
    if (st != OC_OK || op != OC_STATE_RESTORE)
        return st;
    if (alg == OC_STATE_LOSS_SCALER) {
        oc_loss_scale_state *ls = state[0];
        if (mu == OC_RESUME_MUT_GROWTH_DROPPED)
            ls->growth_tracker = 0;
        if (mu == OC_RESUME_MUT_HYSTERESIS_DROPPED)
            ls->hysteresis_tracker = ((const oc_loss_scaler *)hp)->hysteresis;
        return st;
    }
    int mixed = s->param != OC_FMT_F32;
    int amsgrad = alg == OC_ALG_ADAM && ((const oc_adam_hparams *)hp)->amsgrad;
    if (mu == OC_RESUME_MUT_STEP_DROPPED)
        *steps_done = 0;
    if (mu == OC_RESUME_MUT_MAX_DROPPED && amsgrad) /* vmax: the last buffer */
        memset(state[mixed + 3], 0, n * (s->state == OC_FMT_F32 ? sizeof(float) : sizeof(uint16_t)));
    if (mu == OC_RESUME_MUT_MASTER_FROM_PARAM && mixed)
        for (size_t i = 0; i < n; i++)
            ((float *)state[1])[i] = oc_widen(s->param, ((const uint16_t *)state[0])[i]);
    return st;
}
