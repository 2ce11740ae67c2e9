"""Mean cross-entropy loss of logits against integer class targets, backward:
the gradient with respect to the logits, given the gradient of the (scalar) loss."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def forward_fn(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits, targets)


def backward_fn(grad_output: torch.Tensor, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    probabilities = torch.softmax(logits, dim=1)
    one_hot = F.one_hot(targets, logits.shape[1]).to(logits.dtype)
    return (probabilities - one_hot) * (grad_output / logits.shape[0])


class AutogradFunction(torch.autograd.Function):
    backward_fn = backward_fn

    @staticmethod
    def forward(ctx, logits, targets):
        ctx.save_for_backward(logits, targets)
        return forward_fn(logits, targets)

    @staticmethod
    def backward(ctx, grad_output):
        logits, targets = ctx.saved_tensors
        return AutogradFunction.backward_fn(grad_output, logits, targets), None


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, targets, fn=AutogradFunction.apply):
        return fn(logits, targets)


def get_inputs(batch_size: int = 256, num_classes: int = 1000):
    logits = torch.randn(batch_size, num_classes) * 2.0
    targets = torch.randint(0, num_classes, (batch_size,))
    return [logits, targets]


input_names = ["logits", "targets"]
