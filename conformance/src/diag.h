/* Error messages of the harness: every failure names the file and the problem. */
#ifndef OPTCERT_DIAG_H
#define OPTCERT_DIAG_H

#include "optcert/status.h"

typedef struct oc_diag {
    char msg[512];
} oc_diag;

/* Formats the message into d (if not NULL) and returns st. */
oc_status oc_fail(oc_diag *d, oc_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* OC_OK if path names a regular file; else OC_ERR_IO naming it (a FIFO, a directory or a
 * device is refused before it is opened: reading one could block or never end). */
oc_status oc_check_regular(const char *path, oc_diag *d);

#endif
