#!/usr/bin/python3
"""optcert adapter: run a PyTorch optimizer on a vector family through the results path.

The command-line form of optcert.torch (python/src/optcert/torch.py, imported from this
checkout: the package need not be installed). Families and the library optimizer each is run on
(spec/vectors.md §1; profile must be torch):
  adam  torch.optim.Adam (hparams.decoupled false) or torch.optim.AdamW (true)
  sgd   torch.optim.SGD
  lion  lion_pytorch.Lion (PyPI lion-pytorch)
or, with --optimizer MODULE:CLASS, that class with its built-in mapping (optcert.torch.BUILTIN:
pytorch_optimizer.Lion, DeepSpeedCPUAdam, timm's AdamWLegacy and Lion, bitsandbytes' Adam, AdamW,
Lion, SGD, heavyball's AdamW and SGD, run without torch.compile) or torch.optim's
names (ci/certify-outside.sh runs the libraries of ci/setup-python.sh and ci/setup-deepspeed.sh).
Nothing is judged here: `optcert judge --results FILE` does (spec/vectors.md §2).

Run with Debian's Python (python3-torch, python3-numpy; lion-pytorch from pip:
ci/setup-python.sh):
    /usr/bin/python3 conformance/adapters/torch_optim.py \\
        --vectors vectors/adam-torch/adam-torch.json --out results-torch.safetensors \\
        [--foreach | --fused] [--impl adam|adamw|auto] [--verbose]
The same adapter runs under torch 2.15 (/opt/optcert-torch2/bin/python; not Lion: lion-pytorch is
not installed there), where --fused selects torch's CPU fused kernels.
Exit status: 0 on success, 2 on malformed input.
"""
import argparse
import functools
import importlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "src"))
import torch  # noqa: E402
import optcert.torch as oct  # noqa: E402
from optcert.vectors import Malformed, load_doc  # noqa: E402

ADAPTER = "optcert torch_optim.py 4 (optcert.torch)"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vectors", required=True, help="family JSON, e.g. vectors/adam-torch/adam-torch.json")
    ap.add_argument("--out", required=True, help="results safetensors file to write")
    ap.add_argument("--foreach", action="store_true", help="use torch's foreach (multi-tensor) path")
    ap.add_argument("--fused", action="store_true", help="use torch's fused kernel (Adam, AdamW, SGD)")
    ap.add_argument("--impl", choices=("auto", "adam", "adamw"), default="auto",
                    help="Adam families: auto picks Adam or AdamW by hparams.decoupled (default)")
    ap.add_argument("--optimizer", metavar="MODULE:CLASS",
                    help="run this class instead of torch.optim's or lion-pytorch's")
    ap.add_argument("--verbose", "-v", action="store_true", help="one line per case")
    args = ap.parse_args(argv)
    if args.optimizer:
        module, _, name = args.optimizer.partition(":")
        try:
            chosen = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError, ValueError) as e:
            print(f"torch_optim: no optimizer {args.optimizer}: {e}", file=sys.stderr)
            return 2
        if module == "heavyball":
            # heavyball's switch off torch.compile (its step functions then run as written, in
            # eager mode): the module setting compile_mode = None (heavyball/utils.py L25, read at
            # L101). Compiled, each case's shape recompiles its step (dynamic = False, utils.py
            # L26): 14 s for the first on this CPU. The compiled path is not certified.
            importlib.import_module("heavyball.utils").compile_mode = None
    # torch.optim's keyword choosing the implementation path: foreach, or fused (torch >= 2.4 on
    # CPU; torch 1.13 has no CPU fused kernels and SGD no `fused` argument)
    path = {"foreach": args.foreach, **({"fused": True} if args.fused else {})}

    def pick(alg, hp):
        if args.optimizer:  # the class's own default path unless --foreach or --fused
            flags = {k: True for k in ("foreach", "fused") if getattr(args, k)}
            return functools.partial(chosen, **flags), oct.mapping_for(chosen, alg)
        if alg == "lion":
            from lion_pytorch import Lion  # PyPI lion-pytorch
            return Lion, oct.LION
        if alg == "sgd":
            cls = torch.optim.SGD
        elif args.impl == "auto":
            cls = torch.optim.AdamW if hp["decoupled"] else torch.optim.Adam
        else:
            cls = torch.optim.AdamW if args.impl == "adamw" else torch.optim.Adam
        return functools.partial(cls, **path), oct.mapping_for(cls, alg)

    try:
        is_lion = load_doc(args.vectors).get("algorithm") == "lion"
        label = " (foreach)" if args.foreach else " (fused)" if args.fused else \
            "" if is_lion or args.optimizer else " (single-tensor)"
        family, counts, versions = oct.write(args.vectors, args.out, pick, ADAPTER, label, args.verbose)
    except (OSError, Malformed) as e:
        print(f"torch_optim: malformed input {args.vectors}: {e}", file=sys.stderr)
        return 2
    print(f"torch_optim: {family}: {sum(counts.values())} cases: {counts['ok']} ok, "
          f"{counts['rejected']} rejected, {counts['unsupported']} unsupported; {versions}{label} "
          f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
