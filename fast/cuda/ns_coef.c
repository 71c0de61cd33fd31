/* FAST-CUDA-NS-2: the named Newton–Schulz coefficient lists and their iteration rules, as
 * NVIDIA-NeMo/Emerging-Optimizers defines them (muon_utils.py _COEFFICIENT_SETS and
 * get_coefficient_iterator: NVIDIA-NeMo/Emerging-Optimizers@fd772926
 * emerging_optimizers/orthogonalized_optimizers/muon_utils.py L30-90, L93-129, L239-240).
 * Plain C: tested without a GPU. */
#include <string.h>
#include "optcert/fast_cuda.h"

static const oc_cuda_ns_coef simple[] = {{3.4445f, -4.7750f, 2.0315f}};
static const oc_cuda_ns_coef quintic[] = {{4.0848f, -6.8946f, 2.9270f},
                                          {3.9505f, -6.3029f, 2.6377f},
                                          {3.7418f, -5.5913f, 2.3037f},
                                          {2.8769f, -3.1427f, 1.2046f},
                                          {2.8366f, -3.0525f, 1.2012f}};
static const oc_cuda_ns_coef polar_express[] = {
    {8.2051f, -22.9019f, 16.4607f}, {4.0664f, -2.8612f, 0.5184f}, {3.9096f, -2.8234f, 0.5250f},
    {3.2856f, -2.4153f, 0.4853f},   {2.2779f, -1.6198f, 0.3985f}, {1.8726f, -1.2307f, 0.3585f},
    {1.8564f, -1.2132f, 0.3568f},   {1.8750f, -1.2500f, 0.3750f}};

static const struct {
    const char *name;
    const oc_cuda_ns_coef *list;
    int len;
    int repeat_last; /* 1: past the end the last tuple repeats; 0: the list cycles */
} sets[] = {{"simple", simple, 1, 1},
            {"quintic", quintic, 5, 0},
            {"polar_express", polar_express, 8, 1}};

oc_status oc_cuda_ns_coefficients(const char *name, int steps, oc_cuda_ns_coef *out)
{
    if (!name || (steps > 0 && !out))
        return OC_ERR_NULL_POINTER;
    if (steps < 0)
        return OC_ERR_BAD_HPARAM;
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
        if (strcmp(name, sets[s].name) != 0)
            continue;
        for (int i = 0; i < steps; i++) {
            int k = i < sets[s].len ? i : sets[s].repeat_last ? sets[s].len - 1 : i % sets[s].len;
            out[i] = sets[s].list[k];
        }
        return OC_OK;
    }
    return OC_ERR_BAD_PROFILE;
}
