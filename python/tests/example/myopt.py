"""Optimizers of an imaginary project, for the tests of the pytest plugin (check_package.sh)."""
import torch


class MyAdamW(torch.optim.AdamW):
    """A subclass that changes nothing: it conforms wherever torch.optim.AdamW does."""


class SquaredEpsAdamW(torch.optim.AdamW):
    """A regression: eps squared before it reaches the update (eps**2 in the denominator)."""

    def __init__(self, params, eps=1e-8, **kw):
        super().__init__(params, eps=eps * eps, **kw)
