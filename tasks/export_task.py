#!/usr/bin/env python3
"""Exports a robust-kbench task folder into what kforge's C++ side needs.

For every config of a task (the Cartesian product init x input x shared of its config file) and
every direction it has (forward, backward), this records:
  - the exact argument list that `Model.forward` passes to `fn` (input, parameter, buffer,
    scalar, integer list, None), with shapes and dtypes;
  - how to draw fresh values of each tensor: the distribution family and parameters, found by
    watching the random draws that the task's own code makes (torch.randn, Tensor.uniform_ as
    used by nn.init, torch.randint, ...) and checked against the tensor's statistics;
  - a TorchScript reference (scripted when the function is scriptable, else traced per config);
  - for backward tasks, what the candidate's `backward` receives (what AutogradFunction.backward
    passes to backward_fn: saved tensors, output gradients, values kept on ctx, tuples of these,
    tensors AutogradFunction computes, traced into a prelude) and which gradient each of its
    results is; the reference gradients are autograd's through forward_fn, as in robust-kbench;
  - per direction, the reason it cannot be exported, when it cannot (the other still is);
  - the task filters of robust-kbench as warnings: outputs near constant, inputs without effect.

Python runs only here, at export time. The result is cached under --cache-root by a hash of the
task's files, this script and the torch version, so a second call returns at once without
importing torch.

Usage: export_task.py --task DIR --cache-root DIR   (prints the export folder on stdout)
Exit status: 0 on success, 1 when the task cannot be exported (the reason on stderr).
"""
import argparse
import ast
import hashlib
import importlib.util
import inspect
import itertools
import json
import math
import os
import re
import shutil
import sys
import tempfile
import textwrap
import time
import warnings as python_warnings
from contextlib import contextmanager

FORMAT_VERSION = 2
SAMPLE_SIZE = 4096  # elements of a draw kept to match it to the tensor it became
MODES = {
    "single": ("single_input_configs", "single_init_configs", "single_shared_configs"),
    "multi_input": ("multi_input_configs", "single_init_configs", "single_shared_configs"),
    "multi_init": ("single_input_configs", "multi_init_configs", "single_shared_configs"),
    "multi": ("multi_input_configs", "multi_init_configs", "multi_shared_configs"),
}


class ExportError(Exception):
    """A task that kforge cannot export, with a message that says what and where."""


PHASE_SECONDS = {}  # where an export's time went, written into task.json


@contextmanager
def phase(name):
    start = time.monotonic()
    try:
        yield
    finally:
        PHASE_SECONDS[name] = PHASE_SECONDS.get(name, 0.0) + time.monotonic() - start


def phase_seconds(started):
    """Where the time since `started` went, by phase (and in total), for the written record."""
    return {k: round(v, 3) for k, v in sorted({**PHASE_SECONDS, "total": time.monotonic() - started}.items())}


def publish(staging, final_dir, file_name, document):
    """Writes `document` into the staging folder, which then takes the place of final_dir: a
    reader sees the old folder or the whole new one, never half of it."""
    with open(os.path.join(staging, file_name), "w", encoding="utf-8") as f:
        json.dump(document, f, indent=1, allow_nan=False)
    if os.path.exists(final_dir):
        shutil.rmtree(final_dir)
    os.rename(staging, final_dir)


# ----------------------------------------------------------------------------------------------
# cache key, computed without importing torch


def torch_version_without_import():
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        raise ExportError(f"{sys.executable} has no torch; set KFORGE_PYTHON to an interpreter that has it")
    version_file = os.path.join(os.path.dirname(spec.origin), "version.py")
    with open(version_file, encoding="utf-8") as f:
        match = re.search(r"__version__\s*=\s*['\"]([^'\"]+)['\"]", f.read())
    if not match:
        raise ExportError(f"cannot read the torch version from {version_file}")
    return match.group(1)


def task_files(task_dir):
    """The files an export depends on: the task's functions and configs, and every other Python
    file beside them (a helper module, the problem file of an imported KernelBench task)."""
    names = sorted(n for n in os.listdir(task_dir)
                   if re.fullmatch(r"config_(forward|backward)\.json", n) or n.endswith(".py"))
    if "func_forward.py" not in names and "func_backward.py" not in names:
        raise ExportError(f"{task_dir}: no func_forward.py or func_backward.py; is this a robust-kbench task folder?")
    return names


def content_hash(task_dir):
    h = hashlib.sha256()
    for name in task_files(task_dir):
        h.update(name.encode() + b"\0")
        with open(os.path.join(task_dir, name), "rb") as f:
            h.update(f.read() + b"\0")
    with open(os.path.abspath(__file__), "rb") as f:
        h.update(f.read())
    h.update(torch_version_without_import().encode())
    h.update(sys.version.encode())
    return h.hexdigest()[:24]


# ----------------------------------------------------------------------------------------------
# watching the task's random draws


class Draw:
    """One random (or constant) fill made by the task's code, with a sample of what it produced."""

    def __init__(self, family, params, tensor):
        self.family = family
        self.params = params
        flat = tensor.detach().reshape(-1)
        self.numel = flat.numel()
        self.sample = flat[:SAMPLE_SIZE].to("cpu", torch.float64).clone()


class DrawRecorder:
    """Patches torch's random constructors and the in-place fills that nn.init uses."""

    def __init__(self):
        self.draws = []
        self._saved = []

    def _record(self, family, params, tensor):
        if isinstance(tensor, torch.Tensor) and tensor.numel() > 0:
            self.draws.append(Draw(family, params, tensor))

    def _patch(self, owner, name, make_params, family):
        original = getattr(owner, name)
        recorder = self

        def wrapper(*args, **kwargs):
            out = draw_on_gpu(name, original, args, kwargs)
            if out is None:
                out = original(*args, **kwargs)
            target = args[0] if family_is_inplace(name) else out
            params = make_params(args, kwargs)
            if params is not None:
                recorder._record(family, params, target)
            return out

        self._saved.append((owner, name, original))
        setattr(owner, name, wrapper)

    def __enter__(self):
        T = torch.Tensor
        self._patch(torch, "randn", lambda a, k: {"mean": 0.0, "std": 1.0}, "normal")
        self._patch(torch, "randn_like", lambda a, k: {"mean": 0.0, "std": 1.0}, "normal")
        self._patch(torch, "rand", lambda a, k: {"low": 0.0, "high": 1.0}, "uniform")
        self._patch(torch, "rand_like", lambda a, k: {"low": 0.0, "high": 1.0}, "uniform")
        self._patch(torch, "randint", randint_params, "randint")
        self._patch(torch, "randint_like", randint_like_params, "randint")
        self._patch(T, "normal_", lambda a, k: {"mean": float(arg(a, k, 1, "mean", 0.0)), "std": float(arg(a, k, 2, "std", 1.0))}, "normal")
        self._patch(T, "uniform_", lambda a, k: {"low": float(arg(a, k, 1, "from", 0.0)), "high": float(arg(a, k, 2, "to", 1.0))}, "uniform")
        self._patch(T, "random_", random_params, "randint")
        return self

    def __exit__(self, *exc):
        for owner, name, original in reversed(self._saved):
            setattr(owner, name, original)
        self._saved.clear()


FAST_DRAWS = False  # set by export(): the task's draws are made on the GPU when torch has one
RESIDENT_DRAWS = False  # while a forward config is built: new tensors drawn stay on the GPU
FAST_DRAW_ELEMENTS = 1 << 16  # in-place fills of CPU tensors at least this large are drawn on the GPU


def draw_on_gpu(name, original, args, kwargs):
    """A draw of the task's code made on the GPU when torch has one: CPU generators are sequential
    (building resnet_block's configs took 71 s on the H100 host's CPU, 0.8 s this way). A new
    tensor stays on the GPU while RESIDENT_DRAWS (a forward config) and is copied to the CPU
    otherwise; an in-place fill of a CPU tensor is copied into it. The values differ from a CPU draw, which nothing needs; two seeds still differ and the
    distribution is the one asked for. None: make the draw as asked (no GPU, another device, an
    explicit generator or output, a small fill, the *_like forms)."""
    if not FAST_DRAWS or "generator" in kwargs or "out" in kwargs or name.endswith("_like"):
        return None
    try:
        if family_is_inplace(name):
            target = args[0]
            if target.device.type != "cpu" or target.numel() < FAST_DRAW_ELEMENTS:
                return None
            drawn = torch.empty(target.shape, dtype=target.dtype, device="cuda")
            original(drawn, *args[1:], **kwargs)
            with torch.no_grad():
                target.copy_(drawn)
            return target
        device = kwargs.get("device")
        if device is not None and torch.device(device).type != "cpu":
            return None
        requires_grad = kwargs.get("requires_grad", False)
        made = original(*args, **{**kwargs, "device": "cuda", "requires_grad": False})
        if not RESIDENT_DRAWS:
            made = made.to("cpu")
        return made.requires_grad_(True) if requires_grad else made
    except (RuntimeError, TypeError):  # out of GPU memory, an unusual signature: draw as asked
        return None


def family_is_inplace(name):
    return name.endswith("_") and not name.endswith("_like")


def arg(args, kwargs, index, name, default):
    if name in kwargs:
        return kwargs[name]
    return args[index] if len(args) > index else default


def randint_params(args, kwargs):
    ints = [a for a in args if isinstance(a, int) and not isinstance(a, bool)]
    low = kwargs.get("low", ints[0] if len(ints) >= 2 else 0)
    high = kwargs.get("high", ints[-1] if ints else None)
    return None if high is None else {"low": int(low), "high": int(high)}


def randint_like_params(args, kwargs):
    return randint_params(args[1:], kwargs)


def random_params(args, kwargs):
    rest = [a for a in args[1:] if isinstance(a, int)]
    if len(rest) == 2:
        return {"low": rest[0], "high": rest[1]}
    if len(rest) == 1:
        return {"low": 0, "high": rest[0]}
    return None  # random_() over the whole dtype range: left to the statistical fallback


# ----------------------------------------------------------------------------------------------
# distributions


def float_dtype(t):
    return t.dtype.is_floating_point


def affine_fit(raw, values):
    """Least-squares a, b with values ~ a * raw + b; returns (a, b, max residual)."""
    n = raw.numel()
    mean_r, mean_v = raw.mean(), values.mean()
    var_r = ((raw - mean_r) ** 2).sum()
    if n < 3 or var_r.item() == 0.0:
        return None
    a = ((raw - mean_r) * (values - mean_v)).sum() / var_r
    b = mean_v - a * mean_r
    return a.item(), b.item(), (a * raw + b - values).abs().max().item()


def transformed(draw, a, b):
    if draw.family == "normal":
        return {"family": "normal", "mean": a * draw.params["mean"] + b, "std": abs(a) * draw.params["std"]}
    if draw.family == "uniform":
        lo, hi = a * draw.params["low"] + b, a * draw.params["high"] + b
        return {"family": "uniform", "low": min(lo, hi), "high": max(lo, hi)}
    return None


def dtype_eps(t):
    return torch.finfo(t.dtype).eps if float_dtype(t) else 0.0


def match_draw(tensor, draws):
    flat = tensor.detach().reshape(-1)
    values = flat[:SAMPLE_SIZE].to("cpu", torch.float64)
    scale = values.abs().max().item() + 1e-30
    for draw in reversed(draws):
        if draw.numel != flat.numel():
            continue
        raw = draw.sample
        if torch.equal(raw, values):
            return dict(family=draw.family, **draw.params)
        if draw.family == "randint" or not float_dtype(tensor):
            continue
        fit = affine_fit(raw, values)
        if fit is None:
            continue
        a, b, residual = fit
        if residual <= 8 * dtype_eps(tensor) * scale + 1e-12 and abs(a) > 1e-12:
            dist = transformed(draw, a, b)
            if dist is not None:
                return dist
    return None


FILTER_BUDGET_SECONDS = 4.0  # the no-effect filter (a backward pass and a few runs) only below this run time
STATISTICS_SAMPLE = 1 << 20  # elements of a tensor its statistics are taken from


def strided_sample(tensor):
    """At most STATISTICS_SAMPLE evenly spaced elements of a tensor, as float64: statistics of a
    1.6 GB activation need not convert all of it."""
    flat = tensor.detach().reshape(-1)
    step = max(1, -(-flat.numel() // STATISTICS_SAMPLE))
    return flat[::step].to(torch.float64)


def statistics_warning(name, tensor, dist):
    """Checks a tensor against the distribution it was matched to; returns a warning or None."""
    t = strided_sample(tensor)
    n = t.numel()
    if n < 64:
        return None
    family = dist["family"]
    if family == "normal":
        mu, sigma = dist["mean"], dist["std"]
    elif family == "uniform":
        mu, sigma = (dist["low"] + dist["high"]) / 2, (dist["high"] - dist["low"]) / math.sqrt(12)
        if t.min().item() < dist["low"] - 1e-6 * abs(dist["low"]) - 1e-12 or t.max().item() > dist["high"] + 1e-6 * abs(dist["high"]) + 1e-12:
            return f"{name}: values outside the inferred uniform({dist['low']:g}, {dist['high']:g})"
    elif family == "randint":
        mu, sigma = (dist["low"] + dist["high"] - 1) / 2, math.sqrt(((dist["high"] - dist["low"]) ** 2 - 1) / 12)
    else:
        return None
    mean, std = t.mean().item(), t.std().item()
    if abs(mean - mu) > 6 * sigma / math.sqrt(n) + 1e-9 or abs(std - sigma) > 6 * sigma / math.sqrt(2 * n) + 1e-9:
        return (f"{name}: statistics (mean {mean:.4g}, std {std:.4g}) disagree with the inferred "
                f"{family} (mean {mu:.4g}, std {sigma:.4g})")
    return None


# ----------------------------------------------------------------------------------------------
# loading the task and running one config


# Parts of torch that tasks use and older torch versions lack, with the version that added them.
TORCH_ADDITIONS = {
    "RMSNorm": "2.4", "rms_norm": "2.4", "Buffer": "2.5", "scaled_dot_product_attention": "2.0",
    "CircularPad1d": "2.1", "CircularPad2d": "2.1", "CircularPad3d": "2.1", "ZeroPad1d": "2.1",
    "ZeroPad3d": "2.1", "compile": "2.0", "vmap": "2.0", "func": "2.0", "float8_e4m3fn": "2.1",
    "float8_e5m2": "2.1", "uint16": "2.3", "uint32": "2.3", "uint64": "2.3",
}


def failure_text(e):
    """An exception of the task's code, as a message; one that says which torch the task needs
    when it uses a part of torch the installed version does not have."""
    text = f"{type(e).__name__}: {e}"
    match = re.search(r"module '(torch[\w.]*)' has no attribute '(\w+)'", str(e))
    if isinstance(e, AttributeError) and match:
        where, what = match.groups()
        needed = TORCH_ADDITIONS.get(what)
        need = f"torch >= {needed}" if needed else "a newer torch"
        text += (f" (the task uses {where}.{what}, which needs {need}; this exporter runs torch "
                 f"{torch.__version__} at {sys.executable}: set KFORGE_PYTHON to an interpreter with {need})")
    return text


def load_task_module(task_dir, direction):
    path = os.path.join(task_dir, f"func_{direction}.py")
    name = f"kforge_task_{hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:12]}_{direction}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        raise ExportError(f"{path}: importing it failed: {failure_text(e)}") from e
    for attr in ("Model", "get_inputs", "forward_fn"):
        if not hasattr(module, attr):
            raise ExportError(f"{path}: defines no `{attr}`; a robust-kbench task needs Model, get_inputs and forward_fn")
    if direction == "backward":
        if not hasattr(module, "AutogradFunction") or not hasattr(module.AutogradFunction, "backward_fn"):
            raise ExportError(f"{path}: a backward task needs `class AutogradFunction` with a `backward_fn` attribute")
    return module


def config_sets(task_dir, direction):
    path = os.path.join(task_dir, f"config_{direction}.json")
    if not os.path.exists(path):
        raise ExportError(f"{path}: missing; a task needs config_{direction}.json beside func_{direction}.py")
    try:
        with open(path, encoding="utf-8") as f:
            configs = json.load(f)
    except json.JSONDecodeError as e:
        raise ExportError(f"{path}: not valid JSON: {e}") from e
    entries = {}
    order = []
    for mode, keys in MODES.items():
        lists = []
        for key in keys:
            value = configs.get(key)
            if value is None:
                if mode == "single":
                    raise ExportError(f"{path}: missing `{key}`")
                break
            if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
                raise ExportError(f"{path}: `{key}` must be a list of objects")
            lists.append(value if value else [{}])
        else:
            inputs, inits, shareds = lists
            for init, inp, shared in itertools.product(inits, inputs, shareds):
                key = json.dumps([init, inp, shared], sort_keys=True)
                if key not in entries:
                    entries[key] = {"init": init, "input": inp, "shared": shared, "modes": []}
                    order.append(key)
                if mode not in entries[key]["modes"]:
                    entries[key]["modes"].append(mode)
    options = {k: configs[k] for k in ("tolerance", "allow_output_input_alias") if k in configs}
    return [entries[k] for k in order], options


def config_name(entry):
    merged = {**entry["init"], **entry["input"], **entry["shared"]}
    return ",".join(f"{k}={v}" for k, v in merged.items()) or "default"


def build(module, entry, seed, resident=False):
    """Builds the model and the inputs of one config under one seed, recording the draws. With
    `resident` (and a GPU), tensors the task's code draws anew stay on the GPU: a forward config's
    full-size inputs are then never copied to or touched in host memory."""
    global RESIDENT_DRAWS
    init = {**entry["init"], **entry["shared"]}
    inp = {**entry["input"], **entry["shared"]}
    torch.manual_seed(seed)
    RESIDENT_DRAWS = resident and FAST_DRAWS
    with phase("build"), DrawRecorder() as recorder, restore_resident_draws():
        try:
            model = module.Model(**init)
        except Exception as e:
            raise ExportError(f"Model(**{init}) failed: {failure_text(e)}") from e
        try:
            inputs = module.get_inputs(**inp)
        except Exception as e:
            raise ExportError(f"get_inputs(**{inp}) failed: {failure_text(e)}") from e
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    return model, list(inputs), recorder.draws


@contextmanager
def restore_resident_draws():
    global RESIDENT_DRAWS
    try:
        yield
    finally:
        RESIDENT_DRAWS = False


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


def outputs_of(result, what):
    outs = list(result) if isinstance(result, (list, tuple)) else [result]
    for k, o in enumerate(outs):
        if not isinstance(o, torch.Tensor):
            raise ExportError(f"{what} output {k} is a {type(o).__name__}; kforge compares tensors only")
    return outs


def output_specs(outs):
    return [{"dtype": str(o.dtype).replace("torch.", ""), "shape": list(o.shape)} for o in outs]


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
        if all(torch.allclose(a, b, rtol=1e-6, atol=1e-7, equal_nan=True) for a, b in zip(outs, base_outs)):
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
        leaves = list(values)
        for i in floating:
            leaves[i] = values[i].detach().clone().requires_grad_(True)
        with torch.enable_grad():
            outs = [o for o in outputs_of(fn(*leaves), "reference") if o.requires_grad and float_dtype(o)]
            if not outs:
                return set()
            generator = torch.Generator(device=outs[0].device).manual_seed(7)
            loss = sum((o * torch.randn(o.shape, generator=generator, device=o.device, dtype=o.dtype)).sum()
                       for o in outs)
            grads = torch.autograd.grad(loss, [leaves[i] for i in floating], allow_unused=True)
    except Exception:  # noqa: BLE001  (not differentiable: every argument is run again instead)
        return set()
    return {i for i, g in zip(floating, grads)
            if g is not None and torch.isfinite(g).all().item() and g.abs().max().item() > 0}


# ----------------------------------------------------------------------------------------------
# TorchScript references


TS_TYPES = {"tensor": "torch.Tensor", "none": "Optional[torch.Tensor]", "int_list": "List[int]"}


def ts_type(spec):
    if spec["kind"] == "scalar":
        return spec["type"]
    return TS_TYPES.get(spec["kind"], "torch.Tensor")


class ReferenceWriter:
    """Saves a TorchScript module that calls a task function: scripted once if it can be,
    otherwise traced per config with the non-tensor arguments fixed."""

    def __init__(self, module, out_dir, work_dir):
        self.module = module
        self.out_dir = out_dir
        self.work_dir = work_dir
        self.scripted = {}  # function name -> file, or the error that stopped scripting
        self.ops = {}  # file -> the ATen operators its graph calls, in order of first use
        self.first_trace = {}  # function name -> the first real trace, which later configs may share

    def reference(self, fn_name, specs, example_values, config_index, expected=None):
        with phase("reference"):
            return self._reference(fn_name, specs, example_values, config_index, expected)

    def _reference(self, fn_name, specs, example_values, config_index, expected):
        """The reference of one config. `expected`: the outputs of a meta run of the function; when
        given, a traced reference is traced on meta tensors (nothing computed) unless its graph
        then holds a device, and checked for those shapes."""
        # One script per pattern of None arguments: a None is typed Optional, a tensor Tensor.
        key = (fn_name, tuple(s["kind"] == "none" for s in specs))
        if key not in self.scripted:
            try:
                self.scripted[key] = self._script(fn_name, specs, sum(k[0] == fn_name for k in self.scripted))
            except Exception as e:  # TorchScript raises many kinds; any of them means "trace instead"
                self.scripted[key] = e
        scripted = self.scripted[key]
        if isinstance(scripted, str):
            return {"file": scripted, "call": "all_args", "ops": self.ops[scripted]}
        note = f"not scriptable ({type(scripted).__name__}); traced for this config"
        traced = None
        if expected is not None:
            shapes = [(list(o.shape), o.dtype) for o in expected]
            traced = self._shared_trace(fn_name, specs, example_values, shapes)
            if traced is not None:
                note = (f"not scriptable ({type(scripted).__name__}); the trace of config {self.first_trace[fn_name][1]}, "
                        f"which traced cleanly and gives this config's shapes")
            else:
                traced = self._trace(fn_name, specs, [to_meta(v) for v in example_values], config_index, shapes)
        if traced is None:
            traced = self._trace(fn_name, specs, example_values, config_index)
        return {"file": traced, "call": "tensor_args", "ops": self.ops[traced], "note": note}

    def _shared_trace(self, fn_name, specs, values, shapes):
        """The first real trace of fn, when it serves this config too: it traced without a warning
        (no value of a tensor became a Python number), this config's non-tensor arguments and tensor
        dtypes are the ones it was traced with, and run on meta tensors it gives this config's
        output shapes. Returns its file, or None."""
        first = self.first_trace.get(fn_name)
        if first is None or not first[2] or first[3] != trace_signature(specs, values):
            return None
        # On a GPU a real run is cheaper than meta tensors' first use; on the CPU meta computes nothing.
        device = compute_device()
        move = (lambda v: to_device(v, device)) if device.type == "cuda" else to_meta
        tensors = [move(v) for v, s in zip(values, specs) if s["kind"] not in ("none", "scalar", "int_list")]
        try:
            with phase("meta"), torch.no_grad():
                got = outputs_of(first[4](*tensors), "reference")
        except Exception:  # noqa: BLE001  (it does not serve: trace this config)
            return None
        return first[0] if [(list(o.shape), o.dtype) for o in got] == shapes else None

    def _script(self, fn_name, specs, ordinal):
        params = ", ".join(f"{py_name(s['name'])}: {ts_type(s)}" for s in specs)
        names = ", ".join(py_name(s["name"]) for s in specs)
        wrapper_name = f"kforge_ref_{fn_name}_{ordinal}_{abs(hash(self.module.__name__)) % 10**8}"
        owner = self._optional_copy(fn_name, [s["name"] for s in specs if s["kind"] == "none"], wrapper_name)
        source = (
            "from typing import List, Optional\nimport torch\n"
            f"import {owner} as task\n\n\n"
            "class Reference(torch.nn.Module):\n"
            f"    def forward(self, {params}):\n"
            f"        return task.{fn_name}({names})\n"
        )
        path = os.path.join(self.work_dir, wrapper_name + ".py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        spec = importlib.util.spec_from_file_location(wrapper_name, path)
        wrapper = importlib.util.module_from_spec(spec)
        sys.modules[wrapper_name] = wrapper
        spec.loader.exec_module(wrapper)
        scripted = torch.jit.script(wrapper.Reference())
        file_name = f"{fn_name}.pt" if ordinal == 0 else f"{fn_name}_{ordinal + 1}.pt"
        self.ops[file_name] = graph_ops(scripted.inlined_graph)
        torch.jit.save(scripted, os.path.join(self.out_dir, file_name))
        return file_name

    def _optional_copy(self, fn_name, none_names, stem):
        """The name of a module whose `fn_name` is the task's, with the parameters that receive None
        or default to None annotated Optional (tasks often write `bias: torch.Tensor = None` and
        pass None, which TorchScript refuses); the task's module itself when there are none. The
        copy runs in the task module's globals."""
        fn = getattr(self.module, fn_name)
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        except (OSError, TypeError, SyntaxError):
            return self.module.__name__
        definition = tree.body[0]
        if not isinstance(definition, ast.FunctionDef):
            return self.module.__name__
        positional = definition.args.posonlyargs + definition.args.args
        defaults = [None] * (len(positional) - len(definition.args.defaults)) + definition.args.defaults
        defaults += definition.args.kw_defaults
        optional = set(none_names) | {
            a.arg for a, d in zip(positional + definition.args.kwonlyargs, defaults)
            if isinstance(d, ast.Constant) and d.value is None}
        changed = False
        for a in positional + definition.args.kwonlyargs:
            if a.arg in optional and a.annotation is not None and "Optional" not in ast.unparse(a.annotation):
                changed = True
                a.annotation = ast.Subscript(value=ast.Attribute(value=ast.Name(id="typing", ctx=ast.Load()),
                                                                 attr="Optional", ctx=ast.Load()),
                                             slice=a.annotation, ctx=ast.Load())
        if not changed:
            return self.module.__name__
        definition.decorator_list = []
        name = f"{stem}_optional"
        path = os.path.join(self.work_dir, name + ".py")
        with open(path, "w", encoding="utf-8") as f:
            f.write("import typing\n\n\n" + ast.unparse(definition) + "\n")
        spec = importlib.util.spec_from_file_location(name, path)
        copy = importlib.util.module_from_spec(spec)
        copy.__dict__.update({k: v for k, v in self.module.__dict__.items() if not k.startswith("__")})
        sys.modules[name] = copy
        spec.loader.exec_module(copy)
        return name

    def _trace(self, fn_name, specs, values, config_index, meta_outputs=None):
        """Traces fn on `values`. With `meta_outputs` (the values are meta tensors), returns None
        instead of saving a graph that would not run elsewhere: one holding a device constant or
        whose outputs are not those shapes and dtypes."""
        fn = getattr(self.module, fn_name)
        tensor_positions = [i for i, s in enumerate(specs) if s["kind"] not in ("none", "scalar", "int_list")]
        if meta_outputs is None:  # a real trace is made on the CPU, whatever device the values are on
            values = [to_device(v, torch.device("cpu")) for v in values]

        class Traced(torch.nn.Module):
            def forward(self, *tensors):
                args = list(values)
                for pos, t in zip(tensor_positions, tensors):
                    args[pos] = t
                return fn(*args)

        try:
            with python_warnings.catch_warnings(record=True) as caught:
                python_warnings.simplefilter("always")
                traced = torch.jit.trace(Traced(), tuple(values[i] for i in tensor_positions), check_trace=False)
            clean = not any(issubclass(w.category, torch.jit.TracerWarning) for w in caught)
            if meta_outputs is not None:
                if 'Device = prim::Constant[value="meta"]' in str(traced.inlined_graph):
                    return None
                got = outputs_of(traced(*[values[i] for i in tensor_positions]), "reference")
                if [(list(o.shape), o.dtype) for o in got] != meta_outputs:
                    return None
        except Exception as e:
            if meta_outputs is not None:
                return None
            raise ExportError(f"{fn_name} can be neither scripted nor traced: {type(e).__name__}: {e}") from e
        file_name = f"{fn_name}_config{config_index}.pt"
        self.ops[file_name] = graph_ops(traced.inlined_graph)
        torch.jit.save(traced, os.path.join(self.out_dir, file_name))
        if meta_outputs is None and fn_name not in self.first_trace:
            self.first_trace[fn_name] = (file_name, config_index, clean, trace_signature(specs, values), traced)
        return file_name


def trace_signature(specs, values):
    """What a trace is specialised on besides shapes: the non-tensor arguments and tensor dtypes."""
    return [repr(v) if s["kind"] in ("none", "scalar", "int_list") else str(v.dtype) for s, v in zip(specs, values)]


def graph_ops(graph):
    """The ATen operators a TorchScript graph calls (nested blocks included), in order of first use:
    what the built-in proposer reads to recognise an op family."""
    ops = []

    def visit(block_nodes):
        for node in block_nodes:
            kind = node.kind()
            if kind.startswith("aten::") and kind not in ops:
                ops.append(kind)
            for block in node.blocks():
                visit(block.nodes())

    visit(graph.nodes())
    return ops


def py_name(name):
    return re.sub(r"\W", "_", name)


# ----------------------------------------------------------------------------------------------
# directions


def probe_index(entries):
    """The config the exporter runs for real (the probe): the one whose integer settings multiply
    to the least, which is the smallest for tasks whose settings are sizes. The others are only
    built and run on meta tensors (shapes, no arithmetic)."""
    def weight(entry):
        product = 1
        for value in {**entry["init"], **entry["input"], **entry["shared"]}.values():
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, int) and not isinstance(v, bool) and v > 0:
                    product *= v
        return product
    return min(range(len(entries)), key=lambda i: (weight(entries[i]), i))


def export_direction(task_dir, out_dir, work_dir, direction, export_config):
    """Exports every config of one direction with `export_config(module, entry, index, ..., facts)`,
    the probe config first: what it establishes (which arguments are fixed) goes into `facts`."""
    module = load_task_module(task_dir, direction)
    entries, options = config_sets(task_dir, direction)
    input_names = list(getattr(module, "input_names", []))
    writer = ReferenceWriter(module, out_dir, work_dir)
    probe = probe_index(entries)
    configs = [None] * len(entries)
    facts = {}
    for index in [probe] + [i for i in range(len(entries)) if i != probe]:
        try:
            configs[index] = export_config(module, entries[index], index, input_names, writer, out_dir, facts)
        except ExportError as e:
            raise ExportError(f"{task_dir} {direction} config {index} ({config_name(entries[index])}): {e}") from e
    return {"configs": configs, "probe_config": probe, **options}


def capture_forward(module, entry, seed, compute=False):
    """Builds a config and takes the arguments Model.forward passes to fn; runs fn only if `compute`.
    With a GPU the new draws stay there; a task whose code then mixes devices is built again with
    its tensors where it asked for them."""
    for resident in ([True, False] if FAST_DRAWS else [False]):
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


def is_constant(value):
    flat = value.detach().reshape(-1)
    if flat.numel() == 0 or not torch.all(flat[:SAMPLE_SIZE] == flat[0]).item():
        return False  # most tensors differ within their first elements: no pass over all of them
    return torch.all(flat == flat[0]).item()


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


def compute_device():
    """Where the exporter runs a task's functions for real: the GPU when torch has one (override
    with KFORGE_EXPORT_DEVICE=cpu)."""
    wanted = os.environ.get("KFORGE_EXPORT_DEVICE", "")
    if wanted:
        return torch.device(wanted)
    return torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")


def to_device(value, device):
    return value.to(device) if isinstance(value, torch.Tensor) else value


def to_meta(value):
    return value.to("meta") if isinstance(value, torch.Tensor) else value


def meta_outputs(fn, values):
    """fn's outputs on meta tensors (shapes and dtypes, nothing computed); None when some operator
    of fn has no meta implementation or depends on values."""
    try:
        with phase("meta"), torch.no_grad():
            outs = fn(*[to_meta(v) for v in values])
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        return outs if all(isinstance(o, torch.Tensor) and o.is_meta for o in outs) else None
    except Exception:  # noqa: BLE001  (any failure means: run it for real)
        return None


def output_shapes(fn, values):
    """fn's outputs for their shapes: from meta tensors on the CPU (nothing computed), from a run on
    the GPU when there is one (milliseconds; meta tensors' first use costs seconds there). None
    when neither works."""
    device = compute_device()
    if device.type == "cpu":
        return meta_outputs(fn, values)
    try:
        with phase("run"), torch.no_grad():
            return outputs_of(fn(*[to_device(v, device) for v in values]), "forward_fn")
    except Exception:  # noqa: BLE001  (the caller traces for real, which reports the failure)
        return None


def export_forward_config(module, entry, index, input_names, writer, out_dir, facts):
    probe = "fixed" not in facts
    model, inputs, draws, names, values, _ = capture_forward(module, entry, seed=1)
    fixed, other_values = fixed_arguments(module, entry, names, values, draws, facts)
    warnings = []
    specs = describe_args(names, values, fixed, inputs, model, input_names, draws, out_dir,
                          f"forward_config{index}", warnings)
    fn = module.forward_fn
    device = compute_device()
    if probe:
        # The probe runs for real (on the GPU when there is one): its outputs, the task filters,
        # and the check that the saved reference reproduces the Python function.
        on_device = [to_device(v, device) for v in values]
        started = time.monotonic()
        with phase("run"), torch.no_grad():
            outs = outputs_of(fn(*on_device), "forward_fn")
        run_seconds = time.monotonic() - started
        if run_seconds > FILTER_BUDGET_SECONDS:
            warnings.append(f"the task filter for arguments without effect was not run: one run of forward_fn takes "
                            f"{run_seconds:.1f} s on {device.type} (export where torch has a GPU to have it)")
        else:
            other_tensors = [to_device(o, device) if isinstance(o, torch.Tensor) else None for o in other_values]
            with phase("filters"):
                warnings += filter_warnings(fn, specs, on_device, other_tensors, outs)
        reference = writer.reference("forward_fn", specs, values, index)
        with phase("check"):
            check_reference(out_dir, reference, specs, values, outs, device)
    else:
        # Other configs need their output shapes only. On the CPU meta tensors give them without
        # computing; on a GPU a real run takes milliseconds (meta tensors' first use costs seconds
        # there), as does a config whose operators have no meta implementation.
        outs = meta_outputs(fn, values) if device.type == "cpu" else None
        if outs is None:
            with phase("run"), torch.no_grad():
                outs = outputs_of(fn(*[to_device(v, device) for v in values]), "forward_fn")
        reference = writer.reference("forward_fn", specs, values, index, expected=outs)
    return {"name": config_name(entry), "modes": entry["modes"], "init": entry["init"], "input": entry["input"],
            "shared": entry["shared"], "args": specs, "outputs": output_specs(outs), "reference": reference,
            "warnings": warnings, "probe": probe}


class FakeContext:
    """The `ctx` that AutogradFunction.forward and .backward see when kforge calls them directly:
    saved tensors and any attribute the task sets (eps, normalized_shape, ...) are kept as given."""

    def __init__(self, args):
        self.needs_input_grad = tuple(isinstance(a, torch.Tensor) and a.requires_grad for a in args)
        self.saved_tensors = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        self.saved_tensors = tuple(tensors)

    @property
    def saved_variables(self):
        return self.saved_tensors

    def mark_dirty(self, *tensors):
        pass

    def mark_non_differentiable(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        self.materialize_grads = value


class BackwardFnCalled(Exception):
    """Raised by the stand-in for backward_fn once it has seen its arguments."""

    def __init__(self, args, kwargs):
        super().__init__("backward_fn called")
        self.args_seen, self.kwargs_seen = args, kwargs


class Marker:
    """Stands for one tensor that backward_fn returns, to see where AutogradFunction.backward puts it."""

    def __init__(self, index):
        self.index = index

    def __repr__(self):
        return f"<output {self.index} of backward_fn>"


def autograd_forward(fn_cls, fwd_values):
    """AutogradFunction.forward on a FakeContext; returns the context it filled and its result."""
    ctx = FakeContext(fwd_values)
    with torch.no_grad():
        result = fn_cls.forward(ctx, *fwd_values)
    return ctx, result


def autograd_backward(fn_cls, ctx, grads, stand_in):
    """AutogradFunction.backward on a filled context, with backward_fn replaced by `stand_in`."""
    original = fn_cls.backward_fn
    fn_cls.backward_fn = stand_in
    try:
        with torch.no_grad():
            return fn_cls.backward(ctx, *grads)
    finally:
        fn_cls.backward_fn = original


def call_autograd_function(fn_cls, fwd_values, grads, stand_in):
    """AutogradFunction.forward then .backward, with backward_fn replaced."""
    return autograd_backward(fn_cls, autograd_forward(fn_cls, fwd_values)[0], grads, stand_in)


def backward_fn_call_names(fn_cls, count, kwargs):
    """Names for backward_fn's arguments: its own parameter names when the task defines it, else
    the expressions AutogradFunction.backward passes (`grad_output`, `x`, ...)."""
    if callable(fn_cls.backward_fn):
        try:
            return bind_names(fn_cls.backward_fn, [None] * count, {k: None for k in kwargs}, "backward_fn")[0]
        except ExportError:
            pass
    names = [f"arg{i}" for i in range(count)]
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn_cls.backward)))
    except (OSError, TypeError, SyntaxError):
        return names + list(kwargs)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "backward_fn":
            for i, a in enumerate(node.args[:count]):
                text = ast.unparse(a)
                names[i] = text if re.fullmatch(r"[\w.]+", text) else f"arg{i}"
            break
    return names + list(kwargs)


def run_backward(module, entry, seed, with_gradients, known_gradient_of):
    """Builds a config under `seed` and watches AutogradFunction: the arguments Model.forward
    passes to fn (with which require grad), what AutogradFunction.backward hands to backward_fn,
    and where it puts backward_fn's results. `with_gradients`: also the gradients autograd computes
    through forward_fn (the reference the worker computes; here only to check the task's own
    backward_fn, on the probe config); otherwise forward_fn is not run at all and `reference_grads`
    only says which arguments require grad (True) and which do not (None). `known_gradient_of`
    (by count of fn's arguments): where backward_fn's results go, as earlier configs found it; it
    is found once per count, since each try runs AutogradFunction.backward at full size."""
    model, inputs, draws = build(module, entry, seed)
    # The reference: autograd through forward_fn, as robust-kbench computes it (the captured call
    # runs with autograd recording, so its output's graph reaches fn's arguments).
    args, kwargs, out = capture_fn_args(model, inputs, module.forward_fn if with_gradients else None)
    fwd_names, fwd_values = bind_names(module.forward_fn, args, kwargs, "forward_fn")
    fn_cls = module.AutogradFunction
    leaves = [i for i, v in enumerate(fwd_values) if isinstance(v, torch.Tensor) and v.requires_grad]
    detached = [v.detach() if isinstance(v, torch.Tensor) else v for v in fwd_values]
    # AutogradFunction.forward's own outputs: what it may save for backward, by identity.
    try:
        with phase("run"):
            ctx, af_out = autograd_forward(fn_cls, detached)
    except Exception as e:
        raise ExportError(f"AutogradFunction.forward failed: {type(e).__name__}: {e}") from e
    outs = outputs_of(af_out, "AutogradFunction.forward")
    # Output gradients: random for the probe (its reference gradients check the task's own
    # backward_fn); elsewhere only their shapes and identities matter, and a CPU randn of a full-size
    # output costs seconds, so an even ramp stands in.
    torch.manual_seed(seed + 1000)
    grads = [(torch.randn_like(o) if with_gradients else
              torch.linspace(-1.0, 1.0, o.numel(), dtype=o.dtype, device=o.device).reshape(o.shape))
             if float_dtype(o) else None for o in outs]
    reference_grads = [True if i in leaves else None for i in range(len(fwd_values))]
    fn_outs = outputs_of(out, "forward_fn") if with_gradients else []
    if with_gradients and [(o.shape, o.dtype) for o in fn_outs] != [(o.shape, o.dtype) for o in outs]:
        raise ExportError("AutogradFunction.forward and forward_fn return outputs of different shapes or dtypes")
    differentiable = [(o, g) for o, g in zip(fn_outs, grads) if o.requires_grad]
    if leaves and differentiable:
        try:
            got = torch.autograd.grad([o for o, _ in differentiable], [fwd_values[i] for i in leaves],
                                      [g for _, g in differentiable], allow_unused=True)
        except Exception as e:
            raise ExportError(f"autograd through forward_fn failed: {type(e).__name__}: {e}") from e
        for i, g in zip(leaves, got):
            reference_grads[i] = g.detach() if g is not None else torch.zeros_like(fwd_values[i])
    fwd_values = detached
    outs = [o.detach() for o in outs]

    # What backward_fn receives.
    def capture(*a, **k):
        raise BackwardFnCalled(a, k)

    try:
        autograd_backward(fn_cls, ctx, grads, capture)
        raise ExportError("AutogradFunction.backward never called AutogradFunction.backward_fn")
    except BackwardFnCalled as called:
        bwd_args, bwd_kwargs = called.args_seen, called.kwargs_seen
    except ExportError:
        raise
    except Exception as e:
        raise ExportError(f"AutogradFunction.forward/backward failed before calling backward_fn: "
                          f"{type(e).__name__}: {e}") from e
    bwd_names = backward_fn_call_names(fn_cls, len(bwd_args), bwd_kwargs)
    bwd_values = list(bwd_args) + list(bwd_kwargs.values())

    # Where backward_fn's results go: the gradient of which argument of fn each one is.
    gradient_of, last_error = known_gradient_of.get(len(fwd_values)), None
    for count in [] if gradient_of is not None else [None, 2, 3, 4, 5, 6, 7, 8, 1]:
        markers = Marker(0) if count is None else tuple(Marker(i) for i in range(count))
        try:
            returned = autograd_backward(fn_cls, ctx, grads, lambda *a, **k: markers)
        except Exception as e:  # the task's own unpacking of the wrong count: try another
            last_error = e
            continue
        returned = returned if isinstance(returned, tuple) else (returned,)
        if len(returned) != len(fwd_values):
            raise ExportError(f"AutogradFunction.backward returns {len(returned)} gradients but fn takes "
                              f"{len(fwd_values)} arguments; autograd needs one per argument")
        positions = {}
        for p, r in enumerate(returned):
            if isinstance(r, Marker):
                positions[r.index] = p
            elif r is not None:
                raise ExportError(f"AutogradFunction.backward returns, as the gradient of `{fwd_names[p]}`, "
                                  f"something other than a result of backward_fn ({type(r).__name__}); kforge "
                                  f"checks backward_fn's results, so backward must return them unchanged")
        gradient_of = [positions.get(k, -1) for k in range(1 if count is None else count)]
        break
    known_gradient_of[len(fwd_values)] = gradient_of
    if gradient_of is None:
        raise ExportError(f"cannot tell where AutogradFunction.backward puts backward_fn's results; it must "
                          f"return them unchanged (last error: {type(last_error).__name__}: {last_error})")
    return dict(model=model, inputs=inputs, draws=draws, fwd_names=fwd_names, fwd_values=fwd_values, outs=outs,
                grads=grads, bwd_names=bwd_names, bwd_values=bwd_values, gradient_of=gradient_of,
                reference_grads=reference_grads)


def same_tensor(a, b):
    return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.data_ptr() == b.data_ptr()
            and a.shape == b.shape and a.stride() == b.stride() and a.dtype == b.dtype)


def locate_backward_tensor(name, value, run, derived):
    """Says where a tensor backward_fn receives comes from; tensors computed by AutogradFunction
    (a mean saved in forward, a scaled grad_output) are `derived` and recomputed by the prelude."""
    for i, v in enumerate(run["fwd_values"]):
        if value is v or same_tensor(value, v):
            return {"name": name, "kind": "forward_arg", "index": i}
    for k, g in enumerate(run["grads"]):
        if value is g or same_tensor(value, g):
            return {"name": name, "kind": "grad_output", "index": k}
    for k, o in enumerate(run["outs"]):
        if same_tensor(value, o) or (value.shape == o.shape and value.dtype == o.dtype and torch.equal(value, o)):
            return {"name": name, "kind": "forward_output", "index": k}
    derived.append(value)
    return {"name": name, "kind": "derived", "index": len(derived) - 1, "dtype": str(value.dtype).replace("torch.", ""),
            "shape": list(value.shape)}


def describe_backward_arg(name, value, run, derived):
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, torch.Tensor) for v in value):
        return {"name": name, "kind": "tensor_list",
                "elements": [locate_backward_tensor(f"{name}[{j}]", v, run, derived) for j, v in enumerate(value)]}
    spec = describe_value(name, value)
    return spec if spec is not None else locate_backward_tensor(name, value, run, derived)


def derived_paths(bwd_specs):
    """Where each derived tensor sits in backward_fn's arguments: (argument, element or None),
    in the order of their indices."""
    paths = {}
    for i, spec in enumerate(bwd_specs):
        if spec["kind"] == "derived":
            paths[spec["index"]] = (i, None)
        for j, element in enumerate(spec.get("elements", [])):
            if element["kind"] == "derived":
                paths[element["index"]] = (i, j)
    return [paths[k] for k in sorted(paths)]


def write_prelude(module, run, paths, expected, out_dir, index):
    """Traces what AutogradFunction computes for backward_fn beyond fn's arguments and the output
    gradients (saved means, scaled gradients): a TorchScript module from (fn's tensor arguments,
    output gradients) to those tensors, in order; `paths` says where each sits in backward_fn's
    arguments, `expected` what the untraced run gave."""
    fn_cls = module.AutogradFunction
    fwd_values, grads = run["fwd_values"], run["grads"]
    tensor_positions = [i for i, v in enumerate(fwd_values) if isinstance(v, torch.Tensor)]
    grad_positions = [k for k, g in enumerate(grads) if g is not None]

    class Prelude(torch.nn.Module):
        def forward(self, *tensors):
            values = list(fwd_values)
            for pos, t in zip(tensor_positions, tensors):
                values[pos] = t
            gs = list(grads)
            for pos, t in zip(grad_positions, tensors[len(tensor_positions):]):
                gs[pos] = t
            seen = []

            def capture(*a, **k):
                raise BackwardFnCalled(a, k)

            try:
                call_autograd_function(fn_cls, values, gs, capture)
            except BackwardFnCalled as called:
                seen = list(called.args_seen) + list(called.kwargs_seen.values())
            return tuple(seen[i] if j is None else seen[i][j] for i, j in paths)

    example = tuple(fwd_values[i] for i in tensor_positions) + tuple(grads[k] for k in grad_positions)
    try:
        with torch.no_grad():
            traced = torch.jit.trace(Prelude(), example, check_trace=False)
    except Exception as e:
        raise ExportError(f"the tensors AutogradFunction computes for backward_fn cannot be traced: "
                          f"{type(e).__name__}: {e}") from e
    file_name = f"backward_prelude_config{index}.pt"
    torch.jit.save(traced, os.path.join(out_dir, file_name))
    with torch.no_grad():
        again = outputs_of(traced(*example), "the prelude")
    if len(again) != len(expected) or not all(
            a.shape == e.shape and torch.allclose(a, e, rtol=1e-5, atol=1e-6) for a, e in zip(again, expected)):
        raise ExportError("the traced prelude does not reproduce the tensors AutogradFunction computes for "
                          "backward_fn (value-dependent Python code in it cannot be traced)")
    return {"file": file_name, "forward_args": tensor_positions, "grad_outputs": grad_positions}


def export_backward_config(module, entry, index, input_names, writer, out_dir, facts):
    probe = "fixed" not in facts
    # Where AutogradFunction.backward puts backward_fn's results is found once per argument count.
    run = run_backward(module, entry, seed=1, with_gradients=probe,
                       known_gradient_of=facts.setdefault("gradient_of", {}))
    # A second seed shows which of fn's arguments are drawn and which are fixed: fn's arguments
    # are all it takes, not a second watch of AutogradFunction.
    warnings = []
    fwd_values, fwd_names = run["fwd_values"], run["fwd_names"]
    fixed, _ = fixed_arguments(module, entry, fwd_names, fwd_values, run["draws"], facts)
    fwd_specs = describe_args(fwd_names, fwd_values, fixed, run["inputs"], run["model"], input_names,
                              run["draws"], out_dir, f"backward_config{index}", warnings)
    for i, spec in enumerate(fwd_specs):
        if isinstance(fwd_values[i], torch.Tensor):
            spec["requires_grad"] = run["reference_grads"][i] is not None
    derived = []
    bwd_specs = [describe_backward_arg(n, v, run, derived) for n, v in zip(run["bwd_names"], run["bwd_values"])]
    outputs = []
    for k, i in enumerate(run["gradient_of"]):
        if i < 0:
            warnings.append(f"AutogradFunction.backward drops output {k} of backward_fn; it is not checked")
            outputs.append({"gradient_of": -1})
            continue
        v = fwd_values[i]
        if not isinstance(v, torch.Tensor):
            raise ExportError(f"backward_fn's output {k} is returned as the gradient of `{fwd_names[i]}`, which is "
                              f"not a tensor")
        checked = run["reference_grads"][i] is not None
        if not checked:
            warnings.append(f"output {k} of backward is the gradient of `{fwd_names[i]}`, which does not require "
                            f"grad in this task, so it is not checked (set requires_grad=True in the task to "
                            f"check it)")
        outputs.append({"gradient_of": i, "name": f"grad of {fwd_names[i]}", "checked": checked,
                        "dtype": str(v.dtype).replace("torch.", ""), "shape": list(v.shape)})
    for i, g in enumerate(run["reference_grads"]):
        if g is not None and i not in run["gradient_of"]:
            warnings.append(f"`{fwd_names[i]}` requires grad but AutogradFunction.backward returns no gradient "
                            f"for it; it is not checked")
    with phase("prelude"):
        prelude = write_prelude(module, run, derived_paths(bwd_specs), derived, out_dir, index) if derived else None
    if probe:
        forward_reference = writer.reference("forward_fn", fwd_specs, fwd_values, index)
        with phase("check"):
            check_reference(out_dir, forward_reference, fwd_specs, fwd_values, run["outs"], torch.device("cpu"))
        if callable(module.AutogradFunction.backward_fn):
            with phase("filters"):
                warnings += check_task_backward_fn(module, run)
    else:
        forward_reference = writer.reference("forward_fn", fwd_specs, fwd_values, index,
                                             expected=output_shapes(module.forward_fn, fwd_values))
    config = {"name": config_name(entry), "modes": entry["modes"], "init": entry["init"], "input": entry["input"],
              "shared": entry["shared"], "forward_args": fwd_specs, "forward_outputs": output_specs(run["outs"]),
              "forward_reference": forward_reference, "args": bwd_specs, "outputs": outputs,
              "reference": {"autograd_of": "forward_reference", "ops": forward_reference["ops"]},
              "warnings": warnings}
    if prelude:
        config["prelude"] = prelude
    return config


def check_task_backward_fn(module, run):
    """A task that ships its own backward_fn: its results should be autograd's gradients."""
    try:
        with torch.no_grad():
            result = module.AutogradFunction.backward_fn(*run["bwd_values"])
    except Exception as e:
        return [f"the task's own backward_fn fails: {type(e).__name__}: {e}"]
    result = list(result) if isinstance(result, (list, tuple)) else [result]
    warnings = []
    for k, (r, i) in enumerate(zip(result, run["gradient_of"])):
        g = run["reference_grads"][i] if i >= 0 else None
        if not isinstance(g, torch.Tensor) or not isinstance(r, torch.Tensor):
            continue
        if r.shape != g.shape or not torch.allclose(r, g, rtol=1e-4, atol=1e-5):
            warnings.append(f"the task's own backward_fn output {k} differs from autograd's gradient of "
                            f"`{run['fwd_names'][i]}`; kforge checks kernels against autograd")
    return warnings


def check_reference(out_dir, reference, specs, values, expected, device):
    """Loads the saved reference back and checks that it reproduces the Python result (`expected`,
    computed on `device`), on that device. A traced graph that holds the CPU it was traced on runs
    on the CPU instead, compared with a tolerance for two devices' rounding (a GEMM of 8192 terms
    differs in the fifth digit between them); a wrong trace is wrong by far more."""
    if reference["call"] == "all_args":
        call_args = values
    else:
        call_args = [v for v, s in zip(values, specs) if s["kind"] not in ("none", "scalar", "int_list")]
    path = os.path.join(out_dir, reference["file"])
    rtol, atol = 1e-5, 1e-6
    try:
        with torch.no_grad():
            got = outputs_of(torch.jit.load(path, map_location=device)(*[to_device(v, device) for v in call_args]),
                             "reference")
    except ExportError:
        raise
    except Exception:  # noqa: BLE001  (a device in the graph: run where it was traced)
        if device.type == "cpu":
            raise
        cpu = torch.device("cpu")
        with torch.no_grad():
            got = outputs_of(torch.jit.load(path, map_location=cpu)(*[to_device(v, cpu) for v in call_args]),
                             "reference")
        rtol, atol = 1e-3, 1e-3 * max([e.abs().max().item() for e in expected if e.numel()] + [1e-6])
    got = [g.to(device) for g in got]
    expected = [e.to(device) for e in expected]
    if len(got) != len(expected) or not all(torch.allclose(g, e, rtol=rtol, atol=atol) for g, e in zip(got, expected)):
        raise ExportError(f"the TorchScript reference {reference['file']} does not reproduce the Python function")


# ----------------------------------------------------------------------------------------------


def export(task_dir, out_dir):
    work_dir = tempfile.mkdtemp(prefix="kforge_export_")
    sys.path.insert(0, work_dir)
    try:
        torch.set_num_threads(max(1, min(8, os.cpu_count() or 1)))
        global FAST_DRAWS
        FAST_DRAWS = compute_device().type == "cuda"
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        directions = {}
        # A direction that cannot be exported says why; the task fails only if none can be.
        for direction, export_config in (("forward", export_forward_config), ("backward", export_backward_config)):
            if not os.path.exists(os.path.join(task_dir, f"func_{direction}.py")):
                continue
            try:
                directions[direction] = export_direction(task_dir, out_dir, work_dir, direction, export_config)
            except ExportError as e:
                directions[direction] = {"error": str(e)}
        if all("error" in d for d in directions.values()):
            raise ExportError("; ".join(d["error"] for d in directions.values()))
        return directions
    finally:
        sys.path.remove(work_dir)
        shutil.rmtree(work_dir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", required=True, help="robust-kbench task folder")
    parser.add_argument("--cache-root", required=True, help="folder that holds exports by content hash")
    parser.add_argument("--force", action="store_true", help="export again even if cached")
    opts = parser.parse_args()
    task_dir = os.path.abspath(opts.task)
    try:
        if not os.path.isdir(task_dir):
            raise ExportError(f"{opts.task}: no such task folder")
        digest = content_hash(task_dir)
        final_dir = os.path.join(os.path.abspath(opts.cache_root), digest)
        if os.path.exists(os.path.join(final_dir, "task.json")) and not opts.force:
            print(final_dir)
            return 0
        started = time.monotonic()
        global torch
        import torch  # noqa: E402  (imported late: a cache hit needs no torch)

        os.makedirs(opts.cache_root, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=f".{digest}.", dir=opts.cache_root)
        try:
            directions = export(task_dir, staging)
            document = {"format": FORMAT_VERSION, "task": os.path.basename(task_dir), "task_dir": task_dir,
                        "content_hash": digest, "torch_version": torch.__version__, "directions": directions,
                        "export_device": str(compute_device()), "export_seconds": phase_seconds(started)}
            publish(staging, final_dir, "task.json", document)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        print(final_dir)
        return 0
    except ExportError as e:
        print(f"export failed: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
