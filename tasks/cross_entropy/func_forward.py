"""Mean cross-entropy loss of logits against integer class targets, forward."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def forward_fn(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits, targets)


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, targets, fn=forward_fn):
        return fn(logits, targets)


def get_inputs(batch_size: int = 256, num_classes: int = 1000):
    logits = torch.randn(batch_size, num_classes) * 2.0
    targets = torch.randint(0, num_classes, (batch_size,))
    return [logits, targets]


input_names = ["logits", "targets"]
