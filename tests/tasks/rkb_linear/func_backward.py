"""Test task in robust-kbench's shape: linear layer backward. forward saves x and the weights
only; backward_fn gets grad_output, x and weights and returns the gradients of x, weights and
biases (the last from grad_output alone)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class AutogradFunction(torch.autograd.Function):
    backward_fn = None

    @staticmethod
    def forward(ctx, x, weights, biases):
        ctx.save_for_backward(x, weights)
        return F.linear(x, weights, biases)

    @staticmethod
    def backward(ctx, grad_output):
        x, weights = ctx.saved_tensors
        grad_input, grad_weights, grad_biases = AutogradFunction.backward_fn(grad_output, x, weights)
        return grad_input, grad_weights, grad_biases


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


def get_inputs(batch_size: int = 16, num_input_features: int = 64):
    x = torch.randn(batch_size, num_input_features, requires_grad=True)
    return [x]


input_names = ["x"]
