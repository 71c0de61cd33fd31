/* The CPU kernels for the avx512 instruction set (flags in fast/CMakeLists.txt), with
 * 64-byte non-temporal stores of the model copy (FAST-NT-1). */
#include <immintrin.h>
#define OC_FAST_KERNELS oc_fast_kernels_avx512
#define OC_FAST_NT_BYTES 64
#define OC_FAST_NT_STORE(d, s) _mm512_stream_si512((__m512i *)(d), _mm512_loadu_si512((const __m512i *)(s)))
#include "kernels.inc"
