/* The offloaded step: Megatron's HybridDeviceOptimizer (NVIDIA/Megatron-LM@d98e8a64
 * megatron/core/optimizer/cpu_offloading/hybrid_optimizer.py), spec/layouts.md §10. The device
 * group is stepped in place; the host group on host copies, its gradients copied device to
 * host and its parameters back (LAYOUT-OFFLOAD-3). With overlap (LAYOUT-OFFLOAD-5) the copies
 * run on two copy streams and the device step on a compute stream, each a worker thread that
 * runs its jobs in order, as CUDA streams do. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "optcert/offload.h"

typedef void (*job_fn)(oc_offload *off, size_t arg);

/* A stream: jobs run in submission order by one thread; ticket k is done when done >= k. */
typedef struct stream {
    oc_offload *off;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct job {
        job_fn fn;
        size_t arg;
    } *queue;
    size_t cap;
    uint64_t submitted, done;
    int quit, started;
} stream;

enum { TO_HOST, TO_DEVICE, COMPUTE, NSTREAMS, HOST = NSTREAMS }; /* HOST: the host steps' status */

struct oc_offload {
    oc_offload_config cfg;
    size_t nt, nhost, ndev;
    size_t *len;            /* [nt] each tensor's length at creation */
    unsigned char *on_host; /* [nt] the split */
    size_t *hidx;      /* [nhost] index in t of each host tensor, in order */
    oc_fast_tensor *h; /* [nhost] the host copies (param, grad staging, states, model staging) */
    unsigned char *with_model; /* [nhost] whether the device tensor has a 16-bit model copy */
    oc_fast_tensor *d; /* [ndev] the device group of the current step */
    float **parked; /* [4 nt] device data held on the host by offload_to_cpu (NULL: none) */
    const oc_fast_tensor *t; /* the current step's device tensors */
    oc_fast_opts o;
    oc_status st[NSTREAMS + 1]; /* the first failure of each stream, and of the host steps */
    oc_offload_times times;
    stream s[NSTREAMS];
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *worker(void *arg)
{
    stream *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (s->done == s->submitted && !s->quit)
            pthread_cond_wait(&s->cv, &s->mu);
        if (s->done == s->submitted)
            break;
        struct job j = s->queue[s->done % s->cap];
        pthread_mutex_unlock(&s->mu);
        j.fn(s->off, j.arg);
        pthread_mutex_lock(&s->mu);
        s->done++;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Runs job fn(arg) on stream k: queued with overlap, at once without. Returns its ticket. */
static uint64_t submit(oc_offload *off, int k, job_fn fn, size_t arg)
{
    stream *s = &off->s[k];
    if (!off->cfg.overlap) {
        fn(off, arg);
        return 0;
    }
    pthread_mutex_lock(&s->mu);
    s->queue[s->submitted % s->cap] = (struct job){fn, arg};
    uint64_t ticket = ++s->submitted;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return ticket;
}

static void wait_for(oc_offload *off, int k, uint64_t ticket)
{
    stream *s = &off->s[k];
    if (!off->cfg.overlap)
        return;
    pthread_mutex_lock(&s->mu);
    while (s->done < ticket)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

static void note(oc_status *slot, oc_status st)
{
    if (*slot == OC_OK)
        *slot = st;
}

/* Host tensor i's gradient, device to host (Megatron L98-115). */
static void grad_to_host(oc_offload *off, size_t i)
{
    double t0 = now();
    const oc_fast_tensor *dev = &off->t[off->hidx[i]];
    note(&off->st[TO_HOST], off->cfg.copier.to_host(off->cfg.copier.ctx, (void *)off->h[i].grad,
                                                    dev->grad, dev->n * sizeof(float)));
    off->times.to_host += now() - t0;
}

/* Host tensor i's new parameter, host to device: the 16-bit model copy the host step wrote
 * (param_update_in_fp32), else the fp32 parameter (Megatron L117-127). */
static void param_to_device(oc_offload *off, size_t i)
{
    double t0 = now();
    const oc_fast_tensor *dev = &off->t[off->hidx[i]];
    const oc_offload_copier *c = &off->cfg.copier;
    note(&off->st[TO_DEVICE],
         dev->model ? c->to_device(c->ctx, dev->model, off->h[i].model, dev->n * sizeof(uint16_t))
                    : c->to_device(c->ctx, dev->param, off->h[i].param, dev->n * sizeof(float)));
    off->times.to_device += now() - t0;
}

static void device_step(oc_offload *off, size_t unused)
{
    (void)unused;
    double t0 = now();
    if (off->ndev)
        off->st[COMPUTE] = off->cfg.step(off->cfg.step_ctx, &off->o, off->ndev, off->d);
    off->times.device_step += now() - t0;
}

/* Host tensors [i, i + count) stepped on the host. */
static void host_step(oc_offload *off, size_t i, size_t count)
{
    double t0 = now();
    if (count && off->st[HOST] == OC_OK && off->st[TO_HOST] == OC_OK)
        off->st[HOST] = off->cfg.host_step(off->cfg.host_ctx, &off->o, count, off->h + i);
    off->times.host_step += now() - t0;
}

/* The tensors of creation: as many, of the same lengths. */
static int same_tensors(const oc_offload *off, size_t nt, const oc_fast_tensor *t)
{
    if (nt != off->nt || (nt && !t))
        return 0;
    for (size_t i = 0; i < nt; i++)
        if (t[i].n != off->len[i] || !t[i].param || !t[i].grad)
            return 0;
    return 1;
}

oc_status oc_offload_step(void *ctx, const oc_fast_opts *o, size_t nt, const oc_fast_tensor *t)
{
    oc_offload *off = ctx;
    if (!off)
        return OC_ERR_NULL_POINTER;
    if (!same_tensors(off, nt, t) || off->parked)
        return OC_ERR_BAD_HPARAM;
    double t0 = now();
    memset(&off->times, 0, sizeof off->times);
    for (int k = 0; k <= NSTREAMS; k++)
        off->st[k] = OC_OK;
    off->o = o ? *o : oc_fast_opts_default();
    off->t = t;
    for (size_t i = 0, j = 0; i < nt; i++)
        if (!off->on_host[i])
            off->d[j++] = t[i];
    uint64_t *arrived = calloc(off->nhost + 1, sizeof *arrived);
    if (!arrived)
        return OC_ERR_INTERNAL;
    /* LAYOUT-OFFLOAD-5: gradients to the host, the device step, then each host tensor as soon
     * as its gradient is there, its parameter sent back at once (overlap); or all in order, one
     * host call (no overlap: Megatron's single CPU optimizer) */
    for (size_t i = 0; i < off->nhost; i++)
        arrived[i] = submit(off, TO_HOST, grad_to_host, i);
    uint64_t computed = submit(off, COMPUTE, device_step, 0), sent = 0;
    if (off->cfg.overlap)
        for (size_t i = 0; i < off->nhost; i++) {
            wait_for(off, TO_HOST, arrived[i]);
            host_step(off, i, 1);
            if (off->st[HOST] == OC_OK)
                sent = submit(off, TO_DEVICE, param_to_device, i);
        }
    else {
        host_step(off, 0, off->nhost);
        for (size_t i = 0; i < off->nhost && off->st[HOST] == OC_OK; i++)
            param_to_device(off, i);
    }
    wait_for(off, TO_HOST, off->nhost ? arrived[off->nhost - 1] : 0); /* after a failure too */
    wait_for(off, COMPUTE, computed);
    wait_for(off, TO_DEVICE, sent);
    free(arrived);
    off->times.total = now() - t0;
    for (int k = 0; k <= NSTREAMS; k++)
        if (off->st[k] != OC_OK)
            return off->st[k];
    return OC_OK;
}

static oc_status copy_bytes(void *ctx, void *dst, const void *src, size_t bytes)
{
    (void)ctx;
    memcpy(dst, src, bytes);
    return OC_OK;
}

oc_offload_copier oc_offload_copier_memcpy(void)
{
    return (oc_offload_copier){NULL, copy_bytes, copy_bytes, NULL, NULL};
}

static void stop_streams(oc_offload *off)
{
    for (int k = 0; k < NSTREAMS; k++) {
        stream *s = &off->s[k];
        if (!s->started)
            continue;
        pthread_mutex_lock(&s->mu);
        s->quit = 1;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->thread, NULL);
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
        free(s->queue);
        s->started = 0;
    }
}

static oc_status start_streams(oc_offload *off)
{
    for (int k = 0; k < NSTREAMS; k++) {
        stream *s = &off->s[k];
        *s = (stream){.off = off, .cap = off->nt + 1};
        s->queue = calloc(s->cap, sizeof *s->queue);
        if (!s->queue)
            return OC_ERR_INTERNAL;
        pthread_mutex_init(&s->mu, NULL);
        pthread_cond_init(&s->cv, NULL);
        if (pthread_create(&s->thread, NULL, worker, s) != 0) {
            pthread_mutex_destroy(&s->mu);
            pthread_cond_destroy(&s->cv);
            free(s->queue);
            return OC_ERR_INTERNAL;
        }
        s->started = 1;
    }
    return OC_OK;
}

/* LAYOUT-OFFLOAD-7 (hybrid_optimizer.py at NVIDIA/Megatron-LM@d98e8a64): the parameter's host
 * clone is always pinned (L274) — for a 16-bit parameter that clone is the model staging, and
 * its fp32 master is pinned with pin_cpu_params (L277-280) —; the gradient staging with
 * pin_cpu_grads (L108-111); the states, made by the host optimizer, never. */
int oc_offload_pins(const oc_offload_config *cfg, int slot, int has_model)
{
    switch (slot) {
    case OC_OFFLOAD_PARAM: return !has_model || cfg->pin_cpu_params;
    case OC_OFFLOAD_GRAD: return cfg->pin_cpu_grads;
    case OC_OFFLOAD_MODEL: return 1;
    default: return 0;
    }
}

/* A host buffer of the given slot (LAYOUT-OFFLOAD-7), from the copier's host_alloc if it has
 * one; NULL on failure. */
static void *host_buffer(const oc_offload *off, int slot, int has_model, size_t bytes)
{
    const oc_offload_copier *c = &off->cfg.copier;
    return c->host_alloc ? c->host_alloc(c->ctx, bytes + 1, oc_offload_pins(&off->cfg, slot, has_model))
                         : malloc(bytes + 1);
}

static void host_release(const oc_offload *off, int slot, int has_model, void *p)
{
    const oc_offload_copier *c = &off->cfg.copier;
    if (p && c->host_free)
        c->host_free(c->ctx, p, oc_offload_pins(&off->cfg, slot, has_model));
    else
        free(p);
}

static void free_parked(oc_offload *off)
{
    for (size_t i = 0; off->parked && i < 4 * off->nt; i++)
        free(off->parked[i]);
    free(off->parked);
    off->parked = NULL;
}

void oc_offload_free(oc_offload *off)
{
    if (!off)
        return;
    stop_streams(off);
    for (size_t i = 0; off->h && off->with_model && i < off->nhost; i++) {
        oc_fast_tensor *h = &off->h[i];
        int m = off->with_model[i];
        host_release(off, OC_OFFLOAD_PARAM, m, h->param);
        host_release(off, OC_OFFLOAD_GRAD, m, (void *)h->grad);
        host_release(off, OC_OFFLOAD_MODEL, m, h->model);
        for (int k = 0; k < 3; k++)
            host_release(off, OC_OFFLOAD_STATE, m, h->state[k]);
    }
    free_parked(off);
    free(off->len), free(off->on_host), free(off->hidx), free(off->h), free(off->with_model);
    free(off->d);
    free(off);
}

/* A buffer holding a copy of the n elements of `size` bytes at device address src: a host
 * buffer of slot `slot` (from host_buffer) or, slot < 0, a plain one (parked state); NULL when
 * src is NULL or *st is already an error (*st: the failure). */
static void *host_clone(const oc_offload *off, int slot, int has_model, const void *src,
                        size_t n, size_t size, oc_status *st)
{
    if (!src || *st != OC_OK)
        return NULL;
    const oc_offload_copier *c = &off->cfg.copier;
    void *p = slot < 0 ? malloc(n * size + 1) : host_buffer(off, slot, has_model, n * size);
    if (!p)
        *st = OC_ERR_INTERNAL;
    else if ((*st = c->to_host(c->ctx, p, src, n * size)) != OC_OK) {
        if (slot < 0)
            free(p);
        else
            host_release(off, slot, has_model, p);
        p = NULL;
    }
    return p;
}

oc_status oc_offload_create(const oc_offload_config *cfg, size_t nt, const oc_fast_tensor *t,
                            oc_offload **out)
{
    if (!cfg || !out || !cfg->step || !cfg->host_step || !cfg->copier.to_host ||
        !cfg->copier.to_device || (nt && (!t || !cfg->host)))
        return OC_ERR_NULL_POINTER;
    *out = NULL;
    for (size_t i = 0; i < nt; i++)
        if (!t[i].param || !t[i].grad)
            return OC_ERR_NULL_POINTER;
    oc_offload *off = calloc(1, sizeof *off);
    if (!off)
        return OC_ERR_INTERNAL;
    off->cfg = *cfg;
    off->cfg.host = NULL; /* not kept: the split is hidx */
    off->nt = nt;
    for (size_t i = 0; i < nt; i++)
        off->nhost += cfg->host[i] != 0;
    off->ndev = nt - off->nhost;
    off->len = calloc(nt + 1, sizeof *off->len);
    off->on_host = calloc(nt + 1, 1);
    off->hidx = calloc(off->nhost + 1, sizeof *off->hidx);
    off->h = calloc(off->nhost + 1, sizeof *off->h);
    off->with_model = calloc(off->nhost + 1, 1);
    off->d = calloc(off->ndev + 1, sizeof *off->d);
    oc_status st = off->len && off->on_host && off->hidx && off->h && off->with_model && off->d
                       ? OC_OK
                       : OC_ERR_INTERNAL;
    for (size_t i = 0; i < nt && st == OC_OK; i++)
        off->len[i] = t[i].n, off->on_host[i] = cfg->host[i] != 0;
    oc_fast_isa_active(); /* chosen once here, before the streams can race for it */
    /* LAYOUT-OFFLOAD-3: the host copies, cloned from the device values (Megatron L273-283) */
    for (size_t i = 0, k = 0; i < nt && st == OC_OK; i++) {
        if (!cfg->host[i])
            continue;
        const oc_fast_tensor *dev = &t[i];
        oc_fast_tensor *h = &off->h[k];
        off->hidx[k++] = i;
        h->n = dev->n;
        int m = off->with_model[k - 1] = dev->model != NULL;
        h->param = host_clone(off, OC_OFFLOAD_PARAM, m, dev->param, dev->n, sizeof(float), &st);
        h->grad = st == OC_OK ? host_buffer(off, OC_OFFLOAD_GRAD, m, dev->n * sizeof(float)) : NULL;
        h->model = m && st == OC_OK ? host_buffer(off, OC_OFFLOAD_MODEL, m, dev->n * sizeof(uint16_t))
                                    : NULL;
        for (int s = 0; s < 3; s++)
            h->state[s] = host_clone(off, OC_OFFLOAD_STATE, m, dev->state[s], dev->n, sizeof(float),
                                     &st);
        if (st == OC_OK && (!h->grad || (dev->model && !h->model)))
            st = OC_ERR_INTERNAL;
    }
    if (st == OC_OK && cfg->overlap)
        st = start_streams(off);
    if (st != OC_OK) {
        oc_offload_free(off);
        return st;
    }
    *out = off;
    return OC_OK;
}

oc_fast_tensor oc_offload_host_tensor(const oc_offload *off, size_t i)
{
    for (size_t k = 0; off && k < off->nhost; k++)
        if (off->hidx[k] == i)
            return off->h[k];
    return (oc_fast_tensor){0};
}

/* Slot 0-2: the tensor's device states; slot 3: its device master when the model parameter is
 * a separate 16-bit copy (what offload_to_cpu moves); NULL where there is none. */
static float *optimizer_buffer(const oc_fast_tensor *dev, int slot)
{
    return slot < 3 ? dev->state[slot] : dev->model ? dev->param : NULL;
}

/* LAYOUT-OFFLOAD-6: Megatron's MegatronOptimizer.offload_to_cpu (optimizer.py L555-573). */
oc_status oc_offload_to_cpu(oc_offload *off, size_t nt, const oc_fast_tensor *t)
{
    if (!off)
        return OC_ERR_NULL_POINTER;
    if (!same_tensors(off, nt, t) || off->parked)
        return OC_ERR_BAD_HPARAM;
    off->parked = calloc(4 * nt + 1, sizeof *off->parked);
    oc_status st = off->parked ? OC_OK : OC_ERR_INTERNAL;
    for (size_t i = 0; i < nt && st == OC_OK; i++)
        for (int slot = 0; !off->on_host[i] && slot < 4; slot++)
            off->parked[4 * i + slot] = host_clone(off, -1, 0, optimizer_buffer(&t[i], slot),
                                                   t[i].n, sizeof(float), &st);
    if (st != OC_OK)
        free_parked(off);
    return st;
}

/* LAYOUT-OFFLOAD-6: Megatron's restore_from_cpu (optimizer.py L575-590). */
oc_status oc_offload_restore_from_cpu(oc_offload *off, size_t nt, const oc_fast_tensor *t)
{
    if (!off)
        return OC_ERR_NULL_POINTER;
    if (!same_tensors(off, nt, t) || !off->parked)
        return OC_ERR_BAD_HPARAM;
    oc_status st = OC_OK;
    const oc_offload_copier *c = &off->cfg.copier;
    for (size_t i = 0; i < nt && st == OC_OK; i++)
        for (int slot = 0; slot < 4 && st == OC_OK; slot++) {
            float *dst = optimizer_buffer(&t[i], slot), *src = off->parked[4 * i + slot];
            if (dst && src)
                st = c->to_device(c->ctx, dst, src, t[i].n * sizeof(float));
        }
    free_parked(off);
    return st;
}

oc_offload_times oc_offload_last_times(const oc_offload *off)
{
    return off ? off->times : (oc_offload_times){0};
}
