#!/usr/bin/python3
"""optcert adapter: run a PyTorch optimizer on a vector family through the results path.

Families and the library optimizer each is run on (spec/vectors.md §1; profile must be torch):
  adam  torch.optim.Adam (hparams.decoupled false) or torch.optim.AdamW (true)
  sgd   torch.optim.SGD
  lion  lion_pytorch.Lion (PyPI lion-pytorch)
For every test case it builds the optimizer on CPU in fp32 with the case's hex-float
hyper-parameters, loads the input state and runs `steps` steps with step counters firstStep,
firstStep+1, ... (gradient of step k = row k of g). Mixed-precision groups (spec/mixed.md,
hparams.storage with a bf16/fp16 parameter and fp32 state) run the way Megatron-LM runs a
torch optimizer: the optimizer steps the fp32 master, then the 16-bit model parameter is
`model.copy_(master)`; 16-bit optimizer state is not a torch feature (unsupported). The state after every step is written to a
results file (spec/vectors.md §2) that `optcert judge --results FILE` judges. Nothing is judged
here: when the library raises, the case is `rejected`; when it accepts (even an `invalid` case) it
is `ok`, outputs written; a case the library's API cannot express is `unsupported`.

Run with Debian's Python (python3-torch, python3-numpy; safetensors and lion-pytorch from pip:
ci/setup-python.sh):
    /usr/bin/python3 conformance/adapters/torch_optim.py \\
        --vectors vectors/adam-torch/adam-torch.json --out results-torch.safetensors \\
        [--foreach | --fused] [--impl adam|adamw|auto] [--verbose]
The same adapter runs under torch 2.15 (/opt/optcert-torch2/bin/python; not Lion: lion-pytorch is
not installed there), where --fused selects torch's CPU fused kernels.
Exit status: 0 on success, 2 on malformed input.
"""
import argparse
import json
import os
import re
import sys
from importlib import metadata

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

ADAPTER = "optcert torch_optim.py 3"
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}
# What C's %a prints: 0x<hex>[.<hex>]p<exp>, inf, nan (float.fromhex alone would take "0.001" as hex).
HEX_FLOAT = re.compile(r"[+-]?(0x[0-9a-f]+(\.[0-9a-f]*)?p[+-]?[0-9]+|inf(inity)?|nan)", re.IGNORECASE)


class Malformed(Exception):
    """The vector family does not follow spec/vectors.md."""


def need(cond, msg):
    if not cond:
        raise Malformed(msg)


def multi_tensor_path(args):
    """The torch.optim keyword choosing the implementation path: foreach, or fused (torch >= 2.4
    on CPU; torch 1.13 has no CPU fused kernels and SGD no `fused` argument)."""
    return {"foreach": args.foreach, **({"fused": True} if args.fused else {})}


class Family:
    """What the adapter needs to know about one algorithm: its hyper-parameters, its state
    tensors, and how to run the library optimizer from a given state."""
    hex_keys = ()
    bool_keys = ()

    def state_names(self, hp):
        raise NotImplementedError

    def library(self, hp, first_step, args):
        """(impl name, make(param) -> optimizer, load(opt, param, x), read(opt, param) -> {name: array}),
        or None when the library's API cannot express the case."""
        raise NotImplementedError


class AdamFamily(Family):
    hex_keys = ("lr", "beta1", "beta2", "eps", "weightDecay", "epsRoot", "scheduleMultiplier")
    bool_keys = ("decoupled", "amsgrad", "maximize")
    keys = (("m", "exp_avg"), ("v", "exp_avg_sq"), ("vmax", "max_exp_avg_sq"))

    def state_names(self, hp):
        return ("p", "m", "v") + (("vmax",) if hp["amsgrad"] else ())

    def library(self, hp, first_step, args):
        if first_step < 1 or hp["epsRoot"] != 0.0 or hp["scheduleMultiplier"] != 1.0:
            return None  # torch counts steps itself from 1 and has no eps_root or eta
        cls = torch.optim.AdamW if hp["decoupled"] else torch.optim.Adam
        if args.impl != "auto":
            cls = torch.optim.AdamW if args.impl == "adamw" else torch.optim.Adam
            if hp["weightDecay"] != 0.0 and hp["decoupled"] != (cls is torch.optim.AdamW):
                return None  # Adam has only L2 decay, AdamW only decoupled decay

        def make(p):
            return cls([p], lr=hp["lr"], betas=(hp["beta1"], hp["beta2"]), eps=hp["eps"],
                       weight_decay=hp["weightDecay"], amsgrad=hp["amsgrad"],
                       maximize=hp["maximize"], **multi_tensor_path(args))

        def load(opt, p, x):
            # torch 1.13 keeps 'step' as a float32 scalar tensor, adds 1 before the update and
            # uses step.item() in 1 - beta**step: a stored firstStep-1 makes the first update use
            # t = firstStep. Being float32, counts above 2^24 are rounded: torch's behaviour.
            state = {"step": torch.tensor(float(first_step - 1))}
            for name, key in self.keys:
                if name in x:
                    state[key] = x[name].clone()
            opt.state[p] = state

        def read(opt, p):
            out = {"p": p.detach().clone()}
            for name, key in self.keys:
                if key in opt.state[p]:
                    out[name] = opt.state[p][key].clone()
            return out

        return f"torch.optim.{cls.__name__}", make, load, read


class SgdFamily(Family):
    hex_keys = ("lr", "momentum", "dampening", "weightDecay")
    bool_keys = ("nesterov", "maximize")

    def state_names(self, hp):
        return ("p", "buf") if hp["momentum"] != 0.0 else ("p",)

    def library(self, hp, first_step, args):
        if first_step < 1:
            return None  # torch counts steps itself from 1

        def make(p):
            return torch.optim.SGD([p], lr=hp["lr"], momentum=hp["momentum"],
                                   dampening=hp["dampening"], weight_decay=hp["weightDecay"],
                                   nesterov=hp["nesterov"], maximize=hp["maximize"],
                                   **multi_tensor_path(args))

        def load(opt, p, x):
            # torch creates the buffer from g on a parameter's first step (no state yet);
            # later steps continue from the stored buffer.
            if "buf" in x and first_step > 1:
                opt.state[p] = {"momentum_buffer": x["buf"].clone()}

        def read(opt, p):
            out = {"p": p.detach().clone()}
            if "momentum_buffer" in opt.state[p] and opt.state[p]["momentum_buffer"] is not None:
                out["buf"] = opt.state[p]["momentum_buffer"].clone()
            return out

        return "torch.optim.SGD", make, load, read


class LionFamily(Family):
    hex_keys = ("lr", "beta1", "beta2", "weightDecay")

    def state_names(self, hp):
        return ("p", "m")

    def library(self, hp, first_step, args):
        if first_step < 1:
            return None
        from lion_pytorch import Lion  # PyPI lion-pytorch

        def make(p):
            return Lion([p], lr=hp["lr"], betas=(hp["beta1"], hp["beta2"]),
                        weight_decay=hp["weightDecay"])

        def load(opt, p, x):
            opt.state[p] = {"exp_avg": x["m"].clone()}

        def read(opt, p):
            return {"p": p.detach().clone(), "m": opt.state[p]["exp_avg"].clone()}

        return "lion_pytorch.Lion", make, load, read


FAMILIES = {"adam": AdamFamily(), "sgd": SgdFamily(), "lion": LionFamily()}


def parse_hparams(fam, raw, where):
    need(isinstance(raw, dict), f"{where}: hparams is not an object")
    hp = {}
    for k in fam.hex_keys:  # VEC-FMT-1: C99 hex floats
        need(isinstance(raw.get(k), str) and HEX_FLOAT.fullmatch(raw[k]),
             f"{where}: hparams.{k} = {raw.get(k)!r} is not a C99 hex float")
        hp[k] = float.fromhex(raw[k])
    for k in fam.bool_keys:
        need(isinstance(raw.get(k), bool), f"{where}: hparams.{k} missing or not a boolean")
        hp[k] = raw[k]
    storage = raw.get("storage", {"param": "f32", "state": "f32"})  # VEC-FMT-16
    need(isinstance(storage, dict) and storage.get("param") in DTYPES and storage.get("state") in DTYPES,
         f"{where}: bad hparams.storage {storage!r}")
    hp["storage"] = storage
    return hp


def input_names(fam, hp):
    """Input tensors and their dtypes: p (and the fp32 master with a 16-bit p), state, g."""
    st = hp["storage"]
    names = [("p", DTYPES[st["param"]])] + ([("master", torch.float32)] if st["param"] != "f32" else [])
    names += [(n, DTYPES[st["state"]]) for n in fam.state_names(hp)[1:]]
    return names + [("g", torch.float32)]


def case_inputs(fam, tc, hp, tensors, where):
    """Checks one test object and returns (firstStep, steps, {name: array}) for its inputs."""
    for k in ("n", "firstStep", "steps"):
        need(type(tc.get(k)) is int, f"{where}: {k} missing or not an integer")
    n, steps = tc["n"], tc["steps"]
    need(n >= 0 and steps >= 1, f"{where}: needs n >= 0 and steps >= 1")
    need(tc.get("result") in ("valid", "invalid", "acceptable"), f"{where}: bad result")
    refs = tc.get("inputs")
    need(isinstance(refs, dict), f"{where}: inputs is not an object")
    arrs = {}
    for name, dtype in input_names(fam, hp):
        key = refs.get(name)
        need(isinstance(key, str) and key in tensors,
             f"{where}: input {name} ({key!r}) not in the tensors file")
        a = tensors[key]
        shape = (steps, n) if name == "g" else (n,)
        need(a.dtype == dtype and tuple(a.shape) == shape,
             f"{where}: input {name} is {a.dtype}{list(a.shape)}, want {dtype}{list(shape)}")
        arrs[name] = a
    return tc["firstStep"], steps, arrs


def run_case(make, load, read, steps, x):
    """Runs the library; returns {name: [steps, n]} of the states after each step. May raise.
    With a 16-bit parameter the optimizer steps the fp32 master and the model parameter is
    written back with copy_ (Megatron's _copy_main_params_to_model_params)."""
    mixed = "master" in x
    p = torch.nn.Parameter(x["master" if mixed else "p"].clone())
    model = x["p"].clone()
    opt = make(p)
    load(opt, p, x)
    rows = {}
    for k in range(steps):
        p.grad = x["g"][k].clone()
        opt.step()
        out = read(opt, p)
        if mixed:
            out["master"] = out["p"]
            out["p"] = model.copy_(p.detach()).clone()
        for name, arr in out.items():
            rows.setdefault(name, []).append(arr)
    return {name: torch.stack(r) for name, r in rows.items()}


def library_version(impls):
    versions = [f"torch {torch.__version__}"]
    if any(i.startswith("lion_pytorch") for i in impls):
        versions.append(f"lion-pytorch {metadata.version('lion-pytorch')}")
    return ", ".join(versions)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vectors", required=True, help="family JSON, e.g. vectors/adam-torch/adam-torch.json")
    ap.add_argument("--out", required=True, help="results safetensors file to write")
    ap.add_argument("--foreach", action="store_true", help="use torch's foreach (multi-tensor) path")
    ap.add_argument("--fused", action="store_true", help="use torch's fused kernel (Adam, AdamW, SGD)")
    ap.add_argument("--impl", choices=("auto", "adam", "adamw"), default="auto",
                    help="Adam families: auto picks Adam or AdamW by hparams.decoupled (default)")
    ap.add_argument("--verbose", "-v", action="store_true", help="one line per case")
    args = ap.parse_args(argv)

    try:
        with open(args.vectors, encoding="utf-8") as f:
            doc = json.load(f)
        need(isinstance(doc, dict), "top level is not an object")
        need(doc.get("schema") == "optcert-vectors/1", f"schema {doc.get('schema')!r} is not optcert-vectors/1")
        need(doc.get("algorithm") in FAMILIES, f"algorithm {doc.get('algorithm')!r} has no PyTorch adapter")
        need(doc.get("profile") == "torch", f"profile {doc.get('profile')!r} is not torch")
        fam = FAMILIES[doc["algorithm"]]
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
            hp = parse_hparams(fam, group.get("hparams"), f"testGroups[{gi}]")
            for tc in group["tests"]:
                need(isinstance(tc, dict) and type(tc.get("tcId")) is int, f"testGroups[{gi}]: bad tcId")
                where = f"tcId {tc['tcId']}"
                need(tc["tcId"] not in seen, f"{where}: duplicate tcId")  # VEC-FMT-2
                seen.add(tc["tcId"])
                cases.append((tc["tcId"], hp) + case_inputs(fam, tc, hp, tensors, where))
    except (OSError, ValueError, SafetensorError, Malformed) as e:  # ValueError: bad JSON
        print(f"torch_optim: malformed input {args.vectors}: {e}", file=sys.stderr)
        return 2

    results, meta, used = {}, {}, set()
    counts = {"ok": 0, "rejected": 0, "unsupported": 0}
    for tc_id, hp, first_step, steps, x in cases:
        lib, detail = fam.library(hp, first_step, args), ""
        if hp["storage"]["state"] != "f32":
            lib = None  # torch keeps optimizer state in the dtype of the stepped (fp32) tensor
        if lib is None:
            status = "unsupported"
        else:
            name, make, load, read = lib
            used.add(name)
            try:
                for k, arr in run_case(make, load, read, steps, x).items():
                    results[f"{family}/{tc_id}/{k}"] = arr
                status = "ok"
            except Exception as e:  # whatever the library raises is its way of refusing the case
                status, detail = "rejected", f"{type(e).__name__}: {e}"
        meta[f"status/{family}/{tc_id}"] = status
        counts[status] += 1
        if args.verbose:
            print(f"  {family}/{tc_id}: {status} {detail}".rstrip())

    path = "" if fam is FAMILIES["lion"] else " (foreach)" if args.foreach else " (fused)" if args.fused \
        else " (single-tensor)"
    meta["impl"] = ",".join(sorted(used)) + path
    meta["implVersion"] = library_version(used)
    meta["adapter"] = ADAPTER
    save_file(results, args.out, metadata=meta)
    print(f"torch_optim: {family}: {len(cases)} cases: {counts['ok']} ok, {counts['rejected']} rejected, "
          f"{counts['unsupported']} unsupported; {meta['implVersion']}{path} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
