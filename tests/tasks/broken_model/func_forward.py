"""Test task that cannot be exported: its config passes `kernel_size` to a Model() that takes no
arguments (the mistake of upstream robust-kbench's mnist_pool forward config). An experiment
with it and a good task ends the good task with its best kernel and says why this one has none."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def forward_fn(x: torch.Tensor) -> torch.Tensor:
    return F.max_pool2d(x, kernel_size=2)


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, fn=forward_fn) -> torch.Tensor:
        return fn(x)


def get_inputs(batch_size: int = 4, in_channels: int = 3, height: int = 8, width: int = 8):
    return [torch.randn(batch_size, in_channels, height, width)]


input_names = ["x"]
