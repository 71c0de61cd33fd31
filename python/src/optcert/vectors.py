"""Reading optcert vector families and writing results files with numpy (spec/vectors.md).

The safetensors layout is VEC-FMT-7's: an 8-byte little-endian header length, the JSON header,
then the little-endian data. BF16 has no numpy dtype: its tensors are read and written as their
bit patterns (uint16), tagged with their dtype in a Tensor.
"""
import json
import os
import re
import struct
from typing import NamedTuple

import numpy as np

NUMPY = {"F32": np.dtype("<f4"), "F64": np.dtype("<f8"), "F16": np.dtype("<f2"),
         "BF16": np.dtype("<u2")}
# VEC-FMT-16: a storage format's name in hparams.storage and its safetensors dtype
STORAGE = {"f32": "F32", "bf16": "BF16", "f16": "F16"}
# VEC-FMT-1: what C's %a prints: 0x<hex>[.<hex>]p<exp>, inf, nan (float.fromhex alone would take
# "0.001" as hex)
HEX_FLOAT = re.compile(r"[+-]?(0x[0-9a-f]+(\.[0-9a-f]*)?p[+-]?[0-9]+|inf(inity)?|nan)", re.IGNORECASE)


class Malformed(Exception):
    """A vector family that does not follow spec/vectors.md."""


def need(cond, msg):
    if not cond:
        raise Malformed(msg)


class Tensor(NamedTuple):
    """A safetensors tensor: its dtype (F32, F64, F16, BF16) and its values (BF16: bit patterns)."""
    dtype: str
    array: np.ndarray


def read_safetensors(path):
    """{key: Tensor} of a safetensors file; raises Malformed on a broken file."""
    with open(path, "rb") as f:
        data = f.read()
    need(len(data) >= 8, f"{path}: shorter than a safetensors header")
    (hlen,) = struct.unpack("<Q", data[:8])
    need(8 + hlen <= len(data), f"{path}: header length {hlen} past the end of the file")
    try:
        header = json.loads(data[8:8 + hlen])
    except ValueError as e:
        raise Malformed(f"{path}: header is not JSON: {e}") from None
    need(isinstance(header, dict), f"{path}: header is not an object")
    body = memoryview(data)[8 + hlen:]
    out = {}
    for key, info in header.items():
        if key == "__metadata__":
            continue
        need(isinstance(info, dict) and info.get("dtype") in NUMPY, f"{path}: {key}: bad dtype")
        shape, (b, e) = info.get("shape"), info.get("data_offsets", (None, None))
        need(isinstance(shape, list) and all(type(s) is int and s >= 0 for s in shape),
             f"{path}: {key}: bad shape")
        dt = NUMPY[info["dtype"]]
        need(type(b) is int and type(e) is int and 0 <= b <= e <= len(body) and
             e - b == dt.itemsize * int(np.prod(shape, dtype=np.int64)),
             f"{path}: {key}: bad data_offsets")
        out[key] = Tensor(info["dtype"], np.frombuffer(body[b:e], dtype=dt).reshape(shape).copy())
    return out


def write_safetensors(path, tensors, metadata):
    """Writes {key: Tensor or float32/float64/float16 ndarray} with string metadata (VEC-FMT-7)."""
    names = {np.dtype("float32"): "F32", np.dtype("float64"): "F64", np.dtype("float16"): "F16"}
    header, chunks, offset = {"__metadata__": dict(metadata)}, [], 0
    for key in sorted(tensors):
        t = tensors[key]
        if not isinstance(t, Tensor):
            arr = np.asarray(t)
            if arr.dtype not in names:
                raise ValueError(f"{key}: dtype {arr.dtype} has no safetensors name here")
            t = Tensor(names[arr.dtype], arr)
        raw = np.ascontiguousarray(t.array, dtype=NUMPY[t.dtype]).tobytes()
        header[key] = {"dtype": t.dtype, "shape": list(t.array.shape),
                       "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for raw in chunks:
            f.write(raw)


class Case(NamedTuple):
    """One test of an element-wise family (VEC-FMT-4): its id, its group's hyper-parameters,
    firstStep, steps, the input Tensors by name (p, master with a 16-bit p, state, g), where a
    resume case breaks, and its result (valid, invalid: the implementation must refuse it, or
    acceptable)."""
    tc_id: int
    hparams: dict
    first_step: int
    steps: int
    inputs: dict
    resume_at: int = -1  # VEC-FMT-20: updates before the save and restore; -1: no break
    result: str = "valid"


class Family(NamedTuple):
    name: str
    algorithm: str
    profile: str
    cases: list


def load_doc(path):
    """The JSON document of a family (VEC-FMT-1..2 checked by the callers that need more)."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except ValueError as e:
        raise Malformed(f"not JSON: {e}") from None
    need(isinstance(doc, dict), "top level is not an object")
    need(doc.get("schema") == "optcert-vectors/1", f"schema {doc.get('schema')!r} is not optcert-vectors/1")
    need(isinstance(doc.get("family"), str) and doc["family"] and "/" not in doc["family"],
         "bad family name")
    return doc


def case_ids(path):
    """Every tcId of a family, in file order (VEC-FMT-2)."""
    doc = load_doc(path)
    return [t["tcId"] for g in doc.get("testGroups", []) for t in g.get("tests", [])]


def parse_hparams(raw, hex_keys, bool_keys, where):
    """The group's hyper-parameters: hex floats (VEC-FMT-1), booleans, storage (VEC-FMT-16)."""
    need(isinstance(raw, dict), f"{where}: hparams is not an object")
    hp = {}
    for k in hex_keys:
        need(isinstance(raw.get(k), str) and HEX_FLOAT.fullmatch(raw[k]),
             f"{where}: hparams.{k} = {raw.get(k)!r} is not a C99 hex float")
        hp[k] = float.fromhex(raw[k])
    for k in bool_keys:
        need(isinstance(raw.get(k), bool), f"{where}: hparams.{k} missing or not a boolean")
        hp[k] = raw[k]
    storage = raw.get("storage", {"param": "f32", "state": "f32"})
    need(isinstance(storage, dict) and storage.get("param") in STORAGE and storage.get("state") in STORAGE,
         f"{where}: bad hparams.storage {storage!r}")
    hp["storage"] = storage
    return hp


def load_elementwise(path, algorithms, hex_keys, bool_keys, state_names):
    """Loads an element-wise family (Adam, SGD, Lion and their mixed-precision forms) of one of
    `algorithms` ({algorithm: profile or None for any}); hex_keys(alg), bool_keys(alg) and
    state_names(alg, hp) say what its groups hold. Raises Malformed, OSError."""
    doc = load_doc(path)
    alg = doc.get("algorithm")
    need(alg in algorithms, f"algorithm {alg!r} is not one of {sorted(algorithms)}")
    need(algorithms[alg] in (None, doc.get("profile")),
         f"profile {doc.get('profile')!r} is not {algorithms[alg]}")
    need(isinstance(doc.get("tensors"), str), "tensors is not a file name")
    tensors = read_safetensors(os.path.join(os.path.dirname(path), doc["tensors"]))
    groups = doc.get("testGroups")
    need(isinstance(groups, list), "testGroups is not a list")
    cases, seen = [], set()
    for gi, group in enumerate(groups):
        need(isinstance(group, dict) and isinstance(group.get("tests"), list),
             f"testGroups[{gi}] has no tests list")
        hp = parse_hparams(group.get("hparams"), hex_keys(alg), bool_keys(alg), f"testGroups[{gi}]")
        st = hp["storage"]
        names = [("p", STORAGE[st["param"]])] + ([("master", "F32")] if st["param"] != "f32" else [])
        names += [(n, STORAGE[st["state"]]) for n in state_names(alg, hp)[1:]] + [("g", "F32")]
        for tc in group["tests"]:
            need(isinstance(tc, dict) and type(tc.get("tcId")) is int, f"testGroups[{gi}]: bad tcId")
            where = f"tcId {tc['tcId']}"
            need(tc["tcId"] not in seen, f"{where}: duplicate tcId")  # VEC-FMT-2
            seen.add(tc["tcId"])
            for k in ("n", "firstStep", "steps"):
                need(type(tc.get(k)) is int, f"{where}: {k} missing or not an integer")
            n, steps = tc["n"], tc["steps"]
            need(n >= 0 and steps >= 1, f"{where}: needs n >= 0 and steps >= 1")
            need(tc.get("result") in ("valid", "invalid", "acceptable"), f"{where}: bad result")
            refs = tc.get("inputs")
            need(isinstance(refs, dict), f"{where}: inputs is not an object")
            arrs = {}
            for name, dtype in names:
                key = refs.get(name)
                need(isinstance(key, str) and key in tensors,
                     f"{where}: input {name} ({key!r}) not in the tensors file")
                t = tensors[key]
                shape = (steps, n) if name == "g" else (n,)
                need(t.dtype == dtype and t.array.shape == shape,
                     f"{where}: input {name} is {t.dtype}{list(t.array.shape)}, want {dtype}{list(shape)}")
                arrs[name] = t
            resume_at = tc.get("resumeAt", -1)
            need("resumeAt" not in tc or (type(resume_at) is int and 0 <= resume_at <= steps),
                 f"{where}: resumeAt must be an integer in [0, steps] (VEC-FMT-20)")
            cases.append(Case(tc["tcId"], hp, tc["firstStep"], steps, arrs, resume_at, tc["result"]))
    return Family(doc["family"], alg, doc.get("profile"), cases)
