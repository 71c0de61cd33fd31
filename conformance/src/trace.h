/* optcert trace and optcert explain: spec rules versus reference, vectors and tests
 * (issue: traceability; issue 20: the reference as executable documentation). */
#ifndef OPTCERT_TRACE_H
#define OPTCERT_TRACE_H

#include <stdio.h>

/* Checks, under the source root: every rule defined in the Markdown files of spec/ is cited by its
 * implementation (ref/ for algorithm rules; vectors/gen or conformance/src for tolerance
 * and format rules), by a vector case's specRules (algorithm rules), and by a test in
 * conformance/tests; no file cites an undefined rule. Prints a table (with locations: a last
 * column, the first implementing file:line); returns the number of problems, or -1 if the tree
 * cannot be read. */
int oc_trace(const char *root, int locations, FILE *out);

/* Prints rule id's text (spec file:line and the bullet), the implementation lines citing it
 * (file:line and the line), the vector cases exercising it (family, tcId, comment) and the test
 * lines citing it. Returns 0; -1 if the tree cannot be read or id is not defined (said on err,
 * with the rules of the same prefix). */
int oc_explain(const char *root, const char *id, FILE *out, FILE *err);

#endif
