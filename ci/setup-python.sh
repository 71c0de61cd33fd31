#!/bin/sh
# Python side of the conformance suite (conformance/adapters/*.py): Debian's python3 with
# python3-torch, python3-numpy and python3-jsonschema from apt; safetensors and lion-pytorch
# and megatron-core (pinned) from PyPI. Idempotent: installs only what is missing. Run as root.
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
# optax's Muon needs JAX, and JAX needs numpy >= 1.26, which would replace the numpy Debian's
# torch 1.13 is built against: a separate virtual environment (about 600 MB, 1 to 2 minutes).
JAXPY=/opt/optcert-jax/bin/python
"$JAXPY" -c 'import optax, jax, safetensors' >/dev/null 2>&1 || {
    "$PY" -m venv /opt/optcert-jax
    "$JAXPY" -m pip install -q "jax[cpu]==0.7.1" "optax==0.2.5" "safetensors==0.8.0"
}
"$JAXPY" -c 'import optax, jax; print("jax venv ok: jax", jax.__version__, "optax", optax.__version__)'

"$PY" -c 'import torch, numpy, safetensors; from importlib import metadata as m
print("python ok: torch", torch.__version__, "numpy", numpy.__version__, "safetensors",
      safetensors.__version__, "lion-pytorch", m.version("lion-pytorch"), "megatron-core",
      m.version("megatron-core"))'
