"""What the generic adapters of stateful optimizer classes share (optcert.torch, optcert.keras):
the Mapping of a family's names to a class's, which cases a class can express, and the loop
over an element-wise family's cases (spec/vectors.md VEC-RES-2: ok, rejected, unsupported).
Nothing here imports a framework."""
from dataclasses import dataclass, field

import numpy as np

from . import public_name


@dataclass(frozen=True)
class Mapping:
    """How a class names a family's hyper-parameters and state (the family's names are
    spec/vectors.md's: lr, beta1, beta2, eps, weightDecay, amsgrad, maximize, momentum, ...).

    hparams: family name -> the constructor keyword; a tuple of family names -> one keyword
             given as a tuple (torch's betas=(beta1, beta2)).
    fixed:   family hyper-parameters the class does not take, with the value it implements;
             a case with another value is unsupported (AdamW: decoupled=True).
    state:   family state name -> where the class keeps it (torch: the key in
             optimizer.state[param], m -> exp_avg, or a tuple of keys into nested dicts,
             heavyball: m -> (0, "update_by_adam_exp_avg_0") in optimizer.state[param][0];
             Keras: the optimizer's list of variables, m -> _momentums).
    step:    where the class keeps its step counter (torch.optim: the state key of a float32
             scalar tensor, or a tuple of keys as in state; Keras: the iterations variable), or
             None when it keeps none.
    step_int: the counter is a Python int (DeepSpeedCPUAdam), not a tensor.
    scale:   family state name -> c(hp, t): the class keeps that state divided by c, with c the
             case's hyper-parameters' function of the steps t taken (heavyball keeps Adam's
             bias-corrected moments: m -> bias_correction("beta1"), m / (1 - beta1^t)). The
             adapter hands a case's state to the class as x / c at t = firstStep - 1 and reads
             the family's value back as y * c after each step (to_library, from_library).
             Where c(hp, 0) = 0 (a bias-corrected moment before the first step) the class
             keeps no value: a case whose such state is not zero there is unsupported."""
    hparams: dict
    state: dict
    fixed: dict = field(default_factory=dict)
    step: object = "step"
    step_int: bool = False
    scale: dict = field(default_factory=dict)

    def kwargs(self, hp):
        """The constructor keywords for the case's hyper-parameters."""
        return {kw: tuple(hp[n] for n in name) if isinstance(name, tuple) else hp[name]
                for name, kw in self.hparams.items()}

    def covers(self, names):
        """The family hyper-parameters this mapping says nothing about."""
        said = {n for name in self.hparams for n in (name if isinstance(name, tuple) else (name,))}
        return [n for n in names if n not in said and n not in self.fixed]

    def to_library(self, name, x, hp, t):
        """The value the class keeps for the family's state `name` = x after t steps (x / c;
        x itself where c is 0: the state is then zero, see expressible). The caller picks the
        arithmetic: optcert.torch divides in float64 and rounds once to the state's format."""
        c = self.scale[name](hp, t) if name in self.scale else 1.0
        return x / c if c != 0.0 else x

    def from_library(self, name, y, hp, t):
        """The family's value of state `name` that the class keeps as y after t >= 1 steps."""
        return y * self.scale[name](hp, t) if name in self.scale else y


def bias_correction(beta):
    """Mapping.scale of a moment kept bias-corrected (divided by 1 - beta^t; Adam's m with
    "beta1", v with "beta2"), computed in double precision from the case's beta."""
    return lambda hp, t: 1.0 - hp[beta] ** t


def get_in(state, key):
    """state[key], or through nested dicts for a tuple of keys; None where a key is missing."""
    for k in key if isinstance(key, tuple) else (key,):
        state = state.get(k) if isinstance(state, dict) else None
    return state


def put_in(state, key, value):
    """Sets state[key], or through nested dicts (created where missing) for a tuple of keys."""
    *outer, last = key if isinstance(key, tuple) else (key,)
    for k in outer:
        state = state.setdefault(k, {})
    state[last] = value


def expressible(mapping, case):
    """Whether the class can run the vectors.Case: a step counter from 1, the fixed
    hyper-parameters at their values (decoupled does not matter without decay), fp32 state
    (torch keeps the state in the dtype of the stepped fp32 tensor; Keras in the variable's),
    and no non-zero state where the class keeps none (Mapping.scale at zero), unless the case is
    invalid: there the class must refuse the hyper-parameters, whatever the state."""
    hp, first_step = case.hparams, case.first_step
    if first_step < 1 or hp["storage"]["state"] != "f32":
        return False
    if case.result != "invalid" and any(
            mapping.scale[n](hp, first_step - 1) == 0.0 and np.any(case.inputs[n].array != 0)
            for n in mapping.scale if n in case.inputs):
        return False
    for name, value in mapping.fixed.items():
        if name == "decoupled" and hp["weightDecay"] == 0.0:
            continue
        if hp[name] != value:
            return False
    return True


def run_family(fam, pick, names, run_case, verbose=False):
    """Runs every case of the element-wise family fam: pick(alg, hp) gives the (factory,
    Mapping) of a case, which must say what it does with each of names; run_case(factory,
    mapping, case) returns {state name: array [steps, n]} or raises (the library refuses the
    case: rejected). Returns (results {(tcId, name): array}, statuses {tcId: status}, the public
    names of the factories that ran). Raises ValueError when a mapping misses a name."""
    results, statuses, used = {}, {}, set()
    for case in fam.cases:
        factory, mapping = pick(fam.algorithm, case.hparams)
        missing = mapping.covers(names)
        if missing:
            raise ValueError(f"the mapping of {public_name(factory)} does not say what it does with "
                             f"{', '.join(missing)} (Mapping.hparams or Mapping.fixed)")
        detail = ""
        if not expressible(mapping, case):
            status = "unsupported"
        else:
            used.add(public_name(factory))
            try:
                for name, arr in run_case(factory, mapping, case).items():
                    results[(case.tc_id, name)] = arr
                status = "ok"
            except Exception as e:  # whatever the library raises is its way of refusing the case
                status, detail = "rejected", f"{type(e).__name__}: {e}"
        statuses[case.tc_id] = status
        if verbose:
            print(f"  {fam.name}/{case.tc_id}: {status} {detail}".rstrip())
    return results, statuses, used
