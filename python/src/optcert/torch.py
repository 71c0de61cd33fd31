"""Certify a torch.optim.Optimizer-compatible class on the element-wise families (Adam, SGD,
Lion under the `torch` profile, and their mixed-precision forms; spec/vectors.md §1).

    import torch, optcert.torch
    cert = optcert.torch.certify(torch.optim.AdamW, family="adam-torch")

For every case the optimizer is built on CPU over one fp32 parameter with the case's
hyper-parameters (factory(params, **kwargs), the keywords named by the Mapping), its state is
set to the case's input, and `steps` steps run with gradient row k at step firstStep + k.
Mixed-precision groups (spec/mixed.md, a bf16/fp16 parameter over an fp32 master) run the way
Megatron-LM runs a torch optimizer: the optimizer steps the fp32 master, then the 16-bit model
parameter is `model.copy_(master)`; 16-bit optimizer state is not a torch feature (unsupported).
When the optimizer raises, the case is `rejected`; a case the Mapping cannot express is
`unsupported` (VEC-RES-2). The verdicts are the optcert command's (optcert.judge).
"""
import functools
import io
from importlib import metadata

import numpy as np
import torch

from . import __version__, certify_results, write_results
from .mapping import Mapping, bias_correction, get_in, put_in, run_family
from .vectors import Tensor, load_elementwise

_TORCH = {"F32": torch.float32, "F16": torch.float16}


_ADAM_HP = {"lr": "lr", ("beta1", "beta2"): "betas", "eps": "eps", "weightDecay": "weight_decay",
            "amsgrad": "amsgrad", "maximize": "maximize"}
_ADAM_STATE = {"m": "exp_avg", "v": "exp_avg_sq", "vmax": "max_exp_avg_sq"}
# torch counts steps itself and has no eps_root or schedule multiplier (spec/adam.md profiles)
_ADAM_FIXED = {"epsRoot": 0.0, "scheduleMultiplier": 1.0}
ADAM = Mapping(_ADAM_HP, _ADAM_STATE, dict(_ADAM_FIXED, decoupled=False))
ADAMW = Mapping(_ADAM_HP, _ADAM_STATE, dict(_ADAM_FIXED, decoupled=True))
SGD = Mapping({"lr": "lr", "momentum": "momentum", "dampening": "dampening",
               "weightDecay": "weight_decay", "nesterov": "nesterov", "maximize": "maximize"},
              {"buf": "momentum_buffer"}, step=None)
LION = Mapping({"lr": "lr", ("beta1", "beta2"): "betas", "weightDecay": "weight_decay"},
               {"m": "exp_avg"}, step=None)


# DeepSpeed's CPU Adam: AdamW or Adam by adamw_mode, no amsgrad or maximize, an int counter
DEEPSPEED_CPU_ADAM = Mapping(dict({k: v for k, v in _ADAM_HP.items() if v not in ("amsgrad", "maximize")},
                                  decoupled="adamw_mode"), _ADAM_STATE,
                             dict(_ADAM_FIXED, amsgrad=False, maximize=False), step_int=True)
# bitsandbytes' 32-bit optimizers (its CPU backend): state1/state2 and an int counter in the
# state, no maximize; Adam and AdamW are one kernel with decoupled decay; Adam's amsgrad keyword
# is ignored (no vmax: amsgrad cases are unsupported; docs/findings.md), as are SGD's dampening
# and nesterov (mapped: those cases run and diverge)
BNB_ADAM = Mapping({k: v for k, v in _ADAM_HP.items() if v not in ("amsgrad", "maximize")},
                   {"m": "state1", "v": "state2"},
                   dict(_ADAM_FIXED, decoupled=True, amsgrad=False, maximize=False), step_int=True)
BNB_LION = Mapping(LION.hparams, {"m": "state1"}, step_int=True)
BNB_SGD = Mapping({k: v for k, v in SGD.hparams.items() if v != "maximize"}, {"buf": "state1"},
                  {"maximize": False}, step_int=True)
# heavyball 3.2.1 (spec/adam.md §7, spec/sgd.md §2): its state in optimizer.state[p][0], the
# step counter an int it reads there while the param group has no count yet (chainable.py
# L2564-2593). AdamW keeps the bias-corrected moments (utils.py L340-343): Mapping.scale. SGD is
# buf = beta buf + g (utils.py L767-771) with decoupled decay (L2439-2446: not sgd-torch's, so
# weightDecay is fixed at 0). Neither has amsgrad, maximize, dampening or nesterov (an unknown
# keyword raises TypeError, chainable.py L216-218). Run them eagerly: heavyball.utils.compile_mode
# = None (conformance/adapters/torch_optim.py).
_HB_STEP = dict(step=(0, "step"), step_int=True)
HEAVYBALL_ADAMW = Mapping({"lr": "lr", ("beta1", "beta2"): "betas", "eps": "eps",
                           "weightDecay": "weight_decay"},
                          {"m": (0, "update_by_adam_exp_avg_0"), "v": (0, "update_by_adam_exp_avg_sq_0")},
                          dict(_ADAM_FIXED, decoupled=True, amsgrad=False, maximize=False),
                          scale={"m": bias_correction("beta1"), "v": bias_correction("beta2")},
                          **_HB_STEP)
HEAVYBALL_SGD = Mapping({"lr": "lr", "momentum": "beta"}, {"buf": (0, "heavyball_momentum_momentum_0")},
                        {"dampening": 0.0, "nesterov": False, "maximize": False, "weightDecay": 0.0},
                        **_HB_STEP)
# {module.qualname: Mapping} of the classes whose names are known (by name: nothing is imported)
BUILTIN = {"torch.optim.adam.Adam": ADAM, "torch.optim.adamw.AdamW": ADAMW,
           "torch.optim.sgd.SGD": SGD, "lion_pytorch.lion_pytorch.Lion": LION,
           "pytorch_optimizer.optimizer.lion.Lion": LION,
           "deepspeed.ops.adam.cpu_adam.DeepSpeedCPUAdam": DEEPSPEED_CPU_ADAM,
           "timm.optim.lion.Lion": LION, "timm.optim.adamw.AdamWLegacy": ADAMW,
           "heavyball.AdamW": HEAVYBALL_ADAMW, "heavyball.SGD": HEAVYBALL_SGD,
           **{f"bitsandbytes.optim.{mod}.{cls}{bits}": mapping for mod, cls, mapping in (
               ("adam", "Adam", BNB_ADAM), ("adamw", "AdamW", BNB_ADAM),
               ("lion", "Lion", BNB_LION), ("sgd", "SGD", BNB_SGD)) for bits in ("", "32bit")}}


# Each algorithm: its hyper-parameters (hex floats, booleans), its state names, the mapping of a
# class derived from none of the known ones (torch.optim's names; Adam: decoupled decay, AdamW).
_HEX = {"adam": ("lr", "beta1", "beta2", "eps", "weightDecay", "epsRoot", "scheduleMultiplier"),
        "sgd": ("lr", "momentum", "dampening", "weightDecay"),
        "lion": ("lr", "beta1", "beta2", "weightDecay")}
_BOOL = {"adam": ("decoupled", "amsgrad", "maximize"), "sgd": ("nesterov", "maximize"), "lion": ()}
DEFAULT = {"adam": ADAMW, "sgd": SGD, "lion": LION}


def state_names(alg, hp):
    """The state of a case (VEC-FMT-9 group types): p, then Adam m, v (vmax with amsgrad), SGD
    buf when momentum is non-zero, Lion m."""
    if alg == "adam":
        return ("p", "m", "v") + (("vmax",) if hp["amsgrad"] else ())
    if alg == "sgd":
        return ("p", "buf") if hp["momentum"] != 0.0 else ("p",)
    return ("p", "m")


def mapping_for(factory, alg):
    """The Mapping of factory (a class, or a functools.partial of one): the built-in one of the
    nearest known base class (BUILTIN), else DEFAULT[alg]."""
    cls = factory.func if isinstance(factory, functools.partial) else factory
    for base in getattr(cls, "__mro__", ()):
        name = f"{base.__module__}.{base.__qualname__}"
        if name in BUILTIN:
            return BUILTIN[name]
    return DEFAULT[alg]


def _tensor(t):
    """A vectors.Tensor as a torch tensor (BF16 from its bit patterns)."""
    if t.dtype == "BF16":
        return torch.from_numpy(t.array.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(t.array.copy()).to(_TORCH[t.dtype])


def _numpy(x):
    """A torch tensor for the results file: float32/float16 arrays, bf16 as its bit patterns."""
    x = x.detach().cpu().contiguous()
    if x.dtype == torch.bfloat16:
        return Tensor("BF16", x.view(torch.int16).numpy().view(np.uint16))
    return x.numpy()


def _build(factory, mapping, hp, param, model):
    """An optimizer over one parameter holding `param` (the fp32 master in mixed precision) and
    the 16-bit model copy `model`: (p, model, optimizer)."""
    p = torch.nn.Parameter(param.clone())
    return p, model.clone(), factory([p], **mapping.kwargs(hp))


def _save_and_restore(factory, mapping, hp, p, model, opt):
    """VEC-RESUME-1 through torch's own serialisation: the parameter the optimizer steps, the
    model copy and opt.state_dict() written by torch.save, then read by torch.load into a fresh
    optimizer over fresh tensors filled with NaN (the harness's poison), as a training run
    resumes (model.load_state_dict, optimizer.load_state_dict). Returns (p, model, optimizer)."""
    blob = io.BytesIO()
    torch.save({"param": p.detach(), "model": model, "optimizer": opt.state_dict()}, blob)
    blob.seek(0)
    saved = torch.load(blob)
    p2, model2, opt2 = _build(factory, mapping, hp, torch.full_like(p.detach(), float("nan")),
                              torch.full_like(model, float("nan")))
    with torch.no_grad():
        p2.copy_(saved["param"])
        model2.copy_(saved["model"])
    opt2.load_state_dict(saved["optimizer"])
    return p2, model2, opt2


def _scaled(mapping, name, x, hp, t, into):
    """A copy of the state tensor x after t steps, as the class keeps it (into) or as the family
    does (Mapping.to_library, from_library): in float64 and rounded once to x's format where the
    Mapping scales that state, else x's bits as they are (NaN payloads included)."""
    if name not in mapping.scale:
        return x.detach().clone()
    convert = mapping.to_library if into else mapping.from_library
    return convert(name, x.detach().double(), hp, t).to(x.dtype)


def _trajectory(factory, mapping, alg, case, resume_at):
    """The states after each step, {name: tensor [steps, n]}, with a save and restore after
    resume_at updates (-1: none)."""
    x = {name: _tensor(t) for name, t in case.inputs.items()}
    hp, mixed = case.hparams, "master" in x
    p, model, opt = _build(factory, mapping, hp, x["master" if mixed else "p"], x["p"])
    # torch creates SGD's momentum buffer from g on a parameter's first step (no state yet);
    # later steps, and the other algorithms, continue from the stored state.
    if alg != "sgd" or case.first_step > 1:
        state = {}
        for name, key in mapping.state.items():
            if name in x:
                put_in(state, key, _scaled(mapping, name, x[name], hp, case.first_step - 1, True))
        if mapping.step:
            # torch.optim keeps 'step' as a float32 scalar tensor and adds 1 before the update:
            # a stored firstStep-1 makes the first update use t = firstStep (float32: counts
            # above 2^24 are rounded, as in torch).
            put_in(state, mapping.step, case.first_step - 1 if mapping.step_int else
                   torch.tensor(float(case.first_step - 1)))
        if state:
            opt.state[p] = state
    names = state_names(alg, hp)

    def outputs(t):  # after t steps
        out = {"p": p.detach().clone()}
        for name, key in mapping.state.items():
            value = get_in(opt.state[p], key)
            if value is not None and name in names:
                out[name] = _scaled(mapping, name, value, hp, t, False)
        if mixed:  # Megatron's _copy_main_params_to_model_params
            out["master"] = out["p"]
            out["p"] = model.clone()
        return out

    rows = {}
    for k in range(case.steps + 1):
        if k == resume_at:
            p, model, opt = _save_and_restore(factory, mapping, hp, p, model, opt)
            for name, arr in (outputs(case.first_step + k - 1).items() if k else ()):  # row k - 1
                rows[name][k - 1] = arr
        if k == case.steps:
            break
        p.grad = x["g"][k].clone()
        opt.step()
        if mixed:
            model.copy_(p.detach())
        for name, arr in outputs(case.first_step + k).items():
            rows.setdefault(name, []).append(arr)
    return {name: torch.stack(r) for name, r in rows.items()}


def _bits(x):
    """x's bit patterns (NaNs compared by payload, -0 apart from +0)."""
    return x.view(torch.int32 if x.dtype == torch.float32 else torch.int16)


def run_case(factory, mapping, alg, case):
    """Runs the optimizer over one case; {name: tensor [steps, n]} of the states after each
    step, and for a resume case (VEC-FMT-20) "unbroken": whether the resumed run equals the
    run without the break bit for bit ("identical" or "differs", VEC-RES-6). May raise (the case
    is then rejected)."""
    rows = _trajectory(factory, mapping, alg, case, case.resume_at)
    if case.resume_at >= 0:
        whole = _trajectory(factory, mapping, alg, case, -1)
        same = rows.keys() == whole.keys() and all(torch.equal(_bits(rows[k]), _bits(whole[k]))
                                                    for k in rows)
        rows["unbroken"] = "identical" if same else "differs"
    return rows


def write(vectors_json, out, pick, adapter=f"optcert.torch {__version__}", label="", verbose=False):
    """Runs the family at vectors_json and writes the results file `out`. pick(alg, hp) gives the
    (factory, Mapping) of a case's hyper-parameters; label is appended to the impl names.
    Returns (family, {status: count}, library versions). Raises
    vectors.Malformed and OSError on bad input, ValueError when a mapping misses a
    hyper-parameter."""
    fam = load_elementwise(vectors_json, {"adam": "torch", "sgd": "torch", "lion": "torch"},
                           _HEX.get, lambda alg: _BOOL[alg], state_names)

    def run(factory, mapping, case):
        return {name: arr if isinstance(arr, str) else _numpy(arr)
                for name, arr in run_case(factory, mapping, fam.algorithm, case).items()}

    results, statuses, used = run_family(fam, pick, _HEX[fam.algorithm] + _BOOL[fam.algorithm], run,
                                         verbose)
    unbroken = {t: results.pop((t, name)) for t, name in list(results) if name == "unbroken"}
    versions = [f"torch {torch.__version__}"]
    for dist in sorted({n.split(".")[0].replace("_", "-") for n in used} - {"torch"}):
        try:
            versions.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            pass
    write_results(out, fam.name, results, statuses, ",".join(sorted(used)) + label,
                  ", ".join(versions), adapter, unbroken=unbroken)
    counts = {s: list(statuses.values()).count(s) for s in ("ok", "rejected", "unsupported")}
    return fam.name, counts, ", ".join(versions)


def certify(factory, family="adam-torch", mapping=None, cls="fp32", vectors=None, out=None,
            html=None, verbose=False):
    """Certifies factory (a torch.optim.Optimizer-compatible class, or a functools.partial of one
    with extra keywords such as foreach=True) on `family`: returns the optcert.Certificate.
    mapping: a Mapping when the class names hyper-parameters or state otherwise than its known
    base class (BUILTIN) or torch.optim (DEFAULT); out: keep the results file there;
    html: write the HTML certificate there."""
    def pick(alg, hp):
        return factory, mapping or mapping_for(factory, alg)

    return certify_results(lambda path, res: write(path, res, pick, verbose=verbose), family, cls,
                           vectors, out, html)
