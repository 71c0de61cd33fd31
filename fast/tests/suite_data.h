/* The deterministic data of the layout suites (layout_suite.c, muon_suite.c): initial
 * parameters and each rank's gradient contributions k * 2^e with |k| < 2^12 and e fixed per
 * element, so that their sum is exact in binary32 in any order. */
#ifndef OPTCERT_FAST_SUITE_DATA_H
#define OPTCERT_FAST_SUITE_DATA_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

static inline uint64_t suite_mix(uint64_t x)
{
    x ^= x >> 33, x *= 0xff51afd7ed558ccdull, x ^= x >> 33, x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}
/* Element j of parameter i before the first step: a multiple of 2^-10 in [-1000, 1000] 2^-10. */
static inline float init_param(size_t i, size_t j)
{
    return (float)((int)(suite_mix(i * 1000003u + j) % 2001) - 1000) * 0x1p-10f;
}
/* Rank r's contribution to element j of parameter i at step s: k * 2^e. */
static inline int grad_k(int r, size_t i, size_t j, int s)
{
    return (int)(suite_mix(((uint64_t)r << 48) ^ (i << 32) ^ (j << 4) ^ (uint64_t)s) % 8191) - 4095;
}
static inline float grad_scale(size_t i, size_t j)
{
    return ldexpf(1.0f, -(int)(suite_mix(i * 7919u + j) % 20) - 8);
}

#endif
