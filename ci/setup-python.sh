#!/bin/sh
# Python side of the conformance suite (conformance/adapters/*.py): Debian's python3 with
# python3-torch and python3-numpy from apt, safetensors from PyPI. Idempotent: installs only
# what is missing. Run as root (CI container).
set -eu

PY=/usr/bin/python3

missing=""
dpkg -s python3-torch >/dev/null 2>&1 || missing="$missing python3-torch"
dpkg -s python3-numpy >/dev/null 2>&1 || missing="$missing python3-numpy"
"$PY" -c 'import safetensors' >/dev/null 2>&1 || "$PY" -m pip --version >/dev/null 2>&1 ||
    missing="$missing python3-pip"
if [ -n "$missing" ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
fi

if ! "$PY" -c 'import safetensors' >/dev/null 2>&1; then
    "$PY" -m pip install --break-system-packages safetensors
fi

"$PY" -c 'import torch, numpy, safetensors; print("python ok: torch", torch.__version__, "numpy", numpy.__version__, "safetensors", safetensors.__version__)'
