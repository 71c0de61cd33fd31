/* The CPU kernels for the portable instruction set (flags in fast/CMakeLists.txt). */
#define OC_FAST_KERNELS oc_fast_kernels_portable
#include "kernels.inc"
