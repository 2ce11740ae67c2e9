"""Test task whose reference starts threads only on its large config: forward_fn forks half of its
work with torch.jit.fork there, and the TorchScript interpreter runs forks on LibTorch's inter-op
thread pool, which it creates on first use. An honest kernel that starts no thread must not be
blamed for those threads."""
import torch
import torch.nn as nn


def half(x: torch.Tensor) -> torch.Tensor:
    return x * 0.5


def forward_fn(x: torch.Tensor) -> torch.Tensor:
    """y = x * 0.5 + x * 0.5, the first half forked when x is large."""
    if x.numel() > 100000:
        future = torch.jit.fork(half, x)
        return torch.jit.wait(future) + x * 0.5
    return x * 0.5 + x * 0.5


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, fn=forward_fn):
        return fn(x)


def get_inputs(rows: int = 4, cols: int = 8):
    return [torch.randn(rows, cols)]


input_names = ["x"]
