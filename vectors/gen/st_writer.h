/* Minimal safetensors writer: collect tensors in memory, write the file in insertion order
 * (format: spec/vectors.md VEC-FMT-7). */
#ifndef OPTCERT_GEN_ST_WRITER_H
#define OPTCERT_GEN_ST_WRITER_H

#include <stddef.h>

typedef struct st_writer st_writer;

st_writer *st_writer_new(void);
void st_writer_free(st_writer *w);
/* dtype "F64", "F32", "BF16" or "F16" (16-bit data as bit patterns); data is copied.
 * Returns 0 on success. */
int st_writer_add(st_writer *w, const char *key, const char *dtype, size_t rows, size_t cols,
                  int two_dim, const void *data);
/* Sets a __metadata__ entry (string to string). Returns 0 on success. */
int st_writer_metadata(st_writer *w, const char *key, const char *value);
/* Returns 0 on success. */
int st_writer_save(const st_writer *w, const char *path);

#endif
