"""Certify an optax GradientTransformation on the `optax`-profile Adam families (spec/adam.md).

    import optax, optcert.optax
    cert = optcert.optax.certify(optax.adamw, family="adam-optax")

For every case factory(**kwargs) (the keywords named by the Mapping) builds the transformation;
it runs in float32 on the CPU under jax.jit from tx.init(p) with the state of the case written
into the first node of the state tree that has the Mapping's state fields (optax.adam's
ScaleByAdamState: count = firstStep - 1, mu = m, nu = v), params = optax.apply_updates(params,
updates) after each update. optax validates nothing: every expressible case runs. The verdicts
are the optcert command's (optcert.judge).
"""
from dataclasses import dataclass, field
from importlib import metadata

import jax
import jax.numpy as jnp
import numpy as np
import optax

from . import __version__, certify_results, public_name, write_results
from .vectors import load_elementwise


@dataclass(frozen=True)
class Mapping:
    """How a transformation's factory names the family's hyper-parameters and where its state
    keeps the family's state (field names of a NamedTuple in the state tree).

    hparams: family name -> factory keyword.
    fixed:   family hyper-parameters the factory does not take, with the value it implements;
             a case with another value is unsupported.
    state:   family state name -> the state field (m -> mu, v -> nu).
    step:    the state field of the step counter (int32, optax's count)."""
    hparams: dict
    state: dict
    fixed: dict = field(default_factory=dict)
    step: str = "count"


_ADAM_HP = {"lr": "learning_rate", "beta1": "b1", "beta2": "b2", "eps": "eps", "epsRoot": "eps_root"}
_FIXED = {"amsgrad": False, "maximize": False, "scheduleMultiplier": 1.0}
ADAM = Mapping(_ADAM_HP, {"m": "mu", "v": "nu"}, dict(_FIXED, weightDecay=0.0, decoupled=True))
ADAMW = Mapping(dict(_ADAM_HP, weightDecay="weight_decay"), {"m": "mu", "v": "nu"},
                dict(_FIXED, decoupled=True))
BUILTIN = {optax.adam: ADAM, optax.adamw: ADAMW}
_HEX = ("lr", "beta1", "beta2", "eps", "weightDecay", "epsRoot", "scheduleMultiplier")
_BOOL = ("decoupled", "amsgrad", "maximize")


def expressible(mapping, hp, first_step, steps):
    """The fixed hyper-parameters at their values (decoupled does not matter without decay);
    optax counts steps in an int32 (safe_int32_increment saturates at 2^31 - 1)."""
    if not (1 <= first_step and first_step + steps <= 2**31):
        return False
    return all(hp[k] == v or (k == "decoupled" and hp["weightDecay"] == 0.0)
               for k, v in mapping.fixed.items())


def with_state(state, fields):
    """state with the first NamedTuple holding every one of fields replaced by them; raises
    ValueError when there is none."""
    if hasattr(state, "_fields") and all(f in state._fields for f in fields):
        return state._replace(**fields), True
    if isinstance(state, tuple):
        out, done = [], False
        for s in state:
            if not done:
                s, done = with_state(s, fields)
            out.append(s)
        return (state._make(out) if hasattr(state, "_make") else tuple(out)), done
    return state, False


def run_case(tx, mapping, case):
    x = {name: t.array for name, t in case.inputs.items()}
    params = jnp.asarray(x["p"])
    fields = {mapping.step: jnp.asarray(case.first_step - 1, dtype=jnp.int32)}
    fields.update({key: jnp.asarray(x[name]) for name, key in mapping.state.items() if name in x})
    state, found = with_state(tx.init(params), fields)
    if not found:
        raise ValueError(f"no node of the optimizer state has the fields {sorted(fields)}")
    update = jax.jit(lambda g, s, p: tx.update(g, s, p))
    rows = {"p": []}
    for k in range(case.steps):
        updates, state = update(jnp.asarray(x["g"][k]), state, params)
        params = optax.apply_updates(params, updates)
        rows["p"].append(np.asarray(params, dtype=np.float32))
        for name, key in mapping.state.items():
            node = _find(state, key)
            rows.setdefault(name, []).append(np.asarray(node, dtype=np.float32))
    return {name: np.stack(r) for name, r in rows.items()}


def _find(state, key):
    """The first field `key` of a NamedTuple in the state tree."""
    if hasattr(state, "_fields") and key in state._fields:
        return getattr(state, key)
    for s in state if isinstance(state, tuple) else ():
        found = _find(s, key)
        if found is not None:
            return found
    return None



def write(vectors_json, out, pick, adapter=f"optcert.optax {__version__}", label=""):
    """Runs the family at vectors_json, writes the results file `out`. pick(hp) gives the
    (factory, Mapping) of a case. Returns (family, {status: count}, library versions)."""
    fam = load_elementwise(vectors_json, {"adam": "optax"}, lambda alg: _HEX, lambda alg: _BOOL,
                           lambda alg, hp: ("p", "m", "v"))
    results, statuses, used = {}, {}, set()
    for case in fam.cases:
        factory, mapping = pick(case.hparams)
        said = set(mapping.hparams) | set(mapping.fixed)
        if set(_HEX + _BOOL) - said:
            raise ValueError(f"the mapping of {public_name(factory)} does not say what it does with "
                             f"{', '.join(sorted(set(_HEX + _BOOL) - said))}")
        if expressible(mapping, case.hparams, case.first_step, case.steps):
            tx = factory(**{kw: case.hparams[n] for n, kw in mapping.hparams.items()})
            for name, arr in run_case(tx, mapping, case).items():
                results[(case.tc_id, name)] = arr
            statuses[case.tc_id] = "ok"
            used.add(public_name(factory))
        else:
            statuses[case.tc_id] = "unsupported"
    versions = f"optax {metadata.version('optax')}, jax {jax.__version__}"
    write_results(out, fam.name, results, statuses, " / ".join(sorted(used)) + label, versions,
                  adapter)
    counts = {s: list(statuses.values()).count(s) for s in ("ok", "unsupported")}
    return fam.name, counts, versions


def certify(factory, family="adam-optax", mapping=None, cls="fp32", vectors=None, out=None,
            html=None):
    """Certifies factory (a function returning an optax GradientTransformation, called with
    keywords) on `family`: returns the optcert.Certificate. mapping: a Mapping when the factory
    is not optax.adam or optax.adamw (BUILTIN) or names things otherwise; out, html: keep the
    results file, write the HTML certificate there."""
    chosen = mapping or BUILTIN.get(factory)
    if chosen is None:
        raise ValueError(f"no built-in mapping for {public_name(factory)}: pass mapping=optcert.optax.Mapping(...)")
    return certify_results(lambda path, res: write(path, res, lambda hp: (factory, chosen)),
                           family, cls, vectors, out, html)
