"""What the optcert adapters of the step-control families share (spec/vectors.md §2): reading
a vector family given on the command line and writing the results file."""
import argparse
import json
import os
import sys

import numpy as np
from safetensors.numpy import load_file, save_file


def read_family(argv, description, name, accept):
    """Parses --vectors/--out, loads the family; accept(doc) says whether the adapter handles it.
    Returns (out path, doc, [(hparams, test), ...]); exits with status 2 on malformed input."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--vectors", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    try:
        with open(args.vectors, encoding="utf-8") as f:
            doc = json.load(f)
        if doc.get("schema") != "optcert-vectors/1" or not accept(doc):
            raise ValueError("not a family this adapter runs")
        cases = [(g["hparams"], t) for g in doc["testGroups"] for t in g["tests"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"{name}: malformed input {args.vectors}: {e}", file=sys.stderr)
        sys.exit(2)
    return args.out, doc, cases


def load_tensors(argv, doc, name):
    """The family's safetensors file (its `tensors`, beside the JSON file given as --vectors in
    argv); exits with status 2 if it cannot be read."""
    own = argparse.ArgumentParser(add_help=False)
    own.add_argument("--vectors", required=True)
    path = os.path.join(os.path.dirname(own.parse_known_args(argv)[0].vectors), doc["tensors"])
    try:
        return load_file(path)
    except (OSError, ValueError) as e:
        print(f"{name}: malformed input {path}: {e}", file=sys.stderr)
        sys.exit(2)


def run_values(family, cases, run, refusals, unsupported=lambda h, t: False):
    """The outputs of every case: run(h, t) gives its `value`, or a dict {name: tensor} of named
    outputs; an exception in `refusals` is the library refusing the case (`rejected`),
    unsupported(h, t) marks a case the library cannot express (`unsupported`, not run). Returns
    (results, meta)."""
    results, meta = {}, {}
    for h, t in cases:
        key = f"status/{family}/{t['tcId']}"
        if unsupported(h, t):
            meta[key] = "unsupported"
            continue
        try:
            outputs = run(h, t)
        except refusals:
            meta[key] = "rejected"
            continue
        meta[key] = "ok"
        for name, v in (outputs.items() if isinstance(outputs, dict) else [("value", outputs)]):
            results[f"{family}/{t['tcId']}/{name}"] = v
    return results, meta


def write(out, results, meta, impl, version, adapter, name, family, note=""):
    """Writes the results file with its metadata (VEC-RES-1, VEC-RES-2) and prints a summary."""
    meta = dict(meta, impl=impl, implVersion=version, adapter=adapter)
    save_file(results, out, metadata=meta)
    counts = {}
    for key, status in meta.items():
        if key.startswith("status/"):
            counts[status] = counts.get(status, 0) + 1
    print(f"{name}: {family}: {counts}; {version}{note} -> {out}")


def scaler_history(history, resume_at, scaler, resume):
    """The state after every update of `history` (a string of '0'/'1'), one tuple per update:
    scaler.update(found_inf), then scaler.state(). With a break after resume_at updates (-1:
    none; VEC-RESUME-1) the scaler is replaced by resume(scaler): its state saved through the
    library's own serialisation and restored into a fresh scaler; the restored state is the
    row of update resume_at."""
    rows = []
    for k in range(len(history) + 1):
        if k == resume_at:
            scaler = resume(scaler)
            if k:
                rows[k - 1] = scaler.state()
        if k == len(history):
            break
        scaler.update(history[k] == "1")
        rows.append(scaler.state())
    return rows


def scaler_case(test, make, resume, names):
    """The outputs of a loss-scale case ({name: float32 [updates, 1]}, names in the order of the
    state tuples) run on make()'s scaler, and for a resume case (VEC-FMT-20) whether they equal
    the run without the break bit for bit ("identical" or "differs", VEC-RES-6; else None)."""
    def columns(rows):
        return {n: np.array([r[i] for r in rows], dtype=np.float32).reshape(-1, 1)
                for i, n in enumerate(names)}
    at = test.get("resumeAt", -1)
    out = columns(scaler_history(test["foundInf"], at, make(), resume))
    if at < 0:
        return out, None
    whole = columns(scaler_history(test["foundInf"], -1, make(), resume))
    same = all(np.array_equal(out[n].view(np.uint32), whole[n].view(np.uint32)) for n in names)
    return out, "identical" if same else "differs"
