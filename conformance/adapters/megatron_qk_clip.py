#!/usr/bin/python3
"""optcert adapter: run Megatron's SelfAttention.clip_qk on muonclip-megatron.

The code is megatron-core's own (megatron/core/transformer/attention.py, `SelfAttention.clip_qk`
and `_clip_linear_qkv`, L1963-2053 of the 0.19.2 wheel: MuonClip's QK-clip per query group,
spec/muon.md MUONCLIP-PROF-MEGATRON), called on a stand-in for one attention layer that holds
what those two methods read: the config (`qk_clip`, `qk_clip_threshold` = tau, `qk_clip_alpha`),
the head and group counts, `query_projection_size` (heads x d), `kv_projection_size`
(groups x d), the fused weight `linear_qkv.weight` (the case's weight, fp32, MUONCLIP-LAYOUT-1
is Megatron's layout) and `core_attention.current_max_attn_logits`, the per-head logits that
Megatron's core attention records: the case's `maxDot` times the softmax scale
`1 / math.sqrt(d)` (Megatron's default `softmax_scale`), in float32.

Recorded (VEC-FMT-14 `weight`): the weight after clip_qk. A Megatron exception (its shape
assertions, a view that does not fit) marks the case `rejected`.

    PYTHONPATH=/opt/optcert-mcore-0.19.2 /opt/optcert-torch2/bin/python \\
        conformance/adapters/megatron_qk_clip.py \\
        --vectors vectors/muonclip-megatron/muonclip-megatron.json --out results.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import math
import sys
import types
import warnings

import numpy as np
import torch

import megatron_cpu
import results_file

ADAPTER = "optcert megatron_qk_clip.py 1"

with warnings.catch_warnings():  # "Transformer Engine and Apex are not installed"
    warnings.simplefilter("ignore")
    from megatron.core.transformer.attention import SelfAttention


def hexf(s):
    return float.fromhex(s)


def run_case(h, t):
    heads, groups, d = h["heads"], h["groups"], h["headDim"]
    weight = torch.tensor([hexf(x) for x in t["weight"]], dtype=torch.float32)
    logits = torch.tensor([hexf(x) for x in t["maxDot"]], dtype=torch.float32)
    layer = types.SimpleNamespace(
        config=types.SimpleNamespace(qk_clip=True, qk_clip_threshold=hexf(h["tau"]),
                                     qk_clip_alpha=hexf(h["alpha"])),
        core_attention=types.SimpleNamespace(
            current_max_attn_logits=logits * torch.tensor(1.0 / math.sqrt(d), dtype=torch.float32)),
        num_attention_heads_per_partition=heads, num_query_groups_per_partition=groups,
        query_projection_size=heads * d, kv_projection_size=groups * d,
        linear_qkv=types.SimpleNamespace(weight=weight.view(-1, h["hidden"])))
    layer._clip_linear_qkv = types.MethodType(SelfAttention._clip_linear_qkv, layer)
    SelfAttention.clip_qk(layer)
    return {"weight": np.array([layer.linear_qkv.weight.reshape(-1).tolist()], dtype=np.float32)}


def main(argv=None):
    out, doc, cases = results_file.read_family(
        argv, __doc__.splitlines()[0], "megatron_qk_clip",
        lambda d: d.get("algorithm") == "muonclip" and d.get("profile") == "megatron")
    family = doc["family"]
    results, meta = results_file.run_values(
        family, cases, run_case, (RuntimeError, ValueError, AssertionError, ZeroDivisionError))
    results_file.write(out, results, meta, "megatron.core.transformer.attention SelfAttention.clip_qk",
                       megatron_cpu.version(), ADAPTER, "megatron_qk_clip", family)
    return 0


if __name__ == "__main__":
    sys.exit(main())
