/* Deterministic random numbers for the generators (splitmix64): the seed fixes every file. */
#ifndef OPTCERT_GEN_RNG_H
#define OPTCERT_GEN_RNG_H

#include <math.h>
#include <stdint.h>

typedef struct gen_rng {
    uint64_t state;
} gen_rng;

static inline uint64_t rng_next(gen_rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double rng_unit(gen_rng *r) { return (double)(rng_next(r) >> 11) * 0x1p-53; }

/* Uniform in [0, n). */
static inline int rng_int(gen_rng *r, int n) { return (int)(rng_next(r) % (uint64_t)n); }

/* A binary32 value with random mantissa, magnitude in [2^lo, 2^hi), random sign if signed_. */
static inline float rng_mag(gen_rng *r, int lo, int hi, int signed_)
{
    float x = (float)ldexp(1.0 + rng_unit(r), lo + rng_int(r, hi - lo));
    return signed_ && (rng_next(r) & 1) ? -x : x;
}

#endif
