#!/usr/bin/env bash
# WP on the block-to-chunk arithmetic of the CUDA kernels (fast/cuda/table.h, FAST-CUDA-MT-1):
# oc_cuda_chunk_tensor (binary search: the block's tensor owns its chunk) and
# oc_cuda_chunk_range (the chunk's range is non-empty and inside the tensor). Writes
# proofs/out/wp-cuda-table.goals ("cuda:<goal> <status>") and fails if a goal that
# proofs/cuda-table-goals.expected records as Valid is not Valid now. Called by proofs/run.sh;
# runs alone too (about 1 min on 2 cores). Skipped with OPTCERT_PROOFS_CUDA=0.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${OPTCERT_PROOFS_CUDA:-1}" = 0 ] && exit 0
out=proofs/out
mkdir -p "$out"
log=$out/wp-cuda-table.log
echo "== WP fast/cuda/table.h (z3, cvc5; 10 s)"
frama-c -wp -wp-rte -wp-fct oc_cuda_chunk_tensor,oc_cuda_chunk_range -wp-prover z3,cvc5 \
    -wp-timeout 10 -wp-par "${WP_PAR:-2}" -cpp-extra-args="-Iinclude -Ifast/include" \
    fast/cuda/table.h > "$log" 2>&1
# "[wp] [<prover>] Goal <name> : <status>" or "[wp] [Failed] Goal <name>" + prover lines
awk '/^\[wp\] \[[^]]*\] Goal / {
         g = $0; sub(/^.*\] Goal /, "", g); sub(/ .*$/, "", g)
         st = "Failed"; if (match($0, / : [A-Za-z]+/)) st = substr($0, RSTART + 3, RLENGTH - 3)
         print "cuda:" g, st }' "$log" | sort > "$out/wp-cuda-table.goals"
n=$(wc -l < "$out/wp-cuda-table.goals")
want=$(sed -n 's/^\[wp\] \([0-9]*\) goals\? scheduled$/\1/p' "$log" | tail -1)
if [ "$n" -eq 0 ] || [ "$n" != "$want" ]; then
    echo "cuda_table.sh: parsed $n goals, WP scheduled ${want:-?}; see $log" >&2
    exit 1
fi
echo "WP cuda table: $(awk '$2 == "Valid"' "$out/wp-cuda-table.goals" | wc -l)/$n Valid"
lost=$(awk 'NR == FNR { now[$1] = $2; next } $2 == "Valid" && now[$1] != "Valid" { print $1 }' \
    "$out/wp-cuda-table.goals" proofs/cuda-table-goals.expected)
if [ -n "$lost" ]; then
    echo "cuda_table.sh: no longer proved: $lost" >&2
    exit 1
fi
