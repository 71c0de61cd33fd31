#!/usr/bin/python3
"""Fused AdamW benchmark (spec/fast.md; results in fast/bench/RESULTS.md).

One process, the same tensors: the fast CPU backend (oc_fast_adam_step through ctypes: fp32
master, m, v, fp32 gradient, bf16 model copy written in the same pass), a STREAM-style triad
measured in the same run, and PyTorch's best CPU AdamW: fused=True where the installed torch has
the CPU fused kernel (torch >= 2.4, e.g. the venv of ci/setup-python.sh), else foreach=True (torch
1.13, Debian's: fused is CUDA-only there), followed by the bf16 copy torch needs as a separate pass.

  OMP_NUM_THREADS=2 /usr/bin/python3 fast/bench/adamw_bench.py --lib build/fast/liboptcert_fast_bench.so
  OMP_NUM_THREADS=2 /opt/optcert-torch2/bin/python fast/bench/adamw_bench.py --lib ...

Bytes per element per step: fast reads p, g, m, v (16 B) and writes p, m, v (12 B) and the
bf16 copy (2 B): 30 B; the triad moves 12 B per element. Both exclude write-allocate traffic
(STREAM's convention: column "of triad"). Counting it (a store to a line not read first costs
a read too: the bf16 copy for fast, 32 B; the array a for the triad, 16 B) gives the column
"bus": the share of the bandwidth the triad actually drew.
"""
import argparse
import ctypes as C
import os
import statistics
import time

import torch


def gpt2_125m():
    """GPT-2 small (124M): tied 50257x768 embedding, 1024x768 positions, 12 layers."""
    d, shapes = 768, [(50257, 768), (1024, 768)]
    for _ in range(12):
        shapes += [(d,), (d,), (d, 3 * d), (3 * d,), (d, d), (d,), (d,), (d,),
                   (d, 4 * d), (4 * d,), (4 * d, d), (d,)]
    return shapes + [(d,), (d,)]


def llama_1b(layers):
    """Llama-3.2-1B shapes (hidden 2048, GQA 32/8 heads of 64, MLP 8192, tied 128256x2048
    embedding); the real model has 16 layers."""
    d, kv, f, shapes = 2048, 512, 8192, [(128256, 2048)]
    for _ in range(layers):
        shapes += [(d,), (d, d), (kv, d), (kv, d), (d, d), (d,), (f, d), (f, d), (d, f)]
    return shapes + [(d,)]


class Tensor(C.Structure):
    _fields_ = [("n", C.c_size_t), ("param", C.c_void_p), ("grad", C.c_void_p),
                ("state", C.c_void_p * 3), ("model", C.c_void_p)]


class AdamHparams(C.Structure):
    _fields_ = [("profile", C.c_int), ("lr", C.c_double), ("beta1", C.c_double),
                ("beta2", C.c_double), ("eps", C.c_double), ("weight_decay", C.c_double),
                ("eps_root", C.c_double), ("schedule_multiplier", C.c_double),
                ("decoupled", C.c_int), ("amsgrad", C.c_int), ("maximize", C.c_int)]


class Opts(C.Structure):
    _fields_ = [("inv_scale", C.c_float), ("clip_coeff", C.c_float), ("model", C.c_int)]


def timed(fn, steps):
    fn()  # warm-up (first touch, torch's state creation)
    ts = []
    for _ in range(steps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def bench(name, shapes, lib, steps, with_torch):
    torch.manual_seed(0)
    params = [torch.randn(s) * 0.02 for s in shapes]
    grads = [torch.randn(s) * 1e-3 for s in shapes]
    n = sum(p.numel() for p in params)
    hp = AdamHparams(0, 1e-3, 0.9, 0.95, 1e-8, 0.1, 0.0, 1.0, 1, 0, 0)
    opts = Opts(1.0, 1.0, 1)  # bf16 model copy
    m = [torch.zeros_like(p) for p in params]
    v = [torch.zeros_like(p) for p in params]
    copy = [torch.empty(p.shape, dtype=torch.bfloat16) for p in params]
    ts = (Tensor * len(params))()
    for i, p in enumerate(params):
        ts[i].n, ts[i].param, ts[i].grad = p.numel(), p.data_ptr(), grads[i].data_ptr()
        ts[i].state[0], ts[i].state[1], ts[i].model = m[i].data_ptr(), v[i].data_ptr(), copy[i].data_ptr()
    step = [0]

    def fast():
        step[0] += 1
        st = lib.oc_fast_adam_step(C.byref(hp), C.c_int64(step[0]), C.byref(opts),
                                   C.c_size_t(len(params)), ts, None)
        assert st == 0, st

    t_fast = timed(fast, steps)
    del m, v, ts
    triad = lib.oc_bench_triad(C.c_size_t(64 << 20), 10)
    row = {"model": name, "params": n, "fast_s": t_fast, "triad": triad}
    if with_torch:
        for p, g in zip(params, grads):
            p.grad = g
        opt = best_torch_adamw(params)
        row["torch_impl"] = "fused" if opt.defaults.get("fused") else "foreach"

        def torch_step():
            opt.step()
            for c, p in zip(copy, params):
                c.copy_(p)

        row["torch_s"] = timed(torch_step, steps)
        row["torch_nocopy_s"] = timed(opt.step, steps)
    return row


def best_torch_adamw(params):
    """torch's fused CPU AdamW if this torch has it (one probe step on a copy), else foreach."""
    probe = [torch.zeros(4, requires_grad=True)]
    probe[0].grad = torch.ones(4)
    try:
        torch.optim.AdamW(probe, fused=True).step()
        kind = {"fused": True}
    except (RuntimeError, TypeError):
        kind = {"foreach": True}
    return torch.optim.AdamW(params, lr=1e-3, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1, **kind)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default="build/fast/liboptcert_fast_bench.so")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--llama-layers", type=int, default=4)
    ap.add_argument("--no-torch", action="store_true")
    a = ap.parse_args()
    lib = C.CDLL(os.path.abspath(a.lib))
    lib.oc_bench_triad.restype = C.c_double
    lib.oc_fast_isa_active.restype = C.c_int
    lib.oc_fast_isa_name.restype = C.c_char_p
    threads = lib.oc_bench_threads()
    torch.set_num_threads(threads)
    isa = lib.oc_fast_isa_name(lib.oc_fast_isa_active()).decode()
    print(f"threads {threads} (torch {torch.get_num_threads()}), fast kernels {isa}, torch {torch.__version__}")
    print(f"{'model':<28}{'params':>12}{'fast ms':>10}{'Mparam/s':>10}{'GB/s':>8}{'triad GB/s':>11}"
          f"{'of triad':>9}{'bus':>7}{'torch ms':>10}{'torch/fast':>11}{'(no copy)':>10}")
    for name, shapes in [("gpt2-125m", gpt2_125m()),
                         (f"llama-1b ({a.llama_layers}/16 layers)", llama_1b(a.llama_layers))]:
        r = bench(name, shapes, lib, a.steps, not a.no_torch)
        bw = 30.0 * r["params"] / r["fast_s"]
        line = (f"{name:<28}{r['params']:>12,}{r['fast_s'] * 1e3:>10.1f}{r['params'] / r['fast_s'] / 1e6:>10.1f}"
                f"{bw / 1e9:>8.2f}{r['triad'] / 1e9:>11.2f}{bw / r['triad']:>9.1%}"
                f"{(32.0 / 30.0 * bw) / (16.0 / 12.0 * r['triad']):>7.1%}")
        if "torch_s" in r:
            line += (f"{r['torch_s'] * 1e3:>10.1f}{r['torch_s'] / r['fast_s']:>11.2f}"
                     f"{r['torch_nocopy_s'] / r['fast_s']:>10.2f}  torch {r['torch_impl']}")
        print(line, flush=True)


if __name__ == "__main__":
    main()
