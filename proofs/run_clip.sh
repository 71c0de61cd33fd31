#!/usr/bin/env bash
# Eva and WP pass 1 over ref/clip.c (proofs/STATUS.md, section ref/clip.c). Called by
# proofs/run.sh; runs alone too. Eva fails unless 0 alarms, no warning, no invalid property and
# no unknown property; WP writes proofs/out/wp-clip.goals (proofs/wp_main.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
proofs/eva_one.sh clip 8 ref/clip.c proofs/fmax.c
proofs/wp_main.sh clip ref/clip.c proofs/fmax.c
