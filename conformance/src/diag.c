#include <stdarg.h>
#include <stdio.h>
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
