import torch
import torch.nn as nn


class Model(nn.Module):
    """Test problem in KernelBench's format, a model with buffers: batch norm (running statistics
    and a step counter) and a fixed lower-triangular mask registered as a buffer."""

    def __init__(self, features, length):
        super(Model, self).__init__()
        self.bn = nn.BatchNorm1d(features)
        self.register_buffer("mask", torch.tril(torch.ones(length, length)))

    def forward(self, x):
        y = self.bn(x)
        return y @ self.mask


batch_size = 6
features = 5
length = 7


def get_inputs():
    return [torch.randn(batch_size, features, length)]


def get_init_inputs():
    return [features, length]
