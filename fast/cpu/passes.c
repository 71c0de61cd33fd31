/* Simple passes over one fp32 array shared by the fast CPU backend's matrix steps (clipping,
 * Muon, MuonClip), threaded like the kernels (FAST-MT-1) above one chunk. */
#include <math.h>
#include "optcert/fast.h"
#include "internal.h"

void oc_fast_scale(float *x, size_t n, float f)
{
    long long len = (long long)n;
#pragma omp parallel for if (len > OC_FAST_CHUNK)
    for (long long i = 0; i < len; i++)
        x[i] *= f;
}

int oc_fast_any_nonfinite(const float *x, size_t n)
{
    long long len = (long long)n;
    int bad = 0;
#pragma omp parallel for reduction(| : bad) if (len > OC_FAST_CHUNK)
    for (long long i = 0; i < len; i++)
        bad |= !isfinite(x[i]);
    return bad;
}

int oc_fast_unscale_check(float *x, size_t n, float f, int scale)
{
    long long len = (long long)n;
    int bad = 0;
#pragma omp parallel for reduction(| : bad) if (len > OC_FAST_CHUNK)
    for (long long i = 0; i < len; i++) {
        bad |= !isfinite(x[i]);
        if (scale)
            x[i] *= f;
    }
    return bad;
}
