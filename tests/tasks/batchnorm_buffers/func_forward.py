"""Test task: BatchNorm in inference mode. Running statistics are buffers, the optional `skip`
argument is None, and weights are initialised by one of several methods."""
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


def forward_fn(x: torch.Tensor, running_mean: torch.Tensor, running_var: torch.Tensor, weight: torch.Tensor,
               bias: torch.Tensor, skip: Optional[torch.Tensor], eps: float, training: bool) -> torch.Tensor:
    y = F.batch_norm(x, running_mean, running_var, weight, bias, training, 0.1, eps)
    if skip is not None:
        y = y + skip
    return y


class Model(nn.Module):
    def __init__(self, num_features: int = 16, init_method: str = "default"):
        super().__init__()
        self.bn = nn.BatchNorm1d(num_features)
        if init_method == "uniform":
            nn.init.uniform_(self.bn.weight, 0.5, 1.5)
        self.eps = 1e-5

    def forward(self, x, fn=forward_fn):
        return fn(x, self.bn.running_mean, self.bn.running_var, self.bn.weight, self.bn.bias, None, self.eps, False)


def get_inputs(batch_size: int = 8, num_features: int = 16):
    return [torch.rand(batch_size, num_features) * 4.0 - 2.0]


input_names = ["x"]
