"""Test task: LayerNorm backward in the older shape that ships its own backward_fn (kforge checks
kernels against autograd through forward_fn all the same, and warns if the two disagree), where
backward_fn receives the integer tuple normalized_shape and the float eps next to tensors."""
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F


def forward_fn(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, normalized_shape: List[int],
               eps: float) -> torch.Tensor:
    return F.layer_norm(x, normalized_shape, weight, bias, eps)


def backward_fn(grad_output: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, normalized_shape: List[int],
                eps: float):
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    rstd = torch.rsqrt(var + eps)
    x_hat = (x - mean) * rstd
    g = grad_output * weight
    n = normalized_shape[0]
    grad_x = rstd / n * (n * g - g.sum(-1, keepdim=True) - x_hat * (g * x_hat).sum(-1, keepdim=True))
    return grad_x, (grad_output * x_hat).sum(0), grad_output.sum(0)


class AutogradFunction(torch.autograd.Function):
    backward_fn = backward_fn

    @staticmethod
    def forward(ctx, x, weight, bias, normalized_shape, eps):
        ctx.save_for_backward(x, weight)
        ctx.normalized_shape = normalized_shape
        ctx.eps = eps
        return forward_fn(x, weight, bias, normalized_shape, eps)

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        gx, gw, gb = AutogradFunction.backward_fn(grad_output, x, weight, ctx.normalized_shape, ctx.eps)
        return gx, gw, gb, None, None


class Model(nn.Module):
    def __init__(self, num_features: int = 32):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.normalized_shape = (num_features,)
        self.eps = 1e-5

    def forward(self, x, fn=AutogradFunction.apply):
        return fn(x, self.weight, self.bias, self.normalized_shape, self.eps)


def get_inputs(batch_size: int = 4, num_features: int = 32):
    return [torch.randn(batch_size, num_features, requires_grad=True)]


input_names = ["x"]
