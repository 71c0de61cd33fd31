/* Muon step vector families (spec/muon.md, rules MUON-*): the exact step in MPFR with the
 * exact Newton-Schulz of gen_newton_schulz.c, tolerances MUON-TOL-1, and the cases. tcIds are
 * assigned in generation order: append new cases at the end. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optcert/muon.h"
#include "family.h"
#include "gen.h"
#include "ns_model.h"
#include "rng.h"

static gen_rng rng;

static float *uniform(size_t len, double scale)
{
    float *v = malloc(len * sizeof *v);
    for (size_t i = 0; i < len; i++)
        v[i] = (float)(scale * (2 * rng_unit(&rng) - 1));
    return v;
}

static double norm2(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i] * v[i];
    return sqrt(s);
}

static json_t *hparams_json(const oc_muon_hparams *hp)
{
    static const char *const scales[] = {"shape_scaling", "spectral", "unit_rms_norm"};
    json_t *coef = json_array();
    for (int t = 0; t < hp->ns.ncoef; t++)
        json_array_append_new(coef, json_pack("[o,o,o]", hexfloat(hp->ns.coef[t][0]),
                                              hexfloat(hp->ns.coef[t][1]),
                                              hexfloat(hp->ns.coef[t][2])));
    return json_pack("{s:o,s:i,s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:b,s:s,s:s,s:o}", "coefficients", coef,
                     "steps", hp->ns.steps, "schedule",
                     hp->ns.schedule == OC_NS_CYCLE ? "cycle" : "repeat_last", "epsMode",
                     hp->ns.eps_mode == OC_NS_EPS_ADD ? "add" : "max", "eps",
                     hexfloat(hp->ns.eps), "normScale", hexfloat(hp->ns.norm_scale), "lr",
                     hexfloat(hp->lr), "momentum", hexfloat(hp->momentum), "weightDecay",
                     hexfloat(hp->weight_decay), "nesterov", hp->nesterov, "momentumForm",
                     hp->form == OC_MUON_EMA ? "ema" : "sgd", "scaleMode", scales[hp->scale],
                     "extraScale", hexfloat(hp->extra_scale));
}

static const char *const profile_rules[OC_MUON_PROFILE_COUNT] = {
    "MUON-PROF-KELLER", "MUON-PROF-MOONLIGHT", "MUON-PROF-MEGATRON"};

/* One valid case: the exact step and its tolerances (MUON-TOL-1), tensors and JSON. */
static void emit(family *f, const oc_muon_hparams *hp, const char *comment, const char *flag,
                 size_t rows, size_t cols, float *p, float *m, float *g, mpfr_prec_t prec)
{
    size_t n = rows * cols, k = rows < cols ? rows : cols;
    float *m32 = malloc(n * sizeof *m32), *d32 = malloc(n * sizeof *d32);
    float *o32 = malloc(n * sizeof *o32), *p32 = malloc(n * sizeof *p32);
    double *m64 = malloc(n * sizeof *m64), *o64 = malloc(n * sizeof *o64);
    double *p64 = malloc(n * sizeof *p64), *w = malloc(n * sizeof *w);
    double *kept = malloc(n * sizeof *kept), *sv0 = malloc(k * sizeof *sv0);
    double ns_tol[NS_NCLASSES][2], tol_p[NS_NCLASSES][2], tol_m[NS_NCLASSES][2];
    mpfr_t x, y, s;
    mpfr_inits2(prec, x, y, s, (mpfr_ptr)0);
    double mu = hp->momentum, take = hp->form == OC_MUON_SGD ? 1.0 : 1.0 - mu;
    for (size_t i = 0; i < n; i++) {                                /* MUON-MOM-1 */
        mpfr_set_flt(x, m[i], MPFR_RNDN);
        mpfr_mul_d(x, x, mu, MPFR_RNDN);
        mpfr_set_flt(y, g[i], MPFR_RNDN);
        mpfr_mul_d(y, y, take, MPFR_RNDN);                          /* 1 - mu exact */
        mpfr_add(x, x, y, MPFR_RNDN);
        m32[i] = mpfr_get_flt(x, MPFR_RNDN);                        /* MUON-STORE-1 */
        m64[i] = mpfr_get_d(x, MPFR_RNDN);
        w[i] = mu * fabs((double)m[i]) + take * fabs((double)g[i]);
        if (hp->nesterov) {                                         /* MUON-NEST-1 */
            mpfr_set_flt(x, m32[i], MPFR_RNDN);
            mpfr_mul_d(x, x, mu, MPFR_RNDN);
            mpfr_add(x, x, y, MPFR_RNDN);
            d32[i] = mpfr_get_flt(x, MPFR_RNDN);                    /* MUON-STORE-1 */
        } else {
            d32[i] = m32[i];
        }
    }
    ns_exact(&hp->ns, rows, cols, d32, prec, o32, o64, sv0);        /* MUON-NS-1 */
    ns_tolerances(&hp->ns, sv0, k, n / k, ns_tol);
    double scale = oc_muon_scale_factor(hp, rows, cols);            /* MUON-SCALE-1 */
    mpfr_set_ui(s, (unsigned long)(rows > cols ? rows : cols), MPFR_RNDN);
    if (hp->scale == OC_MUON_SHAPE_SCALING) {
        mpfr_set_ui(s, rows > cols ? (unsigned long)rows : 1ul, MPFR_RNDN);
        mpfr_div_ui(s, s, rows > cols ? (unsigned long)cols : 1ul, MPFR_RNDN);
    } else if (hp->scale == OC_MUON_UNIT_RMS_NORM) {
        mpfr_set_ui(s, (unsigned long)rows, MPFR_RNDN);
        mpfr_div_ui(s, s, (unsigned long)cols, MPFR_RNDN);
    }
    mpfr_sqrt(s, s, MPFR_RNDN);
    mpfr_mul_d(s, s, hp->extra_scale, MPFR_RNDN);
    mpfr_mul_d(s, s, hp->lr, MPFR_RNDN);                            /* lr * scale */
    for (size_t i = 0; i < n; i++) {                                /* MUON-WD-1, MUON-UPD-1 */
        mpfr_set_flt(x, p[i], MPFR_RNDN);
        mpfr_set_d(y, hp->lr, MPFR_RNDN);
        mpfr_mul_d(y, y, hp->weight_decay, MPFR_RNDN);
        mpfr_ui_sub(y, 1, y, MPFR_RNDN);
        mpfr_mul(x, x, y, MPFR_RNDN);
        kept[i] = fabs(mpfr_get_d(x, MPFR_RNDN));
        mpfr_set_flt(y, o32[i], MPFR_RNDN);
        mpfr_mul(y, y, s, MPFR_RNDN);
        mpfr_sub(x, x, y, MPFR_RNDN);
        p32[i] = mpfr_get_flt(x, MPFR_RNDN);                        /* MUON-STORE-1 */
        p64[i] = mpfr_get_d(x, MPFR_RNDN);
    }
    /* MUON-TOL-1: the momentum elementwise (three roundings, or one for the exact class); the
     * parameter: lr * scale times the orthogonalisation's bound of the class, plus four
     * roundings of the elementwise update. */
    double step = hp->lr * scale, onorm = norm2(o64, n);
    double pnorm = norm2(p64, n), mnorm = norm2(m64, n), wnorm = norm2(w, n);
    double keptnorm = norm2(kept, n);
    for (int cl = 0; cl < NS_NCLASSES; cl++) {
        double u = 0x1p-24, elem_m = cl == NS_CLASS_EXACT ? u * mnorm : u * mnorm + 3 * u * wnorm;
        double elem_p = cl == NS_CLASS_EXACT ? u * pnorm + step * u * onorm
                                             : u * pnorm + 4 * u * (keptnorm + step * onorm);
        tol_m[cl][0] = tol_m[cl][1] = elem_m * (1 + 0x1p-20);
        tol_p[cl][0] = (step * ns_tol[cl][0] + elem_p) * (1 + 0x1p-20);
        tol_p[cl][1] = (step * ns_tol[cl][1] + elem_p) * (1 + 0x1p-20);
    }
    family_group(f, "MuonStep", hparams_json(hp));
    int id = f->next_tcid;
    json_t *test = json_pack("{s:s,s:[s],s:[s,s,s,s,s,s,s,s,s],s:s,s:I,s:I}", "comment", comment,
                             "flags", flag, "specRules", "MUON-MOM-1", "MUON-NEST-1", "MUON-NS-1",
                             "MUON-SCALE-1", "MUON-WD-1", "MUON-UPD-1", "MUON-STORE-1",
                             "MUON-TOL-1", profile_rules[hp->profile], "result", "valid", "rows",
                             (json_int_t)rows, "cols", (json_int_t)cols);
    json_t *in = json_object(), *ep = json_object(), *em = json_object();
    family_add_tensor(f, id, "p", "F32", rows, cols, p, in, "p");
    family_add_tensor(f, id, "m", "F32", rows, cols, m, in, "m");
    family_add_tensor(f, id, "g", "F32", rows, cols, g, in, "g");
    family_add_tensor(f, id, "p.out", "F32", rows, cols, p32, ep, "f32");
    family_add_tensor(f, id, "p.out.f64", "F64", rows, cols, p64, ep, "f64");
    family_add_tensor(f, id, "p.tol", "F64", NS_NCLASSES, 2, tol_p, ep, "tol");
    family_add_tensor(f, id, "m.out", "F32", rows, cols, m32, em, "f32");
    family_add_tensor(f, id, "m.out.f64", "F64", rows, cols, m64, em, "f64");
    family_add_tensor(f, id, "m.tol", "F64", NS_NCLASSES, 2, tol_m, em, "tol");
    json_object_set_new(test, "inputs", in);
    json_object_set_new(test, "expected", json_pack("{s:o,s:o}", "p", ep, "m", em));
    family_test(f, test);
    mpfr_clears(x, y, s, (mpfr_ptr)0);
    free(m32), free(d32), free(o32), free(p32), free(m64), free(o64), free(p64), free(w);
    free(kept), free(sv0), free(p), free(m), free(g);
}

static void cases(family *f, const oc_muon_hparams *hp0, mpfr_prec_t prec)
{
    static const size_t shapes[][2] = {{8, 8}, {4, 4}, {6, 16}, {16, 6}, {3, 9}, {9, 3}, {1, 5},
                                       {12, 20}};
    oc_muon_hparams hp = *hp0;
    for (int group = 0; group < 2; group++) {
        if (group == 1) { /* MUON-WD-1, MUON-NEST-1: visible decay, the other Nesterov setting */
            hp.lr = 0.05f;
            hp.weight_decay = 0.5f;
            hp.nesterov = !hp0->nesterov;
        }
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            size_t r = shapes[s][0], c = shapes[s][1], n = r * c;
            float *p = uniform(n, 1);
            float *m = s == 7 ? calloc(n, sizeof(float)) : uniform(n, 0.01);
            float *g = uniform(n, 0.01);
            emit(f, &hp, s == 7 ? "first step: zero momentum" : "random parameter, momentum, gradient",
                 s == 7 ? "FirstStep" : "Random", r, c, p, m, g, prec);
        }
    }
    /* MUON-HP-1, MUON-ERR-1: momentum 1 must be rejected with the state unchanged. */
    hp.momentum = 1.0;
    family_group(f, "MuonStep", hparams_json(&hp));
    int id = f->next_tcid;
    float *v[3] = {uniform(12, 1), uniform(12, 0.01), uniform(12, 0.01)};
    static const char *const names[3] = {"p", "m", "g"};
    json_t *in = json_object();
    for (int k = 0; k < 3; k++) {
        family_add_tensor(f, id, names[k], "F32", 3, 4, v[k], in, names[k]);
        free(v[k]);
    }
    family_test(f, json_pack("{s:s,s:[s],s:[s,s],s:s,s:i,s:i,s:o}", "comment", "momentum = 1",
                             "flags", "InvalidHyperParameter", "specRules", "MUON-HP-1",
                             "MUON-ERR-1", "result", "invalid", "rows", 3, "cols", 4, "inputs",
                             in));
}

int gen_muon(const gen_options *opt, const char *outdir)
{
    static const char *const rules[] = {"MUON-HP-1", "MUON-MOM-1", "MUON-NEST-1", "MUON-NS-1",
                                        "MUON-SCALE-1", "MUON-WD-1", "MUON-UPD-1",
                                        "MUON-STORE-1", "MUON-TOL-1", NULL};
    int rc = 0;
    for (int pr = 0; pr < OC_MUON_PROFILE_COUNT && rc == 0; pr++) {
        char name[64];
        oc_muon_hparams hp;
        oc_muon_profile_defaults((oc_muon_profile)pr, &hp);
        snprintf(name, sizeof name, "muon-%s", oc_muon_profile_name((oc_muon_profile)pr));
        rng.state = opt->seed * 1000043ull + (uint64_t)pr;
        family f;
        if (family_init(&f, name, "muon", oc_muon_profile_name((oc_muon_profile)pr), rules, opt)) {
            rc = -1;
            break;
        }
        family_note(&f, "Random", "BASIC", "random parameter, momentum and gradient",
                    "general agreement; non-square shapes separate the scale conventions", NULL);
        family_note(&f, "FirstStep", "EDGE_CASE", "zero momentum buffer", "the first step", NULL);
        family_note(&f, "InvalidHyperParameter", "INVALID_INPUT", "hyper-parameter outside MUON-HP-1",
                    "must be rejected with the state left unchanged", NULL);
        cases(&f, &hp, opt->prec);
        rc = family_save(&f, outdir);
        family_free(&f);
    }
    return rc;
}
