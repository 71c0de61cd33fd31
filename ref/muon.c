/* The Muon step reference (spec/muon.md, rules MUON-*). Scalar C11, no allocation, no I/O, no
 * globals. Binary64 arithmetic from the fp32 inputs, rounded to binary32 at the storage points of
 * MUON-STORE-1 (momentum, direction, orthogonalised update, parameter); the orthogonalisation is
 * ref/newton_schulz.c. */
#include <math.h>
#include <string.h>
#include "optcert/buffers.h"
#include "optcert/muon.h"

static const char *const mutant_names[OC_MUON_MUTANT_COUNT] = {
    "correct",          "wrong-scale",          "nesterov-missing",
    "decay-after-update", "decay-with-adjusted-lr", "momentum-form-swapped",
};

static const char *const profile_names[OC_MUON_PROFILE_COUNT] = {"keller", "moonlight",
                                                                  "megatron"};

const char *oc_muon_mutant_name(oc_muon_mutant mu)
{
    return (unsigned)mu < OC_MUON_MUTANT_COUNT ? mutant_names[mu] : NULL;
}

const char *oc_muon_profile_name(oc_muon_profile pr)
{
    return (unsigned)pr < OC_MUON_PROFILE_COUNT ? profile_names[pr] : NULL;
}

oc_status oc_muon_profile_parse(const char *name, oc_muon_profile *out)
{
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
    memset(hp, 0, sizeof *hp);
    hp->profile = pr;
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

/* MUON-SCALE-1 with the scale mode of the mutant. rows is the output dimension (torch's
 * [out, in] layout). */
static double scale_of(oc_muon_scale mode, size_t rows, size_t cols, double extra)
{
    double r = (double)rows, c = (double)cols;
    switch (mode) {
    case OC_MUON_SHAPE_SCALING: return sqrt(r > c ? r / c : 1.0) * extra;
    case OC_MUON_SPECTRAL: return sqrt(r > c ? r : c) * extra;
    default: return sqrt(r / c) * extra;
    }
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

oc_status oc_ref_muon_step(const oc_muon_hparams *hp, size_t rows, size_t cols, float *p,
                           float *m, const float *g, double *work, size_t work_len,
                           float *scratch, oc_muon_mutant mutant)
{
    if (hp == NULL)
        return OC_ERR_NULL_POINTER;
    if ((unsigned)mutant >= OC_MUON_MUTANT_COUNT)
        return OC_ERR_BAD_PROFILE;
    oc_status st = oc_muon_check(hp, rows, cols);
    if (st != OC_OK)
        return st;
    size_t n = rows * cols, bytes = n * sizeof(float);
    if ((st = oc_buffer_check(p, n, sizeof(float))) || (st = oc_buffer_check(m, n, sizeof(float))) ||
        (st = oc_buffer_check(g, n, sizeof(float))) ||
        (st = oc_buffer_check(work, oc_muon_work_len(rows, cols), sizeof(double))) ||
        (st = oc_buffer_check(scratch, 3 * n, sizeof(float))) ||
        (st = oc_buffer_disjoint(p, bytes, m, bytes)) || (st = oc_buffer_disjoint(p, bytes, g, bytes)) ||
        (st = oc_buffer_disjoint(m, bytes, g, bytes)))
        return st;
    if (work_len < oc_muon_work_len(rows, cols))
        return OC_ERR_BAD_SHAPE; /* MUON-ERR-1 */
    for (size_t i = 0; i < n; i++)
        if (!isfinite(p[i]) || !isfinite(m[i]) || !isfinite(g[i]))
            return OC_ERR_NONFINITE;
    size_t ns_len = oc_ns_work_len(rows, cols);
    /* The new momentum, the direction and the orthogonalised update. */
    float *m_new = scratch, *dir = m_new + n, *orth = dir + n;
    double mu = hp->momentum;
    int sgd = (hp->form == OC_MUON_SGD) != (mutant == OC_MUON_MUT_MOMENTUM_FORM_SWAPPED);
    double take = sgd ? 1.0 : 1.0 - mu;                   /* weight of g (MUON-MOM-1) */
    int nesterov = hp->nesterov && mutant != OC_MUON_MUT_NESTEROV_MISSING;
    for (size_t i = 0; i < n; i++) {
        m_new[i] = (float)(mu * m[i] + take * g[i]);      /* MUON-MOM-1, MUON-STORE-1 */
        dir[i] = nesterov ? (float)(take * g[i] + mu * m_new[i]) : m_new[i]; /* MUON-NEST-1 */
    }
    if ((st = oc_ref_newton_schulz(&hp->ns, rows, cols, dir, orth, work, ns_len,
                                   OC_NS_CORRECT)) != OC_OK)           /* MUON-NS-1 */
        return st;
    oc_muon_scale mode = hp->scale;
    if (mutant == OC_MUON_MUT_WRONG_SCALE)
        mode = mode == OC_MUON_SPECTRAL ? OC_MUON_SHAPE_SCALING : OC_MUON_SPECTRAL;
    double step = hp->lr * scale_of(mode, rows, cols, hp->extra_scale); /* MUON-SCALE-1 */
    double decay = (mutant == OC_MUON_MUT_DECAY_ADJUSTED_LR ? step : hp->lr) * hp->weight_decay;
    for (size_t i = 0; i < n; i++) {
        double q = p[i];
        if (mutant == OC_MUON_MUT_DECAY_AFTER_UPDATE)
            q = (q - step * orth[i]) * (1.0 - decay);
        else
            q = q * (1.0 - decay) - step * orth[i];         /* MUON-WD-1, MUON-UPD-1 */
        p[i] = (float)q;                                      /* MUON-STORE-1 */
        m[i] = m_new[i];
    }
    return OC_OK;
}
