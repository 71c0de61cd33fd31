#!/bin/sh
# Certifies real outside implementations through the results path: PyTorch's own
# torch.optim.Adam/AdamW and torch.optim.SGD (single-tensor and foreach), lion-pytorch's Lion,
# optax's adam/adamw (jax on CPU, against adam-optax),
# each against its `torch`-profile family and its mixed-precision family (fp32 master stepped by
# torch, bf16/fp16 write-back with copy_, as Megatron does); megatron-core's
# OptimizerParamScheduler, torch.optim.lr_scheduler and optax.schedules (where they express the
# schedule) against schedule-megatron;
# megatron-core's grad scalers against loss-scale-megatron[-constant], megatron-core 0.19.2's
# ChainedOptimizer.step (its clipping, on CPU with stand-in process groups) against
# clip-megatron, Megatron's layout functions against fast/layout (below), torch 2.15's
# torch.amp.GradScaler (CPU; scale, step, update) against loss-scale-torch (spec/loss_scale.md §6),
# and torch.nn.utils.clip_grad_norm_
# against clip-torch; the Newton-Schulz of muon-optimizer (KellerJordan/Muon, bf16 class) and
# optax.contrib's Muon (fp32 class) against the ns-* families, muon-optimizer's
# SingleDeviceMuon (bf16 class) against muon-keller; torch 2.15's torch.optim.Muon (bf16 class) against
# ns-simple and the muon-* families; torch 2.15's Adam/AdamW/SGD (single-tensor, foreach, fused)
# against their torch families. The adapter runs the library over the vectors,
# `optcert judge` prints the certificate. Exit 0 when every failure is a known divergence listed
# (and explained) in conformance/adapters/known-divergences.txt, and every listed one still fails.
# --matrix FILE also writes the certification matrix (ci/matrix.py) of all the runs to FILE.
#   ci/certify-outside.sh [BUILD_DIR] [--matrix FILE]
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
matrix=
[ "${2:-}" = "--matrix" ] && matrix=${3:?--matrix needs a file}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
rc=0
# Each run: ADAPTER:FAMILY[:FLAG]. Known divergences are listed per adapter and family.
for run in torch_optim:adam-torch torch_optim:adam-torch:--foreach torch_optim:sgd-torch \
    torch_optim:sgd-torch:--foreach torch_optim:lion-torch torch_optim:adam-torch-mixed \
    torch_optim:adam-torch-mixed:--foreach torch_optim:sgd-torch-mixed \
    torch_optim:lion-torch-mixed optax_optim:adam-optax megatron_schedule:schedule-megatron \
    torch_schedule:schedule-megatron optax_schedule:schedule-megatron \
    megatron_grad_scaler:loss-scale-megatron megatron_grad_scaler:loss-scale-megatron-constant \
    torch_grad_scaler@torch2:loss-scale-torch torch_clip:clip-torch muon_ns:ns-simple:--impl=keller \
    muon_ns:ns-simple:--impl=optax muon_ns:ns-quintic:--impl=optax \
    muon_ns:ns-polar-express:--impl=optax muon_ns:ns-aol:--impl=optax \
    muon_ns:muon-keller:--impl=keller muon_ns@torch2:ns-simple:--impl=torch \
    muon_ns@torch2:muon-keller:--impl=torch muon_ns@torch2:muon-moonlight:--impl=torch \
    muon_ns@torch2:muon-megatron:--impl=torch muon_ns@emerging:ns-simple:--impl=emerging \
    muon_ns@emerging:ns-quintic:--impl=emerging muon_ns@emerging:ns-polar-express:--impl=emerging \
    muon_ns@emerging:ns-aol:--impl=emerging torch_optim@torch2:adam-torch \
    torch_optim@torch2:adam-torch:--foreach torch_optim@torch2:adam-torch:--fused \
    torch_optim@torch2:sgd-torch torch_optim@torch2:sgd-torch:--foreach \
    torch_optim@torch2:sgd-torch:--fused torch_optim@torch2:adam-torch-mixed \
    torch_optim@torch2:adam-torch-mixed:--fused torch_optim@torch2:sgd-torch-mixed \
    torch_optim@torch2:sgd-torch-mixed:--fused megatron_clip@mcore19:clip-megatron; do
    adapter=${run%%:*}
    script=${adapter%@*}
    rest=${run#*:}
    family=${rest%%:*}
    flag=
    [ "$rest" != "$family" ] && flag=${rest#*:}
    res="$out/$adapter-$family$flag"
    # jax needs numpy 2: optax runs in its own virtual environment (ci/setup-python.sh);
    # muon-optimizer and torch.optim.Muon compute Newton-Schulz in bf16 (spec/muon.md)
    py=/usr/bin/python3 cls=fp32
    case $adapter$flag in optax_* | *--impl=optax) py=/opt/optcert-jax/bin/python ;; esac
    # ADAPTER@torch2: the same adapter under torch 2.15 (its own virtual environment)
    # ADAPTER@emerging: the same environment, Emerging-Optimizers' runs (their own divergences)
    case $adapter in *@torch2 | *@emerging) py=/opt/optcert-torch2/bin/python ;; esac
    # ADAPTER@mcore19: megatron-core 0.19.2 (its files beside torch 2.15, ci/setup-python.sh)
    pypath=
    case $adapter in *@mcore19) py=/opt/optcert-torch2/bin/python pypath=/opt/optcert-mcore-0.19.2 ;; esac
    case $flag in --impl=keller | --impl=torch) cls=bf16 ;; esac
    env ${pypath:+PYTHONPATH=$pypath} "$py" "conformance/adapters/$script.py" $flag \
        --vectors "vectors/$family/$family.json" --out "$res.safetensors"
    "$build"/optcert judge --results "$res.safetensors" --family "$family" --class "$cls" --verbose \
        --report table --report "json:$res.json" || true
    echo "$adapter $family ${flag:--} $res.json" >>"$out/index"
    /usr/bin/python3 - "$res.json" "$adapter" "$family" conformance/adapters/known-divergences.txt <<'PY' || rc=1
import json, sys
report, adapter, family, known_path = sys.argv[1:]
doc = json.load(open(report))
failed = {c["tcId"] for f in doc["families"] for c in f["cases"] if c["verdict"] == "FAIL"}
known = {int(line.split()[2]) for line in open(known_path)
         if line.strip() and not line.startswith("#") and line.split()[:2] == [adapter, family]}
if failed - known:
    sys.exit(f"{adapter} {family}: unexplained failures, tcIds {sorted(failed - known)}")
if known - failed:
    sys.exit(f"{adapter} {family}: listed divergences no longer fail, tcIds {sorted(known - failed)}")
passed = sum(f["pass"] for f in doc["families"])
print(f"{adapter} {family}: {passed} cases pass; failures are exactly the {len(known)} known divergences")
PY
done
# Layout maps against Megatron's own layout functions (spec/layouts.md §4.1), dp 2, 3 and 4 and
# seven bucket settings on three models: megatron-core 0.19.2 (the current release, under torch
# 2.15's interpreter) for DistributedOptimizer (zero1-flat) and LayerWiseDistributedOptimizer's
# numel rule (layerwise-numel). The rule of layerwise-megatron (Megatron-LM d98e8a64) is in no
# release yet: it is compared with a Megatron-LM source tree at that commit when
# OPTCERT_MEGATRON_LM names one (DIR/megatron/core), and said to be unchecked otherwise.
layouts() {
    PYTHONPATH=/opt/optcert-mcore-0.19.2 /opt/optcert-torch2/bin/python \
        conformance/adapters/megatron_layout.py --dump "$build/fast/layout_dump" "$@" || rc=1
}
layouts --compare zero1-flat:distrib --compare layerwise-numel:layerwise
if [ -n "${OPTCERT_MEGATRON_LM:-}" ]; then
    layouts --compare zero1-flat:distrib --compare layerwise-megatron:layerwise \
        --count layerwise:layerwise --source "$OPTCERT_MEGATRON_LM"
else
    echo "layerwise-megatron: NOT compared with Megatron-LM d98e8a64 (no release has its rule;" \
        "set OPTCERT_MEGATRON_LM to a source tree at that commit)"
fi
[ -z "$matrix" ] || /usr/bin/python3 ci/matrix.py "$out/index" conformance/adapters/known-divergences.txt >"$matrix"
exit $rc
