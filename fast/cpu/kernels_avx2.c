/* The CPU kernels for the avx2 instruction set (flags in fast/CMakeLists.txt). */
#define OC_FAST_KERNELS oc_fast_kernels_avx2
#include "kernels.inc"
