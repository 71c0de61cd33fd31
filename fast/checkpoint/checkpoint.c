/* Checkpoint and reshard of the fast backend's optimizer state (spec/checkpoint.md). Saving:
 * every rank writes the pieces it owns into its shard, the ranks gather their piece lists on
 * rank 0, rank 0 checks that the pieces tile every parameter and writes the index last (the
 * commit point). Loading: every rank reads the index, verifies each shard it reads, assembles
 * its new segments from the overlapping pieces into staging buffers, and the ranks commit
 * together or not at all. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "diag.h"
#include "manifest.h"
#include "optcert/checkpoint.h"
#include "optcert/formats.h"
#include "safetensors.h"

#define INDEX_NAME "index.json"
#define FORMAT_NAME "optcert-checkpoint"
#define FORMAT_VERSION 1

static const char *const mutant_names[OC_CKPT_MUTANT_COUNT] = {
    "correct", "master-from-model", "step-not-saved", "hysteresis-not-saved", "piece-offset"};

const char *oc_ckpt_mutant_name(oc_ckpt_mutant mu)
{
    return (unsigned)mu < OC_CKPT_MUTANT_COUNT ? mutant_names[mu] : NULL;
}

static const char *model_name(oc_fast_dtype m)
{
    return m == OC_FAST_MODEL_BF16 ? "bf16" : m == OC_FAST_MODEL_FP16 ? "fp16" : "none";
}

static oc_status finish(oc_status st, const oc_diag *d, char *msg, size_t cap)
{
    if (msg && cap)
        snprintf(msg, cap, "%s", st == OC_OK ? "" : d->msg);
    return st;
}

/* CKPT-ATOMIC-1: the bytes go to "<path>.tmp", are fsynced, then renamed to path. */
static oc_status write_atomic(const char *path, const void *bytes, size_t n, oc_diag *d)
{
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp)
        return oc_fail(d, OC_ERR_IO, "%s: path too long", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return oc_fail(d, OC_ERR_IO, "%s: %s", tmp, strerror(errno));
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, (const char *)bytes + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    int ok = done == n && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        oc_status st = oc_fail(d, OC_ERR_IO, "%s: %s", done == n ? path : tmp, strerror(errno));
        unlink(tmp);
        return st;
    }
    return OC_OK;
}

/* The renames are durable once the directory is synced. */
static oc_status sync_dir(const char *dir, oc_diag *d)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    int ok = fd >= 0 && fsync(fd) == 0;
    if (fd >= 0)
        ok = close(fd) == 0 && ok;
    return ok ? OC_OK : oc_fail(d, OC_ERR_IO, "%s: cannot sync: %s", dir, strerror(errno));
}

static void shard_name(char *out, size_t cap, int rank, int size)
{
    snprintf(out, cap, "shard-%05d-of-%05d.safetensors", rank, size);
}

/* CKPT-OWN-1: this rank writes its owned pieces of parameter i unless they are a copy
 * another rank writes (the replicated layout: data-parallel rank 0 writes). */
static int writes(const oc_ckpt_sub *u, size_t i)
{
    return !u->params[i].replica &&
           (u->d->layout->kind != OC_LAYOUT_REPLICATED || u->d->comm->rank == 0);
}

/* The fp32 master (or fp32 parameter) of owned segment k at packed position pos. */
static float *master_of(const oc_ckpt_sub *u, size_t k, size_t pos)
{
    return u->b->master ? u->b->master + pos : u->b->params + u->d->seg[k].flat;
}

/* CKPT-FMT-3: the global position of local element j of p, and in *run how many local
 * elements from j (at most len) follow it contiguously there: all of them unless p is split
 * on dim 1, where a run ends with its row. */
static size_t global_run(const oc_ckpt_param *p, size_t j, size_t len, size_t *run)
{
    if (!p->cols) {
        *run = len;
        return p->base + j;
    }
    size_t col = j % p->cols, left = p->cols - col;
    *run = left < len ? left : len;
    return j / p->cols * p->dim1 + p->base + col;
}

/* CKPT-FMT-1: this rank's shard (a safetensors file of 1-D F32 tensors "<key>/<field>", key =
 * "<name>@<start>") in memory, and the JSON list of its pieces. */
static oc_status build_shard(const oc_ckpt_state *s, unsigned char **out, size_t *out_len,
                             json_t *pieces)
{
    size_t data = 0;
    for (size_t k = 0; k < s->nsub; k++)
        for (size_t i = 0; i < s->sub[k].d->nseg; i++)
            if (writes(&s->sub[k], s->sub[k].d->seg[i].param))
                data += (size_t)(1 + s->sub[k].nstates) * s->sub[k].d->seg[i].len * sizeof(float);
    unsigned char *bytes = malloc(data ? data : 1);
    json_t *hdr = json_object();
    size_t at = 0;
    for (size_t k = 0; bytes && k < s->nsub; k++) {
        const oc_ckpt_sub *u = &s->sub[k];
        for (size_t i = 0, pos = 0; i < u->d->nseg; pos += u->d->seg[i].len, i++) {
            const oc_layout_segment *g = &u->d->seg[i];
            const oc_ckpt_param *p = &u->params[g->param];
            if (!writes(u, g->param))
                continue;
            for (size_t done = 0, run = 0; done < g->len; done += run) { /* CKPT-FMT-3 */
                size_t start = global_run(p, g->off + done, g->len - done, &run);
                char key[512];
                snprintf(key, sizeof key, "%s@%zu", p->name, start);
                json_array_append_new(pieces, json_pack("{s:s,s:I,s:[I,I],s:I,s:I,s:s}", "name",
                                                        p->name, "sub", (json_int_t)k, "shape",
                                                        (json_int_t)p->dim0, (json_int_t)p->dim1,
                                                        "start", (json_int_t)start, "len",
                                                        (json_int_t)run, "key", key));
                for (int f = -1; f < u->nstates; f++) {
                    char tk[600];
                    snprintf(tk, sizeof tk, "%s/%s", key, f < 0 ? "master" : u->state_names[f]);
                    size_t n = run * sizeof(float);
                    memcpy(bytes + at,
                           (f < 0 ? master_of(u, i, pos) : u->b->state[f] + pos) + done, n);
                    json_object_set_new(hdr, tk, json_pack("{s:s,s:[I],s:[I,I]}", "dtype", "F32",
                                                           "shape", (json_int_t)run,
                                                           "data_offsets", (json_int_t)at,
                                                           (json_int_t)(at + n)));
                    at += n;
                }
            }
        }
    }
    char *h = bytes ? json_dumps(hdr, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(hdr);
    size_t len = h ? strlen(h) : 0, padded = (len + 7) / 8 * 8;
    *out_len = 8 + padded + data;
    *out = h ? malloc(*out_len) : NULL;
    if (*out) { /* little-endian header length, the header padded with blanks, the data */
        for (int i = 0; i < 8; i++)
            (*out)[i] = (unsigned char)((uint64_t)padded >> (8 * i));
        memcpy(*out + 8, h, len);
        memset(*out + 8 + len, ' ', padded - len);
        memcpy(*out + 8 + padded, bytes, data);
    }
    free(h), free(bytes);
    return *out ? OC_OK : OC_ERR_INTERNAL;
}

/* Every rank's text on every rank: texts[r * *stride ...] (NUL-terminated). A rank out of
 * memory makes every rank fail before the all-gather it would miss (LAYOUT-AGREE-1). */
static oc_status gather_text(const oc_comm *c, const char *mine, char **texts, size_t *stride)
{
    size_t *lens = calloc((size_t)c->size, sizeof *lens);
    *texts = NULL;
    *stride = 1;
    oc_status st = oc_comm_agree(c, lens ? OC_OK : OC_ERR_INTERNAL);
    if (st == OC_OK) {
        lens[c->rank] = strlen(mine) + 1;
        st = c->allgather(c->ctx, lens, 1, sizeof *lens);
    }
    for (int r = 0; r < c->size && st == OC_OK; r++)
        *stride = lens[r] > *stride ? lens[r] : *stride;
    free(lens);
    if (st == OC_OK)
        st = oc_comm_agree(c, (*texts = calloc((size_t)c->size, *stride)) ? OC_OK
                                                                          : OC_ERR_INTERNAL);
    if (st == OC_OK) {
        memcpy(*texts + (size_t)c->rank * *stride, mine, strlen(mine) + 1);
        st = c->allgather(c->ctx, *texts, *stride, 1);
    }
    return st;
}

static int by_start(const void *a, const void *b)
{
    json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "start"));
    json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "start"));
    return (x > y) - (x < y);
}

/* CKPT-FMT-1: parameter name's pieces sorted by start; OC_OK iff they tile [0, numel). */
static oc_status tile(const char *name, json_t *param, oc_diag *d)
{
    json_t *pieces = json_object_get(param, "pieces"), *shape = json_object_get(param, "shape");
    size_t n = json_array_size(pieces), end = 0;
    json_t **v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return OC_ERR_INTERNAL;
    for (size_t i = 0; i < n; i++)
        v[i] = json_incref(json_array_get(pieces, i));
    qsort(v, n, sizeof *v, by_start);
    json_array_clear(pieces);
    for (size_t i = 0; i < n; i++) {
        end = (size_t)json_integer_value(json_object_get(v[i], "start")) == end
                  ? end + (size_t)json_integer_value(json_object_get(v[i], "len"))
                  : (size_t)-1;
        json_array_append_new(pieces, v[i]);
    }
    free(v);
    size_t numel = (size_t)json_integer_value(json_array_get(shape, 0)) *
                   (size_t)json_integer_value(json_array_get(shape, 1));
    return end == numel ? OC_OK
                        : oc_fail(d, OC_ERR_INTERNAL,
                                  "parameter %s: the ranks' pieces do not tile its %zu elements",
                                  name, numel);
}

/* The index (CKPT-FMT-1, CKPT-FMT-2) from every rank's fragment. */
static oc_status build_index(const oc_ckpt_state *s, const char *texts, size_t stride,
                             json_t **out, oc_diag *d)
{
    json_t *params = json_object(), *shards = json_object(), *subs = json_array(),
           *from = json_array();
    oc_status st = OC_OK;
    for (int r = 0; r < s->world->size && st == OC_OK; r++) {
        json_t *frag = json_loads(texts + (size_t)r * stride, 0, NULL), *e;
        size_t i;
        json_object_set(shards, json_string_value(json_object_get(frag, "shard")),
                        json_object_get(frag, "check"));
        json_array_foreach(json_object_get(frag, "pieces"), i, e) {
            const char *name = json_string_value(json_object_get(e, "name"));
            json_t *p = json_object_get(params, name);
            if (!p) {
                p = json_pack("{s:O,s:O,s:s,s:[]}", "sub", json_object_get(e, "sub"), "shape",
                              json_object_get(e, "shape"), "dtype", "F32", "pieces");
                json_object_set_new(params, name, p);
            } else if (!json_equal(json_object_get(p, "sub"), json_object_get(e, "sub")) ||
                       !json_equal(json_object_get(p, "shape"), json_object_get(e, "shape"))) {
                st = oc_fail(d, OC_ERR_BAD_HPARAM,
                             "parameter %s: ranks disagree on its shape or sub-optimizer", name);
            }
            json_array_append_new(json_object_get(p, "pieces"),
                                  json_pack("{s:O,s:O,s:s,s:O}", "start",
                                            json_object_get(e, "start"), "len",
                                            json_object_get(e, "len"), "shard",
                                            json_string_value(json_object_get(frag, "shard")),
                                            "key", json_object_get(e, "key")));
        }
        json_decref(frag);
    }
    const char *name;
    json_t *p;
    json_object_foreach(params, name, p) {
        if (st == OC_OK)
            st = tile(name, p, d);
    }
    for (size_t k = 0; k < s->nsub; k++) {
        const oc_ckpt_sub *u = &s->sub[k];
        json_t *states = json_array();
        for (int f = 0; f < u->nstates; f++)
            json_array_append_new(states, json_string(u->state_names[f]));
        json_array_append_new(subs, json_pack("{s:I,s:s,s:o}", "step", (json_int_t)*u->step,
                                              "model", model_name(u->model), "states", states));
        json_array_append_new(from, json_pack("{s:s,s:i,s:I}", "layout",
                                              oc_layout_kind_name(u->d->layout->kind), "dp",
                                              u->d->layout->dp, "buckets",
                                              (json_int_t)u->d->layout->nbuckets));
    }
    json_t *scaler = s->scaler ? json_pack("{s:f,s:I,s:I}", "scale", (double)s->scaler->scale,
                                           "growth_tracker", (json_int_t)s->scaler->growth_tracker,
                                           "hysteresis_tracker",
                                           (json_int_t)s->scaler->hysteresis_tracker)
                               : json_null();
    *out = json_pack("{s:s,s:i,s:{s:i,s:i,s:i,s:i,s:o},s:o,s:I,s:o,s:o,s:o}", "format",
                     FORMAT_NAME, "version", FORMAT_VERSION, "written_from", "world",
                     s->world->size, "tp", s->tp, "pp", s->pp, "ep", s->ep, "layouts", from,
                     "loss_scaler", scaler, "schedule_position", (json_int_t)*s->position,
                     "subs", subs, "params", params, "shards", shards);
    if (st != OC_OK || !*out) {
        json_decref(*out);
        *out = NULL;
        return st != OC_OK ? st : oc_fail(d, OC_ERR_INTERNAL, "index: out of memory");
    }
    return OC_OK;
}

static int bad_state(const oc_ckpt_state *s)
{
    if (!s || !s->world || !s->position || (s->nsub && !s->sub))
        return 1;
    for (size_t k = 0; k < s->nsub; k++) {
        const oc_ckpt_sub *u = &s->sub[k];
        if (!u->d || !u->b || !u->params || !u->step || u->nstates < 0 || u->nstates > 3 ||
            (u->nstates && !u->state_names) || (u->model && (!u->b->master || !u->b->model)) ||
            (!u->model && !u->b->params))
            return 1;
        for (int f = 0; f < u->nstates; f++)
            if (!u->b->state[f] || !u->state_names[f])
                return 1;
    }
    return 0;
}

oc_status oc_ckpt_save(const oc_ckpt_state *s, const char *dir, char *msg, size_t cap)
{
    oc_diag d = {""};
    if (bad_state(s) || !dir)
        return finish(oc_fail(&d, OC_ERR_NULL_POINTER, "checkpoint save: missing buffer"), &d,
                      msg, cap);
    const oc_comm *c = s->world;
    char path[4096], name[64];
    oc_status st = OC_OK;
    snprintf(path, sizeof path, "%s/%s", dir, INDEX_NAME);
    if (c->rank == 0 && mkdir(dir, 0755) != 0 && errno != EEXIST)
        st = oc_fail(&d, OC_ERR_IO, "%s: %s", dir, strerror(errno));
    if (st == OC_OK && c->rank == 0 && access(path, F_OK) == 0)
        st = oc_fail(&d, OC_ERR_IO, "%s: a checkpoint is already there", path);
    if ((st = oc_comm_agree(c, st)) != OC_OK)
        return finish(st, &d, msg, cap);
    /* CKPT-ATOMIC-1: every shard durable under its final name before the index exists */
    unsigned char *bytes = NULL;
    size_t len = 0;
    json_t *pieces = json_array();
    shard_name(name, sizeof name, c->rank, c->size);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if ((st = build_shard(s, &bytes, &len, pieces)) == OC_OK)
        st = write_atomic(path, bytes, len, &d);
    char hex[65] = "";
    if (bytes)
        oc_sha256_hex(bytes, len, hex);
    free(bytes);
    json_t *mine = json_pack("{s:s,s:{s:s,s:I},s:o}", "shard", name, "check", "sha256", hex,
                             "size", (json_int_t)len, "pieces", pieces);
    char *frag = json_dumps(mine, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(mine);
    if (!frag && st == OC_OK)
        st = OC_ERR_INTERNAL;
    char *texts = NULL;
    size_t stride = 0;
    if ((st = oc_comm_agree(c, st)) == OC_OK)
        st = gather_text(c, frag, &texts, &stride);
    free(frag);
    if (st == OC_OK && c->rank == 0) {
        json_t *index = NULL;
        st = build_index(s, texts, stride, &index, &d);
        char *text = index ? json_dumps(index, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
        json_decref(index);
        snprintf(path, sizeof path, "%s/%s", dir, INDEX_NAME);
        if (st == OC_OK && (st = sync_dir(dir, &d)) == OC_OK) /* the shards' renames first */
            st = write_atomic(path, text, text ? strlen(text) : 0, &d);
        if (st == OC_OK)
            st = sync_dir(dir, &d);
        free(text);
    }
    free(texts);
    return finish(oc_comm_agree(c, st), &d, msg, cap);
}

/* ---- loading ---- */

typedef struct loader {
    const char *dir;
    json_t *index, *params;
    size_t nfiles;
    const char **names; /* shards opened so far */
    oc_st_file *files;
    oc_ckpt_mutant mu;
    oc_diag *d;
} loader;

/* CKPT-LOAD-1: shard `name` (path: its path) exists with the size the index gives, and the
 * index has its checksum. */
static oc_status shard_there(loader *L, const char *name, char path[4096])
{
    json_t *check = json_object_get(json_object_get(L->index, "shards"), name);
    snprintf(path, 4096, "%s/%s", L->dir, name);
    if (!json_is_string(json_object_get(check, "sha256")))
        return oc_fail(L->d, OC_ERR_FORMAT, "%s: shard %s has no checksum", INDEX_NAME, name);
    json_int_t want = json_integer_value(json_object_get(check, "size"));
    struct stat sb;
    if (stat(path, &sb) != 0)
        return oc_fail(L->d, OC_ERR_IO, "%s: shard missing: %s", path, strerror(errno));
    if ((json_int_t)sb.st_size != want)
        return oc_fail(L->d, OC_ERR_FORMAT, "%s: shard truncated or extended: %lld bytes, the "
                       "index says %lld", path, (long long)sb.st_size, (long long)want);
    return OC_OK;
}

/* CKPT-LOAD-1: shard `name`, read whole and checked against the index's size and SHA-256. */
static oc_status open_shard(loader *L, const char *name, const oc_st_file **out)
{
    for (size_t i = 0; i < L->nfiles; i++)
        if (strcmp(L->names[i], name) == 0) {
            *out = &L->files[i];
            return OC_OK;
        }
    json_t *check = json_object_get(json_object_get(L->index, "shards"), name);
    char path[4096], hex[65];
    oc_status st = shard_there(L, name, path);
    oc_st_file f;
    if (st != OC_OK || (st = oc_st_open(path, &f, L->d)) != OC_OK)
        return st;
    oc_sha256_hex(f.bytes, f.size, hex);
    if (strcmp(hex, json_string_value(json_object_get(check, "sha256"))) != 0) {
        oc_st_close(&f);
        return oc_fail(L->d, OC_ERR_FORMAT, "%s: shard checksum mismatch (SHA-256 %s, the index "
                       "says %s)", path, hex, json_string_value(json_object_get(check, "sha256")));
    }
    oc_st_file *files = realloc(L->files, (L->nfiles + 1) * sizeof *files);
    const char **names = files ? realloc(L->names, (L->nfiles + 1) * sizeof *names) : NULL;
    if (files)
        L->files = files;
    if (!names) {
        oc_st_close(&f);
        return oc_fail(L->d, OC_ERR_INTERNAL, "out of memory");
    }
    L->names = names;
    L->names[L->nfiles] = name;
    L->files[L->nfiles] = f;
    *out = &L->files[L->nfiles++];
    return OC_OK;
}

/* CKPT-RESHARD-1: dst[0 .. len) := field `field` of elements [start, start + len) of parameter
 * name, from the pieces that overlap them. */
static oc_status fetch(loader *L, const char *name, const char *field, size_t start, size_t len,
                       float *dst)
{
    json_t *pieces = json_object_get(json_object_get(L->params, name), "pieces"), *e;
    size_t i, need = start, end = start + len;
    oc_status st = OC_OK;
    json_array_foreach(pieces, i, e) {
        size_t ps = (size_t)json_integer_value(json_object_get(e, "start"));
        size_t pl = (size_t)json_integer_value(json_object_get(e, "len")), pe = ps + pl;
        if (pe <= need || ps >= end)
            continue;
        if (ps > need)
            break; /* a gap */
        const oc_st_file *f;
        char key[600];
        float *data = NULL;
        snprintf(key, sizeof key, "%s/%s", json_string_value(json_object_get(e, "key")), field);
        if ((st = open_shard(L, json_string_value(json_object_get(e, "shard")), &f)) != OC_OK ||
            (st = oc_st_tensor(f, key, OC_F32, 1, pl, (void **)&data, L->d)) != OC_OK)
            return st;
        size_t z = pe < end ? pe : end;
        /* the mutant forgets where the segment starts inside a piece it splits */
        size_t from = L->mu == OC_CKPT_MUT_PIECE_OFFSET && ps < start ? 0 : need - ps;
        memcpy(dst + (need - start), data + from, (z - need) * sizeof(float));
        free(data);
        need = z;
    }
    return need == end ? OC_OK
                       : oc_fail(L->d, OC_ERR_FORMAT, "%s: parameter %s: elements [%zu, %zu) "
                                 "are in no piece", INDEX_NAME, name, need, end);
}

/* Local elements [off, off + len) of p's `field` into dst, run by run (CKPT-FMT-3). */
static oc_status fetch_local(loader *L, const oc_ckpt_param *p, const char *field, size_t off,
                             size_t len, float *dst)
{
    oc_status st = OC_OK;
    for (size_t done = 0, run = 0; done < len && st == OC_OK; done += run) {
        size_t start = global_run(p, off + done, len - done, &run);
        st = fetch(L, p->name, field, start, run, dst + done);
    }
    return st;
}

/* The staging copy of one sub-optimizer's buffers. */
typedef struct staged {
    float *flat;      /* fp32 mode: the flat parameters */
    uint16_t *model;  /* mixed mode: the flat model copy */
    float *master;    /* mixed mode: the owned masters */
    float *state[3];  /* owned */
    int64_t step;
} staged;

static void staged_free(staged *g)
{
    free(g->flat), free(g->model), free(g->master);
    for (int f = 0; f < 3; f++)
        free(g->state[f]);
}

/* CKPT-LOAD-1: the checkpoint's parameter i of sub k against this rank's. */
static oc_status check_param(loader *L, size_t k, const oc_ckpt_param *p, size_t numel)
{
    json_t *e = json_object_get(L->params, p->name), *shape = json_object_get(e, "shape");
    if (!e)
        return oc_fail(L->d, OC_ERR_FORMAT, "%s/%s: no parameter %s", L->dir, INDEX_NAME, p->name);
    size_t d0 = (size_t)json_integer_value(json_array_get(shape, 0));
    size_t d1 = (size_t)json_integer_value(json_array_get(shape, 1));
    int fits = p->cols ? p->base + p->cols <= d1 && numel == d0 * p->cols /* CKPT-FMT-3 */
                       : p->base + numel <= d0 * d1;
    if ((size_t)json_integer_value(json_object_get(e, "sub")) != k || d0 != p->dim0 ||
        d1 != p->dim1 || !fits)
        return oc_fail(L->d, OC_ERR_FORMAT, "%s/%s: parameter %s is [%zu, %zu] of sub-optimizer "
                       "%lld there, [%zu, %zu] (elements from %zu) of %zu here", L->dir,
                       INDEX_NAME, p->name, d0, d1,
                       (long long)json_integer_value(json_object_get(e, "sub")), p->dim0,
                       p->dim1, p->base, k);
    return OC_OK;
}

static oc_status load_sub(loader *L, size_t k, const oc_ckpt_sub *u, staged *g)
{
    const oc_layout *l = u->d->layout;
    json_t *meta = json_array_get(json_object_get(L->index, "subs"), k), *states;
    states = json_object_get(meta, "states");
    if (json_array_size(states) != (size_t)u->nstates)
        return oc_fail(L->d, OC_ERR_FORMAT, "%s/%s: sub-optimizer %zu has %zu states there, %d here",
                       L->dir, INDEX_NAME, k, json_array_size(states), u->nstates);
    for (int f = 0; f < u->nstates; f++) {
        const char *got = json_string_value(json_array_get(states, (size_t)f));
        if (!got || strcmp(got, u->state_names[f]) != 0)
            return oc_fail(L->d, OC_ERR_FORMAT, "%s/%s: sub-optimizer %zu: state %d is not %s",
                           L->dir, INDEX_NAME, k, f, u->state_names[f]);
    }
    g->step = json_integer_value(json_object_get(meta, "step"));
    int mixed = u->model != OC_FAST_MODEL_NONE;
    oc_format fmt = u->model == OC_FAST_MODEL_BF16 ? OC_FMT_BF16 : OC_FMT_F16;
    size_t big = 1;
    for (size_t i = 0; i < l->nparams; i++)
        big = l->numel[i] > big ? l->numel[i] : big;
    float *tmp = malloc(big * sizeof *tmp);
    g->flat = mixed ? NULL : calloc(l->size + 1, sizeof *g->flat);
    g->model = mixed ? calloc(l->size + 1, sizeof *g->model) : NULL;
    g->master = mixed ? malloc((u->d->owned + 1) * sizeof *g->master) : NULL;
    int bad = !tmp || (mixed ? !g->model || !g->master : !g->flat);
    for (int f = 0; f < u->nstates; f++)
        bad |= !(g->state[f] = malloc((u->d->owned + 1) * sizeof(float)));
    oc_status st = bad ? oc_fail(L->d, OC_ERR_INTERNAL, "out of memory") : OC_OK;
    /* every element of the rank's parameters: the fp32 parameters, or the model copy rounded
     * from the master (FAST-MODEL-1) */
    for (size_t i = 0; i < l->nparams && st == OC_OK; i++) {
        const oc_ckpt_param *p = &u->params[i];
        float *dst = mixed ? tmp : g->flat + l->offset[i];
        if ((st = check_param(L, k, p, l->numel[i])) == OC_OK &&
            (st = fetch_local(L, p, "master", 0, l->numel[i], dst)) == OC_OK && mixed)
            for (size_t j = 0; j < l->numel[i]; j++)
                g->model[l->offset[i] + j] = oc_narrow(fmt, tmp[j]);
    }
    /* the owned segments: the masters and the states */
    for (size_t i = 0, pos = 0; i < u->d->nseg && st == OC_OK; pos += u->d->seg[i].len, i++) {
        const oc_layout_segment *s = &u->d->seg[i];
        const oc_ckpt_param *p = &u->params[s->param];
        if (mixed &&
            (st = fetch_local(L, p, "master", s->off, s->len, g->master + pos)) == OC_OK &&
            L->mu == OC_CKPT_MUT_MASTER_FROM_MODEL)
            for (size_t j = 0; j < s->len; j++)
                g->master[pos + j] = oc_widen(fmt, oc_narrow(fmt, g->master[pos + j]));
        for (int f = 0; f < u->nstates && st == OC_OK; f++)
            st = fetch_local(L, p, u->state_names[f], s->off, s->len, g->state[f] + pos);
    }
    free(tmp);
    return st;
}

/* CKPT-LOAD-2: the staged values written into the live buffers (every rank succeeded). */
static void commit_sub(const oc_ckpt_sub *u, const staged *g, oc_ckpt_mutant mu)
{
    const oc_layout *l = u->d->layout;
    size_t owned = u->d->owned * sizeof(float);
    for (size_t i = 0; i < l->nparams; i++)
        if (u->model)
            memcpy(u->b->model + l->offset[i], g->model + l->offset[i], l->numel[i] * 2);
        else
            memcpy(u->b->params + l->offset[i], g->flat + l->offset[i], l->numel[i] * 4);
    if (u->model)
        memcpy(u->b->master, g->master, owned);
    for (int f = 0; f < u->nstates; f++)
        memcpy(u->b->state[f], g->state[f], owned);
    if (mu != OC_CKPT_MUT_STEP_NOT_SAVED)
        *u->step = g->step;
}

/* CKPT-LOAD-1: whether a field of the index is missing or of the wrong type (a hand-edited or
 * foreign index is refused before anything reads it). */
static int index_malformed(json_t *ix)
{
    json_t *subs, *scaler, *shards = json_object_get(ix, "shards"), *p, *e, *arr;
    json_int_t i1, i2, i3;
    const char *name, *s1, *s2;
    double x;
    size_t i, j;
    if (json_unpack(ix, "{s:I,s:o,s:o}", "schedule_position", &i1, "subs", &subs, "loss_scaler",
                    &scaler) != 0 ||
        !json_is_array(subs) ||
        (!json_is_null(scaler) && json_unpack(scaler, "{s:F,s:I,s:I}", "scale", &x,
                                              "growth_tracker", &i1, "hysteresis_tracker", &i2)))
        return 1;
    json_array_foreach(subs, i, e) {
        if (json_unpack(e, "{s:I,s:s,s:o}", "step", &i1, "model", &s1, "states", &arr) != 0 ||
            !json_is_array(arr))
            return 1;
        json_array_foreach(arr, j, p) {
            if (!json_is_string(p))
                return 1;
        }
    }
    json_object_foreach(shards, name, e) {
        if (json_unpack(e, "{s:s,s:I}", "sha256", &s1, "size", &i1) != 0 || i1 < 0)
            return 1;
    }
    json_object_foreach(json_object_get(ix, "params"), name, p) {
        if (json_unpack(p, "{s:I,s:[I,I],s:o}", "sub", &i1, "shape", &i2, &i3, "pieces", &arr) ||
            !json_is_array(arr) || i2 < 1 || i3 < 1)
            return 1;
        json_array_foreach(arr, j, e) {
            if (json_unpack(e, "{s:I,s:I,s:s,s:s}", "start", &i1, "len", &i2, "shard", &s1, "key",
                            &s2) != 0 ||
                i1 < 0 || i2 < 1 || !json_object_get(shards, s1))
                return 1;
        }
    }
    return 0;
}

/* CKPT-FMT-1: the index of dir, its format and version checked. */
static oc_status read_index(const char *dir, json_t **out, oc_diag *d)
{
    char path[4096];
    json_error_t je;
    snprintf(path, sizeof path, "%s/%s", dir, INDEX_NAME);
    *out = json_load_file(path, 0, &je);
    if (!*out)
        return oc_fail(d, OC_ERR_IO, "%s: no readable checkpoint index (%s)", path, je.text);
    if (!json_is_string(json_object_get(*out, "format")) ||
        strcmp(json_string_value(json_object_get(*out, "format")), FORMAT_NAME) != 0 ||
        json_integer_value(json_object_get(*out, "version")) != FORMAT_VERSION ||
        !json_is_object(json_object_get(*out, "params")) ||
        !json_is_object(json_object_get(*out, "shards")) || index_malformed(*out))
        return oc_fail(d, OC_ERR_FORMAT, "%s: not an %s version %d index (a field missing or "
                       "of another type)", path, FORMAT_NAME, FORMAT_VERSION);
    return OC_OK;
}

/* CKPT-LOAD-1: every shard the index lists is there with its size, and every shard is
 * verified by some rank (shard i by rank i mod the rank count, besides the ranks reading it):
 * a damaged checkpoint is refused at every rank count. */
static oc_status check_shards(loader *L, const oc_comm *world)
{
    const char *name;
    json_t *check;
    size_t i = 0;
    oc_status st = OC_OK;
    json_object_foreach(json_object_get(L->index, "shards"), name, check) {
        const oc_st_file *f;
        char path[4096];
        (void)check;
        st = i++ % (size_t)world->size == (size_t)world->rank ? open_shard(L, name, &f)
                                                               : shard_there(L, name, path);
        if (st != OC_OK)
            return st;
    }
    return OC_OK;
}

oc_status oc_ckpt_load(const oc_ckpt_state *s, const char *dir, oc_ckpt_mutant mu, char *msg,
                       size_t cap)
{
    oc_diag d = {""};
    if (bad_state(s) || !dir)
        return finish(oc_fail(&d, OC_ERR_NULL_POINTER, "checkpoint load: missing buffer"), &d,
                      msg, cap);
    if ((unsigned)mu >= OC_CKPT_MUTANT_COUNT)
        return finish(oc_fail(&d, OC_ERR_BAD_PROFILE, "checkpoint load: unknown mutant"), &d,
                      msg, cap);
    loader L = {dir, NULL, NULL, 0, NULL, NULL, mu, &d};
    staged *g = calloc(s->nsub + 1, sizeof *g);
    oc_status st = g ? read_index(dir, &L.index, &d) : OC_ERR_INTERNAL;
    L.params = json_object_get(L.index, "params");
    json_t *subs = json_object_get(L.index, "subs"), *sc = json_object_get(L.index, "loss_scaler");
    if (st == OC_OK && json_array_size(subs) != s->nsub)
        st = oc_fail(&d, OC_ERR_FORMAT, "%s/%s: %zu sub-optimizers there, %zu here", dir,
                     INDEX_NAME, json_array_size(subs), s->nsub);
    if (st == OC_OK && (s->scaler != NULL) != json_is_object(sc))
        st = oc_fail(&d, OC_ERR_FORMAT, "%s/%s: loss scaler %s there, %s here", dir, INDEX_NAME,
                     json_is_object(sc) ? "present" : "absent", s->scaler ? "present" : "absent");
    if (st == OC_OK)
        st = check_shards(&L, s->world);
    for (size_t k = 0; k < s->nsub && st == OC_OK; k++)
        st = load_sub(&L, k, &s->sub[k], &g[k]);
    for (size_t i = 0; i < L.nfiles; i++)
        oc_st_close(&L.files[i]);
    free(L.files), free(L.names);
    /* CKPT-LOAD-2: all ranks commit, or none */
    if ((st = oc_comm_agree(s->world, st)) == OC_OK) {
        for (size_t k = 0; k < s->nsub; k++)
            commit_sub(&s->sub[k], &g[k], mu);
        *s->position = json_integer_value(json_object_get(L.index, "schedule_position"));
        if (s->scaler) {
            s->scaler->scale = (float)json_number_value(json_object_get(sc, "scale"));
            s->scaler->growth_tracker = json_integer_value(json_object_get(sc, "growth_tracker"));
            if (mu != OC_CKPT_MUT_HYSTERESIS_NOT_SAVED)
                s->scaler->hysteresis_tracker =
                    json_integer_value(json_object_get(sc, "hysteresis_tracker"));
        }
    }
    for (size_t k = 0; g && k < s->nsub; k++)
        staged_free(&g[k]);
    free(g);
    json_decref(L.index);
    if (st == OC_ERR_PEER)
        oc_fail(&d, st, "checkpoint load: another rank failed (its message names the cause)");
    return finish(st, &d, msg, cap);
}
