"""Regenerates fast/bench/RESULTS.md: the fast CPU backend against the physical limit of its
access pattern and against the best peers, measured side by side in one run (spec/fast.md
spec/fast.md §6, protocol). Not a test: nothing here asserts a speed; it measures and writes the figures.

    fast/bench/run.sh                 # builds, then runs this under the best venv found

The protocol (spec/fast.md §6, protocol): every comparison runs the subject and one peer in alternating
repetitions (A B A B ..., one warm-up of each first); each adjacent pair gives one ratio
(peer time / subject time: above 1 the subject is faster), reported as the median and the min
over the pairs (>= 7). The 1-minute load average is recorded before and after each section;
a section during which it exceeded the core count is marked LOADED.
"""
import argparse
import ctypes as C
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sysconfig
import sys
import tempfile
import time

# Importing torch under OMP_PROC_BIND (run.sh sets close) binds the calling thread to the first
# CPU (its libgomp); OpenBLAS, loaded after it with our library, would then size its pool to
# that one CPU, and every benchmark program started from here would inherit the mask
# (RESULTS.md of 2026-12-02 00:46: "OpenBLAS threads 1" in §3b). The mask is put back right
# after the import: the subjects get every CPU, torch's own team keeps its binding.
CPUS = os.sched_getaffinity(0)
import torch  # noqa: E402

os.sched_setaffinity(0, CPUS)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


class Tensor(C.Structure):
    """oc_fast_tensor (fast/include/optcert/fast.h)."""
    _fields_ = [("n", C.c_size_t), ("param", C.c_void_p), ("grad", C.c_void_p),
                ("state", C.c_void_p * 3), ("model", C.c_void_p)]


class AdamHparams(C.Structure):
    _fields_ = [("profile", C.c_int), ("lr", C.c_double), ("beta1", C.c_double),
                ("beta2", C.c_double), ("eps", C.c_double), ("weight_decay", C.c_double),
                ("eps_root", C.c_double), ("schedule_multiplier", C.c_double),
                ("decoupled", C.c_int), ("amsgrad", C.c_int), ("maximize", C.c_int)]


class SgdHparams(C.Structure):
    _fields_ = [("profile", C.c_int), ("lr", C.c_double), ("momentum", C.c_double),
                ("dampening", C.c_double), ("weight_decay", C.c_double),
                ("nesterov", C.c_int), ("maximize", C.c_int)]


class LionHparams(C.Structure):
    _fields_ = [("profile", C.c_int), ("lr", C.c_double), ("beta1", C.c_double),
                ("beta2", C.c_double), ("weight_decay", C.c_double)]


class Opts(C.Structure):
    _fields_ = [("inv_scale", C.c_float), ("clip_coeff", C.c_float), ("model", C.c_int)]


LR, BETAS, EPS, WD = 1e-3, (0.9, 0.95), 1e-8, 0.1
OC_FAST_CHUNK = 16384  # fast/include/optcert/fast.h: the elements of one chunk (FAST-MT-1)


# ---------------------------------------------------------------- the protocol

class Section:
    """One part of RESULTS.md: the load before and after, its tables, its command."""

    def __init__(self, title, command, timed=True):
        self.title, self.command, self.lines, self.goals = title, command, [], []
        self.timed = timed
        self.load0, self.start = os.getloadavg()[0], utc_now()

    def close(self):
        self.load1, self.end = os.getloadavg()[0], utc_now()
        self.loaded = self.timed and max(self.load0, self.load1) > os.cpu_count()
        return self

    def markdown(self):
        mark = (f"**LOADED** (1-minute load average above the {os.cpu_count()} cores)"
                if self.loaded else "quiet enough (load average at most the core count)"
                if self.timed else "counted, not timed: the load changes nothing here")
        out = [f"## {self.title}", "", "```sh", self.command, "```", "",
               f"Measured {self.start:%Y-%m-%d %H:%M}–{self.end:%H:%M} UTC on {MACHINE}. "
               f"Load average (1 min) "
               f"before {self.load0:.2f}, after {self.load1:.2f}: {mark}.", ""]
        goals = (["Goals (medians of this run):", ""] + self.goals + [""]) if self.goals else []
        return "\n".join(out + self.lines + goals).rstrip("\n") + "\n"


MACHINE = ""  # the machine and the fast kernels of this run, set by main()


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc)


def timed(fn, before=None):
    if before:
        before()
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def abab(subject, peer, pairs, before=None):
    """Subject and peer alternating (after one warm-up of each); per pair (t_subject, t_peer).
    `before` (untimed) runs before every timed call."""
    timed(subject, before), timed(peer, before)
    return [(timed(subject, before), timed(peer, before)) for _ in range(pairs)]


def summary(pairs):
    """Median subject and peer times, median and min of the pairwise ratios peer / subject."""
    r = [p / s for s, p in pairs]
    return (statistics.median(s for s, _ in pairs), statistics.median(p for _, p in pairs),
            statistics.median(r), min(r))


def goal(sec, what, value, target, fmt="{:.1%}", at_most=False):
    """One line of the section's goals: the measured median against the issue's target."""
    met = value <= target if at_most else value >= target
    sec.goals.append(f"- {what}: {fmt.format(value)} (goal {'≤' if at_most else '≥'} "
                     f"{fmt.format(target)}): **{'met' if met else 'not met'}**")


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    return out + ["| " + " | ".join(str(c) for c in r) + " |" for r in rows] + [""]


# ---------------------------------------------------------------- models and tensors

def gpt2_125m():
    """GPT-2 small (124.4 M): tied 50257x768 embedding, 1024x768 positions, 12 layers."""
    d, shapes = 768, [(50257, 768), (1024, 768)]
    for _ in range(12):
        shapes += [(d,), (d,), (d, 3 * d), (3 * d,), (d, d), (d,), (d,), (d,),
                   (d, 4 * d), (4 * d,), (4 * d, d), (d,)]
    return shapes + [(d,), (d,)]


class Model:
    """fp32 parameters, gradients and two state tensors per parameter, a bf16 copy; the
    oc_fast_tensor arrays over them with 2 (Adam), 1 (SGD momentum, Lion) states, copy or not."""

    def __init__(self, shapes):
        torch.manual_seed(0)
        self.p = [torch.randn(s) * 0.02 for s in shapes]
        self.g = [torch.randn(s) * 1e-3 for s in shapes]
        self.s = [[torch.zeros(s) for s in shapes] for _ in range(2)]
        self.copy = [torch.empty(s, dtype=torch.bfloat16) for s in shapes]
        self.n = sum(p.numel() for p in self.p)

    def tensors(self, nstate, copy):
        ts = (Tensor * len(self.p))()
        for i, p in enumerate(self.p):
            ts[i].n, ts[i].param, ts[i].grad = p.numel(), p.data_ptr(), self.g[i].data_ptr()
            for k in range(nstate):
                ts[i].state[k] = self.s[k][i].data_ptr()
            ts[i].model = self.copy[i].data_ptr() if copy else None
        return ts


def call(fn, *args):
    st = fn(*args)
    if st != 0:
        raise RuntimeError(f"{fn.__name__} returned {st}")


class Fast:
    """The subjects: the fast steps through the benchmark library."""

    def __init__(self, lib, model):
        self.lib, self.m, self.t = lib, model, 0
        self.adam_hp = AdamHparams(0, LR, BETAS[0], BETAS[1], EPS, WD, 0.0, 1.0, 1, 0, 0)
        self.sgd_hp = SgdHparams(0, LR, 0.9, 0.0, 0.0, 0, 0)
        self.lion_hp = LionHparams(0, 1e-4, BETAS[0], 0.99, WD)

    def step_fn(self, kind, copy):
        nstate = {"adam": 2, "sgd": 1, "lion": 1}[kind]
        ts = self.m.tensors(nstate, copy)
        opts = Opts(1.0, 1.0, 1 if copy else 0)
        fn, hp = {"adam": (self.lib.oc_fast_adam_step, self.adam_hp),
                  "sgd": (self.lib.oc_fast_sgd_step, self.sgd_hp),
                  "lion": (self.lib.oc_fast_lion_step, self.lion_hp)}[kind]

        def step():
            self.t += 1
            call(fn, C.byref(hp), C.c_int64(self.t), C.byref(opts), C.c_size_t(len(ts)), ts, None)
        return step

    def same_fn(self, pattern, nt, nstate, copy):
        ts = self.m.tensors(nstate, copy)
        return lambda: call(self.lib.oc_bench_same_traffic, pattern, nt, C.c_size_t(len(ts)), ts)


# ---------------------------------------------------------------- the peers

def torch_optimizer(kind, params, grads):
    """torch's best CPU implementation: fused=True where this torch accepts it on CPU (probed
    on a throw-away tensor), else foreach=True. Returns (optimizer, the variant's name)."""
    for p, g in zip(params, grads):
        p.grad = g
    cls, kw = {"adam": (torch.optim.AdamW, dict(lr=LR, betas=BETAS, eps=EPS, weight_decay=WD)),
               "sgd": (torch.optim.SGD, dict(lr=LR, momentum=0.9))}[kind]
    probe = [torch.zeros(4, requires_grad=True)]
    probe[0].grad = torch.ones(4)
    for variant in ("fused", "foreach"):
        try:
            cls(probe, **kw, **{variant: True}).step()
            return cls(params, **kw, **{variant: True}), variant
        except (RuntimeError, TypeError):
            continue
    return cls(params, **kw), "for-loop"


def deepspeed_adam(params):
    """DeepSpeedCPUAdam (its C++ op, built on first use), or the reason it cannot run."""
    try:
        from deepspeed.ops.adam import DeepSpeedCPUAdam
        import deepspeed
        opt = DeepSpeedCPUAdam(params, lr=LR, betas=BETAS, eps=EPS, weight_decay=WD,
                               adamw_mode=True)
        return opt, f"DeepSpeedCPUAdam (deepspeed {deepspeed.__version__})"
    except Exception as e:  # the report says exactly what failed
        return None, f"{type(e).__name__}: {e}".splitlines()[0][:300]


def lion_pytorch(params):
    try:
        from lion_pytorch import Lion
        from importlib import metadata
        return (Lion(params, lr=1e-4, betas=(BETAS[0], 0.99), weight_decay=WD),
                f"lion_pytorch.Lion {metadata.version('lion-pytorch')}")
    except Exception as e:
        return None, f"{type(e).__name__}: {e}".splitlines()[0][:300]


# ---------------------------------------------------------------- sections

def gbs(nbytes, t):
    return f"{nbytes / t / 1e9:.1f}"


def limits_section(lib, model, pairs, threads):
    """Item 1: the fused steps against the same-traffic kernels and STREAM, same run."""
    sec = Section(f"1. The limit of the access pattern ({model.n / 1e6:.1f} M parameters, "
                  f"{threads} threads)", cmd("limits"))
    f = Fast(lib, model)
    n = model.n
    rows = []
    variants = [("AdamW + bf16 copy", f.step_fn("adam", True), 6, 2, True, 30),
                ("AdamW (no copy)", f.step_fn("adam", False), 6, 2, False, 28),
                ("SGD momentum + bf16 copy", f.step_fn("sgd", True), 2, 1, True, 22),
                ("Lion + bf16 copy", f.step_fn("lion", True), 2, 1, True, 22)]
    stores = [(0, "ordinary"), (1, "NT copy"), (2, "NT all")]
    for name, step, pat, ns, copy, b in variants:
        worst = 1e9
        for nt, sname in stores:
            if nt and not copy and nt == 1:
                continue
            ts, tp, rmed, rmin = summary(abab(step, f.same_fn(pat, nt, ns, copy), pairs))
            worst = min(worst, rmed)
            rows.append([name, f"{b} B", sname, f"{ts * 1e3:.1f}", gbs(b * n, ts),
                         f"{tp * 1e3:.1f}", gbs(b * n, tp), f"{rmed:.1%}", f"{rmin:.1%}"])
        goal(sec, f"{name}: share of the fastest same-traffic kernel", worst, 0.9)
    sec.lines += ["Subject: the fast step; peer: the same-traffic kernel (the same tensors, the "
                  "same streams, the same chunks and threads, no arithmetic) with the named "
                  "stores. Ratio = peer time / step time = the share of the limit the step "
                  "reaches.", ""]
    sec.lines += table(["step", "bytes/param", "peer stores", "step ms", "step GB/s",
                        "peer ms", "peer GB/s", "of limit (median)", "(min)"], rows)
    # STREAM's four kernels, written the same way, on 3 arrays of 2^26 floats
    sn = 1 << 26
    a, b_, c = (torch.empty(sn) for _ in range(3))
    for x in (a, b_, c):
        x.fill_(1.0)
    step = f.step_fn("adam", True)
    srows = []
    for kind, kname, nb in [(0, "copy", 8), (1, "scale", 8), (2, "add", 12), (3, "triad", 12)]:
        for nt, sname in [(0, "ordinary"), (1, "NT")]:
            def k(kind=kind, nt=nt):
                lib.oc_bench_stream(kind, nt, C.c_size_t(sn), C.c_void_p(a.data_ptr()),
                                    C.c_void_p(b_.data_ptr()), C.c_void_p(c.data_ptr()))
            pr = abab(step, k, pairs)
            bw = [nb * sn / tp / 1e9 for _, tp in pr]
            srows.append([kname, sname, f"{nb} B", f"{statistics.median(bw):.1f}", f"{max(bw):.1f}"])
    del a, b_, c
    sec.lines += ["STREAM's kernels in the same run (interleaved with the AdamW + copy step), "
                  "2^26 floats per array, bytes as STREAM counts them (no write-allocate):", ""]
    sec.lines += table(["kernel", "stores", "bytes/elem", "GB/s (median)", "GB/s (max)"], srows)
    return sec.close()


def compute_section(lib, big, pairs, threads):
    """Item 1, what bounds it: each step's arithmetic (its tensors in cache) against its memory
    traffic (the same-traffic kernel on the model in memory)."""
    sec = Section(f"1c. What bounds the element-wise steps: arithmetic against traffic "
                  f"({threads} threads)", cmd("compute"))
    chunks, reps = 16, 20
    small = Model([(chunks * OC_FAST_CHUNK,)])
    rows = []
    for name, kind, pat, ns, b in [("AdamW + bf16 copy", "adam", 6, 2, 30),
                                   ("SGD momentum + bf16 copy", "sgd", 2, 1, 22),
                                   ("Lion + bf16 copy", "lion", 2, 1, 22)]:
        times = {}
        for where, model, rep in [("cache", small, reps), ("memory", big, 1)]:
            f = Fast(lib, model)
            step, same = f.step_fn(kind, True), f.same_fn(pat, 1, ns, True)
            pr = abab(lambda: [step() for _ in range(rep)], lambda: [same() for _ in range(rep)], pairs)
            t_step, t_same, rmed, _ = summary(pr)
            times[where] = (t_step / (rep * model.n), t_same / (rep * model.n), rmed)
        (cs, cm, crat), (ms, mm, mrat) = times["cache"], times["memory"]
        rows.append([name, f"{b} B", f"{cs * 1e9:.3f}", f"{cm * 1e9:.3f}", f"{ms * 1e9:.3f}",
                     f"{mm * 1e9:.3f}", f"{cs / mm:.0%}", f"{mrat:.1%}", f"{mm / max(mm, cs):.0%}",
                     f"{mm / (mm + cs):.0%}"])
    sec.lines += [f"Per parameter, {threads} threads, bf16 copy with non-temporal stores in the "
                  f"same-traffic kernel (as §1's NT copy). In cache: one tensor of {chunks} "
                  f"chunks ({chunks * OC_FAST_CHUNK} parameters, {chunks * OC_FAST_CHUNK * 14 / 2**20:.1f} "
                  f"MiB of p, g, state and copy: inside L2 + L3), {reps} calls per timing, so the "
                  "step's time there is its arithmetic (with loads and stores from cache: the "
                  "kernel's column is what those alone cost); in "
                  f"memory: the {big.n / 1e6:.1f} M-parameter model of §1. Each pair of columns "
                  "is one ABAB comparison (medians). Arithmetic / traffic = the step in cache over "
                  "the same-traffic kernel in memory; bounds of the share of the limit: "
                  "perfect overlap of arithmetic and traffic (max) and none (sum).", ""]
    sec.lines += table(["step", "bytes/param", "step in cache ns", "kernel in cache ns",
                        "step in memory ns", "kernel in memory ns", "arithmetic / traffic",
                        "of limit (median)", "bound: overlap", "bound: none"], rows)
    return sec.close()


def guard_section(lib, model, pairs, threads):
    """Item 1: the guarded step against its two passes' same-traffic kernels."""
    sec = Section(f"1b. The guarded step ({threads} threads)", cmd("guard"))
    # at most OC_GUARD_MAX_PARAMS tensors: the model's parameters as 16 flat pieces
    flat = [torch.cat([x.flatten() for x in xs]) for xs in (model.p, model.g, *model.s)]
    pieces = [torch.tensor_split(x, 16) for x in flat]
    ts = (Tensor * 16)()
    for i in range(16):
        ts[i].n, ts[i].param, ts[i].grad = pieces[0][i].numel(), pieces[0][i].data_ptr(), pieces[1][i].data_ptr()
        ts[i].state[0], ts[i].state[1] = pieces[2][i].data_ptr(), pieces[3][i].data_ptr()
    g0 = flat[1].clone()
    scale = 65536.0
    norm = float((g0.double() ** 2).sum().sqrt())
    flat[1].mul_(scale)
    g_scaled = flat[1].clone()
    lib.oc_bench_guard_new.restype = C.c_void_p
    guard = lib.oc_bench_guard_new(C.c_size_t(16), ts, C.c_double(0.5 * norm))
    step = lambda: call(lib.oc_bench_guard_step, C.c_void_p(guard))
    restore = lambda: flat[1].copy_(g_scaled)
    rows, worst = [], 1e9
    for nt, sname in [(0, "ordinary"), (2, "NT all")]:
        def passes(nt=nt):
            call(lib.oc_bench_same_traffic, 1, 0, C.c_size_t(16), ts)
            call(lib.oc_bench_same_traffic, 14, nt, C.c_size_t(16), ts)
        ts_, tp, rmed, rmin = summary(abab(step, passes, pairs, restore))
        worst = min(worst, rmed)
        rows.append([sname, f"{ts_ * 1e3:.1f}", f"{tp * 1e3:.1f}", f"{rmed:.1%}", f"{rmin:.1%}"])
    lib.oc_bench_guard_free(C.c_void_p(guard))
    goal(sec, "guarded step: share of its two passes' fastest same-traffic kernels", worst, 0.85)
    sec.lines += [f"One AdamW sub-optimizer over the {model.n / 1e6:.1f} M parameters as 16 "
                  "tensors, fp16 mode with Megatron's scaler at 2^16, the 2-norm clipped to half "
                  "the gradient norm (every step clips), gradients restored (untimed) before "
                  "every call. Peer: the same-traffic kernels of the two passes the step needs "
                  "at least: a read of g (4 B) and the fused pass (p, m, v, g read and written: "
                  "32 B; the gradient is unscaled and clipped in place, STEP-UNSCALE-1).", ""]
    sec.lines += table(["peer stores", "guarded step ms", "two passes ms", "of limit (median)",
                        "(min)"], rows)
    return sec.close()


def peers_section(lib, model, pairs, threads):
    """Item 2: the fast steps against the best peers, per step and per byte."""
    sec = Section(f"2. Against the best peers ({model.n / 1e6:.1f} M parameters, {threads} threads)", cmd("peers"))
    f = Fast(lib, model)
    rows, notes = [], []

    def row(name, subj, sb, peer, pb, pname, before=None):
        ts, tp, rmed, rmin = summary(abab(subj, peer, pairs, before))
        goal(sec, f"{name} against {pname}: peer/fast", rmed,
             1.3 if "copy" in name and "AdamW" in name else 1.0, "{:.2f}")
        rows.append([name, pname, f"{ts * 1e3:.1f}", f"{tp * 1e3:.1f}", f"{rmed:.2f}",
                     f"{rmin:.2f}", f"{sb * model.n / ts / 1e9:.1f}", f"{pb * model.n / tp / 1e9:.1f}",
                     f"{rmed * sb / pb:.2f}"])

    params = model.p

    def then_copy(step):
        def both():
            step()
            for c, p in zip(model.copy, params):
                c.copy_(p)
        return both

    def optional(work, kind, nbytes, made):
        opt, name = made
        if opt is None:
            notes.append(f"{work}: not measured: {name}")
        else:
            row(work, f.step_fn(kind, False), nbytes, opt.step, nbytes, name)

    def torch_pair(kind, work, nbytes):
        """torch's best without and with the bf16 copy (copy_ reads p again: 6 B more)."""
        opt, variant = torch_optimizer(kind, params, model.g)
        name = f"torch {torch.__version__} {type(opt).__name__} {variant}"
        row(f"{work} fp32", f.step_fn(kind, False), nbytes, opt.step, nbytes, name)
        row(f"{work} + bf16 copy", f.step_fn(kind, True), nbytes + 2, then_copy(opt.step),
            nbytes + 6, name + " + copy_")

    torch_pair("adam", "AdamW", 28)
    optional("AdamW fp32", "adam", 28, deepspeed_adam(params))
    torch_pair("sgd", "SGD momentum", 20)
    optional("Lion fp32", "lion", 20, lion_pytorch(params))
    sec.lines += ["Subject: the fast step; ratio = peer time / fast time (above 1: fast is "
                  "faster); per byte: the fast step's bytes per second over the peer's, each "
                  "counting its own traffic (AdamW 28 B/param without the copy, 30 B with it, "
                  "torch + copy_ 34 B: the copy pass reads p again; SGD momentum and Lion 20 B, "
                  "22 B with the copy, 26 B for torch + copy_). The peers run on the same "
                  "parameter and gradient tensors with their own state.", ""]
    sec.lines += table(["work", "peer", "fast ms", "peer ms", "peer/fast (median)", "(min)",
                        "fast GB/s", "peer GB/s", "per byte"], rows)
    sec.lines += [f"- {n}" for n in notes] + ([""] if notes else [])
    return sec.close()


class TorchBf16As:
    """torch as torch.optim._muon sees it, with torch.bfloat16 replaced by `dtype`: runs torch's
    own _zeropower_via_newtonschulz with fp32 operands (its code casts to bfloat16)."""

    def __init__(self, dtype):
        self.bfloat16 = dtype

    def __getattr__(self, name):
        return getattr(torch, name)


def workspace(length_fn, *args):
    """A workspace of the floats length_fn (a C function returning size_t) asks for, allocated
    once, as a training loop keeps it (FAST-NS-3, FAST-MUON-4)."""
    length_fn.restype = C.c_size_t
    return torch.empty(length_fn(*[a if isinstance(a, C.c_void_p) else C.c_size_t(a) for a in args]))


def ns_fn(lib, g, bf16):
    """oc_fast_newton_schulz (NS-PROF-SIMPLE) of g with a workspace allocated once."""
    rows, cols = g.shape
    out, work = torch.empty(rows, cols), workspace(lib.oc_fast_ns_work_len, rows, cols)
    return lambda: call(lib.oc_bench_ns, 0, bf16, C.c_size_t(rows), C.c_size_t(cols),
                        C.c_void_p(g.data_ptr()), C.c_void_p(out.data_ptr()),
                        C.c_void_p(work.data_ptr()), C.c_size_t(work.numel()))


def ns_section(lib, pairs, threads, shapes, bf16_shapes):
    """Item 3: the fast Newton-Schulz against torch.optim.Muon's, and the Muon step."""
    import torch.optim._muon as tm
    sec = Section(f"3. Newton-Schulz and Muon ({threads} threads)", cmd("ns"))
    rows = []
    for rows_, cols, bf16 in [s + (0,) for s in shapes] + [s + (1,) for s in bf16_shapes]:
        g = torch.randn(rows_, cols)
        ours = ns_fn(lib, g, bf16)
        coef = (tm.DEFAULT_A, tm.DEFAULT_B, tm.DEFAULT_C)
        if bf16:
            theirs = lambda: tm._zeropower_via_newtonschulz(g, coef, 5, 1e-7)
        else:
            def theirs():
                saved = tm.torch
                tm.torch = TorchBf16As(torch.float32)
                try:
                    tm._zeropower_via_newtonschulz(g, coef, 5, 1e-7)
                finally:
                    tm.torch = saved
        ts, tp, rmed, rmin = summary(abab(ours, theirs, pairs))
        goal(sec, f"{rows_}x{cols} {'bf16' if bf16 else 'fp32'}: torch/fast", rmed, 1.0, "{:.2f}")
        rows.append([f"{rows_}x{cols}", "bf16" if bf16 else "fp32", f"{ts * 1e3:.1f}",
                     f"{tp * 1e3:.1f}", f"{rmed:.2f}", f"{rmin:.2f}"])
    sec.lines += ["Subject: oc_fast_newton_schulz, NS-PROF-SIMPLE (torch's coefficients "
                  "3.4445, -4.7750, 2.0315), 5 iterations; peer: torch.optim._muon."
                  "_zeropower_via_newtonschulz (torch.optim.Muon's orthogonalisation), bf16 "
                  "operands as torch casts them, and the same torch code with the cast to "
                  "float32 instead (fp32). Ratio = torch / fast.", "", blas_line(lib), ""]
    sec.lines += table(["shape", "operands", "fast ms", "torch ms", "torch/fast (median)", "(min)"], rows)
    # the Muon step against its own NS time (Keller profile: simple NS)
    mrows = []
    for rows_, cols in shapes:
        g = torch.randn(rows_, cols)
        p, m = torch.randn(rows_, cols) * 0.02, torch.zeros(rows_, cols)
        ns = ns_fn(lib, g, 0)
        work = workspace(lib.oc_fast_muon_work_len, C.c_void_p(None), rows_, cols)
        muon = lambda: call(lib.oc_bench_muon, 0, 0, C.c_size_t(rows_), C.c_size_t(cols),
                            C.c_void_p(p.data_ptr()), C.c_void_p(m.data_ptr()), C.c_void_p(g.data_ptr()),
                            C.c_void_p(work.data_ptr()), C.c_size_t(work.numel()))
        ts, tp, rmed, rmin = summary(abab(ns, muon, pairs))
        goal(sec, f"{rows_}x{cols}: Muon step / its NS", rmed, 1.1, "{:.3f}", at_most=True)
        mrows.append([f"{rows_}x{cols}", f"{ts * 1e3:.1f}", f"{tp * 1e3:.1f}", f"{rmed:.3f}",
                      f"{rmin:.3f}"])
    sec.lines += ["The whole Muon step (oc_fast_muon_step, MUON-PROF-KELLER, fp32, with its "
                  "workspace allocated once as the Newton-Schulz's is: FAST-MUON-4) against its "
                  "Newton-Schulz alone (the subject here), same shapes:", ""]
    sec.lines += table(["shape", "NS ms", "Muon step ms", "step/NS (median)", "(min)"], mrows)
    return sec.close()


def torch_blas():
    """The BLAS under torch's CPU matrix products, from its build configuration."""
    cfg = torch.__config__.show()
    info = cfg.split("BLAS_INFO=")[1].split(",")[0] if "BLAS_INFO=" in cfg else "unknown"
    lines = [l.strip(" -") for l in cfg.splitlines() if "Math Kernel Library" in l or "OpenBLAS" in l]
    return f"{info}" + (f" ({lines[0]})" if lines else "")


def blas_line(lib):
    """Which BLAS each side's products run on, on how many threads."""
    lib.oc_bench_blas_config.restype = C.c_char_p
    return (f"Products: torch {torch.__version__} on its BLAS {torch_blas()}, "
            f"{torch.get_num_threads()} threads; ours on {lib.oc_bench_blas_config().decode()}, "
            f"{lib.oc_bench_blas_threads()} threads (CPUs of this process: {sorted(CPUS)}).")


def blas_section(lib, pairs, threads, shapes):
    """Item 3, what bounds it: torch's matrix products (its BLAS) against OpenBLAS's sgemm and
    against the implementation's own BLAS calls, on Newton-Schulz's products, same process."""
    sec = Section(f"3c. What bounds Newton-Schulz against torch: the BLAS under each "
                  f"({threads} threads)", cmd("blas"))
    steps, rows, bound = 5, [], []
    for k, n in shapes:
        x, y = torch.randn(k, n), torch.empty(k, n)
        a, b = torch.empty(k, k), torch.empty(k, k)
        lib.oc_fast_ns_gram_ld.restype = C.c_size_t
        ld = lib.oc_fast_ns_gram_ld(C.c_size_t(k))
        a_own, b_own = torch.empty(k * ld), torch.empty(k * ld)  # our calls' A, B (FAST-NS-3)

        def torch_mm():
            for _ in range(steps):
                torch.mm(x, x.T, out=a)
                torch.mm(a, a, out=b)
                torch.mm(b, x, out=y)

        def openblas(which):
            ga, gb = (a_own, b_own) if which else (a, b)
            return lambda: lib.oc_bench_ns_products(which, k, n, steps, C.c_void_p(x.data_ptr()),
                                                    C.c_void_p(y.data_ptr()), C.c_void_p(ga.data_ptr()),
                                                    C.c_void_p(gb.data_ptr()))
        t_gemm, t_torch, r_gemm, m_gemm = summary(abab(openblas(0), torch_mm, pairs))
        t_own, _, r_own, m_own = summary(abab(openblas(1), torch_mm, pairs))
        gemm_flops, own_flops = steps * (4 * k * k * n + 2 * k ** 3), steps * (3 * k * k * n + k ** 3)
        rows.append([f"{k}x{n}", f"{t_torch * 1e3:.1f}", f"{gemm_flops / t_torch / 1e9:.1f}",
                     f"{t_gemm * 1e3:.1f}", f"{gemm_flops / t_gemm / 1e9:.1f}", f"{r_gemm:.2f}",
                     f"{m_gemm:.2f}", f"{t_own * 1e3:.1f}", f"{own_flops / t_own / 1e9:.1f}",
                     f"{gemm_flops / own_flops:.2f}", f"{r_own:.2f}", f"{m_own:.2f}"])
        bound.append(f"- {k}x{n}: torch's products take {r_own:.2f} of the time of ours (median "
                     f"of the pairs): the most torch/fast can reach in §3 with no time outside "
                     f"BLAS; with §3b's share s outside, {r_own:.2f} x (1 - s).")
    sec.lines += [blas_line(lib), "", f"The products of {steps} Newton-Schulz iterations on X (k x n, fp32): torch.mm "
                  "(X X^T, A A, B X; what torch.optim.Muon's orthogonalisation runs, minus its "
                  "element-wise terms) against the same three products as OpenBLAS sgemm, and "
                  "against the implementation's own calls (SSYRK, SSYRK, SSYMM: fewer flops, "
                  "FAST-NS-1); two ABAB comparisons, ratio = torch time / OpenBLAS time. GFLOP/s "
                  "count each side's own flops. The tall shapes run the same products (torch "
                  "transposes, we read X column-major).", ""]
    sec.lines += table(["X", "torch.mm ms", "GFLOP/s", "OpenBLAS sgemm ms", "GFLOP/s",
                        "torch/sgemm (median)", "(min)", "our BLAS calls ms", "GFLOP/s",
                        "flops sgemm/ours", "torch/ours (median)", "(min)"], rows)
    sec.lines += bound + [""]
    return sec.close()


def ns_blas_section(pairs):
    """Item 3: the time outside BLAS, from ns_bench (C, ABAB against its own BLAS calls)."""
    pthread_dir = "/usr/lib/" + sysconfig.get_config_var("MULTIARCH") + "/openblas-pthread"
    swap = f"LD_LIBRARY_PATH={pthread_dir}"
    sec = Section("3b. Newton-Schulz: the time outside BLAS (2 threads, wall clock)",
                  cmd("nsblas") + "\n# or directly, with libgomp's default wait policy:\n" +
                  "\n".join(f"build/fast/ns_bench {pairs} {p} wall" for p in ("fp32", "bf16")) +
                  f"\n{swap} build/fast/ns_bench {pairs} fp32 wall")
    # libgomp's default wait policy (run.sh's passive taken out): the passes between the
    # products must not depend on it (FAST-NS-3)
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    # the third run, not a goal: the same program on OpenBLAS's pthread build (the same soname,
    # found first on the library path), whose threads spin beside the passes' OpenMP team
    runs = [("fp32", {}), ("bf16", {})]
    if os.path.exists(os.path.join(pthread_dir, "libopenblas.so.0")):
        # without OMP_PROC_BIND: libgomp binds the main thread at load, and the pthread build
        # then sizes its pool from that one-CPU mask (1 thread, not the OpenMP build's 2)
        runs.append(("fp32", {"LD_LIBRARY_PATH": pthread_dir, "OMP_PROC_BIND": None}))
    for prec, extra in runs:
        out = subprocess.run([os.path.join(ROOT, "build/fast/ns_bench"), str(pairs), prec, "wall"],
                             capture_output=True, text=True, check=True,
                             env={k: v for k, v in dict(env, **extra).items() if v is not None})
        head, *tab = out.stdout.rstrip().splitlines()
        sec.lines += [f"{prec}{', ' + swap if extra else ''}: {head}", ""] + tab + [""]
        for line in tab[2:] if not extra else []:
            cells = [c.strip() for c in line.strip("|").split("|")]
            goal(sec, f"{cells[0]} {prec}: time outside BLAS", float(cells[10].rstrip("%")) / 100,
                 0.05, at_most=True)
    sec.lines += perf_attribution(pairs, env)
    sec.lines += ["Per round: the implementation (NS), the same products as three sgemm calls, "
                  "the implementation's own BLAS calls alone; outside BLAS = 1 - blas/NS from "
                  "the median ratio. GFLOP/s* counts sgemm's flops over the NS time. The passes "
                  "between the products run on an OpenMP team, and OpenBLAS is its OpenMP build, "
                  "whose threads are that team (FAST-NS-3). The third table, if present, loads "
                  f"OpenBLAS's pthread build instead ({swap}, OMP_PROC_BIND unset so that it "
                  "gets its 2 threads): its threads spin after each "
                  "product (2^28 cycles by default) beside the passes' team on the 2 cores, which "
                  "is what the OpenMP build saves; compare its outside-BLAS shares with the first "
                  "table's, and each with the spread of its pairs (min, max), which bounds what "
                  "one run resolves.", ""]
    return sec.close()


def perf_attribution(pairs, env):
    """Where the NS time goes, sampled (perf record on ns_bench's NS rounds alone, the three
    shapes): the products (oneDNN's JIT kernels and libdnnl, OpenBLAS), the passes between them
    (fast/cpu/newton_schulz.c's *_part functions and sumsq), the kernel, the rest. "outside
    BLAS" above also counts products that run slower inside the NS than alone."""
    if not shutil.which("perf"):
        return ["Sampled attribution: not measured (no perf on this machine).", ""]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        for prec in ("fp32", "bf16"):
            rec = subprocess.run(["perf", "record", "-q", "-F", "1999", "-o", data, "--",
                                  os.path.join(ROOT, "build/fast/ns_bench"), str(pairs), prec,
                                  "wall", "ns-only"], capture_output=True, text=True, env=env)
            rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children",
                                  "--sort", "dso,symbol", "-q"], capture_output=True, text=True)
            if rec.returncode or rep.returncode:
                return ["Sampled attribution: not measured (perf failed: " +
                        (rec.stderr or rep.stderr).strip().splitlines()[-1] + ").", ""]
            share = {"products": 0.0, "passes": 0.0, "kernel": 0.0, "rest": 0.0}
            for line in rep.stdout.splitlines():
                # "  3.86%  ns_bench  [.] finish16_part.arch_x86_64_v4  ..." (a dso may hold
                # spaces: "[JIT] tid 4115")
                m = re.match(r"\s*([0-9.]+)%\s+(.*?)\s+\[[.k]\]\s+(\S+)", line)
                if not m:
                    continue
                pct, dso, sym = float(m[1]), m[2], m[3]
                if dso.startswith("[JIT]") or "dnnl" in dso or "openblas" in dso:
                    share["products"] += pct
                elif dso.startswith("[kernel"):
                    share["kernel"] += pct
                elif "_part" in sym or sym == "sumsq":
                    share["passes"] += pct
                else:
                    share["rest"] += pct
            rows.append([prec] + [f"{share[k]:.1f}%" for k in share])
    return ["Sampled attribution of the NS time (perf record -F 1999 on `build/fast/ns_bench "
            f"{pairs} PREC wall ns-only`, the three shapes; CPU samples of both threads):", ""] + \
        table(["operands", "products (oneDNN, OpenBLAS)", "passes (normalise, Gram, domain, "
               "B', sumsq)", "kernel", "rest"], rows) + \
        ["The passes column is the share of our own code between the products; \"outside BLAS\" "
         "(1 - blas/NS) is larger where the products run slower inside the NS than in the "
         "\"blas\" baseline, which calls them back to back on the same inputs: that difference "
         "is products, not passes. Removing it needs the passes folded into the products "
         "(e.g. oneDNN post-ops writing bf16), not faster passes.", ""]


def scaling_section(lib, pairs, sizes):
    """Item 4: cost over model size and threads (AdamW + copy against its same-traffic kernel)."""
    sec = Section("4. How cost grows: model size and threads", cmd("scaling"))
    rows = []
    avail = int(open("/proc/meminfo").read().split("MemAvailable:")[1].split()[0]) * 1024
    for n in sizes:
        need = 18 * n
        if need > 0.8 * avail:
            rows.append([f"{n / 1e6:.0f} M", "-", "not run", f"needs {need / 2**30:.1f} GiB of the "
                         f"{avail / 2**30:.1f} GiB available", "", "", "", ""])
            continue
        model = Model([(n // 16384, 16384), (n % 16384,)] if n % 16384 else [(n // 16384, 16384)])
        for threads in (1, 2):
            lib.oc_bench_set_threads(threads)
            f = Fast(lib, model)
            ts, tp, rmed, rmin = summary(abab(f.step_fn("adam", True), f.same_fn(6, 1, 2, True), pairs))
            rows.append([f"{n / 1e6:.0f} M", threads, f"{ts * 1e3:.1f}", f"{n / ts / 1e6:.0f}",
                         gbs(30 * n, ts), gbs(30 * n, tp), f"{rmed:.1%}", f"{rmin:.1%}"])
        del model
    lib.oc_bench_set_threads(os.cpu_count())
    sec.lines += ["AdamW + bf16 copy (30 B/param) against the same-traffic kernel with a "
                  "non-temporal copy, one flat tensor per size:", ""]
    sec.lines += table(["params", "threads", "step ms", "Mparam/s", "step GB/s", "limit GB/s",
                        "of limit (median)", "(min)"], rows)
    return sec.close()


def ranks_section(ranks):
    """Item 4: per-rank work and bytes against the analytical lower bound (dist_muon_bench)."""
    mpiexec = "mpiexec --allow-run-as-root --oversubscribe"
    loop = f"for R in {' '.join(map(str, ranks))}; do OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 " \
           f"{mpiexec} -n $R build/fast/dist_muon_bench 8 384 2; done"
    sec = Section("4b. Ranks: distributed Muon, per-rank work and bytes",
                  cmd("ranks") + "\n# or directly:\n" + loop)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    outs = []
    for r in ranks:
        out = subprocess.run(mpiexec.split() + ["-n", str(r), os.path.join(ROOT, "build/fast/dist_muon_bench"),
                                                "8", "384", "2"], capture_output=True, text=True, env=env)
        outs.append(out.stdout.rstrip() or f"# {r} ranks: failed: {out.stderr.strip()[:300]}")
    sec.lines += ["```", "\n".join(outs), "```", ""]
    return sec.close()


def layouts_section(ranks, buckets):
    """Item 4: the layouts' per-rank work and bytes against the analytical lower bound, counted
    from the layouts themselves (fast/layout through layout_dump: every rank's owned segments,
    LAYOUT-OWN-1) over GPT-2 small, so no timing and no oversubscription."""
    dump = os.path.join(ROOT, "build/fast/layout_dump")
    kinds = ["zero1-flat", "fsdp2-dim0", "layerwise", "layerwise-lpt", "layerwise-numel",
             "layerwise-megatron"]
    shapes = gpt2_125m()
    lines = "".join(f"{s[0]} {s[1] if len(s) > 1 else 1} {len(s)} 0\n" for s in shapes)
    n = sum(s[0] * (s[1] if len(s) > 1 else 1) for s in shapes)
    sec = Section("4c. Ranks: the layouts, per-rank work and bytes",
                  cmd("layouts") + "\n# or directly, one layout (parameters on stdin, one "
                  "\"DIM0 DIM1 NDIM SHARED\" line each):\nbuild/fast/layout_dump LAYOUT RANKS "
                  "BUCKET_SIZE 0 < parameters", timed=False)
    rows = []
    for kind in kinds:
        for bucket in buckets:
            for r in ranks:
                out = subprocess.run([dump, kind, str(r), str(bucket), "0"], input=lines,
                                     capture_output=True, text=True)
                if out.returncode != 0:
                    rows.append([kind, str(bucket or "one"), str(r), "failed: " +
                                 out.stderr.strip()[:120], "", "", "", ""])
                    continue
                own = [0] * r
                for rank, _, _, length, _ in json.loads(out.stdout)["segments"]:
                    own[rank] += length
                work, bound = max(own), -(-n // r)
                gathered = max(n - o for o in own)  # elements a rank receives in the all-gather
                gbound = n - bound
                rows.append([kind, str(bucket or "one"), str(r), f"{work / 1e6:.2f}",
                             f"{work / bound:.3f}", f"{gathered * 4 / 1e6:.1f}",
                             f"{gbound * 4 / 1e6:.1f}", f"{sum(own) / n:.3f}"])
    sec.lines += [f"GPT-2 small ({n / 1e6:.1f} M parameters, {len(shapes)} tensors). Work: the "
                  "most elements one rank steps (the element-wise step's time is proportional "
                  "to it), against the bound ceil(N / R). Bytes: the most one rank receives when "
                  "the updated fp32 parameters are gathered (N minus its own elements, 4 B each), "
                  "against the bound (N - ceil(N / R)) x 4 B; a reduce-scatter of the gradients "
                  "moves the same. Coverage: the owned elements over N (1.000: every element "
                  "owned once). Counted, not timed: 8 ranks on 2 cores would time the machine, "
                  "not the layout. The layer-wise layouts keep every tensor whole on one rank: "
                  "their work cannot go below the largest tensor "
                  f"({max(s[0] * (s[1] if len(s) > 1 else 1) for s in shapes) / 1e6:.2f} M "
                  "elements, the tied embedding), and with buckets each bucket is dealt out "
                  "on its own.", ""]
    sec.lines += table(["layout", "bucket (elements)", "ranks", "work (M elem)", "work / bound",
                        "gathered MB", "bound MB", "coverage"], rows)
    return sec.close()


def offload_section(rounds):
    """Item 5: the CPU-offloaded step's copy/compute overlap (offload_bench, LAYOUT-OFFLOAD-5)."""
    sec = Section("5. CPU offload: copy/compute overlap of the offloaded step",
                  cmd("offload") + f"\n# or directly:\nbuild/fast/offload_bench {rounds} 32 262144")
    out = subprocess.run([os.path.join(ROOT, "build/fast/offload_bench"), str(rounds), "32", "262144"],
                         capture_output=True, text=True)
    sec.lines += out.stdout.rstrip().splitlines() or [f"failed: {out.stderr.strip()[:300]}"]
    sec.lines += ["", "Subject: the offloaded step with overlap (LAYOUT-OFFLOAD-5); peers in the same "
                  "round: the offloaded step without overlap and the step without offload (ratios "
                  "peer time / subject time). Activities in ms per step (summed over their pieces); "
                  "overlap = (sum of activities - step time) / (sum - largest activity): 1 when the "
                  "step lasts only its longest activity, 0 when nothing overlapped. The device is "
                  "host memory here and shares the cores with the host step: the engine's "
                  "pipelining on this CPU, not a GPU's copy engines.", ""]
    return sec.close()


def machine():
    flags = open("/proc/cpuinfo").read().split("flags")[1].split("\n")[0]
    model = [l for l in open("/proc/cpuinfo").read().splitlines() if l.startswith("model name")][0]
    isa = ", ".join(x for x in ("avx512f", "avx2", "fma", "f16c") if f" {x}" in flags)
    mem = int(open("/proc/meminfo").read().split("MemTotal:")[1].split()[0]) / 2**20
    return (f"{model.split(':')[1].strip()}, {os.cpu_count()} cores ({isa}), {mem:.0f} GiB, "
            f"{platform.platform()}, Python {platform.python_version()}, torch {torch.__version__}")


def cmd(section):
    """The command that reproduces one section (run.sh: the build, the venv, the threads)."""
    return f"fast/bench/run.sh --only {section}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", default=os.path.join(ROOT, "build/fast/liboptcert_fast_bench.so"))
    ap.add_argument("--pairs", type=int, default=7)
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS.md"))
    ap.add_argument("--only", default="limits,compute,guard,peers,ns,blas,nsblas,scaling,ranks,layouts,"
                                      "offload")
    a = ap.parse_args()
    if a.pairs < 7:
        sys.exit("bench.py: --pairs must be at least 7 (spec/fast.md §6, protocol)")
    lib = C.CDLL(os.path.abspath(a.lib))
    lib.oc_fast_isa_name.restype = C.c_char_p
    threads = lib.oc_bench_threads()
    torch.set_num_threads(threads)
    isa = lib.oc_fast_isa_name(lib.oc_fast_isa_active()).decode()
    global MACHINE
    MACHINE = f"{machine()}; fast kernels {isa}"
    secs, only = [], a.only.split(",")
    model = Model(gpt2_125m()) if {"limits", "compute", "guard", "peers"} & set(only) else None
    steps = {"limits": lambda: limits_section(lib, model, a.pairs, threads),
             "compute": lambda: compute_section(lib, model, a.pairs, threads),
             "guard": lambda: guard_section(lib, model, a.pairs, threads),
             "peers": lambda: peers_section(lib, model, a.pairs, threads),
             # torch's bf16 products run at about 1 GFLOP/s on a CPU without bf16 arithmetic:
             # smaller shapes for that pair, or the section takes most of an hour
             "ns": lambda: ns_section(lib, a.pairs, threads, [(1024, 1024), (4096, 1024), (1024, 4096)],
                                      [(512, 512), (2048, 512), (512, 2048)]),
             "blas": lambda: blas_section(lib, a.pairs, threads, [(1024, 1024), (1024, 4096)]),
             "nsblas": lambda: ns_blas_section(a.pairs),
             "scaling": lambda: scaling_section(lib, a.pairs, [10**7, 3 * 10**7, 10**8, 3 * 10**8, 10**9]),
             "ranks": lambda: ranks_section([1, 2, 3, 4, 8]),
             "layouts": lambda: layouts_section([1, 2, 3, 4, 8], [0, 4 * 10**7]),
             "offload": lambda: offload_section(a.pairs)}
    for name in only:
        secs.append(steps[name]())
        print(secs[-1].markdown(), flush=True)
    # a partial run replaces its own sections of the existing file and keeps the others (each
    # section says when it was measured); sections in the order of their numbers (1, 1b, 2, ...)
    kept = {} if set(only) == set(steps) else previous_sections(a.out)
    kept.update({s.title.split(" ", 1)[0]: s.markdown() for s in secs})
    number = lambda k: (int(k.rstrip(".").rstrip("abcdefgh")), k)  # noqa: E731
    body = [kept[k] for k in sorted(kept, key=number)]
    loaded = [b.split("\n", 1)[0][3:] for b in body if "**LOADED**" in b]
    head = ["# fast/ benchmark results", "",
            "Generated by `fast/bench/run.sh` (fast/bench/bench.py; the protocol is spec/fast.md "
            "§6): each section names the command that reproduces it and when it was measured "
            "(`--only SECTION,...` measures those sections again and keeps the others). "
            "Benchmarks, not tests: nothing here is asserted.", "",
            f"This run: {MACHINE}; {threads} OpenMP threads, {a.pairs} pairs per comparison. "
            "Each section names the machine it was measured on.", "",
            "Protocol: subject and peer alternate (A B A B ..., one warm-up each); each adjacent "
            "pair gives one ratio peer time / subject time; the tables give its median and min "
            "over the pairs. The 1-minute load average is recorded before and after each "
            "section; a section where it exceeded the core count is marked **LOADED**: its "
            "absolute figures are a fraction of the idle machine's, its ratios noisier.", "",
            ("**Sections measured under load: " + "; ".join(loaded) + ".**") if loaded
            else "No section ran under load.", ""]
    with open(a.out, "w") as fh:
        fh.write("\n".join(head) + "\n" + "\n".join(body))


def previous_sections(path):
    """The sections of an earlier RESULTS.md by their number ("1b."), each with its text."""
    if not os.path.exists(path):
        return {}
    parts = ("\n" + open(path).read()).split("\n## ")[1:]
    return {p.split(" ", 1)[0]: "## " + p.rstrip("\n") + "\n" for p in parts}


if __name__ == "__main__":
    main()
