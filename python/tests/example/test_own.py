"""A project's own test through the plugin's fixture: one test per case of adam-torch."""
import os

import pytest

import optcert
from optcert.pytest_plugin import load_object, optcert_check

OPTIMIZER = load_object(os.environ["MYOPT"])  # MODULE:NAME, chosen by check_package.sh


@pytest.mark.parametrize("tc", optcert.case_ids(optcert.family_path("adam-torch")))
def test_adam_torch(optcert_certify, tc):
    optcert_check(optcert_certify(OPTIMIZER, "adam-torch"), "adam-torch", tc)
