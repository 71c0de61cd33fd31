/* Reading safetensors files (spec/vectors.md VEC-FMT-7) with full validation. */
#ifndef OPTCERT_SAFETENSORS_H
#define OPTCERT_SAFETENSORS_H

#include <jansson.h>
#include <stddef.h>
#include "diag.h"
#include "optcert/formats.h"

#define OC_ST_MAX_HEADER (64u << 20)

typedef enum oc_dtype { OC_F32, OC_F64, OC_BF16, OC_F16 } oc_dtype;

typedef struct oc_st_file {
    char *path;
    unsigned char *bytes; /* whole file */
    size_t size;
    size_t data_start;    /* offset of the data region */
    json_t *header;
} oc_st_file;

/* Reads and validates the whole file: header length, JSON, every entry's dtype, shape and
 * offsets. OC_ERR_IO or OC_ERR_FORMAT with a message naming the file. */
oc_status oc_st_open(const char *path, oc_st_file *f, oc_diag *d);
/* As oc_st_open, on a copy of the bytes of a file in memory (`name` names it in messages). */
oc_status oc_st_open_mem(const char *name, const void *bytes, size_t size, oc_st_file *f,
                         oc_diag *d);
void oc_st_close(oc_st_file *f);

/* Copies tensor `key` into a new buffer (caller frees). The tensor must have dtype dt and
 * rows*cols elements with shape [rows, cols] or, when rows == 1, [cols]. */
oc_status oc_st_tensor(const oc_st_file *f, const char *key, oc_dtype dt, size_t rows,
                       size_t cols, void **out, oc_diag *d);

/* Reads a tensor stored in format fmt (dtype F32, BF16 or F16) like oc_st_tensor and widens
 * it exactly to binary64 (caller frees). */
oc_status oc_st_tensor_widened(const oc_st_file *f, const char *key, oc_format fmt, size_t rows,
                               size_t cols, double **out, oc_diag *d);

/* __metadata__ value for key, or NULL. */
const char *oc_st_metadata(const oc_st_file *f, const char *key);

#endif
