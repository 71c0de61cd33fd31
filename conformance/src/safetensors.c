#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "safetensors.h"

static size_t dtype_size(const char *dt)
{
    static const struct { const char *name; size_t size; } known[] = {
        {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8}, {"I32", 4},
        {"I16", 2}, {"I8", 1}, {"U8", 1}, {"BOOL", 1}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(dt, known[i].name) == 0)
            return known[i].size;
    return 0;
}

static oc_status read_file(const char *path, unsigned char **bytes, size_t *size, oc_diag *d)
{
    oc_status st = oc_check_regular(path, d);
    if (st != OC_OK)
        return st;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return oc_fail(d, OC_ERR_IO, "%s: cannot open", path);
    long len = -1;
    if (fseek(fp, 0, SEEK_END) == 0)
        len = ftell(fp);
    if (len < 0 || fseek(fp, 0, SEEK_SET) != 0) {
        fclose(fp);
        return oc_fail(d, OC_ERR_IO, "%s: cannot determine size", path);
    }
    unsigned char *b = malloc(len > 0 ? (size_t)len : 1);
    if (!b || fread(b, 1, (size_t)len, fp) != (size_t)len) {
        free(b);
        fclose(fp);
        return oc_fail(d, OC_ERR_IO, "%s: read error", path);
    }
    fclose(fp);
    *bytes = b;
    *size = (size_t)len;
    return OC_OK;
}

/* VEC-FMT-7: validates one header entry against the data region. */
static oc_status check_entry(const char *path, const char *key, json_t *e, size_t data_size,
                             oc_diag *d)
{
    json_t *dt = json_object_get(e, "dtype"), *shape = json_object_get(e, "shape");
    json_t *off = json_object_get(e, "data_offsets");
    if (!json_is_object(e) || !json_is_string(dt) || !json_is_array(shape) ||
        !json_is_array(off) || json_array_size(off) != 2)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tensor '%s': needs dtype, shape, data_offsets[2]",
                       path, key);
    size_t esize = dtype_size(json_string_value(dt));
    if (!esize)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tensor '%s': unknown dtype '%s'", path, key,
                       json_string_value(dt));
    size_t count = 1;
    for (size_t i = 0; i < json_array_size(shape); i++) {
        json_t *s = json_array_get(shape, i);
        if (!json_is_integer(s) || json_integer_value(s) < 0 ||
            (uint64_t)json_integer_value(s) > SIZE_MAX / 16 / (count ? count : 1))
            return oc_fail(d, OC_ERR_FORMAT, "%s: tensor '%s': bad shape", path, key);
        count *= (size_t)json_integer_value(s);
    }
    json_t *b = json_array_get(off, 0), *en = json_array_get(off, 1);
    if (!json_is_integer(b) || !json_is_integer(en) || json_integer_value(b) < 0 ||
        json_integer_value(en) < json_integer_value(b) ||
        (uint64_t)json_integer_value(en) > data_size)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tensor '%s': data_offsets out of range", path, key);
    if ((uint64_t)(json_integer_value(en) - json_integer_value(b)) != (uint64_t)count * esize)
        return oc_fail(d, OC_ERR_FORMAT,
                       "%s: tensor '%s': data_offsets span does not match shape and dtype", path,
                       key);
    return OC_OK;
}

/* Validates f->bytes[0..f->size) (owned by f); closes f on failure. */
static oc_status parse(const char *path, oc_st_file *f, oc_diag *d)
{
    oc_status st;
    f->path = strdup(path);
    if (f->size < 8) {
        st = oc_fail(d, OC_ERR_FORMAT, "%s: truncated: %zu bytes, no header length", path,
                     f->size);
        goto fail;
    }
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--)
        hlen = hlen << 8 | f->bytes[i];
    if (hlen > OC_ST_MAX_HEADER || hlen > f->size - 8) {
        st = oc_fail(d, OC_ERR_FORMAT, "%s: header length %llu exceeds the file or the limit",
                     path, (unsigned long long)hlen);
        goto fail;
    }
    json_error_t je;
    f->header = json_loadb((const char *)f->bytes + 8, (size_t)hlen, 0, &je);
    if (!json_is_object(f->header)) {
        st = oc_fail(d, OC_ERR_FORMAT, "%s: header is not a JSON object (%s)", path, je.text);
        goto fail;
    }
    f->data_start = 8 + (size_t)hlen;
    const char *key;
    json_t *e;
    json_object_foreach(f->header, key, e) {
        if (strcmp(key, "__metadata__") == 0)
            continue;
        if ((st = check_entry(path, key, e, f->size - f->data_start, d)) != OC_OK)
            goto fail;
    }
    return OC_OK;
fail:
    oc_st_close(f);
    return st;
}

oc_status oc_st_open(const char *path, oc_st_file *f, oc_diag *d)
{
    memset(f, 0, sizeof *f);
    oc_status st = read_file(path, &f->bytes, &f->size, d);
    return st != OC_OK ? st : parse(path, f, d);
}

oc_status oc_st_open_mem(const char *name, const void *bytes, size_t size, oc_st_file *f,
                         oc_diag *d)
{
    memset(f, 0, sizeof *f);
    if (!(f->bytes = malloc(size ? size : 1)))
        return oc_fail(d, OC_ERR_INTERNAL, "%s: out of memory", name);
    if (size)
        memcpy(f->bytes, bytes, size);
    f->size = size;
    return parse(name, f, d);
}

void oc_st_close(oc_st_file *f)
{
    json_decref(f->header);
    free(f->bytes);
    free(f->path);
    memset(f, 0, sizeof *f);
}

oc_status oc_st_tensor(const oc_st_file *f, const char *key, oc_dtype dt, size_t rows,
                       size_t cols, void **out, oc_diag *d)
{
    *out = NULL;
    json_t *e = json_object_get(f->header, key);
    if (!e)
        return oc_fail(d, OC_ERR_FORMAT, "%s: missing tensor '%s'", f->path, key);
    if (strcmp(key, "__metadata__") == 0) /* VEC-FMT-7: the one entry that is no tensor */
        return oc_fail(d, OC_ERR_FORMAT, "%s: '__metadata__' is not a tensor", f->path);
    static const char *const names[] = {"F32", "F64", "BF16", "F16"};
    static const size_t sizes[] = {4, 8, 2, 2};
    const char *want = names[dt];
    const char *got = json_string_value(json_object_get(e, "dtype"));
    if (strcmp(got, want) != 0)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tensor '%s' has dtype %s, expected %s", f->path,
                       key, got, want);
    json_t *shape = json_object_get(e, "shape");
    size_t nd = json_array_size(shape);
    int ok = nd == 2 ? (size_t)json_integer_value(json_array_get(shape, 0)) == rows &&
                           (size_t)json_integer_value(json_array_get(shape, 1)) == cols
             : nd == 1 ? rows == 1 && (size_t)json_integer_value(json_array_get(shape, 0)) == cols
                       : 0;
    if (!ok)
        return oc_fail(d, OC_ERR_FORMAT, "%s: tensor '%s' has the wrong shape (expected [%zu, %zu])",
                       f->path, key, rows, cols);
    size_t bytes = rows * cols * sizes[dt];
    size_t b = (size_t)json_integer_value(json_array_get(json_object_get(e, "data_offsets"), 0));
    *out = malloc(bytes ? bytes : 1);
    if (!*out)
        return oc_fail(d, OC_ERR_INTERNAL, "out of memory reading '%s'", key);
    memcpy(*out, f->bytes + f->data_start + b, bytes); /* little-endian host */
    return OC_OK;
}

oc_status oc_st_tensor_widened(const oc_st_file *f, const char *key, oc_format fmt, size_t rows,
                               size_t cols, double **out, oc_diag *d)
{
    void *x;
    oc_status s = oc_st_tensor(f, key, fmt == OC_FMT_F32 ? OC_F32 : fmt == OC_FMT_BF16 ? OC_BF16 : OC_F16,
                               rows, cols, &x, d);
    *out = NULL;
    if (s != OC_OK)
        return s;
    *out = malloc((rows * cols + 1) * sizeof(double));
    for (size_t i = 0; *out && i < rows * cols; i++)
        (*out)[i] = fmt == OC_FMT_F32 ? ((float *)x)[i] : oc_widen(fmt, ((uint16_t *)x)[i]);
    free(x);
    return *out ? OC_OK : oc_fail(d, OC_ERR_INTERNAL, "out of memory reading '%s'", key);
}

const char *oc_st_metadata(const oc_st_file *f, const char *key)
{
    return json_string_value(json_object_get(json_object_get(f->header, "__metadata__"), key));
}
