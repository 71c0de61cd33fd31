/* The reference serialisation of an element-wise optimizer's whole state (RESUME-STATE-1) and
 * of a loss scaler's (spec/checkpoint.md RESUME-REF-1, RESUME-LS-1). Its catalogued restore
 * mistakes (RESUME-MUT-1) are conformance/mutants/resume.c. */
#include <string.h>
#include "optcert/resume.h"

/* RESUME-REF-1: the header of a save: magic, then the fields below, then the values. */
static const char magic[8] = {'O', 'C', 'R', 'E', 'S', 'U', 'M', '1'};
typedef struct save_header {
    char magic[8];
    uint32_t alg, param_format, state_format, buffers;
    uint64_t n;
    int64_t steps_done;
} save_header;

/* RESUME-LS-1: the values a loss-scale profile holds (LS-STATE-1): the scale, then the growth
 * tracker (dynamic profiles), then the hysteresis tracker (megatron). */
static int scaler_values(const oc_loss_scaler *c)
{
    return c->profile == OC_LS_MEGATRON ? 3 : c->profile == OC_LS_TORCH ? 2 : 1;
}

int oc_state_buffer_count(oc_algorithm alg, const void *hp, const oc_storage *s)
{
    if (alg == OC_STATE_LOSS_SCALER)
        return hp && (unsigned)((const oc_loss_scaler *)hp)->profile < OC_LS_PROFILE_COUNT ? 1 : -1;
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

/* The header of a save of this state (RESUME-REF-1; for a loss scaler the profile in place of
 * the parameter format, its number of values in place of the buffer count) and the size of
 * the values after it. */
static save_header header(oc_algorithm alg, const void *hp, const oc_storage *s, int nbuf,
                          size_t n, int64_t steps_done, size_t *values)
{
    save_header h = {{0}, (uint32_t)alg, 0, 0, (uint32_t)nbuf, (uint64_t)n, steps_done};
    memcpy(h.magic, magic, sizeof magic);
    *values = 0;
    if (alg == OC_STATE_LOSS_SCALER) {
        const oc_loss_scaler *c = (const oc_loss_scaler *)hp;
        h.param_format = (uint32_t)c->profile;
        h.buffers = (uint32_t)scaler_values(c);
        *values = sizeof(float) + (h.buffers - 1) * sizeof(int64_t);
        return h;
    }
    h.param_format = (uint32_t)s->param;
    h.state_format = (uint32_t)s->state;
    for (int k = 0; k < nbuf; k++)
        *values += n * width(buffer_format(s, k));
    return h;
}

/* The values of a state to or from b (to: save; from: restore), in RESUME-REF-1's order. */
static void copy_values(oc_state_op op, oc_algorithm alg, const void *hp, const oc_storage *s,
                        int nbuf, size_t n, void *const *state, unsigned char *b)
{
    if (alg == OC_STATE_LOSS_SCALER) {
        const oc_loss_scaler *c = (const oc_loss_scaler *)hp;
        oc_loss_scale_state *ls = (oc_loss_scale_state *)state[0];
        void *field[3] = {&ls->scale, &ls->growth_tracker, &ls->hysteresis_tracker};
        size_t size[3] = {sizeof ls->scale, sizeof ls->growth_tracker,
                          sizeof ls->hysteresis_tracker};
        if (op == OC_STATE_RESTORE) /* a fresh scaler: what the save does not hold (LS-INIT-1) */
            (void)oc_ref_loss_scale_init(c, ls);
        for (int k = 0; k < scaler_values(c); k++) {
            memcpy(op == OC_STATE_SAVE ? (void *)b : field[k],
                   op == OC_STATE_SAVE ? field[k] : (void *)b, size[k]);
            b += size[k];
        }
        return;
    }
    for (int k = 0; k < nbuf && n > 0; k++) { /* n = 0: state may be NULL, nothing to copy */
        size_t size = n * width(buffer_format(s, k));
        memcpy(op == OC_STATE_SAVE ? (void *)b : state[k], op == OC_STATE_SAVE ? state[k] : (void *)b,
               size);
        b += size;
    }
}

oc_status oc_ref_state_io(oc_state_op op, oc_algorithm alg, const void *hp, const oc_storage *s,
                          size_t n, void *const *state, int64_t *steps_done, void *bytes,
                          size_t *len)
{
    int nbuf = oc_state_buffer_count(alg, hp, s);
    if (nbuf < 0 || !len)
        return nbuf < 0 && hp && (s || alg == OC_STATE_LOSS_SCALER) ? OC_ERR_BAD_PROFILE
                                                                     : OC_ERR_NULL_POINTER;
    if (alg == OC_STATE_LOSS_SCALER) {
        /* LS-CFG-1: a fresh scaler can be made */
        oc_status st = oc_loss_scaler_check((const oc_loss_scaler *)hp);
        if (st != OC_OK || n != 1)
            return st != OC_OK ? st : OC_ERR_BAD_SHAPE;
    }
    size_t values;
    save_header h = header(alg, hp, s, nbuf, n, 0, &values);
    size_t need = sizeof h + values;
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
    h.steps_done = *steps_done;
    if (op == OC_STATE_SAVE) {
        if (*len < need)
            return OC_ERR_BAD_SHAPE;
        if (*steps_done < 0)
            return OC_ERR_BAD_STEP;
        memcpy(b, &h, sizeof h);
        copy_values(op, alg, hp, s, nbuf, n, state, b + sizeof h);
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
    copy_values(op, alg, hp, s, nbuf, n, state, b + sizeof got);
    *steps_done = got.steps_done;
    return OC_OK;
}
