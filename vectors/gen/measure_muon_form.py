#!/usr/bin/python3
"""Which momentum form (spec/muon.md MUON-MOM-1) a library's Muon step follows, from its results.

For every valid case of a muon-* family with one-tuple simple Newton-Schulz (muon-keller,
muon-moonlight): the binary64 step in the `ema` form and in the `sgd` form, every other
hyper-parameter from the case (MUON-NEST-1, MUON-SCALE-1, MUON-WD-1, the NS of
measure_ns.py), and the relative Frobenius error of the results file's `p` and `m` against each.
The form whose errors sit at the library's rounding level is the one it computes.
usage: /usr/bin/python3 vectors/gen/measure_muon_form.py FAMILY RESULTS.safetensors
"""
import json
import os
import sys

import numpy as np
from safetensors.numpy import load_file

from measure_ns import ns

SCALE = {"shape_scaling": lambda r, c: np.sqrt(max(1.0, r / c)), "spectral": lambda r, c: np.sqrt(max(r, c)),
         "unit_rms_norm": lambda r, c: np.sqrt(r / c)}


def step(hp, rows, cols, p, m, g, form):
    h = float.fromhex
    mu, lr, wd = h(hp["momentum"]), h(hp["lr"]), h(hp["weightDecay"])
    w = 1 - mu if form == "ema" else 1.0
    m2 = mu * m + w * g
    d = w * g + mu * m2 if hp["nesterov"] else m2
    s = h(hp["extraScale"]) * SCALE[hp["scaleMode"]](rows, cols)
    return p * (1 - lr * wd) - lr * s * ns(d, "simple", steps=hp["steps"]), m2


def main():
    family, results = sys.argv[1], load_file(sys.argv[2])
    root = os.path.join(os.path.dirname(__file__), "..", family)
    doc = json.load(open(os.path.join(root, f"{family}.json")))
    vec = load_file(os.path.join(root, doc["tensors"]))
    print("tcId  " + "  ".join(f"{f}: p rel err   m rel err" for f in ("ema", "sgd")))
    for group in doc["testGroups"]:
        for t in group["tests"]:
            if t["result"] != "valid" or f"{family}/{t['tcId']}/p" not in results:
                continue
            x = {k: vec[v].reshape(t["rows"], t["cols"]).astype(np.float64) for k, v in t["inputs"].items()}
            row = []
            for form in ("ema", "sgd"):
                p2, m2 = step(group["hparams"], t["rows"], t["cols"], x["p"], x["m"], x["g"], form)
                for name, want in (("p", p2), ("m", m2)):
                    got = results[f"{family}/{t['tcId']}/{name}"]
                    row.append(np.linalg.norm(got - want) / np.linalg.norm(want))
            print(f"{t['tcId']:4d}  " + "  ".join(f"{row[i]:16.2e}{row[i + 1]:12.2e}" for i in (0, 2)))


if __name__ == "__main__":
    main()
