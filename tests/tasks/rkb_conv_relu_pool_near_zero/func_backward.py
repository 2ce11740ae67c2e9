"""robust-kbench's mnist_conv_relu_pool backward as its own task initialises it (kaiming-uniform
weights, biases of N(0, 0.1)), in a config file whose multi set is the single config at index 3:
13 input channels, 32 output channels, 64 images of 28 x 28. The checker's first draw for it
(seed 0, config 3) is the one on which robust-kbench's own task rejected the generated CPU kernel:
one convolution output, image 37 channel 28 at (5, 6), is -1.4e-8 in float64 and the largest of
its pooling window; summed from products rounded to float first it came out positive, so its
ReLU mask let a pooled gradient through that eager and float64 stop (117 values of the gradient
of x off by up to 0.097). The configs before it are small, so that the index is 3."""
import math

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
        torch.nn.init.kaiming_uniform_(conv.weight, a=math.sqrt(5))
        torch.nn.init.normal_(conv.bias, mean=0.0, std=0.1)
        self.weights = torch.nn.Parameter(conv.weight.data.clone(), requires_grad=True)
        self.biases = torch.nn.Parameter(conv.bias.data.clone(), requires_grad=True)

    def forward(self, x, fn=forward_fn):
        return fn(x, self.weights, self.biases)


def get_inputs(batch_size: int = 2, in_channels: int = 1, height: int = 10, width: int = 10):
    return [torch.randn(batch_size, in_channels, height, width, requires_grad=True)]


input_names = ["x"]
