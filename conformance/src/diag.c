#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include "diag.h"

oc_status oc_fail(oc_diag *d, oc_status st, const char *fmt, ...)
{
    if (d) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->msg, sizeof d->msg, fmt, ap);
        va_end(ap);
    }
    return st;
}

oc_status oc_check_regular(const char *path, oc_diag *d)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return oc_fail(d, OC_ERR_IO, "%s: cannot open", path);
    return S_ISREG(sb.st_mode) ? OC_OK : oc_fail(d, OC_ERR_IO, "%s: not a regular file", path);
}
