"""optcert.optax on the installed package (check_package.sh runs it in the jax environment)."""
import re
from pathlib import Path

import optax

import optcert
import optcert.optax

KNOWN = Path(__file__).resolve().parents[2] / "conformance" / "adapters" / "known-divergences.txt"


def known_divergences(adapter, family):
    """The tcIds conformance/adapters/known-divergences.txt explains for adapter and family."""
    return {int(line.split()[2]) for line in KNOWN.read_text().splitlines()
            if line.strip() and not line.startswith("#") and line.split()[:2] == [adapter, family]}


def test_adamw_fails_only_its_known_divergences():
    cert = optcert.optax.certify(optax.adamw, family="adam-optax")
    assert "optax.adamw" in cert.table
    assert {c.tc_id for c in cert.failures} == known_divergences("optax_optim", "adam-optax")
    assert sum(c.verdict == "pass" for c in cert.cases) >= 30, cert.table


def squared_eps_adamw(eps, **kw):
    """A regression: eps squared."""
    return optax.adamw(eps=eps * eps, **kw)


def test_wrong_transformation_fails_naming_cases():
    cert = optcert.optax.certify(squared_eps_adamw, family="adam-optax", mapping=optcert.optax.ADAMW)
    wrong = {c.tc_id for c in cert.failures} - known_divergences("optax_optim", "adam-optax")
    assert wrong, cert.table
    for c in cert.failures:
        assert re.match(rf"adam-optax tcId {c.tc_id}: FAIL: ", c.message)


def test_unknown_factory_needs_a_mapping():
    try:
        optcert.optax.certify(squared_eps_adamw, family="adam-optax")
    except ValueError as e:
        assert "mapping" in str(e)
    else:
        raise AssertionError("a factory without a mapping was accepted")
