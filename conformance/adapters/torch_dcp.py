#!/opt/optcert-torch2/bin/python
"""optcert adapter: resume torch.optim across a torch.distributed.checkpoint reshard (2 -> 3 ranks).

spec/checkpoint.md §5, "Reshard through torch.distributed.checkpoint".

The resume families of one fp32 tensor (resume-adam-torch, resume-sgd-torch; spec/checkpoint.md
§5) run with torch's own distributed machinery on CPU, gloo: the parameter is a DTensor sharded
on dim 0 (`Shard(0)`, the layout FSDP2 gives a parameter) over a device mesh of SAVE ranks, held
by a module, stepped by torch.optim's Adam/AdamW or SGD (their DTensor state is sharded alike).
After resumeAt updates the SAVE ranks write `{"model": get_model_state_dict(module), "optim":
get_optimizer_state_dict(module, optimizer)}` with `torch.distributed.checkpoint.save`. A new
job of LOAD ranks builds a fresh module (parameter filled with NaN, sharded over LOAD ranks) and
optimizer, reads the checkpoint with `torch.distributed.checkpoint.load` into its own state
dicts (each rank reads the pieces of its shard: the reshard is DCP's), applies them with
`set_model_state_dict` / `set_optimizer_state_dict`, and continues. The state after each
update is gathered with `DTensor.full_tensor()`; the restored state is the row of update
resumeAt (VEC-RESUME-1). The same case run without the break on the SAVE ranks gives
`unbroken/<family>/<tcId>` (VEC-RES-6). Nothing is judged here: `optcert judge` does.

    /opt/optcert-torch2/bin/python conformance/adapters/torch_dcp.py \\
        --vectors vectors/resume-adam-torch/resume-adam-torch.json --out results.safetensors \\
        [--save-world 2] [--load-world 3]
Exit status: 0 on success, 2 on malformed input.
"""
import argparse
import os
import pickle
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "src"))
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.distributed.checkpoint as dcp  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402
from torch.distributed.checkpoint.state_dict import (  # noqa: E402
    get_model_state_dict, get_optimizer_state_dict, set_model_state_dict,
    set_optimizer_state_dict)
from torch.distributed.device_mesh import init_device_mesh  # noqa: E402
from torch.distributed.tensor import Shard, distribute_tensor  # noqa: E402

import optcert.torch as oct  # noqa: E402
from optcert import write_results  # noqa: E402
from optcert.vectors import Malformed  # noqa: E402

ADAPTER = "optcert torch_dcp.py 1 (optcert.torch)"
FACTORY = {"adam": lambda hp: torch.optim.AdamW if hp["decoupled"] else torch.optim.Adam,
           "sgd": lambda hp: torch.optim.SGD}


def load(path):
    return oct.load_elementwise(path, {"adam": "torch", "sgd": "torch"}, oct._HEX.get,
                                lambda alg: oct._BOOL[alg], oct.state_names)


class Holder(torch.nn.Module):
    """The module DCP's state-dict functions take: one parameter."""

    def __init__(self, p):
        super().__init__()
        self.p = torch.nn.Parameter(p)


def build(alg, case, mesh, param):
    """A module over `param` sharded on dim 0 of mesh, its optimizer, and the case's input
    state (as optcert.torch sets it: torch.optim's keys, step = firstStep - 1; SGD from step 1
    has no state yet)."""
    hp, x = case.hparams, {n: oct._tensor(t) for n, t in case.inputs.items()}
    mapping = oct.mapping_for(FACTORY[alg](hp), alg)
    module = Holder(distribute_tensor(param, mesh, [Shard(0)]))
    opt = FACTORY[alg](hp)([module.p], **mapping.kwargs(hp))
    if alg != "sgd" or case.first_step > 1:
        state = {key: distribute_tensor(x[name], mesh, [Shard(0)])
                 for name, key in mapping.state.items() if name in x}
        if mapping.step:
            state[mapping.step] = torch.tensor(float(case.first_step - 1))
        opt.state[module.p] = state
    return module, opt, mapping, x


def row(module, opt, mapping):
    """The whole state after an update, gathered (a collective: every rank calls it)."""
    out = {"p": module.p.detach().full_tensor()}
    for name, key in mapping.state.items():
        if opt.state[module.p].get(key) is not None:
            out[name] = opt.state[module.p][key].full_tensor()
    return out


def steps(module, opt, mapping, x, first, last):
    rows = []
    for k in range(first, last):
        module.p.grad = distribute_tensor(x["g"][k].clone(), module.p.device_mesh, [Shard(0)])
        opt.step()
        rows.append(row(module, opt, mapping))
    return rows


def state_dicts(module, opt):
    return {"model": get_model_state_dict(module), "optim": get_optimizer_state_dict(module, opt)}


def worker(rank, world, phase, workdir, fam_path):
    dist.init_process_group("gloo", init_method=f"file://{workdir}/rendezvous-{phase}", rank=rank,
                            world_size=world)
    mesh = init_device_mesh("cpu", (world,))
    fam, out = load(fam_path), {}
    for case in fam.cases:
        ckpt = os.path.join(workdir, f"ckpt-{case.tc_id}")
        if phase == "save":
            x0 = {n: oct._tensor(t) for n, t in case.inputs.items()}
            module, opt, mapping, x = build(fam.algorithm, case, mesh, x0["p"])
            whole = steps(module, opt, mapping, x, 0, case.steps)
            module, opt, mapping, x = build(fam.algorithm, case, mesh, x0["p"])
            before = steps(module, opt, mapping, x, 0, case.resume_at)
            dcp.save(state_dicts(module, opt), checkpoint_id=ckpt)
            out[case.tc_id] = (whole, before)
        else:
            nan = torch.full((case.inputs["p"].array.shape[0],), float("nan"))
            module, opt, mapping, x = build(fam.algorithm, case, mesh, nan)
            opt.state.clear()  # the fresh optimizer has no state: DCP's functions create it
            sd = state_dicts(module, opt)
            dcp.load(sd, checkpoint_id=ckpt)
            set_model_state_dict(module, sd["model"])
            set_optimizer_state_dict(module, opt, sd["optim"])
            restored = row(module, opt, mapping)
            out[case.tc_id] = (restored, steps(module, opt, mapping, x, case.resume_at, case.steps))
    if rank == 0:
        with open(os.path.join(workdir, f"{phase}.pickle"), "wb") as f:
            pickle.dump(out, f)
    dist.barrier()
    dist.destroy_process_group()


def run_phase(phase, world, workdir, fam_path):
    mp.spawn(worker, args=(world, phase, workdir, fam_path), nprocs=world, join=True)
    with open(os.path.join(workdir, f"{phase}.pickle"), "rb") as f:
        return pickle.load(f)


def stack(rows):
    return {name: torch.stack([r[name] for r in rows]) for name in rows[0]}


def same(a, b):
    return a.keys() == b.keys() and all(torch.equal(a[k].view(torch.int32), b[k].view(torch.int32))
                                        for k in a)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vectors", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--save-world", type=int, default=2)
    ap.add_argument("--load-world", type=int, default=3)
    args = ap.parse_args(argv)
    try:
        fam = load(args.vectors)
        if any(c.resume_at < 0 or "master" in c.inputs for c in fam.cases):
            raise Malformed("needs a resume family of fp32 tensors (resumeAt in every case)")
    except (Malformed, OSError) as e:
        print(f"torch_dcp: malformed input {args.vectors}: {e}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="optcert-dcp-") as workdir:
        saved = run_phase("save", args.save_world, workdir, os.path.abspath(args.vectors))
        loaded = run_phase("load", args.load_world, workdir, os.path.abspath(args.vectors))
    results, statuses, unbroken = {}, {}, {}
    for case in fam.cases:
        whole, before = saved[case.tc_id]
        restored, after = loaded[case.tc_id]
        rows = before[:-1] + [restored] + after if case.resume_at else after
        resumed = stack(rows)
        for name, arr in resumed.items():
            results[(case.tc_id, name)] = arr.numpy()
        statuses[case.tc_id] = "ok"
        unbroken[case.tc_id] = "identical" if same(resumed, stack(whole)) else "differs"
    impl = ",".join(sorted({f"{f.__module__}.{f.__qualname__}" for c in fam.cases
                            for f in [FACTORY[fam.algorithm](c.hparams)]}))
    write_results(args.out, fam.name, results, statuses,
                      f"{impl} + torch.distributed.checkpoint (DTensor Shard(0), gloo, "
                      f"{args.save_world} -> {args.load_world} ranks)",
                      f"torch {torch.__version__}", ADAPTER, unbroken=unbroken)
    counts = {s: list(unbroken.values()).count(s) for s in ("identical", "differs")}
    print(f"torch_dcp: {fam.name}: {len(statuses)} ok, unbroken {counts}; torch {torch.__version__}, "
          f"{args.save_world} -> {args.load_world} ranks -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
