/* The Muon step reference (spec/muon.md, rules MUON-*). Scalar C11, no allocation, no I/O, no
 * globals. Binary64 arithmetic from the fp32 inputs, rounded to binary32 at the storage points of
 * MUON-STORE-1 (momentum, direction, orthogonalised update, parameter); the orthogonalisation is
 * ref/newton_schulz.c. */
#include <math.h>
#include <string.h>
#include "optcert/buffers.h"
#include "optcert/muon.h"

static const char *const profile_names[OC_MUON_PROFILE_COUNT] = {"keller", "moonlight",
                                                                  "megatron"};

/* The contracts of the functions muon.h declares are there, except this one: it names the
 * file's static table. */
/*@ assigns \result \from pr, profile_names[0 .. OC_MUON_PROFILE_COUNT - 1]; */
const char *oc_muon_profile_name(oc_muon_profile pr)
{
    return (unsigned)pr < OC_MUON_PROFILE_COUNT ? profile_names[pr] : NULL;
}

oc_status oc_muon_profile_parse(const char *name, oc_muon_profile *out)
{
    /* The names are valid strings: literals of 6, 9 and 8 characters (-wp-literals). */
    //@ assert name_0: \valid_read(profile_names[0] + (0 .. 6)) && profile_names[0][6] == '\0';
    //@ assert name_0_str: valid_read_string(profile_names[0]);
    //@ assert name_1: \valid_read(profile_names[1] + (0 .. 9)) && profile_names[1][9] == '\0';
    //@ assert name_1_str: valid_read_string(profile_names[1]);
    //@ assert name_2: \valid_read(profile_names[2] + (0 .. 8)) && profile_names[2][8] == '\0';
    //@ assert name_2_str: valid_read_string(profile_names[2]);
    /*@ loop invariant 0 <= i <= OC_MUON_PROFILE_COUNT;
        loop assigns i;
        loop variant OC_MUON_PROFILE_COUNT - i; */
    for (int i = 0; i < OC_MUON_PROFILE_COUNT; i++)
        if (strcmp(name, profile_names[i]) == 0) {
            *out = (oc_muon_profile)i;
            return OC_OK;
        }
    return OC_ERR_BAD_PROFILE;
}

/* MUON-PROF-*: KellerJordan/Muon (lr 0.02, wd 0), MoonshotAI/Moonlight toy_train.py (lr 1e-3,
 * wd 0.1), Megatron-LM with Emerging-Optimizers (lr 3e-4, wd 0.01, nesterov False). */
oc_status oc_muon_profile_defaults(oc_muon_profile pr, oc_muon_hparams *hp)
{
    if ((unsigned)pr >= OC_MUON_PROFILE_COUNT)
        return OC_ERR_BAD_PROFILE;
    *hp = (oc_muon_hparams){.profile = pr};                      /* every other field 0 */
    oc_ns_profile_defaults(pr == OC_MUON_MEGATRON ? OC_NS_QUINTIC : OC_NS_SIMPLE, &hp->ns);
    hp->momentum = 0.95f;
    hp->nesterov = pr != OC_MUON_MEGATRON;
    hp->form = pr == OC_MUON_MOONLIGHT ? OC_MUON_SGD : OC_MUON_EMA;
    hp->scale = pr == OC_MUON_KELLER ? OC_MUON_SHAPE_SCALING : OC_MUON_SPECTRAL;
    hp->extra_scale = pr == OC_MUON_MOONLIGHT ? 0.2f : 1.0f;
    hp->lr = pr == OC_MUON_KELLER ? 0.02f : pr == OC_MUON_MOONLIGHT ? 1e-3f : 3e-4f;
    hp->weight_decay = pr == OC_MUON_KELLER ? 0.0f : pr == OC_MUON_MOONLIGHT ? 0.1f : 0.01f;
    return OC_OK;
}

/* MUON-SCALE-1 with scale mode `mode`. rows is the output dimension (torch's [out, in]
 * layout). */
/*@ assigns errno; */
static double scale_of(oc_muon_scale mode, size_t rows, size_t cols, double extra)
{
    double r = (double)rows, c = (double)cols, square;
    switch (mode) {
    case OC_MUON_SHAPE_SCALING: square = r > c ? r / c : 1.0; break;
    case OC_MUON_SPECTRAL: square = r > c ? r : c; break;
    default: square = r / c; break;
    }
    return sqrt(square) * extra;
}

double oc_muon_scale_factor(const oc_muon_hparams *hp, size_t rows, size_t cols)
{
    return scale_of(hp->scale, rows, cols, hp->extra_scale);
}

size_t oc_muon_work_len(size_t rows, size_t cols) { return oc_ns_work_len(rows, cols); }

/* MUON-HP-1 */
oc_status oc_muon_check(const oc_muon_hparams *hp, size_t rows, size_t cols)
{
    oc_status st = oc_ns_check(&hp->ns, rows, cols);
    if (st != OC_OK)
        return st;
    if (!(hp->lr >= 0 && hp->lr <= 1e6) || !(hp->momentum >= 0 && hp->momentum < 1) ||
        !(hp->weight_decay >= 0 && hp->weight_decay <= 1e6) ||
        !(hp->extra_scale > 0 && hp->extra_scale <= 1e6) ||
        (hp->form != OC_MUON_EMA && hp->form != OC_MUON_SGD) ||
        (unsigned)hp->scale > OC_MUON_UNIT_RMS_NORM)
        return OC_ERR_BAD_HPARAM;
    return (unsigned)hp->profile < OC_MUON_PROFILE_COUNT ? OC_OK : OC_ERR_BAD_PROFILE;
}

/* ---- Blocks (MUON-BLK-*) ---- */

/* MUON-BLK-TP-1, MUON-BLK-QKV-1, MUON-BLK-ERR-1 */
oc_status oc_muon_partition_check(const oc_muon_partition *part, size_t rows, size_t cols)
{
    if (part == NULL)
        return OC_ERR_NULL_POINTER;
    size_t tp = part->tp_size, h = part->qkv_heads, grp = part->qkv_groups, d = part->qkv_head_dim;
    if (tp < 1 || tp > OC_MUON_MAX_TP || (unsigned)part->tp_dim > OC_MUON_TP_COLS ||
        (unsigned)part->scale_shape > OC_MUON_SCALE_LOCAL ||
        (part->tp_dim == OC_MUON_TP_NONE && tp != 1))
        return OC_ERR_BAD_HPARAM;
    if ((part->tp_dim == OC_MUON_TP_ROWS && rows % tp != 0) ||
        (part->tp_dim == OC_MUON_TP_COLS && cols % tp != 0))
        return OC_ERR_BAD_SHAPE; /* equal shards only (Megatron's divide()) */
    if (h == 0 && grp == 0 && d == 0)
        return OC_OK;
    if (h < 1 || grp < 1 || d < 1 || h > OC_MUON_MAX_QKV_DIM || d > OC_MUON_MAX_QKV_DIM ||
        h % grp != 0 || part->tp_dim == OC_MUON_TP_COLS || grp % tp != 0)
        return OC_ERR_BAD_SHAPE;
    /* rows = groups (heads / groups + 2) d, without overflow: every factor is below 2^21. */
    return (h + 2 * grp) * d == rows ? OC_OK : OC_ERR_BAD_SHAPE;
}

size_t oc_muon_block_count(const oc_muon_partition *part)
{
    return part->tp_size * (part->qkv_heads ? 3 : 1);
}

/* Block `index`: rank index / parts, then q, k, v. Interleaved: query group j of the rank holds
 * rows [q of its heads; k; v] (Megatron's linear_qkv viewed as (groups, q + k + v, hidden)). */
void oc_muon_block_at(const oc_muon_partition *part, size_t rows, size_t cols, size_t index,
                      oc_muon_block *b)
{
    size_t tp = part->tp_size, parts = part->qkv_heads ? 3 : 1, rank = index / parts;
    int split_rows = part->tp_dim == OC_MUON_TP_ROWS, split_cols = part->tp_dim == OC_MUON_TP_COLS;
    size_t local_rows = split_rows ? rows / tp : rows;
    b->ncols = split_cols ? cols / tp : cols;
    b->col0 = split_cols ? rank * b->ncols : 0;
    size_t base = split_rows ? rank * local_rows : 0;
    if (parts == 1) { /* MUON-BLK-TP-1 */
        b->row0 = base;
        b->run = b->stride = local_rows;
        b->nruns = 1;
    } else {          /* MUON-BLK-QKV-1 */
        size_t d = part->qkv_head_dim, q = part->qkv_heads / part->qkv_groups * d;
        size_t groups = part->qkv_groups / (split_rows ? tp : 1), which = index % parts;
        size_t off = which == 0 ? 0 : which == 1 ? q : q + d, len = which == 0 ? q : d;
        b->row0 = base + off;
        b->run = len;
        b->stride = q + 2 * d;
        b->nruns = groups;
    }
    int global = part->scale_shape == OC_MUON_SCALE_GLOBAL; /* MUON-BLK-SCALE-1 */
    b->scale_rows = b->run * b->nruns * (global && split_rows ? tp : 1);
    b->scale_cols = b->ncols * (global && split_cols ? tp : 1);
}

size_t oc_muon_block_scratch_len(size_t rows, size_t cols) { return 5 * rows * cols; }

/* Element t of block b (in its stacked order) as an index into the rows x cols matrix. */
/*@ requires \valid_read(b) && 1 <= b->ncols && 1 <= b->run;
    assigns \nothing; */
static size_t block_elem(const oc_muon_block *b, size_t cols, size_t t)
{
    size_t r = t / b->ncols, c = t % b->ncols;
    return (b->row0 + r / b->run * b->stride + r % b->run) * cols + b->col0 + c;
}

/* MUON-ERR-1: what a step over nblocks blocks of the rows x cols parameter checks before it
 * writes: the hyper-parameters and shape (oc_muon_check), the buffers (NULL, alignment,
 * overlap), the workspace (oc_muon_work_len doubles) and scratch (3 rows cols floats for one
 * block, oc_muon_block_scratch_len for more) lengths, and finite p, m, g. */
oc_status oc_muon_step_check(const oc_muon_hparams *hp, size_t nblocks, size_t rows, size_t cols,
                             const float *p, const float *m, const float *g, const double *work,
                             size_t work_len, const float *scratch, size_t scratch_len)
{
    oc_status st = oc_muon_check(hp, rows, cols);
    if (st != OC_OK)
        return st;
    size_t n = rows * cols, bytes = n * sizeof(float);
    size_t need = nblocks == 1 ? 3 * n : oc_muon_block_scratch_len(rows, cols);
    if ((st = oc_buffer_check(p, n, sizeof(float))) || (st = oc_buffer_check(m, n, sizeof(float))) ||
        (st = oc_buffer_check(g, n, sizeof(float))) ||
        (st = oc_buffer_check(work, oc_muon_work_len(rows, cols), sizeof(double))) ||
        (st = oc_buffer_check(scratch, need, sizeof(float))) ||
        (st = oc_buffer_disjoint(p, bytes, m, bytes)) || (st = oc_buffer_disjoint(p, bytes, g, bytes)) ||
        (st = oc_buffer_disjoint(m, bytes, g, bytes)))
        return st;
    if (work_len < oc_muon_work_len(rows, cols) || scratch_len < need)
        return OC_ERR_BAD_SHAPE; /* MUON-ERR-1 */
    /*@ loop invariant 0 <= i <= n;
        loop assigns i;
        loop variant n - i; */
    for (size_t i = 0; i < n; i++)
        if (!isfinite(p[i]) || !isfinite(m[i]) || !isfinite(g[i]))
            return OC_ERR_NONFINITE;
    return OC_OK;
}

/* MUON-MOM-1, MUON-NEST-1, MUON-STORE-1: the new momentum m_new and the direction dir of n
 * elements. */
void oc_muon_momentum_step(const oc_muon_hparams *hp, size_t n, const float *m,
                           const float *g, float *m_new, float *dir)
{
    double mu = hp->momentum;
    double take = hp->form == OC_MUON_SGD ? 1.0 : 1.0 - mu; /* weight of g (MUON-MOM-1) */
    int nesterov = hp->nesterov;
    /*@ loop invariant 0 <= i <= n;
        loop assigns i, m_new[0 .. n - 1], dir[0 .. n - 1];
        loop variant n - i; */
    for (size_t i = 0; i < n; i++) {
        m_new[i] = (float)(mu * m[i] + take * g[i]);      /* MUON-MOM-1, MUON-STORE-1 */
        dir[i] = nesterov ? (float)(take * g[i] + mu * m_new[i]) : m_new[i]; /* MUON-NEST-1 */
    }
}

/* MUON-WD-1, MUON-UPD-1, MUON-STORE-1: p (1 - decay) - step o, rounded to binary32. */
float oc_muon_update(double p, double o, double step, double decay)
{
    return (float)(p * (1.0 - decay) - step * o);
}

/* The step over the given blocks (a single whole-matrix block for the plain step). */
oc_status oc_muon_blocks_step(const oc_muon_hparams *hp, size_t nblocks,
                              const oc_muon_block *blocks, size_t rows, size_t cols, float *p,
                              float *m, const float *g, double *work, size_t work_len,
                              float *scratch, size_t scratch_len)
{
    oc_status st = oc_muon_step_check(hp, nblocks, rows, cols, p, m, g, work, work_len, scratch,
                                      scratch_len);
    if (st != OC_OK)
        return st;
    size_t n = rows * cols;
    /* The new momentum, the direction and the orthogonalised update; with several blocks
     * also a block gathered from the direction and its orthogonalisation. */
    float *m_new = scratch, *dir = m_new + n, *orth = dir + n, *in = orth + n, *out = in + n;
    oc_muon_momentum_step(hp, n, m, g, m_new, dir);
    /*@ loop invariant 0 <= k <= nblocks;
        loop assigns k, st, orth[0 .. n - 1], in[0 .. n - 1], out[0 .. n - 1],
                     work[0 .. work_len - 1], errno;
        loop variant nblocks - k; */
    for (size_t k = 0; k < nblocks; k++) {                /* MUON-NS-1, MUON-BLK-ORTH-1 */
        const oc_muon_block *b = &blocks[k];
        size_t br = b->run * b->nruns, len = br * b->ncols;
        if (nblocks == 1) {
            st = oc_ref_newton_schulz(&hp->ns, rows, cols, dir, orth, work,
                                      oc_ns_work_len(rows, cols));
        } else {
            /*@ loop invariant 0 <= t <= len;
                loop assigns t, in[0 .. n - 1];
                loop variant len - t; */
            for (size_t t = 0; t < len; t++)
                in[t] = dir[block_elem(b, cols, t)];
            st = oc_ref_newton_schulz(&hp->ns, br, b->ncols, in, out, work,
                                      oc_ns_work_len(br, b->ncols));
            /*@ loop invariant 0 <= t <= len;
                loop assigns t, orth[0 .. n - 1];
                loop variant len - t; */
            for (size_t t = 0; st == OC_OK && t < len; t++)
                orth[block_elem(b, cols, t)] = out[t];
        }
        if (st != OC_OK)
            return st;
    }
    double decay = hp->lr * hp->weight_decay;             /* MUON-WD-1 */
    /*@ loop invariant 0 <= k <= nblocks;
        loop assigns k, p[0 .. n - 1], m[0 .. n - 1], errno;
        loop variant nblocks - k; */
    for (size_t k = 0; k < nblocks; k++) {
        const oc_muon_block *b = &blocks[k];
        double step = hp->lr * scale_of(hp->scale, b->scale_rows, b->scale_cols,
                                        hp->extra_scale); /* MUON-SCALE-1, MUON-BLK-SCALE-1 */
        /*@ loop invariant 0 <= t;
            loop assigns t, p[0 .. n - 1], m[0 .. n - 1];
            loop variant b->run * b->nruns * b->ncols - t; */
        for (size_t t = 0; t < b->run * b->nruns * b->ncols; t++) {
            size_t i = block_elem(b, cols, t);
            p[i] = oc_muon_update(p[i], orth[i], step, decay); /* MUON-WD-1, MUON-UPD-1 */
            m[i] = m_new[i];
        }
    }
    return OC_OK;
}

oc_status oc_muon_hparams_check(const oc_muon_hparams *hp)
{
    return hp == NULL ? OC_ERR_NULL_POINTER : oc_muon_check(hp, 1, 1);
}

oc_status oc_ref_muon_block_step(const oc_muon_hparams *hp, const oc_muon_partition *part,
                                 size_t rows, size_t cols, float *p, float *m, const float *g,
                                 double *work, size_t work_len, float *scratch,
                                 size_t scratch_len)
{
    if (hp == NULL || part == NULL)
        return OC_ERR_NULL_POINTER;
    oc_status st = oc_muon_partition_check(part, rows, cols);
    if (st != OC_OK)
        return st;
    oc_muon_block blocks[3 * OC_MUON_MAX_TP];
    size_t nblocks = oc_muon_block_count(part);
    /*@ loop invariant 0 <= k <= nblocks;
        loop assigns k, blocks[0 .. 3 * OC_MUON_MAX_TP - 1];
        loop variant nblocks - k; */
    for (size_t k = 0; k < nblocks; k++)
        oc_muon_block_at(part, rows, cols, k, &blocks[k]); /* MUON-BLK-TP-1, MUON-BLK-QKV-1 */
    return oc_muon_blocks_step(hp, nblocks, blocks, rows, cols, p, m, g, work, work_len, scratch,
                               scratch_len);
}

oc_status oc_ref_muon_step(const oc_muon_hparams *hp, size_t rows, size_t cols, float *p,
                           float *m, const float *g, double *work, size_t work_len,
                           float *scratch)
{
    static const oc_muon_partition whole = {1, OC_MUON_TP_NONE, OC_MUON_SCALE_GLOBAL, 0, 0, 0};
    return oc_ref_muon_block_step(hp, &whole, rows, cols, p, m, g, work, work_len, scratch,
                                  3 * rows * cols);
}
