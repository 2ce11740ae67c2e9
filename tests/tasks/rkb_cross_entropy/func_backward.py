"""Test task in robust-kbench's shape: mean cross-entropy backward. The loss is a scalar (shape
[]), targets are integers that need no gradient, and backward returns backward_fn's one result
followed by None for the targets."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class AutogradFunction(torch.autograd.Function):
    backward_fn = None

    @staticmethod
    def forward(ctx, predictions, targets):
        ctx.save_for_backward(predictions, targets)
        return F.cross_entropy(predictions, targets, reduction="mean")

    @staticmethod
    def backward(ctx, grad_output):
        predictions, targets = ctx.saved_tensors
        grad_predictions = AutogradFunction.backward_fn(grad_output, predictions, targets)
        return grad_predictions, None


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
