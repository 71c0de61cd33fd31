#!/usr/bin/python3
"""optcert adapter: run Megatron-LM's own OptimizerParamScheduler on a schedule family.

The scheduler is megatron/core/optimizer_param_scheduler.py from the megatron-core wheel
(PyPI, installed with --no-deps by ci/setup-python.sh). Importing megatron.core pulls in the whole
training stack, so this adapter loads that one file by path and gives it the only name it
imports, megatron.core.utils.log_single_rank, as a no-op logger. Everything it computes is
Megatron's code.

For every test of the family (spec/vectors.md, spec/schedule.md): build the scheduler with the
case's configuration on a stand-in optimizer holding one parameter group {'wd_mult': wdMult};
for every point, reset num_steps to 0 and call step(samples), Megatron's own way of advancing
by an increment; record the group's 'lr' and 'weight_decay'. A constructor or step that raises
marks the case `rejected`. The results file (spec/vectors.md §2) is judged by `optcert judge`.

    /usr/bin/python3 conformance/adapters/megatron_schedule.py \\
        --vectors vectors/schedule-megatron/schedule-megatron.json --out results.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import argparse
import importlib.util
import json
import os
import sys
import types
from importlib import metadata

import numpy as np
from safetensors.numpy import save_file

ADAPTER = "optcert megatron_schedule.py 1"


def load_scheduler_class():
    """Megatron's OptimizerParamScheduler, loaded from the installed megatron-core by path."""
    spec = importlib.util.find_spec("megatron")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("megatron-core is not installed (ci/setup-python.sh)")
    path = os.path.join(spec.submodule_search_locations[0], "core", "optimizer_param_scheduler.py")
    utils = types.ModuleType("megatron.core.utils")
    utils.log_single_rank = lambda logger, level, msg: None
    sys.modules.setdefault("megatron", types.ModuleType("megatron"))
    sys.modules.setdefault("megatron.core", types.ModuleType("megatron.core"))
    sys.modules["megatron.core.utils"] = utils
    mspec = importlib.util.spec_from_file_location("megatron.core.optimizer_param_scheduler", path)
    module = importlib.util.module_from_spec(mspec)
    mspec.loader.exec_module(module)
    return module.OptimizerParamScheduler


def scheduler_args(h):
    return dict(init_lr=float.fromhex(h["initLr"]), max_lr=float.fromhex(h["maxLr"]),
                min_lr=float.fromhex(h["minLr"]), lr_warmup_steps=h["warmupSteps"],
                lr_decay_steps=h["decaySteps"], lr_decay_style=h["decayStyle"],
                start_wd=float.fromhex(h["startWd"]), end_wd=float.fromhex(h["endWd"]),
                wd_incr_steps=h["wdIncrSteps"], wd_incr_style=h["wdStyle"],
                wsd_decay_steps=h["wsdDecaySteps"], lr_wsd_decay_style=h["wsdStyle"])


def run_case(cls, h, points):
    group = {"wd_mult": float.fromhex(h["wdMult"])}
    optimizer = types.SimpleNamespace(param_groups=[group])
    sched = cls(optimizer, **scheduler_args(h))
    lr, wd = [], []
    for pt in points:
        sched.num_steps = 0
        sched.step(pt["samples"])
        lr.append(group["lr"])
        wd.append(group["weight_decay"])
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
        print(f"megatron_schedule: malformed input {args.vectors}: {e}", file=sys.stderr)
        return 2
    cls = load_scheduler_class()
    results, meta, counts = {}, {}, {"ok": 0, "rejected": 0}
    for h, t in cases:
        try:
            lr, wd = run_case(cls, h, t["points"])
            results[f"{family}/{t['tcId']}/lr"] = lr
            results[f"{family}/{t['tcId']}/wd"] = wd
            status = "ok"
        except Exception:  # an assert or error is Megatron's way of refusing the case
            status = "rejected"
        meta[f"status/{family}/{t['tcId']}"] = status
        counts[status] += 1
    meta["impl"] = "megatron.core.optimizer_param_scheduler.OptimizerParamScheduler"
    meta["implVersion"] = f"megatron-core {metadata.version('megatron-core')}"
    meta["adapter"] = ADAPTER
    save_file(results, args.out, metadata=meta)
    print(f"megatron_schedule: {family}: {len(cases)} cases: {counts['ok']} ok, "
          f"{counts['rejected']} rejected; {meta['implVersion']} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
