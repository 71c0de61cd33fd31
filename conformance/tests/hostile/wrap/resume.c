/* The resume families' state entry, the fast backend's (FAST-RESUME-1) with the misbehaviour on
 * the first restore of resume-adam-torch and the first save of the others (VEC-RESUME-1):
 * WRITE_INPUTS changes the save a resume-adam-torch restore reads; OVERRUN writes one element
 * past the p a resume-adam-torch restore writes and one byte past the buffer a
 * resume-adam-torch-mixed save writes, and a resume-sgd-torch save reports 8 bytes more than it
 * was given. Every other case of the family must still conform.
 * expect write_inputs resume-adam-torch: wrote to its input save
 * expect overrun resume-adam-torch: wrote past the end of its output p
 * expect overrun resume-adam-torch-mixed: wrote past the end of its output save
 * expect overrun resume-sgd-torch: save reported [0-9]+ bytes written into a buffer of [0-9]+ */
#include <string.h>
#include "hostile_wrap.h"

static oc_status resume_io(const char *family, int *calls, oc_state_op op, void *ctx,
                           oc_algorithm alg, const void *hp, const oc_storage *s, size_t n,
                           void *const *state, int64_t *steps_done, void *bytes, size_t *len)
{
    size_t cap = *len;
    int adam = strcmp(family, "resume-adam-torch") == 0;
    oc_status st = FAST(family, oc_state_io_fn)(ctx, op, alg, hp, s, n, state, steps_done,
                                                bytes, len);
    int now = op != OC_STATE_SIZE && (op == OC_STATE_RESTORE) == adam && hostile_first(calls);
    if (now && HOSTILE == WRITE_INPUTS && adam)
        ((unsigned char *)bytes)[0] ^= 1;
    if (now && HOSTILE == OVERRUN && adam)
        ((float *)state[0])[n] = 0.0f;
    if (now && HOSTILE == OVERRUN && strcmp(family, "resume-adam-torch-mixed") == 0)
        ((unsigned char *)bytes)[cap] = 0;
    if (now && HOSTILE == OVERRUN && strcmp(family, "resume-sgd-torch") == 0)
        *len = cap + 8;
    return st;
}

#define RESUME_WRAPPER(fn, name)                                                                \
    static oc_status fn(void *ctx, oc_state_op op, oc_algorithm alg, const void *hp,            \
                        const oc_storage *s, size_t n, void *const *state, int64_t *steps_done, \
                        void *bytes, size_t *len)                                                \
    {                                                                                           \
        static int calls;                                                                       \
        return resume_io(name, &calls, op, ctx, alg, hp, s, n, state, steps_done, bytes, len);   \
    }
RESUME_WRAPPER(resume_adam, "resume-adam-torch")
RESUME_WRAPPER(resume_adam_mixed, "resume-adam-torch-mixed")
RESUME_WRAPPER(resume_sgd, "resume-sgd-torch")

const hostile_wrap hostile_wrap_resume_adam = {
    .family = "resume-adam-torch",
    .entry = (oc_entry_point)resume_adam,
};

const hostile_wrap hostile_wrap_resume_adam_mixed = {
    .family = "resume-adam-torch-mixed",
    .entry = (oc_entry_point)resume_adam_mixed,
};

const hostile_wrap hostile_wrap_resume_sgd = {
    .family = "resume-sgd-torch",
    .entry = (oc_entry_point)resume_sgd,
};
