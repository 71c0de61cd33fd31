/* Newton–Schulz orthogonalisation on CBLAS (spec/fast.md FAST-NS-1 .. FAST-NS-3, spec/muon.md
 * NS-*): the contract of oc_ref_newton_schulz (same checks, same statuses, nothing written on
 * error) in binary32 with BLAS products, or with bfloat16 operands (FAST-NS-2).
 *
 * Orientation without copies (NS-SHAPE-1): X = G for rows <= cols, X = G^T otherwise, k x n with
 * k = min(rows, cols). The row-major rows x cols buffer of G *is* X, read row-major (ld n) when
 * G is wide and column-major (ld k) when it is tall, so one code path with the layout as a
 * parameter serves both, and the result's buffer is the output's row-major image. The Gram
 * matrices are symmetric: every call stores the triangle that is the row-major upper one
 * (CblasUpper in row-major, CblasLower in column-major). */
#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "optcert/buffers.h"
#include "optcert/comm.h"
#include "optcert/fast.h"
#include "../common/elementwise.h"
#include "../common/fast_families.h"
#include "internal.h"

/* The passes in one copy per instruction set, chosen at load (GCC's ifunc): the same operations
 * in each (integer rounding, no contraction: -ffp-contract=off), so the same bits. The AVX-512
 * copy is x86-64-v4 (a set of features): "arch=skylake-avx512" tests the CPU model, and a
 * Sapphire Rapids machine ran the AVX2 copy. Measured (perf shows the v4 copies running):
 * 1024 x 1024 bf16 Newton-Schulz, best of 10, 4 alternating pairs: 32.1-33.1 ms with the AVX2
 * copies, 30.6-31.1 ms with these (FAST-NS-3). */
#define NS_PASS __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))

/* NS-DOM-1: an entry beyond this magnitude (or NaN) ends the iteration. */
#define DOMAIN_LIMIT 0x1p64f

typedef struct ns_shape {
    size_t k, n;             /* X is k x n, k <= n */
    CBLAS_LAYOUT layout;     /* how X is read from the row-major buffer of G */
    CBLAS_UPLO uplo;         /* the stored triangle of A and B: row-major upper in memory */
    blasint ldx;
} ns_shape;

/* X read from the row-major rows x cols buffer: its transpose (column-major, k = cols) when
 * `transposed`, else itself (row-major, k = rows). */
static ns_shape shape_with(int transposed, size_t rows, size_t cols)
{
    ns_shape s = {transposed ? cols : rows, transposed ? rows : cols,
                  transposed ? CblasColMajor : CblasRowMajor, transposed ? CblasLower : CblasUpper, 0};
    s.ldx = (blasint)(transposed ? s.k : s.n);
    return s;
}

static ns_shape shape_of(size_t rows, size_t cols) { return shape_with(rows > cols, rows, cols); } /* NS-SHAPE-1 */

/* FAST-NS-3: rows of the Gram matrices 16 floats longer than k, so that for a power-of-two k
 * the rows of a block do not all fall in the same cache sets (the completion's 16 x 16
 * blocks, each row a cache line, thrashed an 8- or 12-way L1 at a 4096-byte stride). */
size_t oc_fast_ns_gram_ld(size_t k) { return k + 16; }

size_t oc_fast_ns_work_len(size_t rows, size_t cols)
{
    ns_shape s = shape_of(rows, cols);
    return 2 * s.k * s.n + 2 * s.k * oc_fast_ns_gram_ld(s.k); /* X, its successor, A, B */
}

/* The binary32 value of bfloat16 bits h. */
static inline float bf16_value(uint16_t h) { return (union { uint32_t u; float f; }){(uint32_t)h << 16}.f; }

/* FAST-NS-2: x rounded to the nearest bfloat16 (ties to even), kept in binary32. */
static inline float bf16_round(float x) { return bf16_value(oc_fast_to_bf16(x)); }

/* FAST-NS-3: a pass between two products, cut into as many parts as OpenBLAS has threads and
 * run by an OpenMP team. OpenBLAS is its OpenMP build (fast/CMakeLists.txt), whose threads are
 * that team: the pass runs on the threads the product has just run on, and no other thread
 * spins beside it. Every pass works element by element, so the bits do not depend on the split.
 * fn does part `part` of `parts` and ORs its NS-DOM-1 flag into bad. */
typedef void (*ns_pass_fn)(const void *ctx, int part, int parts, int *bad);

/* Elements (or Gram entries) per part at least: waking a thread, some microseconds, is then a
 * small part of its work. */
#define NS_MIN_PART ((size_t)1 << 16)

/* Runs the pass over `work` elements; returns the OR of the parts' flags. */
static int run_pass(ns_pass_fn fn, const void *ctx, size_t work)
{
    size_t most = work / NS_MIN_PART;
    int parts = openblas_get_num_threads(), bad = 0;
    parts = (size_t)parts > most ? (most ? (int)most : 1) : parts < 1 ? 1 : parts;
#pragma omp parallel num_threads(parts) reduction(| : bad)
    {
        int part_bad = 0;
        fn(ctx, omp_get_thread_num(), omp_get_num_threads(), &part_bad);
        bad |= part_bad;
    }
    return bad;
}

/* Part `part` of `parts` of [0, len): [*lo, *hi), cut at multiples of 16 floats (a cache line). */
static void part_range(size_t len, int part, int parts, size_t *lo, size_t *hi)
{
    size_t step = (len / (size_t)parts) & ~(size_t)15;
    *lo = step * (size_t)part;
    *hi = part == parts - 1 ? len : *lo + step;
}

typedef struct ns_vec {
    const float *src;
    float *dst;
    size_t len;
    double d; /* normalise: the divisor */
    int bf16;
    uint16_t *dst16; /* FAST-NS-6: the bfloat16 bits of what is written to dst, or NULL */
    int keep;        /* domain_part, bf16: the rounded iterate written back to dst */
} ns_vec;

/* NS-NORM-1: X_0 = G / d, each entry the binary64 quotient rounded once (d can be as small as
 * 2^-149, whose reciprocal is not a binary32). |G / d| <= 1 since d >= ||G||_F: no domain check. */
NS_PASS static void normalise_part(const void *ctx, int part, int parts, int *bad)
{
    const ns_vec *v = ctx;
    size_t lo, hi;
    (void)bad;
    part_range(v->len, part, parts, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        float x = (float)(v->src[i] / v->d);
        if (v->dst16)
            v->dst16[i] = oc_fast_to_bf16(x);
        else
            v->dst[i] = v->bf16 ? bf16_round(x) : x;
    }
}

/* NS-DOM-1: 1 if x is NaN or beyond 2^64. */
static inline int out_of_domain(float x) { return !(x >= -DOMAIN_LIMIT && x <= DOMAIN_LIMIT); }

/* NS-DOM-1 on the new iterate dst (bad if an entry is NaN or beyond 2^64); bf16: rounds it
 * first (FAST-NS-2), writing its bits to dst16 if given and the rounded value back to dst if
 * keep. One loop per case, with no branch inside, so that each vectorises. */
NS_PASS static void domain_part(const void *ctx, int part, int parts, int *bad)
{
    const ns_vec *v = ctx;
    size_t lo, hi;
    part_range(v->len, part, parts, &lo, &hi);
    float *restrict x = v->dst;
    uint16_t *restrict x16 = v->dst16;
    int out = 0;
    if (!v->bf16) {
        for (size_t i = lo; i < hi; i++)
            out |= out_of_domain(x[i]);
    } else if (x16 && v->keep) {
        for (size_t i = lo; i < hi; i++) {
            uint16_t h = oc_fast_to_bf16(x[i]);
            x16[i] = h;
            x[i] = bf16_value(h);
            out |= out_of_domain(x[i]);
        }
    } else if (x16) {
        for (size_t i = lo; i < hi; i++) {
            uint16_t h = oc_fast_to_bf16(x[i]);
            x16[i] = h;
            out |= out_of_domain(bf16_value(h));
        }
    } else {
        for (size_t i = lo; i < hi; i++) {
            x[i] = bf16_round(x[i]);
            out |= out_of_domain(x[i]);
        }
    }
    *bad |= out;
}

/* NS-STORE-1: the final iterate to out. */
static void store_part(const void *ctx, int part, int parts, int *bad)
{
    const ns_vec *v = ctx;
    size_t lo, hi;
    (void)bad;
    part_range(v->len, part, parts, &lo, &hi);
    memcpy(v->dst + lo, v->src + lo, (hi - lo) * sizeof(float));
}

typedef struct ns_gram {
    float *a, *b;
    size_t k, ld; /* k x k, rows ld apart (oc_fast_ns_gram_ld) */
    float ca; /* finish_part: the coefficient a */
    int bf16;
} ns_gram;

/* A (stored triangle) to a full symmetric matrix, the operand of A A^T; B = A on the stored
 * triangle, the C operand of B = c A A^T + b B. bf16: A rounded first (FAST-NS-2). Part p does
 * the block rows of BLK rows p, p + parts, ... (their lengths fall by one block a row:
 * interleaving balances the parts). In a block row, the stored triangle's row segments are
 * copied to B whole; then each BLK x BLK block is transposed to its mirror through a local
 * block, read by rows and written by rows (whole cache lines); the blocks off the diagonal,
 * full, by a loop of constant bounds the compiler unrolls and vectorises. */
#define BLK 16
static void mirror_block(float *a, size_t ld, size_t r0, size_t c0)
{
    float t[BLK][BLK];
    for (size_t i = 0; i < BLK; i++)
        for (size_t j = 0; j < BLK; j++)
            t[j][i] = a[(r0 + i) * ld + c0 + j];
    for (size_t j = 0; j < BLK; j++)
        memcpy(a + (c0 + j) * ld + r0, t[j], sizeof t[j]);
}

static void complete_part(const void *ctx, int part, int parts, int *bad)
{
    const ns_gram *m = ctx;
    float *a = m->a, *b = m->b;
    size_t k = m->k, ld = m->ld;
    (void)bad;
    for (size_t r0 = (size_t)part * BLK; r0 < k; r0 += (size_t)parts * BLK) {
        size_t rn = k - r0 < BLK ? k - r0 : BLK;
        for (size_t r = r0; r < r0 + rn; r++) {
            for (size_t c = r; m->bf16 && c < k; c++)
                a[r * ld + c] = bf16_round(a[r * ld + c]);
            memcpy(b + r * ld + r, a + r * ld + r, (k - r) * sizeof(float));
        }
        for (size_t c0 = r0; c0 < k; c0 += BLK) {
            size_t cn = k - c0 < BLK ? k - c0 : BLK;
            if (c0 > r0 && rn == BLK && cn == BLK) {
                mirror_block(a, ld, r0, c0);
                continue;
            }
            for (size_t i = 0; i < rn; i++) /* a diagonal or edge block: below the diagonal */
                for (size_t j = r0 + i > c0 ? r0 + i - c0 : 0; j < cn; j++)
                    a[(c0 + j) * ld + r0 + i] = a[(r0 + i) * ld + c0 + j];
        }
    }
}

/* B' = a I + B on the stored triangle; bf16: every entry rounded (FAST-NS-2). Part p does the
 * rows p, p + parts, ... */
static void finish_part(const void *ctx, int part, int parts, int *bad)
{
    const ns_gram *m = ctx;
    float *b = m->b;
    size_t k = m->k, ld = m->ld;
    (void)bad;
    for (size_t r = (size_t)part; r < k; r += (size_t)parts) {
        b[r * ld + r] += m->ca;
        for (size_t c = r; m->bf16 && c < k; c++)
            b[r * ld + c] = bf16_round(b[r * ld + c]);
    }
}

/* FAST-NS-5: the screen of NS-DOM-1 on an iterate x from the diagonal of A = x x^T. An entry
 * of x that is NaN or beyond 2^64 makes its row's A_ii = sum_j x_ij^2 NaN or +inf (a square
 * beyond 2^128 rounds to +inf, every term is >= 0); so a finite diagonal proves x within the
 * domain, and only a non-finite one needs the pass over x. */
static int gram_diagonal_finite(const float *a, size_t k, size_t ld)
{
    int bad = 0;
    for (size_t i = 0; i < k; i++)
        bad |= (a[i * ld + i] - a[i * ld + i]) != 0.0f;
    return !bad;
}

/* One iteration of NS-ITER-1, y = (a I + b A + c A A) x with A = x x^T, in the factored form
 * whose products are all symmetric: A by SYRK (k^2 n), A A = A A^T by SYRK (k^3), B' x by SYMM
 * (2 k^2 n). With a group (FAST-NS-4) x is this rank's columns of X and A the sum over the
 * ranks of their x x^T (all-reduced; the unstored triangle and the rows' padding are summed
 * too and then ignored).
 * check_x: x is the previous iterate, still to be checked against NS-DOM-1 (FAST-NS-5); a
 * group agrees on the flag (one integer MAX, on every rank whatever its screen said). */
static oc_status iterate(const ns_shape *s, const double abc[3], const float *x, float *y,
                         float *a, float *b, int bf16, int check_x, const oc_comm *group)
{
    size_t ldg = oc_fast_ns_gram_ld(s->k);
    blasint k = (blasint)s->k, n = (blasint)s->n, ld = (blasint)ldg;
    cblas_ssyrk(s->layout, s->uplo, CblasNoTrans, k, n, 1.0f, x, s->ldx, 0.0f, a, ld);
    if (group && group->size > 1 && group->allreduce_sum(group->ctx, a, s->k * ldg) != OC_OK)
        return OC_ERR_IO;
    if (check_x) {
        ns_vec check = {NULL, (float *)x, s->k * s->n, 0.0, 0, NULL, 0}; /* read only */
        int bad = !gram_diagonal_finite(a, s->k, ldg) && run_pass(domain_part, &check, check.len);
        if (group && group->size > 1 && group->allreduce_max_int(group->ctx, &bad) != OC_OK)
            return OC_ERR_IO;
        if (bad)
            return OC_ERR_NONFINITE;
    }
    ns_gram m = {a, b, s->k, ldg, (float)abc[0], bf16};
    run_pass(complete_part, &m, s->k * s->k / 2);
    cblas_ssyrk(s->layout, s->uplo, CblasNoTrans, k, k, (float)abc[2], a, ld, (float)abc[1], b, ld);
    run_pass(finish_part, &m, bf16 ? s->k * s->k / 2 : s->k);
    cblas_ssymm(s->layout, CblasLeft, s->uplo, k, n, 1.0f, b, ld, x, s->ldx, 0.0f, y, s->ldx);
    return OC_OK;
}

/* FAST-NS-6: the Gram matrices of an iteration on native bf16 products. */
typedef struct ns_gram16 {
    float *prod;            /* A = X X^T, then A A, in binary32 */
    uint16_t *a16, *b16;    /* A and B' rounded to bfloat16 */
    size_t k;
    float abc[3];
} ns_gram16;

/* A rounded to bfloat16 (FAST-NS-2), all k^2 entries. */
NS_PASS static void round_gram_part(const void *ctx, int part, int parts, int *bad)
{
    const ns_gram16 *m = ctx;
    size_t lo, hi;
    (void)bad;
    part_range(m->k * m->k, part, parts, &lo, &hi);
    for (size_t i = lo; i < hi; i++)
        m->a16[i] = oc_fast_to_bf16(m->prod[i]);
}

/* B' = a I + b A + c A A in binary32 (the terms of FAST-NS-1's SYRK with beta = b, then the
 * diagonal), rounded to bfloat16 (FAST-NS-2); part p does the rows p, p + parts, ... */
NS_PASS static void finish16_part(const void *ctx, int part, int parts, int *bad)
{
    const ns_gram16 *m = ctx;
    size_t k = m->k;
    (void)bad;
    float a = m->abc[0], b = m->abc[1], c = m->abc[2];
    for (size_t r = (size_t)part; r < k; r += (size_t)parts) {
        const float *p = m->prod + r * k;
        const uint16_t *ar = m->a16 + r * k;
        uint16_t *br = m->b16 + r * k;
        for (size_t j = 0; j < k; j++)
            br[j] = oc_fast_to_bf16(c * p[j] + b * bf16_value(ar[j]));
        br[r] = oc_fast_to_bf16(c * p[r] + b * bf16_value(ar[r]) + a); /* the diagonal */
    }
}

/* FAST-NS-6: one iteration of NS-ITER-1 in bf16-operand mode on oneDNN's bf16 products:
 * A = X X^T, A A and B' X as full products (A comes out whole: no completion), x16 the iterate's
 * bits, y its successor in binary32 (the domain pass rounds it and writes its bits to x16). A
 * group all-reduces A as FAST-NS-4. */
static oc_status iterate_native_bf16(const ns_shape *s, const double abc[3], const uint16_t *x16,
                                     float *y, ns_gram16 *m, const oc_comm *group)
{
    size_t k = s->k, n = s->n;
    size_t sx[2] = {s->layout == CblasRowMajor ? n : 1, s->layout == CblasRowMajor ? 1 : k};
    size_t sxt[2] = {sx[1], sx[0]}, sk[2] = {k, 1};
    for (int i = 0; i < 3; i++)
        m->abc[i] = (float)abc[i];
    if (oc_fast_bf16_matmul(k, k, n, x16, sx, x16, sxt, m->prod, sk) != OC_OK)
        return OC_ERR_INTERNAL;
    if (group && group->size > 1 && group->allreduce_sum(group->ctx, m->prod, k * k) != OC_OK)
        return OC_ERR_IO;
    run_pass(round_gram_part, m, k * k);
    if (oc_fast_bf16_matmul(k, k, k, m->a16, sk, m->a16, sk, m->prod, sk) != OC_OK)
        return OC_ERR_INTERNAL;
    run_pass(finish16_part, m, k * k);
    /* Y = B' X; column-major (tall G) as Y^T = X^T B' (B' symmetric), row-major n x k: oneDNN's
     * native kernels write a row-major result only */
    oc_status st = s->layout == CblasRowMajor
                       ? oc_fast_bf16_matmul(k, n, k, m->b16, sk, x16, sx, y, sx)
                       : oc_fast_bf16_matmul(n, k, k, x16, sk, m->b16, sk, y, sk);
    return st != OC_OK ? OC_ERR_INTERNAL : OC_OK;
}

/* NS-NORM-1 .. NS-STORE-1 on a checked input: X_0 = G / d with d from the sum of squares of the
 * whole matrix (sumsq), the iterations, the result written to out (len floats, this rank's
 * part) only on success. work: 2 len + 2 k ld floats (ld: oc_fast_ns_gram_ld). A group's ranks agree on every domain
 * check (FAST-NS-4), so they stop together. */
static oc_status iterate_all(const oc_ns_hparams *hp, const ns_shape *s, int bf16, double sumsq,
                             const float *g, float *out, float *work, const oc_comm *group)
{
    size_t len = s->k * s->n, kk = s->k * s->k;
    float *x = work, *y = x + len, *a = y + len, *b = a + s->k * oc_fast_ns_gram_ld(s->k);
    /* FAST-NS-6 (bf16 products on oneDNN): the same workspace as the product (kk floats), y,
     * then the bits of the iterate, A and B' (1.5 len + 2 kk floats in all) */
    int native = bf16 && oc_fast_bf16_matmul_native() != NULL;
    uint16_t *x16 = (uint16_t *)(work + kk + len);
    ns_gram16 m16 = {work, x16 + len, x16 + len + kk, s->k, {0}};
    if (native)
        y = work + kk;
    double sn = hp->norm_scale * sqrt(sumsq); /* NS-NORM-1 */
    ns_vec norm = {g, x, len, hp->eps_mode == OC_NS_EPS_ADD ? sn + hp->eps : fmax(sn, hp->eps),
                   bf16, native ? x16 : NULL, 0};
    run_pass(normalise_part, &norm, len);
    oc_status st = OC_OK;
    for (int it = 0; it < hp->steps && st == OC_OK; it++) {
        int tuple = oc_ns_tuple_index(hp, it); /* NS-SCHED-1 */
        /* NS-DOM-1 on each iterate: in bf16 mode by the pass that rounds it (FAST-NS-2); in
         * fp32 mode by the next iteration's screen, the last one by the pass (FAST-NS-5) */
        st = native ? iterate_native_bf16(s, hp->coef[tuple], x16, y, &m16, group)
                    : iterate(s, hp->coef[tuple], x, y, a, b, bf16, it > 0 && !bf16, group);
        if (st == OC_OK && (bf16 || it == hp->steps - 1)) {
            /* native: the iterate's bits for the next products, the binary32 values kept for
             * the output only */
            ns_vec check = {NULL, y, len, 0.0, bf16, native ? x16 : NULL,
                            !native || it == hp->steps - 1};
            int bad = run_pass(domain_part, &check, len);
            if (group && group->size > 1 && group->allreduce_max_int(group->ctx, &bad) != OC_OK)
                st = OC_ERR_IO;
            st = st != OC_OK ? st : bad ? OC_ERR_NONFINITE : OC_OK;
        }
        if (!native) { /* the successor becomes the iterate (native: its bits are in x16) */
            float *next = y;
            y = x;
            x = next;
        }
    }
    ns_vec store = {native ? y : x, out, len, 0.0, 0, NULL, 0};
    if (st == OC_OK)
        run_pass(store_part, &store, len); /* NS-STORE-1: the only write to out */
    return st;
}

/* NS-ERR-1's buffer checks of g and out (len floats each) and of a caller's workspace. */
static oc_status check_buffers(const float *g, float *out, size_t len, const float *work,
                               size_t need)
{
    oc_status st;
    if ((st = oc_buffer_check(g, len, sizeof(float))) != OC_OK ||
        (st = oc_buffer_check(out, len, sizeof(float))) != OC_OK ||
        (st = oc_buffer_disjoint(g, len * sizeof(float), out, len * sizeof(float))) != OC_OK)
        return st; /* NS-ERR-1 */
    if (work && ((st = oc_buffer_check(work, need, sizeof(float))) != OC_OK ||
                 (st = oc_buffer_disjoint(work, need * sizeof(float), g, len * sizeof(float))) ||
                 (st = oc_buffer_disjoint(work, need * sizeof(float), out, len * sizeof(float)))))
        return st; /* FAST-NS-3 */
    return OC_OK;
}

/* ||G||_F^2 of this rank's part and NS-IN-1's finiteness in one pass (FAST-NORM-1: exact
 * squares, binary64). */
static oc_status local_sumsq(const float *g, size_t len, double *sumsq)
{
    oc_fast_tensor t = {len, NULL, g, {NULL, NULL, NULL}, NULL};
    int nonfinite;
    oc_status st = oc_fast_grad_sumsq(1, &t, 1.0f, NULL, sumsq, &nonfinite);
    return st != OC_OK ? st : nonfinite ? OC_ERR_NONFINITE : OC_OK;
}

oc_status oc_fast_newton_schulz(const oc_ns_hparams *hp, oc_fast_ns_precision prec, size_t rows,
                                size_t cols, const float *g, float *out, float *work,
                                size_t work_len)
{
    if (hp == NULL)
        return OC_ERR_NULL_POINTER;
    oc_status st = oc_ns_check(hp, rows, cols); /* NS-HP-1, NS-IN-1 */
    if (st != OC_OK)
        return st;
    if (prec != OC_FAST_NS_FP32 && prec != OC_FAST_NS_BF16)
        return OC_ERR_BAD_HPARAM;
    size_t len = rows * cols, need = oc_fast_ns_work_len(rows, cols);
    if ((st = check_buffers(g, out, len, work, need)) != OC_OK)
        return st;
    if (work && work_len < need)
        return OC_ERR_BAD_SHAPE; /* NS-ERR-1: the workspace is part of the call's shape */
    double sumsq;
    if ((st = local_sumsq(g, len, &sumsq)) != OC_OK)
        return st;
    float *own = work ? NULL : malloc(need * sizeof(float));
    if (!work && !own)
        return OC_ERR_INTERNAL; /* out of memory; nothing was written */
    ns_shape s = shape_of(rows, cols);
    st = iterate_all(hp, &s, prec == OC_FAST_NS_BF16, sumsq, g, out, work ? work : own, NULL);
    free(own);
    return st;
}

/* FAST-NS-4: the whole matrix's sum of squares, every rank's binary64 part added in rank order
 * from an all-gather, so that every rank holds the same bits. */
static oc_status group_sumsq(const oc_comm *group, double *sumsq)
{
    double *part = malloc((size_t)group->size * sizeof *part), total = 0.0;
    if (!part)
        return OC_ERR_INTERNAL;
    part[group->rank] = *sumsq;
    oc_status st = group->allgather(group->ctx, part, 1, sizeof(double)) == OC_OK ? OC_OK : OC_ERR_IO;
    for (int r = 0; r < group->size && st == OC_OK; r++)
        total += part[r];
    free(part);
    *sumsq = total;
    return st;
}

oc_status oc_fast_newton_schulz_sharded(const oc_ns_hparams *hp, oc_fast_ns_precision prec,
                                        const oc_comm *group, oc_muon_tp_dim dim, size_t rows,
                                        size_t cols, const float *g, float *out)
{
    if (hp == NULL || group == NULL)
        return OC_ERR_NULL_POINTER;
    int split_rows = dim == OC_MUON_TP_ROWS, r = group->size;
    oc_status st = dim != OC_MUON_TP_ROWS && dim != OC_MUON_TP_COLS ? OC_ERR_BAD_HPARAM
                   : prec != OC_FAST_NS_FP32 && prec != OC_FAST_NS_BF16 ? OC_ERR_BAD_HPARAM
                   : rows == 0 || cols == 0 || (split_rows ? rows > SIZE_MAX / (size_t)r
                                                           : cols > SIZE_MAX / (size_t)r)
                       ? OC_ERR_BAD_SHAPE
                       : oc_ns_check(hp, split_rows ? rows * (size_t)r : rows,
                                     split_rows ? cols : cols * (size_t)r); /* NS-HP-1, NS-IN-1 */
    size_t len = rows * cols;
    /* the Gram matrix on the unsplit side: X = this rank's block, transposed when rows are split */
    ns_shape s = shape_with(split_rows, rows, cols);
    double sumsq = 0.0;
    if (st == OC_OK)
        st = check_buffers(g, out, len, NULL, 0);
    if (st == OC_OK)
        st = local_sumsq(g, len, &sumsq);
    float *work = st == OC_OK ? malloc((2 * len + 2 * s.k * oc_fast_ns_gram_ld(s.k)) * sizeof(float))
                              : NULL;
    if (st == OC_OK && !work)
        st = OC_ERR_INTERNAL;
    if ((st = oc_comm_agree(group, st)) == OC_OK && (st = group_sumsq(group, &sumsq)) == OC_OK)
        st = iterate_all(hp, &s, prec == OC_FAST_NS_BF16, sumsq, g, out, work, group);
    free(work);
    return st;
}

oc_fast_ns_precision oc_fast_ns_precision_active(void)
{
    const char *want = getenv("OPTCERT_FAST_NS");
    return want && strcmp(want, "bf16") == 0 ? OC_FAST_NS_BF16 : OC_FAST_NS_FP32;
}

const char *oc_fast_ns_precision_name(oc_fast_ns_precision prec)
{
    return prec == OC_FAST_NS_BF16 ? "bf16" : prec == OC_FAST_NS_FP32 ? "fp32" : NULL;
}

/* Plugin ABI v3 (VEC-ABI-1): the newton-schulz-* families' entry point, in the precision the
 * plugin read at load (FAST-NS-2), which the table's ctx points to, as for every Muon family. */
static oc_status ns_entry(void *ctx, const oc_ns_hparams *hp, size_t rows, size_t cols,
                          const float *g, float *out)
{
    const oc_fast_ns_precision *prec = ctx;
    return oc_fast_newton_schulz(hp, *prec, rows, cols, g, out, NULL, 0);
}

const oc_fast_algorithm oc_fast_cpu_newton_schulz = {
    .algorithm = "newton-schulz",
    .entry = (oc_entry_point)ns_entry,
};
