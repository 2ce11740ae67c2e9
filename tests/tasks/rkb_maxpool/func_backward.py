"""Test task in robust-kbench's shape: 2x2 max pooling backward, where AutogradFunction.backward
passes ctx.saved_tensors itself (a tuple) as backward_fn's first argument, so the candidate's
backward takes a sequence of tensors, then grad_output."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class AutogradFunction(torch.autograd.Function):
    backward_fn = None

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return F.max_pool2d(x, kernel_size=2)

    @staticmethod
    def backward(ctx, grad_output):
        x = ctx.saved_tensors
        grad_input = AutogradFunction.backward_fn(x, grad_output)
        return grad_input


def forward_fn(x: torch.Tensor) -> torch.Tensor:
    """2x2 max pooling with stride 2 over (batch, channels, height, width)."""
    return F.max_pool2d(x, kernel_size=2)


class Model(nn.Module):
    def __init__(self, kernel_size: int = 2):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor, fn=forward_fn) -> torch.Tensor:
        return fn(x)


def get_inputs(batch_size: int = 4, in_channels: int = 3, height: int = 8, width: int = 8):
    x = torch.randn(batch_size, in_channels, height, width, requires_grad=True)
    return [x]


input_names = ["x"]
