#!/bin/sh
# A broken vector file makes every command exit with status 2 and a message naming the file
# and the problem (VEC-FMT-7: truncated safetensors; VEC-FMT-1: malformed JSON).
#   cli_broken_vectors.sh OPTCERT_BINARY
set -eu
optcert=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() { # expected-substring command...
    want=$1
    shift
    set +e
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    set -e
    if [ $rc -ne 2 ] || ! grep -q "$want" "$tmp/err"; then
        echo "expected exit 2 and '$want' from: $*  (got $rc)"
        cat "$tmp/err"
        exit 1
    fi
}
cp -r "$root/vectors/lion-torch" "$tmp/"
head -c 100 "$root/vectors/lion-torch/lion-torch.safetensors" >"$tmp/lion-torch/lion-torch.safetensors"
for cmd in certify families mutants; do
    check "lion-torch.safetensors: header length" "$optcert" $cmd --vectors "$tmp"
done
cp "$root/vectors/lion-torch/lion-torch.safetensors" "$tmp/lion-torch/"
head -c 2000 "$root/vectors/lion-torch/lion-torch.json" >"$tmp/lion-torch/lion-torch.json"
check "lion-torch.json: line" "$optcert" certify --vectors "$tmp"
check "results.safetensors: cannot open" "$optcert" judge --results "$tmp/results.safetensors" --vectors "$tmp"
