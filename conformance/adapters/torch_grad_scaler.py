#!/opt/optcert-torch2/bin/python
"""optcert adapter: run torch.amp.GradScaler's whole iteration on loss-scale-torch.

Each update of a case's history is one training iteration through GradScaler's public API, as
its documentation shows it: `scaler.scale(loss).backward()`, `scaler.step(optimizer)` (which
unscales: `_amp_foreach_non_finite_check_and_unscale_` sets found_inf when a scaled gradient
holds an inf or a NaN, and then skips `optimizer.step()`), `scaler.update()` (which calls
`_amp_update_scale_` with that found_inf). The loss is `sum(p * g)` over a two-element
parameter: for a `1` of the history `g` holds +inf in one element, so the gradient GradScaler
inspects is non-finite; for a `0` `g` is zero, so it is finite whatever the scale. After each
update `scaler.state_dict()` gives the scale and `_growth_tracker` recorded. The case's
configuration goes to GradScaler's constructor unchanged: its own checks decide `rejected`.

Needs `torch.amp.GradScaler(device)` and the two kernels on that device: torch >= 2.3 on CPU
(`ci/setup-python.sh` installs torch 2.15.0 in /opt/optcert-torch2), or CUDA. Debian's torch
1.13 has neither a CPU kernel nor `torch.amp.GradScaler`: every case is then `unsupported`
with the reason (spec/loss_scale.md §6).

    /opt/optcert-torch2/bin/python conformance/adapters/torch_grad_scaler.py \\
        --vectors vectors/loss-scale-torch/loss-scale-torch.json --out results.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import sys

import numpy as np
import torch

import results_file

ADAPTER = "optcert torch_grad_scaler.py 2"


class Iteration:
    """A parameter, an optimizer and a GradScaler on one device, stepped as a training loop."""

    def __init__(self, dev, h):
        self.scaler = torch.amp.GradScaler(
            dev, init_scale=float.fromhex(h["initialScale"]),
            growth_factor=float.fromhex(h["growthFactor"]),
            backoff_factor=float.fromhex(h["backoffFactor"]), growth_interval=h["growthInterval"])
        self.p = torch.zeros(2, dtype=torch.float32, device=dev, requires_grad=True)
        self.optimizer = torch.optim.SGD([self.p], lr=0.0)
        self.clean = torch.zeros(2, dtype=torch.float32, device=dev)
        self.overflow = torch.tensor([0.0, float("inf")], dtype=torch.float32, device=dev)

    def update(self, found_inf):
        self.optimizer.zero_grad(set_to_none=True)
        loss = (self.p * (self.overflow if found_inf else self.clean)).sum()
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        state = self.scaler.state_dict()
        return state["scale"], state["_growth_tracker"]


def device_that_runs_it():
    """A device on which GradScaler runs a whole iteration, or None and why."""
    if not hasattr(getattr(torch, "amp", None), "GradScaler"):
        return None, f"torch {torch.__version__} has no torch.amp.GradScaler"
    reason = None
    for dev in (["cuda"] if torch.cuda.is_available() else []) + ["cpu"]:
        try:
            Iteration(dev, {"initialScale": "0x1p+0", "growthFactor": "0x1p+1",
                            "backoffFactor": "0x1p-1", "growthInterval": 2}).update(True)
            return dev, None
        except (NotImplementedError, RuntimeError) as e:
            reason = str(e).split(". ")[0]
    return None, reason


def run_case(dev, h, history):
    it = Iteration(dev, h)
    states = [it.update(flag == "1") for flag in history]
    as_col = lambda v: np.array(v, dtype=np.float32).reshape(-1, 1)  # noqa: E731
    return {"scale": as_col([s for s, _ in states]), "growthTracker": as_col([g for _, g in states])}


def main(argv=None):
    out, doc, cases = results_file.read_family(
        argv, __doc__.splitlines()[0], "torch_grad_scaler",
        lambda d: d.get("algorithm") == "loss-scale" and d.get("profile") == "torch")
    family, results, meta = doc["family"], {}, {}
    dev, reason = device_that_runs_it()
    for h, t in cases:
        if dev is None:
            status = "unsupported"
        else:
            try:
                values = run_case(dev, h, t["foundInf"])
            except AssertionError:  # GradScaler's constructor refuses the configuration
                status = "rejected"
            else:
                for name, x in values.items():
                    results[f"{family}/{t['tcId']}/{name}"] = x
                status = "ok"
        meta[f"status/{family}/{t['tcId']}"] = status
    results_file.write(out, results, meta, "torch.amp.GradScaler (scale, step, update)",
                       f"torch {torch.__version__} ({dev or 'no device with the kernels'})", ADAPTER,
                       "torch_grad_scaler", family, f"; not run: {reason}" if dev is None else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
