#!/bin/sh
# Certifies real outside implementations through the results path: PyTorch's own
# torch.optim.Adam/AdamW and torch.optim.SGD (single-tensor and foreach), lion-pytorch's Lion,
# each against its `torch`-profile family, megatron-core's OptimizerParamScheduler against
# schedule-megatron, and the Newton-Schulz of muon-optimizer (KellerJordan/Muon, bf16 class)
# and optax.contrib's Muon (fp32 class) against the ns-* families, muon-optimizer's
# SingleDeviceMuon (bf16 class) against muon-keller. The adapter runs the library over the vectors,
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
    schedule-megatron: ns-simple:--impl=keller ns-simple:--impl=optax ns-quintic:--impl=optax \
    ns-polar-express:--impl=optax ns-aol:--impl=optax muon-keller:--impl=keller; do
    family=${run%%:*}
    flag=${run#*:}
    res="$out/$family$flag"
    adapter=torch_optim.py
    [ "$family" = schedule-megatron ] && adapter=megatron_schedule.py
    # Newton-Schulz (spec/muon.md): muon-optimizer computes in bf16, optax (JAX, in its own
    # virtual environment from ci/setup-python.sh) in fp32.
    python=/usr/bin/python3 cls=fp32
    case $family in ns-* | muon-*) adapter=muon_ns.py ;; esac
    [ "$flag" = --impl=keller ] && cls=bf16
    [ "$flag" = --impl=optax ] && python=/opt/optcert-jax/bin/python
    "$python" "conformance/adapters/$adapter" $flag \
        --vectors "vectors/$family/$family.json" --out "$res.safetensors"
    "$build"/optcert judge --results "$res.safetensors" --family "$family" --class "$cls" --verbose \
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
