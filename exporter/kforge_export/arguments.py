"""Capturing the arguments Model.forward passes to fn, and describing each: its kind, where it
comes from, and how to draw it again (or that it is fixed)."""
import inspect
import math
import os

import torch

from . import random_draws
from .random_draws import float_dtype, is_constant, match_draw, statistics_warning, strided_sample
from .support import ExportError, phase
from .task_loading import build, failure_text


class FnCalled(Exception):
    """Raised by the stand-in for `fn` once it has seen its arguments: what Model.forward passes
    is known without computing anything."""


def capture_fn_args(model, inputs, call=None):
    """Runs Model.forward with a recording `fn`; returns the arguments and the output. With no
    `call`, the recording fn stops Model.forward there: the output is None and nothing is computed."""
    captured = {}

    def recording_fn(*args, **kwargs):
        captured["args"], captured["kwargs"] = args, kwargs
        if call is None:
            raise FnCalled()
        return call(*args, **kwargs)

    try:
        out = model(*inputs, fn=recording_fn)
    except FnCalled:
        out = None
    except Exception as e:
        raise ExportError(f"Model.forward(*inputs, fn=...) failed: {failure_text(e)}") from e
    if "args" not in captured:
        raise ExportError("Model.forward never called `fn`; it must pass its work to fn(...)")
    return captured["args"], captured["kwargs"], out


def bind_names(fn, args, kwargs, what):
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except TypeError as e:
        raise ExportError(f"{what} was called with arguments that do not fit its signature: {e}") from e
    bound.apply_defaults()
    return list(bound.arguments.keys()), list(bound.arguments.values())


def describe_value(name, value):
    """Describes a non-tensor argument; returns None for tensors."""
    if value is None:
        return {"name": name, "kind": "none"}
    if isinstance(value, bool):
        return {"name": name, "kind": "scalar", "type": "bool", "value": value}
    if isinstance(value, int):
        return {"name": name, "kind": "scalar", "type": "int", "value": value}
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ExportError(f"argument `{name}` is the non-finite float {value}")
        return {"name": name, "kind": "scalar", "type": "float", "value": value}
    if isinstance(value, (list, tuple, torch.Size)) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return {"name": name, "kind": "int_list", "value": [int(v) for v in value]}
    if isinstance(value, torch.Tensor):
        return None
    raise ExportError(f"argument `{name}` has type {type(value).__name__}, which the kernel interface cannot take")


def tensor_source(value, inputs, model, input_names):
    for i, t in enumerate(inputs):
        if value is t:
            return "input", (input_names[i] if i < len(input_names) else f"input{i}")
    for pname, p in model.named_parameters():
        if value is p:
            return "parameter", pname
    for bname, b in model.named_buffers():
        if value is b:
            return "buffer", bname
    return "tensor", None


def describe_tensor(name, kind, source, value, deterministic, draws, files, file_stem, warnings):
    """Describes a tensor argument; `deterministic` says whether it came out the same under two seeds."""
    spec = {
        "name": name,
        "kind": kind,
        "source": source,
        "dtype": str(value.dtype).replace("torch.", ""),
        "shape": list(value.shape),
    }
    if not value.is_contiguous():
        warnings.append(f"{name}: the task passes a non-contiguous tensor; kforge draws it contiguous")
    dist = None if deterministic else match_draw(value, draws)
    if dist is None:
        flat = value.detach().reshape(-1)
        if is_constant(value):
            dist = {"family": "constant", "value": flat[0].item()}
        elif deterministic:
            file_name = f"{file_stem}.bin"
            data = value.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
            with open(os.path.join(files, file_name), "wb") as f:
                f.write(data)
            dist = {"family": "fixed", "file": file_name}
        elif float_dtype(value):
            t = strided_sample(value)
            dist = {"family": "normal", "mean": t.mean().item(), "std": t.std().item() if t.numel() > 1 else 0.0}
            warnings.append(f"{name}: no draw of the task's code explains its values; kforge draws it from a "
                            f"normal with the same mean and std")
        else:
            raise ExportError(f"{name}: integer tensor whose values kforge cannot regenerate")
    else:
        message = statistics_warning(name, value, dist)
        if message:
            warnings.append(message)
    spec["dist"] = dist
    return spec


def describe_args(names, values, fixed, inputs, model, input_names, draws, files, stem, warnings):
    """`fixed[i]`: whether argument i comes out the same under another seed."""
    with phase("describe"):
        return describe_args_now(names, values, fixed, inputs, model, input_names, draws, files, stem, warnings)


def describe_args_now(names, values, fixed, inputs, model, input_names, draws, files, stem, warnings):
    specs = []
    for i, (name, value) in enumerate(zip(names, values)):
        spec = describe_value(name, value)
        if spec is None:
            kind, source = tensor_source(value, inputs, model, input_names)
            spec = describe_tensor(name, kind, source, value, fixed[i], draws, files, f"{stem}_{name}", warnings)
        specs.append(spec)
    return specs


def capture_forward(module, entry, seed, compute=False):
    """Builds a config and takes the arguments Model.forward passes to fn; runs fn only if `compute`.
    With a GPU the new draws stay there; a task whose code then mixes devices is built again with
    its tensors where it asked for them."""
    for resident in ([True, False] if random_draws.FAST_DRAWS else [False]):
        try:
            model, inputs, draws = build(module, entry, seed, resident)
            with torch.no_grad():
                args, kwargs, out = capture_fn_args(model, inputs, module.forward_fn if compute else None)
            break
        except ExportError:
            if not resident:
                raise
    names, values = bind_names(module.forward_fn, args, kwargs, "forward_fn")
    return model, inputs, draws, names, values, out


def same_under_seeds(values, other_values):
    return [isinstance(v, torch.Tensor) and isinstance(o, torch.Tensor) and o.shape == v.shape
            and torch.equal(v, o.to(v.device)) for v, o in zip(values, other_values)]


def fixed_arguments(module, entry, names, values, draws, facts):
    """Which arguments come out the same under another seed, and the other seed's values when they
    were built. The probe builds its config twice and records the answer by argument name. Another
    config takes the answer from there where its own values agree with it: a tensor that a draw
    of this build explains was drawn, unless the probe found it fixed; a non-constant one that no
    draw explains was fixed, if the probe found it so. Where they disagree (an init method that
    draws what another one fixes) or a name is new, this config is built a second time too."""
    known = facts.get("fixed")
    if known is not None:
        answer, sure = [], True
        for n, v in zip(names, values):
            if not isinstance(v, torch.Tensor):
                answer.append(False)
            elif n not in known:
                sure = False
                break
            elif is_constant(v):
                answer.append(known[n])  # a constant is described as one either way
            else:
                drawn = match_draw(v, draws) is not None
                sure = drawn != known[n]
                answer.append(known[n])
                if not sure:
                    break
        if sure:
            return answer, None
    other_values = capture_forward(module, entry, seed=2)[4]
    fixed = same_under_seeds(values, other_values)
    if known is None:
        facts["fixed"] = {n: f for n, f, v in zip(names, fixed, values) if isinstance(v, torch.Tensor)}
    return fixed, other_values
