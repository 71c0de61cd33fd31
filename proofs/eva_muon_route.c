/* Eva driver for oc_ref_routed_step (ref/muon_route.c) with the Muon, Newton-Schulz and Adam
 * references, and for oc_routed_step_as with either route and either decay (what the mutants
 * of conformance/mutants/muon_route.c give it). With -warn-special-float non-finite, "0
 * alarms" means no NaN or infinity and no invalid access for every input in these ranges:
 *   parameters   a 2-D hidden weight 3 x 2, a 2-D embedding, a 1-D gain of 4, a *.bias, a 3-D
 *                2 x 1 x 3 kernel, and a 0-D (invalid) one
 *   p, m, g      fp32 in [-1e4, 1e4];  v in [0, 1e4]
 *   Muon         the megatron profile, lr, wd in [0, 1];  AdamW torch, decoupled, lr in [0, 1],
 *                wd in [0, 1], betas 0.9 / 0.999, eps 1e-8, step in [1, 1000]
 *   route, decay every oc_route, decays 0 or 1 (oc_routed_step_as)
 */
#include "__fc_builtin.h"
#include "optcert/muon_route.h"

static float p[6], m[6], v[6], g[6], scratch[18];
static double work[64];

static const oc_param_info params[] = {
    {"decoder.layers.0.mlp.linear_fc1.weight", 2, {3, 2, 0, 0}, 0},
    {"embedding.word_embeddings.weight", 2, {3, 2, 0, 0}, 1},
    {"decoder.final_layernorm.weight", 1, {4, 0, 0, 0}, 0},
    {"decoder.layers.0.mlp.linear_fc1.bias", 2, {2, 2, 0, 0}, 0},
    {"vision.conv1.weight", 3, {2, 1, 3, 0}, 0},
    {"scalar", 0, {0, 0, 0, 0}, 0},
};

static void fill(void)
{
    for (int i = 0; i < 6; i++) {
        p[i] = Frama_C_float_interval(-1e4f, 1e4f);
        m[i] = Frama_C_float_interval(-1e4f, 1e4f);
        v[i] = Frama_C_float_interval(0.0f, 1e4f);
        g[i] = Frama_C_float_interval(-1e4f, 1e4f);
    }
}

int main(void)
{
    oc_status st = OC_OK;
    int routes = 0;
    for (int k = 0; k < 6; k++) {
        fill();
        oc_route_hparams hp;
        st |= oc_muon_profile_defaults(OC_MUON_MEGATRON, &hp.muon);
        hp.muon.lr = Frama_C_double_interval(0.0, 1.0);
        hp.muon.weight_decay = Frama_C_double_interval(0.0, 1.0);
        hp.adamw = (oc_adam_hparams){OC_ADAM_TORCH, 0.0, 0.9f, 0.999f, 1e-8f, 0.0, 0, 1, 1, 0, 0};
        hp.adamw.lr = Frama_C_double_interval(0.0, 1.0);
        hp.adamw.weight_decay = Frama_C_double_interval(0.0, 1.0);
        oc_route r = OC_ROUTE_ADAMW, as = OC_ROUTE_ADAMW;
        st |= oc_ref_routed_step(&hp, &params[k], Frama_C_interval(1, 1000), p, m, v, g, &r, work,
                                 sizeof work / sizeof work[0], scratch,
                                 sizeof scratch / sizeof scratch[0]);
        fill();
        st |= oc_routed_step_as(&hp, &params[k], Frama_C_interval(1, 1000),
                                (oc_route)Frama_C_interval(0, 1), Frama_C_interval(0, 1), p, m, v,
                                g, &as, work, sizeof work / sizeof work[0], scratch,
                                sizeof scratch / sizeof scratch[0]);
        routes += (int)r + (int)as;
    }
    return (int)st + routes;
}
