#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz harnesses (conformance/fuzz/<harness>/corpus/) and the
small families the results and table harnesses load (conformance/fuzz/families/), all derived
from the shipped vectors: per family the smallest valid case and the smallest other case, with
only the tensors they name. Deterministic; run from anywhere:

    python3 conformance/fuzz/make_corpus.py
"""
import copy
import json
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
VEC = os.path.join(ROOT, "vectors")
OUT = os.path.dirname(os.path.abspath(__file__))


def read_st(path):
    with open(path, "rb") as f:
        b = f.read()
    (hlen,) = struct.unpack("<Q", b[:8])
    return json.loads(b[8:8 + hlen]), b[8 + hlen:]


def write_st(entries, meta=None):
    """entries: [(key, dtype, shape, raw bytes)] -> safetensors bytes."""
    header, data, off = {}, b"", 0
    if meta:
        header["__metadata__"] = meta
    for key, dt, shape, raw in entries:
        header[key] = {"dtype": dt, "shape": shape, "data_offsets": [off, off + len(raw)]}
        data += raw
        off += len(raw)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + data


def strings(x):
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from strings(v)


def small_family(name):
    """(doc, tensors {key: (dtype, shape, raw)}) with at most two cases."""
    doc = json.load(open(os.path.join(VEC, name, name + ".json")))
    header, data = ({}, b"")
    if doc.get("tensors"):
        header, data = read_st(os.path.join(VEC, name, doc["tensors"]))

    def refs(t):
        return [s for s in strings(t) if s in header and s != "__metadata__"]

    def cost(t):
        return sum(header[k]["data_offsets"][1] - header[k]["data_offsets"][0] for k in refs(t)) \
            + len(json.dumps(t))

    picks = []
    for want_valid in (True, False):
        best = None
        for gi, g in enumerate(doc["testGroups"]):
            for t in g["tests"]:
                if (t.get("result") == "valid") == want_valid and (best is None or cost(t) < best[0]):
                    best = (cost(t), gi, t)
        if best:
            picks.append(best)
    small = copy.deepcopy(doc)
    groups = {}
    for _, gi, t in picks:
        groups.setdefault(gi, []).append(t)
    small["testGroups"] = []
    for gi in sorted(groups):
        g = copy.deepcopy(doc["testGroups"][gi])
        g["tests"] = groups[gi]
        small["testGroups"].append(g)
    small["numberOfTests"] = sum(len(v) for v in groups.values())
    tensors = {}
    for _, _, t in picks:
        for k in refs(t):
            e = header[k]
            b, en = e["data_offsets"]
            tensors[k] = (e["dtype"], e["shape"], data[b:en])
    return small, tensors


def write(path, b):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b)


def main():
    names = sorted(n for n in os.listdir(VEC) if os.path.isfile(os.path.join(VEC, n, n + ".json")))
    for name in names:
        doc, tensors = small_family(name)
        st = b""
        if doc.get("tensors"):
            doc["tensors"] = "t.safetensors"
            st = write_st([(k, *v) for k, v in sorted(tensors.items())])
            write(os.path.join(OUT, "safetensors", "corpus", name + ".safetensors"), st)
        js = json.dumps(doc, indent=1).encode()
        # the vector harness: 4-byte little-endian length of the JSON, the JSON, the tensors file
        write(os.path.join(OUT, "vectors", "corpus", name), struct.pack("<I", len(js)) + js + st)
        # the families the results and table harnesses load
        fam = os.path.join(OUT, "families", name)
        write(os.path.join(fam, name + ".json"), js)
        if st:
            write(os.path.join(fam, "t.safetensors"), st)
        # a results file: every output of the valid cases as the expected stored values
        if not st:
            continue
        meta = {"impl": "seed", "implVersion": "1", "adapter": "make_corpus.py"}
        entries = []
        for g in doc["testGroups"]:
            for t in g["tests"]:
                tc = t["tcId"]
                meta[f"status/{name}/{tc}"] = "ok" if t.get("result") == "valid" else "rejected"
                if t.get("result") != "valid":
                    continue
                if "route" in t.get("expected", {}):
                    meta[f"route/{name}/{tc}"] = str(t["expected"]["route"])
                for out, e in t.get("expected", {}).items():
                    if not isinstance(e, dict):
                        continue
                    key = next((e[k] for k in ("f32", "bf16", "f16", "stored") if k in e), None)
                    if key in tensors:
                        entries.append((f"{name}/{tc}/{out}", *tensors[key]))
        write(os.path.join(OUT, "results", "corpus", name + ".safetensors"), write_st(entries, meta))
    # the table harness: a capability word, an ABI version, the entry-point mask, flags, the
    # family (its index in sorted order) and the statuses the stubs return
    # (conformance/fuzz/fuzz_impl_table.c); one table like the reference's per family, so that
    # every family is reached from the start
    def table(caps, abi, mask, flags, family, rest):
        return struct.pack("<QIIBB", caps, abi, mask, flags, names.index(family)) + rest

    full = (1 << 64) - 1
    seeds = {
        "no-caps": table(0, 2, 0xFFFFFFFF, 0, names[0], bytes(32)),
        "caps-no-entries": table(full, 2, 0, 0, names[0], bytes(32)),
        "bad-abi": table(full, 1, 0xFFFFFFFF, 0, names[0], bytes(32)),
        "odd-statuses": table(full, 2, 0xFFFFFFFF, 3, names[0],
                              bytes([*range(16), 0x7F, 0x80, 0xFF] * 2)),
        # found by the harness (commit dc73e8c): a route outside oc_route from the routed step
        "regress-route-outside-enum": table(
            0x02FFFFFFFFFFFFFF, 2, 0xFFFFFFFF, 0, "muon-route-megatron",
            bytes.fromhex("00ffff00000000000000000000000000"
                          "20ffffffff0000200000000000")),
    }
    for name in names:
        seeds["ref-like-" + name] = table(full, 2, 0xFFFFFFFF, 0, name, bytes(32))
    for k, v in seeds.items():
        write(os.path.join(OUT, "impl_table", "corpus", k), v)

if __name__ == "__main__":
    main()
