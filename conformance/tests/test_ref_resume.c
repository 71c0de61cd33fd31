/* Resume certification (spec/checkpoint.md §5): the reference serialisation (ref/resume.c,
 * RESUME-REF-1, RESUME-STATE-1, RESUME-MUT-1) and the harness's break (conformance/src/judge.c,
 * VEC-RESUME-1, VEC-RESUME-2) against implementations that get it wrong in one way each. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cunit_main.h"
#include "../mutants/loss_scale.h"
#include "../mutants/resume.h"

enum { N = 6 }; /* even: the bf16 p leaves no padding in mixed_state */

/* An AdamW-AMSGrad state with bf16 parameters: p (bf16), master, m, v, vmax. */
typedef struct mixed_state {
    uint16_t p[N];
    float master[N], m[N], v[N], vmax[N];
} mixed_state;

static const oc_storage bf16 = {OC_FMT_BF16, OC_FMT_F32};

static oc_adam_hparams amsgrad(void)
{
    return (oc_adam_hparams){.profile = OC_ADAM_TORCH, .lr = 1e-3, .beta1 = 0.9, .beta2 = 0.95,
                             .eps = 1e-8, .schedule_multiplier = 1.0, .decoupled = 1,
                             .amsgrad = 1};
}

static void fill(mixed_state *s)
{
    for (int i = 0; i < N; i++) {
        s->master[i] = 1.0f + 0x1p-12f * (float)(i + 1); /* not on the bf16 grid */
        s->p[i] = oc_narrow(OC_FMT_BF16, s->master[i]);
        s->m[i] = -0.25f * (float)i;
        s->v[i] = 0x1p-10f * (float)(i + 1);
        s->vmax[i] = 2 * s->v[i] + 1.0f; /* above v: the maximum carries information */
    }
}

static void buffers(mixed_state *s, void **b)
{
    b[0] = s->p;
    b[1] = s->master;
    b[2] = s->m;
    b[3] = s->v;
    b[4] = s->vmax;
}

/* Saves `from` (steps done `steps`) and restores it into a poisoned state with mutant mu. */
static oc_status round_trip(const mixed_state *from, int64_t steps, mixed_state *to,
                            int64_t *restored, oc_resume_mutant mu, size_t *len)
{
    oc_adam_hparams hp = amsgrad();
    void *src[5], *dst[5];
    static unsigned char bytes[4096];
    mixed_state copy = *from;
    buffers(&copy, src);
    memset(to, 0xFF, sizeof *to);
    buffers(to, dst);
    CU_ASSERT_EQUAL(oc_resume_mutant_state_io(mu, OC_STATE_SIZE, OC_ALG_ADAM, &hp, &bf16, N,
                                              NULL, NULL, NULL, len), OC_OK);
    CU_ASSERT_FATAL(*len <= sizeof bytes);
    int64_t done = steps;
    CU_ASSERT_EQUAL(oc_resume_mutant_state_io(mu, OC_STATE_SAVE, OC_ALG_ADAM, &hp, &bf16, N, src,
                                              &done, bytes, len), OC_OK);
    CU_ASSERT(memcmp(&copy, from, sizeof copy) == 0); /* a save reads only */
    *restored = -1;
    return oc_resume_mutant_state_io(mu, OC_STATE_RESTORE, OC_ALG_ADAM, &hp, &bf16, N, dst,
                                     restored, bytes, len);
}

/* RESUME-STATE-1, RESUME-REF-1: every buffer and the step count come back bit for bit. */
static void test_round_trip(void)
{
    mixed_state a, b;
    int64_t steps;
    size_t len;
    fill(&a);
    CU_ASSERT_EQUAL(round_trip(&a, 41, &b, &steps, OC_RESUME_CORRECT, &len), OC_OK);
    CU_ASSERT_EQUAL(len, 40 + N * (2 + 4 * 4)); /* RESUME-REF-1: header, then the buffers */
    CU_ASSERT(memcmp(&a, &b, sizeof a) == 0);
    CU_ASSERT_EQUAL(steps, 41);
}

/* RESUME-REF-1 with n = 0: the save is the header alone, the state array is not read (NULL
 * here), and the restore gives the step count back. */
static void test_empty_round_trip(void)
{
    oc_adam_hparams hp = amsgrad();
    unsigned char bytes[256];
    size_t need = 0, len;
    int64_t done = 7, back = -1;
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_SIZE, OC_ALG_ADAM, &hp, &bf16, 0, NULL, NULL, NULL,
                                    &need), OC_OK);
    CU_ASSERT_FATAL(need > 0 && need <= sizeof bytes);
    len = need;
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_SAVE, OC_ALG_ADAM, &hp, &bf16, 0, NULL, &done, bytes,
                                    &len), OC_OK);
    CU_ASSERT_EQUAL(len, need);
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_RESTORE, OC_ALG_ADAM, &hp, &bf16, 0, NULL, &back,
                                    bytes, &len), OC_OK);
    CU_ASSERT_EQUAL(back, 7);
}

/* RESUME-REF-1: a save of something else, or a short one, is refused and nothing written. */
static void test_refusals(void)
{
    oc_adam_hparams hp = amsgrad();
    mixed_state a, b;
    void *src[5], *dst[5];
    unsigned char bytes[4096];
    size_t len = sizeof bytes, small = 16;
    int64_t done = 3;
    fill(&a);
    buffers(&a, src);
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_SAVE, OC_ALG_ADAM, &hp, &bf16, N, src, &done, bytes,
                                    &small), OC_ERR_BAD_SHAPE);
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_SAVE, OC_ALG_ADAM, &hp, &bf16, N, src, &done, bytes,
                                    &len), OC_OK);
    memset(&b, 0xFF, sizeof b);
    buffers(&b, dst);
    mixed_state poison = b;
    size_t shorter = len - 1;
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_RESTORE, OC_ALG_ADAM, &hp, &bf16, N, dst, &done,
                                    bytes, &shorter), OC_ERR_FORMAT);
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_RESTORE, OC_ALG_ADAM, &hp, &bf16, N - 1, dst, &done,
                                    bytes, &len), OC_ERR_FORMAT);
    oc_adam_hparams plain = hp;
    plain.amsgrad = 0; /* one buffer fewer: another length */
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_RESTORE, OC_ALG_ADAM, &plain, &bf16, N, dst, &done,
                                    bytes, &len), OC_ERR_FORMAT);
    bytes[0] ^= 1; /* the magic */
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_RESTORE, OC_ALG_ADAM, &hp, &bf16, N, dst, &done,
                                    bytes, &len), OC_ERR_FORMAT);
    bytes[0] ^= 1;
    int64_t negative = -1;
    memcpy(bytes + 32, &negative, sizeof negative); /* the step count */
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_RESTORE, OC_ALG_ADAM, &hp, &bf16, N, dst, &done,
                                    bytes, &len), OC_ERR_FORMAT);
    CU_ASSERT(memcmp(&b, &poison, sizeof b) == 0);
    CU_ASSERT_EQUAL(done, 3);
}

/* RESUME-REF-1: the API's guards no vector reaches (the harness calls the reference with its
 * own buffers and hands back the reference's own saves; ci/ref-coverage-exceptions.txt): a
 * missing or unknown configuration, missing buffers, a scaler of another size or an invalid
 * one, a negative step count to save, an unknown operation; nothing is written. */
static void test_api_guards(void)
{
    oc_adam_hparams hp = amsgrad();
    oc_loss_scaler ls = {OC_LS_MEGATRON, 0x1p16f, 1.0f, 2.0f, 0.5f, 4, 3}, bad_ls = ls;
    bad_ls.profile = OC_LS_PROFILE_COUNT;
    CU_ASSERT_EQUAL(oc_state_buffer_count(OC_STATE_LOSS_SCALER, NULL, NULL), -1);
    CU_ASSERT_EQUAL(oc_state_buffer_count(OC_STATE_LOSS_SCALER, &bad_ls, NULL), -1);
    CU_ASSERT_EQUAL(oc_state_buffer_count(OC_ALG_ADAM, &hp, NULL), -1);
    CU_ASSERT_EQUAL(oc_state_buffer_count(OC_ALG_COUNT, &hp, &bf16), -1);
    mixed_state a, before;
    void *src[5], *holes[5];
    unsigned char bytes[4096];
    size_t len = sizeof bytes;
    int64_t done = 3, negative = -1;
    fill(&a);
    before = a;
    buffers(&a, src);
    buffers(&a, holes);
    holes[3] = NULL;
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_SIZE, OC_ALG_ADAM, &hp, &bf16, N, NULL, NULL, NULL,
                                    NULL), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_SIZE, OC_ALG_ADAM, NULL, &bf16, N, NULL, NULL, NULL,
                                    &len), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_SIZE, OC_ALG_ADAM, &hp, NULL, N, NULL, NULL, NULL,
                                    &len), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_SIZE, OC_ALG_COUNT, &hp, &bf16, N, NULL, NULL, NULL,
                                    &len), OC_ERR_BAD_PROFILE);
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_SIZE, OC_STATE_LOSS_SCALER, &bad_ls, NULL, 1, NULL,
                                    NULL, NULL, &len), OC_ERR_BAD_PROFILE);
    ls.growth_factor = 0.5f; /* LS-CFG-1: the scale must grow */
    CU_ASSERT_NOT_EQUAL(oc_ref_state_io(OC_STATE_SIZE, OC_STATE_LOSS_SCALER, &ls, NULL, 1, NULL,
                                        NULL, NULL, &len), OC_OK);
    ls.growth_factor = 2.0f;
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_SIZE, OC_STATE_LOSS_SCALER, &ls, NULL, 2, NULL, NULL,
                                    NULL, &len), OC_ERR_BAD_SHAPE);
    CU_ASSERT_EQUAL(len, sizeof bytes); /* nothing answered */
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_SAVE, OC_ALG_ADAM, &hp, &bf16, N, src, &done, NULL,
                                    &len), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_SAVE, OC_ALG_ADAM, &hp, &bf16, N, src, NULL, bytes,
                                    &len), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_SAVE, OC_ALG_ADAM, &hp, &bf16, N, NULL, &done, bytes,
                                    &len), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_SAVE, OC_ALG_ADAM, &hp, &bf16, N, holes, &done,
                                    bytes, &len), OC_ERR_NULL_POINTER);
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_SAVE, OC_ALG_ADAM, &hp, &bf16, N, src, &negative,
                                    bytes, &len), OC_ERR_BAD_STEP);
    CU_ASSERT_EQUAL(oc_ref_state_io((oc_state_op)3, OC_ALG_ADAM, &hp, &bf16, N, src, &done, bytes,
                                    &len), OC_ERR_UNSUPPORTED);
    CU_ASSERT(memcmp(&a, &before, sizeof a) == 0);
    CU_ASSERT_EQUAL(done, 3);
}

/* RESUME-MUT-1: each mistake loses exactly what it names. */
static void test_mutants(void)
{
    mixed_state a, b;
    int64_t steps;
    size_t len;
    fill(&a);
    CU_ASSERT_EQUAL(round_trip(&a, 41, &b, &steps, OC_RESUME_MUT_STEP_DROPPED, &len), OC_OK);
    CU_ASSERT_EQUAL(steps, 0);
    CU_ASSERT(memcmp(&a, &b, sizeof a) == 0);
    CU_ASSERT_EQUAL(round_trip(&a, 41, &b, &steps, OC_RESUME_MUT_MAX_DROPPED, &len), OC_OK);
    CU_ASSERT_EQUAL(steps, 41);
    for (int i = 0; i < N; i++)
        CU_ASSERT(b.vmax[i] == 0.0f && b.v[i] == a.v[i] && b.master[i] == a.master[i]);
    CU_ASSERT_EQUAL(round_trip(&a, 41, &b, &steps, OC_RESUME_MUT_MASTER_FROM_PARAM, &len), OC_OK);
    for (int i = 0; i < N; i++)
        CU_ASSERT(b.master[i] == oc_widen(OC_FMT_BF16, a.p[i]) && b.master[i] != a.master[i]);
}

static char vectors_dir[4096];
static const char *vectors(void)
{
    snprintf(vectors_dir, sizeof vectors_dir, "%s/vectors", OPTCERT_SOURCE_DIR);
    return vectors_dir;
}

/* RESUME-MUT-1 through the harness: the reference passes every resume case, each mistake
 * fails at least two (optcert mutants shows them per family). */
static void test_mutants_killed(void)
{
    double worst;
    size_t passed;
    CU_ASSERT_EQUAL(test_failures(oc_ref(), vectors(), "adam", OC_CLASS_FP32, &worst, &passed), 0);
    int first = oc_algo_adam.nmutants - (OC_RESUME_FIRST_SCALER - 1);
    for (int mu = first; mu < oc_algo_adam.nmutants; mu++) {
        size_t fails = test_failures(oc_ref_mutant(&oc_algo_adam, mu), vectors(), "adam",
                                     OC_CLASS_FP32, &worst, &passed);
        CU_ASSERT(fails >= 2);
    }
}

/* RESUME-LS-1: a loss scaler's save holds what its profile holds; the restore starts from a
 * fresh scaler (LS-INIT-1) and refuses another profile's save. */
static void test_scaler_round_trip(void)
{
    oc_loss_scaler c = {OC_LS_MEGATRON, 0x1p16f, 1.0f, 2.0f, 0.5f, 4, 3};
    oc_loss_scale_state a = {0x1p20f, 2, -1}, b;
    void *src[1] = {&a}, *dst[1] = {&b};
    unsigned char bytes[128];
    int64_t done = 9;
    size_t len = sizeof bytes;
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_SAVE, OC_STATE_LOSS_SCALER, &c, NULL, 1, src, &done,
                                    bytes, &len), OC_OK);
    CU_ASSERT_EQUAL(len, 40 + 4 + 2 * 8);
    memset(&b, 0xFF, sizeof b);
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_RESTORE, OC_STATE_LOSS_SCALER, &c, NULL, 1, dst,
                                    &done, bytes, &len), OC_OK);
    CU_ASSERT(b.scale == a.scale && b.growth_tracker == 2 && b.hysteresis_tracker == -1);
    CU_ASSERT_EQUAL(oc_resume_mutant_state_io(OC_RESUME_MUT_HYSTERESIS_DROPPED, OC_STATE_RESTORE,
                                              OC_STATE_LOSS_SCALER, &c, NULL, 1, dst, &done,
                                              bytes, &len), OC_OK);
    CU_ASSERT(b.growth_tracker == 2 && b.hysteresis_tracker == 3);
    CU_ASSERT_EQUAL(oc_resume_mutant_state_io(OC_RESUME_MUT_GROWTH_DROPPED, OC_STATE_RESTORE,
                                              OC_STATE_LOSS_SCALER, &c, NULL, 1, dst, &done,
                                              bytes, &len), OC_OK);
    CU_ASSERT(b.growth_tracker == 0 && b.hysteresis_tracker == -1);
    oc_loss_scaler t = c;
    t.profile = OC_LS_TORCH; /* another profile's save: refused, nothing written */
    memset(&b, 0xFF, sizeof b);
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_RESTORE, OC_STATE_LOSS_SCALER, &t, NULL, 1, dst,
                                    &done, bytes, &len), OC_ERR_FORMAT);
    len = sizeof bytes;
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_SAVE, OC_STATE_LOSS_SCALER, &t, NULL, 1, src, &done,
                                    bytes, &len), OC_OK);
    CU_ASSERT_EQUAL(len, 40 + 4 + 8); /* torch: no hysteresis tracker */
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_RESTORE, OC_STATE_LOSS_SCALER, &t, NULL, 1, dst,
                                    &done, bytes, &len), OC_OK);
    CU_ASSERT(b.scale == a.scale && b.growth_tracker == 2 && b.hysteresis_tracker == 3);
    t.growth_factor = 1.0f; /* LS-CFG-1: no fresh scaler to restore into */
    CU_ASSERT_EQUAL(oc_ref_state_io(OC_STATE_RESTORE, OC_STATE_LOSS_SCALER, &t, NULL, 1, dst,
                                    &done, bytes, &len), OC_ERR_BAD_HPARAM);
}

/* RESUME-MUT-1: the reference passes every resume-loss-scale case, each scaler restore mistake
 * fails at least two. */
static void test_scaler_mutants_killed(void)
{
    double worst;
    size_t passed;
    CU_ASSERT_EQUAL(test_failures(oc_ref(), vectors(), "loss-scale", OC_CLASS_FP32, &worst,
                                  &passed), 0);
    for (int mu = OC_LS_MUTANT_COUNT; mu < oc_algo_loss_scale.nmutants; mu++)
        CU_ASSERT(test_failures(oc_ref_mutant(&oc_algo_loss_scale, mu), vectors(), "loss-scale",
                                OC_CLASS_FP32, &worst, &passed) >= 2);
}

/* VEC-FMT-20: resumeAt is read into the case; outside [0, steps] the file is refused. */
static void test_resume_at_field(void)
{
    char path[sizeof vectors_dir + 64], dir[] = "/tmp/optcert-resume-XXXXXX", file[128],
                                          tensors[128], target[sizeof path];
    oc_family fam;
    oc_diag d;
    snprintf(path, sizeof path, "%s/resume-adam-torch/resume-adam-torch.json", vectors());
    CU_ASSERT_EQUAL_FATAL(oc_family_load(path, &fam, &d), OC_OK);
    json_t *doc = json_load_file(path, 0, NULL);
    json_t *test = json_array_get(json_object_get(json_array_get(json_object_get(doc,
                                  "testGroups"), 0), "tests"), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(test);
    CU_ASSERT_EQUAL(fam.cases[0].resume_at, json_integer_value(json_object_get(test, "resumeAt")));
    oc_family_free(&fam);
    json_object_set_new(test, "resumeAt",
                        json_integer(json_integer_value(json_object_get(test, "steps")) + 1));
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(file, sizeof file, "%s/resume-adam-torch.json", dir);
    snprintf(tensors, sizeof tensors, "%s/resume-adam-torch.safetensors", dir);
    snprintf(target, sizeof target, "%s/resume-adam-torch/resume-adam-torch.safetensors",
             vectors());
    CU_ASSERT_EQUAL(json_dump_file(doc, file, 0), 0);
    CU_ASSERT_EQUAL(symlink(target, tensors), 0);
    CU_ASSERT_EQUAL(oc_family_load(file, &fam, &d), OC_ERR_FORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "resumeAt"));
    unlink(file);
    unlink(tensors);
    rmdir(dir);
    json_decref(doc);
}

/* ---- implementations whose state entry misbehaves in one way (VEC-RESUME-1, -2) ---- */
typedef enum misbehaviour {
    SAVE_OVERRUN,      /* writes one byte past the size it asked for */
    SAVE_LIES,         /* reports more bytes written than it was given */
    RESTORE_WRITES_SAVE, /* writes into the save it reads */
    RESTORE_SKIPS_M,   /* leaves m as the harness's poison */
    RESTORE_ONE_ULP,   /* restores p[0] one ulp off: within tolerance, not bit-identical */
    SIZE_HUGE          /* asks for more than 2^30 bytes */
} misbehaviour;

static misbehaviour how;

/* A restore that writes every buffer but m (state[1]): m keeps what the harness left there. */
static oc_status restore_without_m(oc_algorithm alg, const void *hp, const oc_storage *s,
                                   size_t n, void *const *state, int64_t *steps_done,
                                   void *bytes, size_t *len)
{
    int nbuf = oc_state_buffer_count(alg, hp, s);
    void *tmp[OC_MAX_STATE] = {0};
    for (int k = 0; k < nbuf; k++)
        tmp[k] = malloc(n * sizeof(float) + 1);
    oc_status st = oc_ref_state_io(OC_STATE_RESTORE, alg, hp, s, n, tmp, steps_done, bytes, len);
    for (int k = 0; k < nbuf; k++) {
        if (k != 1)
            memcpy(state[k], tmp[k], n * sizeof(float));
        free(tmp[k]);
    }
    return st;
}

static oc_status bad_state_io(void *ctx, oc_state_op op, oc_algorithm alg, const void *hp,
                              const oc_storage *s, size_t n, void *const *state,
                              int64_t *steps_done, void *bytes, size_t *len)
{
    (void)ctx;
    size_t cap = len ? *len : 0;
    if (op == OC_STATE_RESTORE && how == RESTORE_SKIPS_M) /* the fp32 case: p, m, v (, vmax) */
        return restore_without_m(alg, hp, s, n, state, steps_done, bytes, len);
    oc_status st = oc_ref_state_io(op, alg, hp, s, n, state, steps_done, bytes, len);
    if (op == OC_STATE_SIZE && how == SIZE_HUGE)
        *len = ((size_t)1 << 30) + 1;
    if (op == OC_STATE_SAVE && how == SAVE_OVERRUN)
        ((unsigned char *)bytes)[cap] = 0;
    if (op == OC_STATE_SAVE && how == SAVE_LIES)
        *len = cap + 8;
    if (op == OC_STATE_RESTORE && how == RESTORE_WRITES_SAVE)
        ((unsigned char *)bytes)[0] ^= 1;
    if (op == OC_STATE_RESTORE && how == RESTORE_ONE_ULP && n)
        ((float *)state[0])[0] = nextafterf(((float *)state[0])[0], INFINITY);
    return st;
}

/* Runs the first case of resume-adam-torch with a break strictly inside the trajectory
 * through the reference with bad_state_io: its fault text (VEC-PLUG-*, VEC-RESUME-*) and, if r
 * is given, its verdict. */
static void run_resume_case(misbehaviour m, char *fault, size_t cap, oc_case_result *r)
{
    char path[sizeof vectors_dir + 64];
    oc_family fam;
    oc_diag d;
    snprintf(path, sizeof path, "%s/resume-adam-torch/resume-adam-torch.json", vectors());
    CU_ASSERT_EQUAL_FATAL(oc_family_load(path, &fam, &d), OC_OK);
    const oc_case *c = NULL;
    for (size_t k = 0; k < fam.ncases && !c; k++)
        if (fam.cases[k].resume_at > 0 && (size_t)fam.cases[k].resume_at < fam.cases[k].steps)
            c = &fam.cases[k];
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    test_table t;
    const oc_impl_v3 *impl = test_ref_replacing(&t, "bad-state-io", "resume-",
                                                (oc_entry_point)bad_state_io);
    how = m;
    oc_outputs o;
    oc_status st;
    int dirty;
    oc_run_case(impl, c, &o, &st, &dirty);
    snprintf(fault, cap, "%s%s", o.fault, o.unbroken);
    if (r)
        oc_certify_case(impl, c, OC_CLASS_FP32, r);
    oc_outputs_free(&o);
    oc_family_free(&fam);
}

static void expect_fault(misbehaviour m, const char *text)
{
    char fault[256];
    run_resume_case(m, fault, sizeof fault, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(fault, text));
}

static void test_save_faults(void)
{
    expect_fault(SAVE_OVERRUN, "wrote past the end of its output save");
    expect_fault(SAVE_LIES, "save reported");
    expect_fault(SIZE_HUGE, "asked for a save of");
}

static void test_restore_faults(void)
{
    expect_fault(RESTORE_WRITES_SAVE, "wrote to its input save");
}

/* VEC-RESUME-1: a restore that does not write m finds the harness's poison there, not the state
 * it saved, and fails the tolerance judgement. */
static void test_restore_poison(void)
{
    char fault[256];
    oc_case_result r = {0};
    run_resume_case(RESTORE_SKIPS_M, fault, sizeof fault, &r);
    CU_ASSERT_PTR_NULL(strstr(fault, "wrote")); /* no ABI fault: the values fail */
    CU_ASSERT_EQUAL(r.verdict, OC_FAIL);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.detail, "m[0]: got -nan"));
}

/* VEC-RESUME-2: one ulp off after the restore is a FAIL even where the bound would pass it. */
static void test_bit_identity(void)
{
    expect_fault(RESTORE_ONE_ULP, "resumed run differs from its own unbroken run");
}

void register_suites(void)
{
    ADD_SUITE("resume-reference",
              {"round trip (RESUME-STATE-1, RESUME-REF-1)", test_round_trip},
              {"refused saves (RESUME-REF-1)", test_refusals},
              {"a state without elements (RESUME-REF-1)", test_empty_round_trip},
              {"the API's guards (RESUME-REF-1)", test_api_guards},
              {"restore mistakes (RESUME-MUT-1)", test_mutants},
              {"mistakes killed by the resume families (RESUME-MUT-1)", test_mutants_killed},
              {"loss scaler round trip (RESUME-LS-1)", test_scaler_round_trip},
              {"scaler mistakes killed (RESUME-MUT-1)", test_scaler_mutants_killed});
    ADD_SUITE("resume-harness",
              {"save faults (VEC-RESUME-1)", test_save_faults},
              {"restore faults (VEC-RESUME-1)", test_restore_faults},
              {"poisoned fresh buffers (VEC-RESUME-1)", test_restore_poison},
              {"bit identity to the unbroken run (VEC-RESUME-2)", test_bit_identity},
              {"resumeAt read and range-checked (VEC-FMT-20)", test_resume_at_field});
}
