/* A float32 Muon (every operation in binary32) for the tolerance tests of the Muon families
 * (spec/muon.md MUON-BLK-TOL-1, §11). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "f32_muon.h"

/* Newton-Schulz (NS-*) in binary32 on a rows x cols matrix, transposing tall inputs. */
void ns_f32(const oc_ns_hparams *hp, size_t rows, size_t cols, const float *g, float *out)
{
    int tall = rows > cols;
    size_t k = tall ? cols : rows, c = tall ? rows : cols, len = rows * cols;
    float *x = malloc(len * sizeof *x), *a = malloc(k * k * sizeof *a);
    float *b = malloc(k * k * sizeof *b), *t = malloc(len * sizeof *t);
    float s = 0;
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            float v = g[i * cols + j];
            x[tall ? j * rows + i : i * cols + j] = v;
            s += v * v;
        }
    float nrm = sqrtf(s) * (float)hp->norm_scale;
    float d = hp->eps_mode == OC_NS_EPS_ADD ? nrm + (float)hp->eps : fmaxf(nrm, (float)hp->eps);
    for (size_t i = 0; i < len; i++)
        x[i] /= d;
    for (int it = 0; it < hp->steps; it++) {
        const double *abc = hp->coef[oc_ns_tuple_index(hp, it)];
        for (size_t i = 0; i < k; i++)
            for (size_t j = 0; j < k; j++) {
                float acc = 0;
                for (size_t l = 0; l < c; l++)
                    acc += x[i * c + l] * x[j * c + l];
                a[i * k + j] = acc;
            }
        for (size_t i = 0; i < k; i++)
            for (size_t j = 0; j < k; j++) {
                float acc = 0;
                for (size_t l = 0; l < k; l++)
                    acc += a[i * k + l] * a[l * k + j];
                b[i * k + j] = (float)abc[1] * a[i * k + j] + (float)abc[2] * acc;
            }
        for (size_t i = 0; i < k; i++)
            for (size_t j = 0; j < c; j++) {
                float acc = 0;
                for (size_t l = 0; l < k; l++)
                    acc += b[i * k + l] * x[l * c + j];
                t[i * c + j] = (float)abc[0] * x[i * c + j] + acc;
            }
        memcpy(x, t, len * sizeof *x);
    }
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            out[i * cols + j] = x[tall ? j * rows + i : i * cols + j];
    free(x), free(a), free(b), free(t);
}

/* MUON-* over the blocks of MUON-BLK-* in binary32 (the layout from oc_muon_block_at); with a
 * non-NULL ctx the whole matrix as one block (the mistake of ignoring the partition). */
oc_status f32_block_step(void *ctx, const oc_muon_hparams *hp,
                                const oc_muon_partition *given, size_t rows, size_t cols,
                                float *p, float *m, const float *g)
{
    static const oc_muon_partition whole = {1, OC_MUON_TP_NONE, OC_MUON_SCALE_GLOBAL, 0, 0, 0};
    oc_status st = oc_muon_check(hp, rows, cols); /* MUON-HP-1, NS-HP-1 */
    if (st != OC_OK || (st = oc_muon_partition_check(given, rows, cols)) != OC_OK)
        return st;
    const oc_muon_partition *part = ctx ? &whole : given;
    size_t n = rows * cols;
    for (size_t i = 0; i < n; i++) /* MUON-ERR-1 */
        if (!isfinite(p[i]) || !isfinite(m[i]) || !isfinite(g[i]))
            return OC_ERR_NONFINITE;
    float *dir = malloc(n * sizeof *dir), *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    float mu = (float)hp->momentum, take = hp->form == OC_MUON_SGD ? 1.0f : 1.0f - mu;
    for (size_t i = 0; i < n; i++) {
        m[i] = mu * m[i] + take * g[i];
        dir[i] = hp->nesterov ? take * g[i] + mu * m[i] : m[i];
    }
    for (size_t k = 0; k < oc_muon_block_count(part); k++) {
        oc_muon_block b;
        oc_muon_block_at(part, rows, cols, k, &b);
        size_t br = b.run * b.nruns, bn = br * b.ncols;
        for (size_t t = 0; t < bn; t++)
            in[t] = dir[(b.row0 + t / b.ncols / b.run * b.stride + t / b.ncols % b.run) * cols +
                        b.col0 + t % b.ncols];
        ns_f32(&hp->ns, br, b.ncols, in, out);
        float step = (float)hp->lr * (float)oc_muon_scale_factor(hp, b.scale_rows, b.scale_cols);
        for (size_t t = 0; t < bn; t++) {
            size_t i = (b.row0 + t / b.ncols / b.run * b.stride + t / b.ncols % b.run) * cols +
                       b.col0 + t % b.ncols;
            p[i] = p[i] * (1.0f - (float)hp->lr * (float)hp->weight_decay) - step * out[t];
        }
    }
    free(dir), free(in), free(out);
    return OC_OK;
}

