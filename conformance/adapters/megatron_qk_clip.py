#!/usr/bin/python3
"""optcert adapter: run Megatron's QK-clip (SelfAttention and MLASelfAttention.clip_qk) on the muonclip families.

The code is megatron-core's own: `SelfAttention.clip_qk` and `_clip_linear_qkv`
(megatron/core/transformer/attention.py L1963-2053 of the 0.19.2 wheel: per query group,
spec/muon.md MUONCLIP-PROF-MEGATRON) on muonclip-megatron and muonclip-kimi (per head is
`groups = heads`), `MLASelfAttention.clip_qk`, `_clip_q_proj_weight` and
`_clip_kv_proj_weight` (multi_latent_attention.py L1109-1228) on muonclip-kimi-mla. Each is
called on a stand-in for one attention layer holding what the methods read: the config
(`qk_clip`, `qk_clip_threshold` = tau, `qk_clip_alpha`; for MLA `qk_head_dim` = d_c,
`qk_pos_emb_head_dim` = d_r, `v_head_dim`, `q_lora_rank` None: the query weight is
`linear_q_proj`), the head and group counts, for SelfAttention `query_projection_size`
(heads x d) and `kv_projection_size` (groups x d), the weights (the case's buffer: the fused
`linear_qkv.weight`, MUONCLIP-LAYOUT-1 being Megatron's layout; for MLA `linear_q_proj.weight`
and `linear_kv_up_proj.weight`, MUONCLIP-LAYOUT-MLA, whose shared rotary key `W_kr` Megatron
does not touch and is returned as given) and `core_attention.current_max_attn_logits`, the
per-head logits Megatron's core attention records: the case's `maxDot` times the softmax scale
`1 / math.sqrt(d)` (Megatron's default `softmax_scale`; `d = d_c + d_r` under MLA), in float32.

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
    from megatron.core.transformer.multi_latent_attention import MLASelfAttention


def hexf(s):
    return float.fromhex(s)


def layer_of(h, t, d, **fields):
    """The stand-in layer: the config, the recorded logits, the head counts and `fields`."""
    logits = torch.tensor([hexf(x) for x in t["maxDot"]], dtype=torch.float32)
    return types.SimpleNamespace(
        config=types.SimpleNamespace(qk_clip=True, qk_clip_threshold=hexf(h["tau"]),
                                     qk_clip_alpha=hexf(h["alpha"]), q_lora_rank=None,
                                     qk_head_dim=h["headDim"], qk_pos_emb_head_dim=h.get("ropeDim"),
                                     v_head_dim=h.get("vDim")),
        core_attention=types.SimpleNamespace(
            current_max_attn_logits=logits * torch.tensor(1.0 / math.sqrt(d), dtype=torch.float32)),
        num_attention_heads_per_partition=h["heads"], num_query_groups_per_partition=h["groups"],
        cache_mla_latents=False, **fields)


def clip_fused(h, t, weight):
    """SelfAttention.clip_qk on the fused QKV weight (MUONCLIP-LAYOUT-1)."""
    d = h["headDim"]
    layer = layer_of(h, t, d, query_projection_size=h["heads"] * d,
                     kv_projection_size=h["groups"] * d,
                     linear_qkv=types.SimpleNamespace(weight=weight.view(-1, h["hidden"])))
    layer._clip_linear_qkv = types.MethodType(SelfAttention._clip_linear_qkv, layer)
    SelfAttention.clip_qk(layer)
    return layer.linear_qkv.weight.reshape(-1)


def clip_mla(h, t, weight):
    """MLASelfAttention.clip_qk on [W_q up; W_kv up; W_kr] (MUONCLIP-LAYOUT-MLA)."""
    heads, dc, dr, dv = h["heads"], h["headDim"], h["ropeDim"], h["vDim"]
    nq, nkv = heads * (dc + dr) * h["qCols"], heads * (dc + dv) * h["kvCols"]
    if weight.numel() != nq + nkv + dr * h["hidden"]:
        raise ValueError("the buffer is not the MLA layout's")
    q, kv, kr = weight[:nq].view(-1, h["qCols"]), weight[nq:nq + nkv].view(-1, h["kvCols"]), weight[nq + nkv:]
    layer = layer_of(h, t, dc + dr, linear_q_proj=types.SimpleNamespace(weight=q),
                     linear_kv_up_proj=types.SimpleNamespace(weight=kv))
    for name in ("_clip_q_proj_weight", "_clip_kv_proj_weight"):
        setattr(layer, name, types.MethodType(getattr(MLASelfAttention, name), layer))
    MLASelfAttention.clip_qk(layer)
    return torch.cat([q.reshape(-1), kv.reshape(-1), kr])


def run_case(h, t, clip):
    weight = torch.tensor([hexf(x) for x in t["weight"]], dtype=torch.float32)
    return {"weight": np.array([clip(h, t, weight).tolist()], dtype=np.float32)}


def main(argv=None):
    out, doc, cases = results_file.read_family(
        argv, __doc__.splitlines()[0], "megatron_qk_clip",
        lambda d: d.get("algorithm") == "muonclip")
    family = doc["family"]
    mla = doc["profile"] == "kimi-mla"
    results, meta = results_file.run_values(
        family, cases, lambda h, t: run_case(h, t, clip_mla if mla else clip_fused),
        (RuntimeError, ValueError, AssertionError, ZeroDivisionError))
    results_file.write(out, results, meta, "megatron.core.transformer " +
                       ("multi_latent_attention MLASelfAttention" if mla else "attention SelfAttention") +
                       ".clip_qk",
                       megatron_cpu.version(), ADAPTER, "megatron_qk_clip", family)
    return 0


if __name__ == "__main__":
    sys.exit(main())
