/* Eva driver for oc_ref_muon_step (ref/muon.c) with the Newton-Schulz reference (the mutants of
 * conformance/mutants/muon.c are steps of hyper-parameters, partitions or blocks in these
 * ranges, or recombine its pieces). With -warn-special-float non-finite, "0 alarms" means no NaN or infinity and
 * no invalid access for every input in these ranges (every combination is analysed):
 *   shape              every rows, cols in [1, 3], one call each
 *   p, m, g            fp32 in [-1e4, 1e4]
 *   profile            keller, moonlight, megatron (their NS tuples), Nesterov on or off,
 *                      either momentum form and any scale mode
 *   lr, wd             [0, 1];  momentum [0, 0.999];  extra scale [2^-10, 16]
 *   NS steps           [1, 12]
 * The orthogonalised update is bounded by NS-DOM-1 (|o| <= 2^64) and the scale by sqrt(3) * 16.
 * oc_ref_muon_block_step (MUON-BLK-*) the same way on five partitions of up to 6 x 2: rows
 * split over 3 ranks, columns over 2, one-head QKV, QKV of 2 heads in 2 groups over 2 ranks,
 * GQA 2 heads in 1 group; either scale shape.
 */
#include "__fc_builtin.h"
#include "optcert/muon.h"

#define MAXN 3

static float p[MAXN * MAXN], m[MAXN * MAXN], g[MAXN * MAXN];
static double work[64];
static float scratch[3 * MAXN * MAXN];
static float bp[12], bm[12], bg[12], bscratch[5 * 12];

static const struct { oc_muon_partition part; size_t rows, cols; } blocks[] = {
    {{3, OC_MUON_TP_ROWS, OC_MUON_SCALE_GLOBAL, 0, 0, 0}, 3, 2},
    {{2, OC_MUON_TP_COLS, OC_MUON_SCALE_GLOBAL, 0, 0, 0}, 3, 2},
    {{1, OC_MUON_TP_NONE, OC_MUON_SCALE_GLOBAL, 1, 1, 1}, 3, 3},
    {{2, OC_MUON_TP_ROWS, OC_MUON_SCALE_GLOBAL, 2, 2, 1}, 6, 2},
    {{1, OC_MUON_TP_NONE, OC_MUON_SCALE_GLOBAL, 2, 1, 1}, 4, 3},
};

int main(void)
{
    oc_status st = OC_OK;
    for (size_t rows = 1; rows <= MAXN; rows++)
        for (size_t cols = 1; cols <= MAXN; cols++) {
            for (int i = 0; i < MAXN * MAXN; i++) {
                p[i] = Frama_C_float_interval(-1e4f, 1e4f);
                m[i] = Frama_C_float_interval(-1e4f, 1e4f);
                g[i] = Frama_C_float_interval(-1e4f, 1e4f);
            }
            oc_muon_hparams hp;
            st |= oc_muon_profile_defaults(
                (oc_muon_profile)Frama_C_interval(0, OC_MUON_PROFILE_COUNT - 1), &hp);
            hp.nesterov = Frama_C_interval(0, 1);
            hp.form = (oc_muon_momentum)Frama_C_interval(OC_MUON_EMA, OC_MUON_SGD);
            hp.scale = (oc_muon_scale)Frama_C_interval(OC_MUON_SHAPE_SCALING, OC_MUON_UNIT_RMS_NORM);
            hp.lr = Frama_C_double_interval(0.0, 1.0);
            hp.weight_decay = Frama_C_double_interval(0.0, 1.0);
            hp.momentum = Frama_C_double_interval(0.0, 0.999);
            hp.extra_scale = Frama_C_double_interval(0x1p-10, 16.0);
            hp.ns.steps = Frama_C_interval(1, 12);
            st |= oc_ref_muon_step(&hp, rows, cols, p, m, g, work, sizeof work / sizeof work[0],
                                   scratch);
        }
    for (int b = 0; b < 5; b++) {
        for (int i = 0; i < 12; i++) {
            bp[i] = Frama_C_float_interval(-1e4f, 1e4f);
            bm[i] = Frama_C_float_interval(-1e4f, 1e4f);
            bg[i] = Frama_C_float_interval(-1e4f, 1e4f);
        }
        oc_muon_hparams hp;
        st |= oc_muon_profile_defaults(
            (oc_muon_profile)Frama_C_interval(0, OC_MUON_PROFILE_COUNT - 1), &hp);
        hp.lr = Frama_C_double_interval(0.0, 1.0);
        hp.weight_decay = Frama_C_double_interval(0.0, 1.0);
        hp.momentum = Frama_C_double_interval(0.0, 0.999);
        oc_muon_partition part = blocks[b].part;
        part.scale_shape = (oc_muon_scale_shape)Frama_C_interval(0, 1);
        st |= oc_ref_muon_block_step(&hp, &part, blocks[b].rows, blocks[b].cols, bp, bm, bg, work,
                                     sizeof work / sizeof work[0], bscratch,
                                     sizeof bscratch / sizeof bscratch[0]);
    }
    oc_muon_profile parsed = OC_MUON_KELLER;
    oc_status st2 = oc_muon_profile_parse(Frama_C_nondet(0, 1) ? "moonlight" : "adam", &parsed);
    const char *name = oc_muon_profile_name((oc_muon_profile)Frama_C_interval(0, 3));
    return (int)st + (int)st2 + (int)parsed + (name != 0);
}
