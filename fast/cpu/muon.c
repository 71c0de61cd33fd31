/* The Muon step in the fast CPU backend (spec/fast.md FAST-MUON-1, spec/muon.md MUON-*): the
 * momentum and the direction in one binary32 pass, the orthogonalisation by the CBLAS
 * Newton–Schulz (fast/cpu/newton_schulz.c), the decayed parameter and the update in a second
 * pass. Checks in the reference's order; p and m are written only after the orthogonalisation
 * succeeded (MUON-ERR-1). */
#include <stdlib.h>
#include <string.h>
#include "optcert/buffers.h"
#include "optcert/fast.h"
#include "internal.h"

/* MUON-MOM-1, MUON-NEST-1 in binary32: m' = mu m + w g, d = w g + mu m' (Nesterov) or m'. */
static void momentum(const oc_muon_hparams *hp, size_t n, const float *m, const float *g,
                     float *m_new, float *dir)
{
    float mu = (float)hp->momentum;
    float w = (float)(hp->form == OC_MUON_SGD ? 1.0 : 1.0 - hp->momentum);
    int nesterov = hp->nesterov != 0;
    long long len = (long long)n;
#pragma omp parallel for if (len > OC_FAST_CHUNK)
    for (long long i = 0; i < len; i++) {
        float b = mu * m[i] + w * g[i];
        m_new[i] = b;
        dir[i] = nesterov ? w * g[i] + mu * b : b;
    }
}

/* MUON-WD-1, MUON-UPD-1: p' = p (1 - lr wd) - lr s O, both factors rounded once to binary32. */
static void update(const oc_muon_hparams *hp, size_t rows, size_t cols, float *p,
                   const float *orth)
{
    float keep = (float)(1.0 - hp->lr * hp->weight_decay);
    float step = (float)(hp->lr * oc_muon_scale_factor(hp, rows, cols)); /* MUON-SCALE-1 */
    long long len = (long long)(rows * cols);
#pragma omp parallel for if (len > OC_FAST_CHUNK)
    for (long long i = 0; i < len; i++)
        p[i] = keep * p[i] - step * orth[i];
}

oc_status oc_fast_muon_step(const oc_muon_hparams *hp, oc_fast_ns_precision prec, size_t rows,
                            size_t cols, float *p, float *m, const float *g)
{
    if (hp == NULL)
        return OC_ERR_NULL_POINTER;
    oc_status st = oc_muon_check(hp, rows, cols); /* MUON-HP-1 */
    if (st != OC_OK)
        return st;
    size_t n = rows * cols, bytes = n * sizeof(float);
    if ((st = oc_buffer_check(p, n, sizeof(float))) || (st = oc_buffer_check(m, n, sizeof(float))) ||
        (st = oc_buffer_check(g, n, sizeof(float))) || (st = oc_buffer_disjoint(p, bytes, m, bytes)) ||
        (st = oc_buffer_disjoint(p, bytes, g, bytes)) || (st = oc_buffer_disjoint(m, bytes, g, bytes)))
        return st; /* MUON-ERR-1 */
    if (oc_fast_any_nonfinite(p, n) || oc_fast_any_nonfinite(m, n) || oc_fast_any_nonfinite(g, n))
        return OC_ERR_NONFINITE;
    size_t ns_len = oc_fast_ns_work_len(rows, cols);
    float *m_new = malloc((3 * n + ns_len) * sizeof(float));
    if (!m_new)
        return OC_ERR_INTERNAL; /* out of memory; nothing was written */
    float *dir = m_new + n, *orth = dir + n, *ns_work = orth + n;
    momentum(hp, n, m, g, m_new, dir);
    st = oc_fast_newton_schulz(&hp->ns, prec, rows, cols, dir, orth, ns_work, ns_len); /* MUON-NS-1 */
    if (st == OC_OK) {
        update(hp, rows, cols, p, orth);
        memcpy(m, m_new, bytes);
    }
    free(m_new);
    return st;
}
