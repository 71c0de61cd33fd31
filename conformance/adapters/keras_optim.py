#!/opt/optcert-jax/bin/python
"""optcert adapter: run a Keras 3 optimizer on the adam-keras or lion-torch family.

The command-line form of optcert.keras (python/src/optcert/keras.py, imported from this
checkout): keras.optimizers.Adam (no weight decay), AdamW (weight decay) or Lion, over float32
variables on the CPU with the backend KERAS_BACKEND names (ci/certify-outside.sh: jax, in
/opt/optcert-jax, ci/setup-python.sh). Nothing is judged here; `optcert judge --results FILE`
does (spec/vectors.md §2).
    KERAS_BACKEND=jax /opt/optcert-jax/bin/python conformance/adapters/keras_optim.py \\
        --vectors vectors/adam-keras/adam-keras.json --out results-keras.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "src"))
import keras  # noqa: E402
import optcert.keras as ock  # noqa: E402
from optcert.vectors import Malformed  # noqa: E402

ADAPTER = "optcert keras_optim.py 1 (optcert.keras)"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vectors", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--verbose", "-v", action="store_true", help="one line per case")
    args = ap.parse_args(argv)

    def pick(alg, hp):
        if alg == "lion":
            return keras.optimizers.Lion, ock.LION
        return (keras.optimizers.AdamW if hp["weightDecay"] else keras.optimizers.Adam), ock.ADAM

    try:
        family, counts, versions = ock.write(args.vectors, args.out, pick, ADAPTER, args.verbose)
    except (OSError, Malformed) as e:
        print(f"keras_optim: malformed input {args.vectors}: {e}", file=sys.stderr)
        return 2
    print(f"keras_optim: {family}: {sum(counts.values())} cases: {counts['ok']} ok, "
          f"{counts['rejected']} rejected, {counts['unsupported']} unsupported; {versions} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
