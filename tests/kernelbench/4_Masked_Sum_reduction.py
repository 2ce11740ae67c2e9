import torch
import torch.nn as nn


class Model(nn.Module):
    """Test problem in KernelBench's format: a sum over one dimension of A * B, kept as a dim."""

    def __init__(self, dim: int):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, A, B):
        return torch.sum(A * B, dim=self.dim, keepdim=True)


batch_size = 4
dim1 = 32
dim2 = 20
reduce_dim = 1


def get_inputs():
    return [torch.randn(batch_size, dim1, dim2), torch.randn(batch_size, dim1, dim2)]


def get_init_inputs():
    return [reduce_dim]
