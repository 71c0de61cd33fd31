"""Certify a Keras 3 optimizer (any backend; ci/certify-outside.sh runs jax on the CPU) on the
`keras`-profile Adam family and the `torch`-profile Lion family (the step Keras' Lion computes,
spec/lion.md LION-PROF-TORCH).

    import keras, optcert.keras
    cert = optcert.keras.certify(keras.optimizers.AdamW, family="adam-keras")

For every case the optimizer is built with the case's hyper-parameters (factory(**kwargs), the
keywords named by the Mapping) over one float32 keras.Variable holding p; its variables are
built, the Mapping's state lists (Adam: _momentums, _velocities, _velocity_hats) get the case's
state and `iterations` firstStep - 1 (Keras steps with iterations + 1), and apply_gradients runs
`steps` times with gradient row k at step firstStep + k. When Keras raises, the case is
`rejected`; a case the Mapping cannot express is `unsupported` (VEC-RES-2). The verdicts are the
optcert command's (optcert.judge).
"""
from importlib import metadata

import keras
import numpy as np

from . import __version__, certify_results, write_results
from .mapping import Mapping, run_family
from .vectors import load_elementwise

# keras weight decay is decoupled, lr-scaled and part of every optimizer (base_optimizer.py
# _apply_weight_decay); no maximize, eps_root or schedule multiplier (spec/adam.md
# ADAM-PROF-KERAS)
_ADAM_HP = {"lr": "learning_rate", "beta1": "beta_1", "beta2": "beta_2", "eps": "epsilon",
            "weightDecay": "weight_decay", "amsgrad": "amsgrad"}
ADAM = Mapping(_ADAM_HP, {"m": "_momentums", "v": "_velocities", "vmax": "_velocity_hats"},
               {"decoupled": True, "maximize": False, "epsRoot": 0.0, "scheduleMultiplier": 1.0},
               step="iterations")
LION = Mapping({"lr": "learning_rate", "beta1": "beta_1", "beta2": "beta_2",
                "weightDecay": "weight_decay"}, {"m": "_momentums"}, step="iterations")
# {module.qualname: Mapping} of keras.optimizers' classes
BUILTIN = {"keras.src.optimizers.adam.Adam": ADAM, "keras.src.optimizers.adamw.AdamW": ADAM,
           "keras.src.optimizers.lion.Lion": LION}
_HEX = {"adam": ("lr", "beta1", "beta2", "eps", "weightDecay", "epsRoot", "scheduleMultiplier"),
        "lion": ("lr", "beta1", "beta2", "weightDecay")}
_BOOL = {"adam": ("decoupled", "amsgrad", "maximize"), "lion": ()}


def state_names(alg, hp):
    if alg == "adam":
        return ("p", "m", "v") + (("vmax",) if hp["amsgrad"] else ())
    return ("p", "m")


def run_case(factory, mapping, case):
    """Runs the optimizer over one case; {name: float32 array [steps, n]}. May raise."""
    x = {name: t.array for name, t in case.inputs.items()}
    var = keras.Variable(x["p"], dtype="float32")
    opt = factory(**mapping.kwargs(case.hparams))
    opt.build([var])
    for name, attr in mapping.state.items():
        if name in x:
            getattr(opt, attr)[0].assign(x[name])
    getattr(opt, mapping.step).assign(case.first_step - 1)
    rows = {}
    for k in range(case.steps):
        opt.apply_gradients([(keras.ops.convert_to_tensor(x["g"][k]), var)])
        out = {"p": var}
        out.update({name: getattr(opt, attr)[0] for name, attr in mapping.state.items() if name in x})
        for name, v in out.items():
            rows.setdefault(name, []).append(np.asarray(v.value, dtype=np.float32))  # the backend array
    return {name: np.stack(r) for name, r in rows.items()}


def write(vectors_json, out, pick, adapter=f"optcert.keras {__version__}", verbose=False):
    """Runs the family at vectors_json, writes the results file `out`. pick(alg, hp) gives the
    (factory, Mapping) of a case. Returns (family, {status: count}, library versions)."""
    fam = load_elementwise(vectors_json, {"adam": "keras", "lion": "torch"}, _HEX.get,
                           _BOOL.get, state_names)

    def keras_pick(alg, hp):  # Keras variables: no nested keys, no value transform here
        factory, mapping = pick(alg, hp)
        if mapping.scale or any(isinstance(k, tuple) for k in (*mapping.state.values(), mapping.step)):
            raise ValueError("optcert.keras maps state to optimizer attributes by name: "
                             "Mapping.scale and tuple keys are optcert.torch's")
        return factory, mapping

    results, statuses, used = run_family(fam, keras_pick, _HEX[fam.algorithm] + _BOOL[fam.algorithm],
                                         run_case, verbose)
    versions = f"keras {metadata.version('keras')} ({keras.backend.backend()} backend, CPU)"
    if keras.backend.backend() == "jax":
        versions += f", jax {metadata.version('jax')}"
    # keras.src.optimizers.X is exported as keras.optimizers.X
    impl = ",".join(sorted(n.replace("keras.src.optimizers.", "keras.optimizers.") for n in used))
    write_results(out, fam.name, results, statuses, impl, versions, adapter)
    counts = {s: list(statuses.values()).count(s) for s in ("ok", "rejected", "unsupported")}
    return fam.name, counts, versions


def certify(factory, family="adam-keras", mapping=None, cls="fp32", vectors=None, out=None,
            html=None, verbose=False):
    """Certifies factory (a keras.optimizers.Optimizer class, or a function returning one, called
    with keywords) on `family`: returns the optcert.Certificate. mapping: a Mapping when the
    factory is not keras' Adam, AdamW or Lion (BUILTIN) or names things otherwise; out, html:
    keep the results file, write the HTML certificate there."""
    chosen = mapping or BUILTIN.get(f"{factory.__module__}.{factory.__qualname__}")
    if chosen is None:
        raise ValueError(f"no built-in mapping for {factory!r}: pass mapping=optcert.mapping.Mapping(...)")
    return certify_results(lambda path, res: write(path, res, lambda alg, hp: (factory, chosen),
                                                   verbose=verbose), family, cls, vectors, out, html)
