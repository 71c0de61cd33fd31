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
import argparse
import json
import sys
import warnings

import numpy as np
import torch
from safetensors.numpy import save_file
from torch.optim import lr_scheduler as sched

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


def run_case(h, points):
    built = build(h)
    if built is None:
        return None
    opt, s = built
    group = opt.param_groups[0]
    order = sorted(range(len(points)), key=lambda i: points[i]["samples"])
    lr, wd = [0.0] * len(points), [0.0] * len(points)
    at = 0
    for i in order:
        target = points[i]["samples"]
        if target < 0:
            return None
        while at < target:
            if s is not None:
                s.step()
            at += 1
        lr[i], wd[i] = group["lr"], group["weight_decay"]
    return np.array([lr], dtype=np.float64), np.array([wd], dtype=np.float64)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vectors", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    try:
        with open(args.vectors, encoding="utf-8") as f:
            doc = json.load(f)
        if doc.get("schema") != "optcert-vectors/1" or doc.get("algorithm") != "schedule":
            raise ValueError("not an optcert-vectors/1 schedule family")
        family = doc["family"]
        cases = [(g["hparams"], t) for g in doc["testGroups"] for t in g["tests"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"torch_schedule: malformed input {args.vectors}: {e}", file=sys.stderr)
        return 2
    warnings.filterwarnings("ignore", category=UserWarning)  # SequentialLR's step(0) warning
    results, meta, counts = {}, {}, {"ok": 0, "rejected": 0, "unsupported": 0}
    for h, t in cases:
        out = None
        if t.get("result") == "valid":
            try:
                out = run_case(h, t["points"])
                status = "ok" if out is not None else "unsupported"
            except Exception:  # torch refusing the configuration
                status = "rejected"
        else:
            status = "unsupported"
        if out is not None:
            results[f"{family}/{t['tcId']}/lr"], results[f"{family}/{t['tcId']}/wd"] = out
        meta[f"status/{family}/{t['tcId']}"] = status
        counts[status] += 1
    meta["impl"] = "torch.optim.lr_scheduler (LinearLR, CosineAnnealingLR, SequentialLR)"
    meta["implVersion"] = f"torch {torch.__version__}"
    meta["adapter"] = ADAPTER
    save_file(results, args.out, metadata=meta)
    print(f"torch_schedule: {family}: {len(cases)} cases: {counts['ok']} ok, "
          f"{counts['rejected']} rejected, {counts['unsupported']} unsupported; "
          f"{meta['implVersion']} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
