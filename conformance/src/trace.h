/* optcert trace: spec rules versus reference, vectors and tests (issue: traceability). */
#ifndef OPTCERT_TRACE_H
#define OPTCERT_TRACE_H

#include <stdio.h>

/* Checks, under the source root: every rule defined in the Markdown files of spec/ is cited by its
 * implementation (ref/ for algorithm rules; vectors/gen or conformance/src for tolerance
 * and format rules), by a vector case's specRules (algorithm rules), and by a test in
 * conformance/tests; no file cites an undefined rule. Prints a table; returns the number
 * of problems, or -1 if the tree cannot be read. */
int oc_trace(const char *root, FILE *out);

#endif
