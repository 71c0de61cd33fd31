#!/usr/bin/python3
"""optcert adapter: run Megatron's ChainedOptimizer.step on guarded-step-megatron.

Megatron's own classes, as `get_megatron_optimizer` builds them without Transformer Engine or
Apex (megatron-core 0.19.2, megatron/core/optimizer/__init__.py L540-650): each sub-optimizer
of a case is a `Float16OptimizerWithFloat16Params` over the inner optimizer Megatron picks for
its kind (`torch.optim.AdamW`, or `torch.optim.Adam` without decoupled weight decay;
`torch.optim.SGD`; Emerging-Optimizers' `Lion`), and the sub-optimizers are chained in a
`ChainedOptimizer`, whose `step()` the adapter calls once per iteration. The mode picks the
grad scaler as Megatron's configuration does (L640-662):
- `scaled`: fp16 parameters and a `DynamicGradScaler` per sub-optimizer (Megatron makes one
  per sub-optimizer), set to the case's scaler configuration and that sub-optimizer's state
  (`scalerStates`, STEP-SCALER-2; a chain of one has `scalerState`);
- `unchecked`: bf16 parameters and no scaler (`--bf16` without `--loss-scale`);
- `checked`: bf16 parameters and `ConstantGradScaler(1.0)` (`--bf16 --loss-scale 1`): the
  gradients are checked for inf/NaN and multiplied by 1.

The fp32 main parameters are the vectors' `p` (written over the copies Megatron makes of the
16-bit parameters), the inner optimizers' states the vectors' states (Adam's `step` the
sub-optimizer's counter; SGD's `momentum_buffer` absent before its first update, torch's
first-step rule). Each iteration's scaled gradients are the parameters' `main_grad` (fp32, as
Megatron's DDP keeps them). Per sub-optimizer, `config.clip_grad` and
`config.grad_norm_skip_threshold` are the case's, or the entry's own (`clipGrad`,
`skipThreshold`): `ChainedOptimizer.__init__` asserts that every sub-optimizer has the first
one's config (optimizer.py L1440), and `get_megatron_optimizer` resets each to the top-level
config for that assertion (__init__.py L937-941), so differing configs are assigned after
construction, where `ChainedOptimizer.step` reads them per sub-optimizer (L1904, L1923).
Parameters of the `'mtp'` group get `grad_norm_group = 'mtp'`.

Recorded per iteration (VEC-FMT-17 `value`): the outcome from `step()`'s result (taken; skipped
with no norm: a non-finite gradient; skipped with a norm: the threshold), the norm (0 where none
is returned), the schedule position (advanced by the increment only after a taken update, as
Megatron's training loop does: training.py `if update_successful:
opt_param_scheduler.step(increment=...)`), each sub-optimizer's scaler's scale, growth and
hysteresis trackers (0 outside mode `scaled`), each sub-optimizer's counter (Adam's `state['step']`; SGD and Lion keep none: the
case's counter plus the taken updates), then per parameter the main parameter, its state
tensors and its main gradient after `step()`. A Megatron or torch exception marks the case
`rejected`. `unsupported`: the inf-norm (`ChainedOptimizer.step` has none), one loss scaler
shared by a chain of several sub-optimizers (Megatron makes one each), and hyper-parameters
Megatron cannot pass (Adam: AMSGrad, maximize, eps inside the root, a schedule multiplier; SGD:
dampening, Nesterov, maximize).

Emerging's `calculate_lion_update` is `torch.compile`d; it runs eagerly here
(torch._dynamo disabled: no compiler on the CI machine's path is needed).

    PYTHONPATH=/opt/optcert-mcore-0.19.2 /opt/optcert-torch2/bin/python \\
        conformance/adapters/megatron_step.py \\
        --vectors vectors/guarded-step-megatron/guarded-step-megatron.json --out results.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import dataclasses
import sys
import warnings

import numpy as np
import torch

import results_file
import megatron_cpu
from megatron_cpu import Group, here

ADAPTER = "optcert megatron_step.py 1"

torch._dynamo.config.disable = True
with warnings.catch_warnings():  # "Transformer Engine and Apex are not installed"
    warnings.simplefilter("ignore")
    from emerging_optimizers.scalar_optimizers import Lion
    from megatron.core.optimizer.grad_scaler import ConstantGradScaler, DynamicGradScaler
    from megatron.core.optimizer.optimizer import (ChainedOptimizer,
                                                   Float16OptimizerWithFloat16Params)
    from megatron.core.optimizer.optimizer_config import OptimizerConfig

OUTCOME_TAKEN, OUTCOME_NONFINITE, OUTCOME_THRESHOLD = 0, 1, 2


def hexf(s):
    return float.fromhex(s)


def state_names(o):
    """The state tensors of a sub-optimizer, in the vectors' order (VEC-FMT-17)."""
    if o["kind"] == "adam":
        return ["exp_avg", "exp_avg_sq"]
    if o["kind"] == "sgd":
        return ["momentum_buffer"] if hexf(o["hparams"]["momentum"]) != 0 else []
    return ["exp_avg"]


def adam_expressible(h):
    """Whether OptimizerConfig can give Megatron's torch Adam these hyper-parameters: it has no
    AMSGrad, maximize, eps inside the root or schedule multiplier."""
    return (not h["amsgrad"] and not h["maximize"] and hexf(h["epsRoot"]) == 0
            and hexf(h["scheduleMultiplier"]) == 1)


def expressible(o):
    """Whether Megatron's construction of this kind can take these hyper-parameters."""
    h = o["hparams"]
    if o["kind"] == "adam":
        return o["profile"] == "torch" and adam_expressible(h)
    if o["kind"] == "sgd":
        return hexf(h["dampening"]) == 0 and not h["nesterov"] and not h["maximize"]
    return o["kind"] == "lion"


def inner_optimizer(o, params):
    """The torch optimizer Megatron makes for this kind (__init__.py L540-630)."""
    h = o["hparams"]
    if o["kind"] == "adam":
        cls = torch.optim.AdamW if h["decoupled"] else torch.optim.Adam
        return cls(params, lr=hexf(h["lr"]), betas=(hexf(h["beta1"]), hexf(h["beta2"])),
                   eps=hexf(h["eps"]), weight_decay=hexf(h["weightDecay"]))
    if o["kind"] == "sgd":
        return torch.optim.SGD(params, lr=hexf(h["lr"]), momentum=hexf(h["momentum"]),
                               weight_decay=hexf(h["weightDecay"]))
    return Lion(params, lr=hexf(h["lr"]), betas=(hexf(h["beta1"]), hexf(h["beta2"])),
                weight_decay=hexf(h["weightDecay"]))


def grad_scaler(h, t, k):
    """The scaler of sub-optimizer k, in the case's state for it."""
    if h["mode"] == "unchecked":
        return None
    if h["mode"] == "checked":
        return ConstantGradScaler(1.0)
    s = h["scaler"]
    st = t["scalerStates"][k] if "scalerStates" in t else t["scalerState"]
    scaler = DynamicGradScaler(initial_scale=hexf(s["initialScale"]),
                               min_scale=hexf(s["minScale"]),
                               growth_factor=hexf(s["growthFactor"]),
                               backoff_factor=hexf(s["backoffFactor"]),
                               growth_interval=s["growthInterval"], hysteresis=s["hysteresis"])
    scaler._scale = torch.tensor([hexf(st["scale"])], dtype=torch.float32)
    scaler._growth_tracker = st["growthTracker"]
    scaler._hysteresis_tracker = st["hysteresisTracker"]
    return scaler


def run_case(h, t, tensors):
    state = tensors[t["inputs"]["state"]].reshape(-1)
    grads = tensors[t["inputs"]["grad"]].reshape(t["steps"], -1)
    dtype = torch.float16 if h["mode"] == "scaled" else torch.bfloat16
    group = Group([(0, 0, 0)])
    here.rank, here.index = (0, 0, 0), 0
    shared = OptimizerConfig(clip_grad=hexf(h["clipGrad"]),
                             grad_norm_skip_threshold=hexf(h["skipThreshold"]),
                             fp16=h["mode"] == "scaled", bf16=h["mode"] != "scaled")
    subs, params, counters = [], [], []  # params: (model param, main param, inner optimizer, states)
    at = 0
    for k, o in enumerate(t["optimizers"]):
        names, mine = state_names(o), []
        for n in o["params"]:
            mine.append((torch.nn.Parameter(torch.zeros(n, dtype=dtype)), n, names))
        inner = inner_optimizer(o, [m for m, _, _ in mine])
        sub = Float16OptimizerWithFloat16Params(inner, shared, grad_scaler(h, t, k), None)
        sub.tp_group = group
        sub.grad_stats_parallel_group = group
        for i, ((model, n, names), main) in enumerate(
                zip(mine, sub.fp32_from_float16_groups[0])):
            main.data.copy_(torch.from_numpy(state[at:at + n].copy()))
            at += n
            st = inner.state[main]
            for name in names:
                if name == "momentum_buffer" and o["step"] == 0:
                    at += n  # torch's first SGD update takes the gradient as the buffer
                    continue
                st[name] = torch.from_numpy(state[at:at + n].copy())
                at += n
            if o["kind"] == "adam":
                st["step"] = torch.tensor(float(o["step"]), dtype=torch.float32)
            groups = o.get("gradNormGroups")
            if groups and groups[i] == "mtp":
                model.grad_norm_group = "mtp"
                main.grad_norm_group = "mtp"
            params.append((model, main, inner, names))
        subs.append(sub)
        counters.append(o["step"])
    chain = ChainedOptimizer(subs)
    for sub, o in zip(subs, t["optimizers"]):  # per-sub configs after construction (L1440)
        if "clipGrad" in o:
            sub.config = dataclasses.replace(shared, clip_grad=hexf(o["clipGrad"]),
                                             grad_norm_skip_threshold=hexf(o["skipThreshold"]))
    position, rows = t["position"], []
    for k in range(t["steps"]):
        at = 0
        for model, main, _, _ in params:
            n = model.numel()
            model.main_grad = torch.from_numpy(grads[k, at:at + n].copy())
            at += n
        success, norm, _ = chain.step()
        if success:
            position += t["increment"]
            counters = [c + 1 for c in counters]
        outcome = (OUTCOME_TAKEN if success else
                   OUTCOME_NONFINITE if norm is None else OUTCOME_THRESHOLD)
        row = [outcome, float(norm or 0.0), position]
        for sub in subs if h["mode"] == "scaled" else []:
            row += [float(sub.grad_scaler.scale), sub.grad_scaler._growth_tracker,
                    sub.grad_scaler._hysteresis_tracker]
        if h["mode"] != "scaled":
            row += [0, 0, 0]
        for o, c, sub in zip(t["optimizers"], counters, subs):
            row.append(int(sub.optimizer.state[sub.fp32_from_float16_groups[0][0]]["step"])
                       if o["kind"] == "adam" else c)
        for model, main, inner, names in params:
            row += main.tolist()
            for name in names:
                row += inner.state[main].get(name, torch.zeros_like(main)).tolist()
            row += main.grad.tolist()
        rows.append(row)
    return np.array(rows, dtype=np.float32)


def main(argv=None):
    out, doc, cases = results_file.read_family(
        argv, __doc__.splitlines()[0], "megatron_step",
        lambda d: d.get("algorithm") == "guarded-step" and d.get("profile") == "megatron")
    family = doc["family"]
    tensors = results_file.load_tensors(argv, doc, "megatron_step")
    results, meta = results_file.run_values(
        family, cases, lambda h, t: run_case(h, t, tensors),
        (RuntimeError, ValueError, AssertionError, TypeError),
        lambda h, t: h["normType"] != "2" or not all(map(expressible, t["optimizers"])) or
        ("scalerState" in t and len(t["optimizers"]) > 1))
    results_file.write(out, results, meta, "megatron.core.optimizer ChainedOptimizer.step",
                       megatron_cpu.version(),
                       ADAPTER, "megatron_step", family)
    return 0


if __name__ == "__main__":
    sys.exit(main())
