"""Shared by the schedule adapters: the command line, reading a schedule family
(spec/vectors.md VEC-FMT-9) and writing the results file (VEC-RES-1..3)."""
import argparse
import json
import sys

import numpy as np
from safetensors.numpy import save_file


def run_adapter(name, doc, run_case, impl, version, adapter, argv=None):
    """Parses --vectors/--out; for every test calls run_case(hparams, test) -> (status, lr, wd)
    with status ok/rejected/unsupported and lr, wd lists (ok only); writes the results file.
    Returns the exit status: 0, or 2 on malformed input."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--vectors", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    try:
        with open(args.vectors, encoding="utf-8") as f:
            vec = json.load(f)
        if vec.get("schema") != "optcert-vectors/1" or vec.get("algorithm") != "schedule":
            raise ValueError("not an optcert-vectors/1 schedule family")
        family = vec["family"]
        cases = [(g["hparams"], t) for g in vec["testGroups"] for t in g["tests"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"{name}: malformed input {args.vectors}: {e}", file=sys.stderr)
        return 2
    results, meta, counts = {}, {}, {"ok": 0, "rejected": 0, "unsupported": 0}
    for h, t in cases:
        status, lr, wd = run_case(h, t)
        if status == "ok":
            results[f"{family}/{t['tcId']}/lr"] = np.array([lr], dtype=np.float64)
            results[f"{family}/{t['tcId']}/wd"] = np.array([wd], dtype=np.float64)
        meta[f"status/{family}/{t['tcId']}"] = status
        counts[status] += 1
    meta["impl"], meta["implVersion"], meta["adapter"] = impl, version, adapter
    save_file(results, args.out, metadata=meta)
    print(f"{name}: {family}: {len(cases)} cases: {counts['ok']} ok, {counts['rejected']} "
          f"rejected, {counts['unsupported']} unsupported; {version} -> {args.out}")
    return 0
