#!/usr/bin/python3
"""Validates every committed vector file against spec/schema/optcert-vectors-1.schema.json,
plus the cross-file facts a JSON Schema cannot state: unique tcIds, numberOfTests, every flag
defined in notes, every tensor key present in the safetensors header (VEC-FMT-2, -6, -7), and
the family named after its algorithm and profile (VEC-NAME-1).
usage: ci/validate_vectors.py [VECTOR_DIR]   (exit 1 on any problem)"""
import json
import pathlib
import re
import struct
import sys

import jsonschema

root = pathlib.Path(__file__).resolve().parent.parent
vector_dir = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else root / "vectors"
schema = json.loads((root / "spec/schema/optcert-vectors-1.schema.json").read_text())
validator = jsonschema.Draft202012Validator(schema)
problems = 0


def problem(path, msg):
    global problems
    problems += 1
    print(f"{path}: {msg}")


def check_name(path, doc):
    """VEC-NAME-1: [resume-]<algorithm>-<profile>[-<variant>][-mixed], the name of the directory,
    the file, its `family` and its tensors file."""
    name, algorithm, profile = path.parent.name, doc.get("algorithm"), doc.get("profile")
    variant = r"(-(?!mixed$)[a-z0-9]+)?"  # one word, not "mixed"
    rule = f"(resume-)?{re.escape(str(algorithm))}-{re.escape(str(profile))}{variant}(-mixed)?"
    if path.stem != name or doc.get("family") != name:
        problem(path, f"family {doc.get('family')!r} in {path.parent.name}/{path.name}: the "
                f"directory, the file and the family carry one name (VEC-NAME-1)")
    elif not re.fullmatch(rule, name):
        problem(path, f"family {name!r} is not named [resume-]{algorithm}-{profile}[-<variant>]"
                f"[-mixed] after its algorithm and profile (VEC-NAME-1)")
    elif doc.get("tensors", f"{name}.safetensors") != f"{name}.safetensors":
        problem(path, f"tensors file {doc['tensors']!r} is not {name}.safetensors (VEC-NAME-1)")


def tensor_header(path, doc):
    """The safetensors header of the file's tensors (VEC-FMT-2), or None after saying why it
    cannot be read (missing, truncated, not JSON)."""
    tensors = path.parent / doc["tensors"]
    try:
        raw = tensors.read_bytes()
        (hlen,) = struct.unpack("<Q", raw[:8])
        if len(raw) < 8 + hlen:
            raise ValueError(f"header of {hlen} bytes in a file of {len(raw)}")
        return json.loads(raw[8:8 + hlen])
    except (OSError, struct.error, ValueError) as e:
        problem(path, f"tensors file {tensors.name}: cannot be read: {e}")
        return None


files = sorted(vector_dir.glob("*/*.json"))
for path in files:
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        problem(path, f"cannot be read as JSON: {e}")
        continue
    for err in validator.iter_errors(doc):
        problem(path, f"schema: {'/'.join(map(str, err.absolute_path))}: {err.message}")
    check_name(path, doc)
    header = {}
    if "tensors" in doc:  # scalar families keep their values inline
        header = tensor_header(path, doc)
        if header is None:
            continue
    tests = [t for g in doc.get("testGroups", []) for t in g.get("tests", [])]
    ids = [t["tcId"] for t in tests]
    if len(ids) != len(set(ids)):
        problem(path, "duplicate tcId")
    if doc.get("numberOfTests") != len(tests):
        problem(path, "numberOfTests does not match the tests")
    for t in tests:
        for flag in t["flags"]:
            if flag not in doc["notes"]:
                problem(path, f"tcId {t['tcId']}: flag {flag} not defined in notes")
        keys = []
        if "tensors" in doc:  # inline families' inputs are values (VEC-FMT-19), not tensor keys
            keys = list(t.get("inputs", {}).values())
            keys += [k for e in t.get("expected", {}).values() for k in e.values()]
        elif "foundInf" in t:  # loss scale: one expected value per update (VEC-FMT-10)
            for name, values in t.get("expected", {}).items():
                if len(values) != len(t["foundInf"]):
                    problem(path, f"tcId {t['tcId']}: expected.{name} needs one value per update")
        for k in keys:
            if k not in header:
                problem(path, f"tcId {t['tcId']}: tensor {k} missing from {doc['tensors']}")
print(f"{len(files)} vector files checked, {problems} problem(s)")
sys.exit(1 if problems or not files else 0)
