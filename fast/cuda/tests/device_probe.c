/* Exit 0 when a CUDA device can run the backend, 77 (ctest's skip code) with the reason when
 * not (FAST-CUDA-DEV-1). Used by the tests and ci/gpu-check. */
#include <stdio.h>
#include "optcert/fast_cuda.h"

int main(void)
{
    char why[256];
    if (oc_cuda_device_check(why, sizeof why) != OC_OK) {
        printf("no CUDA device: %s\n", why);
        return 77;
    }
    printf("CUDA device present\n");
    return 0;
}
