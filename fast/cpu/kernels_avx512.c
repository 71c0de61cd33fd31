/* The CPU kernels for the avx512 instruction set (flags in fast/CMakeLists.txt). */
#define OC_FAST_KERNELS oc_fast_kernels_avx512
#include "kernels.inc"
