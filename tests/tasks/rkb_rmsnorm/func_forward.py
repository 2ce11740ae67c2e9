"""Test task in robust-kbench's shape: RMSNorm as in LLaMA, computed in float32 and scaled by a
weight drawn around one (written without nn.RMSNorm, which needs torch >= 2.4)."""
import torch
import torch.nn as nn


def forward_fn(x: torch.Tensor, w: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    """RMSNorm(x) = x / sqrt(mean(x^2) + eps) * w over the last dimension."""
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
