#!/usr/bin/python3
"""optcert adapter: run a library's Adafactor on an adafactor family through the results path.

  --impl=torch         torch.optim.Adafactor (torch 2.15; --foreach: its multi-tensor path)
  --impl=transformers  transformers.optimization.Adafactor (5.23.0)
  --impl=optax         optax.adafactor (0.2.5, jax on CPU)
Each case's tensor and state are set from the vectors (spec/adafactor.md §7 maps every
hyper-parameter and state tensor), the library steps it `steps` times, and the packed state
after each step is written as output `state` (VEC-FMT-20, VEC-RES-1). Options a library does
not have are `unsupported`; an exception is the library rejecting the case. Nothing is judged
here: `optcert judge --results FILE` does.
    /opt/optcert-torch2/bin/python conformance/adapters/adafactor.py --impl=torch \\
        --vectors vectors/adafactor-torch/adafactor-torch.json --out results.safetensors
    /opt/optcert-jax/bin/python conformance/adapters/adafactor.py --impl=optax ...
Exit status: 0 on success, 2 on malformed input.
"""
import sys

import numpy as np

from results_file import read_family, write

ADAPTER = "optcert adafactor.py 1"


def values(xs):
    return np.array([float.fromhex(x) for x in xs], dtype=np.float32)


def shape_of(t):
    return tuple(t["shape"])


def factored(h, shape):
    """ADAFACTOR-FACT-1 as each library decides it (optax: both dimensions large enough)."""
    if len(shape) != 2:
        return False
    return bool(h["factored"]) and min(shape) >= h["minDimToFactor"]


def num(h, key):
    return float.fromhex(h[key]) if h[key] not in ("nan", "-nan") else float("nan")


def packed(parts):
    return np.concatenate([np.asarray(x, dtype=np.float32).reshape(-1) for x in parts])


# ---- torch.optim.Adafactor (torch/optim/_adafactor.py) ----
def optax_fields(h):
    """optax's own options (factored off, a minimum dimension): no other library has them."""
    return not h["factored"] or h["minDimToFactor"] != 0


def torch_unsupported(h):
    return (not h["relativeStep"] or h["warmupInit"] or not h["scaleParameter"]
            or h["firstMoment"] or num(h, "clipThreshold") == 0.0 or optax_fields(h))


def torch_run(foreach):
    import torch

    def run(h, t):
        shape = shape_of(t)
        p = torch.tensor(values(t["inputs"]["p"]).reshape(shape))
        opt = torch.optim.Adafactor([p], lr=num(h, "lr"), beta2_decay=-num(h, "decayRate"),
                                    eps=(num(h, "eps1"), num(h, "eps2")), d=num(h, "clipThreshold"),
                                    weight_decay=num(h, "weightDecay"), maximize=h["maximize"],
                                    foreach=foreach)
        fact = len(shape) > 1
        state = {"step": torch.tensor(float(t["firstStep"] - 1))}
        if fact:
            state["row_var"] = torch.tensor(values(t["inputs"]["row"]).reshape(shape[0], 1))
            state["col_var"] = torch.tensor(values(t["inputs"]["col"]).reshape(1, shape[1]))
        else:
            state["variance"] = torch.tensor(values(t["inputs"]["v"]).reshape(shape))
        opt.state[p] = state
        rows = []
        for g in t["g"]:
            p.grad = torch.tensor(values(g).reshape(shape))
            opt.step()
            st = opt.state[p]
            rows.append(packed([p.detach().numpy()] + ([st["row_var"].numpy(), st["col_var"].numpy()]
                                                       if fact else [st["variance"].numpy()])))
        return np.stack(rows)

    import torch as _t
    return run, (ValueError, ZeroDivisionError, RuntimeError), torch_unsupported, "torch", _t.__version__


# ---- transformers.optimization.Adafactor ----
def hf_unsupported(h):
    return h["maximize"] or num(h, "clipThreshold") == 0.0 or optax_fields(h)


def hf_run():
    import torch
    import transformers
    from transformers.optimization import Adafactor

    def run(h, t):
        shape = shape_of(t)
        p = torch.tensor(values(t["inputs"]["p"]).reshape(shape))
        relative = h["relativeStep"]
        lr = num(h, "lr")
        opt = Adafactor([p], lr=None if relative and lr == 0 else lr,
                        eps=(num(h, "eps1"), num(h, "eps2")), clip_threshold=num(h, "clipThreshold"),
                        decay_rate=-num(h, "decayRate"),
                        beta1=num(h, "beta1") if h["firstMoment"] else None,
                        weight_decay=num(h, "weightDecay"), scale_parameter=h["scaleParameter"],
                        relative_step=relative, warmup_init=h["warmupInit"])
        fact = len(shape) >= 2
        state = {"step": t["firstStep"] - 1, "RMS": 0}
        if h["firstMoment"]:
            state["exp_avg"] = torch.tensor(values(t["inputs"]["m"]).reshape(shape))
        if fact:
            state["exp_avg_sq_row"] = torch.tensor(values(t["inputs"]["row"]))
            state["exp_avg_sq_col"] = torch.tensor(values(t["inputs"]["col"]))
        else:
            state["exp_avg_sq"] = torch.tensor(values(t["inputs"]["v"]).reshape(shape))
        opt.state[p] = state
        rows = []
        for g in t["g"]:
            p.grad = torch.tensor(values(g).reshape(shape))
            opt.step()
            st = opt.state[p]
            parts = [p.detach().numpy()]
            if h["firstMoment"]:
                parts.append(st["exp_avg"].numpy())
            parts += ([st["exp_avg_sq_row"].numpy(), st["exp_avg_sq_col"].numpy()] if fact
                      else [st["exp_avg_sq"].numpy()])
            rows.append(packed(parts))
        return np.stack(rows)

    return (run, (ValueError, ZeroDivisionError, RuntimeError), hf_unsupported, "transformers",
            transformers.__version__)


# ---- optax.adafactor (optax/_src/alias.py, factorized.py) ----
def optax_unsupported(h):
    return (h["relativeStep"] or h["warmupInit"] or h["maximize"]
            or num(h, "eps2") != float(np.float32(1e-3)))


def optax_run():
    import jax.numpy as jnp
    import optax
    from optax._src import factorized
    from optax.transforms import _accumulation

    def run(h, t):
        shape = shape_of(t)
        d = num(h, "clipThreshold")
        tx = optax.adafactor(learning_rate=num(h, "lr"), min_dim_size_to_factor=h["minDimToFactor"],
                             decay_rate=num(h, "decayRate"),
                             multiply_by_parameter_scale=h["scaleParameter"],
                             clipping_threshold=None if d == 0.0 else d,
                             momentum=num(h, "beta1") if h["firstMoment"] else None,
                             weight_decay_rate=num(h, "weightDecay") or None,
                             eps=num(h, "eps1"), factored=h["factored"])
        p = jnp.asarray(values(t["inputs"]["p"]).reshape(shape))
        fact = factored(h, shape)
        # optax's v_row is the statistic over the larger dimension (d0): the row one unless
        # rows > cols, where it is the column one (spec/adafactor.md §7)
        swap = fact and shape[0] > shape[1]
        ins = t["inputs"]
        state = []
        for s in tx.init(p):
            if isinstance(s, factorized.FactoredState):
                if fact:
                    row, col = jnp.asarray(values(ins["row"])), jnp.asarray(values(ins["col"]))
                    s = s._replace(v_row=col if swap else row, v_col=row if swap else col)
                else:
                    s = s._replace(v=jnp.asarray(values(ins["v"]).reshape(shape)))
                s = s._replace(count=jnp.asarray(t["firstStep"] - 1, jnp.int32))
            elif isinstance(s, _accumulation.EmaState):
                s = s._replace(ema=jnp.asarray(values(ins["m"]).reshape(shape)),
                               count=jnp.asarray(t["firstStep"] - 1, jnp.int32))
            state.append(s)
        state = tuple(state)
        rows = []
        for g in t["g"]:
            upd, state = tx.update(jnp.asarray(values(g).reshape(shape)), state, p)
            p = optax.apply_updates(p, upd)
            fs = next(s for s in state if isinstance(s, factorized.FactoredState))
            parts = [np.asarray(p)]
            if h["firstMoment"]:
                parts.append(np.asarray(next(s for s in state
                                             if isinstance(s, _accumulation.EmaState)).ema))
            if fact:
                parts += [np.asarray(fs.v_col), np.asarray(fs.v_row)] if swap else \
                         [np.asarray(fs.v_row), np.asarray(fs.v_col)]
            else:
                parts.append(np.asarray(fs.v))
            rows.append(packed(parts))
        return np.stack(rows)

    return run, (ValueError, ZeroDivisionError), optax_unsupported, "optax", optax.__version__


IMPLS = {"torch": lambda foreach: torch_run(foreach), "transformers": lambda foreach: hf_run(),
         "optax": lambda foreach: optax_run()}
NAMES = {"torch": "torch.optim.Adafactor", "transformers": "transformers.optimization.Adafactor",
         "optax": "optax.adafactor"}


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    impl = next((a.split("=", 1)[1] for a in argv if a.startswith("--impl=")), None)
    foreach = "--foreach" in argv
    argv = [a for a in argv if not a.startswith("--impl=") and a != "--foreach"]
    if impl not in IMPLS:
        print("adafactor: --impl=torch|transformers|optax is required", file=sys.stderr)
        return 2
    out, doc, cases = read_family(argv, __doc__.splitlines()[0], "adafactor",
                                  lambda d: d.get("algorithm") == "adafactor")
    run, refusals, unsupported, library, version = IMPLS[impl](foreach)
    family = doc["family"]
    results, meta = {}, {}
    for h, t in cases:
        key = f"status/{family}/{t['tcId']}"
        if unsupported(h):
            meta[key] = "unsupported"
            continue
        try:
            results[f"{family}/{t['tcId']}/state"] = run(h, t)
            meta[key] = "ok"
        except refusals:
            meta[key] = "rejected"
    name = NAMES[impl] + (" (foreach)" if foreach else "")
    write(out, results, meta, name, f"{library} {version}", ADAPTER, "adafactor", family)
    return 0


if __name__ == "__main__":
    sys.exit(main())
