"""Test task that a benchmark should not contain: the output hardly depends on the input `x`
(it is squashed to a constant) and `unused` has no effect at all."""
import torch
import torch.nn as nn


def forward_fn(x: torch.Tensor, unused: torch.Tensor) -> torch.Tensor:
    return torch.zeros_like(x) + x.sum() * 0.0 + 1.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, unused, fn=forward_fn):
        return fn(x, unused)


def get_inputs(n: int = 64):
    return [torch.randn(n), torch.randn(n)]


input_names = ["x", "unused"]
