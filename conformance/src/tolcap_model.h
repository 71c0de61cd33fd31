/* The constants of the element-wise algorithms' error models (VEC-TOL-2): conformance/src/tolcap.c
 * and the algorithms' own files, which define their models (oc_tolcap_model, tolcap.h), read
 * them. */
#ifndef OPTCERT_TOLCAP_MODEL_H
#define OPTCERT_TOLCAP_MODEL_H

#include <math.h>
#include "tolcap.h"

#define U 0x1p-24      /* binary32 unit roundoff */
#define ETA 0x1p-149   /* absolute error of one binary32 operation in the subnormal range */

/* The generator's coefficients (ADAM-TOL-3 table, "generator" column; SGD-TOL-3; LION-TOL-3). */
#define K_GRAD (2 + 0x1p-20)
#define K_MOMENT 6.0
#define K_SQUARE 6.0
#define K_NESTEROV (4 + 0x1p-20)
#define K_INTERP (4 + 0x1p-20)
#define K_PARAM 8.0
#define K_PARAM_LION 6.0

#endif
