"""Test task in robust-kbench's shape (its unet_linear's): a linear layer without activation on
tokens, y = x @ W^T + b where x is batch x (height * width) x features."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def forward_fn(x: torch.Tensor, weights: torch.Tensor, biases: torch.Tensor) -> torch.Tensor:
    """y = x @ W^T + b"""
    return F.linear(x, weights, biases)


class Model(torch.nn.Module):
    def __init__(self, num_input_features: int = 64, num_output_features: int = 32, init_method: str = "normal"):
        super().__init__()
        self.linear = torch.nn.Linear(num_input_features, num_output_features)
        if init_method == "kaiming":
            nn.init.kaiming_uniform_(self.linear.weight, a=math.sqrt(5))
        elif init_method == "xavier":
            nn.init.xavier_normal_(self.linear.weight)
        elif init_method == "normal":
            nn.init.normal_(self.linear.weight)
        nn.init.normal_(self.linear.bias, mean=0.0, std=0.1)
        self.weights = nn.Parameter(self.linear.weight.data.clone(), requires_grad=True)
        self.biases = nn.Parameter(self.linear.bias.data.clone(), requires_grad=True)

    def forward(self, x, fn=forward_fn):
        return fn(x, self.weights, self.biases)


def get_inputs(batch_size: int = 16, num_input_features: int = 64, height: int = 4, width: int = 4):
    x = torch.randn(batch_size, height * width, num_input_features)
    return [x]


input_names = ["x"]
