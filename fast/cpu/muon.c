/* The Muon step in the fast CPU backend (spec/fast.md FAST-MUON-1, FAST-MUON-2, FAST-MUON-4,
 * spec/muon.md MUON-*): the direction in one binary32 pass, the orthogonalisation by the CBLAS
 * Newton–Schulz (fast/cpu/newton_schulz.c) block by block (the plain step is the one
 * whole-matrix block; MUON-BLK-ORTH-1), each block's update scaled by its own factor
 * (MUON-BLK-SCALE-1), the momentum, the decayed parameter and the update in a last pass. Checks
 * in the reference's order; p and m are written only after every orthogonalisation succeeded
 * (MUON-ERR-1). */
#include <stdlib.h>
#include <string.h>
#include "optcert/buffers.h"
#include "optcert/fast.h"
#include "internal.h"
#include "../common/fast_families.h"

/* MUON-MOM-1's coefficients in binary32: m' = mu m + w g, w = 1 - mu (ema, rounded once) or 1. */
static void momentum_coefficients(const oc_muon_hparams *hp, float *mu, float *w)
{
    *mu = (float)hp->momentum;
    *w = (float)(hp->form == OC_MUON_SGD ? 1.0 : 1.0 - hp->momentum);
}

/* MUON-MOM-1, MUON-NEST-1: the direction d = w g + mu m' (Nesterov) or m', m' not stored (the
 * last pass computes it again, FAST-MUON-1). */
static void direction(const oc_muon_hparams *hp, size_t n, const float *m, const float *g,
                      float *dir)
{
    float mu, w;
    momentum_coefficients(hp, &mu, &w);
    int nesterov = hp->nesterov != 0;
    long long len = (long long)n;
#pragma omp parallel for if (len > OC_FAST_CHUNK)
    for (long long i = 0; i < len; i++) {
        float b = mu * m[i] + w * g[i];
        dir[i] = nesterov ? w * g[i] + mu * b : b;
    }
}

/* The last pass, after every orthogonalisation succeeded (MUON-ERR-1): m' = mu m + w g (the
 * expression of direction(), uncontracted: the same bits), and MUON-WD-1, MUON-UPD-1:
 * p' = p (1 - lr wd) - f o, with 1 - lr wd rounded once and f o rounded to binary32 (o holds
 * the orthogonalisation scaled already when f = 1, an exact product). */
static void finish(const oc_muon_hparams *hp, size_t n, float *p, float *m, const float *g,
                   const float *o, float f)
{
    float mu, w, keep = (float)(1.0 - hp->lr * hp->weight_decay);
    momentum_coefficients(hp, &mu, &w);
    long long len = (long long)n;
#pragma omp parallel for if (len > OC_FAST_CHUNK)
    for (long long i = 0; i < len; i++) {
        m[i] = mu * m[i] + w * g[i];
        p[i] = keep * p[i] - f * o[i];
    }
}

/* Row r of block b's stacked matrix as a row of the parameter (MUON-BLK-*). */
static size_t block_row(const oc_muon_block *b, size_t r)
{
    return b->row0 + r / b->run * b->stride + r % b->run;
}

/* The block's rows of dir stacked into `in` (contiguous, rows x ncols). */
static void gather(const oc_muon_block *b, size_t cols, const float *dir, float *in)
{
    for (size_t r = 0; r < b->run * b->nruns; r++)
        memcpy(in + r * b->ncols, dir + block_row(b, r) * cols + b->col0, b->ncols * sizeof(float));
}

/* f times the block's orthogonalisation `out`, written to its place in su. */
static void scatter_scaled(const oc_muon_block *b, size_t cols, const float *out, float f,
                           float *su)
{
    for (size_t r = 0; r < b->run * b->nruns; r++) {
        float *dst = su + block_row(b, r) * cols + b->col0;
        const float *src = out + r * b->ncols;
        for (size_t c = 0; c < b->ncols; c++)
            dst[c] = f * src[c];
    }
}

/* MUON-HP-1 then the partition (as the reference's common step), buffers, finiteness. */
static oc_status check(const oc_muon_hparams *hp, const oc_muon_partition *part, size_t rows,
                       size_t cols, const float *p, const float *m, const float *g)
{
    oc_status st = oc_muon_check(hp, rows, cols);
    if (st != OC_OK || (st = oc_muon_partition_check(part, rows, cols)) != OC_OK)
        return st;
    size_t n = rows * cols, bytes = n * sizeof(float);
    if ((st = oc_buffer_check(p, n, sizeof(float))) || (st = oc_buffer_check(m, n, sizeof(float))) ||
        (st = oc_buffer_check(g, n, sizeof(float))) || (st = oc_buffer_disjoint(p, bytes, m, bytes)) ||
        (st = oc_buffer_disjoint(p, bytes, g, bytes)) || (st = oc_buffer_disjoint(m, bytes, g, bytes)))
        return st; /* MUON-ERR-1 */
    if (oc_fast_any_nonfinite(p, n) || oc_fast_any_nonfinite(m, n) || oc_fast_any_nonfinite(g, n))
        return OC_ERR_NONFINITE;
    return OC_OK;
}

static const oc_muon_partition whole = {1, OC_MUON_TP_NONE, OC_MUON_SCALE_GLOBAL, 0, 0, 0};

/* FAST-MUON-4: the direction, the orthogonalisation (or, with several blocks, the scaled
 * blocks), and for several blocks the gathered block and its orthogonalisation, then the
 * largest block's Newton-Schulz workspace. */
size_t oc_fast_muon_work_len(const oc_muon_partition *part, size_t rows, size_t cols)
{
    part = part ? part : &whole;
    if (oc_muon_partition_check(part, rows, cols) != OC_OK)
        return 0;
    size_t n = rows * cols, nblocks = oc_muon_block_count(part), ns_len = 0;
    oc_muon_block b;
    for (size_t k = 0; k < nblocks; k++) {
        oc_muon_block_at(part, rows, cols, k, &b);
        size_t len = oc_fast_ns_work_len(b.run * b.nruns, b.ncols);
        ns_len = len > ns_len ? len : ns_len;
    }
    return 2 * n + (nblocks == 1 ? 0 : 2 * n) + ns_len;
}

/* The step over the blocks of a valid-to-check partition (one whole-matrix block for the plain
 * step, which orthogonalises dir in place of a gathered copy and scales in the last pass). */
static oc_status block_step(const oc_muon_hparams *hp, oc_fast_ns_precision prec,
                            const oc_muon_partition *part, size_t rows, size_t cols, float *p,
                            float *m, const float *g, float *work, size_t work_len)
{
    oc_status st = check(hp, part, rows, cols, p, m, g);
    if (st != OC_OK)
        return st;
    size_t n = rows * cols, bytes = n * sizeof(float), nblocks = oc_muon_block_count(part);
    size_t need = oc_fast_muon_work_len(part, rows, cols), wbytes = need * sizeof(float);
    if (work && ((st = oc_buffer_check(work, need, sizeof(float))) ||
                 (st = oc_buffer_disjoint(work, wbytes, p, bytes)) ||
                 (st = oc_buffer_disjoint(work, wbytes, m, bytes)) ||
                 (st = oc_buffer_disjoint(work, wbytes, g, bytes))))
        return st; /* FAST-MUON-4 */
    if (work && work_len < need)
        return OC_ERR_BAD_SHAPE; /* FAST-MUON-4: the workspace is part of the call's shape */
    float *own = work ? NULL : malloc(wbytes);
    if (!work && !own)
        return OC_ERR_INTERNAL; /* out of memory; nothing was written */
    size_t blk = nblocks == 1 ? 0 : n, ns_len = need - 2 * n - 2 * blk;
    float *dir = work ? work : own, *su = dir + n, *in = su + n, *out = in + blk;
    float *ns_work = out + blk, f_whole = 1.0f;
    direction(hp, n, m, g, dir);
    oc_muon_block b;
    for (size_t k = 0; k < nblocks && st == OC_OK; k++) { /* MUON-NS-1, MUON-BLK-ORTH-1 */
        oc_muon_block_at(part, rows, cols, k, &b);
        size_t br = b.run * b.nruns;
        float f = (float)(hp->lr * oc_muon_scale_factor(hp, b.scale_rows, b.scale_cols));
        if (nblocks == 1) { /* MUON-SCALE-1, applied by finish */
            st = oc_fast_newton_schulz(&hp->ns, prec, rows, cols, dir, su, ns_work, ns_len);
            f_whole = f;
        } else {            /* MUON-BLK-SCALE-1 */
            gather(&b, cols, dir, in);
            st = oc_fast_newton_schulz(&hp->ns, prec, br, b.ncols, in, out, ns_work, ns_len);
            if (st == OC_OK)
                scatter_scaled(&b, cols, out, f, su);
        }
    }
    if (st == OC_OK)
        finish(hp, n, p, m, g, su, f_whole);
    free(own);
    return st;
}

oc_status oc_fast_muon_step(const oc_muon_hparams *hp, oc_fast_ns_precision prec, size_t rows,
                            size_t cols, float *p, float *m, const float *g, float *work,
                            size_t work_len)
{
    if (hp == NULL)
        return OC_ERR_NULL_POINTER;
    return block_step(hp, prec, &whole, rows, cols, p, m, g, work, work_len);
}

oc_status oc_fast_muon_block_step(const oc_muon_hparams *hp, oc_fast_ns_precision prec,
                                  const oc_muon_partition *part, size_t rows, size_t cols,
                                  float *p, float *m, const float *g, float *work,
                                  size_t work_len)
{
    if (hp == NULL || part == NULL)
        return OC_ERR_NULL_POINTER;
    oc_status st = oc_muon_partition_check(part, rows, cols); /* the reference's order */
    return st != OC_OK ? st : block_step(hp, prec, part, rows, cols, p, m, g, work, work_len);
}

/* FAST-MUON-3 duplicated mode (LAYOUT-TP-MUON-1): every rank's direction block all-gathered (buf: the blocks in
 * rank order, then the whole direction, then its orthogonalisation: 3 rows cols floats), the
 * whole matrix orthogonalised (the same bits on every rank), the own block kept in o. */
static oc_status duplicated(const oc_muon_hparams *hp, oc_fast_ns_precision prec,
                            const oc_comm *group, const oc_muon_partition *part, size_t rows,
                            size_t cols, const oc_muon_block *own, const float *dir, float *o,
                            float *buf, float *ns_work, size_t ns_len)
{
    size_t n = own->run * own->nruns * own->ncols;
    float *all = buf, *whole_dir = all + rows * cols, *whole_o = whole_dir + rows * cols;
    memcpy(all + (size_t)group->rank * n, dir, n * sizeof(float));
    if (group->allgather(group->ctx, all, n, sizeof(float)) != OC_OK)
        return OC_ERR_IO;
    for (int r = 0; r < group->size; r++) {
        oc_muon_block b;
        oc_muon_block_at(part, rows, cols, (size_t)r, &b);
        scatter_scaled(&b, cols, all + (size_t)r * n, 1.0f, whole_dir); /* a copy: 1 x is exact */
    }
    oc_status st = oc_fast_newton_schulz(&hp->ns, prec, rows, cols, whole_dir, whole_o, ns_work,
                                         ns_len);
    if (st == OC_OK)
        gather(own, cols, whole_o, o);
    return st;
}

oc_status oc_fast_muon_tp_step(const oc_muon_hparams *hp, oc_fast_ns_precision prec,
                               const oc_comm *group, oc_fast_muon_tp_mode mode,
                               const oc_muon_partition *part, size_t rows, size_t cols, float *p,
                               float *m, const float *g)
{
    if (hp == NULL || group == NULL || part == NULL)
        return OC_ERR_NULL_POINTER;
    oc_status st = oc_muon_partition_check(part, rows, cols);
    if (st == OC_OK && (part->tp_size != (size_t)group->size || part->qkv_heads != 0 ||
                        (unsigned)mode > OC_FAST_MUON_TP_DISTRIBUTED))
        st = OC_ERR_BAD_HPARAM;
    if (st == OC_OK)
        st = oc_muon_check(hp, rows, cols); /* MUON-HP-1, NS-IN-1 on the whole shape */
    if (part->tp_dim == OC_MUON_TP_NONE)
        mode = OC_FAST_MUON_TP_BLOCKWISE; /* one rank: the one block is the whole matrix */
    oc_muon_block own = {0};
    if (st == OC_OK)
        oc_muon_block_at(part, rows, cols, (size_t)group->rank, &own);
    size_t br = own.run * own.nruns, n = br * own.ncols;
    if (st == OC_OK)
        st = check(hp, &whole, br, own.ncols, p, m, g); /* MUON-ERR-1 on the shard */
    size_t full = mode == OC_FAST_MUON_TP_DUPLICATED ? rows * cols : 0;
    size_t ns_len = mode == OC_FAST_MUON_TP_BLOCKWISE  ? oc_fast_ns_work_len(br, own.ncols)
                    : mode == OC_FAST_MUON_TP_DUPLICATED ? oc_fast_ns_work_len(rows, cols) : 0;
    float *dir = st == OC_OK ? malloc((2 * n + 3 * full + ns_len) * sizeof(float)) : NULL;
    if (st == OC_OK && !dir)
        st = OC_ERR_INTERNAL; /* out of memory */
    if ((st = oc_comm_agree(group, st)) != OC_OK) {
        free(dir);
        return st;
    }
    float *su = dir + n, *buf = su + n, *ns_work = buf + 3 * full;
    direction(hp, n, m, g, dir);
    if (mode == OC_FAST_MUON_TP_BLOCKWISE)       /* MUON-BLK-ORTH-1, LAYOUT-TP-MUON-2 */
        st = oc_fast_newton_schulz(&hp->ns, prec, br, own.ncols, dir, su, ns_work, ns_len);
    else if (mode == OC_FAST_MUON_TP_DISTRIBUTED) /* FAST-NS-4, LAYOUT-TP-MUON-3 */
        st = oc_fast_newton_schulz_sharded(&hp->ns, prec, group, part->tp_dim, br, own.ncols,
                                           dir, su);
    else
        st = duplicated(hp, prec, group, part, rows, cols, &own, dir, su, buf, ns_work, ns_len);
    if ((st = oc_comm_agree(group, st)) == OC_OK) /* MUON-BLK-SCALE-1, MUON-UPD-1 */
        finish(hp, n, p, m, g, su,
               (float)(hp->lr * oc_muon_scale_factor(hp, own.scale_rows, own.scale_cols)));
    free(dir);
    return st;
}

/* Plugin ABI v3 (VEC-ABI-1): the entry points of the Muon step (muon-keller, -megatron,
 * -moonlight) and of the block step (muon-blocks-megatron-qkv, muon-blocks-megatron-tp), in the
 * Newton-Schulz precision the table's ctx points to (FAST-NS-2). */
static oc_status muon_entry(void *ctx, const oc_muon_hparams *hp, size_t rows, size_t cols,
                            float *p, float *m, const float *g)
{
    return oc_fast_muon_step(hp, *(const oc_fast_ns_precision *)ctx, rows, cols, p, m, g, NULL, 0);
}

const oc_fast_algorithm oc_fast_cpu_muon = {
    .algorithm = "muon",
    .entry = (oc_entry_point)muon_entry,
};

static oc_status muon_blocks_entry(void *ctx, const oc_muon_hparams *hp,
                                   const oc_muon_partition *part, size_t rows, size_t cols,
                                   float *p, float *m, const float *g)
{
    const oc_fast_ns_precision *prec = ctx;
    return oc_fast_muon_block_step(hp, *prec, part, rows, cols, p, m, g, NULL, 0);
}

const oc_fast_algorithm oc_fast_cpu_muon_blocks = {
    .algorithm = "muon-blocks",
    .entry = (oc_entry_point)muon_blocks_entry,
};
