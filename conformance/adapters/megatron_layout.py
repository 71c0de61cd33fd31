#!/usr/bin/python3
"""Compare fast/layout's maps with Megatron's own layout code (spec/layouts.md §4.1).

Megatron computes a parameter layout with pure static functions: DistributedOptimizer's and
LayerWiseDistributedOptimizer's `_compute_per_buffer_param_layout(params, bucket_size, dp,
ddp_config)` (megatron/core/optimizer/distrib_optimizer.py, layer_wise_optimizer.py) give every
parameter its [start, end) and bucket, and the buckets' [start, end); the owned shard ranges come
from DistributedOptimizer._build_model_gbuf_range(buffer, bucket_index), which reads only the
buffer's buckets, its parameter map and its data-parallel group's rank and size: a stand-in
buffer and group provide them, on CPU, for every rank. LayerWiseDistributedOptimizer's owner of
each parameter comes from its `_shard_params_from_layout` (run on a stand-in optimizer). This
script runs those functions on a
set of models (parameters of the shapes below, `shared_embedding` set where marked) for dp 2,
3 and 4 and several bucket sizes, runs `layout_dump` (fast/tests/layout_dump.c) on the same
parameters, and compares: every parameter's offset and bucket, every bucket's [start, end), and
every rank's owned pieces (parameter, offset inside it, length, flat position: LAYOUT-OWN-1),
and (layer-wise) every parameter's owning rank.

    python conformance/adapters/megatron_layout.py --dump build/fast/layout_dump \\
        --compare zero1-flat:distrib --compare layerwise-numel:layerwise \\
        [--count layerwise:layerwise] [--source DIR]
--compare PROFILE:KIND: fast/layout's PROFILE against DistributedOptimizer (distrib) or
LayerWiseDistributedOptimizer (layerwise), which must agree everywhere; --count: the same,
reported only (a profile that is not Megatron's); --source DIR puts a Megatron-LM source tree
(DIR/megatron/core) ahead of the installed megatron-core (importing it takes most of the time).
Exit status: 0 when every --compare configuration is identical, 1 when one differs, 2 on bad
arguments or a missing library.
"""
import argparse
import json
import random
import subprocess
import sys
import types
import typing
import warnings

import typing_extensions

# Models in forward order: (shape, shared_embedding).
SUITE = [((301, 32), True), ((32,), False), ((32, 96), False), ((96,), False), ((32, 32), False),
         ((96, 32), False), ((32,), False), ((17, 5), False), ((3,), False), ((128, 33), False),
         ((1,), False), ((65, 64), False), ((7,), False)]  # fast/tests/layout_suite.c


def transformer(layers=3, h=48, ffn=128, vocab=200):
    """Embedding (shared), per layer qkv/proj/fc1/fc2 weights with biases and norms, final norm."""
    model = [((vocab, h), True)]
    for _ in range(layers):
        model += [((h,), False), ((3 * h, h), False), ((3 * h,), False), ((h, h), False),
                  ((h,), False), ((h,), False), ((ffn, h), False), ((ffn,), False),
                  ((h, ffn), False), ((h,), False)]
    return model + [((h,), False)]


def mixed(seed=19, n=24):
    """Matrices and vectors of unrelated sizes (the closing rule's estimate is not exact)."""
    rng = random.Random(seed)
    return [((rng.randint(1, 90), rng.randint(1, 90)), False) if rng.random() < 0.7
            else ((rng.randint(1, 300),), False) for _ in range(n)]


MODELS = {"suite": SUITE, "transformer": transformer(), "mixed": mixed()}
DPS = (2, 3, 4)
BUCKETS = ((None, False), (1000, False), (3000, False), (6000, False), (12000, False),
           (25000, False), (6000, True))


def megatron(source):
    """The classes and module version: from `source` when given, else the installed package."""
    if source:
        sys.path.insert(0, source)
    # megatron.core.optimizer imports emerging_optimizers where it is installed, which imports
    # typing.override (Python 3.12); on 3.11 it comes from typing_extensions
    if not hasattr(typing, "override"):
        typing.override = typing_extensions.override
    try:
        import torch
        warnings.simplefilter("ignore")  # "Transformer Engine and Apex are not installed"
        from megatron.core import package_info
        from megatron.core.optimizer.distrib_optimizer import DistributedOptimizer
        from megatron.core.optimizer.layer_wise_optimizer import LayerWiseDistributedOptimizer
    except ImportError as e:
        print(f"megatron_layout.py: megatron-core cannot be imported ({e}); "
              "ci/setup-python.sh installs it", file=sys.stderr)
        sys.exit(2)
    where = sys.modules["megatron.core"].__file__
    if source and not where.startswith(source):
        print(f"megatron_layout.py: megatron.core came from {where}, not from {source}",
              file=sys.stderr)
        sys.exit(2)
    return torch, DistributedOptimizer, LayerWiseDistributedOptimizer, package_info.__version__


def owners(lw_opt, params, layout, dp):
    """LayerWiseDistributedOptimizer's owner of every parameter (its dp_cp_params_list)."""
    key = type("BufferKey", (), {"is_managed_by_layer_wise_optimizer": True})()
    this = types.SimpleNamespace(dp_cp=None, expt_dp=None)
    optimizer = types.SimpleNamespace(param_groups=[{"params": list(params)}])
    lw_opt._shard_params_from_layout(this, [optimizer], [types.SimpleNamespace(
        layouts={key: layout})], dp, 1)
    rank = {id(p): r for r, held in enumerate(this.dp_cp_params_list) for p in held}
    return [rank[id(p)] for p in params]


def upstream(lib, kind, model, dp, bucket, high):
    """Megatron's layout: per parameter (start, end, bucket), buckets [(start, end)], the owned
    pieces [(rank, param, off, len, flat)] and (layer-wise) the owner of every parameter."""
    torch, dist_opt, lw_opt, _ = lib
    params = []
    for shape, shared in model:
        p = torch.nn.Parameter(torch.empty(shape))
        if shared:
            p.shared_embedding = True
        params.append(p)
    cfg = types.SimpleNamespace(pad_buckets_for_high_nccl_busbw=high)
    cls = dist_opt if kind == "distrib" else lw_opt
    layout = cls._compute_per_buffer_param_layout(params, bucket, dp, cfg)
    index = [layout.param_index_map[p] for p in params]
    buckets = [tuple(b) for b in layout.bucket_indices]
    position = {id(p): i for i, p in enumerate(params)}
    pieces = []
    for rank in range(dp):
        group = types.SimpleNamespace(rank=lambda r=rank: r, size=lambda: dp)
        buffer = types.SimpleNamespace(
            data_parallel_group=group, num_optimizer_shards=dp,
            param_index_map=layout.param_index_map,
            buckets=[types.SimpleNamespace(grad_data=torch.empty(end - start, device="meta"),
                                           offset=start) for start, end in buckets])
        for b in range(len(buckets)):
            ranges = dist_opt._build_model_gbuf_range(buffer, b)["param_map"]
            for p, r in ranges.items():
                pieces.append((rank, position[id(p)], r["param"].start, r["param"].size,
                               r["gbuf_world"].start))
    return index, buckets, sorted(pieces), owners(lw_opt, params, layout, dp) if kind == \
        "layerwise" else None


def fast(dump, profile, model, dp, bucket, high):
    lines = "".join(f"{shape[0]} {shape[1] if len(shape) == 2 else 1} {len(shape)} {int(shared)}\n"
                    for shape, shared in model)
    out = subprocess.run([dump, profile, str(dp), str(bucket or 0), str(int(high))], input=lines,
                         capture_output=True, text=True, check=True).stdout
    doc = json.loads(out)
    buckets = [tuple(b) for b in doc["buckets"]]
    index = []
    for off, (shape, _) in zip(doc["offset"], model):
        b = next(k for k, (s, e) in enumerate(buckets) if s <= off < e)
        numel = shape[0] * (shape[1] if len(shape) == 2 else 1)
        index.append((off, off + numel, b))
    return index, buckets, sorted(tuple(s) for s in doc["segments"]), doc["owner"]


def first_difference(mine, theirs):
    names = ("parameter [start, end, bucket]", "bucket [start, end)", "owned piece", "owner")
    for name, a, b in zip(names, mine, theirs):
        if b is not None and a != b:
            k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            x = a[k] if k < len(a) else "none"
            y = b[k] if k < len(b) else "none"
            return f"{name} {k}: fast/layout {x}, Megatron {y}"
    return None


def compare(lib, dump, profile, kind, origin, each=True):
    """Every configuration of fast/layout's `profile` against Megatron's `kind`; the number that
    differ (with `each`, each printed with its first difference)."""
    what = "DistributedOptimizer" if kind == "distrib" else "LayerWiseDistributedOptimizer"
    differ = total = 0
    for name, model in MODELS.items():
        for dp in DPS:
            for bucket, high in BUCKETS:
                total += 1
                why = first_difference(fast(dump, profile, model, dp, bucket, high),
                                       upstream(lib, kind, model, dp, bucket, high))
                differ += why is not None
                if why and each:
                    print(f"  differs: {name} dp={dp} bucket={bucket} high_busbw={high}: {why}")
    checked = "offsets, buckets, every rank's owned pieces" + (", owners" if kind == "layerwise"
                                                                 else "")
    print(f"{profile} vs {what} of {origin} {lib[3]}: {total - differ}/{total} configurations "
          f"identical ({checked})")
    return differ


def pair(text):
    profile, _, kind = text.partition(":")
    if kind not in ("distrib", "layerwise"):
        raise argparse.ArgumentTypeError("PROFILE:distrib or PROFILE:layerwise expected")
    return profile, kind


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dump", required=True, help="path of the layout_dump program")
    ap.add_argument("--compare", type=pair, action="append", default=[], metavar="PROFILE:KIND",
                    help="fast/layout profile and Megatron class (distrib or layerwise) that "
                         "must agree in every configuration")
    ap.add_argument("--count", type=pair, action="append", default=[], metavar="PROFILE:KIND",
                    help="the same comparison, reported only")
    ap.add_argument("--source", help="a Megatron-LM source tree, used instead of megatron-core")
    args = ap.parse_args()
    lib = megatron(args.source)
    origin = f"the source at {args.source}" if args.source else "megatron-core"
    differ = sum(compare(lib, args.dump, p, k, origin) for p, k in args.compare)
    for p, k in args.count:
        compare(lib, args.dump, p, k, origin, each=False)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
