#!/bin/sh
# Certifies real outside implementations through the results path: PyTorch's own
# torch.optim.Adam/AdamW and torch.optim.SGD (single-tensor and foreach), lion-pytorch's Lion,
# each against its `torch`-profile family, megatron-core's OptimizerParamScheduler against
# schedule-megatron, megatron-core's grad scalers against loss-scale-megatron[-constant] and
# torch's _amp_update_scale_ against loss-scale-torch (skipped where torch has no kernel for
# the device: torch 1.13 without CUDA, spec/loss_scale.md §6), and torch.nn.utils.clip_grad_norm_
# against clip-torch. The adapter runs the library over the vectors,
# `optcert judge` prints the certificate. Exit 0 when every failure is a known divergence listed
# (and explained) in conformance/adapters/known-divergences.txt, and every listed one still fails.
#   ci/certify-outside.sh [BUILD_DIR]
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
rc=0
for run in adam-torch: adam-torch:--foreach sgd-torch: sgd-torch:--foreach lion-torch: \
    schedule-megatron: loss-scale-megatron: loss-scale-megatron-constant: loss-scale-torch: \
    clip-torch:; do
    family=${run%%:*}
    flag=${run#*:}
    res="$out/$family$flag"
    adapter=torch_optim.py
    [ "$family" = schedule-megatron ] && adapter=megatron_schedule.py
    case $family in loss-scale-megatron*) adapter=megatron_grad_scaler.py ;; esac
    [ "$family" = loss-scale-torch ] && adapter=torch_grad_scaler.py
    [ "$family" = clip-torch ] && adapter=torch_clip.py
    /usr/bin/python3 "conformance/adapters/$adapter" $flag \
        --vectors "vectors/$family/$family.json" --out "$res.safetensors"
    "$build"/optcert judge --results "$res.safetensors" --family "$family" --verbose \
        --report table --report "json:$res.json" || true
    /usr/bin/python3 - "$res.json" "$family" conformance/adapters/known-divergences.txt <<'PY' || rc=1
import json, sys
report, family, known_path = sys.argv[1:]
doc = json.load(open(report))
failed = {c["tcId"] for f in doc["families"] for c in f["cases"] if c["verdict"] == "FAIL"}
known = {int(line.split()[1]) for line in open(known_path)
         if line.strip() and not line.startswith("#") and line.split()[0] == family}
if failed - known:
    sys.exit(f"{family}: unexplained failures, tcIds {sorted(failed - known)}")
if known - failed:
    sys.exit(f"{family}: listed divergences no longer fail, tcIds {sorted(known - failed)}")
passed = sum(f["pass"] for f in doc["families"])
print(f"{family}: {passed} cases pass; failures are exactly the {len(known)} known divergences")
PY
done
exit $rc
