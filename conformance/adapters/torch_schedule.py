#!/usr/bin/python3
"""optcert adapter: run torch.optim.lr_scheduler on the schedule family where it expresses it.

torch counts scheduler steps; the schedule family counts samples (spec/schedule.md). With one
sample per step the two agree, so for every valid test whose Megatron configuration has a torch
equivalent this adapter builds, on an SGD optimizer with lr = maxLr and
weight_decay = endWd * wdMult:
  warmup (warmupSteps > 0)   LinearLR(start_factor = initLr / maxLr, total_iters = warmupSteps);
                             torch requires start_factor > 0, so initLr = 0 has no equivalent
  decayStyle constant        nothing after the warmup (lr stays maxLr)
  decayStyle linear          LinearLR(1, minLr / maxLr, total_iters = decaySteps - warmupSteps)
  decayStyle cosine          CosineAnnealingLR(T_max = decaySteps - warmupSteps, eta_min = minLr)
chained with SequentialLR(milestones = [warmupSteps]) when there is a warmup, and steps the
scheduler up to every point's position (in increasing order), recording the group's lr and
weight_decay. Everything else (inverse square root, WSD, weight-decay increments, invalid
Megatron configurations, which torch's own parameters cannot express) is `unsupported`.

    /usr/bin/python3 conformance/adapters/torch_schedule.py \\
        --vectors vectors/schedule-megatron/schedule-megatron.json --out results.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import sys
import warnings

import torch
from torch.optim import lr_scheduler as sched

from schedule_family import run_adapter

ADAPTER = "optcert torch_schedule.py 1"


def build(h):
    """(optimizer, scheduler) equivalent to the configuration h, or None."""
    init, peak, floor = (float.fromhex(h[k]) for k in ("initLr", "maxLr", "minLr"))
    warmup, decay, style = h["warmupSteps"], h["decaySteps"], h["decayStyle"]
    if style not in ("constant", "linear", "cosine") or h["wdStyle"] != "constant":
        return None
    if (warmup > 0 and init <= 0) or peak <= 0 or decay <= warmup:
        return None
    group_wd = float.fromhex(h["endWd"]) * float.fromhex(h["wdMult"])
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=peak, weight_decay=group_wd)
    parts = []
    if warmup > 0:
        parts.append(sched.LinearLR(opt, start_factor=init / peak, end_factor=1.0,
                                    total_iters=warmup))
    if style == "linear":
        parts.append(sched.LinearLR(opt, start_factor=1.0, end_factor=floor / peak,
                                    total_iters=decay - warmup))
    elif style == "cosine":
        parts.append(sched.CosineAnnealingLR(opt, T_max=decay - warmup, eta_min=floor))
    if not parts:
        return opt, None
    if len(parts) == 1:
        return opt, parts[0]
    return opt, sched.SequentialLR(opt, parts, milestones=[warmup])


def run_case(h, t):
    """(status, lr list, wd list) of one test: unsupported unless valid and expressible."""
    built = build(h) if t.get("result") == "valid" else None
    points = t["points"]
    if built is None or any(p["samples"] < 0 for p in points):
        return "unsupported", None, None
    opt, s = built
    group = opt.param_groups[0]
    lr, wd = [0.0] * len(points), [0.0] * len(points)
    at = 0
    for i in sorted(range(len(points)), key=lambda i: points[i]["samples"]):
        while at < points[i]["samples"]:
            if s is not None:
                s.step()
            at += 1
        lr[i], wd[i] = group["lr"], group["weight_decay"]
    return "ok", lr, wd


if __name__ == "__main__":
    warnings.filterwarnings("ignore", category=UserWarning)  # SequentialLR's step(0) warning
    sys.exit(run_adapter("torch_schedule", __doc__, run_case,
                         "torch.optim.lr_scheduler (LinearLR, CosineAnnealingLR, SequentialLR)",
                         f"torch {torch.__version__}", ADAPTER))
