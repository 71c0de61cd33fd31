#include "gen.h"

int gen_all(const gen_options *opt, const char *outdir)
{
    return gen_adam(opt, outdir) || gen_sgd(opt, outdir) || gen_lion(opt, outdir) ||
                   gen_schedule(opt, outdir) || gen_loss_scale(opt, outdir) ||
                   gen_clip(opt, outdir) ||
                   gen_newton_schulz(opt, outdir) ||
                   gen_muon(opt, outdir) ||
                   gen_muon_clip(opt, outdir) ||
                   gen_step(opt, outdir) ||
                   gen_muon_blocks(opt, outdir) ||
                   gen_muon_route(opt, outdir) ||
                   gen_te_storage(opt, outdir) ||
                   gen_adafactor(opt, outdir)
               ? -1
               : 0;
}
