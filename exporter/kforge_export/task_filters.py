"""robust-kbench's task filters, as warnings: outputs near constant, arguments without effect."""


import torch

from .random_draws import float_dtype, strided_sample
from .running import allclose, outputs_of


FILTER_BUDGET_SECONDS = 4.0  # the no-effect filter (a backward pass and a few runs) only below this run time


def filter_warnings(fn, specs, values, other_values, base_outs):
    """robust-kbench's task filters: outputs near constant, tensor arguments without effect. An
    argument whose gradient is not zero has an effect: one backward pass clears most of them, and
    only the rest are run again with the value of another seed in their place."""
    warnings = []
    for k, o in enumerate(base_outs):
        if o.numel() > 1 and float_dtype(o) and strided_sample(o).std().item() < 1e-6:
            warnings.append(f"output {k} is near constant (std < 1e-6): the task may not test the kernel")
    drawn = [i for i, spec in enumerate(specs)
             if spec["kind"] not in ("none", "scalar", "int_list") and spec["dist"]["family"] not in ("constant", "fixed")
             and other_values[i] is not None and other_values[i].shape == values[i].shape]
    for i in sorted(set(drawn) - arguments_with_gradient(fn, values, drawn)):
        changed = list(values)
        changed[i] = other_values[i]
        with torch.no_grad():
            outs = outputs_of(fn(*changed), "reference")
        if all(allclose(a, b, rtol=1e-6, atol=1e-7, equal_nan=True) for a, b in zip(outs, base_outs)):
            warnings.append(f"argument `{specs[i]['name']}` has no effect on the output: the task may not test it")
    return warnings


def arguments_with_gradient(fn, values, positions):
    """The positions among `positions` (floating-point tensors) through which some output has a
    non-zero, finite gradient; an empty set when autograd cannot go through fn. The outputs are
    weighted at random, so that a sum that does not depend on an input (softmax) does not hide it."""
    floating = [i for i in positions if float_dtype(values[i])]
    if not floating:
        return set()
    try:
        # detach() shares the argument's memory (a full-size KernelBench input is 8.6 GB): a
        # function that writes into its argument fails on the leaf, as it did on a clone.
        leaves = list(values)
        for i in floating:
            leaves[i] = values[i].detach().requires_grad_(True)
        with torch.enable_grad():
            outs = [o for o in outputs_of(fn(*leaves), "reference") if o.requires_grad and float_dtype(o)]
            if not outs:
                return set()
            generator = torch.Generator(device=outs[0].device).manual_seed(7)
            weights = [torch.randn(o.shape, generator=generator, device=o.device, dtype=o.dtype) for o in outs]
            grads = torch.autograd.grad(outs, [leaves[i] for i in floating], grad_outputs=weights,
                                        allow_unused=True)
    except Exception:  # noqa: BLE001  (not differentiable: every argument is run again instead)
        return set()
    return {i for i, g in zip(floating, grads) if g is not None and _finite_and_not_zero(g)}


def _finite_and_not_zero(g):
    """Whether every element of g is finite and some is not zero, from its extremes (no temporary
    the size of g; NaN makes both extremes NaN)."""
    if g.numel() == 0:
        return False
    try:
        low, high = torch.aminmax(g)
    except RuntimeError:  # a dtype aminmax does not take on this device
        return bool(torch.isfinite(g).all().item() and g.abs().max().item() > 0)
    return bool(torch.isfinite(low).item() and torch.isfinite(high).item() and (low.item() < 0 or high.item() > 0))
