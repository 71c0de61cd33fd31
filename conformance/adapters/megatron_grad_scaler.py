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
A resume case (resumeAt, the resume-loss-scale-* families, spec/checkpoint.md RESUME-LS-1)
saves the scaler's own `state_dict()` with `torch.save` after resumeAt updates, constructs a
fresh scaler of the same configuration, restores it with `torch.load` and its
`load_state_dict`, and continues; the same history without the break gives the metadata
`unbroken/<family>/<tcId>` (VEC-RES-6). DynamicGradScaler.load_state_dict moves the saved
scale to the GPU (`state_dict['scale'].cuda(torch.cuda.current_device())`); on CPU that move
is the identity for the duration of the call (the same stand-in as for `tensor(device=...)`).

    /usr/bin/python3 conformance/adapters/megatron_grad_scaler.py \\
        --vectors vectors/resume-loss-scale-megatron/resume-loss-scale-megatron.json \\
        --out results.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import importlib.util
import io
import os
import sys
from importlib import metadata
from unittest import mock

import torch

import results_file

ADAPTER = "optcert megatron_grad_scaler.py 2"


class _TorchOnCpu:
    """torch, except that tensor(..., device=...) creates a CPU tensor and cuda.current_device()
    is 0 (the device index load_state_dict moves the scale to; see resume)."""

    cuda = type("cuda", (), {"current_device": staticmethod(lambda: 0)})

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


class Scaler:
    """A Megatron scaler and the state its profile outputs (LS-STATE-1)."""

    def __init__(self, module, profile, h):
        self.scaler, self.profile = make_scaler(module, profile, h), profile

    def update(self, found_inf):
        self.scaler.update(found_inf)

    def state(self):
        s = self.scaler
        return ((float(s.scale.item()), s._growth_tracker, s._hysteresis_tracker)
                if self.profile == "megatron" else (float(s.scale.item()),))


def resume(module, profile, h, old):
    """The scaler's state_dict through torch.save and torch.load into a fresh scaler's
    load_state_dict, whose move of the scale to the GPU is the identity on CPU."""
    blob = io.BytesIO()
    torch.save({"grad_scaler": old.scaler.state_dict()}, blob)
    blob.seek(0)
    fresh = Scaler(module, profile, h)
    with mock.patch.object(torch.Tensor, "cuda", lambda self, *args, **kwargs: self):
        fresh.scaler.load_state_dict(torch.load(blob)["grad_scaler"])
    return fresh


def main(argv=None):
    out, doc, cases = results_file.read_family(
        argv, __doc__.splitlines()[0], "megatron_grad_scaler",
        lambda d: d.get("algorithm") == "loss-scale" and d.get("profile", "").startswith("megatron"))
    family, profile, results, meta = doc["family"], doc["profile"], {}, {}
    module = load_grad_scaler_module()
    names = ("scale", "growthTracker", "hysteresisTracker") if profile == "megatron" else ("scale",)
    for h, t in cases:
        try:
            values, unbroken = results_file.scaler_case(
                t, lambda: Scaler(module, profile, h),  # noqa: B023 (called in this iteration)
                lambda old: resume(module, profile, h, old), names)  # noqa: B023
        except AssertionError:
            status = "rejected"
        else:
            for name, x in values.items():
                results[f"{family}/{t['tcId']}/{name}"] = x
            if unbroken:
                meta[f"unbroken/{family}/{t['tcId']}"] = unbroken
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
