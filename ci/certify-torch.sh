#!/bin/sh
# Certifies PyTorch's own torch.optim.Adam / AdamW (CPU) against the torch profile through the
# results path: the adapter runs torch over the vectors, `optcert judge` certifies the results.
# Both the single-tensor and the foreach implementation are certified.
#   ci/certify-torch.sh [BUILD_DIR]      exit 0 when both conform
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
rc=0
for mode in single-tensor foreach; do
    flag=""
    [ "$mode" = foreach ] && flag=--foreach
    /usr/bin/python3 conformance/adapters/torch_adam.py $flag \
        --vectors vectors/adam-torch/adam-torch.json --out "$out/torch-$mode.safetensors"
    "$build"/optcert judge --results "$out/torch-$mode.safetensors" --family adam-torch \
        --report table --report "json:$out/torch-$mode.json" || rc=1
done
exit $rc
