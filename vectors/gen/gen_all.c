#include "gen.h"

int gen_all(const gen_options *opt, const char *outdir)
{
    return gen_adam(opt, outdir);
}
