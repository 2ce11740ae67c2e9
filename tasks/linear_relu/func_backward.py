"""Linear layer followed by ReLU, backward: gradients of relu(x @ weight.T + bias) with respect to
x, weight and bias, given the gradient of the output. In robust-kbench's shape: backward_fn is
the candidate's, the reference is autograd through forward_fn.

Forward saves its output, and backward_fn masks with `output > 0` as autograd does for ReLU. It
does not recompute the pre-activation: a kernel that sums in another order than the reference would
flip the mask wherever the pre-activation is within rounding of zero, and no tolerance fixes that."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class AutogradFunction(torch.autograd.Function):
    backward_fn = None

    @staticmethod
    def forward(ctx, x, weight, bias):
        output = F.relu(F.linear(x, weight, bias))
        ctx.save_for_backward(x, weight, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        x, weight, output = ctx.saved_tensors
        grad_x, grad_weight, grad_bias = AutogradFunction.backward_fn(grad_output, x, weight, output)
        return grad_x, grad_weight, grad_bias


def forward_fn(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return F.relu(F.linear(x, weight, bias))


class Model(nn.Module):
    def __init__(self, in_features: int = 512, out_features: int = 512):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.bias = nn.Parameter(torch.empty(out_features))
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        bound = 1.0 / math.sqrt(in_features)
        nn.init.uniform_(self.bias, -bound, bound)

    def forward(self, x, fn=forward_fn):
        return fn(x, self.weight, self.bias)


def get_inputs(batch_size: int = 128, in_features: int = 512):
    return [torch.randn(batch_size, in_features, requires_grad=True)]


input_names = ["x"]
