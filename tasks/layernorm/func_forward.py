"""LayerNorm over the last dimension, forward. Weights are initialised two ways (init_method)."""
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F


def forward_fn(
    x: torch.Tensor,
    weight: torch.Tensor,
    bias: torch.Tensor,
    normalized_shape: List[int],
    eps: float,
) -> torch.Tensor:
    return F.layer_norm(x, normalized_shape, weight, bias, eps)


class Model(nn.Module):
    def __init__(self, num_features: int = 1024, eps: float = 1e-5, init_method: str = "affine_default"):
        super().__init__()
        self.normalized_shape = [num_features]
        self.eps = eps
        self.weight = nn.Parameter(torch.empty(num_features))
        self.bias = nn.Parameter(torch.empty(num_features))
        if init_method == "affine_default":
            nn.init.ones_(self.weight)
            nn.init.zeros_(self.bias)
        elif init_method == "normal":
            nn.init.normal_(self.weight, mean=1.0, std=0.1)
            nn.init.normal_(self.bias, mean=0.0, std=0.1)
        else:
            raise ValueError(f"unknown init_method {init_method}")

    def forward(self, x, fn=forward_fn):
        return fn(x, self.weight, self.bias, self.normalized_shape, self.eps)


def get_inputs(batch_size: int = 64, num_features: int = 1024):
    return [torch.randn(batch_size, num_features) * 2.0 + 0.5]


input_names = ["x"]
