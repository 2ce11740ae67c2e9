"""Test task in robust-kbench's shape, broken the way upstream's mnist_pool forward is: its config
passes `kernel_size` to a Model() that takes no arguments. The forward direction cannot be
exported (kforge says why) while the backward direction of the same task can."""
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
