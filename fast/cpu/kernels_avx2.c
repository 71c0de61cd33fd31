/* The CPU kernels for the avx2 instruction set (flags in fast/CMakeLists.txt), with
 * 32-byte non-temporal stores of the model copy (FAST-NT-1). */
#include <immintrin.h>
#define OC_FAST_KERNELS oc_fast_kernels_avx2
#define OC_FAST_NT_BYTES 32
#define OC_FAST_NT_STORE(d, s) _mm256_stream_si256((__m256i *)(d), _mm256_loadu_si256((const __m256i *)(s)))
#include "kernels.inc"
