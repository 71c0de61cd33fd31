#!/usr/bin/python3
"""optcert adapter: run Megatron's TensorParallelMuon on the muon-blocks families and on muon-megatron
(muon-blocks-megatron-tp, muon-blocks-megatron-qkv, spec/muon.md §10, MUON-BLK-*; muon-megatron,
MUON-PROF-MEGATRON: one matrix, no tensor parallelism) through the results path (spec/vectors.md
VEC-RES-*).

The optimizer is megatron-core's own `TensorParallelMuon` (megatron/core/optimizer/
emerging_optimizers.py), built with the case's lr, momentum, nesterov, weight_decay (decoupled),
coefficient set (by name: Megatron passes `coefficient_type` only), steps, scale_mode and
extra_scale_factor, and with Megatron's configuration defaults for the rest
(`OptimizerConfig().muon_tp_mode`, "blockwise"). One `step()` on the case's p, momentum buffer
and gradient; recorded: p and the momentum buffer after it.

  --fp32-matmul-prec PREC  the optimizer's fp32_matmul_prec (Megatron's muon_fp32_matmul_prec):
                 default Megatron's default, "medium", under which torch on the CPU may compute
                 the float32 matmuls of Newton-Schulz in bf16 (judge with --class bf16);
                 "highest" keeps them in float32 (--class fp32).

Tensor parallelism: in blockwise mode `TensorParallelMuon.orthogonalize` sets `partition_dim =
None`, so `newton_schulz_tp` falls back to the plain `newton_schulz` on the rank's own shard and
the scale is taken from the shard's own shape: no collective is made, and the tensor-parallel
group is never used. Each rank's shard is therefore one parameter of its own (with its
`partition_dim` attribute, which blockwise mode ignores) in one optimizer with no process group
(`pg_collection=None`); the shards are cut with megatron.core.utils.divide, which is what
Megatron's parallel layers use for the per-rank size (an uneven split fails its assertion: the
case is `rejected`). A weight that is not tensor-parallel (tpDim `none`) is replicated whole on
every rank, as Megatron keeps it. Split QKV: the parameter has `is_qkv` set and
`qkv_split_shapes` is Megatron's `_get_qkv_split_shapes` of the case's heads, groups and head
dimension (its `num_attention_heads // num_query_groups`) whenever the case gives any of the
three; a RuntimeError of Megatron's split (a shard whose rows are not a multiple of the split)
or a ZeroDivisionError (0 query groups, a split of 0 rows) marks the case `rejected`.

`unsupported` (not run): a coefficient set that is no named set of emerging_optimizers (cycled
as the case's schedule says), a momentum form other than `ema` (OrthogonalizedOptimizer.step
lerps), a norm factor s != 1, and an eps other than newton_schulz's default (newton_schulz_tp
passes none), or the add-mode normalisation (newton_schulz divides by max(||X||_F, eps)).

    PYTHONPATH=/opt/optcert-mcore-0.19.2 /opt/optcert-torch2/bin/python \\
        conformance/adapters/megatron_muon.py \\
        --vectors vectors/muon-blocks-megatron-tp/muon-blocks-megatron-tp.json --out results.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import argparse
import inspect
import sys
import typing
import warnings
from importlib import metadata

import numpy as np
import torch
import typing_extensions

import results_file

ADAPTER = "optcert megatron_muon.py 1"

# emerging_optimizers imports typing.override (Python 3.12); on 3.11 it comes from typing_extensions
if not hasattr(typing, "override"):
    typing.override = typing_extensions.override
with warnings.catch_warnings():  # "Transformer Engine and Apex are not installed"
    warnings.simplefilter("ignore")
    from emerging_optimizers.orthogonalized_optimizers import muon_utils
    from megatron.core import package_info
    from megatron.core.optimizer.emerging_optimizers import TensorParallelMuon
    from megatron.core.optimizer.optimizer_config import OptimizerConfig
    from megatron.core.utils import divide

NS_DEFAULT_EPS = inspect.signature(muon_utils.newton_schulz).parameters["eps"].default
# newton_schulz's coefficient sets that repeat their last tuple (the others cycle)
REPEAT_LAST = ("polar_express", "cans", "deepseekv4")
PARTITION_DIM = {"rows": 0, "cols": 1}


def hexf(s):
    return float.fromhex(s)


def coefficient_type(h):
    """The name of emerging_optimizers' coefficient set equal (in binary32) to the case's, under
    the case's schedule, or None."""
    coef = [tuple(hexf(v) for v in t) for t in h["coefficients"]]
    for name, sets in muon_utils._COEFFICIENT_SETS.items():
        if len(sets) == len(coef) and (h["schedule"] == "repeat_last") == (name in REPEAT_LAST) \
                and all(np.float32(x) == np.float32(y) for a, b in zip(sets, coef) for x, y in zip(a, b)):
            return name
    return None


def unsupported(h):
    return (coefficient_type(h) is None or h["momentumForm"] != "ema" or h["epsMode"] != "max"
            or hexf(h["normScale"]) != 1.0 or np.float32(hexf(h["eps"])) != np.float32(NS_DEFAULT_EPS))


def shards(x, h):
    """The ranks' shards of x (Megatron's per-rank size: divide(), which asserts an even split);
    a weight that is not tensor-parallel is replicated whole."""
    if h.get("tpDim") not in PARTITION_DIM:
        return [x]
    dim = PARTITION_DIM[h["tpDim"]]
    return list(torch.split(x, divide(x.shape[dim], h["tpSize"]), dim=dim))


def run_case(h, t, tensors, matmul_prec):
    rows, cols = t["rows"], t["cols"]
    mats = {k: torch.from_numpy(np.ascontiguousarray(tensors[v], dtype=np.float32).reshape(rows, cols))
            for k, v in t["inputs"].items()}
    config = OptimizerConfig()
    heads, groups, head_dim = (h.get(k, 0) for k in ("qkvHeads", "qkvGroups", "qkvHeadDim"))
    fused_qkv = heads > 0 or groups > 0 or head_dim > 0  # the case describes a QKV weight
    params = []
    for p, m, g in zip(*(shards(mats[k], h) for k in ("p", "m", "g"))):
        q = torch.nn.Parameter(p.clone())
        q.grad = g.clone()
        q.partition_dim = PARTITION_DIM.get(h.get("tpDim"), -1)
        q.tensor_model_parallel = h.get("tpDim") in PARTITION_DIM
        q.is_qkv = fused_qkv
        params.append((q, m.clone()))
    opt = TensorParallelMuon(
        [q for q, _ in params], lr=hexf(h["lr"]), momentum=hexf(h["momentum"]),
        nesterov=h["nesterov"], weight_decay=hexf(h["weightDecay"]), use_decoupled_weight_decay=True,
        split_qkv=fused_qkv, is_qkv_fn=lambda q: getattr(q, "is_qkv", False),
        qkv_split_shapes=[heads // groups * head_dim, head_dim, head_dim] if fused_qkv else None,
        fp32_matmul_prec=matmul_prec, coefficient_type=coefficient_type(h),
        num_ns_steps=h["steps"], scale_mode=h["scaleMode"], extra_scale_factor=hexf(h["extraScale"]),
        pg_collection=None, tp_mode=config.muon_tp_mode)
    for q, m in params:
        opt.state[q]["momentum_buffer"] = m
    opt.step()
    dim = PARTITION_DIM.get(h.get("tpDim"), 0)
    p_out = torch.cat([q.detach() for q, _ in params], dim=dim)
    m_out = torch.cat([opt.state[q]["momentum_buffer"] for q, _ in params], dim=dim)
    return {name: np.ascontiguousarray(v.numpy(), dtype=np.float32)
            for name, v in (("p", p_out), ("m", m_out))}


def main(argv=None):
    own = argparse.ArgumentParser(add_help=False)
    own.add_argument("--vectors")
    own.add_argument("--fp32-matmul-prec", choices=("highest", "high", "medium"))
    args, rest = own.parse_known_args(argv)
    out, doc, cases = results_file.read_family(
        rest + (["--vectors", args.vectors] if args.vectors else []), __doc__.splitlines()[0],
        "megatron_muon", lambda d: d.get("algorithm") == "muon-blocks" or
        d.get("algorithm") == "muon" and d.get("profile") == "megatron")
    family = doc["family"]
    matmul_prec = args.fp32_matmul_prec or OptimizerConfig().muon_fp32_matmul_prec
    tensors = results_file.load_tensors(argv, doc, "megatron_muon")
    # divide()'s assertion (uneven shards), a TP size of 0, Megatron's QKV split check
    results, meta = results_file.run_values(
        family, cases, lambda h, t: run_case(h, t, tensors, matmul_prec),
        (AssertionError, ZeroDivisionError, RuntimeError), lambda h, t: unsupported(h))
    results_file.write(out, results, meta, "megatron.core.optimizer TensorParallelMuon",
                       f"megatron-core {package_info.__version__}, emerging-optimizers "
                       f"{metadata.version('emerging-optimizers')} (newton_schulz eps {NS_DEFAULT_EPS}), "
                       f"torch {torch.__version__} (CPU), fp32_matmul_prec {matmul_prec}",
                       ADAPTER, "megatron_muon", family)
    return 0


if __name__ == "__main__":
    sys.exit(main())
