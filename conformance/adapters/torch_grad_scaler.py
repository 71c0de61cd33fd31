#!/opt/optcert-torch2/bin/python
"""optcert adapter: run torch.amp.GradScaler's whole iteration on loss-scale-torch and resume-loss-scale-torch.

Each update of a case's history is one training iteration through GradScaler's public API, as
its documentation shows it: `scaler.scale(loss).backward()`, `scaler.step(optimizer)` (which
unscales: `_amp_foreach_non_finite_check_and_unscale_` sets found_inf when a scaled gradient
holds an inf or a NaN, and then skips `optimizer.step()`), `scaler.update()` (which calls
`_amp_update_scale_` with that found_inf). The loss is `sum(p * g)` over a two-element
parameter: for a `1` of the history `g` holds +inf in one element, so the gradient GradScaler
inspects is non-finite; for a `0` `g` is zero, so it is finite whatever the scale. After each
update `scaler.state_dict()` gives the scale and `_growth_tracker` recorded. The case's
configuration goes to GradScaler's constructor unchanged: its own checks decide `rejected`.
A resume case (resumeAt, spec/checkpoint.md RESUME-LS-1) saves `scaler.state_dict()` with
`torch.save` after resumeAt updates, builds a fresh iteration (parameter, optimizer,
GradScaler of the same configuration), restores the scaler with `torch.load` and
`load_state_dict`, and continues; the same history without the break gives the metadata
`unbroken/<family>/<tcId>` (VEC-RES-6).

Needs `torch.amp.GradScaler(device)` and the two kernels on that device: torch >= 2.3 on CPU
(`ci/setup-python.sh` installs torch 2.15.0 in /opt/optcert-torch2), or CUDA. Debian's torch
1.13 has neither a CPU kernel nor `torch.amp.GradScaler`: every case is then `unsupported`
with the reason (spec/loss_scale.md §6).

    /opt/optcert-torch2/bin/python conformance/adapters/torch_grad_scaler.py \\
        --vectors vectors/resume-loss-scale-torch/resume-loss-scale-torch.json --out results.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import io
import sys

import torch

import results_file

ADAPTER = "optcert torch_grad_scaler.py 3"


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

    def state(self):
        state = self.scaler.state_dict()
        return state["scale"], state["_growth_tracker"]


def resume(dev, h, it):
    """The scaler's state_dict through torch.save and torch.load into a fresh iteration's."""
    blob = io.BytesIO()
    torch.save({"scaler": it.scaler.state_dict()}, blob)
    blob.seek(0)
    fresh = Iteration(dev, h)
    fresh.scaler.load_state_dict(torch.load(blob)["scaler"])
    return fresh


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
                values, unbroken = results_file.scaler_case(
                    t, lambda: Iteration(dev, h), lambda it: resume(dev, h, it),
                    ("scale", "growthTracker"))
            except AssertionError:  # GradScaler's constructor refuses the configuration
                status = "rejected"
            else:
                for name, x in values.items():
                    results[f"{family}/{t['tcId']}/{name}"] = x
                if unbroken:
                    meta[f"unbroken/{family}/{t['tcId']}"] = unbroken
                status = "ok"
        meta[f"status/{family}/{t['tcId']}"] = status
    results_file.write(out, results, meta, "torch.amp.GradScaler (scale, step, update)",
                       f"torch {torch.__version__} ({dev or 'no device with the kernels'})", ADAPTER,
                       "torch_grad_scaler", family, f"; not run: {reason}" if dev is None else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
