"""The pytest plugin on the installed package: a project's CI names each failing case."""
import os
import re
import subprocess
import sys
from pathlib import Path

import optcert

EXAMPLE = Path(__file__).resolve().parent / "example"
N_CASES = len(optcert.case_ids(optcert.family_path("adam-torch")))


def pytest_run(*args, env=None):
    """pytest in the example project (its own rootdir, the plugin from the entry point)."""
    env = dict(os.environ, **(env or {}))
    env["PYTHONPATH"] = os.pathsep.join([str(EXAMPLE), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rfs",
                           "--rootdir", str(EXAMPLE), *args], cwd=EXAMPLE, env=env,
                          capture_output=True, text=True)


def outcome(stdout):
    """{passed, failed, skipped: count} of pytest's summary line."""
    last = stdout.strip().splitlines()[-1]
    return {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|skipped)", last)}


def failed_names(stdout):
    return re.findall(r"^FAILED \S*?(adam-torch\[tcId \d+\])", stdout, re.MULTILINE)


def test_plugin_correct_optimizer_passes():
    run = pytest_run("--ignore=test_own.py", "--optcert-family", "adam-torch",
                     "--optcert-optimizer", "myopt:MyAdamW")
    assert run.returncode == 0, run.stdout + run.stderr
    counts = outcome(run.stdout)
    assert counts.get("failed", 0) == 0 and counts["passed"] + counts.get("skipped", 0) == N_CASES


def test_plugin_wrong_optimizer_names_failing_cases():
    run = pytest_run("--ignore=test_own.py", "--optcert-family", "adam-torch",
                     "--optcert-optimizer", "myopt:SquaredEpsAdamW")
    assert run.returncode == 1, run.stdout + run.stderr
    names = failed_names(run.stdout)
    assert names and len(names) == outcome(run.stdout)["failed"], run.stdout
    first = re.search(r"tcId (\d+)", names[0]).group(1)
    # the failure's text is the certificate's line for that case
    assert re.search(rf"adam-torch tcId {first}: FAIL: ", run.stdout), run.stdout


def test_plugin_bad_optimizer_is_usage_error():
    run = pytest_run("--ignore=test_own.py", "--optcert-family", "adam-torch",
                     "--optcert-optimizer", "myopt:NoSuch")
    assert run.returncode == 4 and "NoSuch" in run.stderr, run.stdout + run.stderr


def test_fixture_own_test():
    good = pytest_run("test_own.py", env={"MYOPT": "myopt:MyAdamW"})
    assert good.returncode == 0, good.stdout + good.stderr
    bad = pytest_run("test_own.py", env={"MYOPT": "myopt:SquaredEpsAdamW"})
    assert bad.returncode == 1, bad.stdout
    assert re.search(r"^FAILED test_own.py::test_adam_torch\[\d+\] - (Failed: )?adam-torch tcId \d+: FAIL",
                     bad.stdout, re.MULTILINE), bad.stdout
