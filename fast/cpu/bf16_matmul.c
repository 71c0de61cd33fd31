/* bf16 x bf16 -> binary32 matrix products on oneDNN (spec/fast.md FAST-NS-6): the products of
 * the bf16-operand Newton–Schulz (FAST-NS-2) where the CPU multiplies bfloat16 natively (AMX or
 * AVX512_BF16). One CPU engine and stream for the process, made on first use; a matmul
 * primitive per call (oneDNN's primitive cache makes a repeated shape cheap). */
#include <oneapi/dnnl/dnnl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static dnnl_engine_t engine;
static dnnl_stream_t stream;
static int native; /* 1: oneDNN's bf16 matmul has a native kernel here, and it is not refused */
static char native_impl[64];

/* The matmul primitive of an m x kdim by kdim x n product with strided operands. */
static dnnl_status_t make_matmul(size_t m, size_t n, size_t kdim, const size_t sa[2],
                                 const size_t sb[2], const size_t sc[2], dnnl_primitive_desc_t *pd)
{
    dnnl_memory_desc_t a, b, c;
    dnnl_dims_t da = {(dnnl_dim_t)m, (dnnl_dim_t)kdim}, db = {(dnnl_dim_t)kdim, (dnnl_dim_t)n};
    dnnl_dims_t dc = {(dnnl_dim_t)m, (dnnl_dim_t)n};
    dnnl_dims_t ta = {(dnnl_dim_t)sa[0], (dnnl_dim_t)sa[1]}, tb = {(dnnl_dim_t)sb[0], (dnnl_dim_t)sb[1]};
    dnnl_dims_t tc = {(dnnl_dim_t)sc[0], (dnnl_dim_t)sc[1]};
    dnnl_matmul_desc_t md;
    dnnl_status_t st;
    if ((st = dnnl_memory_desc_init_by_strides(&a, 2, da, dnnl_bf16, ta)) ||
        (st = dnnl_memory_desc_init_by_strides(&b, 2, db, dnnl_bf16, tb)) ||
        (st = dnnl_memory_desc_init_by_strides(&c, 2, dc, dnnl_f32, tc)) ||
        (st = dnnl_matmul_desc_init(&md, &a, &b, NULL, &c)))
        return st;
    return dnnl_primitive_desc_create(pd, &md, NULL, engine, NULL);
}

/* FAST-NS-6: native when the engine's bf16 matmul is not oneDNN's reference ("ref:") kernel,
 * and OPTCERT_FAST_NS_PRODUCTS is not "sgemm" (which keeps FAST-NS-2's SGEMM products). */
static void init(void)
{
    const char *want = getenv("OPTCERT_FAST_NS_PRODUCTS");
    if ((want && strcmp(want, "sgemm") == 0) || dnnl_engine_create(&engine, dnnl_cpu, 0))
        return;
    if (dnnl_stream_create(&stream, engine, dnnl_stream_default_flags)) {
        dnnl_engine_destroy(engine);
        return;
    }
    size_t s[2] = {64, 1};
    dnnl_primitive_desc_t pd;
    const char *impl = NULL;
    if (make_matmul(64, 64, 64, s, s, s, &pd) != dnnl_success)
        return;
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl &&
        strncmp(impl, "ref", 3) != 0) {
        native = 1;
        strncpy(native_impl, impl, sizeof native_impl - 1);
    }
    dnnl_primitive_desc_destroy(pd);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

const char *oc_fast_bf16_matmul_native(void)
{
    pthread_once(&once, init);
    return native ? native_impl : NULL;
}

oc_status oc_fast_bf16_matmul(size_t m, size_t n, size_t kdim, const uint16_t *a,
                              const size_t sa[2], const uint16_t *b, const size_t sb[2], float *c,
                              const size_t sc[2])
{
    if (!oc_fast_bf16_matmul_native())
        return OC_ERR_INTERNAL;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t p = NULL;
    dnnl_memory_t ma = NULL, mb = NULL, mc = NULL;
    dnnl_status_t st = make_matmul(m, n, kdim, sa, sb, sc, &pd);
    if (st != dnnl_success)
        return OC_ERR_INTERNAL;
    const char *impl = NULL; /* a layout only the reference kernel takes: refused, not run */
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success ||
        !impl || strncmp(impl, "ref", 3) == 0) {
        dnnl_primitive_desc_destroy(pd);
        return OC_ERR_INTERNAL;
    }
    const dnnl_memory_desc_t *da = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    const dnnl_memory_desc_t *db = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    const dnnl_memory_desc_t *dc = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    if (!(st = dnnl_primitive_create(&p, pd)) && !(st = dnnl_memory_create(&ma, da, engine, (void *)a)) &&
        !(st = dnnl_memory_create(&mb, db, engine, (void *)b)) &&
        !(st = dnnl_memory_create(&mc, dc, engine, c))) {
        dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}};
        if (!(st = dnnl_primitive_execute(p, stream, 3, args)))
            st = dnnl_stream_wait(stream);
    }
    dnnl_memory_t mem[3] = {ma, mb, mc};
    for (int i = 0; i < 3; i++)
        if (mem[i])
            dnnl_memory_destroy(mem[i]);
    if (p)
        dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
    return st == dnnl_success ? OC_OK : OC_ERR_INTERNAL;
}
