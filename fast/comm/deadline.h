/* LAYOUT-DEADLINE-1: how long a rank waits in a collective for its peers, in seconds:
 * OPTCERT_COMM_TIMEOUT when it is a positive number, else 300. Shared by the MPI and the
 * in-process engines. */
#ifndef OPTCERT_COMM_DEADLINE_H
#define OPTCERT_COMM_DEADLINE_H

#include <stdlib.h>

static inline double oc_comm_deadline_s(void)
{
    const char *e = getenv("OPTCERT_COMM_TIMEOUT");
    char *end;
    double v = e ? strtod(e, &end) : 0;
    return e && end != e && *end == '\0' && v > 0 ? v : 300.0;
}

#endif
