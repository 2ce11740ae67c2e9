#!/usr/bin/env python3
"""Turns KernelBench problem files into task folders in robust-kbench's format.

A KernelBench problem defines `class Model(nn.Module)`, built as `Model(*get_init_inputs())` and
called as `model(*get_inputs())`, with its sizes as module-level constants. For each problem this
writes OUT/<problem name>/ holding:
  - kernelbench_problem.py: the problem file, unchanged;
  - func_forward.py: `forward_fn`, `Model`, `get_inputs` and `input_names` as robust-kbench tasks
    have them. forward_fn takes the problem's inputs in order, then the model's parameters in
    `named_parameters()` order, then its buffers in `named_buffers()` order (dots in their names
    become underscores); that is what a kernel's `forward` receives. The constructor's arguments
    are constants of the task: forward_fn runs the problem's own module with the tensors it is given
    in place of its own, so it computes exactly what KernelBench's model computes, in the
    mode KernelBench calls it (a freshly built module: training mode);
  - config_forward.json: one config with the file's sizes (its integer, float and boolean module
    constants), and one more per --sizes given; all of them in the multi lists; the tolerance
    KernelBench checks outputs with (atol = rtol = 1e-2).

Usage: import_kernelbench.py --out DIR [--sizes NAME=VALUE[,NAME=VALUE...]]... [--shrink F] PROBLEM.py...
Prints one line per problem (`imported NAME: DIR` or `failed NAME: reason`); exit status 0 when all
were imported, 1 when some failed, 2 on a usage error.
"""
import argparse
import ast
import inspect
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernelbench_task import load_problem, size_constants  # noqa: E402  (shared with the task files)


class ImportFailure(Exception):
    """A problem that cannot be imported, with the reason."""


def parse_sizes(text):
    """`batch_size=8,dim=1024` -> {"batch_size": 8, "dim": 1024} (ints, floats, true/false)."""
    sizes = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, eq, value = part.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_]\w*", name.strip()):
            raise ValueError(f"--sizes {text!r}: `{part}` is not NAME=VALUE")
        value = value.strip()
        if value.lower() in ("true", "false"):
            sizes[name.strip()] = value.lower() == "true"
            continue
        try:
            sizes[name.strip()] = int(value)
        except ValueError:
            try:
                sizes[name.strip()] = float(value)
            except ValueError:
                raise ValueError(f"--sizes {text!r}: `{value}` is not a number or true/false") from None
    return sizes


def python_name(name, taken):
    base = re.sub(r"\W", "_", name)
    if not re.match(r"[A-Za-z_]", base):
        base = "t_" + base
    candidate, k = base, 2
    while candidate in taken:
        candidate, k = f"{base}_{k}", k + 1
    taken.add(candidate)
    return candidate


def forward_parameter_names(problem, count_inputs):
    """The names of Model.forward's inputs, in order; None when it takes *args. KernelBench calls
    `model(*get_inputs())`, so a parameter with a default (`forward(self, x, h0=None)`) is an input
    only where get_inputs() gives it: then `count_inputs()` says how many it gives."""
    try:
        params = list(inspect.signature(problem.Model.forward).parameters.values())[1:]
    except (TypeError, ValueError):
        return None
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.default is not p.empty for p in positional):
        positional = positional[:max(count_inputs(), sum(p.default is p.empty for p in positional))]
    return [p.name for p in positional]


TASK_FILE = '''"""KernelBench problem {problem_file} as a robust-kbench task (written by `kforge import`).

forward_fn's arguments, which a kernel's `forward` receives in this order:
{argument_table}
The problem's inputs come first (get_inputs()), then the module's parameters (named_parameters()),
then its buffers (named_buffers()). The constructor's arguments are constants of the task:
    Model({constructor})
forward_fn runs the problem's own module with the tensors it is given, in the mode KernelBench
calls it (a freshly built module: training mode). Configs set the problem's module-level
constants: {sizes}.
"""
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernelbench_task import call_with_tensors, load_problem  # noqa: E402

PROBLEM_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernelbench_problem.py")
TENSOR_NAMES = {tensor_names!r}  # the module's parameters, then its buffers, as named_* gives them
_built = {{}}  # the problem module of the last Model built: forward_fn runs it


def forward_fn({signature}):
    module = _built["module"]
    tensors = dict(zip(TENSOR_NAMES, [{tensor_args}]))
    return call_with_tensors(module, tensors, ({input_args}))


class Model(nn.Module):
    def __init__(self, **sizes):
        super().__init__()
        problem = load_problem(PROBLEM_FILE, sizes)
        self.problem = problem.Model(*problem.get_init_inputs())
        _built["module"] = self.problem

    def forward(self, {input_signature}fn=forward_fn):
        tensors = [t for _, t in self.problem.named_parameters()] + [t for _, t in self.problem.named_buffers()]
        return fn({input_call}*tensors)


def get_inputs(**sizes):
    return load_problem(PROBLEM_FILE, sizes).get_inputs()


input_names = {input_names!r}
'''


def shrunk(sizes, factor):
    """The sizes with every integer of at least 32 divided by `factor` (never below 16): a problem
    small enough for a quick check on a CPU. Smaller integers (axes, kernel sizes, strides, groups)
    stay as they are, and sizes that are powers of two stay divisible by the small ones."""
    def small(v):
        if isinstance(v, tuple):
            return [small(x) for x in v]
        return max(16, v // factor) if isinstance(v, int) and not isinstance(v, bool) and v >= 32 else v
    return {k: small(v) for k, v in sizes.items()}


def import_problem(path, out_root, extra_sizes, shrink=1):
    stem = os.path.splitext(os.path.basename(path))[0]
    with open(path, encoding="utf-8") as f:
        source = f.read()
    try:
        ast.parse(source)
    except SyntaxError as e:
        raise ImportFailure(f"not valid Python: {e}") from e
    try:
        sizes = size_constants(os.path.abspath(path), tuples=shrink > 1)
    except Exception as e:
        raise ImportFailure(f"importing it failed: {type(e).__name__}: {e}") from e
    if shrink > 1:
        sizes = shrunk(sizes, shrink)
    for extra in extra_sizes:
        unknown = sorted(set(extra) - set(sizes))
        if unknown:
            raise ImportFailure(f"--sizes names {', '.join(unknown)}, which the problem does not define "
                                f"(its sizes: {', '.join(sizes) or 'none'})")
    try:
        problem = load_problem(os.path.abspath(path), {})
    except Exception as e:
        raise ImportFailure(f"importing it failed: {type(e).__name__}: {e}") from e
    for attr in ("Model", "get_inputs", "get_init_inputs"):
        if not hasattr(problem, attr):
            raise ImportFailure(f"defines no `{attr}`; a KernelBench problem needs Model, get_inputs and "
                                f"get_init_inputs")
    import torch

    try:
        init_inputs = list(problem.get_init_inputs())
        torch.manual_seed(0)
        module = problem.Model(*init_inputs)
    except Exception as e:
        raise ImportFailure(f"building Model(*get_init_inputs()) failed: {type(e).__name__}: {e}") from e
    if any(isinstance(v, torch.Tensor) for v in init_inputs):
        raise ImportFailure("get_init_inputs() returns tensors; only numbers and other constants can become "
                            "constants of the task")
    def count_inputs():  # at the first config's sizes (the shrunk ones where asked)
        try:
            return len(load_problem(os.path.abspath(path), sizes).get_inputs())
        except Exception as e:
            raise ImportFailure(f"get_inputs() failed: {type(e).__name__}: {e}") from e

    names_in = forward_parameter_names(problem, count_inputs)
    if names_in is None:  # forward(*args): how many inputs get_inputs() makes says it
        names_in = [f"input{i}" for i in range(count_inputs())]
    taken = set()
    names_in = [python_name(n, taken) for n in names_in]
    parameters = [n for n, _ in module.named_parameters()]
    tensor_names = parameters + [n for n, _ in module.named_buffers()]
    names_tensors = [python_name(n, taken) for n in tensor_names]
    rows = [f"    {n:<24} input {i} of get_inputs()" for i, n in enumerate(names_in)]
    rows += [f"    {n:<24} {'parameter' if original in parameters else 'buffer'} {original}"
             for original, n in zip(tensor_names, names_tensors)]
    constructor = ", ".join(repr(v) for v in init_inputs)
    call = ", ".join(names_in)
    text = TASK_FILE.format(
        problem_file=os.path.basename(path), argument_table="\n".join(rows) or "    (none)",
        constructor=constructor, sizes=", ".join(sizes) or "none", tensor_names=tensor_names,
        signature=", ".join(names_in + names_tensors), tensor_args=", ".join(names_tensors),
        input_args=call + ("," if len(names_in) == 1 else ""), input_signature="".join(f"{n}, " for n in names_in),
        input_call="".join(f"{n}, " for n in names_in), input_names=names_in)
    configs = [dict(sizes)] + [{**sizes, **extra} for extra in extra_sizes]
    # KernelBench's own correctness check: torch.allclose(atol=1e-2, rtol=1e-2)
    config = {"single_input_configs": [{}], "single_init_configs": [{}], "single_shared_configs": [configs[0]],
              "multi_input_configs": [{}], "multi_init_configs": [{}], "multi_shared_configs": configs,
              "tolerance": {"atol": 1e-2, "rtol": 1e-2}}
    target = os.path.join(out_root, stem)
    staging = tempfile.mkdtemp(prefix=f".{stem}.", dir=out_root)
    try:
        shutil.copyfile(path, os.path.join(staging, "kernelbench_problem.py"))
        shutil.copyfile(os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernelbench_task.py"),
                        os.path.join(staging, "kernelbench_task.py"))
        with open(os.path.join(staging, "func_forward.py"), "w", encoding="utf-8") as f:
            f.write(text)
        with open(os.path.join(staging, "config_forward.json"), "w", encoding="utf-8") as f:
            json.dump(config, f, indent=2)
            f.write("\n")
        if os.path.isdir(target):
            shutil.rmtree(target)
        os.rename(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder to write one task folder per problem into")
    parser.add_argument("--sizes", action="append", default=[], metavar="NAME=VALUE[,...]",
                        help="one more config: the file's sizes with these set (may be given several times)")
    parser.add_argument("--shrink", type=int, default=1, metavar="F",
                        help="divide the file's sizes of 32 or more by F (not below 16): small problems for quick "
                             "checks; the file's own sizes are not a config then")
    parser.add_argument("problems", nargs="+", help="KernelBench problem files")
    opts = parser.parse_args()
    try:
        extra_sizes = [parse_sizes(s) for s in opts.sizes]
    except ValueError as e:
        print(f"import: {e}", file=sys.stderr)
        return 2
    os.makedirs(opts.out, exist_ok=True)
    failed = 0
    for path in opts.problems:
        stem = os.path.splitext(os.path.basename(path))[0]
        try:
            if not os.path.isfile(path):
                raise ImportFailure("no such file")
            print(f"imported {stem}: {import_problem(path, opts.out, extra_sizes, opts.shrink)}", flush=True)
        except ImportFailure as e:
            failed += 1
            print(f"failed {stem}: {path}: {e}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
