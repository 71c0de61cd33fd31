#!/opt/optcert-jax/bin/python
"""optcert adapter: run optax.adam / optax.adamw on an `optax`-profile Adam family.

The command-line form of optcert.optax (python/src/optcert/optax.py, imported from this
checkout): optax.adam when the case's weight decay is 0, else optax.adamw, in float32 on the CPU
under jit, from the case's state (count = firstStep - 1, mu = m, nu = v). Nothing is judged
here; `optcert judge --results FILE` does (spec/vectors.md §2).

jax needs numpy 2 and Debian's torch 1.13 needs numpy 1, so this adapter lives in its own
virtual environment, /opt/optcert-jax (ci/setup-python.sh):
    /opt/optcert-jax/bin/python conformance/adapters/optax_optim.py \\
        --vectors vectors/adam-optax/adam-optax.json --out results-optax.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "src"))
import optax  # noqa: E402
import optcert.optax as ocx  # noqa: E402
from optcert.vectors import Malformed  # noqa: E402

ADAPTER = "optcert optax_optim.py 2 (optcert.optax)"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vectors", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)

    def pick(hp):
        return (optax.adam, ocx.ADAM) if hp["weightDecay"] == 0 else (optax.adamw, ocx.ADAMW)

    try:
        family, counts, versions = ocx.write(args.vectors, args.out, pick, ADAPTER,
                                             " (jit, CPU, float32)")
    except (OSError, Malformed) as e:
        print(f"optax_optim: malformed input {args.vectors}: {e}", file=sys.stderr)
        return 2
    print(f"optax_optim: {family}: {sum(counts.values())} cases: {counts['ok']} ok, "
          f"{counts['unsupported']} unsupported; {versions} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
