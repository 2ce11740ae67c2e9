"""Test task in robust-kbench's shape whose backward_fn is not given fn's input: forward saves the
normalised input and the inverse standard deviation (as a hand-written layer norm backward would
want them), so the gradients cannot be traced from what backward_fn gets; the kernel generator says
which tensor it lacks."""
import torch


class AutogradFunction(torch.autograd.Function):
    backward_fn = None

    @staticmethod
    def forward(ctx, x):
        mean = x.mean(-1, keepdim=True)
        rstd = torch.rsqrt(x.var(-1, unbiased=False, keepdim=True) + 1e-5)
        x_hat = (x - mean) * rstd
        ctx.save_for_backward(x_hat, rstd)
        return x_hat

    @staticmethod
    def backward(ctx, grad_output):
        x_hat, rstd = ctx.saved_tensors
        grad_input = AutogradFunction.backward_fn(grad_output, x_hat, rstd)
        return grad_input


def forward_fn(x: torch.Tensor) -> torch.Tensor:
    """(x - mean) / sqrt(var + eps) over the last dimension."""
    mean = x.mean(-1, keepdim=True)
    return (x - mean) * torch.rsqrt(x.var(-1, unbiased=False, keepdim=True) + 1e-5)


class Model(torch.nn.Module):
    def forward(self, x, fn=forward_fn):
        return fn(x)


def get_inputs(batch_size: int = 4, num_features: int = 16):
    return [torch.randn(batch_size, num_features, requires_grad=True)]


input_names = ["x"]
