#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "st_writer.h"

struct st_writer {
    json_t *header;
    unsigned char *data;
    size_t size, cap;
};

st_writer *st_writer_new(void)
{
    st_writer *w = calloc(1, sizeof *w);
    if (w)
        w->header = json_object();
    return w;
}

void st_writer_free(st_writer *w)
{
    if (!w)
        return;
    json_decref(w->header);
    free(w->data);
    free(w);
}

int st_writer_add(st_writer *w, const char *key, const char *dtype, size_t rows, size_t cols,
                  int two_dim, const void *data)
{
    size_t elem = strcmp(dtype, "F64") == 0 ? 8 : strcmp(dtype, "F32") == 0 ? 4 : 2;
    size_t bytes = rows * cols * elem;
    if (w->size + bytes > w->cap) {
        size_t cap = (w->cap + bytes) * 2;
        unsigned char *nd = realloc(w->data, cap);
        if (!nd)
            return -1;
        w->data = nd;
        w->cap = cap;
    }
    memcpy(w->data + w->size, data, bytes); /* little-endian host (x86_64, aarch64) */
    json_t *shape = two_dim ? json_pack("[I,I]", (json_int_t)rows, (json_int_t)cols)
                            : json_pack("[I]", (json_int_t)(rows * cols));
    json_t *t = json_pack("{s:s,s:o,s:[I,I]}", "dtype", dtype, "shape", shape, "data_offsets",
                          (json_int_t)w->size, (json_int_t)(w->size + bytes));
    w->size += bytes;
    return json_object_set_new(w->header, key, t);
}

int st_writer_metadata(st_writer *w, const char *key, const char *value)
{
    json_t *meta = json_object_get(w->header, "__metadata__");
    if (!meta) {
        meta = json_object();
        json_object_set_new(w->header, "__metadata__", meta);
    }
    return json_object_set_new(meta, key, json_string(value));
}

int st_writer_save(const st_writer *w, const char *path)
{
    char *hdr = json_dumps(w->header, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!hdr)
        return -1;
    size_t len = strlen(hdr), padded = (len + 7) / 8 * 8;
    FILE *f = fopen(path, "wb");
    int rc = -1;
    if (f) {
        unsigned char n8[8];
        for (int i = 0; i < 8; i++)
            n8[i] = (unsigned char)((uint64_t)padded >> (8 * i));
        rc = fwrite(n8, 1, 8, f) == 8 && fwrite(hdr, 1, len, f) == len ? 0 : -1;
        for (size_t i = len; i < padded && rc == 0; i++)
            rc = fputc(' ', f) == ' ' ? 0 : -1;
        if (rc == 0 && w->size && fwrite(w->data, 1, w->size, f) != w->size)
            rc = -1;
        if (fclose(f) != 0)
            rc = -1;
    }
    free(hdr);
    return rc;
}
