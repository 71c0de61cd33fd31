/* Mixed-precision vector families (spec/mixed.md §6): every element-wise algorithm under the
 * storage combinations real systems use, with cases that kill each mixed-precision mistake.
 * tcIds are assigned in generation order: append new cases at the end. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"

/* MP-COMB-1: Megatron bf16 and fp16 training, and bf16 optimizer state. */
static const oc_storage storages[] = {
    {OC_FMT_BF16, OC_FMT_F32}, {OC_FMT_F16, OC_FMT_F32}, {OC_FMT_BF16, OC_FMT_BF16}};
#define NSTORAGES (int)(sizeof storages / sizeof storages[0])

static void emit_case(family *f, const gen_mixed_algo *a, int variant, float lr,
                      const oc_storage *s, gen_case *c)
{
    c->storage = *s;
    a->emit(f, a->ctx, variant, lr, c);
}

/* Random fp32 masters off the 16-bit grid, a few of them in binary16's subnormal range. */
static void random_master(const gen_mixed_algo *a, gen_case *c)
{
    for (size_t i = 0; i < c->n; i++)
        c->in[0][i] = i % 8 == 7 ? rng_mag(a->rng, -24, -14, 1) : rng_mag(a->rng, -8, 4, 1);
}

static void random_grads(const gen_mixed_algo *a, gen_case *c)
{
    for (size_t j = 0; j < c->n * c->steps; j++)
        c->g[j] = rng_mag(a->rng, -12, 2, 1);
}

/* Write-back edge values (MP-CONV-1) for format f: ties, overflow, the largest finite value,
 * subnormals, the subnormal/normal boundary, signed zero. NaN propagation and values within
 * the fp32 bound of the overflow threshold are left to the conversion tests (MP-TOL-1). */
#define NEDGES 12
static void edge_masters(oc_format f, float *out)
{
    static const float f16_edges[NEDGES] = {65504.0f, 2.0f + 0x1p-10f, 65520.0f, -70000.0f,
                                            0x1p-25f, 0x1.8p-25f, 0x1.4p-20f, -0.0f,
                                            1.0f + 0x1p-11f, 1.0f + 0x3p-11f, 2049.0f,
                                            0x1.ffep-15f};
    static const float bf16_edges[NEDGES] = {FLT_MAX, 0x1.fep127f, 0x1p-130f, 0x1.01p-126f,
                                             1.0f + 0x1p-8f, 1.0f + 0x3p-8f, 0x1.008002p0f,
                                             -0.0f, 257.0f, -3.0f, 0x1p-149f, 0x1.fffffcp-127f};
    memcpy(out, f == OC_FMT_F16 ? f16_edges : bf16_edges, sizeof f16_edges);
}

int gen_mixed_family(const gen_options *opt, const char *outdir, const gen_mixed_algo *a)
{
    static const char *const rules[] = {"MP-FMT-1", "MP-CONV-1", "MP-CONV-2", "MP-STORE-1",
                                        "MP-STORE-2", "MP-STORE-3", "MP-MASTER-1", "MP-COMB-1",
                                        "MP-TOL-1", "MP-TOL-3", "MP-ERR-1", NULL};
    const int cert = strcmp(opt->level, "cert") == 0;
    family f;
    if (family_init(&f, a->family, a->algorithm, a->profile, rules, opt) != 0)
        return -1;
    family_note(&f, "ResumedMaster", "STORAGE_ROUNDING",
                "The fp32 master is off the 16-bit grid, as after many steps.",
                "Re-creating the master from the 16-bit parameter loses its low bits at once.", NULL);
    family_note(&f, "SubUlpUpdates", "STORAGE_ROUNDING",
                "Updates smaller than half a 16-bit ulp: only the master accumulates them.",
                "The 16-bit parameter stays put while the master moves.",
                "https://arxiv.org/abs/1710.03740");
    family_note(&f, "WriteBackEdges", "EDGE_CASE",
                "Masters at 16-bit rounding ties, overflow, subnormals, signed zero and NaN, lr = 0.",
                "Truncating or otherwise mis-rounding write-backs differ by one 16-bit ulp or more.", NULL);
    family_note(&f, "InvalidHyperParameter", "EDGE_CASE", "NaN learning rate with 16-bit buffers.",
                "The step must be rejected and no buffer written.", NULL);
    for (int si = 0; si < NSTORAGES; si++) {
        const oc_storage *s = &storages[si];
        for (int v = 0; v < a->nvariants; v++) {
            gen_case c = {.comment = "resumed: fp32 master off the 16-bit grid, random state",
                          .flags = {"ResumedMaster"},
                          .rules = {"MP-STORE-1", "MP-STORE-2", "MP-STORE-3", "MP-CONV-2",
                                    "MP-MASTER-1", "MP-COMB-1", "MP-TOL-1", "MP-TOL-2"},
                          .result = "valid", .first_step = 100};
            gen_case_alloc(&c, cert ? 512 : 48, 6);
            a->random_state(&c);
            random_master(a, &c);
            random_grads(a, &c);
            emit_case(&f, a, v, a->lr, s, &c);

            gen_case z = {.comment = "fresh start: master = widened parameter, sub-ulp updates",
                          .flags = {"SubUlpUpdates"},
                          .rules = {"MP-MASTER-1", "MP-CONV-1", "MP-TOL-1", "MP-TOL-2", "MP-TOL-3",
                                    "MP-TOL-4"},
                          .result = "valid", .first_step = 1};
            gen_case_alloc(&z, cert ? 256 : 32, cert ? 64 : 16);
            for (size_t i = 0; i < z.n; i++) /* state zero: a fresh optimizer */
                z.in[0][i] = (float)gen_round_format(s->param, rng_mag(a->rng, -2, 2, 1));
            random_grads(a, &z);
            emit_case(&f, a, v, a->lr_small, s, &z);
        }
        gen_case e = {.comment = "write-back edges with lr = 0: ties, overflow, subnormal, NaN",
                      .flags = {"WriteBackEdges"},
                      .rules = {"MP-CONV-1", "MP-FMT-1", "MP-TOL-1", "MP-TOL-3"},
                      .result = "valid", .first_step = 3};
        gen_case_alloc(&e, NEDGES, 2);
        edge_masters(s->param, e.in[0]);
        random_grads(a, &e);
        emit_case(&f, a, 0, 0.0f, s, &e);

        gen_case bad = {.comment = "NaN learning rate: rejected, no buffer written",
                        .flags = {"InvalidHyperParameter"}, .rules = {"MP-ERR-1"},
                        .result = "invalid", .first_step = 1};
        gen_case_alloc(&bad, 8, 1);
        random_master(a, &bad);
        random_grads(a, &bad);
        emit_case(&f, a, 0, NAN, s, &bad);
    }
    /* appended (issue 19 item 3): a tensor without elements under bf16 parameters on an fp32
     * master (MP-ERR-1: with n = 0 there is nothing to check or write) */
    family_note(&f, "NoElements", "EDGE_CASE", "n = 0: a tensor without elements.",
                "A valid step that writes nothing.", NULL);
    gen_case empty = {.comment = "n = 0: a tensor without elements, a valid step that writes "
                                 "nothing", .flags = {"NoElements"}, .rules = {"MP-ERR-1"},
                      .result = "valid", .first_step = 1};
    gen_case_alloc(&empty, 0, 1);
    emit_case(&f, a, 0, a->lr, &storages[0], &empty);
    int rc = family_save(&f, outdir);
    family_free(&f);
    return rc;
}
