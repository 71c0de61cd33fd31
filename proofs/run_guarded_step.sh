#!/usr/bin/env bash
# Eva over ref/guarded_step.c with the sub-optimizers, clipping and scaler analysed inside it,
# then WP pass 1 on the functions of ref/guarded_step.c alone, with the files of the steps,
# the clipping and the scaler it calls given so that WP uses their contracts (proofs/STATUS.md,
# section ref/guarded_step.c). Called by proofs/run.sh; runs alone too. Eva fails unless
# 0 alarms, no warning, no invalid property and no unknown property but the two loop
# invariants named below, which WP proves; WP writes
# proofs/out/wp-guarded_step.goals and wp-guarded_step_split.goals (proofs/wp_main.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
files=(ref/guarded_step.c ref/adam.c ref/sgd.c ref/lion.c ref/clip.c ref/loss_scale.c
       ref/buffers.c proofs/fmax.c proofs/fma.c)
# norm_and_clip's loop invariants that its views leave the sub-optimizers as they were at Pre
EVA_WP_PROVED="loop invariant '(params|grads)_kept'" proofs/eva_one.sh guarded_step 6 "${files[@]}"
fcts=oc_guard_mutant_name,oc_guard_mutant_description,param_buffers,check_param,check_sub
fcts+=,unscale,view_of,params_upto_steps,grads_ok_of,chained_norm,norm_and_clip,step_sub,step_subs
fcts+=,update_scaler
fcts+=,inverse_scale,norm_skips,oc_guard_clip_config,check_clip
fcts+=,oc_guarded_step_check,oc_ref_guarded_step
proofs/wp_main.sh guarded_step "${files[@]}" -wp-fct "$fcts"
# The assigns goals of step_subs and oc_ref_guarded_step (callee effects inside the open ranges
# of the sub-optimizers' buffers) time out whole in the pass above; split into their
# conjuncts (-wp-split) every part is proved (goals "guarded_step_split:").
proofs/wp_main.sh guarded_step_split "${files[@]}" -wp-fct step_subs,oc_ref_guarded_step \
    -wp-prop=@assigns -wp-split
