/* The lookup of the element-wise interfaces (optcert/elementwise.h) in the registry the build
 * generates from the algorithms' own files (cmake/registry.cmake). */
#include "elementwise_registry.h"

const oc_elementwise *oc_elementwise_of(oc_algorithm alg)
{
    /*@ loop invariant 0 <= k <= OC_NELEMENTWISE;
        loop invariant absent: \forall integer j; 0 <= j < k ==> oc_elementwises[j]->alg != alg;
        loop assigns k;
        loop variant OC_NELEMENTWISE - k;
    */
    for (size_t k = 0; k < OC_NELEMENTWISE; k++)
        if (oc_elementwises[k]->alg == alg)
            return oc_elementwises[k];
    return NULL;
}
