"""Test task in robust-kbench's shape: LayerNorm backward over the trailing dimensions. backward_fn
is None (the candidate supplies it); forward saves x, weight and bias and keeps eps and
normalized_shape on ctx, and backward passes all of them with grad_output."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class AutogradFunction(torch.autograd.Function):
    backward_fn = None

    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        normalized_shape = tuple(x.shape[-len(weight.shape):])
        output = F.layer_norm(x, normalized_shape, weight, bias, eps)
        ctx.save_for_backward(x, weight, bias)
        ctx.eps = eps
        ctx.normalized_shape = normalized_shape
        return output

    @staticmethod
    def backward(ctx, grad_output):
        x, weight, bias = ctx.saved_tensors
        eps = ctx.eps
        normalized_shape = ctx.normalized_shape
        grad_input, grad_weight, grad_bias = AutogradFunction.backward_fn(
            grad_output, x, weight, bias, eps, normalized_shape
        )
        return grad_input, grad_weight, grad_bias, None


def forward_fn(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
    normalized_shape = tuple(x.shape[-len(weight.shape):])
    return F.layer_norm(x, normalized_shape=normalized_shape, weight=weight, bias=bias, eps=eps)


class Model(nn.Module):
    def __init__(self, num_features: int, width: int, eps: float = 1e-5, init_method: str = "standard"):
        super(Model, self).__init__()
        self.normalized_shape = (num_features, width)
        self.eps = eps
        if init_method == "standard":
            weight = torch.ones(self.normalized_shape)
            bias = torch.zeros(self.normalized_shape)
        elif init_method == "random":
            weight = torch.randn(self.normalized_shape)
            bias = torch.randn(self.normalized_shape)
        self.weight = nn.Parameter(weight, requires_grad=True)
        self.bias = nn.Parameter(bias, requires_grad=True)

    def forward(self, x: torch.Tensor, fn=forward_fn) -> torch.Tensor:
        return fn(x, self.weight, self.bias, self.eps)


def get_inputs(batch_size: int = 4, num_features: int = 8, width: int = 24):
    x = torch.randn(batch_size, num_features, width, requires_grad=True)
    return [x]


input_names = ["x"]
