#!/usr/bin/python3
"""optcert adapter: run PyTorch's own Adam / AdamW on an `adam` vector family (profile `torch`).

For every test case of the family (spec/vectors.md §1) this builds torch.optim.Adam
(hparams.decoupled false) or torch.optim.AdamW (true) on CPU in fp32, with lr, betas, eps,
weight_decay, amsgrad and maximize taken from the case's hex-float hyper-parameters, loads the
input state p, m, v (and vmax) and runs `steps` steps with step counters firstStep, firstStep+1, ...
(gradient of step k = row k of g). The state after every step is written to a results file
(spec/vectors.md §2) that `optcert judge --results FILE` judges. Nothing is judged here: when torch
raises, the case is `rejected`; when it accepts (even an `invalid` case) it is `ok`, outputs written.

Run with Debian's Python (python3-torch, python3-numpy; safetensors from pip: ci/setup-python.sh):
    /usr/bin/python3 conformance/adapters/torch_adam.py \\
        --vectors vectors/adam-torch/adam-torch.json --out results-torch.safetensors \\
        [--foreach] [--impl adam|adamw|auto] [--verbose]
Exit status: 0 on success, 2 on malformed input.
"""
import argparse
import json
import os
import re
import sys

import numpy as np
import torch
from safetensors import SafetensorError
from safetensors.numpy import load_file, save_file

ADAPTER = "optcert torch_adam.py 1"
HEX_KEYS = ("lr", "beta1", "beta2", "eps", "weightDecay", "epsRoot", "scheduleMultiplier")
BOOL_KEYS = ("decoupled", "amsgrad", "maximize")
# What C's %a prints: 0x<hex>[.<hex>]p<exp>, inf, nan (float.fromhex alone would take "0.001" as hex).
HEX_FLOAT = re.compile(r"[+-]?(0x[0-9a-f]+(\.[0-9a-f]*)?p[+-]?[0-9]+|inf(inity)?|nan)", re.IGNORECASE)
STATE = (("m", "exp_avg"), ("v", "exp_avg_sq"), ("vmax", "max_exp_avg_sq"))


class Malformed(Exception):
    """The vector family does not follow spec/vectors.md."""


def need(cond, msg):
    if not cond:
        raise Malformed(msg)


def parse_hparams(raw, where):
    need(isinstance(raw, dict), f"{where}: hparams is not an object")
    hp = {}
    for k in HEX_KEYS:  # VEC-FMT-1: C99 hex floats
        need(isinstance(raw.get(k), str) and HEX_FLOAT.fullmatch(raw[k]),
             f"{where}: hparams.{k} = {raw.get(k)!r} is not a C99 hex float")
        hp[k] = float.fromhex(raw[k])
    for k in BOOL_KEYS:
        need(isinstance(raw.get(k), bool), f"{where}: hparams.{k} missing or not a boolean")
        hp[k] = raw[k]
    return hp


def case_inputs(tc, hp, tensors, where):
    """Checks one test object and returns (firstStep, steps, {name: array}) for its inputs."""
    for k in ("n", "firstStep", "steps"):
        need(type(tc.get(k)) is int, f"{where}: {k} missing or not an integer")
    n, steps = tc["n"], tc["steps"]
    need(n >= 0 and steps >= 1, f"{where}: needs n >= 0 and steps >= 1")
    need(tc.get("result") in ("valid", "invalid", "acceptable"), f"{where}: bad result")
    names = ("p", "m", "v", "g") + (("vmax",) if hp["amsgrad"] else ())
    refs = tc.get("inputs")
    need(isinstance(refs, dict), f"{where}: inputs is not an object")
    arrs = {}
    for name in names:
        key = refs.get(name)
        need(isinstance(key, str) and key in tensors,
             f"{where}: input {name} ({key!r}) not in the tensors file")
        a = tensors[key]
        shape = (steps, n) if name == "g" else (n,)
        need(a.dtype == np.float32 and a.shape == shape,
             f"{where}: input {name} is {a.dtype}{list(a.shape)}, want float32{list(shape)}")
        arrs[name] = a
    return tc["firstStep"], steps, arrs


def pick_class(hp, first_step, impl):
    """The torch optimizer class for these hparams, or None if the chosen one cannot express them."""
    if first_step < 1:
        return None  # torch counts steps itself from 1; a counter < 1 is not expressible in its API
    if hp["epsRoot"] != 0.0 or hp["scheduleMultiplier"] != 1.0:
        return None  # torch has neither eps_root nor a schedule multiplier
    if impl == "auto":
        return torch.optim.AdamW if hp["decoupled"] else torch.optim.Adam
    cls = torch.optim.AdamW if impl == "adamw" else torch.optim.Adam
    if hp["weightDecay"] != 0.0 and hp["decoupled"] != (cls is torch.optim.AdamW):
        return None  # Adam has only L2 decay, AdamW only decoupled decay
    return cls


def run_case(cls, hp, first_step, steps, x, foreach):
    """Runs torch; returns {name: [steps, n] float32} of the states after each step. May raise."""
    p = torch.nn.Parameter(torch.from_numpy(x["p"].copy()))
    opt = cls([p], lr=hp["lr"], betas=(hp["beta1"], hp["beta2"]), eps=hp["eps"],
              weight_decay=hp["weightDecay"], amsgrad=hp["amsgrad"], maximize=hp["maximize"],
              foreach=foreach)
    # torch 1.13 keeps 'step' as a float32 scalar tensor (the same form Adam.__setstate__ gives a
    # loaded integer step), adds 1 before the update and then uses step.item() for
    # 1 - beta**step: a stored firstStep-1 makes the first update use t = firstStep. Being float32,
    # a count above 2^24 is rounded and `step += 1` stalls at 2^24: torch's behaviour, kept as is.
    state = {"step": torch.tensor(float(first_step - 1))}
    for name, key in STATE:
        if name in x:
            state[key] = torch.from_numpy(x[name].copy())
    opt.state[p] = state
    rows = {name: [] for name in ("p", "m", "v", "vmax") if name in x}
    for k in range(steps):
        p.grad = torch.from_numpy(x["g"][k].copy())
        opt.step()
        rows["p"].append(p.detach().numpy().copy())
        for name, key in STATE:
            if name in rows:
                rows[name].append(opt.state[p][key].numpy().copy())
    return {name: np.stack(r) for name, r in rows.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vectors", required=True, help="family JSON, e.g. vectors/adam-torch/adam-torch.json")
    ap.add_argument("--out", required=True, help="results safetensors file to write")
    ap.add_argument("--foreach", action="store_true", help="use torch's foreach (multi-tensor) path")
    ap.add_argument("--impl", choices=("auto", "adam", "adamw"), default="auto",
                    help="auto: Adam or AdamW by hparams.decoupled (default)")
    ap.add_argument("--verbose", "-v", action="store_true", help="one line per case")
    args = ap.parse_args(argv)

    try:
        with open(args.vectors, encoding="utf-8") as f:
            doc = json.load(f)
        need(isinstance(doc, dict), "top level is not an object")
        need(doc.get("schema") == "optcert-vectors/1", f"schema {doc.get('schema')!r} is not optcert-vectors/1")
        need(doc.get("algorithm") == "adam", f"algorithm {doc.get('algorithm')!r} is not adam")
        need(doc.get("profile") == "torch", f"profile {doc.get('profile')!r} is not torch")
        family = doc.get("family")
        need(isinstance(family, str) and family and "/" not in family, "bad family name")
        need(isinstance(doc.get("tensors"), str), "tensors is not a file name")
        tensors = load_file(os.path.join(os.path.dirname(args.vectors), doc["tensors"]))
        groups = doc.get("testGroups")
        need(isinstance(groups, list), "testGroups is not a list")
        cases, seen = [], set()
        for gi, group in enumerate(groups):
            need(isinstance(group, dict) and isinstance(group.get("tests"), list),
                 f"testGroups[{gi}] has no tests list")
            hp = parse_hparams(group.get("hparams"), f"testGroups[{gi}]")
            for tc in group["tests"]:
                need(isinstance(tc, dict) and type(tc.get("tcId")) is int, f"testGroups[{gi}]: bad tcId")
                where = f"tcId {tc['tcId']}"
                need(tc["tcId"] not in seen, f"{where}: duplicate tcId")  # VEC-FMT-2
                seen.add(tc["tcId"])
                cases.append((tc["tcId"], hp) + case_inputs(tc, hp, tensors, where))
    except (OSError, ValueError, SafetensorError, Malformed) as e:  # ValueError: bad JSON
        print(f"torch_adam: malformed input {args.vectors}: {e}", file=sys.stderr)
        return 2

    results, meta, used = {}, {}, set()
    counts = {"ok": 0, "rejected": 0, "unsupported": 0}
    for tc_id, hp, first_step, steps, x in cases:
        cls, detail = pick_class(hp, first_step, args.impl), ""
        if cls is None:
            status = "unsupported"
        else:
            used.add(cls.__name__)
            try:
                out = run_case(cls, hp, first_step, steps, x, args.foreach)
                status = "ok"
                for name, arr in out.items():
                    results[f"{family}/{tc_id}/{name}"] = arr
            except Exception as e:  # whatever torch raises is its way of refusing the case
                status, detail = "rejected", f"{type(e).__name__}: {e}"
        meta[f"status/{family}/{tc_id}"] = status
        counts[status] += 1
        if args.verbose:
            print(f"  {family}/{tc_id}: {status} {detail}".rstrip())

    path = "foreach" if args.foreach else "single-tensor"
    meta["impl"] = ",".join(f"torch.optim.{c}" for c in sorted(used)) + f" ({path})"
    meta["implVersion"] = torch.__version__
    meta["adapter"] = ADAPTER
    save_file(results, args.out, metadata=meta)
    print(f"torch_adam: {family}: {len(cases)} cases: {counts['ok']} ok, {counts['rejected']} rejected, "
          f"{counts['unsupported']} unsupported; torch {torch.__version__} {path} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
