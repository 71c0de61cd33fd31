/* The te-storage family's descriptor (spec/te_storage.md): values inline in the JSON
 * (VEC-FMT-19). A test is one direction of TE FusedAdam's storage for one tensor; its one
 * output, "value", packs what that direction writes (te_quantity names each entry), judged
 * exactly (TESTORE-TOL-1: every entry at 53 bits, tolerance 0). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "judge.h"
#include "vectors.h"
#include "ref_impl.h"
#include "../mutants/te_storage.h"

#define TE_MAXN (1u << 20)

static const char *const master_names[OC_TE_MASTER_COUNT] = {"off", "f32", "remainder"};
static const char *const moment_names[OC_TE_MOM_COUNT] = {"f32", "bf16", "f16", "fp8"};
static const char *const moment_keys[2] = {"expAvg", "expAvgSq"};

/* What a case carries besides c->in (c->positions): direction, tensor length. */
enum { TE_DIR, TE_LEN, TE_NPOS };
/* c->in: store: master bits, exp_avg, exp_avg_sq (fp32), scales; load: parameter bits, second
 * (remainder or master bits), both moments' bits (one uint32_t each), scales. */
enum { IN_MASTER = 0, IN_STORE_SCALES = 3, IN_PARAM = 0, IN_SECOND = 1, IN_LOAD_SCALES = 4 };

static const char *te_mutant(int mu) { return oc_te_mutant_name((oc_te_mutant)mu); }
static int te_nstate(const oc_hparams *hp) { return (void)hp, 1; }

static oc_status pick(const char *path, json_t *h, const char *key, const char *const *names,
                      int count, int *out, oc_diag *d)
{
    const char *s = json_string_value(json_object_get(h, key));
    for (int i = 0; s && i < count; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return OC_OK;
        }
    return oc_fail(d, OC_ERR_FORMAT, "%s: hparams.%s must be one of the names of VEC-FMT-19",
                   path, key);
}

static oc_status te_parse(const char *path, const char *profile, json_t *h, oc_hparams *u,
                          oc_diag *d)
{
    int m = 0, a = 0, b = 0; /* pick() sets each on success (GCC -O3 cannot see that) */
    oc_status st;
    if (strcmp(profile, "fusedadam") != 0)
        return oc_fail(d, OC_ERR_FORMAT, "%s: unknown te-storage profile '%s'", path, profile);
    if ((st = pick(path, h, "master", master_names, OC_TE_MASTER_COUNT, &m, d)) ||
        (st = pick(path, h, "expAvg", moment_names, OC_TE_MOM_COUNT, &a, d)) ||
        (st = pick(path, h, "expAvgSq", moment_names, OC_TE_MOM_COUNT, &b, d)))
        return st;
    u->te = (oc_te_config){(oc_te_master)m, {(oc_te_moment)a, (oc_te_moment)b}};
    return OC_OK;
}

/* Entries of the packed output (VEC-FMT-19). */
static size_t packed_len(const oc_te_config *cfg, int dir, size_t n)
{
    if (dir == OC_TE_LOAD)
        return 3 * n;
    return (cfg->master == OC_TE_MASTER_OFF ? 3 : 4) * n + 2;
}

static size_t te_n(const oc_case *c) { return (size_t)c->positions[TE_LEN]; }

static const char *te_quantity(const oc_case *c, int k, size_t j)
{
    (void)k;
    const size_t n = te_n(c);
    if (c->positions[TE_DIR] == OC_TE_LOAD)
        return j < n ? "master" : j < 2 * n ? "expAvg" : "expAvgSq";
    const int off = c->hp.te.master == OC_TE_MASTER_OFF;
    if (j < n)
        return "param";
    if (!off && j < 2 * n)
        return c->hp.te.master == OC_TE_MASTER_F32 ? "master" : "remainder";
    j -= off ? n : 2 * n;
    return j < n ? "expAvg" : j == n ? "expAvgScale" : j < 2 * n + 1 ? "expAvgSq" : "expAvgSqScale";
}

/* A JSON array of n integers in [0, max] into out (uint32_t each). */
static oc_status get_bits(const char *path, int tcid, json_t *a, const char *key, size_t n,
                          uint32_t max, float *out, oc_diag *d)
{
    json_t *v;
    size_t i;
    if (!json_is_array(a) || json_array_size(a) != n)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: inputs.%s needs %zu integers", path,
                       tcid, key, n);
    json_array_foreach(a, i, v) {
        json_int_t x = json_integer_value(v);
        if (!json_is_integer(v) || x < 0 || (uint64_t)x > max)
            return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: inputs.%s[%zu] is not a bit pattern",
                           path, tcid, key, i);
        const uint32_t u = (uint32_t)x;
        memcpy(&out[i], &u, sizeof u);
    }
    return OC_OK;
}

static uint32_t moment_max(oc_te_moment f)
{
    return f == OC_TE_MOM_F32 ? 0xffffffffu : f == OC_TE_MOM_FP8 ? 0xffu : 0xffffu;
}

/* "direction", "inputs" (store: master bits, expAvg and expAvgSq hex floats; load: param,
 * remainder or master, expAvg and expAvgSq bits; both: scales) and, valid tests, "expected"
 * (hex floats, packed). */
static oc_status te_load_case(const char *path, const oc_st_file *st, json_t *t, oc_case *c,
                              oc_diag *d)
{
    (void)st;
    const oc_te_config *cfg = &c->hp.te;
    const char *dir = json_string_value(json_object_get(t, "direction"));
    json_t *in = json_object_get(t, "inputs");
    json_t *anchor = json_object_get(in, dir && strcmp(dir, "load") == 0 ? "param" : "master");
    const size_t n = json_array_size(anchor);
    oc_status s;
    if (!dir || (strcmp(dir, "store") && strcmp(dir, "load")) || n == 0 || n > TE_MAXN)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tcId %d: needs direction store or load and 1 to "
                       "2^20 elements", path, c->tcid);
    c->positions = calloc(TE_NPOS, sizeof *c->positions);
    c->positions[TE_DIR] = strcmp(dir, "load") == 0 ? OC_TE_LOAD : OC_TE_STORE;
    c->positions[TE_LEN] = (int64_t)n;
    c->steps = 1;
    c->n = packed_len(cfg, (int)c->positions[TE_DIR], n);
    for (int k = 0; k < OC_MAX_STATE; k++)
        c->in[k] = calloc(n > 2 ? n : 2, sizeof(float));
    const int load = c->positions[TE_DIR] == OC_TE_LOAD;
    float *scales = c->in[load ? IN_LOAD_SCALES : IN_STORE_SCALES];
    if ((s = oc_get_hex_array(path, c->tcid, json_object_get(in, "scales"), 2, scales, d)))
        return s;
    if (!load) {
        if ((s = get_bits(path, c->tcid, anchor, "master", n, 0xffffffffu, c->in[IN_MASTER], d)))
            return s;
        for (int k = 0; k < 2; k++)
            if ((s = oc_get_hex_array(path, c->tcid, json_object_get(in, moment_keys[k]), n,
                                      c->in[1 + k], d)))
                return s;
    } else {
        const char *second = cfg->master == OC_TE_MASTER_F32 ? "master" : "remainder";
        if ((s = get_bits(path, c->tcid, anchor, "param", n, 0xffffu, c->in[IN_PARAM], d)) ||
            (cfg->master != OC_TE_MASTER_OFF &&
             (s = get_bits(path, c->tcid, json_object_get(in, second), second, n,
                           cfg->master == OC_TE_MASTER_F32 ? 0xffffffffu : 0xffffu,
                           c->in[IN_SECOND], d))))
            return s;
        for (int k = 0; k < 2; k++)
            if ((s = get_bits(path, c->tcid, json_object_get(in, moment_keys[k]), moment_keys[k],
                              n, moment_max(cfg->moment[k]), c->in[2 + k], d)))
                return s;
    }
    if (c->result != OC_RESULT_VALID)
        return OC_OK;
    float *x = calloc(c->n, sizeof(float));
    s = oc_get_hex_array(path, c->tcid, json_object_get(t, "expected"), c->n, x, d);
    c->exp[0].stored = calloc(c->n, sizeof(double));
    c->exp[0].f64 = calloc(c->n, sizeof(double));
    c->exp[0].tol = calloc(c->n, sizeof(double)); /* TESTORE-TOL-1: exact */
    for (size_t j = 0; s == OC_OK && j < c->n; j++)
        c->exp[0].stored[j] = c->exp[0].f64[j] = x[j];
    free(x);
    return s;
}

static size_t moment_bytes(oc_te_moment f, size_t n)
{
    return n * (f == OC_TE_MOM_F32 ? 4 : f == OC_TE_MOM_FP8 ? 1 : 2);
}

static uint32_t bits_at(const float *a, size_t i)
{
    uint32_t u;
    memcpy(&u, &a[i], sizeof u);
    return u;
}

/* Moment element i of format f as the uint32 of its bits, and back. */
static uint32_t moment_get(oc_te_moment f, const void *buf, size_t i)
{
    if (f == OC_TE_MOM_F32)
        return bits_at(buf, i);
    return f == OC_TE_MOM_FP8 ? ((const uint8_t *)buf)[i] : ((const uint16_t *)buf)[i];
}

static void moment_set(oc_te_moment f, void *buf, size_t i, uint32_t u)
{
    if (f == OC_TE_MOM_F32)
        memcpy((float *)buf + i, &u, sizeof u);
    else if (f == OC_TE_MOM_FP8)
        ((uint8_t *)buf)[i] = (uint8_t)u;
    else
        ((uint16_t *)buf)[i] = (uint16_t)u;
}

/* The value a stored moment holds (TESTORE-FMT-1), before any scale. */
static double moment_value(oc_te_moment f, uint32_t u)
{
    float x;
    switch (f) {
    case OC_TE_MOM_F32:
        memcpy(&x, &u, sizeof x);
        return x;
    case OC_TE_MOM_BF16:
        return oc_widen(OC_FMT_BF16, (uint16_t)u);
    case OC_TE_MOM_F16:
        return oc_widen(OC_FMT_F16, (uint16_t)u);
    default:
        return oc_fp8_e4m3_decode((uint8_t)u);
    }
}

/* The buffers of one call, each from oc_alloc_guarded, and their contents before it. */
typedef struct te_buffers {
    oc_te_state s;
    float *work[3];
    void *buf[8], *before[8];
    size_t bytes[8];
    const char *name[8];
    int nbuf;
} te_buffers;

static void *track(te_buffers *b, const char *name, size_t bytes)
{
    void *p = oc_alloc_guarded(bytes);
    memset(p, 0xa5, bytes); /* a pattern that a rejected call must leave alone */
    b->buf[b->nbuf] = p;
    b->bytes[b->nbuf] = bytes;
    b->name[b->nbuf++] = name;
    return p;
}

/* The stored state and the work buffers of case c, filled from its inputs. */
static void setup(const oc_case *c, te_buffers *b)
{
    const oc_te_config *cfg = &c->hp.te;
    const size_t n = te_n(c);
    const int load = c->positions[TE_DIR] == OC_TE_LOAD;
    memset(b, 0, sizeof *b);
    b->s.param = track(b, "param", 2 * n);
    if (cfg->master == OC_TE_MASTER_REMAINDER)
        b->s.remainder = track(b, "remainder", 2 * n);
    if (cfg->master == OC_TE_MASTER_F32)
        b->s.master = track(b, "master", 4 * n);
    for (int k = 0; k < 2; k++)
        b->s.moment[k] = track(b, moment_keys[k], moment_bytes(cfg->moment[k], n));
    static const char *const work_names[3] = {"work master", "work expAvg", "work expAvgSq"};
    for (int k = 0; k < 3; k++)
        b->work[k] = track(b, work_names[k], 4 * n);
    const float *scales = c->in[load ? IN_LOAD_SCALES : IN_STORE_SCALES];
    b->s.scale[0] = scales[0];
    b->s.scale[1] = scales[1];
    for (size_t i = 0; i < n; i++) {
        if (!load) {
            for (int k = 0; k < 3; k++)
                memcpy(&b->work[k][i], &c->in[k][i], sizeof(float));
            continue;
        }
        b->s.param[i] = (uint16_t)bits_at(c->in[IN_PARAM], i);
        if (b->s.remainder)
            b->s.remainder[i] = (uint16_t)bits_at(c->in[IN_SECOND], i);
        if (b->s.master)
            memcpy(&b->s.master[i], &c->in[IN_SECOND][i], sizeof(float));
        for (int k = 0; k < 2; k++)
            moment_set(cfg->moment[k], b->s.moment[k], i, bits_at(c->in[2 + k], i));
    }
    for (int j = 0; j < b->nbuf; j++) {
        b->before[j] = malloc(b->bytes[j]);
        memcpy(b->before[j], b->buf[j], b->bytes[j]);
    }
}

/* The packed output of a successful call (VEC-FMT-19). */
static void pack(const oc_case *c, const te_buffers *b, double *out)
{
    const oc_te_config *cfg = &c->hp.te;
    const size_t n = te_n(c);
    size_t j = 0;
    if (c->positions[TE_DIR] == OC_TE_LOAD) {
        for (int k = 0; k < 3; k++)
            for (size_t i = 0; i < n; i++)
                out[j++] = b->work[k][i];
        return;
    }
    for (size_t i = 0; i < n; i++)
        out[j++] = oc_widen(OC_FMT_BF16, b->s.param[i]);
    for (size_t i = 0; cfg->master != OC_TE_MASTER_OFF && i < n; i++)
        out[j++] = b->s.master ? (double)b->s.master[i] : (double)b->s.remainder[i];
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < n; i++)
            out[j++] = moment_value(cfg->moment[k], moment_get(cfg->moment[k], b->s.moment[k], i));
        out[j++] = b->s.scale[k];
    }
}

/* One call on guarded buffers (VEC-PLUG-3): the direction's inputs must stay as they were
 * (VEC-PLUG-2), and a rejected call must leave everything alone. */
static void te_run(const oc_runner *impl, const oc_case *c, oc_outputs *o, oc_status *st,
                   int *dirty)
{
    te_buffers b;
    const int load = c->positions[TE_DIR] == OC_TE_LOAD;
    const float scales[2] = {c->in[load ? IN_LOAD_SCALES : IN_STORE_SCALES][0],
                             c->in[load ? IN_LOAD_SCALES : IN_STORE_SCALES][1]};
    setup(c, &b);
    *st = OC_ENTRY(impl, oc_te_storage_fn)(impl->ctx, &c->hp.te,
                                           (oc_te_direction)c->positions[TE_DIR], te_n(c), &b.s,
                                           b.work);
    const int nstored = b.nbuf - 3; /* the work buffers come last */
    for (int j = 0; j < b.nbuf; j++) {
        const int input = load ? j < nstored : j >= nstored;
        if (input)
            oc_check_input(o, b.name[j], b.buf[j], b.before[j], b.bytes[j]);
        else
            oc_check_output(o, b.name[j], b.buf[j], b.bytes[j]);
        if (*st != OC_OK && memcmp(b.buf[j], b.before[j], b.bytes[j]) != 0)
            *dirty = 1;
    }
    if (*st != OC_OK && (memcmp(&b.s.scale[0], &scales[0], sizeof scales[0]) ||
                         memcmp(&b.s.scale[1], &scales[1], sizeof scales[1])))
        *dirty = 1;
    o->out[0] = calloc(c->n + 1, sizeof(double));
    if (*st == OC_OK)
        pack(c, &b, o->out[0]);
    for (int j = 0; j < b.nbuf; j++) {
        free(b.buf[j]);
        free(b.before[j]);
    }
}

/* The case's hyper-parameters: oc_hparams.te (algos.h). */
OC_HPARAMS(oc_te_config, te);

/* VEC-ABI-1: the reference's entry point, running the mutant its table selects (ref_impl.h). */
static oc_status ref_te_storage(void *ctx, const oc_te_config *c, oc_te_direction dir, size_t n,
                                oc_te_state *s, float *const *work)
{
    return oc_te_mutant_storage((oc_te_mutant)oc_ref_mutant_of(ctx, &oc_algo_te_storage), c, dir, n,
                                s, work);
}

const oc_algo oc_algo_te_storage = {
    .name = "te-storage",
    .group_type = "TeStorage",
    .state_names = {"value"},
    .precision = 53,
    .nmutants = OC_TE_MUTANT_COUNT,
    .mutant_name = te_mutant,
    .nstate = te_nstate,
    .parse = te_parse,
    .load_case = te_load_case,
    .run = te_run,
    .alg = OC_ALG_COUNT,
    .quantity = te_quantity,
    .reference = (oc_entry_point)ref_te_storage,
};
