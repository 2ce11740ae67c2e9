import torch
import torch.nn as nn


class Model(nn.Module):
    """Test problem in KernelBench's format: a strided 2D convolution with bias, then ReLU."""

    def __init__(self, in_channels, out_channels, kernel_size, stride):
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x))


batch_size = 2
in_channels = 3
out_channels = 8
height, width = 16, 12
kernel_size = 3
stride = 2


def get_inputs():
    x = torch.randn(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride]
