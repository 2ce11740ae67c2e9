"""Test task in robust-kbench's shape: convolution, ReLU and 2x2 max pooling, backward. forward
saves x, the weights and the biases; backward_fn gets them and grad_output and returns the
gradients of all three (the convolution's backward and the pooling's, through its indices), which
AutogradFunction.backward returns as they come."""
import torch
import torch.nn.functional as F


class AutogradFunction(torch.autograd.Function):
    backward_fn = None

    @staticmethod
    def forward(ctx, x, weights, biases):
        ctx.save_for_backward(x, weights, biases)
        return F.max_pool2d(F.relu(F.conv2d(x, weights, biases)), kernel_size=2)

    @staticmethod
    def backward(ctx, grad_output):
        x, weights, biases = ctx.saved_tensors
        # backward_fn's results returned as they come (a tuple), not unpacked
        return AutogradFunction.backward_fn(x, weights, biases, grad_output)


def forward_fn(x: torch.Tensor, weights: torch.Tensor, biases: torch.Tensor) -> torch.Tensor:
    """max_pool2d(relu(conv2d(x, W) + b), 2)"""
    return F.max_pool2d(F.relu(F.conv2d(x, weights, biases)), kernel_size=2)


class Model(torch.nn.Module):
    def __init__(self, in_channels: int = 1, out_channels: int = 4, kernel_size: int = 3):
        super().__init__()
        conv = torch.nn.Conv2d(in_channels, out_channels, kernel_size)
        self.weights = torch.nn.Parameter(conv.weight.data.clone(), requires_grad=True)
        self.biases = torch.nn.Parameter(conv.bias.data.clone(), requires_grad=True)

    def forward(self, x, fn=forward_fn):
        return fn(x, self.weights, self.biases)


def get_inputs(batch_size: int = 2, in_channels: int = 1, height: int = 10, width: int = 10):
    return [torch.randn(batch_size, in_channels, height, width, requires_grad=True)]


input_names = ["x"]
