#!/usr/bin/python3
"""optcert adapter: Megatron's Muon + AdamW routing and steps on muon-route-megatron.

The route and the weight decay are Megatron's own decision: megatron-core 0.19.2's
`_get_param_groups` (megatron/core/optimizer/__init__.py L299-414) over one model chunk holding
the case's parameter under its name (with `is_embedding_or_output_parameter` from the case),
with the overrides `get_muon_based_optimizer` applies (L796-811): the standard ones
(`get_standard_config_overrides`, L92-127: `wd_mult = 0` for 1-D parameters and names ending
in `.bias`) and Muon's defaults (emerging_optimizers.py L469-475, `_is_nonlinear_or_embedding`
L128-130: the embeddings and output head, and every parameter that is not 2-D, go to
`muon_scalar_optimizer`, 'adam'). The parameter's group names its optimizer ('adam', or none:
Muon) and its `wd_mult`. Then the step: Muon through megatron_muon.py's run of
`TensorParallelMuon` (one matrix, no tensor parallelism, fp32_matmul_prec "highest"), AdamW
as Megatron makes it without Transformer Engine or Apex (`torch.optim.AdamW`, `torch.optim.Adam`
without decoupled decay, __init__.py L540-556) with weight decay `weightDecay x wd_mult`, the
state's step `firstStep - 1`. `unsupported`: what megatron_muon.py cannot give Megatron's Muon,
and an Adam with AMSGrad, maximize, eps inside the root or a schedule multiplier (no
OptimizerConfig field).

The cases give no attention configuration, so the QKV split that Megatron tags from the model
config (`linear_qkv.weight` whose rows the split shapes divide, __init__.py L785-796) is not
applied: the fused QKV weight is one matrix here (the split is muon-blocks-megatron-qkv's).

Recorded (VEC-RES-4): p, m (and v for AdamW) after the step, and the route as metadata
`route/<family>/<tcId>`. A Megatron or torch exception marks the case `rejected`.

    PYTHONPATH=/opt/optcert-mcore-0.19.2 /opt/optcert-torch2/bin/python \\
        conformance/adapters/megatron_route.py \\
        --vectors vectors/muon-route-megatron/muon-route-megatron.json --out results.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import copy
import sys
import warnings

import numpy as np
import torch

import megatron_cpu
import megatron_muon
import megatron_step
import results_file

ADAPTER = "optcert megatron_route.py 1"

with warnings.catch_warnings():  # "Transformer Engine and Apex are not installed"
    warnings.simplefilter("ignore")
    from megatron.core.optimizer import _get_param_groups, get_standard_config_overrides
    from megatron.core.optimizer.emerging_optimizers import _EMERGING_OPTIMIZERS
    from megatron.core.optimizer.optimizer_config import OptimizerConfig

# _get_param_groups aligns the groups across ranks: one rank here
torch.distributed.get_world_size = lambda group=None: 1
torch.distributed.all_gather_object = lambda out, obj, group=None: out.__setitem__(0, obj)
hexf = megatron_muon.hexf


class Chunk:
    """A model chunk of one named parameter."""

    def __init__(self, name, param):
        self.name, self.param = name, param

    def named_parameters(self):
        return [(self.name, self.param)]


def megatron_group(parameter, config):
    """The parameter group Megatron puts the parameter in (get_muon_based_optimizer's
    overrides)."""
    param = torch.nn.Parameter(torch.zeros(parameter["shape"]))
    param.is_embedding_or_output_parameter = parameter["isEmbeddingOrOutput"]
    overrides = get_standard_config_overrides(config)
    defaults = copy.deepcopy(_EMERGING_OPTIMIZERS["muon"].default_param_overrides)
    for override in defaults.values():
        if override.get("optimizer") in ("adam", "lion"):
            override["optimizer"] = config.muon_scalar_optimizer
    overrides.update(defaults)
    groups = [g for g in _get_param_groups([Chunk(parameter["name"], param)], config, overrides)
              if g["params"]]
    return groups[0]


def adamw_step(a, t, tensors, wd_mult):
    rows, cols = t["rows"], t["cols"]
    p, m, v, g = (torch.from_numpy(np.array(tensors[t["inputs"][k]], dtype=np.float32).reshape(-1))
                  for k in ("p", "m", "v", "g"))
    q = torch.nn.Parameter(p.clone())
    q.grad = g.clone()
    cls = torch.optim.AdamW if a["decoupled"] else torch.optim.Adam
    opt = cls([q], lr=hexf(a["lr"]), betas=(hexf(a["beta1"]), hexf(a["beta2"])), eps=hexf(a["eps"]),
              weight_decay=hexf(a["weightDecay"]) * wd_mult)
    opt.state[q] = {"step": torch.tensor(float(t["firstStep"] - 1)), "exp_avg": m.clone(),
                    "exp_avg_sq": v.clone()}
    opt.step()
    st = opt.state[q]
    return {k: np.ascontiguousarray(x.detach().numpy().reshape(rows, cols), dtype=np.float32)
            for k, x in (("p", q), ("m", st["exp_avg"]), ("v", st["exp_avg_sq"]))}


def unsupported(h):
    """What Megatron's configuration cannot express: its Muon's (megatron_muon.py), and its
    Adam's (megatron_step.py)."""
    return megatron_muon.unsupported(h) or not megatron_step.adam_expressible(h["adamw"])


def run_case(h, t, tensors, routes):
    group = megatron_group(t["parameter"], OptimizerConfig())
    if group.get("optimizer") == "adam":
        routes[t["tcId"]] = "adamw"
        return adamw_step(h["adamw"], t, tensors, group["wd_mult"])
    routes[t["tcId"]] = "muon"
    muon = dict(t, inputs={k: t["inputs"][k] for k in ("p", "m", "g")})
    return megatron_muon.run_case(h, muon, tensors, "highest")


def main(argv=None):
    out, doc, cases = results_file.read_family(
        argv, __doc__.splitlines()[0], "megatron_route",
        lambda d: d.get("algorithm") == "muon-route" and d.get("profile") == "megatron")
    family = doc["family"]
    tensors = results_file.load_tensors(argv, doc, "megatron_route")
    routes = {}
    results, meta = results_file.run_values(
        family, cases, lambda h, t: run_case(h, t, tensors, routes),
        (AssertionError, RuntimeError, ValueError, TypeError),
        lambda h, t: unsupported(h))
    meta.update({f"route/{family}/{tc}": r for tc, r in routes.items()
                 if meta.get(f"status/{family}/{tc}") == "ok"})
    results_file.write(out, results, meta, "megatron.core.optimizer _get_param_groups + "
                       "TensorParallelMuon / torch.optim.AdamW", megatron_cpu.version(), ADAPTER,
                       "megatron_route", family)
    return 0


if __name__ == "__main__":
    sys.exit(main())
