"""What the adapters that run megatron-core's optimizer classes on the CPU share
(megatron_clip.py, megatron_step.py): Megatron's code asks for tensors on 'cuda' and checks
`Tensor.type()` against the CUDA names, and its collectives go through torch.distributed.

Importing this module, before megatron.core: torch.zeros and torch.tensor with device='cuda'
make CPU tensors; a CPU tensor's type() answers with the CUDA name Megatron's asserts expect
(float32, float16, bfloat16); torch.distributed.all_reduce and get_rank go to the stand-in
process groups below (`Group`), whose ranks are threads naming themselves in `here`."""
import threading
import typing

import torch
import typing_extensions

# megatron.core.optimizer imports emerging_optimizers where it is installed, which imports
# typing.override (Python 3.12); on 3.11 it comes from typing_extensions
if not hasattr(typing, "override"):
    typing.override = typing_extensions.override

CUDA_TYPES = {"torch.FloatTensor": "torch.cuda.FloatTensor",
              "torch.HalfTensor": "torch.cuda.HalfTensor",
              "torch.BFloat16Tensor": "torch.cuda.BFloat16Tensor"}


def on_cpu(make):
    """torch.zeros / torch.tensor with device='cuda' made on the CPU."""
    def wrapped(*args, device=None, **kwargs):
        return make(*args, device="cpu" if str(device).startswith("cuda") else device, **kwargs)
    return wrapped


def cuda_type(original):
    """Tensor.type(): a CPU tensor answers with the CUDA name Megatron's asserts expect."""
    def wrapped(self, *args, **kwargs):
        name = original(self, *args, **kwargs)
        return CUDA_TYPES.get(name, name) if not args and not kwargs else name
    return wrapped


torch.zeros = on_cpu(torch.zeros)
torch.tensor = on_cpu(torch.tensor)
torch.Tensor.type = cuda_type(torch.Tensor.type)
# The calling thread's rank: `rank` (a tuple naming it in its groups) and `index` (its number)
here = threading.local()


class Group:
    """A stand-in process group over the ranks (threads) `members`: rank(), size() and the
    all-reduce, which sums (or takes the maximum) over the members in their order. A
    tensor-parallel group's rank() is the TP rank itself (`tp_rank`: the first entry of the
    rank's tuple), whichever of its ranks take part."""

    def __init__(self, members, size=None, tp_rank=False):
        self.members = members
        self.barrier = threading.Barrier(max(len(members), 1), timeout=300)
        self.slots = {}
        self.tp_rank = tp_rank
        self.count = size or len(members)

    def rank(self):
        return here.rank[0] if self.tp_rank else self.members.index(here.rank)

    def size(self):
        return self.count

    def all_reduce(self, tensor, op):
        self.slots[here.rank] = tensor.clone()
        self.barrier.wait()
        total = self.slots[self.members[0]].clone()
        for r in self.members[1:]:
            v = self.slots[r]
            total = torch.maximum(total, v) if op == torch.distributed.ReduceOp.MAX else total + v
        self.barrier.wait()
        tensor.copy_(total)


def all_reduce(tensor, op=torch.distributed.ReduceOp.SUM, group=None, async_op=False):
    group.all_reduce(tensor, op)


torch.distributed.all_reduce = all_reduce
# MegatronOptimizer names the rank in its warnings
torch.distributed.get_rank = lambda group=None: here.index


def version():
    """The versions a results file names (VEC-RES-2): megatron-core's and torch's."""
    from megatron.core import package_info
    return f"megatron-core {package_info.__version__}, torch {torch.__version__} (CPU)"
