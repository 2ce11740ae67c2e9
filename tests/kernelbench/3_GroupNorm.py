import torch
import torch.nn as nn


class Model(nn.Module):
    """Test problem in KernelBench's format: group normalisation with an affine transform."""

    def __init__(self, num_groups: int, num_features: int):
        super(Model, self).__init__()
        self.gn = nn.GroupNorm(num_groups=num_groups, num_channels=num_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.gn(x)


batch_size = 4
features = 16
num_groups = 4
dim1 = 8
dim2 = dim1 * 2  # derived: follows dim1 when a config sets it


def get_inputs():
    x = torch.rand(batch_size, features, dim1, dim2)
    return [x]


def get_init_inputs():
    return [num_groups, features]
