/* Mixed-precision storage around the element-wise reference steps (spec/mixed.md). The
 * algorithm runs unchanged on fp32 chunks; this file only moves values between storage
 * formats: exact widening on entry, round-to-nearest-even narrowing on exit. */
#include <errno.h> /* in the ACSL: the Adam step may set errno */
#include "optcert/buffers.h"
#include "optcert/elementwise.h"

/* Elements per chunk: the reference allocates nothing, chunks live on the stack. The algorithm
 * computes in binary64 and stores binary32 (its own TOL-1: within one ulp), so the narrowed
 * values are within one 16-bit ulp too (MP-TOL-2). Any combination of formats runs here;
 * MP-COMB-1 names the ones implementations claim. */
#define CHUNK 256

/* Typed views of the type-erased ABI (optcert/mixed.h). WP's Typed memory model cannot follow
 * a cast of void * to float * or uint16_t *, so the casts are made only in tensor_of and
 * state_view, which with the ABI entries oc_ref_mixed_step and oc_mixed_check (casts and a call)
 * are proved in WP's Typed+cast model; mixed_step, mixed_check and everything below them work on
 * typed pointers (proofs/STATUS.md). The hyper-parameters are the algorithm's own: only its
 * element-wise interface (optcert/elementwise.h) reads them. */
typedef struct hparams_view {
    oc_algorithm alg;
    const oc_elementwise *ew; /* alg's interface; NULL if alg has none */
    const void *hp;           /* NULL if not given */
} hparams_view;

/* A tensor: f32 is read for OC_FMT_F32, bits (the 16-bit patterns) for the other formats. */
typedef struct tensor_view {
    float *f32;
    uint16_t *bits;
} tensor_view;

/*@ predicate hp_ok(hparams_view h) =
        hp_readable(h.alg, (void *)h.hp) && interface_of(h.alg, (oc_elementwise *)h.ew);
    logic integer view_state_count(hparams_view h) = state_count(h.alg, (void *)h.hp);
    // t holds n values of format f.
    predicate tensor_ok(oc_format f, tensor_view t, integer n) =
        f == OC_FMT_F32 ? \valid(t.f32 + (0 .. n-1)) : \valid(t.bits + (0 .. n-1));
    // t holds values off .. off+len-1 in format f.
    predicate chunk_ok(oc_format f, tensor_view t, integer off, integer len) =
        f == OC_FMT_F32 ? \valid(t.f32 + (off .. off + len - 1)) :
                          \valid(t.bits + (off .. off + len - 1));
    // None of the argument checks of mixed_step rejects (those before the algorithm's own
    // check and the buffers).
    predicate view_args_ok(hparams_view h, oc_storage *s, size_t n, float *master,
                           tensor_view *state) =
        s != \null && h.hp != \null && (n > 0 ==> state != \null) && 0 <= s->param < OC_FMT_COUNT &&
        0 <= s->state < OC_FMT_COUNT && (s->param == OC_FMT_F32 <==> master == \null) &&
        0 <= h.alg < OC_ALG_COUNT;
*/

/* Algorithm alg with hyper-parameters hp, as its element-wise interface. */
/*@ assigns \nothing;
    ensures alg: \result.alg == alg && \result.hp == hp;
    ensures interface: interface_of(alg, (oc_elementwise *)\result.ew);
*/
static hparams_view hparams_of(oc_algorithm alg, const void *hp)
{
    const hparams_view h = {alg, oc_elementwise_of(alg), hp};
    return h;
}

/* The only casts of the tensors (proved in the Typed+cast model, STATUS.md). */
/*@ assigns \nothing;
    ensures view: \result.f32 == (float *)t && \result.bits == (uint16_t *)t;
    ensures valid: \forall oc_format f, integer n; tensor_valid(f, t, n) ==> tensor_ok(f, \result, n);
*/
static tensor_view tensor_of(void *t)
{
    const tensor_view v = {(float *)t, (uint16_t *)t};
    return v;
}

/* The state layout (MP-STORE-1): the algorithm's state tensors; -1 for an algorithm without an
 * interface. */
/*@ requires hp_ok(h);
    assigns \nothing;
    ensures \result == view_state_count(h);
    ensures -1 <= \result <= OC_MIXED_MAX_STATE;
*/
static int state_count_of(hparams_view h)
{
    if (h.ew == NULL)
        return -1;
    /*@ calls OC_ELEMENTWISE_STATE_COUNTS; */
    return h.ew->state_count(h.hp);
}

int oc_algorithm_state_count(oc_algorithm alg, const void *hp)
{
    return hp == NULL ? -1 : state_count_of(hparams_of(alg, hp));
}

/*@ assigns \nothing;
    ensures \result == (f == OC_FMT_F32 ? sizeof(float) : sizeof(uint16_t));
*/
static size_t width(oc_format f) { return f == OC_FMT_F32 ? sizeof(float) : sizeof(uint16_t); }

/* Value i of a tensor in format f, as fp32 (exact). */
/*@ requires 0 <= f < OC_FMT_COUNT;
    requires f == OC_FMT_F32 ==> \valid_read(t.f32 + i);
    requires f != OC_FMT_F32 ==> \valid_read(t.bits + i);
    assigns \nothing;
*/
static float load(oc_format f, tensor_view t, size_t i)
{
    return f == OC_FMT_F32 ? t.f32[i] : oc_widen(f, t.bits[i]);
}

/* Stores x as value i of a tensor in format f, rounded to nearest even (MP-CONV-1). */
/*@ requires 0 <= f < OC_FMT_COUNT;
    requires f == OC_FMT_F32 ==> \valid(t.f32 + i);
    requires f != OC_FMT_F32 ==> \valid(t.bits + i);
    assigns t.f32[i], t.bits[i];
*/
static void store(oc_format f, tensor_view t, size_t i, float x)
{
    if (f == OC_FMT_F32)
        t.f32[i] = x;
    else
        t.bits[i] = oc_narrow(f, x);
}

/* The address of a tensor in format f, for the buffer checks. */
/*@ assigns \nothing; */
static const void *address(oc_format f, tensor_view t)
{
    return f == OC_FMT_F32 ? (const void *)t.f32 : (const void *)t.bits;
}

/* Buffers: param, master, state..., g (fp32, MP-STORE-3); each checked, then pairwise
 * disjoint (MP-ERR-1). */
/*@ requires \valid_read(s);
    requires 0 <= nstate <= OC_MIXED_MAX_STATE;
    requires nstate > 0 ==> \valid_read(state + (0 .. nstate - 1));
    requires n <= 0x10000000;
    assigns \nothing;
*/
static oc_status check_buffers(const oc_storage *s, int nstate, size_t n, tensor_view param,
                               const float *master, const tensor_view *state, const float *g)
{
    const void *buf[OC_MIXED_MAX_STATE + 3];
    size_t w[OC_MIXED_MAX_STATE + 3];
    int nb = 0;
    /*@ assert tables_ok: \valid(buf + (0 .. OC_MIXED_MAX_STATE + 2)) &&
                          \valid(w + (0 .. OC_MIXED_MAX_STATE + 2)); */
    buf[nb] = address(s->param, param), w[nb++] = width(s->param);
    if (s->param != OC_FMT_F32)
        buf[nb] = master, w[nb++] = sizeof(float);
    /*@ loop invariant 0 <= k <= nstate && nb == k + (s->param != OC_FMT_F32 ? 2 : 1);
        loop assigns k, nb, buf[0 .. OC_MIXED_MAX_STATE + 2], w[0 .. OC_MIXED_MAX_STATE + 2];
        loop variant nstate - k;
    */
    for (int k = 0; k < nstate; k++)
        buf[nb] = address(s->state, state[k]), w[nb++] = width(s->state);
    buf[nb] = g, w[nb++] = sizeof(float);
    /*@ loop invariant 0 <= b <= nb;
        loop assigns b;
        loop variant nb - b;
    */
    for (int b = 0; b < nb; b++) {
        oc_status st = oc_buffer_check(buf[b], n, w[b]);
        if (st != OC_OK)
            return st;
        /*@ loop invariant 0 <= o <= b;
            loop assigns o, st;
            loop variant b - o;
        */
        for (int o = 0; o < b; o++)
            if ((st = oc_buffer_disjoint(buf[o], n * w[o], buf[b], n * w[b])) != OC_OK)
                return st;
    }
    return OC_OK;
}


/* Values off .. off+len-1 widened into the chunks (MP-STORE-2, MP-MASTER-1): w0 from the master
 * (if any) or from param in format pf, ws[k] from state tensor k in format sf. */
/*@ requires 0 <= pf < OC_FMT_COUNT && 0 <= sf < OC_FMT_COUNT;
    requires 0 <= nstate <= OC_MIXED_MAX_STATE && len <= CHUNK && off + len <= 0x10000000;
    requires master == \null ==> chunk_ok(pf, param, off, len);
    requires master != \null ==> \valid_read(master + (off .. off + len - 1));
    requires \valid_read(state + (0 .. nstate - 1));
    requires \forall integer k; 0 <= k < nstate ==> chunk_ok(sf, state[k], off, len);
    requires \valid(w0 + (0 .. len - 1)) && \valid_read(ws + (0 .. OC_MIXED_MAX_STATE - 1));
    requires \forall integer k; 0 <= k < OC_MIXED_MAX_STATE ==> \valid(ws[k] + (0 .. len - 1));
    requires \separated(w0 + (0 .. CHUNK-1), ws[0] + (0 .. CHUNK-1), ws[1] + (0 .. CHUNK-1),
                        ws[2] + (0 .. CHUNK-1));
    assigns w0[0 .. CHUNK-1], ws[0][0 .. CHUNK-1], ws[1][0 .. CHUNK-1], ws[2][0 .. CHUNK-1];
*/
static void load_chunk(size_t off, size_t len, oc_format pf, tensor_view param,
                       const float *master, oc_format sf, int nstate, const tensor_view *state,
                       float *w0, float *const *ws)
{
    /*@ loop invariant 0 <= i <= len;
        loop assigns i, w0[0 .. CHUNK-1], ws[0][0 .. CHUNK-1], ws[1][0 .. CHUNK-1],
                     ws[2][0 .. CHUNK-1];
        loop variant len - i;
    */
    for (size_t i = 0; i < len; i++) {
        w0[i] = master ? master[off + i] : load(pf, param, off + i);
        /*@ loop invariant 0 <= k <= nstate;
            loop assigns k, ws[0][0 .. CHUNK-1], ws[1][0 .. CHUNK-1], ws[2][0 .. CHUNK-1];
            loop variant nstate - k;
        */
        for (int k = 0; k < nstate; k++)
            ws[k][i] = load(sf, state[k], off + i);
    }
}

/* Values off .. off+len-1 of the n written back from the chunks w0 and ws (MP-CONV-1,
 * MP-STORE-2): the master (if any) exactly, param in format pf, each of the nstate state
 * tensors in format sf. The assigns name the whole tensors (n: a ghost parameter),
 * as in step_chunks: the chunk's place in them is proved here, where the context is small
 * (STATUS.md). */
/*@ requires 0 <= pf < OC_FMT_COUNT && 0 <= sf < OC_FMT_COUNT;
    requires 0 <= nstate <= OC_MIXED_MAX_STATE && len <= CHUNK && off + len <= n <= 0x10000000;
    requires chunk_ok(pf, param, off, len);
    requires master != \null ==> \valid(master + (off .. off + len - 1));
    requires \valid_read(state + (0 .. nstate - 1));
    requires \forall integer k; 0 <= k < nstate ==> chunk_ok(sf, state[k], off, len);
    requires \valid_read(w0 + (0 .. len - 1)) && \valid_read(ws + (0 .. OC_MIXED_MAX_STATE - 1));
    requires \forall integer k; 0 <= k < OC_MIXED_MAX_STATE ==> \valid_read(ws[k] + (0 .. len - 1));
    assigns master[0 .. n-1], param.f32[0 .. n-1], param.bits[0 .. n-1],
            state[0 .. nstate - 1].f32[0 .. n-1], state[0 .. nstate - 1].bits[0 .. n-1];
*/
static void write_back(size_t off, size_t len, oc_format pf, tensor_view param, float *master,
                       oc_format sf, int nstate, const tensor_view *state, const float *w0,
                       float *const *ws)
    /*@ ghost (size_t n) */
{
    /*@ loop invariant 0 <= i <= len;
        loop assigns i, master[0 .. n-1], param.f32[0 .. n-1], param.bits[0 .. n-1],
                     state[0 .. nstate - 1].f32[0 .. n-1], state[0 .. nstate - 1].bits[0 .. n-1];
        loop variant len - i;
    */
    for (size_t i = 0; i < len; i++) {
        if (master)
            master[off + i] = w0[i];
        store(pf, param, off + i, w0[i]);
        /*@ loop invariant 0 <= k <= nstate;
            loop assigns k, state[0 .. nstate - 1].f32[off + i],
                         state[0 .. nstate - 1].bits[off + i];
            loop variant nstate - k;
        */
        for (int k = 0; k < nstate; k++)
            store(sf, state[k], off + i, ws[k][i]);
    }
}

/* The algorithm's own step (its element-wise interface) on a chunk held in fp32: w0 the
 * parameter, ws the state. Apart from step_chunks for its proof: the indirect call is proved in
 * WP's Typed+cast model (proofs/parts/mixed.toml, dispatch), step_chunks's loops in Typed. */
/*@ requires hp_ok(h) && h.ew != \null;
    requires n <= CHUNK;
    requires \valid_read(ws + (0 .. OC_MIXED_MAX_STATE - 1));
    requires \valid(w0 + (0 .. n-1)) && \valid_read(g + (0 .. n-1));
    requires \valid(ws[0] + (0 .. n-1)) && \valid(ws[1] + (0 .. n-1)) && \valid(ws[2] + (0 .. n-1));
    requires \separated(w0 + (0 .. n-1), ws[0] + (0 .. n-1), ws[1] + (0 .. n-1), ws[2] + (0 .. n-1),
                        g + (0 .. n-1));
    assigns w0[0 .. n-1], ws[0][0 .. n-1], ws[1][0 .. n-1], ws[2][0 .. n-1], errno;
*/
static oc_status chunk_step(hparams_view h, int64_t step, size_t n, float *w0, float *const *ws,
                            const float *g)
{
    /*@ calls OC_ELEMENTWISE_STEPS; */
    return h.ew->step(h.hp, step, n, w0, ws, g);
}

/* The step of oc_ref_mixed_step once every check passed, on typed views: param in format pf,
 * the nstate state tensors in format sf; each chunk of param (or master) and state is widened
 * into w0 and ws, stepped, and narrowed back (MP-STORE-2, MP-CONV-1, MP-MASTER-1). */
/*@ requires hp_ok(h) && h.ew != \null;
    requires n <= 0x10000000 && 0 <= nstate <= OC_MIXED_MAX_STATE;
    requires 0 <= pf < OC_FMT_COUNT && 0 <= sf < OC_FMT_COUNT;
    requires tensor_ok(pf, param, n);
    requires master != \null ==> \valid(master + (0 .. n-1));
    requires \valid_read(state + (0 .. nstate - 1));
    requires \forall integer k; 0 <= k < nstate ==> tensor_ok(sf, state[k], n);
    requires \valid_read(g + (0 .. n-1));
    requires \valid(w0 + (0 .. CHUNK-1)) && \valid_read(ws + (0 .. OC_MIXED_MAX_STATE - 1));
    requires \forall integer k; 0 <= k < OC_MIXED_MAX_STATE ==> \valid(ws[k] + (0 .. CHUNK-1));
    requires \separated(w0 + (0 .. CHUNK-1), ws[0] + (0 .. CHUNK-1), ws[1] + (0 .. CHUNK-1),
                        ws[2] + (0 .. CHUNK-1), g + (0 .. n-1));
    assigns master[0 .. n-1], param.f32[0 .. n-1], param.bits[0 .. n-1],
            state[0 .. nstate - 1].f32[0 .. n-1], state[0 .. nstate - 1].bits[0 .. n-1],
            w0[0 .. CHUNK-1], ws[0][0 .. CHUNK-1], ws[1][0 .. CHUNK-1], ws[2][0 .. CHUNK-1], errno;
*/
static oc_status step_chunks(hparams_view h, int64_t step, size_t n, oc_format pf,
                             tensor_view param, float *master, oc_format sf, int nstate,
                             const tensor_view *state, const float *g, float *w0,
                             float *const *ws)
{
    /*@ loop invariant 0 <= off < n + CHUNK;
        loop assigns off, w0[0 .. CHUNK-1], ws[0][0 .. CHUNK-1], ws[1][0 .. CHUNK-1],
                     ws[2][0 .. CHUNK-1], master[0 .. n-1], param.f32[0 .. n-1],
                     param.bits[0 .. n-1], state[0 .. nstate - 1].f32[0 .. n-1],
                     state[0 .. nstate - 1].bits[0 .. n-1], errno;
        loop variant n - off;
    */
    for (size_t off = 0; off < n; off += CHUNK) {
        const size_t len = n - off < CHUNK ? n - off : CHUNK;
        load_chunk(off, len, pf, param, master, sf, nstate, state, w0, ws);
        /* Cannot fail: the hyper-parameters passed the same call with n = 0. */
        if (chunk_step(h, step, len, w0, ws, g + off) != OC_OK)
            return OC_ERR_INTERNAL;
        //@ assert chunk_in_tensor: off + len <= n;
        write_back(off, len, pf, param, master, sf, nstate, state, w0, ws) /*@ ghost (n) */;
    }
    return OC_OK;
}

/* The chunks step_chunks works on (w0: param or master, ws: the state tensors), zero: every
 * element is initialised (for Eva, which cannot tell that only written elements are read). */
typedef struct chunk_buffers {
    float w0[CHUNK];
    float ws[OC_MIXED_MAX_STATE][CHUNK];
} chunk_buffers;
static const chunk_buffers no_chunks;

/* MP-ERR-1 on typed views: formats, master presence, the algorithm's hyper-parameters and step,
 * then (n > 0) the buffers: everything checked before any write. */
/*@ requires n <= 0x10000000;
    requires s != \null ==> \valid_read(s);
    requires h.hp != \null ==> hp_ok(h);
    requires view_args_ok(h, s, n, master, state) && n > 0 ==>
             \valid_read(state + (0 .. view_state_count(h) - 1));
    assigns \nothing;
    ensures ok: \result == OC_OK ==> view_args_ok(h, s, n, master, state);
    ensures invalid: !view_args_ok(h, s, n, master, state) ==> \result != OC_OK;
*/
static oc_status mixed_check(hparams_view h, const oc_storage *s, int64_t step, size_t n,
                             tensor_view param, const float *master, const tensor_view *state,
                             const float *g)
{
    if (s == NULL || h.hp == NULL || (n > 0 && state == NULL))
        return OC_ERR_NULL_POINTER;
    if ((unsigned)s->param >= OC_FMT_COUNT || (unsigned)s->state >= OC_FMT_COUNT)
        return OC_ERR_BAD_PROFILE;
    if ((s->param == OC_FMT_F32) != (master == NULL)) /* MP-MASTER-1 */
        return s->param == OC_FMT_F32 ? OC_ERR_UNSUPPORTED : OC_ERR_NULL_POINTER;
    const int nstate = state_count_of(h);
    if (nstate < 0)
        return OC_ERR_BAD_PROFILE;
    oc_status st;
    /*@ calls OC_ELEMENTWISE_CHECKS; */
    st = h.ew->check(h.hp, step); /* its ERR rule */
    if (st != OC_OK || n == 0) /* with n = 0 state may be NULL: nothing more to check */
        return st;
    return check_buffers(s, nstate, n, param, master, state, g);
}

/* oc_ref_mixed_step on typed views: the hyper-parameters h, param, and the nviews views of
 * the state tensors (NULL iff the caller's state is NULL; the ghost nviews is the number of
 * state tensors wherever the checks pass, and bounds what the step writes). */
/*@ requires n <= 0x10000000;
    requires s != \null ==> \valid_read(s);
    requires h.hp != \null ==> hp_ok(h);
    requires view_args_ok(h, s, n, master, state) && n > 0 ==>
             nviews == view_state_count(h) &&
             \valid_read(state + (0 .. view_state_count(h) - 1)) &&
             tensor_ok(s->param, param, n) && \valid_read(g + (0 .. n-1)) &&
             (master != \null ==> \valid(master + (0 .. n-1))) &&
             \forall integer k; 0 <= k < view_state_count(h) ==> tensor_ok(s->state, state[k], n);
    assigns master[0 .. n-1], param.f32[0 .. n-1], param.bits[0 .. n-1],
            state[0 .. nviews - 1].f32[0 .. n-1], state[0 .. nviews - 1].bits[0 .. n-1], errno;
    behavior invalid_arguments: // MP-ERR-1
      assumes !view_args_ok(h, s, n, master, state);
      assigns \nothing;
      ensures \result != OC_OK;
    behavior maybe_valid:
      assumes view_args_ok(h, s, n, master, state);
    complete behaviors;
    disjoint behaviors;
*/
static oc_status mixed_step(hparams_view h, const oc_storage *s, int64_t step, size_t n,
                            tensor_view param, float *master, const tensor_view *state,
                            const float *g) /*@ ghost (int nviews) */
{
    oc_status st = mixed_check(h, s, step, n, param, master, state, g);
    if (st != OC_OK || n == 0)
        return st;
    const int nstate = state_count_of(h);
    //@ assert state_count: nstate == nviews;
    /* A copy, not an initializer list: WP states the zero-fill of a float array with an
     * integer 0, which Why3 rejects (STATUS.md). */
    chunk_buffers c = no_chunks;
    float *const wsp[OC_MIXED_MAX_STATE] = {c.ws[0], c.ws[1], c.ws[2]};
    return step_chunks(h, step, n, s->param, param, master, s->state, nstate, state, g, c.w0,
                       wsp);
}

/* The view of state tensor k of the count in state (of NULL beyond them). */
/*@ requires 0 <= k && (k < count ==> \valid_read(state + k));
    assigns \nothing;
    ensures view: 0 <= k < count ==>
                  \result.f32 == (float *)state[k] && \result.bits == (uint16_t *)state[k];
*/
static tensor_view state_view(void *const *state, int count, int k)
{
    return tensor_of(k < count ? state[k] : NULL);
}

/* The ABI entries (their contracts in mixed.h): the typed views of their arguments, then
 * mixed_check or mixed_step. The state pointers are read only where the header says state holds
 * oc_algorithm_state_count entries (n > 0, hp and state given); their tensors only in
 * mixed_step, after its checks. */
oc_status oc_mixed_check(oc_algorithm alg, const void *hp, const oc_storage *s, int64_t step,
                         size_t n, const void *param, const float *master, void *const *state,
                         const float *g)
{
    const int count = n > 0 && state != NULL ? oc_algorithm_state_count(alg, hp) : 0;
    const tensor_view views[OC_MIXED_MAX_STATE] = {
        state_view(state, count, 0), state_view(state, count, 1), state_view(state, count, 2)};
    return mixed_check(hparams_of(alg, hp), s, step, n, tensor_of((void *)param), master,
                       state == NULL ? NULL : views, g);
}

oc_status oc_ref_mixed_step(oc_algorithm alg, const void *hp, const oc_storage *s, int64_t step,
                            size_t n, void *param, float *master, void *const *state,
                            const float *g)
{
    const int count = n > 0 && state != NULL ? oc_algorithm_state_count(alg, hp) : 0;
    const tensor_view views[OC_MIXED_MAX_STATE] = {
        state_view(state, count, 0), state_view(state, count, 1), state_view(state, count, 2)};
    return mixed_step(hparams_of(alg, hp), s, step, n, tensor_of(param), master,
                      state == NULL ? NULL : views, g) /*@ ghost (count) */;
}
