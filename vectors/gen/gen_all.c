/* Every family's generator, in the order of the registry (cmake/registry.cmake). */
#include "gen.h"
#include "gen_registry.h"

int gen_all(const gen_options *opt, const char *outdir)
{
    for (int i = 0; i < GEN_NFAMILIES; i++)
        if (gen_families[i]->generate(opt, outdir) != 0)
            return -1;
    return 0;
}
