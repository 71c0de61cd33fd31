#!/usr/bin/python3
"""optcert adapter: run torch.amp.GradScaler's scale update on loss-scale-torch.

GradScaler.update() is `torch._amp_update_scale_(scale, growth_tracker, found_inf,
growth_factor, backoff_factor, growth_interval)` on its float32 scale and int32 growth-tracker
tensors; this adapter calls that op once per update of the case's history, exactly as
GradScaler.update() does after combining the found_inf of all optimizers, and records the scale
and the tracker. GradScaler's own constructor checks (`growth_factor > 1`, `backoff_factor < 1`)
are applied first by constructing a GradScaler with the case's values.

The op needs a kernel for the device: torch 1.13 (Debian 12's python3-torch) has a CUDA kernel
only, so on a machine without CUDA every case is reported `unsupported` with the reason
(spec/loss_scale.md §6); a torch with the CPU kernel (2.x) or a CUDA device runs it.

    /usr/bin/python3 conformance/adapters/torch_grad_scaler.py \\
        --vectors vectors/loss-scale-torch/loss-scale-torch.json --out results.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import sys
import warnings

import numpy as np
import torch

import results_file

ADAPTER = "optcert torch_grad_scaler.py 1"


def device_that_runs_the_op():
    """A device on which _amp_update_scale_ has a kernel, or None (and why)."""
    candidates = (["cuda"] if torch.cuda.is_available() else []) + ["cpu"]
    for dev in candidates:
        scale = torch.ones(1, dtype=torch.float32, device=dev)
        tracker = torch.zeros(1, dtype=torch.int32, device=dev)
        try:
            torch._amp_update_scale_(scale, tracker, torch.zeros(1, device=dev), 2.0, 0.5, 2)
            return dev, None
        except (NotImplementedError, RuntimeError) as e:
            reason = str(e).split(". ")[0]
    return None, reason


def grad_scaler_class():
    return getattr(getattr(torch, "amp", None), "GradScaler", None) or torch.cuda.amp.GradScaler


def check_config(h):
    """GradScaler's constructor checks (only run when the scaler is enabled)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grad_scaler_class()(init_scale=float.fromhex(h["initialScale"]),
                            growth_factor=float.fromhex(h["growthFactor"]),
                            backoff_factor=float.fromhex(h["backoffFactor"]),
                            growth_interval=h["growthInterval"], enabled=True)
    # A disabled scaler (no CUDA in torch 1.13) skips its asserts: state them as GradScaler does.
    assert float.fromhex(h["growthFactor"]) > 1.0, "The growth factor must be > 1.0."
    assert float.fromhex(h["backoffFactor"]) < 1.0, "The backoff factor must be < 1.0."


def run_case(dev, h, history):
    scale = torch.full((1,), float.fromhex(h["initialScale"]), dtype=torch.float32, device=dev)
    tracker = torch.zeros(1, dtype=torch.int32, device=dev)
    scales, trackers = [], []
    for flag in history:
        found_inf = torch.full((1,), 1.0 if flag == "1" else 0.0, device=dev)
        torch._amp_update_scale_(scale, tracker, found_inf, float.fromhex(h["growthFactor"]),
                                 float.fromhex(h["backoffFactor"]), h["growthInterval"])
        scales.append(scale.item())
        trackers.append(tracker.item())
    as_col = lambda v: np.array(v, dtype=np.float32).reshape(-1, 1)  # noqa: E731
    return {"scale": as_col(scales), "growthTracker": as_col(trackers)}


def main(argv=None):
    out, doc, cases = results_file.read_family(
        argv, __doc__.splitlines()[0], "torch_grad_scaler",
        lambda d: d.get("algorithm") == "loss-scale" and d.get("profile") == "torch")
    family, results, meta = doc["family"], {}, {}
    dev, reason = device_that_runs_the_op()
    for h, t in cases:
        if dev is None:
            status = "unsupported"
        else:
            try:
                check_config(h)
            except AssertionError:
                status = "rejected"
            else:
                for name, x in run_case(dev, h, t["foundInf"]).items():
                    results[f"{family}/{t['tcId']}/{name}"] = x
                status = "ok"
        meta[f"status/{family}/{t['tcId']}"] = status
    results_file.write(out, results, meta, "torch.amp.GradScaler (torch._amp_update_scale_)",
                       f"torch {torch.__version__} ({dev or 'no device with a kernel'})", ADAPTER,
                       "torch_grad_scaler", family, f"; not run: {reason}" if dev is None else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
