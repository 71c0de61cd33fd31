"""optcert.keras on the installed package (check_package.sh runs it in the jax environment,
KERAS_BACKEND=jax)."""
import dataclasses
import re

import keras

import optcert.keras
from optcert.mapping import bias_correction
from test_optax import known_divergences


def test_lion_fails_only_its_known_divergences():
    cert = optcert.keras.certify(keras.optimizers.Lion, family="lion-torch")
    assert "keras.optimizers.Lion" in cert.table
    assert {c.tc_id for c in cert.failures} == known_divergences("keras_optim", "lion-torch")
    assert sum(c.verdict == "pass" for c in cert.cases) >= 20, cert.table


class SwappedLion(keras.optimizers.Lion):
    """A regression: the betas swapped (the update direction from beta_2, the momentum from
    beta_1)."""

    def __init__(self, beta_1=0.9, beta_2=0.99, **kw):
        super().__init__(beta_1=beta_2, beta_2=beta_1, **kw)


def test_wrong_optimizer_fails_naming_cases():
    cert = optcert.keras.certify(SwappedLion, family="lion-torch", mapping=optcert.keras.LION)
    wrong = {c.tc_id for c in cert.failures} - known_divergences("keras_optim", "lion-torch")
    assert wrong, cert.table
    for c in cert.failures:
        assert re.match(rf"lion-torch tcId {c.tc_id}: FAIL: ", c.message)


def test_value_transform_is_refused():
    scaled = dataclasses.replace(optcert.keras.LION, scale={"m": bias_correction("beta1")})
    try:
        optcert.keras.certify(keras.optimizers.Lion, family="lion-torch", mapping=scaled)
    except ValueError as e:
        assert "Mapping.scale" in str(e)
    else:
        raise AssertionError("a Mapping.scale that optcert.keras does not apply was accepted")
