"""CKPT-FMT-1 read by outside code: every checkpoint under DIR (one per layout kind, as
mpi_ckpt save writes them) opened with the safetensors library and hashlib, not optcert's reader.
Checks: the index's format and version; every shard's size and SHA-256; every piece's tensors
(master and each state the sub-optimizer lists) 1-D float32 of the piece's length; the pieces of
each parameter tiling it in start order; no tensor in a shard that the index does not name.
Exit 0 all hold, 1 one does not (named), 77 no safetensors module here (ctest: skipped)."""
import hashlib
import json
import os
import sys

try:
    import numpy as np
    from safetensors.numpy import load_file
except ImportError:
    sys.exit(77)


def check(d):
    with open(os.path.join(d, "index.json")) as f:
        index = json.load(f)
    assert index["format"] == "optcert-checkpoint" and index["version"] == 1, "format"
    shards = {}
    for name, want in index["shards"].items():
        with open(os.path.join(d, name), "rb") as f:
            data = f.read()
        assert len(data) == want["size"], f"{name}: size"
        assert hashlib.sha256(data).hexdigest() == want["sha256"], f"{name}: sha256"
        shards[name] = load_file(os.path.join(d, name))
    named = set()
    for pname, p in index["params"].items():
        states = index["subs"][p["sub"]]["states"]
        at = 0
        for piece in p["pieces"]:
            assert piece["start"] == at, f"{pname}: pieces do not tile it"
            for field in ["master"] + states:
                key = piece["key"] + "/" + field
                t = shards[piece["shard"]][key]
                assert t.dtype == np.float32 and t.shape == (piece["len"],), f"{key}: shape"
                named.add((piece["shard"], key))
            at += piece["len"]
        assert at == p["shape"][0] * p["shape"][1], f"{pname}: pieces do not tile it"
    every = {(s, k) for s, tensors in shards.items() for k in tensors}
    assert named == every, f"tensors outside the index: {sorted(every - named)[:3]}"
    return len(index["params"]), len(shards)


def main():
    root = sys.argv[1]
    for kind in sorted(os.listdir(root)):
        try:
            params, nshards = check(os.path.join(root, kind))
        except (AssertionError, KeyError, OSError, ValueError) as e:
            print(f"{root}/{kind}: {e}")
            return 1
        print(f"{root}/{kind}: {params} parameters in {nshards} shards read by safetensors: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
