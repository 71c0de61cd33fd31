#!/usr/bin/env bash
# Eva over ref/guarded_step.c with the sub-optimizers, clipping and scaler analysed inside it,
# then WP pass 1 on the functions of ref/guarded_step.c alone, with the files of the steps,
# the clipping and the scaler it calls given so that WP uses their contracts (proofs/STATUS.md,
# section ref/guarded_step.c). Called by proofs/run.sh; runs alone too. Eva fails unless
# 0 alarms, no warning, no invalid property and no unknown property; WP writes
# proofs/out/wp-guarded_step.goals (proofs/wp_main.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
files=(ref/guarded_step.c ref/adam.c ref/sgd.c ref/lion.c ref/clip.c ref/loss_scale.c
       ref/buffers.c proofs/fmax.c proofs/fma.c)
proofs/eva_one.sh guarded_step 6 "${files[@]}"
fcts=oc_guard_mutant_name,oc_guard_mutant_description,param_buffers,check_param,check_sub
fcts+=,unscale,norm_and_clip,step_sub,step_subs,update_scaler,oc_guard_clip_config,check_clip
fcts+=,oc_guarded_step_check,oc_ref_guarded_step
proofs/wp_main.sh guarded_step "${files[@]}" -wp-fct "$fcts"
