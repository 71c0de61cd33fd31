#!/usr/bin/env bash
# wp_main.sh <name> <files and options...>: WP pass 1 (memory, integer, termination and contract
# goals; the floating-point goals are left out, as in run.sh) over the given sources with z3 +
# cvc5, 10 s per goal. Log proofs/out/wp-<name>-main.log; writes proofs/out/wp-<name>.goals
# ("<name>:<goal> <status>", sorted). Fails if no goal was parsed or the count differs from
# what WP scheduled. Used by run_clip.sh and run_guarded_step.sh. WP_PAR (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1
shift
par=${WP_PAR:-2}
out=proofs/out
mkdir -p "$out"
log=$out/wp-$name-main.log
goals=$out/wp-$name.goals
float_props=is_nan_or_infinite,finite_arg,arg_positive,finite_logic_res
echo "== WP $name: memory, integer and contract goals (z3, cvc5; 10 s)"
t0=$(date +%s)
frama-c -wp -wp-rte -wp-literals -wp-par "$par" -cpp-extra-args=-Iinclude \
    -warn-special-float non-finite "$@" -wp-prop="-${float_props//,/,-}" \
    -wp-prover cvc5,z3 -wp-timeout 10 > "$log" 2>&1
awk -f proofs/parse_wp.awk "$log" | sed "s/^/$name:/" | sort > "$goals"
want=$(sed -n 's/^\[wp\] \([0-9]*\) goals\? scheduled$/\1/p' "$log" | tail -1)
n=$(wc -l < "$goals")
if [ "$n" -eq 0 ] || [ "$n" != "${want:-0}" ]; then
    echo "wp_main.sh: parsed $n goals from $log, WP scheduled ${want:-0}" >&2
    exit 1
fi
echo "WP $name: $(awk '$2 == "Valid"' "$goals" | wc -l)/$n Valid ($(( $(date +%s) - t0 )) s, WP_PAR=$par)"
