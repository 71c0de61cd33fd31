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
from dataclasses import dataclass, field
from importlib import metadata

import numpy as np
import torch

from . import __version__, certify_results, public_name, write_results
from .vectors import Tensor, load_elementwise

_TORCH = {"F32": torch.float32, "F16": torch.float16}


@dataclass(frozen=True)
class Mapping:
    """How a class names a family's hyper-parameters and state (the family's names are
    spec/vectors.md's: lr, beta1, beta2, eps, weightDecay, amsgrad, maximize, momentum, ...).

    hparams: family name -> the constructor keyword; a tuple of family names -> one keyword
             given as a tuple (torch's betas=(beta1, beta2)).
    fixed:   family hyper-parameters the class does not take, with the value it implements;
             a case with another value is unsupported (AdamW: decoupled=True).
    state:   family state name -> the key in optimizer.state[param] (m -> exp_avg).
    step:    the state key of the step counter (a float32 scalar tensor, as torch.optim keeps
             it), or None when the class keeps none."""
    hparams: dict
    state: dict
    fixed: dict = field(default_factory=dict)
    step: str = "step"

    def kwargs(self, hp):
        """The constructor keywords for the case's hyper-parameters."""
        return {kw: tuple(hp[n] for n in name) if isinstance(name, tuple) else hp[name]
                for name, kw in self.hparams.items()}

    def covers(self, names):
        """The family hyper-parameters this mapping says nothing about."""
        said = {n for name in self.hparams for n in (name if isinstance(name, tuple) else (name,))}
        return [n for n in names if n not in said and n not in self.fixed]


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


def builtin_mappings():
    """{class: Mapping} of the libraries whose names are known: torch.optim's Adam, AdamW, SGD
    and, where installed, lion-pytorch's Lion."""
    known = {torch.optim.Adam: ADAM, torch.optim.AdamW: ADAMW, torch.optim.SGD: SGD}
    try:
        from lion_pytorch import Lion
        known[Lion] = LION
    except ImportError:
        pass
    return known


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
    nearest known base class, else DEFAULT[alg]."""
    cls = factory.func if isinstance(factory, functools.partial) else factory
    known = builtin_mappings()
    for base in getattr(cls, "__mro__", ()):
        if base in known:
            return known[base]
    return DEFAULT[alg]


def expressible(mapping, alg, hp, first_step):
    """Whether the class can run the case: a step counter from 1, the fixed hyper-parameters at
    their values (decoupled does not matter without decay), fp32 state (torch keeps the state in
    the dtype of the stepped fp32 tensor)."""
    if first_step < 1 or hp["storage"]["state"] != "f32":
        return False
    for name, value in mapping.fixed.items():
        if name == "decoupled" and hp["weightDecay"] == 0.0:
            continue
        if hp[name] != value:
            return False
    return True


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


def run_case(factory, mapping, alg, case):
    """Runs the optimizer over one case; {name: tensor [steps, n]} of the states after each
    step. May raise (the case is then rejected)."""
    x = {name: _tensor(t) for name, t in case.inputs.items()}
    hp, mixed = case.hparams, "master" in x
    p = torch.nn.Parameter(x["master" if mixed else "p"].clone())
    model = x["p"].clone()
    opt = factory([p], **mapping.kwargs(hp))
    # torch creates SGD's momentum buffer from g on a parameter's first step (no state yet);
    # later steps, and the other algorithms, continue from the stored state.
    if alg != "sgd" or case.first_step > 1:
        state = {key: x[name].clone() for name, key in mapping.state.items() if name in x}
        if mapping.step:
            # torch.optim keeps 'step' as a float32 scalar tensor and adds 1 before the update:
            # a stored firstStep-1 makes the first update use t = firstStep (float32: counts
            # above 2^24 are rounded, as in torch).
            state[mapping.step] = torch.tensor(float(case.first_step - 1))
        if state:
            opt.state[p] = state
    rows = {}
    for k in range(case.steps):
        p.grad = x["g"][k].clone()
        opt.step()
        out = {"p": p.detach().clone()}
        for name, key in mapping.state.items():
            if opt.state[p].get(key) is not None:
                out[name] = opt.state[p][key].clone()
        if mixed:  # Megatron's _copy_main_params_to_model_params
            out["master"] = out["p"]
            out["p"] = model.copy_(p.detach()).clone()
        for name, arr in out.items():
            rows.setdefault(name, []).append(arr)
    return {name: torch.stack(r) for name, r in rows.items()}



def write(vectors_json, out, pick, adapter=f"optcert.torch {__version__}", label="", verbose=False):
    """Runs the family at vectors_json and writes the results file `out`. pick(alg, hp) gives the
    (factory, Mapping) of a case's hyper-parameters; label is appended to the impl names.
    Returns (family, {status: count}, library versions). Raises
    vectors.Malformed and OSError on bad input, ValueError when a mapping misses a
    hyper-parameter."""
    fam = load_elementwise(vectors_json, {"adam": "torch", "sgd": "torch", "lion": "torch"},
                           _HEX.get, lambda alg: _BOOL[alg], state_names)
    results, statuses, used = {}, {}, set()
    for case in fam.cases:
        factory, mapping = pick(fam.algorithm, case.hparams)
        missing = mapping.covers(_HEX[fam.algorithm] + _BOOL[fam.algorithm])
        if missing:
            raise ValueError(f"the mapping of {public_name(factory)} does not say what it does with "
                             f"{', '.join(missing)} (Mapping.hparams or Mapping.fixed)")
        detail = ""
        if not expressible(mapping, fam.algorithm, case.hparams, case.first_step):
            status = "unsupported"
        else:
            used.add(public_name(factory))
            try:
                for name, arr in run_case(factory, mapping, fam.algorithm, case).items():
                    results[(case.tc_id, name)] = _numpy(arr)
                status = "ok"
            except Exception as e:  # whatever the library raises is its way of refusing the case
                status, detail = "rejected", f"{type(e).__name__}: {e}"
        statuses[case.tc_id] = status
        if verbose:
            print(f"  {fam.name}/{case.tc_id}: {status} {detail}".rstrip())
    versions = [f"torch {torch.__version__}"]
    for dist in sorted({n.split(".")[0].replace("_", "-") for n in used} - {"torch"}):
        try:
            versions.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            pass
    write_results(out, fam.name, results, statuses, ",".join(sorted(used)) + label,
                  ", ".join(versions), adapter)
    counts = {s: list(statuses.values()).count(s) for s in ("ok", "rejected", "unsupported")}
    return fam.name, counts, ", ".join(versions)


def certify(factory, family="adam-torch", mapping=None, cls="fp32", vectors=None, out=None,
            html=None, verbose=False):
    """Certifies factory (a torch.optim.Optimizer-compatible class, or a functools.partial of one
    with extra keywords such as foreach=True) on `family`: returns the optcert.Certificate.
    mapping: a Mapping when the class names hyper-parameters or state otherwise than its known
    base class (builtin_mappings) or torch.optim (DEFAULT); out: keep the results file there;
    html: write the HTML certificate there."""
    def pick(alg, hp):
        return factory, mapping or mapping_for(factory, alg)

    return certify_results(lambda path, res: write(path, res, pick, verbose=verbose), family, cls,
                           vectors, out, html)
