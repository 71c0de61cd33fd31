#!/usr/bin/python3
"""optcert adapter: run Megatron's ChainedOptimizer.step (its clipping) on clip-megatron.

The entry point is `ChainedOptimizer.step` of megatron-core (megatron/core/optimizer/optimizer.py:
what `get_megatron_optimizer` returns, spec/clip.md CLIP-PROF-MEGATRON), over Megatron's own
`FP32Optimizer` sub-optimizers (one per sub-optimizer index of the views; their inner
torch.optim.SGD has lr 0, so only the gradients change), whose norm code is Megatron's
`_filter_grads_for_norm` (`param_is_not_shared`, `param_is_not_tensor_parallel_duplicate`) and
`clip_grads.get_grad_norm_fp32` / `clip_grad_by_total_norm_fp32` with the CPU fallbacks
`local_multi_tensor_l2_norm` / `local_multi_tensor_scale` (no Transformer Engine or Apex).

Every rank of the case (tp, pp, dp) that holds a view is a thread running `step()` on its own
views: a parameter per view with the view's gradient, `tensor_model_parallel` and `shared` set
from the view. A rank that holds no view (an empty pipeline stage of clip-megatron tcId 14) is
left out: it adds nothing to the norm, and Megatron itself cannot run it (on a rank whose
sub-optimizers are all stubs, ChainedOptimizer.step skips the grad-norm-group all-reduce that its
peers make, optimizer.py L1901-1907 and L315-318 at NVIDIA/Megatron-LM@d98e8a64, and they wait
forever). A collective that waits 300 s ends the adapter with an error. The
collectives are a stand-in process group: `torch.distributed.all_reduce` sums (or takes the
maximum) over the group's ranks in rank order. Groups: tensor-parallel (the ranks of one pp and
dp), grad-stats (without the distributed optimizer the model-parallel group of one dp, with it the
world: `get_grad_stats_parallel_group`). Megatron's code asks for tensors on 'cuda': they are
made on the CPU, which answers with the CUDA type names Megatron asserts (megatron_cpu.py).

Recorded (VEC-FMT-11 `value`): the norm `step()` returns on rank (0, 0, 0) (NaN if another rank
returns a different one), every view's gradient after the step in view order, and the skip
decision (`step()` reports an update that did not happen). A Megatron exception marks the case
`rejected`. `unsupported`: the inf-norm (ChainedOptimizer.step has no norm type: it calls
get_grad_norm_fp32 with its default, 2) and a group size of 0 (no rank to run).

    PYTHONPATH=/opt/optcert-mcore-0.19.2 /opt/optcert-torch2/bin/python \\
        conformance/adapters/megatron_clip.py \\
        --vectors vectors/clip-megatron/clip-megatron.json --out results.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import math
import sys
import threading
import warnings

import numpy as np
import torch

import results_file
import megatron_cpu
from megatron_cpu import Group, here

ADAPTER = "optcert megatron_clip.py 1"

with warnings.catch_warnings():  # "Transformer Engine and Apex are not installed"
    warnings.simplefilter("ignore")
    from megatron.core.optimizer.optimizer import ChainedOptimizer, FP32Optimizer
    from megatron.core.optimizer.optimizer_config import OptimizerConfig


def run_case(h, views):
    tp, pp, dp = h["tpSize"], h["ppSize"], h["dpSize"]
    held = {(v["tp"], v["pp"], v["dp"]) for v in views}
    ranks = [(t, p, d) for d in range(dp) for p in range(pp) for t in range(tp) if (t, p, d) in held]
    world = Group(ranks)
    tp_groups = {(p, d): Group([r for r in ranks if r[1:] == (p, d)], tp, tp_rank=True)
                 for p in range(pp) for d in range(dp)}
    mp_groups = {d: Group([r for r in ranks if r[2] == d]) for d in range(dp)}
    config = OptimizerConfig(clip_grad=float.fromhex(h["maxNorm"]),
                             grad_norm_skip_threshold=float.fromhex(h["skipThreshold"]))
    subs = sorted({v["optimizer"] for v in views})
    params = []
    for v in views:
        p = torch.nn.Parameter(torch.zeros(len(v["grad"]), dtype=torch.float32))
        p.grad = torch.tensor([float.fromhex(x) for x in v["grad"]], dtype=torch.float32)
        p.tensor_model_parallel = bool(v["tensorParallel"])
        if v["shared"]:
            p.shared = True
        params.append(p)
    returned, failures = {}, []

    def step(rank):
        """One rank: its chain of sub-optimizers (a stub, optimizer None, where the rank holds
        no parameter of one, as Megatron makes for a rank without trainable parameters)."""
        here.rank, here.index = rank, ranks.index(rank)
        t, p, d = rank
        try:
            chain = []
            for k in subs:
                mine = [q for q, v in zip(params, views)
                        if (v["tp"], v["pp"], v["dp"]) == rank and v["optimizer"] == k]
                opt = FP32Optimizer(torch.optim.SGD(mine, lr=0.0) if mine else None, config, None)
                opt.tp_group = tp_groups[(p, d)]
                opt.grad_stats_parallel_group = world if h["distributed"] else mp_groups[d]
                chain.append(opt)
            returned[rank] = ChainedOptimizer(chain).step()
        except Exception as e:  # Megatron refuses (every rank's group is broken) or a timeout
            failures.append(e)
            for g in [world, *tp_groups.values(), *mp_groups.values()]:
                g.barrier.abort()

    threads = [threading.Thread(target=step, args=(r,)) for r in ranks]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    refused = [e for e in failures if not isinstance(e, threading.BrokenBarrierError)]
    if refused:
        raise RuntimeError(refused[0])
    if failures:  # broken barriers and no exception behind them: a collective timed out
        raise TimeoutError(f"{len(failures)} ranks waited 300 s in a collective")
    success, norm, _ = returned[ranks[0]]
    if any(float(returned[r][1]) != float(norm) for r in ranks):
        norm = math.nan
    values = [float(norm)] + [x for q in params for x in q.grad.tolist()] + [float(not success)]
    return np.array([values], dtype=np.float32)


def main(argv=None):
    out, doc, cases = results_file.read_family(
        argv, __doc__.splitlines()[0], "megatron_clip",
        lambda d: d.get("algorithm") == "clip" and d.get("profile") == "megatron")
    family = doc["family"]
    # ChainedOptimizer.step has no norm type (it takes get_grad_norm_fp32's default, 2) and no
    # rank exists in a group of size 0
    results, meta = results_file.run_values(
        family, cases, lambda h, t: run_case(h, t["views"]),
        (RuntimeError, ValueError, AssertionError),
        lambda h, t: h["normType"] != "2" or min(h["tpSize"], h["ppSize"], h["dpSize"]) < 1)
    results_file.write(out, results, meta, "megatron.core.optimizer ChainedOptimizer.step",
                       megatron_cpu.version(),
                       ADAPTER, "megatron_clip", family)
    return 0


if __name__ == "__main__":
    sys.exit(main())
