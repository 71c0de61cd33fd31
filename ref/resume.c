/* The reference serialisation of an element-wise optimizer's state (spec/checkpoint.md
 * RESUME-REF-1) and its catalogued restore mistakes (RESUME-MUT-1). */
#include <string.h>
#include "optcert/resume.h"

/* RESUME-REF-1: the header of a save: magic, then the fields below, then the buffers. */
static const char magic[8] = {'O', 'C', 'R', 'E', 'S', 'U', 'M', '1'};
typedef struct save_header {
    char magic[8];
    uint32_t alg, param_format, state_format, buffers;
    uint64_t n;
    int64_t steps_done;
} save_header;

const char *oc_resume_mutant_name(oc_resume_mutant mu)
{
    static const char *const names[OC_RESUME_MUTANT_COUNT] = {
        "correct", "restore-drops-step", "restore-drops-amsgrad-max",
        "restore-master-from-param"};
    return (unsigned)mu < OC_RESUME_MUTANT_COUNT ? names[mu] : "unknown";
}

int oc_state_buffer_count(oc_algorithm alg, const void *hp, const oc_storage *s)
{
    int k = oc_algorithm_state_count(alg, hp);
    return k < 0 || !s ? -1 : 1 + (s->param != OC_FMT_F32) + k;
}

static size_t width(oc_format f) { return f == OC_FMT_F32 ? sizeof(float) : sizeof(uint16_t); }

/* The storage format of buffer k (VEC-ABI-3 order). */
static oc_format buffer_format(const oc_storage *s, int k)
{
    int mixed = s->param != OC_FMT_F32;
    return k == 0 ? s->param : (mixed && k == 1) ? OC_FMT_F32 : s->state;
}

static size_t save_size(const oc_storage *s, int nbuf, size_t n)
{
    size_t total = sizeof(save_header);
    for (int k = 0; k < nbuf; k++)
        total += n * width(buffer_format(s, k));
    return total;
}

/* RESUME-MUT-1: what a mistaken restore leaves in buffer k after copying the saved values. */
static void mistake(oc_resume_mutant mu, oc_algorithm alg, const void *hp, const oc_storage *s,
                    size_t n, void *const *state, int k)
{
    int mixed = s->param != OC_FMT_F32;
    int vmax = alg == OC_ALG_ADAM && ((const oc_adam_hparams *)hp)->amsgrad && k == mixed + 3;
    if (mu == OC_RESUME_MUT_MAX_DROPPED && vmax)
        memset(state[k], 0, n * width(buffer_format(s, k)));
    if (mu == OC_RESUME_MUT_MASTER_FROM_PARAM && mixed && k == 1)
        for (size_t i = 0; i < n; i++)
            ((float *)state[1])[i] = oc_widen(s->param, ((const uint16_t *)state[0])[i]);
}

oc_status oc_ref_state_io(oc_state_op op, oc_algorithm alg, const void *hp, const oc_storage *s,
                          size_t n, void *const *state, int64_t *steps_done, void *bytes,
                          size_t *len, oc_resume_mutant mu)
{
    int nbuf = oc_state_buffer_count(alg, hp, s);
    if (nbuf < 0 || !len)
        return nbuf < 0 && s && hp ? OC_ERR_BAD_PROFILE : OC_ERR_NULL_POINTER;
    size_t need = save_size(s, nbuf, n);
    if (op == OC_STATE_SIZE) {
        *len = need;
        return OC_OK;
    }
    if (!bytes || !steps_done || (n > 0 && !state))
        return OC_ERR_NULL_POINTER;
    for (int k = 0; k < nbuf && n > 0; k++)
        if (!state[k])
            return OC_ERR_NULL_POINTER;
    unsigned char *b = bytes;
    save_header h = {{0}, (uint32_t)alg, (uint32_t)s->param, (uint32_t)s->state,
                     (uint32_t)nbuf, (uint64_t)n, *steps_done};
    memcpy(h.magic, magic, sizeof magic);
    if (op == OC_STATE_SAVE) {
        if (*len < need)
            return OC_ERR_BAD_SHAPE;
        if (*steps_done < 0)
            return OC_ERR_BAD_STEP;
        memcpy(b, &h, sizeof h);
        b += sizeof h;
        for (int k = 0; k < nbuf; k++) {
            size_t size = n * width(buffer_format(s, k));
            memcpy(b, state[k], size);
            b += size;
        }
        *len = need;
        return OC_OK;
    }
    if (op != OC_STATE_RESTORE)
        return OC_ERR_UNSUPPORTED;
    save_header got;
    if (*len != need)
        return OC_ERR_FORMAT;
    memcpy(&got, b, sizeof got);
    h.steps_done = got.steps_done; /* the one field the restore takes from the save */
    if (memcmp(&got, &h, sizeof h) != 0 || got.steps_done < 0)
        return OC_ERR_FORMAT;
    b += sizeof got;
    for (int k = 0; k < nbuf; k++) {
        size_t size = n * width(buffer_format(s, k));
        memcpy(state[k], b, size);
        mistake(mu, alg, hp, s, n, state, k);
        b += size;
    }
    *steps_done = mu == OC_RESUME_MUT_STEP_DROPPED ? 0 : got.steps_done;
    return OC_OK;
}
