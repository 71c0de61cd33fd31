/* Muon mutants (spec/muon.md §7 and §10): the reference's step with a mistaken convention
 * (scale, Nesterov, momentum form: the step of other hyper-parameters), a mistaken decay
 * (MUON-WD-1, the step recomposed from its pieces) or a mistaken block layout (MUON-BLK-*: the
 * step of another partition, or of other blocks). */
#include "muon.h"

static const char *const names[OC_MUON_MUTANT_COUNT] = {
    "correct",          "wrong-scale",          "nesterov-missing",
    "decay-after-update", "decay-with-adjusted-lr", "momentum-form-swapped",
};

static const char *const block_names[OC_MUON_BLOCK_MUTANT_COUNT] = {
    "correct", "qkv-not-split", "qkv-contiguous", "scale-shape-swapped", "tp-not-blocked"};

const char *oc_muon_mutant_name(oc_muon_mutant mu)
{
    return (unsigned)mu < OC_MUON_MUTANT_COUNT ? names[mu] : NULL;
}

const char *oc_muon_block_mutant_name(oc_muon_block_mutant mu)
{
    return (unsigned)mu < OC_MUON_BLOCK_MUTANT_COUNT ? block_names[mu] : NULL;
}

/* MUON-WD-1 mistaken: the decay after the update, or multiplied by the scaled lr. */
static oc_status decay_mistake(oc_muon_mutant mu, const oc_muon_hparams *hp, size_t rows,
                               size_t cols, float *p, float *m, const float *g, double *work,
                               float *scratch)
{
    size_t n = rows * cols;
    float *m_new = scratch, *dir = m_new + n, *orth = dir + n;
    oc_muon_momentum_step(hp, n, m, g, m_new, dir);
    oc_status st = oc_ref_newton_schulz(&hp->ns, rows, cols, dir, orth, work,
                                        oc_ns_work_len(rows, cols));
    if (st != OC_OK)
        return st;
    double step = hp->lr * oc_muon_scale_factor(hp, rows, cols);
    double decay = (mu == OC_MUON_MUT_DECAY_ADJUSTED_LR ? step : hp->lr) * hp->weight_decay;
    for (size_t i = 0; i < n; i++) {
        p[i] = mu == OC_MUON_MUT_DECAY_AFTER_UPDATE
                   ? (float)((p[i] - step * orth[i]) * (1.0 - decay))
                   : oc_muon_update(p[i], orth[i], step, decay);
        m[i] = m_new[i];
    }
    return OC_OK;
}

oc_status oc_muon_mutant_step(oc_muon_mutant mu, const oc_muon_hparams *hp, size_t rows,
                              size_t cols, float *p, float *m, const float *g, double *work,
                              size_t work_len, float *scratch)
{
    if (mu == OC_MUON_CORRECT || (unsigned)mu >= OC_MUON_MUTANT_COUNT || hp == NULL ||
        oc_muon_step_check(hp, 1, rows, cols, p, m, g, work, work_len, scratch,
                           3 * rows * cols) != OC_OK)
        return oc_ref_muon_step(hp, rows, cols, p, m, g, work, work_len, scratch);
    oc_muon_hparams h = *hp;
    switch (mu) {
    case OC_MUON_MUT_WRONG_SCALE: /* MUON-SCALE-1 */
        h.scale = h.scale == OC_MUON_SPECTRAL ? OC_MUON_SHAPE_SCALING : OC_MUON_SPECTRAL;
        break;
    case OC_MUON_MUT_NESTEROV_MISSING: /* MUON-NEST-1 */
        h.nesterov = 0;
        break;
    case OC_MUON_MUT_MOMENTUM_FORM_SWAPPED: /* MUON-MOM-1 */
        h.form = h.form == OC_MUON_SGD ? OC_MUON_EMA : OC_MUON_SGD;
        break;
    default:
        return decay_mistake(mu, hp, rows, cols, p, m, g, work, scratch);
    }
    return oc_ref_muon_step(&h, rows, cols, p, m, g, work, work_len, scratch);
}

/* MUON-BLK-QKV-1 mistaken: each rank's q, k and v rows taken as [all q; all k; all v] (one run
 * of nruns times the run's rows from base + nruns times the run's offset) instead of one run
 * per query group. */
static oc_status qkv_contiguous(const oc_muon_hparams *hp, const oc_muon_partition *part,
                                size_t rows, size_t cols, float *p, float *m, const float *g,
                                double *work, size_t work_len, float *scratch,
                                size_t scratch_len)
{
    oc_muon_block blocks[3 * 64];
    size_t nblocks = oc_muon_block_count(part), per_rank = nblocks / part->tp_size;
    for (size_t k = 0; k < nblocks; k++) {
        oc_muon_block *b = &blocks[k];
        oc_muon_block_at(part, rows, cols, k, b);
        size_t base = part->tp_dim == OC_MUON_TP_ROWS ? k / per_rank * (rows / part->tp_size) : 0;
        b->row0 = base + b->nruns * (b->row0 - base);
        b->run *= b->nruns;
        b->stride = b->run;
        b->nruns = 1;
    }
    return oc_muon_blocks_step(hp, nblocks, blocks, rows, cols, p, m, g, work, work_len, scratch,
                               scratch_len);
}

oc_status oc_muon_block_mutant_step(oc_muon_block_mutant mu, const oc_muon_hparams *hp,
                                    const oc_muon_partition *part, size_t rows, size_t cols,
                                    float *p, float *m, const float *g, double *work,
                                    size_t work_len, float *scratch, size_t scratch_len)
{
    if (mu == OC_MUON_BLOCK_CORRECT || (unsigned)mu >= OC_MUON_BLOCK_MUTANT_COUNT ||
        hp == NULL || oc_muon_partition_check(part, rows, cols) != OC_OK)
        return oc_ref_muon_block_step(hp, part, rows, cols, p, m, g, work, work_len, scratch,
                                      scratch_len);
    oc_muon_partition used = *part;
    switch (mu) {
    case OC_MUON_BLOCK_MUT_QKV_NOT_SPLIT:
        used.qkv_heads = used.qkv_groups = used.qkv_head_dim = 0;
        break;
    case OC_MUON_BLOCK_MUT_TP_NOT_BLOCKED: /* the full matrix and its (global) shape */
        used.tp_size = 1;
        used.tp_dim = OC_MUON_TP_NONE;
        used.scale_shape = OC_MUON_SCALE_GLOBAL;
        break;
    case OC_MUON_BLOCK_MUT_SCALE_SHAPE_SWAPPED:
        used.scale_shape = used.scale_shape == OC_MUON_SCALE_GLOBAL ? OC_MUON_SCALE_LOCAL
                                                                    : OC_MUON_SCALE_GLOBAL;
        break;
    default:
        return qkv_contiguous(hp, part, rows, cols, p, m, g, work, work_len, scratch,
                              scratch_len);
    }
    return oc_ref_muon_block_step(hp, &used, rows, cols, p, m, g, work, work_len, scratch,
                                  scratch_len);
}
