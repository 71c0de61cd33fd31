#!/usr/bin/env python3
"""LAYOUT-OFFLOAD-1, -2 against Megatron's own code.

Runs HybridDeviceOptimizer._get_sub_optimizer_param_groups from the installed megatron-core
(megatron/core/optimizer/cpu_offloading/hybrid_optimizer.py, loaded by path: the file imports
only torch) unchanged, on stand-in parameters: objects that answer is_cuda, numel(), dtype and
the detach/clone/cpu/pin_memory/float chain the function calls, since real CUDA tensors need
a GPU. Its offloaded parameters (the keys of gpu_params_map_cpu_copy) are compared with
fast/tests/offload_split_tool.c's split, for parameter lists and fractions, and for the pieces
each rank owns under every layout (walked in flat order, LAYOUT-OFFLOAD-2).

    offload_megatron.py PATH/TO/offload_split
Exit 0 iff every case agrees; 2 on bad usage or when megatron-core is missing.
"""
import importlib.util
import random
import subprocess
import sys
import types

import torch


class StandIn:
    """A parameter as _get_sub_optimizer_param_groups sees it."""

    def __init__(self, numel, dtype=torch.bfloat16, cuda=True):
        self.n, self.dtype, self.is_cuda = numel, dtype, cuda

    def numel(self):
        return self.n

    def detach(self):
        return self

    def clone(self):
        return StandIn(self.n, self.dtype, self.is_cuda)

    def cpu(self):
        return StandIn(self.n, self.dtype, False)

    def pin_memory(self):
        return self

    def float(self):
        return StandIn(self.n, torch.float32, self.is_cuda)


def megatron_split_fn():
    spec = importlib.util.find_spec("megatron")
    if spec is None or not spec.submodule_search_locations:
        print("megatron-core is not installed (ci/setup-python.sh)", file=sys.stderr)
        sys.exit(2)
    path = spec.submodule_search_locations[0] + "/core/optimizer/cpu_offloading/hybrid_optimizer.py"
    mspec = importlib.util.spec_from_file_location("hybrid_optimizer", path)
    module = importlib.util.module_from_spec(mspec)
    mspec.loader.exec_module(module)
    return module.HybridDeviceOptimizer._get_sub_optimizer_param_groups


def megatron_flags(fn, numels, fraction, groups=1):
    """Megatron's split of numels (in that order, cut into `groups` param groups)."""
    params = [StandIn(n) for n in numels]
    cut = [len(params) * g // groups for g in range(groups + 1)]
    owner = types.SimpleNamespace(
        param_groups=[{"params": params[cut[g]:cut[g + 1]], "lr": 1.0} for g in range(groups)],
        param_update_in_fp32=True, pin_cpu_params=True)
    _, _, gpu_params_map_cpu_copy, _, _ = fn(owner, fraction)
    return [int(p in gpu_params_map_cpu_copy) for p in params]


def run_tool(tool, args):
    out = subprocess.run([tool] + [str(a) for a in args], capture_output=True, text=True)
    return out.returncode, out.stdout, out.stderr


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    tool, fn = sys.argv[1], megatron_split_fn()
    rng = random.Random(21)
    lists = [[10, 10, 10, 10], [1], [7, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 7],
             [3072 * 768, 768, 768 * 768, 768, 50257 * 768], [5, 0, 5, 0, 5]]
    lists += [[rng.choice([1, 3, 64, 768, 4096, 65536, 3 * 2 ** 20]) for _ in range(rng.randint(2, 40))]
              for _ in range(40)]
    fractions = [0.0, 0.3, 0.5, 1.0, 0.25, 0.1, 0.7, 0.9999, 1e-9, 0.5 + 2 ** -40]
    cases = bad = 0
    for numels in lists:
        for fraction in fractions:
            rc, out, err = run_tool(tool, [repr(fraction)] + numels)
            got = [int(x) for x in out.split()] if rc == 0 else None
            for groups in (1, 2, 3):
                want = megatron_flags(fn, numels, fraction, groups)
                cases += 1
                if got != want:
                    bad += 1
                    print(f"DIFFERS: numel {numels} fraction {fraction!r} groups {groups}: "
                          f"megatron {want}, optcert {got} {err.strip()}")
    # LAYOUT-OFFLOAD-2: each rank's owned pieces, in flat order, are the optimizer's parameters
    layout_cases = 0
    for kind in ("replicated", "zero1-flat", "fsdp2-dim0", "layerwise", "layerwise-lpt",
                 "layerwise-numel"):
        for dp in (1, 2, 3, 8):
            for fraction in (0.0, 0.3, 0.5, 1.0, 0.7):
                rc, out, err = run_tool(tool, [repr(fraction), "--layout", kind, dp])
                rows = [tuple(int(x) for x in line.split()) for line in out.splitlines()]
                if rc != 0 or not rows:
                    bad += 1
                    print(f"DIFFERS: {kind} dp={dp}: the tool failed: {err.strip()}")
                    continue
                for r in range(dp):
                    mine = sorted((flat, numel, host) for rank, flat, numel, host in rows if rank == r)
                    want = megatron_flags(fn, [numel for _, numel, _ in mine], fraction)
                    layout_cases += 1
                    if [host for _, _, host in mine] != want:
                        bad += 1
                        print(f"DIFFERS: {kind} dp={dp} rank {r} fraction {fraction}: megatron "
                              f"{want}, optcert {[h for _, _, h in mine]}")
    # outside [0, 1] the library refuses (Megatron would take > 1 as 1 and < 0 or NaN as 0)
    for fraction in ("1.5", "-0.1", "nan", "x"):
        rc, _, _ = run_tool(tool, [fraction, 1, 2])
        cases += 1
        if rc != 2:
            bad += 1
            print(f"DIFFERS: fraction {fraction} accepted (status {rc})")
    print(f"offload split vs Megatron's _get_sub_optimizer_param_groups: {cases} list cases, "
          f"{layout_cases} layout ranks, {bad} differ")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
