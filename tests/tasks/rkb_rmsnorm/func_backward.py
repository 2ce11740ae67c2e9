"""Test task in robust-kbench's shape: RMSNorm backward where forward saves a tensor it computed
(the reciprocal RMS of each row) next to x and the weight, so the candidate's backward receives a
tensor that is neither an input nor the output: kforge recomputes it for every draw."""
import torch
import torch.nn as nn


class AutogradFunction(torch.autograd.Function):
    backward_fn = None

    @staticmethod
    def forward(ctx, x, w, eps=1e-8):
        rstd = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
        ctx.save_for_backward(x, w, rstd)
        return x * rstd * w

    @staticmethod
    def backward(ctx, grad_output):
        x, w, rstd = ctx.saved_tensors
        grad_input, grad_weight = AutogradFunction.backward_fn(grad_output, x, w, rstd)
        return grad_input, grad_weight, None


def forward_fn(x: torch.Tensor, w: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    x_fp32 = x.float()
    x_normed = (x_fp32 * torch.rsqrt(x_fp32.pow(2).mean(-1, keepdim=True) + eps)).type_as(x)
    return x_normed * w


class Model(nn.Module):
    def __init__(self, num_features: int, eps: float):
        super(Model, self).__init__()
        weight = torch.empty(num_features)
        weight.normal_(mean=1.0, std=0.1)
        self.w = nn.Parameter(weight, requires_grad=True)
        self.eps = eps

    def forward(self, x: torch.Tensor, fn=forward_fn) -> torch.Tensor:
        return fn(x, self.w, self.eps)


def get_inputs(batch_size: int = 4, num_tokens: int = 16, num_features: int = 64):
    x = torch.randn(batch_size, num_tokens, num_features, requires_grad=True)
    return [x]


input_names = ["x"]
