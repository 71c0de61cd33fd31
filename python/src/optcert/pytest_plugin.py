"""pytest plugin (entry point pytest11 `optcert`): every case of a certificate as a test.

    pytest --optcert-family adam-torch --optcert-optimizer mypkg.module:MyAdamW

adds one test per case of the family, named `adam-torch[tcId 10]`: it fails with the
certificate's line for the case (optcert --verbose), is skipped for a case the optimizer does
not support, and passes otherwise. The optimizer is certified once per family, when its first
case runs. --optcert-family is repeatable; --optcert-adapter chooses torch (default), optax or keras;
--optcert-class the implementation class (fp32 by default).

For a test of one's own, the fixture `optcert_certify(factory, family, adapter="torch", ...)`
returns the certificate (made once per session), `optcert.case_ids(optcert.family_path(FAMILY))`
lists the tcIds to parametrize over and `optcert_check` judges one case as the plugin does:

    from optcert.pytest_plugin import optcert_check

    @pytest.mark.parametrize("tc", optcert.case_ids(optcert.family_path("adam-torch")))
    def test_adamw(optcert_certify, tc):
        optcert_check(optcert_certify(MyAdamW, "adam-torch"), "adam-torch", tc)
"""
import importlib

import pytest

import optcert


def pytest_addoption(parser):
    group = parser.getgroup("optcert", "optimizer certification (optcert)")
    group.addoption("--optcert-family", action="append", default=[], metavar="FAMILY",
                    help="certify --optcert-optimizer on this vector family (repeatable)")
    group.addoption("--optcert-optimizer", metavar="MODULE:NAME",
                    help="the optimizer class (torch) or transformation factory (optax)")
    group.addoption("--optcert-adapter", choices=("torch", "optax", "keras"), default="torch",
                    help="how to run it: optcert.torch (default), optcert.optax or optcert.keras")
    group.addoption("--optcert-class", default="fp32", metavar="CLASS",
                    help="implementation class: exact, fp32 (default), tf32, bf16")


def load_object(spec):
    """MODULE:NAME (NAME may be dotted) -> the object; a UsageError otherwise."""
    module, sep, name = spec.partition(":")
    if not sep or not module or not name:
        raise pytest.UsageError(f"--optcert-optimizer {spec!r}: expected MODULE:NAME")
    try:
        obj = importlib.import_module(module)
        for part in name.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as e:
        raise pytest.UsageError(f"--optcert-optimizer {spec!r}: {e}") from None
    return obj


def certify(factory, family, adapter="torch", cls="fp32", **kw):
    """The certificate of factory on family through optcert.<adapter>."""
    module = importlib.import_module(f"optcert.{adapter}")
    return module.certify(factory, family=family, cls=cls, **kw)


def optcert_check(cert, family, tc_id):
    """Fails (with the certificate's line) on a FAIL, skips a skipped case, passes otherwise."""
    case = cert.case(family, tc_id)
    if case.verdict == "FAIL":
        pytest.fail(case.message, pytrace=False)
    if case.verdict == "skipped":
        pytest.skip(case.message)


class _Certificates:
    """One certificate per (factory, family, adapter, class, options), made on first use."""

    def __init__(self):
        self.done = {}

    def get(self, factory, family, adapter="torch", cls="fp32", **kw):
        key = (factory, family, adapter, cls, tuple(sorted(kw.items())))
        if key not in self.done:
            self.done[key] = certify(factory, family, adapter, cls, **kw)
        return self.done[key]


class OptcertCase(pytest.Item):
    """One case of a family's certificate (`adam-torch[tcId 10]`)."""

    def __init__(self, *, family, tc_id, spec, **kw):
        super().__init__(**kw)
        self.family, self.tc_id, self.spec = family, tc_id, spec

    def runtest(self):
        opts = self.config.option
        cert = self.config._optcert.get(load_object(self.spec), self.family, opts.optcert_adapter,
                                        opts.optcert_class)
        optcert_check(cert, self.family, self.tc_id)

    def repr_failure(self, excinfo):
        return str(excinfo.value)

    def reportinfo(self):
        return self.path, None, f"{self.family}[tcId {self.tc_id}]"


def pytest_configure(config):
    config._optcert = _Certificates()


def pytest_collection_modifyitems(session, config, items):
    families = config.getoption("optcert_family")
    spec = config.getoption("optcert_optimizer")
    if not families and not spec:
        return
    if not families or not spec:
        raise pytest.UsageError("--optcert-family and --optcert-optimizer go together")
    load_object(spec)  # a bad MODULE:NAME is a usage error before anything runs
    for family in families:
        try:
            ids = optcert.case_ids(optcert.family_path(family))
        except (optcert.OptcertError, optcert.Malformed, OSError) as e:
            raise pytest.UsageError(f"--optcert-family {family}: {e}") from None
        items.extend(OptcertCase.from_parent(session, name=f"{family}[tcId {t}]", family=family,
                                             tc_id=t, spec=spec) for t in ids)


@pytest.fixture(scope="session")
def optcert_certify(request):
    """optcert_certify(factory, family, adapter="torch", cls="fp32", **kw) -> Certificate,
    certified once per session for the same arguments."""
    return request.config._optcert.get
