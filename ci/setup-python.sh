#!/bin/sh
# Python side of the conformance suite (conformance/adapters/*.py): Debian's python3 with
# python3-torch, python3-numpy and python3-jsonschema from apt; safetensors and lion-pytorch
# and megatron-core (pinned) from PyPI; optax/jax and torch 2.15 (pinned) in virtual environments. Idempotent: installs only what is missing. Run as root.
set -eu

PY=/usr/bin/python3

missing=""
for p in python3-torch python3-numpy python3-jsonschema python3-pip python3-venv; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
fi

"$PY" -c 'import safetensors' >/dev/null 2>&1 ||
    "$PY" -m pip install --break-system-packages safetensors==0.8.0
# --no-deps: lion-pytorch only needs torch, which Debian's python3-torch provides; of
# megatron-core only the scheduler file is used (conformance/adapters/megatron_schedule.py)
"$PY" -c 'import lion_pytorch' >/dev/null 2>&1 ||
    "$PY" -m pip install --break-system-packages --no-deps lion-pytorch==0.2.5
"$PY" -c 'from importlib import metadata; metadata.version("megatron-core")' >/dev/null 2>&1 ||
    "$PY" -m pip install --break-system-packages --no-deps megatron-core==0.16.1

# KellerJordan/Muon as published on PyPI (torch only; Debian's torch 1.13 is enough)
"$PY" -c 'from importlib import metadata; metadata.version("muon-optimizer")' >/dev/null 2>&1 ||
    "$PY" -m pip install --break-system-packages --no-deps muon-optimizer==0.1.0
# optax and jax need numpy 2, Debian's torch numpy 1: they get their own virtual environment,
# used only by conformance/adapters/optax_optim.py
JAX=/opt/optcert-jax
"$JAX/bin/python" -c 'import optax, safetensors' >/dev/null 2>&1 || {
    dpkg -s python3-venv >/dev/null 2>&1 || {
        apt-get update
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-venv
    }
    "$PY" -m venv "$JAX"
    "$JAX/bin/python" -m pip install -q "jax[cpu]==0.7.1" optax==0.2.5 safetensors==0.8.0
}
"$JAX/bin/python" -c 'import jax, optax; print("optax venv ok: optax", optax.__version__, "jax", jax.__version__)'

# torch 2.15 (torch.amp.GradScaler with CPU kernels, torch.optim.Muon) in its own virtual
# environment, used by the ADAPTER@torch2 runs of ci/certify-outside.sh: PyPI's wheel is the CUDA
# build (about 5.4 GB with its nvidia-* wheels, about 2 minutes to install) and runs on CPU
T2=/opt/optcert-torch2
"$T2/bin/python" -c 'import torch, safetensors; assert torch.__version__.split("+")[0] == "2.15.0"' \
    >/dev/null 2>&1 || {
    "$PY" -m venv "$T2"
    "$T2/bin/python" -m pip install -q torch==2.15.0 numpy==2.4.6 safetensors==0.8.0
}
# the Python package (python/, python/tests/check_package.sh): built with scikit-build-core
# without build isolation and tested with pytest, in both virtual environments
for venv in "$JAX" "$T2"; do
    "$venv/bin/python" -c 'import scikit_build_core, pytest' >/dev/null 2>&1 ||
        "$venv/bin/python" -m pip install -q scikit-build-core==1.1.2 pytest==9.2.0
done
# NVIDIA-NeMo Emerging-Optimizers 0.3.0 (its newton_schulz, muon_ns.py --impl emerging): it
# declares Python >= 3.12; installed without that check and without its dependencies (torch is
# here; absl-py is what muon_utils needs besides; typing.override comes from typing_extensions)
"$T2/bin/python" -c 'from importlib import metadata as m; assert m.version("emerging-optimizers") == "0.3.0"; import absl' \
    >/dev/null 2>&1 ||
    "$T2/bin/python" -m pip install -q --no-deps --ignore-requires-python emerging-optimizers==0.3.0 \
        absl-py==2.5.1
# megatron-core 0.19.2, the current release (its layout, clip and optimizer code: conformance/
# adapters/megatron_layout.py, ci/certify-outside.sh), for torch 2.15's interpreter: its only
# wheel is tagged cp312 (a compiled dataset helper this project never imports) and it declares
# Python >= 3.12, so pip puts the wheel's files in a folder of their own, named for 3.12, without
# that check and without dependencies (torch, numpy and packaging are in the torch 2.15 venv); the
# adapters put the folder on PYTHONPATH. 0.16.1 (above) stays for Debian's python3.
pinned_in() {  # pinned_in FOLDER DIST VERSION: whether FOLDER holds DIST at VERSION
    "$T2/bin/python" -c "import sys; from importlib import metadata as m
sys.exit([d.version for d in m.distributions(path=[sys.argv[1]]) if d.name == sys.argv[2]] != [sys.argv[3]])" \
        "$1" "$2" "$3" >/dev/null 2>&1
}
MC19=/opt/optcert-mcore-0.19.2
pinned_in "$MC19" megatron-core 0.19.2 ||
    "$T2/bin/python" -m pip install -q --target "$MC19" --python-version 3.12 --only-binary=:all: \
        --no-deps --ignore-requires-python megatron-core==0.19.2
# lion-pytorch beside torch 2.15 too: the Lion peer of fast/bench/bench.py
"$T2/bin/python" -c 'import lion_pytorch' >/dev/null 2>&1 ||
    "$T2/bin/python" -m pip install -q --no-deps lion-pytorch==0.2.5
# The other libraries certified by ci/certify-outside.sh (docs/matrix.md), pinned:
# pytorch-optimizer (its Lion; it needs only torch and numpy, here) and transformers (its
# learning-rate schedules, with its dependencies) beside torch 2.15; Keras 3 (Adam, AdamW,
# Lion on its jax backend) in the jax environment. DeepSpeed: ci/setup-deepspeed.sh.
pinned() {  # pinned PYTHON DIST VERSION: whether DIST is installed at VERSION
    "$1" -c 'import sys; from importlib import metadata
sys.exit(metadata.version(sys.argv[1]) != sys.argv[2])' "$2" "$3" >/dev/null 2>&1
}
pinned "$T2/bin/python" pytorch-optimizer 4.1.0 ||
    "$T2/bin/python" -m pip install -q --no-deps pytorch-optimizer==4.1.0
pinned "$T2/bin/python" transformers 5.23.0 ||
    "$T2/bin/python" -m pip install -q transformers==5.23.0
pinned "$JAX/bin/python" keras 3.15.1 || "$JAX/bin/python" -m pip install -q keras==3.15.1
# timm, bitsandbytes and heavyball (ci/certify-outside.sh ADAPTER@timm, @bnb, @heavyball): each in a folder of
# its own on PYTHONPATH beside torch 2.15, so that none changes what the other runs of that
# environment import. timm's package __init__ imports torchvision, whose newest wheel (0.29.2)
# is built for torch 2.14 (it requires torch >= 2.14; timm.optim uses none of its compiled ops)
# and needs Pillow; pyyaml, huggingface_hub and safetensors are in the venv (transformers).
# bitsandbytes' CPU backend needs only torch and numpy, heavyball also opt-einsum.
pinned_in /opt/optcert-timm timm 1.0.31 ||
    "$T2/bin/python" -m pip install -q --no-deps --target /opt/optcert-timm timm==1.0.31 \
        torchvision==0.29.2 pillow==13.0.0
pinned_in /opt/optcert-bnb bitsandbytes 0.50.2 ||
    "$T2/bin/python" -m pip install -q --no-deps --target /opt/optcert-bnb bitsandbytes==0.50.2
pinned_in /opt/optcert-heavyball heavyball 3.2.1 ||
    "$T2/bin/python" -m pip install -q --no-deps --target /opt/optcert-heavyball heavyball==3.2.1 \
        opt-einsum==3.4.0
"$T2/bin/python" -c 'import torch, numpy; print("torch2 venv ok: torch", torch.__version__, "numpy", numpy.__version__)'

"$PY" -c 'import torch, numpy, safetensors; from importlib import metadata as m
print("python ok: torch", torch.__version__, "numpy", numpy.__version__, "safetensors",
      safetensors.__version__, "lion-pytorch", m.version("lion-pytorch"), "megatron-core",
      m.version("megatron-core"))'
