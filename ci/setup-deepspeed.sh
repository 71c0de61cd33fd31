#!/bin/sh
# DeepSpeed's CPU Adam (DeepSpeedCPUAdam), the bandwidth peer of fast/bench/bench.py (not a
# test dependency): a virtual environment /opt/optcert-ds that sees torch 2.15 of
# /opt/optcert-torch2 (ci/setup-python.sh) through a .pth file instead of a second 5 GB copy,
# DeepSpeed from PyPI built against it, and its cpu_adam op compiled once (JIT, ninja).
# Idempotent. Run as root after ci/setup-python.sh.
set -eu
T2=/opt/optcert-torch2
DS=/opt/optcert-ds
DSVER=0.19.8
"$DS/bin/python" -c 'import deepspeed' >/dev/null 2>&1 || {
    /usr/bin/python3 -m venv "$DS"
    "$T2/bin/python" -c 'import site; print(site.getsitepackages()[0])' \
        >"$("$DS/bin/python" -c 'import site; print(site.getsitepackages()[0])')/optcert-torch2.pth"
    # the sdist's setup.py imports torch: build it against the torch above, not an isolated copy
    "$DS/bin/python" -m pip install -q setuptools wheel ninja
    DS_BUILD_OPS=0 "$DS/bin/python" -m pip install -q --no-build-isolation "deepspeed==$DSVER"
}
# the op's JIT build (about 4 minutes on 2 idle cores; cached in ~/.cache/torch_extensions)
"$DS/bin/python" -c '
import torch
from deepspeed.ops.adam import DeepSpeedCPUAdam
p = [torch.nn.Parameter(torch.zeros(8))]
p[0].grad = torch.ones(8)
DeepSpeedCPUAdam(p).step()
print("deepspeed venv ok: DeepSpeedCPUAdam runs")'
