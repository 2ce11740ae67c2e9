"""Mean cross-entropy loss of logits against integer class targets, backward: the gradient with
respect to the logits, given the gradient of the (scalar) loss. In robust-kbench's shape:
backward_fn is the candidate's, the reference is autograd through forward_fn."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class AutogradFunction(torch.autograd.Function):
    backward_fn = None

    @staticmethod
    def forward(ctx, logits, targets):
        ctx.save_for_backward(logits, targets)
        return F.cross_entropy(logits, targets)

    @staticmethod
    def backward(ctx, grad_output):
        logits, targets = ctx.saved_tensors
        grad_logits = AutogradFunction.backward_fn(grad_output, logits, targets)
        return grad_logits, None


def forward_fn(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits, targets)


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, targets, fn=forward_fn):
        return fn(logits, targets)


def get_inputs(batch_size: int = 256, num_classes: int = 1000):
    logits = (torch.randn(batch_size, num_classes) * 2.0).requires_grad_(True)
    targets = torch.randint(0, num_classes, (batch_size,))
    return [logits, targets]


input_names = ["logits", "targets"]
