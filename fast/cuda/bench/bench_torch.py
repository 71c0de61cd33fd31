#!/usr/bin/env python3
"""Peers of bench_fast_cuda measured with PyTorch on the same GPU (spec/fast.md §5.3).

  bench_torch.py adamw   torch.optim.AdamW(fused=True) over the same 1.1B-parameter shapes
                         (fp32 params and grads; torch writes no bf16 copy)
  bench_torch.py ns N    the Newton–Schulz of torch.optim.Muon (torch.optim._muon.
                         _zeropower_via_newtonschulz when this torch has it, else Keller
                         Jordan's loop written in torch) on one N x N bf16 matrix, 5 steps

Prints "key value" lines like bench_fast_cuda; prints "torch_cuda none" and exits 0 when
torch or its CUDA is missing (the table then shows n/a)."""
import sys

try:
    import torch
    if not torch.cuda.is_available():
        raise ImportError("no CUDA in torch")
except ImportError:
    print("torch_cuda none")
    sys.exit(0)

# KellerJordan/Muon@857d1adc muon.py L16; pytorch/pytorch@b5ee4d7a torch/optim/_muon.py L26-28
A, B, C = 3.4445, -4.7750, 2.0315


def shapes():
    s = [(32000, 2048)]
    for _ in range(22):
        s += [(2048, 2048), (256, 2048), (256, 2048), (2048, 2048),
              (5632, 2048), (5632, 2048), (2048, 5632), (2048,), (2048,)]
    return s + [(2048,), (32000, 2048)]


def best_ms(f, reps):
    f()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        f()
        b.record()
        b.synchronize()
        best = min(best, a.elapsed_time(b))
    return best


def adamw():
    params = [torch.full(s, 0.0115, device="cuda") for s in shapes()]
    for p in params:
        p.grad = torch.full_like(p, 0.0115)
    opt = torch.optim.AdamW(params, lr=1e-4, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1,
                            fused=True)
    ms = best_ms(opt.step, 20)
    n = sum(p.numel() for p in params)
    print("torch_version", torch.__version__)
    print("torch_adamw_ms %.3f" % ms)
    print("torch_adamw_GBps %.1f" % (n * 28 / ms * 1e-6))


def ns(n):
    x = torch.full((n, n), 0.0115, device="cuda", dtype=torch.bfloat16)
    try:
        from torch.optim._muon import _zeropower_via_newtonschulz as zp
        name = "torch.optim.Muon"

        def run():
            zp(x, (A, B, C), 5, 1e-7)
    except ImportError:
        name = "keller-loop-in-torch"

        def run():
            X = x / (x.norm() + 1e-7)
            for _ in range(5):
                G = X @ X.mT
                X = A * X + (B * G + C * G @ G) @ X
    ms = best_ms(run, 10)
    print("torch_ns_impl", name)
    print("torch_ns%d_TFLOPs %.1f" % (n, 5 * 3 * 2 * n ** 3 / ms * 1e-9))


if __name__ == "__main__":
    if sys.argv[1:2] == ["adamw"]:
        adamw()
    elif sys.argv[1:2] == ["ns"] and len(sys.argv) == 3:
        ns(int(sys.argv[2]))
    else:
        sys.exit("usage: bench_torch.py adamw | ns N")
