#!/usr/bin/python3
"""optcert adapter: run torch.nn.utils.clip_grad_norm_ on clip-torch.

For every test (spec/clip.md, spec/vectors.md VEC-FMT-11): one float32 CPU parameter per view
(the torch family has one rank), its .grad set to the view's gradient; call
`torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type, error_if_nonfinite=True)` (norm
type 2.0 or inf; the flag is torch's way to refuse non-finite gradients, CLIP-FINITE-1) and
record the returned total norm, every clipped gradient and the skip decision (always 0:
torch has no skip threshold, CLIP-PROF-TORCH) as the harness's `value` output. An
exception (torch rejects the input) marks the case `rejected`.

    /usr/bin/python3 conformance/adapters/torch_clip.py \\
        --vectors vectors/clip-torch/clip-torch.json --out results.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import sys

import numpy as np
import torch

import results_file

ADAPTER = "optcert torch_clip.py 2"


def run_case(h, views):
    params = []
    for v in views:
        p = torch.zeros(len(v["grad"]), dtype=torch.float32, requires_grad=True)
        p.grad = torch.tensor([float.fromhex(x) for x in v["grad"]], dtype=torch.float32)
        params.append(p)
    norm_type = float("inf") if h["normType"] == "inf" else 2.0
    total = torch.nn.utils.clip_grad_norm_(params, float.fromhex(h["maxNorm"]), norm_type,
                                           error_if_nonfinite=True)
    values = [float(total)] + [x for p in params for x in p.grad.tolist()] + [0.0]
    return np.array([values], dtype=np.float32)


def main(argv=None):
    out, doc, cases = results_file.read_family(
        argv, __doc__.splitlines()[0], "torch_clip",
        lambda d: d.get("algorithm") == "clip" and d.get("profile") == "torch")
    family = doc["family"]
    results, meta = results_file.run_values(family, cases, lambda h, t: run_case(h, t["views"]),
                                            (RuntimeError, ValueError))
    results_file.write(out, results, meta, "torch.nn.utils.clip_grad_norm_",
                       f"torch {torch.__version__} (CPU)", ADAPTER, "torch_clip", family)
    return 0


if __name__ == "__main__":
    sys.exit(main())
