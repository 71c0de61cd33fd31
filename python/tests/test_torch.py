"""optcert.torch on the installed package (check_package.sh runs it under torch 2.15)."""
import re
import subprocess
import sys
from pathlib import Path

import torch

import optcert
import optcert.torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "example"))
from myopt import SquaredEpsAdamW  # noqa: E402


def test_adamw_conforms():
    cert = optcert.torch.certify(torch.optim.AdamW, family="adam-torch")
    assert cert.conforms, cert.failures
    assert "torch.optim.AdamW" in cert.table
    passed = [c for c in cert.cases if c.verdict == "pass"]
    assert len(passed) >= 40, cert.table  # the valid decoupled cases run, not only skips


def test_wrong_subclass_fails_naming_cases(tmp_path):
    cert = optcert.torch.certify(SquaredEpsAdamW, family="adam-torch", html=tmp_path / "c.html")
    assert not cert.conforms
    assert cert.failures
    for c in cert.failures:
        assert re.match(rf"adam-torch tcId {c.tc_id}: FAIL: ", c.message), c.message
    with_values = [c for c in cert.failures if "got" in c.message and "expected" in c.message]
    assert with_values, [c.message for c in cert.failures]
    page = (tmp_path / "c.html").read_text()  # the HTML certificate of the same judgement
    assert "DOES NOT CONFORM" in page and f'data-tcid="{cert.failures[0].tc_id}"' in page


class RenamedAdamW(torch.optim.Optimizer):
    """An AdamW of another library's naming (learning_rate, b1, b2, epsilon, decay; state mu, nu,
    nu_max and the step counter t) whose step runs torch.optim.AdamW."""

    def __init__(self, params, learning_rate, b1, b2, epsilon, decay, amsgrad=False,
                 maximize=False):
        super().__init__(params, dict(lr=learning_rate, betas=(b1, b2), eps=epsilon,
                                      weight_decay=decay, amsgrad=amsgrad, maximize=maximize))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                st = self.state[p]
                inner = torch.optim.AdamW([p], lr=group["lr"], betas=group["betas"],
                                          eps=group["eps"], weight_decay=group["weight_decay"],
                                          amsgrad=group["amsgrad"], maximize=group["maximize"])
                inner.state[p] = {"step": st["t"], "exp_avg": st["mu"], "exp_avg_sq": st["nu"]}
                if group["amsgrad"]:
                    inner.state[p]["max_exp_avg_sq"] = st["nu_max"]
                inner.step()
                for key, inner_key in (("t", "step"), ("mu", "exp_avg"), ("nu", "exp_avg_sq"),
                                       ("nu_max", "max_exp_avg_sq")):
                    if inner_key in inner.state[p]:
                        st[key] = inner.state[p][inner_key]


RENAMED = optcert.torch.Mapping(
    hparams={"lr": "learning_rate", "beta1": "b1", "beta2": "b2", "eps": "epsilon",
             "weightDecay": "decay", "amsgrad": "amsgrad", "maximize": "maximize"},
    state={"m": "mu", "v": "nu", "vmax": "nu_max"}, step="t",
    fixed={"decoupled": True, "epsRoot": 0.0, "scheduleMultiplier": 1.0})


def test_mapping_of_other_names():
    cert = optcert.torch.certify(RenamedAdamW, family="adam-torch", mapping=RENAMED)
    reference = optcert.torch.certify(torch.optim.AdamW, family="adam-torch")
    assert [(c.tc_id, c.verdict) for c in cert.cases] == \
        [(c.tc_id, c.verdict) for c in reference.cases]


def test_incomplete_mapping_is_refused():
    partial = optcert.torch.Mapping(hparams={"lr": "learning_rate"}, state={})
    try:
        optcert.torch.certify(RenamedAdamW, family="adam-torch", mapping=partial)
    except ValueError as e:
        assert "beta1" in str(e)
    else:
        raise AssertionError("a mapping without beta1 was accepted")


def test_python_m_optcert_uses_the_shipped_harness():
    run = subprocess.run([sys.executable, "-m", "optcert", "vectors", "check"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    shipped = Path(optcert.__file__).resolve().parent / "_c" / "bin" / ".." / "share" / "optcert"
    assert f"{shipped}/vectors/MANIFEST.sha256: matches the files" in run.stdout, run.stdout
    bad = subprocess.run([sys.executable, "-m", "optcert", "certify", "--class", "bogus"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--class must be" in bad.stderr
