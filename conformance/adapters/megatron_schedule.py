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
import importlib.util
import os
import sys
import types
from importlib import metadata

from schedule_family import run_adapter

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


def run_case(cls, h, t):
    """(status, lr list, wd list); an assert or error is Megatron's way of refusing the case."""
    group = {"wd_mult": float.fromhex(h["wdMult"])}
    optimizer = types.SimpleNamespace(param_groups=[group])
    lr, wd = [], []
    try:
        sched = cls(optimizer, **scheduler_args(h))
        for pt in t["points"]:
            sched.num_steps = 0
            sched.step(pt["samples"])
            lr.append(group["lr"])
            wd.append(group["weight_decay"])
    except Exception:
        return "rejected", None, None
    return "ok", lr, wd


if __name__ == "__main__":
    scheduler = load_scheduler_class()
    sys.exit(run_adapter("megatron_schedule", __doc__, lambda h, t: run_case(scheduler, h, t),
                         "megatron.core.optimizer_param_scheduler.OptimizerParamScheduler",
                         f"megatron-core {metadata.version('megatron-core')}", ADAPTER))
