/* Unit tests of the Muon step over blocks (ref/muon.c, spec/muon.md §10, MUON-BLK-*): the block
 * layout against Megatron's view/split written out here, the step against plain steps on the
 * blocks gathered by hand, rejections, and the tolerance with a float32 implementation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "certify.h"
#include "cunit_main.h"
#include "optcert/impl.h"
#include "optcert/muon.h"
#include "f32_muon.h"
#include "../mutants/muon.h"

/* The rows of block `which` (0 q, 1 k, 2 v) of rank `rank` as Megatron's
 * grad.view(groups, q + k + v, -1) split along dim 1 gives them (emerging_optimizers.py
 * TensorParallelMuon.orthogonalize), on a shard of groups / tp query groups. */
static size_t megatron_rows(size_t heads, size_t groups, size_t d, size_t tp, size_t rank,
                            int which, size_t *rows)
{
    size_t q = heads / groups * d, per = q + 2 * d, local = groups / tp, n = 0;
    size_t off = which == 0 ? 0 : which == 1 ? q : q + d, len = which == 0 ? q : d;
    for (size_t g = 0; g < local; g++)
        for (size_t r = 0; r < len; r++)
            rows[n++] = rank * local * per + g * per + off + r;
    return n;
}

/* MUON-BLK-QKV-1, MUON-BLK-TP-1, MUON-BLK-SCALE-1: the blocks of GQA layouts (8 heads in 2 and
 * 4 groups, one rank and column-parallel TP 2) are Megatron's rows, in order, with the scale
 * shape of the whole Q, K or V matrix (global) or of the shard's (local). */
static void test_qkv_layout(void)
{
    static const struct { size_t heads, groups, d, tp; } cfg[] = {{8, 2, 3, 1}, {8, 4, 2, 2}, {4, 4, 1, 1}};
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
        size_t rows = (cfg[c].heads + 2 * cfg[c].groups) * cfg[c].d, cols = 5, want[64];
        for (int shape = 0; shape < 2; shape++) {
            oc_muon_partition part = {cfg[c].tp, cfg[c].tp > 1 ? OC_MUON_TP_ROWS : OC_MUON_TP_NONE,
                                      (oc_muon_scale_shape)shape, cfg[c].heads, cfg[c].groups,
                                      cfg[c].d};
            CU_ASSERT_EQUAL_FATAL(oc_muon_partition_check(&part, rows, cols), OC_OK);
            CU_ASSERT_EQUAL_FATAL(oc_muon_block_count(&part), 3 * cfg[c].tp);
            for (size_t k = 0; k < 3 * cfg[c].tp; k++) {
                oc_muon_block b;
                oc_muon_block_at(&part, rows, cols, k, &b);
                size_t n = megatron_rows(cfg[c].heads, cfg[c].groups, cfg[c].d, cfg[c].tp, k / 3,
                                         (int)(k % 3), want);
                CU_ASSERT_EQUAL(b.run * b.nruns, n);
                for (size_t t = 0; t < n && t < b.run * b.nruns; t++)
                    CU_ASSERT_EQUAL(b.row0 + t / b.run * b.stride + t % b.run, want[t]);
                CU_ASSERT_EQUAL(b.col0, 0);
                CU_ASSERT_EQUAL(b.ncols, cols);
                CU_ASSERT_EQUAL(b.scale_rows, n * (shape == OC_MUON_SCALE_GLOBAL ? cfg[c].tp : 1));
                CU_ASSERT_EQUAL(b.scale_cols, cols);
            }
        }
    }
}

static oc_status block_step(const oc_muon_hparams *hp, const oc_muon_partition *part,
                            size_t rows, size_t cols, float *p, float *m, const float *g,
                            oc_muon_block_mutant mu)
{
    size_t len = oc_muon_work_len(rows, cols), slen = oc_muon_block_scratch_len(rows, cols);
    double *work = malloc((len ? len : 1) * sizeof *work);
    float *scratch = malloc((slen + 1) * sizeof *scratch);
    oc_status st = oc_muon_block_mutant_step(mu, hp, part, rows, cols, p, m, g, work, len, scratch, slen);
    free(work);
    free(scratch);
    return st;
}

static oc_status plain_step(const oc_muon_hparams *hp, size_t rows, size_t cols, float *p,
                            float *m, const float *g)
{
    size_t len = oc_muon_work_len(rows, cols);
    double *work = malloc((len ? len : 1) * sizeof *work);
    float *scratch = malloc((3 * rows * cols + 1) * sizeof *scratch);
    oc_status st = oc_ref_muon_step(hp, rows, cols, p, m, g, work, len, scratch);
    free(work);
    free(scratch);
    return st;
}

static float *pattern(size_t n, unsigned seed, float scale)
{
    float *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        v[i] = scale * ((float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f);
    }
    return v;
}

/* MUON-BLK-ORTH-1, MUON-BLK-SCALE-1: each block of the step is the plain step (MUON-*) on that
 * block gathered by hand, bit for bit: the Q, K, V blocks of a GQA weight (their own shapes),
 * and the shards of column- and row-parallel weights with the local scale shape. */
static void test_blocks_are_plain_steps(void)
{
    static const struct { size_t rows, cols, tp; oc_muon_tp_dim dim; size_t h, grp, d; } cfg[] = {
        {24, 12, 1, OC_MUON_TP_NONE, 8, 2, 2},  /* GQA: [q(8); k(2); v(2)] x 2 groups */
        {24, 6, 4, OC_MUON_TP_ROWS, 0, 0, 0},
        {6, 20, 2, OC_MUON_TP_COLS, 0, 0, 0},
    };
    oc_muon_hparams hp;
    oc_muon_profile_defaults(OC_MUON_MEGATRON, &hp);
    hp.lr = 0.02;
    hp.weight_decay = 0.1;
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
        size_t rows = cfg[c].rows, cols = cfg[c].cols, n = rows * cols;
        oc_muon_partition part = {cfg[c].tp, cfg[c].dim, OC_MUON_SCALE_LOCAL, cfg[c].h, cfg[c].grp,
                                  cfg[c].d};
        float *p = pattern(n, 1, 1), *m = pattern(n, 2, 0.01f), *g = pattern(n, 3, 0.01f);
        float *p0 = malloc(n * sizeof *p0), *m0 = malloc(n * sizeof *m0);
        memcpy(p0, p, n * sizeof *p);
        memcpy(m0, m, n * sizeof *m);
        CU_ASSERT_EQUAL_FATAL(block_step(&hp, &part, rows, cols, p, m, g, OC_MUON_BLOCK_CORRECT), OC_OK);
        size_t nb = cfg[c].h ? 3 : cfg[c].tp, idx[512];
        for (size_t k = 0; k < nb; k++) {
            size_t ni = 0, br, bc;
            if (cfg[c].h) {
                size_t r[64], nr = megatron_rows(cfg[c].h, cfg[c].grp, cfg[c].d, 1, 0, (int)k, r);
                for (size_t i = 0; i < nr; i++)
                    for (size_t j = 0; j < cols; j++)
                        idx[ni++] = r[i] * cols + j;
                br = nr, bc = cols;
            } else if (cfg[c].dim == OC_MUON_TP_ROWS) {
                br = rows / cfg[c].tp, bc = cols;
                for (size_t i = 0; i < br * cols; i++)
                    idx[ni++] = k * br * cols + i;
            } else {
                br = rows, bc = cols / cfg[c].tp;
                for (size_t i = 0; i < rows; i++)
                    for (size_t j = 0; j < bc; j++)
                        idx[ni++] = i * cols + k * bc + j;
            }
            float bp[512], bm[512], bg[512];
            for (size_t t = 0; t < ni; t++)
                bp[t] = p0[idx[t]], bm[t] = m0[idx[t]], bg[t] = g[idx[t]];
            CU_ASSERT_EQUAL_FATAL(plain_step(&hp, br, bc, bp, bm, bg), OC_OK);
            for (size_t t = 0; t < ni; t++) {
                CU_ASSERT_EQUAL(p[idx[t]], bp[t]);
                CU_ASSERT_EQUAL(m[idx[t]], bm[t]);
            }
        }
        /* the mutants change the result of this GQA / TP case */
        for (int mu = 1; mu < OC_MUON_BLOCK_MUTANT_COUNT; mu++) {
            float *q = malloc(n * sizeof *q), *mm = malloc(n * sizeof *mm);
            memcpy(q, p0, n * sizeof *q);
            memcpy(mm, m0, n * sizeof *mm);
            CU_ASSERT_EQUAL(block_step(&hp, &part, rows, cols, q, mm, g, (oc_muon_block_mutant)mu), OC_OK);
            int applies = cfg[c].h ? mu != OC_MUON_BLOCK_MUT_SCALE_SHAPE_SWAPPED &&
                                         mu != OC_MUON_BLOCK_MUT_TP_NOT_BLOCKED
                                   : mu >= OC_MUON_BLOCK_MUT_SCALE_SHAPE_SWAPPED;
            if (applies)
                CU_ASSERT(memcmp(q, p, n * sizeof *q) != 0);
            free(q);
            free(mm);
        }
        free(p), free(m), free(g), free(p0), free(m0);
    }
}

/* MUON-BLK-ERR-1, MUON-ERR-1: partitions that do not fit the shape, a NaN, a short scratch: a
 * status and nothing written. */
static void test_rejections(void)
{
    static const struct { oc_muon_partition part; size_t rows; oc_status st; } bad[] = {
        {{4, OC_MUON_TP_ROWS, OC_MUON_SCALE_GLOBAL, 0, 0, 0}, 30, OC_ERR_BAD_SHAPE},
        {{2, OC_MUON_TP_NONE, OC_MUON_SCALE_GLOBAL, 0, 0, 0}, 32, OC_ERR_BAD_HPARAM},
        {{0, OC_MUON_TP_ROWS, OC_MUON_SCALE_GLOBAL, 0, 0, 0}, 32, OC_ERR_BAD_HPARAM},
        {{65, OC_MUON_TP_ROWS, OC_MUON_SCALE_GLOBAL, 0, 0, 0}, 65, OC_ERR_BAD_HPARAM},
        {{1, OC_MUON_TP_NONE, (oc_muon_scale_shape)2, 0, 0, 0}, 32, OC_ERR_BAD_HPARAM},
        {{1, OC_MUON_TP_NONE, OC_MUON_SCALE_GLOBAL, 4, 4, 4}, 40, OC_ERR_BAD_SHAPE},
        {{1, OC_MUON_TP_NONE, OC_MUON_SCALE_GLOBAL, 6, 4, 2}, 28, OC_ERR_BAD_SHAPE},
        {{2, OC_MUON_TP_COLS, OC_MUON_SCALE_GLOBAL, 4, 4, 2}, 24, OC_ERR_BAD_SHAPE},
        {{2, OC_MUON_TP_ROWS, OC_MUON_SCALE_GLOBAL, 3, 3, 2}, 18, OC_ERR_BAD_SHAPE},
        {{1, OC_MUON_TP_NONE, OC_MUON_SCALE_GLOBAL, 4, 0, 4}, 16, OC_ERR_BAD_SHAPE},
    };
    oc_muon_hparams hp;
    oc_muon_profile_defaults(OC_MUON_MEGATRON, &hp);
    size_t cols = 8;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t n = bad[i].rows * cols;
        float *p = pattern(n, 4, 1), *m = pattern(n, 5, 0.01f), *g = pattern(n, 6, 0.01f);
        float *p0 = malloc(n * sizeof *p0);
        memcpy(p0, p, n * sizeof *p);
        CU_ASSERT_EQUAL(block_step(&hp, &bad[i].part, bad[i].rows, cols, p, m, g,
                                   OC_MUON_BLOCK_CORRECT), bad[i].st);
        CU_ASSERT(memcmp(p, p0, n * sizeof *p) == 0);
        free(p), free(m), free(g), free(p0);
    }
    oc_muon_partition part = {2, OC_MUON_TP_ROWS, OC_MUON_SCALE_GLOBAL, 0, 0, 0};
    size_t n = 16 * cols, len = oc_muon_work_len(16, cols);
    float *p = pattern(n, 7, 1), *m = pattern(n, 8, 0.01f), *g = pattern(n, 9, 0.01f);
    float *p0 = malloc(n * sizeof *p0), *scratch = malloc(5 * n * sizeof *scratch);
    double *work = malloc(len * sizeof *work);
    memcpy(p0, p, n * sizeof *p);
    CU_ASSERT_EQUAL(oc_ref_muon_block_step(&hp, &part, 16, cols, p, m, g, work, len, scratch,
                                           3 * n), OC_ERR_BAD_SHAPE);
    g[17] = NAN;
    CU_ASSERT_EQUAL(oc_ref_muon_block_step(&hp, &part, 16, cols, p, m, g, work, len, scratch,
                                           5 * n), OC_ERR_NONFINITE);
    CU_ASSERT_EQUAL(oc_ref_muon_block_step(&hp, NULL, 16, cols, p, m, g, work, len, scratch,
                                           5 * n), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_muon_block_step(NULL, &part, 16, cols, p, m, g, work, len, scratch,
                                           5 * n), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_muon_partition_check(NULL, 16, cols), OC_ERR_NULL_POINTER);
    CU_ASSERT(memcmp(p, p0, n * sizeof *p) == 0);
    free(p), free(m), free(g), free(p0), free(scratch), free(work);
}

/* MUON-BLK-TOL-1: the float32 implementation passes every committed block case under the fp32
 * class with a margin; the same implementation ignoring the partition fails. */
static void test_f32_within_bound(void)
{
    static int ignore_blocks = 1;
    test_table impl;
    test_algorithm_table(&impl, "float32 blocks", NULL, "muon-blocks", NULL,
                         (oc_entry_point)f32_block_step);
    size_t passed;
    double worst;
    const char *dir = OPTCERT_SOURCE_DIR "/vectors";
    size_t fails = test_failures(&impl.t, dir, "muon-blocks", OC_CLASS_FP32, &worst, &passed);
    fprintf(stderr, "float32 blocks under fp32: %zu pass, %zu fail, worst %.3g\n", passed, fails,
            worst);
    CU_ASSERT_EQUAL(fails, 0);
    CU_ASSERT(passed >= 29);
    CU_ASSERT(worst < 0.25);
    impl.t.ctx = &ignore_blocks;
    fails = test_failures(&impl.t, dir, "muon-blocks", OC_CLASS_FP32, &worst, &passed);
    fprintf(stderr, "float32 without blocks under fp32: %zu fail\n", fails);
    CU_ASSERT(fails >= 20);
}

void register_suites(void)
{
    ADD_SUITE("muon blocks", {"qkv layout", test_qkv_layout},
              {"blocks are plain steps", test_blocks_are_plain_steps},
              {"rejections", test_rejections}, {"float32 within bound", test_f32_within_bound});
}
