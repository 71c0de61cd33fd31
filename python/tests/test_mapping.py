"""optcert.mapping's nested state keys and value transforms (Mapping.scale), on their own and
through optcert.torch (check_package.sh runs it under torch 2.15)."""
import numpy as np
import torch

import optcert.torch
from optcert.mapping import Mapping, bias_correction, expressible, get_in, put_in
from optcert.vectors import Case, Tensor


def test_nested_keys():
    state = {}
    put_in(state, (0, "exp_avg"), 1.5)
    put_in(state, "step", 3)
    assert state == {0: {"exp_avg": 1.5}, "step": 3}
    assert get_in(state, (0, "exp_avg")) == 1.5 and get_in(state, "step") == 3
    assert get_in(state, (0, "missing")) is None and get_in(state, (1, "exp_avg")) is None


def test_bias_correction_in_and_out():
    m = Mapping({}, {"m": "m_hat"}, scale={"m": bias_correction("beta1")})
    hp, x = {"beta1": 0.875}, np.array([0.5, -3.0])
    c3 = 1.0 - 0.875 ** 3
    assert np.array_equal(m.to_library("m", x, hp, 3), x / c3)
    assert np.array_equal(m.from_library("m", x / c3, hp, 3), x / c3 * c3)
    assert np.array_equal(m.to_library("m", x, hp, 0), x)  # no moment before the first step
    assert np.array_equal(m.to_library("v", x, hp, 3), x)  # a state the mapping does not scale


def _case(m0, result="valid", first_step=1):
    hp = {"beta1": 0.5, "storage": {"param": "f32", "state": "f32"}}
    return Case(1, hp, first_step, 1, {"m": Tensor("F32", np.array(m0, dtype=np.float32))},
                result=result)


def test_no_state_before_the_first_step():
    m = Mapping({}, {"m": "m_hat"}, scale={"m": bias_correction("beta1")})
    assert expressible(m, _case([0.0, -0.0]))
    assert not expressible(m, _case([0.0, 0.25]))  # heavyball cannot hold m_0 != 0
    assert expressible(m, _case([0.0, 0.25], first_step=2))
    assert expressible(m, _case([0.0, 0.25], result="invalid"))  # it must refuse, whatever m


def _parity(hp, t):
    """A scale that needs the right step: the state is kept times 2 after an odd number of
    steps, times 4 after an even one (exact in binary floating point)."""
    return 0.5 if t % 2 else 0.25


class ScaledNestedAdamW(torch.optim.Optimizer):
    """torch.optim.AdamW keeping m and v scaled by 1 / _parity(t) in nested dicts
    (state[p]["moments"]["m"], ...) and an int step counter state[p]["moments"]["t"]."""

    def __init__(self, params, lr, betas, eps, weight_decay):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                st = self.state[p].setdefault("moments", {"t": 0})
                t = st["t"]
                inner = torch.optim.AdamW([p], lr=group["lr"], betas=group["betas"],
                                          eps=group["eps"], weight_decay=group["weight_decay"])
                if t:
                    inner.state[p] = {"step": torch.tensor(float(t)),
                                      "exp_avg": st["m"] * _parity(None, t),
                                      "exp_avg_sq": st["v"] * _parity(None, t)}
                inner.step()
                st["t"] = t + 1
                st["m"] = inner.state[p]["exp_avg"] / _parity(None, t + 1)
                st["v"] = inner.state[p]["exp_avg_sq"] / _parity(None, t + 1)


def _mapping(scale):
    return optcert.torch.Mapping(
        hparams={"lr": "lr", ("beta1", "beta2"): "betas", "eps": "eps", "weightDecay": "weight_decay"},
        state={"m": ("moments", "m"), "v": ("moments", "v")}, step=("moments", "t"), step_int=True,
        fixed={"decoupled": True, "epsRoot": 0.0, "scheduleMultiplier": 1.0, "amsgrad": False,
               "maximize": False}, scale={"m": scale, "v": scale})


def test_scaled_nested_state_conforms():
    cert = optcert.torch.certify(ScaledNestedAdamW, family="adam-torch", mapping=_mapping(_parity))
    reference = optcert.torch.certify(torch.optim.AdamW, family="adam-torch")
    ran = {c.tc_id: c.verdict for c in cert.cases if c.verdict != "skipped"}
    assert len(ran) >= 25, cert.table
    # each case it runs judged as torch.optim.AdamW's (the invalid ones rejected by the inner
    # AdamW at the step)
    ref = {c.tc_id: c.verdict for c in reference.cases}
    assert all(ran[t] == ref[t] for t in ran), cert.table
    assert cert.conforms, cert.table


def test_scale_at_the_wrong_step_fails():
    cert = optcert.torch.certify(ScaledNestedAdamW, family="adam-torch",
                                 mapping=_mapping(lambda hp, t: _parity(hp, t + 1)))
    assert not cert.conforms
    wrong = [c for c in cert.failures if "got" in c.message]
    assert len(wrong) >= 20, cert.table
