#!/opt/optcert-jax/bin/python
"""optcert adapter: run optax.adam / optax.adamw on an `optax`-profile Adam family.

The results path (spec/vectors.md §2): for every test it builds optax.adamw(lr, b1, b2, eps,
eps_root, weight_decay) (optax.adam when the decay is 0) in float32 on the CPU, sets the
ScaleByAdamState to the test's input (count = firstStep - 1, mu = m, nu = v), and runs `steps`
updates, params = optax.apply_updates(params, updates), writing p, m, v after each. Nothing is
judged here; `optcert judge --results FILE` does. optax validates nothing: every case runs.

jax needs numpy 2 and Debian's torch 1.13 needs numpy 1, so this adapter lives in its own
virtual environment, /opt/optcert-jax (ci/setup-python.sh):
    /opt/optcert-jax/bin/python conformance/adapters/optax_optim.py \\
        --vectors vectors/adam-optax/adam-optax.json --out results-optax.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import argparse
import json
import os
import sys
from importlib import metadata

import jax
import jax.numpy as jnp
import numpy as np
import optax
from safetensors import SafetensorError
from safetensors.numpy import load_file, save_file

ADAPTER = "optcert optax_optim.py 1"
HEX = ("lr", "beta1", "beta2", "eps", "weightDecay", "epsRoot", "scheduleMultiplier")


def transform(hp):
    """The optax transformation of the hyper-parameters, or None if optax cannot express them."""
    if not hp["decoupled"] or hp["amsgrad"] or hp["maximize"] or hp["scheduleMultiplier"] != 1:
        return None
    kw = dict(learning_rate=hp["lr"], b1=hp["beta1"], b2=hp["beta2"], eps=hp["eps"],
              eps_root=hp["epsRoot"])
    if hp["weightDecay"] == 0:
        return optax.adam(**kw)
    return optax.adamw(weight_decay=hp["weightDecay"], **kw)


def with_adam_state(state, count, m, v):
    """state with its ScaleByAdamState (the first element of the chain) replaced."""
    adam = state[0]._replace(count=jnp.asarray(count, dtype=jnp.int32), mu=jnp.asarray(m),
                             nu=jnp.asarray(v))
    return (adam,) + tuple(state[1:])


def run_case(tx, first_step, steps, x):
    params = jnp.asarray(x["p"])
    state = with_adam_state(tx.init(params), first_step - 1, x["m"], x["v"])
    update = jax.jit(lambda g, s, p: tx.update(g, s, p))
    rows = {"p": [], "m": [], "v": []}
    for k in range(steps):
        updates, state = update(jnp.asarray(x["g"][k]), state, params)
        params = optax.apply_updates(params, updates)
        for name, a in (("p", params), ("m", state[0].mu), ("v", state[0].nu)):
            rows[name].append(np.asarray(a, dtype=np.float32))
    return {name: np.stack(r) for name, r in rows.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vectors", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    try:
        with open(args.vectors, encoding="utf-8") as f:
            doc = json.load(f)
        if doc.get("schema") != "optcert-vectors/1" or doc.get("algorithm") != "adam":
            raise ValueError("not an optcert-vectors/1 Adam family")
        family = doc["family"]
        tensors = load_file(os.path.join(os.path.dirname(args.vectors), doc["tensors"]))
        cases = []
        for g in doc["testGroups"]:
            hp = {k: float.fromhex(g["hparams"][k]) for k in HEX}
            hp.update({k: bool(g["hparams"][k]) for k in ("decoupled", "amsgrad", "maximize")})
            for t in g["tests"]:
                x = {k: tensors[t["inputs"][k]] for k in ("p", "m", "v", "g")}
                cases.append((t["tcId"], hp, t["firstStep"], t["steps"], x))
    except (OSError, ValueError, KeyError, TypeError, SafetensorError) as e:
        print(f"optax_optim: malformed input {args.vectors}: {e}", file=sys.stderr)
        return 2
    results, meta, counts = {}, {}, {"ok": 0, "unsupported": 0}
    for tc_id, hp, first_step, steps, x in cases:
        # optax counts steps in an int32 (safe_int32_increment saturates at 2^31 - 1)
        tx = transform(hp) if 1 <= first_step and first_step + steps <= 2**31 else None
        if tx is None:
            status = "unsupported"
        else:
            for k, a in run_case(tx, first_step, steps, x).items():
                results[f"{family}/{tc_id}/{k}"] = a
            status = "ok"
        meta[f"status/{family}/{tc_id}"] = status
        counts[status] += 1
    meta["impl"] = "optax.adam / optax.adamw (jit, CPU, float32)"
    meta["implVersion"] = f"optax {metadata.version('optax')}, jax {jax.__version__}"
    meta["adapter"] = ADAPTER
    save_file(results, args.out, metadata=meta)
    print(f"optax_optim: {family}: {len(cases)} cases: {counts['ok']} ok, "
          f"{counts['unsupported']} unsupported; {meta['implVersion']} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
