#!/bin/sh
# Certifies real outside implementations through the results path (the table at the end: one
# run a line), each library at the version its setup script pins (ci/setup-python.sh,
# ci/setup-deepspeed.sh): torch 1.13 (Debian) and 2.15 (PyPI): Adam/AdamW/SGD (single-tensor,
# foreach, fused; with bf16/fp16 parameters on an fp32 master as Megatron runs them),
# lr_scheduler, amp.GradScaler, clip_grad_norm_, Muon and its Newton-Schulz; lion-pytorch's,
# pytorch-optimizer's and Keras 3's Lion; optax's adam/adamw, schedules and Muon Newton-Schulz;
# Keras 3's Adam/AdamW (jax backend) on adam-keras; megatron-core's OptimizerParamScheduler and
# grad scalers; muon-optimizer's Newton-Schulz and SingleDeviceMuon; Emerging-Optimizers'
# newton_schulz; transformers' schedule functions on schedule-megatron; DeepSpeed's
# DeepSpeedCPUAdam; torch's, transformers' and optax's Adafactor (adafactor.py); torch.optim's state_dict / load_state_dict (through torch.save) on the
# resume families (spec/checkpoint.md §5), and those of torch.amp.GradScaler and megatron-core's
# grad scalers on the resume-loss-scale families (RESUME-LS-1); torch.distributed.checkpoint saving
# DTensor-sharded Adam/SGD state on 2 gloo ranks and loading it on 3 (spec/checkpoint.md §5); megatron-core 0.19.2's ChainedOptimizer.step (its
# clipping, on CPU with stand-in process groups) on clip-megatron, and over Megatron's
# Float16OptimizerWithFloat16Params sub-optimizers with their grad scalers (the whole guarded
# step) on guarded-step-megatron, its SelfAttention.clip_qk on muonclip-megatron and muonclip-kimi
# and MLASelfAttention.clip_qk on muonclip-kimi-mla, megatron-core 0.19.2's
# TensorParallelMuon (blockwise tensor parallelism, split QKV; fp32 class with fp32_matmul_prec
# "highest", bf16 at Megatron's default "medium") on muon-blocks-megatron-tp and
# muon-blocks-megatron-qkv and (one matrix, TP 1) on muon-megatron, its parameter routing
# (_get_param_groups with Muon's overrides) with TensorParallelMuon or AdamW on
# muon-route-megatron, and
# Megatron's layout functions against fast/layout (after the table); timm's AdamWLegacy and Lion
# and bitsandbytes' 32-bit AdamW, Lion and SGD (CPU backend), and heavyball's AdamW (its
# bias-corrected moments through the mapping's value transform) and SGD (eager, without
# torch.compile) through optcert.torch's built-in mappings (what is not run, and why: ci/matrix-not-certified.md). The adapter runs the
# library over the vectors (the runs of one Python environment as children forked from one
# interpreter that imported torch, or jax, once: ci/outside_batch.py), `optcert judge` prints
# the certificate. Exit 0 when every failure is
# a known divergence listed (and explained) in
# conformance/adapters/known-divergences.txt, and every listed one still fails.
# --matrix FILE also writes the certification matrix (ci/matrix.py) of all the runs to FILE
# (docs/matrix.md), with ci/matrix-not-certified.md appended. OPTCERT_OUTSIDE_ONLY=REGEX runs
# only the table's lines that match the extended regular expression (no layout comparison, no
# matrix: a partial run).
#   ci/certify-outside.sh [BUILD_DIR] [--matrix FILE]
set -eu
cd "$(dirname "$0")/.."
# One run a line: LIBRARY (its distribution, whose installed version the matrix shows), RUN
# (ADAPTER[@TAG]: conformance/adapters/ADAPTER.py; known divergences are listed per RUN and
# family), FAMILY, then the adapter's flags if any. The TAG picks the Python environment
# (below) and keeps apart the divergences of runs of one adapter.
#   setup LIBRARY RUN FAMILY [FLAG...]: sets library, adapter, family, flag, script, res (the
#   run's results without extension), py and pypath (its Python environment), cls (its class)
setup() {
    library=$1 adapter=$2 family=$3
    shift 3
    flag="$*"
    script=${adapter%@*}
    res="$out/$adapter-$family$(printf %s "$flag" | tr " " _)" # no blank: the index is split on blanks
    # Debian's python3 (torch 1.13, lion-pytorch, megatron-core, muon-optimizer); jax needs
    # numpy 2: optax and keras run in their own virtual environment (ci/setup-python.sh);
    # ADAPTER@TAG: torch 2.15's environment (torch2, emerging: Emerging-Optimizers, pto:
    # pytorch-optimizer, transformers_schedule), DeepSpeed's (ds: ci/setup-deepspeed.sh);
    # muon-optimizer, torch.optim.Muon and pytorch-optimizer compute Newton-Schulz in bf16
    # (spec/muon.md)
    py=/usr/bin/python3 cls=fp32
    case $adapter$flag in optax_* | keras_* | *--impl=optax) py=/opt/optcert-jax/bin/python ;; esac
    case $adapter in
    *@torch2 | *@emerging | *@pto | transformers_schedule@*) py=/opt/optcert-torch2/bin/python ;;
    *@ds) py=/opt/optcert-ds/bin/python ;;
    esac
    # ADAPTER@mcore19: megatron-core 0.19.2 (its files beside torch 2.15, ci/setup-python.sh)
    # ADAPTER@timm, @bnb, @heavyball: timm, bitsandbytes, heavyball (each in its folder beside
    # torch 2.15 too)
    pypath=
    case $adapter in
    *@mcore19) py=/opt/optcert-torch2/bin/python pypath=/opt/optcert-mcore-0.19.2 ;;
    *@timm | *@bnb | *@heavyball) py=/opt/optcert-torch2/bin/python pypath=/opt/optcert-${adapter#*@} ;;
    esac
    case $flag in --impl=keller | --impl=torch | --impl=pto) cls=bf16 ;; esac
    # TensorParallelMuon at Megatron's default muon_fp32_matmul_prec "medium": torch on the CPU
    # may run Newton-Schulz's float32 matmuls in bf16 (conformance/adapters/megatron_muon.py)
    case $adapter$flag in megatron_muon@mcore19) cls=bf16 ;; esac
}
#   one LIBRARY RUN FAMILY [FLAG...]   (with build, out and n, the run's number, set): the run's
#   judgement, after its adapter ran (ci/outside_batch.py: its output, exit status and the
#   library's version in out/N.adapter.log, N.status, N.version)
one() {
    setup "$@"
    cat "$out/$n.adapter.log"
    [ "$(cat "$out/$n.status")" = 0 ] || return 1
    version=$(cat "$out/$n.version") || return 1
    "$build"/optcert judge --results "$res.safetensors" --family "$family" --class "$cls" --verbose \
        --report table --report "json:$res.json" || true
    echo "$library $version $adapter $family ${flag:--} $res.json" >"$out/index.$n"
    /usr/bin/python3 - "$res.json" "$adapter" "$family" conformance/adapters/known-divergences.txt <<'PY' || return 1
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
}
# ci/certify-outside.sh --one BUILD OUT N LIBRARY RUN FAMILY [FLAG...]: run number N, its output
# printed whole when it ends (runs go in parallel); exit 1 if it failed
if [ "${1:-}" = "--one" ]; then
    build=$2 out=$3 n=$4
    shift 4
    st=0
    one "$@" >"$out/$n.log" 2>&1 || st=1
    [ $st -eq 0 ] || echo "FAILED: $*" >>"$out/$n.log"
    flock "$out/lock" cat "$out/$n.log"
    exit $st
fi
build=${1:-build}
matrix=
[ "${2:-}" = "--matrix" ] && matrix=${3:?--matrix needs a file}
only=${OPTCERT_OUTSIDE_ONLY:-}
if [ -n "$only" ] && [ -n "$matrix" ]; then
    echo "certify-outside: OPTCERT_OUTSIDE_ONLY and --matrix exclude each other" >&2
    exit 2
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
rc=0
# OPTCERT_JOBS runs at a time (default: one per CPU); the index keeps the table's order
jobs=${OPTCERT_JOBS:-$(nproc)}
grep -v '^ *$' <<RUNS | grep -E -- "${only:-.}" | nl -ba -w1 -s' ' >"$out/runs"
torch torch_optim adam-torch
torch torch_optim adam-torch --foreach
torch torch_optim sgd-torch
torch torch_optim sgd-torch --foreach
lion-pytorch torch_optim lion-torch
torch torch_optim adam-torch-mixed
torch torch_optim adam-torch-mixed --foreach
torch torch_optim sgd-torch-mixed
lion-pytorch torch_optim lion-torch-mixed
optax optax_optim adam-optax
megatron-core megatron_schedule schedule-megatron
torch torch_schedule schedule-megatron
optax optax_schedule schedule-megatron
megatron-core megatron_grad_scaler loss-scale-megatron
megatron-core megatron_grad_scaler loss-scale-megatron-constant
torch torch_grad_scaler@torch2 loss-scale-torch
torch torch_clip clip-torch
muon-optimizer muon_ns newton-schulz-simple --impl=keller
optax muon_ns newton-schulz-simple --impl=optax
optax muon_ns newton-schulz-quintic --impl=optax
optax muon_ns newton-schulz-polar-express --impl=optax
optax muon_ns newton-schulz-aol --impl=optax
muon-optimizer muon_ns muon-keller --impl=keller
torch muon_ns@torch2 newton-schulz-simple --impl=torch
torch muon_ns@torch2 muon-keller --impl=torch
torch muon_ns@torch2 muon-moonlight --impl=torch
torch muon_ns@torch2 muon-megatron --impl=torch
emerging-optimizers muon_ns@emerging newton-schulz-simple --impl=emerging
emerging-optimizers muon_ns@emerging newton-schulz-quintic --impl=emerging
emerging-optimizers muon_ns@emerging newton-schulz-polar-express --impl=emerging
emerging-optimizers muon_ns@emerging newton-schulz-aol --impl=emerging
emerging-optimizers muon_ns@emerging newton-schulz-cans --impl=emerging
emerging-optimizers muon_ns@emerging newton-schulz-deepseekv4 --impl=emerging
emerging-optimizers muon_ns@emerging newton-schulz-cubic5 --impl=emerging
torch torch_optim@torch2 adam-torch
torch torch_optim@torch2 adam-torch --foreach
torch torch_optim@torch2 adam-torch --fused
torch torch_optim@torch2 sgd-torch
torch torch_optim@torch2 sgd-torch --foreach
torch torch_optim@torch2 sgd-torch --fused
torch torch_optim@torch2 adam-torch-mixed
torch torch_optim@torch2 adam-torch-mixed --fused
torch torch_optim@torch2 sgd-torch-mixed
torch torch_optim@torch2 sgd-torch-mixed --fused
pytorch-optimizer torch_optim@pto lion-torch --optimizer=pytorch_optimizer:Lion
pytorch-optimizer torch_optim@pto lion-torch-mixed --optimizer=pytorch_optimizer:Lion
pytorch-optimizer muon_ns@pto newton-schulz-simple --impl=pto
pytorch-optimizer muon_ns@pto newton-schulz-quintic --impl=pto
pytorch-optimizer muon_ns@pto newton-schulz-polar-express --impl=pto
pytorch-optimizer muon_ns@pto newton-schulz-polar-express-safety --impl=pto
pytorch-optimizer muon_ns@pto newton-schulz-aol --impl=pto
keras keras_optim adam-keras
keras keras_optim lion-torch
transformers transformers_schedule@constant schedule-megatron --schedule=constant
transformers transformers_schedule@polynomial schedule-megatron --schedule=polynomial
transformers transformers_schedule@cosine-min-lr schedule-megatron --schedule=cosine-min-lr
transformers transformers_schedule@wsd schedule-megatron --schedule=wsd
deepspeed torch_optim@ds adam-torch --optimizer=deepspeed.ops.adam:DeepSpeedCPUAdam
deepspeed torch_optim@ds adam-torch-mixed --optimizer=deepspeed.ops.adam:DeepSpeedCPUAdam
megatron-core megatron_clip@mcore19 clip-megatron
megatron-core megatron_step@mcore19 guarded-step-megatron
megatron-core megatron_qk_clip@mcore19 muonclip-megatron
megatron-core megatron_qk_clip@mcore19 muonclip-kimi
megatron-core megatron_qk_clip@mcore19 muonclip-kimi-mla
torch torch_optim resume-adam-torch
torch torch_optim resume-sgd-torch
torch torch_optim@torch2 resume-adam-torch
torch torch_optim@torch2 resume-adam-torch --foreach
torch torch_optim@torch2 resume-adam-torch --fused
torch torch_optim@torch2 resume-adam-torch-mixed
torch torch_optim@torch2 resume-adam-torch-mixed --fused
torch torch_optim@torch2 resume-sgd-torch
torch torch_optim@torch2 resume-sgd-torch --foreach
megatron-core megatron_grad_scaler resume-loss-scale-megatron
megatron-core megatron_grad_scaler resume-loss-scale-megatron-constant
megatron-core megatron_grad_scaler@mcore19 resume-loss-scale-megatron
torch torch_grad_scaler@torch2 resume-loss-scale-torch
torch torch_dcp@torch2 resume-adam-torch
torch torch_dcp@torch2 resume-sgd-torch
megatron-core megatron_muon@mcore19 muon-blocks-megatron-tp --fp32-matmul-prec=highest
megatron-core megatron_muon@mcore19 muon-blocks-megatron-qkv --fp32-matmul-prec=highest
megatron-core megatron_muon@mcore19 muon-blocks-megatron-tp
megatron-core megatron_muon@mcore19 muon-blocks-megatron-qkv
megatron-core megatron_muon@mcore19 muon-megatron --fp32-matmul-prec=highest
megatron-core megatron_route@mcore19 muon-route-megatron
torch adafactor@torch2 adafactor-torch --impl=torch
torch adafactor@torch2 adafactor-torch --impl=torch --foreach
transformers adafactor@torch2 adafactor-transformers --impl=transformers
optax adafactor adafactor-optax --impl=optax
timm torch_optim@timm adam-torch --optimizer=timm.optim:AdamWLegacy
timm torch_optim@timm adam-torch --optimizer=timm.optim:AdamWLegacy --foreach
timm torch_optim@timm adam-torch-mixed --optimizer=timm.optim:AdamWLegacy
timm torch_optim@timm resume-adam-torch --optimizer=timm.optim:AdamWLegacy
timm torch_optim@timm lion-torch --optimizer=timm.optim:Lion
timm torch_optim@timm lion-torch --optimizer=timm.optim:Lion --foreach
timm torch_optim@timm lion-torch-mixed --optimizer=timm.optim:Lion
bitsandbytes torch_optim@bnb adam-torch --optimizer=bitsandbytes.optim:AdamW
bitsandbytes torch_optim@bnb adam-torch-mixed --optimizer=bitsandbytes.optim:AdamW
bitsandbytes torch_optim@bnb resume-adam-torch --optimizer=bitsandbytes.optim:AdamW
bitsandbytes torch_optim@bnb lion-torch --optimizer=bitsandbytes.optim:Lion
bitsandbytes torch_optim@bnb lion-torch-mixed --optimizer=bitsandbytes.optim:Lion
bitsandbytes torch_optim@bnb sgd-torch --optimizer=bitsandbytes.optim:SGD
bitsandbytes torch_optim@bnb resume-sgd-torch --optimizer=bitsandbytes.optim:SGD
heavyball torch_optim@heavyball adam-torch --optimizer=heavyball:AdamW
heavyball torch_optim@heavyball adam-torch-mixed --optimizer=heavyball:AdamW
heavyball torch_optim@heavyball resume-adam-torch --optimizer=heavyball:AdamW
heavyball torch_optim@heavyball sgd-torch --optimizer=heavyball:SGD
heavyball torch_optim@heavyball sgd-torch-mixed --optimizer=heavyball:SGD
heavyball torch_optim@heavyball resume-sgd-torch --optimizer=heavyball:SGD
RUNS
if [ ! -s "$out/runs" ]; then
    echo "certify-outside: OPTCERT_OUTSIDE_ONLY='$only' selects no run" >&2
    exit 2
fi
# The adapters, one interpreter per Python environment that imports torch (or jax) once and
# forks a child per run (ci/outside_batch.py), OPTCERT_JOBS at a time; then the judgements
while read -r n library adapter family flag; do
    # shellcheck disable=SC2086 # the flags are words
    setup "$library" "$adapter" "$family" $flag
    key=$(printf '%s %s' "$py" "$pypath" | cksum | cut -d' ' -f1)
    echo "$py ${pypath:--}" >"$out/env.$key"
    echo "$n $library $script $family $res.safetensors $flag" >>"$out/batch.$key"
done <"$out/runs"
for batch in "$out"/batch.*; do
    read -r py pypath <"$out/env.${batch##*.}"
    preload=torch
    case $py in /opt/optcert-jax/*) preload=jax ;; esac
    [ "$pypath" != - ] || pypath=
    env ${pypath:+PYTHONPATH=$pypath} KERAS_BACKEND=jax "$py" ci/outside_batch.py "$jobs" "$out" \
        "$batch" $preload || rc=1
done
xargs -P "$jobs" -L 1 "$0" --one "$build" "$out" <"$out/runs" || rc=1
for n in $(cut -d' ' -f1 "$out/runs"); do
    cat "$out/index.$n" 2>/dev/null || true
done >"$out/index"
# Layout maps against Megatron's own layout functions (spec/layouts.md §4.1), dp 2, 3 and 4 and
# seven bucket settings on three models: megatron-core 0.19.2 (the current release, under torch
# 2.15's interpreter) for DistributedOptimizer (zero1-flat) and LayerWiseDistributedOptimizer's
# numel rule (layerwise-numel). The rule of layerwise-megatron (Megatron-LM d98e8a64) is in no
# release yet: it is compared with a Megatron-LM source tree at that commit when
# OPTCERT_MEGATRON_LM names one (DIR/megatron/core), and said to be unchecked otherwise.
[ -z "$only" ] || exit $rc
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
[ -z "$matrix" ] || /usr/bin/python3 ci/matrix.py "$out/index" conformance/adapters/known-divergences.txt \
    ci/matrix-not-certified.md >"$matrix"
exit $rc
