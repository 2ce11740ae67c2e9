"""Test task in robust-kbench's shape whose float32 result overflows where float64's does not: the
exponential of logits scaled by `scale` passes float32's largest value (3.4e38) where scale * x >
88.72, which randn's draws do at scale 40 for about 1.3 % of elements (some 100 of 64 x 128);
float64's exponential is finite there (up to about 1e70). Eager's result is infinite at those
elements, so it misses float64 by more than any tolerance and the evaluator judges a kernel that
misses eager against float64 (docs/evaluator.md): an infinite miss of eager's must not excuse a
kernel's finite misses (tests/exploits/cpu_overflow)."""
import torch
import torch.nn as nn


def forward_fn(x: torch.Tensor, scale: float) -> torch.Tensor:
    return torch.exp(x * scale)


class Model(nn.Module):
    def __init__(self, scale: float = 40.0):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor, fn=forward_fn) -> torch.Tensor:
        return fn(x, self.scale)


def get_inputs(rows: int = 64, cols: int = 128):
    return [torch.randn(rows, cols)]


input_names = ["x"]
