"""What the optcert adapters of the step-control families share (spec/vectors.md §2): reading
a vector family given on the command line and writing the results file."""
import argparse
import json
import sys

from safetensors.numpy import save_file


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


def run_values(family, cases, run, refusals, unsupported=lambda h: False):
    """The outputs of every case: run(h, t) gives its `value`, or a dict {name: tensor} of named
    outputs; an exception in `refusals` is the library refusing the case (`rejected`),
    unsupported(h) marks a case the library cannot express (`unsupported`, not run). Returns
    (results, meta)."""
    results, meta = {}, {}
    for h, t in cases:
        key = f"status/{family}/{t['tcId']}"
        if unsupported(h):
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
