"""What the generic adapters of stateful optimizer classes share (optcert.torch, optcert.keras):
the Mapping of a family's names to a class's, which cases a class can express, and the loop
over an element-wise family's cases (spec/vectors.md VEC-RES-2: ok, rejected, unsupported).
Nothing here imports a framework."""
from dataclasses import dataclass, field

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
             optimizer.state[param], m -> exp_avg; Keras: the optimizer's list of variables,
             m -> _momentums).
    step:    where the class keeps its step counter (torch.optim: the state key of a float32
             scalar tensor; Keras: the iterations variable), or None when it keeps none.
    step_int: the counter is a Python int (DeepSpeedCPUAdam), not a tensor."""
    hparams: dict
    state: dict
    fixed: dict = field(default_factory=dict)
    step: str = "step"
    step_int: bool = False

    def kwargs(self, hp):
        """The constructor keywords for the case's hyper-parameters."""
        return {kw: tuple(hp[n] for n in name) if isinstance(name, tuple) else hp[name]
                for name, kw in self.hparams.items()}

    def covers(self, names):
        """The family hyper-parameters this mapping says nothing about."""
        said = {n for name in self.hparams for n in (name if isinstance(name, tuple) else (name,))}
        return [n for n in names if n not in said and n not in self.fixed]


def expressible(mapping, hp, first_step):
    """Whether the class can run the case: a step counter from 1, the fixed hyper-parameters at
    their values (decoupled does not matter without decay), fp32 state (torch keeps the state in
    the dtype of the stepped fp32 tensor; Keras in the variable's)."""
    if first_step < 1 or hp["storage"]["state"] != "f32":
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
        if not expressible(mapping, case.hparams, case.first_step):
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
