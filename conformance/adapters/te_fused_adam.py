#!/usr/bin/python3
"""optcert adapter: run TransformerEngine's FusedAdam storage on the te-storage family (GPU).

TE's kernels need a CUDA device; ci/gpu-check runs this adapter when one is lent, and nowhere
else (spec/te_storage.md). Everything is TE's code except what this docstring names:

- store, the master: a FusedAdam with the case's master mode and fp32 moments steps once with
  lr = 0, betas = (1, 1), no bias correction, zero gradient and zero moments: the kernel reads
  the master (from the parameter and remainder, from the fp32 master, or from the parameter),
  leaves it unchanged (p - 0 * 0) and writes it back through its split or its rounding. The
  incoming state is the case's master written as the rules say (fp32 master, or the spec's
  split), so TE's reconstruction and split are composed: a wrong split, or a reconstruction
  that does not invert it, shows.
- store, the moments: FusedAdam.set_scaled_state (TE's _apply_scale, what the step calls after
  the kernel) with the case's fp32 moment: the new absmax, scale and quantization.
- load, the master: the same lr = 0 step from the stored parameter and remainder (or fp32
  master), read back with the spec's reconstruction (TE has no other way to show its fp32
  master than through the kernel).
- load, the moments: FusedAdam.get_unscaled_state on the stored bits and scale (an FP8 moment's
  quantizer scale set to RN(1/s), its scale_inv to RN(1/RN(1/s)), as TE's _apply_scale leaves
  them).

Known not to pass through this route (conformance/adapters/known-divergences.txt): infinite and
NaN masters (the kernel's decay term 0 * inf), and the invalid cases (TE checks no scale).

    python3 conformance/adapters/te_fused_adam.py \\
        --vectors vectors/te-storage-fusedadam/te-storage-fusedadam.json --out results.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import sys

import numpy as np
import torch

import results_file

ADAPTER = "optcert te_fused_adam.py 1"
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16, "fp8": torch.uint8}
NAMES = ("exp_avg", "exp_avg_sq")
KEYS = ("expAvg", "expAvgSq")


def bits_to(tensor_bits, dtype):
    """int64 bit patterns as a tensor of `dtype` on the device (a reinterpretation)."""
    width = {torch.float32: torch.int32, torch.bfloat16: torch.int16, torch.float16: torch.int16,
             torch.uint8: torch.uint8}[dtype]
    a = np.array(tensor_bits, dtype=np.uint64)
    a = a.astype({torch.int32: np.uint32, torch.int16: np.uint16, torch.uint8: np.uint8}[width])
    t = torch.from_numpy(a.view({torch.int32: np.int32, torch.int16: np.int16,
                                 torch.uint8: np.uint8}[width]).copy()).cuda()
    return t if dtype == torch.uint8 else t.view(dtype)


def spec_split(u):
    return ((u >> 16) + ((u >> 15) & 1)) & 0xFFFF, u & 0xFFFF


def spec_join(param, rem):
    return (((param - ((rem >> 15) & 1)) & 0xFFFF) << 16) | rem


def optimizer(te, h, p, moments_f32=False):
    master = h["master"]
    return te.FusedAdam(
        [p], lr=0.0, betas=(1.0, 1.0), eps=1.0, weight_decay=0.0, bias_correction=False,
        master_weights=master != "off", store_param_remainders=master == "remainder",
        exp_avg_dtype=torch.float32 if moments_f32 else DTYPES[h["expAvg"]],
        exp_avg_sq_dtype=torch.float32 if moments_f32 else DTYPES[h["expAvgSq"]])


def master_through_kernel(te, h, param_bits, second_bits):
    """One lr = 0 step of the kernel; returns (parameter bits, remainder or master bits)."""
    p = torch.nn.Parameter(bits_to(param_bits, torch.bfloat16))
    opt = optimizer(te, h, p, moments_f32=True)
    opt.initialize_state(p, h["master"] == "remainder")
    if h["master"] == "remainder":
        opt.state[p]["master_param"].copy_(bits_to(second_bits, torch.bfloat16).view(torch.int16))
    elif h["master"] == "f32":
        opt.state[p]["master_param"].copy_(bits_to(second_bits, torch.float32))
    p.grad = torch.zeros_like(p)
    opt.step()
    param = p.detach().view(torch.int16).cpu().numpy().astype(np.int64) & 0xFFFF
    st = opt.state[p].get("master_param")
    if h["master"] == "remainder":
        second = st.cpu().numpy().astype(np.int64) & 0xFFFF
    elif h["master"] == "f32":
        second = st.view(torch.int32).cpu().numpy().astype(np.int64) & 0xFFFFFFFF
    else:
        second = None
    return param, second


def stored_value(opt, p, name, fmt):
    """The stored moment's values before any scale (VEC-FMT-19), and its scale."""
    st = opt.state[p][name]
    if fmt == "fp8":
        values = st._data.view(torch.float8_e4m3fn).float()
    else:
        values = st.float()
    scale = opt._scales[p][name].item() if fmt in ("f16", "fp8") else None
    return values.cpu().numpy().astype(np.float64), scale


def run_store(te, h, t):
    u = np.array(t["inputs"]["master"], dtype=np.int64)
    if h["master"] == "remainder":
        param, second = spec_split(u)
    else:
        f = u.astype(np.uint32).view(np.float32)
        param = (torch.from_numpy(f).bfloat16().view(torch.int16).numpy().astype(np.int64)
                 & 0xFFFF)
        second = u
    param, second = master_through_kernel(te, h, param, second)
    out = list(np.array(param, dtype=np.uint32).astype(np.uint32) << 16)
    out = [float(np.array([b], dtype=np.uint32).view(np.float32)[0]) for b in out]
    if h["master"] == "remainder":
        out += [float(x) for x in second]
    elif h["master"] == "f32":
        out += [float(x) for x in np.array(second, dtype=np.uint32).view(np.float32)]
    p = torch.nn.Parameter(torch.zeros(len(u), dtype=torch.bfloat16, device="cuda"))
    opt = optimizer(te, h, p)
    opt.initialize_state(p, h["master"] == "remainder")
    for name, key, k in zip(NAMES, KEYS, range(2)):
        fmt = h[key]
        if fmt in ("f16", "fp8"):
            opt._scales[p][name].fill_(float.fromhex(t["inputs"]["scales"][k]))
        x = torch.tensor([float.fromhex(v) for v in t["inputs"][key]], dtype=torch.float32,
                         device="cuda")
        opt.set_scaled_state(p, name, x)
        values, scale = stored_value(opt, p, name, fmt)
        out += list(values)
        out.append(scale if scale is not None else float.fromhex(t["inputs"]["scales"][k]))
    return out


def run_load(te, h, t):
    inp = t["inputs"]
    param = np.array(inp["param"], dtype=np.int64)
    second = np.array(inp.get("remainder", inp.get("master", [0] * len(param))), dtype=np.int64)
    kp, ks = master_through_kernel(te, h, param, second)
    if h["master"] == "remainder":
        masters = spec_join(kp, ks).astype(np.uint32).view(np.float32)
    elif h["master"] == "f32":
        masters = np.array(ks, dtype=np.uint32).view(np.float32)
    else:
        masters = (np.array(kp, dtype=np.uint32) << 16).view(np.float32)
    out = [float(x) for x in masters]
    p = torch.nn.Parameter(torch.zeros(len(param), dtype=torch.bfloat16, device="cuda"))
    opt = optimizer(te, h, p)
    opt.initialize_state(p, h["master"] == "remainder")
    for name, key, k in zip(NAMES, KEYS, range(2)):
        fmt, s = h[key], float.fromhex(inp["scales"][k])
        data = bits_to(inp[key], DTYPES[fmt])
        st = opt.state[p][name]
        if fmt == "fp8":
            st._data.copy_(data)
            st._quantizer.scale.fill_(s).reciprocal_()
            st._scale_inv.copy_(1.0 / st._quantizer.scale)
        else:
            st.copy_(data)
        if fmt in ("f16", "fp8"):
            opt._scales[p][name].fill_(s)
        out += [float(x) for x in opt.get_unscaled_state(p, name).float().cpu().numpy()]
    return out


def main(argv=None):
    out, doc, cases = results_file.read_family(
        argv, __doc__.splitlines()[0], "te_fused_adam",
        lambda d: d.get("algorithm") == "te-storage")
    import transformer_engine
    import transformer_engine.pytorch.optimizers as te

    family, results, meta = doc["family"], {}, {}
    for h, t in cases:
        key = f"{family}/{t['tcId']}"
        try:
            values = run_store(te, h, t) if t["direction"] == "store" else run_load(te, h, t)
        except (RuntimeError, AssertionError, ValueError) as e:
            meta[f"status/{key}"] = "rejected"
            print(f"te_fused_adam: tcId {t['tcId']}: {e}", file=sys.stderr)
            continue
        results[f"{key}/value"] = np.array(values, dtype=np.float64).reshape(1, -1)
        meta[f"status/{key}"] = "ok"
    results_file.write(out, results, meta, "transformer_engine.pytorch.optimizers.FusedAdam",
                       f"transformer-engine {transformer_engine.__version__} "
                       f"(torch {torch.__version__}, {torch.cuda.get_device_name()})", ADAPTER,
                       "te_fused_adam", family)
    return 0


if __name__ == "__main__":
    sys.exit(main())
