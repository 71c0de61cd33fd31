#!/usr/bin/env bash
# Eva over ref/clip.c (proofs/STATUS.md, section ref/clip.c). Called by proofs/run.sh; runs
# alone too. Fails unless 0 alarms, no warning, no invalid property and no unknown property.
set -euo pipefail
exec "$(dirname "$0")/eva_one.sh" clip 8 ref/clip.c proofs/fmax.c
