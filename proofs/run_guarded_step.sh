#!/usr/bin/env bash
# Eva over ref/guarded_step.c with the sub-optimizers, clipping and scaler analysed inside it
# (proofs/STATUS.md, section ref/guarded_step.c). Called by proofs/run.sh; runs alone too.
# Fails unless 0 alarms, no warning, no invalid property and no unknown property.
set -euo pipefail
exec "$(dirname "$0")/eva_one.sh" guarded_step 6 ref/guarded_step.c ref/adam.c ref/sgd.c \
    ref/lion.c ref/clip.c ref/loss_scale.c ref/buffers.c proofs/fmax.c proofs/fma.c
