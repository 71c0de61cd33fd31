/* Internals of the fast CPU backend shared by its files. */
#ifndef OPTCERT_FAST_CPU_INTERNAL_H
#define OPTCERT_FAST_CPU_INTERNAL_H

#include "kernels.h"

const oc_fast_kernels *oc_fast_kernels_active(void);

#endif
