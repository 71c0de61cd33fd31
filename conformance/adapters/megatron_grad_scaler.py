#!/usr/bin/python3
"""optcert adapter: run Megatron-LM's own grad scalers on a loss-scale family.

The scalers are megatron/core/optimizer/grad_scaler.py from the megatron-core wheel (PyPI,
installed with --no-deps by ci/setup-python.sh): DynamicGradScaler for `loss-scale-megatron`,
ConstantGradScaler for `loss-scale-megatron-constant`. The file is loaded by path (importing
megatron.core pulls in the whole training stack). Its classes create their tensors with
device='cuda'; the adapter gives the loaded module a `torch` whose `tensor()` ignores the device
argument (every other attribute is torch itself), so the scalers' own arithmetic runs on CPU
float32 tensors. Everything else is Megatron's code (spec/loss_scale.md §6).

For every test: construct the scaler from the case's configuration (an AssertionError is
Megatron's way of refusing it: `rejected`), call update(found_inf) once per character of
`foundInf`, and record scale, growth_tracker and hysteresis_tracker after each update.

    /usr/bin/python3 conformance/adapters/megatron_grad_scaler.py \\
        --vectors vectors/loss-scale-megatron/loss-scale-megatron.json --out results.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import importlib.util
import os
import sys
from importlib import metadata

import numpy as np
import torch

import results_file

ADAPTER = "optcert megatron_grad_scaler.py 1"


class _TorchOnCpu:
    """torch, except that tensor(..., device=...) creates a CPU tensor."""

    def __getattr__(self, name):
        return getattr(torch, name)

    @staticmethod
    def tensor(*args, device=None, **kwargs):  # noqa: ARG004 (the device is what is dropped)
        return torch.tensor(*args, **kwargs)


def load_grad_scaler_module():
    spec = importlib.util.find_spec("megatron")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("megatron-core is not installed (ci/setup-python.sh)")
    path = os.path.join(spec.submodule_search_locations[0], "core", "optimizer", "grad_scaler.py")
    mspec = importlib.util.spec_from_file_location("megatron_grad_scaler", path)
    module = importlib.util.module_from_spec(mspec)
    mspec.loader.exec_module(module)
    module.torch = _TorchOnCpu()
    return module


def make_scaler(module, profile, h):
    value = lambda key: float.fromhex(h[key])  # noqa: E731
    if profile == "megatron-constant":
        return module.ConstantGradScaler(value("initialScale"))
    if profile == "megatron":
        return module.DynamicGradScaler(
            initial_scale=value("initialScale"), min_scale=value("minScale"),
            growth_factor=value("growthFactor"), backoff_factor=value("backoffFactor"),
            growth_interval=h["growthInterval"], hysteresis=h["hysteresis"])
    raise ValueError(f"profile {profile} is not a Megatron scaler")


def run_case(scaler, history, profile):
    out = {"scale": [], "growthTracker": [], "hysteresisTracker": []}
    for flag in history:
        scaler.update(flag == "1")
        out["scale"].append(float(scaler.scale.item()))
        if profile == "megatron":
            out["growthTracker"].append(scaler._growth_tracker)
            out["hysteresisTracker"].append(scaler._hysteresis_tracker)
    return {k: np.array(v, dtype=np.float32).reshape(-1, 1) for k, v in out.items() if v}


def main(argv=None):
    out, doc, cases = results_file.read_family(
        argv, __doc__.splitlines()[0], "megatron_grad_scaler",
        lambda d: d.get("algorithm") == "loss-scale" and d.get("profile", "").startswith("megatron"))
    family, profile, results, meta = doc["family"], doc["profile"], {}, {}
    module = load_grad_scaler_module()
    for h, t in cases:
        try:
            scaler = make_scaler(module, profile, h)
        except AssertionError:
            status = "rejected"
        else:
            for name, x in run_case(scaler, t["foundInf"], profile).items():
                results[f"{family}/{t['tcId']}/{name}"] = x
            status = "ok"
        meta[f"status/{family}/{t['tcId']}"] = status
    kind = "ConstantGradScaler" if profile == "megatron-constant" else "DynamicGradScaler"
    results_file.write(out, results, meta, f"megatron.core.optimizer.grad_scaler.{kind}",
                       f"megatron-core {metadata.version('megatron-core')} "
                       f"(torch {torch.__version__}, CPU)", ADAPTER, "megatron_grad_scaler",
                       family)
    return 0


if __name__ == "__main__":
    sys.exit(main())
