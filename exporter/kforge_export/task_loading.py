"""Loading a robust-kbench task (its module and config sets) and building one config under a
seed, with its draws recorded."""
import hashlib
import importlib.util
import itertools
import json
import os
import re
import sys

import torch

from . import random_draws
from .random_draws import DrawRecorder, restore_resident_draws
from .support import ExportError, MODES, phase


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
    init = {**entry["init"], **entry["shared"]}
    inp = {**entry["input"], **entry["shared"]}
    torch.manual_seed(seed)
    random_draws.RESIDENT_DRAWS = resident and random_draws.FAST_DRAWS
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
