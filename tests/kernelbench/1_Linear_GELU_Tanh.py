import torch
import torch.nn as nn


class Model(nn.Module):
    """Test problem in KernelBench's format: a linear layer, then GELU, then a scaled tanh."""

    def __init__(self, in_features, out_features, scale):
        super(Model, self).__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x):
        x = self.linear(x)
        x = torch.nn.functional.gelu(x)
        return torch.tanh(x) * self.scale


batch_size = 8
in_features = 48
out_features = 24
scale = 1.5


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, scale]
