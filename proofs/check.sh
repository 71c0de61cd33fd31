#!/usr/bin/env bash
# Proof regression check: a fresh proofs/run.sh, then every goal that the committed baseline
# proofs/wp-goals.expected records as Valid must still be Valid (a goal that disappeared
# counts as lost). Goals proved now but not in the baseline are listed; they do not fail
# the check (to adopt them: cp proofs/wp-goals.txt proofs/wp-goals.expected).
#   proofs/check.sh            run, then compare
#   proofs/check.sh --no-run   compare the existing proofs/wp-goals.txt
set -euo pipefail
cd "$(dirname "$0")/.."

expected=proofs/wp-goals.expected
actual=proofs/wp-goals.txt

if [ "${1:-}" != --no-run ]; then
    proofs/run.sh
fi
mkdir -p proofs/out

awk 'NR == FNR { now[$1] = $2; next }
     $2 == "Valid" && now[$1] != "Valid" {
         print "LOST: " $1 " (expected Valid, now " (now[$1] == "" ? "missing" : now[$1]) ")"
     }' "$actual" "$expected" > proofs/out/lost.txt
awk 'NR == FNR { was[$1] = $2; next }
     $2 == "Valid" && was[$1] != "Valid" { print "newly proved: " $1 }' "$expected" "$actual"

lost=$(wc -l < proofs/out/lost.txt)
valid=$(awk '$2 == "Valid"' "$expected" | wc -l)
if [ "$lost" -ne 0 ]; then
    cat proofs/out/lost.txt
    echo "check.sh: $lost of the $valid goals proved in $expected are no longer proved" >&2
    exit 1
fi
echo "check.sh: all $valid goals proved in $expected are still proved"
