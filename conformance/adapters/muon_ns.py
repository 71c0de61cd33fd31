#!/usr/bin/python3
"""optcert adapter: a library's Newton-Schulz orthogonalisation (spec/muon.md NS-*) on a
newton-schulz-* vector family, or its Muon step (MUON-*) on a muon-* family, through the results
path (spec/vectors.md VEC-FMT-12, VEC-RES-*).

  --impl keller  muon.zeropower_via_newtonschulz5 of PyPI muon-optimizer (KellerJordan/Muon):
                 (3.4445, -4.7750, 2.0315) hard-coded, X / (||X||_F + 1e-7), every iterate in
                 bf16 (judge with --class bf16). Runs the cases whose hparams are exactly that
                 (profile simple, any steps); other cases are `unsupported`.
                 On muon-* families: muon.SingleDeviceMuon (lr, weight_decay, momentum; Nesterov,
                 5 simple steps and shape_scaling are fixed), on the cases whose hparams match.
  --impl optax   optax.contrib muon's orthogonalize_via_newton_schulz (JAX, input dtype fp32:
                 judge with --class fp32), with the case's tuples and eps. optax divides by
                 ||X||_F + eps (add mode) with no factor s, and uses every tuple of a 2-D
                 coefficient array exactly once (a single tuple ns_steps times): cases with
                 normScale != 1, or several tuples and steps != their number, are `unsupported`; max-mode families run with optax's add mode (they
                 differ only where ||G||_F ~ eps: known divergences).
  --impl emerging  emerging_optimizers.orthogonalized_optimizers.muon_utils.newton_schulz of
                 PyPI emerging-optimizers 0.3.0 (/opt/optcert-torch2; it declares Python >= 3.12
                 and is installed with --ignore-requires-python: on 3.11 typing.override comes
                 from typing_extensions), fp32 class, with the case's eps: its named coefficient
                 set where the case's tuples and schedule are one (simple, quintic, aol cycled;
                 polar_express, cans, deepseekv4 repeated last), else coefficient_type "custom"
                 (cycled: the cubic5 profile's tuples, a set 0.3.0 does not name yet, spec/muon.md).
                 X / max(||X||_F, eps) (max mode): add-mode families differ only where
                 ||G||_F ~ eps (known divergences); normScale != 1 is `unsupported`.
  --impl torch   torch.optim.Muon of torch >= 2.9 (/opt/optcert-torch2: ci/setup-python.sh), bf16 class:
                 on newton-schulz-* its _zeropower_via_newtonschulz (the function Muon.step calls: one
                 (a, b, c) tuple, any steps, X / max(||X||_F, eps) (max mode) in bf16) on the cases
                 with one tuple and normScale 1 (add-mode families run in torch's max mode: they
                 differ only where ||G||_F ~ eps); on muon-* Muon.step with the case's lr,
                 weight_decay, momentum, nesterov, coefficients, eps, steps and the adjust_lr_fn
                 of its scale (shape_scaling: "original", spectral with extraScale 0.2:
                 "match_rms_adamw", unit_rms_norm: "spectral_unclamped"; others `unsupported`).
                 Its momentum is always the ema form, whatever the family says (spec/muon.md §8).
  --impl pto     pytorch_optimizer.optimizer.utils.matrix.zero_power_via_newton_schulz_5 of PyPI
                 pytorch-optimizer 4.1.0 (/opt/optcert-torch2), bf16 class (its default dtype):
                 the case's tuples, the last repeated (cycle-mode cases only where steps <= their
                 number), X / max(s ||X||_F, eps) (max mode, s its safety_factor); add-mode
                 families differ only where ||G||_F ~ eps (known divergences).
Nothing is judged here: `optcert judge --results FILE --class CLASS` does. A library exception is
`rejected`; `acceptable` and `invalid` cases are run like the others.

    /usr/bin/python3 conformance/adapters/muon_ns.py --impl keller \\
        --vectors vectors/newton-schulz-simple/newton-schulz-simple.json --out results.safetensors
    /opt/optcert-jax/bin/python conformance/adapters/muon_ns.py --impl optax ...   (ci/setup-python.sh)
    /opt/optcert-torch2/bin/python conformance/adapters/muon_ns.py --impl torch ...
Exit status: 0 on success, 2 on malformed input.
"""
import argparse
import json
import os
import sys
from importlib import metadata

import numpy as np
from safetensors.numpy import load_file, save_file

ADAPTER = "optcert muon_ns.py 1"
SIMPLE = (3.4445, -4.7750, 2.0315)


def hexf(s):
    return float.fromhex(s)


def keller(hp):
    import torch
    from muon import zeropower_via_newtonschulz5
    coef = [tuple(hexf(v) for v in t) for t in hp["coefficients"]]
    simple = len(coef) == 1 and all(abs(c - s) <= 1e-6 * abs(s) for c, s in zip(coef[0], SIMPLE))
    if not (simple and hp["epsMode"] == "add" and hexf(hp["eps"]) == np.float32(1e-7)
            and hexf(hp["normScale"]) == 1.0):
        return None

    def run(g):
        return zeropower_via_newtonschulz5(torch.from_numpy(g), steps=hp["steps"]).float().numpy()
    return "muon.zeropower_via_newtonschulz5 (muon-optimizer)", metadata.version("muon-optimizer"), run


def one_optimizer_step(make_optimizer):
    """run(p, m, g) for a torch optimizer with a `momentum_buffer` state: one step() on the case."""
    import torch

    def run(p, m, g):
        param = torch.nn.Parameter(torch.from_numpy(p.copy()))
        opt = make_optimizer([param])
        opt.state[param]["momentum_buffer"] = torch.from_numpy(m.copy())
        param.grad = torch.from_numpy(g.copy())
        opt.step()
        return {"p": param.detach().numpy(), "m": opt.state[param]["momentum_buffer"].numpy()}
    return run


def keller_step(hp):
    from muon import SingleDeviceMuon
    fixed = keller(hp) is not None and hp["steps"] == 5 and hp["nesterov"] and \
        hp["momentumForm"] == "ema" and hp["scaleMode"] == "shape_scaling" and hexf(hp["extraScale"]) == 1.0
    if not fixed:
        return None
    run = one_optimizer_step(lambda params: SingleDeviceMuon(
        params, lr=hexf(hp["lr"]), weight_decay=hexf(hp["weightDecay"]), momentum=hexf(hp["momentum"])))
    return "muon.SingleDeviceMuon (muon-optimizer)", metadata.version("muon-optimizer"), run


def torch_coefficients(hp):
    """torch.optim.Muon's one (a, b, c) tuple, or None where the case needs more (or a factor s)."""
    if len(hp["coefficients"]) != 1 or hexf(hp["normScale"]) != 1.0:
        return None
    return tuple(hexf(v) for v in hp["coefficients"][0])


def torch_ns(hp):
    import torch
    from torch.optim import _muon
    coef = torch_coefficients(hp)
    if coef is None:
        return None

    def run(g):
        x = _muon._zeropower_via_newtonschulz(torch.from_numpy(g), coef, hp["steps"], hexf(hp["eps"]))
        return x.float().numpy()
    return "torch.optim.Muon's _zeropower_via_newtonschulz", torch.__version__, run


# torch.optim.Muon's adjust_lr_fn for each (scaleMode, extraScale) of MUON-SCALE-1 it expresses
TORCH_ADJUST_LR = {("shape_scaling", 1.0): "original", ("spectral", float(np.float32(0.2))): "match_rms_adamw",
                   ("unit_rms_norm", 1.0): "spectral_unclamped"}


def torch_step(hp):
    import torch
    coef = torch_coefficients(hp)
    adjust = TORCH_ADJUST_LR.get((hp["scaleMode"], hexf(hp["extraScale"])))
    if coef is None or adjust is None:
        return None
    run = one_optimizer_step(lambda params: torch.optim.Muon(
        params, lr=hexf(hp["lr"]), weight_decay=hexf(hp["weightDecay"]), momentum=hexf(hp["momentum"]),
        nesterov=hp["nesterov"], ns_coefficients=coef, eps=hexf(hp["eps"]), ns_steps=hp["steps"],
        adjust_lr_fn=adjust))
    return f"torch.optim.Muon (adjust_lr_fn={adjust})", torch.__version__, run


def optax_ns(hp):
    import jax.numpy as jnp
    import optax
    from optax.contrib import _muon
    coef = np.array([[hexf(v) for v in t] for t in hp["coefficients"]], dtype=np.float32)
    if len(coef) == 1:
        coef = coef[0]  # a 1-D tuple is iterated ns_steps times
    elif hp["steps"] != len(coef):
        return None
    if hexf(hp["normScale"]) != 1.0:
        return None

    def run(g):
        x = _muon.orthogonalize_via_newton_schulz(jnp.asarray(g), jnp.asarray(coef), ns_steps=hp["steps"],
                                                  eps=hexf(hp["eps"]))
        return np.asarray(x, dtype=np.float32)
    return "optax.contrib muon orthogonalize_via_newton_schulz", optax.__version__, run


def emerging_ns(hp):
    """Emerging-Optimizers' muon_utils.newton_schulz (fp32 in and out): a named coefficient set
    where the case's tuples and schedule are one, else "custom" (cycled); max mode only."""
    import typing
    import typing_extensions
    if not hasattr(typing, "override"):  # Python 3.11: the package imports typing.override (3.12)
        typing.override = typing_extensions.override
    import torch
    from emerging_optimizers.orthogonalized_optimizers import muon_utils
    if hexf(hp["normScale"]) != 1.0:
        return None
    coef = [tuple(hexf(v) for v in t) for t in hp["coefficients"]]
    repeat_last = ("polar_express", "cans", "deepseekv4")  # newton_schulz's own list
    named = [name for name, sets in muon_utils._COEFFICIENT_SETS.items()
             if len(sets) == len(coef) and (hp["schedule"] == "repeat_last") == (name in repeat_last)
             and all(np.float32(x) == np.float32(y) for a, b in zip(sets, coef) for x, y in zip(a, b))]
    if not named and hp["schedule"] == "repeat_last" and hp["steps"] > len(coef):
        return None  # "custom" cycles
    kind = named[0] if named else "custom"

    def run(g):
        x = muon_utils.newton_schulz(torch.from_numpy(g), hp["steps"], coefficient_type=kind,
                                     custom_coefficient_sets=None if named else coef,
                                     eps=hexf(hp["eps"]))
        return x.float().numpy()
    return f"emerging_optimizers newton_schulz ({kind})", metadata.version("emerging-optimizers"), run


def pto_ns(hp):
    """pytorch-optimizer's zero_power_via_newton_schulz_5 (the Newton-Schulz of its Muon): the
    case's tuples repeated last (NS-SCHED-1 repeat_last; the same as cycle while steps <= their
    number), X / max(s ||X||_F, eps) with s its safety_factor, in bf16 (its default dtype)."""
    import torch
    from pytorch_optimizer.optimizer.utils.matrix import zero_power_via_newton_schulz_5
    coef = [tuple(hexf(v) for v in t) for t in hp["coefficients"]]
    if hp["schedule"] != "repeat_last" and hp["steps"] > len(coef) > 1:
        return None

    def run(g):
        x = zero_power_via_newton_schulz_5(torch.from_numpy(g), num_steps=hp["steps"], eps=hexf(hp["eps"]),
                                           safety_factor=hexf(hp["normScale"]), weights=coef)
        return x.float().numpy()
    return "pytorch_optimizer zero_power_via_newton_schulz_5", metadata.version("pytorch-optimizer"), run


# --impl: (its Newton-Schulz, its Muon step); each maps a group's hparams to
# (name, version, run) or None (the group is `unsupported`)
IMPLS = {"keller": (keller, keller_step), "optax": (optax_ns, lambda hp: None), "torch": (torch_ns, torch_step),
         "emerging": (emerging_ns, lambda hp: None), "pto": (pto_ns, lambda hp: None)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vectors", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--impl", choices=sorted(IMPLS), required=True)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    try:
        doc = json.load(open(args.vectors))
        tensors = load_file(os.path.join(os.path.dirname(args.vectors), doc["tensors"]))
        if doc.get("algorithm") not in ("newton-schulz", "muon"):
            raise KeyError("algorithm must be newton-schulz or muon")
    except (OSError, ValueError, KeyError) as e:
        print(f"muon_ns.py: {args.vectors}: {e}", file=sys.stderr)
        return 2
    family = doc["family"]
    out, meta = {}, {"adapter": ADAPTER}
    impl_name = impl_version = None
    for group in doc["testGroups"]:
        step = doc["algorithm"] == "muon"
        lib = IMPLS[args.impl][step](group["hparams"])
        for t in group["tests"]:
            key = f"status/{family}/{t['tcId']}"
            if lib is None:
                meta[key] = "unsupported"
                continue
            impl_name, impl_version, run = lib
            mats = {k: np.ascontiguousarray(tensors[v].reshape(t["rows"], t["cols"]), dtype=np.float32)
                    for k, v in t["inputs"].items()}
            try:
                x = run(mats["p"], mats["m"], mats["g"]) if step else {"x": run(mats["g"])}
            except Exception as e:  # the library refused the input
                meta[key] = "rejected"
                if args.verbose:
                    print(f"tcId {t['tcId']}: rejected: {e}")
                continue
            meta[key] = "ok"
            for name, v in x.items():
                out[f"{family}/{t['tcId']}/{name}"] = np.ascontiguousarray(v, dtype=np.float32)
    meta["impl"] = impl_name or args.impl
    meta["implVersion"] = impl_version or "unknown"
    save_file(out, args.out, metadata=meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
