/* FAST-CUDA-NS-1: the iterations as products and copies (ns_iter.h). */
#include "ns_iter.h"

int oc_ns_iterate(const oc_ns_ops *o, int rows, int cols, int batch, void *x, void *ga,
                  void *gb, void *y, int steps, const oc_cuda_ns_coef *coef)
{
    int wide = rows <= cols, s = wide ? rows : cols, l = wide ? cols : rows;
    size_t mat = (size_t)rows * (size_t)cols, gram = (size_t)s * (size_t)s;
    long long sm = (long long)mat, sg = (long long)gram;
    void *cur = x, *nxt = y;
    int err = 0;
    for (int i = 0; i < steps && !err; i++) {
        /* A = X X^T on the smaller side */
        err = o->gemm(o->ctx, wide, !wide, s, s, l, 1.0f, cur, cols, sm, cur, cols, sm, 0.0f, ga,
                      s, sg, batch);
        /* B = b A + c A A */
        if (!err)
            err = o->copy(o->ctx, gb, ga, gram * o->esz * (size_t)batch);
        if (!err)
            err = o->gemm(o->ctx, 0, 0, s, s, s, coef[i].c, ga, s, sg, ga, s, sg, coef[i].b, gb,
                          s, sg, batch);
        /* X' = a X + B X: column-major M' = a M + M B^T (wide), a M + B M (tall) */
        if (!err)
            err = o->copy(o->ctx, nxt, cur, mat * o->esz * (size_t)batch);
        if (!err && wide)
            err = o->gemm(o->ctx, 0, 1, cols, rows, rows, 1.0f, cur, cols, sm, gb, s, sg,
                          coef[i].a, nxt, cols, sm, batch);
        else if (!err)
            err = o->gemm(o->ctx, 0, 0, cols, rows, cols, 1.0f, gb, s, sg, cur, cols, sm,
                          coef[i].a, nxt, cols, sm, batch);
        void *t = cur;
        cur = nxt;
        nxt = t;
    }
    if (!err && cur != x)
        err = o->copy(o->ctx, x, cur, mat * o->esz * (size_t)batch);
    return err;
}
