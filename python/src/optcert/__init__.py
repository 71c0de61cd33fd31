"""optcert from Python: run an optimizer over the golden vectors, write a results file
(spec/vectors.md §2) and have the optcert command judge it (`optcert judge`, VEC-RES-3).

The judging is the C harness's: this package ships the optcert command it was built with
(`pip install ./python`) and runs it; nothing here decides a verdict.
  optcert.torch.certify(factory, family="adam-torch")   any torch.optim.Optimizer-like class
  optcert.optax.certify(factory, family="adam-optax")   any optax GradientTransformation
  optcert.keras.certify(factory, family="adam-keras")   any Keras 3 optimizer
  pytest --optcert-family adam-torch --optcert-optimizer mypkg.module:MyAdamW
"""
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .vectors import Malformed, case_ids, read_safetensors, write_safetensors  # noqa: F401

__version__ = "0.1.0"
_C = Path(__file__).resolve().parent / "_c"  # what `pip install` put there (pyproject.toml)


class OptcertError(Exception):
    """Bad usage or bad input: optcert exited with status 2, or no optcert can be found."""


def executable():
    """The optcert command: $OPTCERT_EXECUTABLE, else the one shipped in this package."""
    exe = os.environ.get("OPTCERT_EXECUTABLE") or str(_C / "bin" / "optcert")
    if not os.access(exe, os.X_OK):
        raise OptcertError(f"no optcert command at {exe}: install this package with pip (it builds "
                           "it) or set OPTCERT_EXECUTABLE")
    return exe


def vectors_dir():
    """The vectors: $OPTCERT_VECTORS, else the set installed beside the optcert command
    (bin/../share/optcert/vectors, cmake/install.cmake), else the source tree of a build
    directory's optcert (build/../vectors)."""
    if os.environ.get("OPTCERT_VECTORS"):
        return Path(os.environ["OPTCERT_VECTORS"])
    exe_dir = Path(executable()).resolve().parent
    for d in (exe_dir.parent / "share" / "optcert" / "vectors", exe_dir.parent / "vectors"):
        if (d / "MANIFEST.sha256").is_file():
            return d
    raise OptcertError(f"no vectors beside {exe_dir}: set OPTCERT_VECTORS")


def family_path(family, vectors=None):
    """vectors/<family>/<family>.json (VEC-FMT: one directory per family)."""
    path = Path(vectors or vectors_dir()) / family / f"{family}.json"
    if not path.is_file():
        raise OptcertError(f"no family {family!r}: {path} does not exist")
    return path


@dataclass
class Case:
    """One case of a certificate, as the JSON report has it."""
    family: str
    tc_id: int
    verdict: str  # pass, FAIL, skipped, accepted, rejected (oc_verdict_name, certify.c)
    detail: str
    behaves_like: str = None

    @property
    def message(self):
        """The certificate's line for the case (optcert --verbose)."""
        like = f" -- behaves like {self.behaves_like}" if self.behaves_like else ""
        return f"{self.family} tcId {self.tc_id}: {self.verdict}: {self.detail}{like}"


@dataclass
class Certificate:
    """optcert's verdict on a results file: its table, its JSON report and the cases."""
    conforms: bool
    table: str
    report: dict
    cases: list = field(default_factory=list)

    @property
    def failures(self):
        return [c for c in self.cases if c.verdict == "FAIL"]

    def case(self, family, tc_id):
        for c in self.cases:
            if c.family == family and c.tc_id == tc_id:
                return c
        raise KeyError(f"{family} tcId {tc_id} is not in the certificate")

    def assert_conforms(self):
        if not self.conforms:
            raise AssertionError("DOES NOT CONFORM:\n" + "\n".join(c.message for c in self.failures))


def judge(results, family=None, cls="fp32", vectors=None, html=None):
    """`optcert judge --results FILE`: the Certificate; html: also write the HTML certificate
    there (--html). Raises OptcertError on bad input (exit 2)."""
    with tempfile.TemporaryDirectory(prefix="optcert-") as tmp:
        report = os.path.join(tmp, "report.json")
        cmd = [executable(), "judge", "--results", str(results), "--class", cls,
               "--vectors", str(vectors or vectors_dir()), "--report", "table",
               "--report", f"json:{report}", "--verbose"]
        if family:
            cmd += ["--family", family]
        if html:
            cmd += ["--html", str(html)]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode not in (0, 1):
            raise OptcertError(f"optcert judge exited {run.returncode}: {run.stderr.strip()}")
        with open(report, encoding="utf-8") as f:
            doc = json.load(f)
    cases = [Case(fam["family"], c["tcId"], c["verdict"], c["detail"], c.get("behavesLike"))
             for fam in doc["families"] for c in fam["cases"]]
    return Certificate(run.returncode == 0, run.stdout, doc, cases)


def write_results(path, family, results, statuses, impl, impl_version, adapter, routes=None,
                  unbroken=None):
    """A results file (VEC-RES-1, VEC-RES-2): results {(tcId, name): array [steps, n]},
    statuses {tcId: ok|rejected|unsupported}, routes {tcId: muon|adamw} (VEC-RES-4), unbroken
    {tcId: identical|differs} for the resume families (VEC-RES-6)."""
    meta = {f"status/{family}/{t}": s for t, s in statuses.items()}
    meta.update({f"route/{family}/{t}": r for t, r in (routes or {}).items()})
    meta.update({f"unbroken/{family}/{t}": u for t, u in (unbroken or {}).items()})
    meta.update(impl=impl, implVersion=impl_version, adapter=adapter)
    write_safetensors(path, {f"{family}/{t}/{name}": a for (t, name), a in results.items()},
                      meta)


def certify_results(write, family, cls="fp32", vectors=None, out=None, html=None):
    """Calls write(family_json_path, results_path), then judges the results file (html: the
    HTML certificate's path). The file is kept at `out` if given, else written to a temporary
    directory."""
    path = family_path(family, vectors)
    with tempfile.TemporaryDirectory(prefix="optcert-") as tmp:
        results = out or os.path.join(tmp, f"{family}.results.safetensors")
        write(path, results)
        return judge(results, family, cls, vectors or path.parent.parent, html)



def public_name(obj):
    """obj's name by the shortest module path that exports it (torch.optim.AdamW, not
    torch.optim.adamw.AdamW); a functools.partial is named by its function."""
    import functools
    import importlib
    obj = obj.func if isinstance(obj, functools.partial) else obj
    module, name = getattr(obj, "__module__", None), getattr(obj, "__qualname__", repr(obj))
    parts = (module or "").split(".")
    for i in range(1, len(parts) + 1):
        prefix = ".".join(parts[:i])
        try:
            if getattr(importlib.import_module(prefix), name, None) is obj:
                return f"{prefix}.{name}"
        except ImportError:
            continue
    return f"{module}.{name}" if module else name
