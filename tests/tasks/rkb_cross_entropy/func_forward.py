"""Test task in robust-kbench's shape: mean cross-entropy, a scalar (shape []) loss of logits
against integer targets."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def forward_fn(predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """loss = mean over the batch of -log(softmax(predictions)[target])."""
    return F.cross_entropy(predictions, targets, reduction="mean")


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, predictions, targets, fn=forward_fn):
        return fn(predictions, targets)


def get_inputs(batch_size: int = 64, num_classes: int = 10):
    return [
        torch.randn(batch_size, *(num_classes,), requires_grad=True),
        torch.randint(0, num_classes, (batch_size,)),
    ]


input_names = ["predictions", "targets"]
