"""Linear layer followed by ReLU, forward: relu(x @ weight.T + bias)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def forward_fn(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return F.relu(F.linear(x, weight, bias))


class Model(nn.Module):
    def __init__(self, in_features: int = 512, out_features: int = 512):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.bias = nn.Parameter(torch.empty(out_features))
        # The initialisation of nn.Linear.
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        bound = 1.0 / math.sqrt(in_features)
        nn.init.uniform_(self.bias, -bound, bound)

    def forward(self, x, fn=forward_fn):
        return fn(x, self.weight, self.bias)


def get_inputs(batch_size: int = 128, in_features: int = 512):
    return [torch.randn(batch_size, in_features)]


input_names = ["x"]
