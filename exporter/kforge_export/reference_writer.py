"""The TorchScript references: a task function scripted once or traced per config, saved, and
checked to reproduce the Python function."""
import ast
import importlib.util
import inspect
import os
import re
import sys
import textwrap
import warnings as python_warnings

import torch

from .running import allclose, compute_device, outputs_of, to_device, to_meta
from .support import ExportError, phase


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
        if meta_outputs is None:
            devices_follow_inputs(traced.graph, torch.device("cpu"))
        file_name = f"{fn_name}_config{config_index}.pt"
        self.ops[file_name] = graph_ops(traced.inlined_graph)
        torch.jit.save(traced, os.path.join(self.out_dir, file_name))
        if meta_outputs is None and fn_name not in self.first_trace:
            self.first_trace[fn_name] = (file_name, config_index, clean, trace_signature(specs, values), traced)
        return file_name


def devices_follow_inputs(graph, traced_on):
    """Rewrites the device constants a trace recorded (`h0.to(x.device)`, `torch.zeros(...,
    device=x.device)`: the device the trace ran on, `traced_on`) into the device of the graph's
    first tensor input, so that the saved reference runs on whichever device its inputs are:
    traced on the CPU, it would otherwise move a tensor to the CPU beside inputs on the GPU
    (KernelBench's 34_VanillaRNNHidden). A task's tensors all live on one device, so the device
    everything was on during the trace is the inputs' device. A graph without a tensor input is
    left as it is."""
    inputs = [i for i in graph.inputs() if isinstance(i.type(), torch._C.TensorType)]
    if not inputs:
        return

    def visit(block):
        for node in list(block.nodes()):
            for inner in node.blocks():
                visit(inner)
            if (node.kind() == "prim::Constant" and isinstance(node.output().type(), torch._C.DeviceObjType)
                    and node.output().toIValue() == traced_on):
                device = graph.create("prim::device", [inputs[0]])
                device.output().setType(torch._C.DeviceObjType.get())
                device.insertBefore(node)
                node.output().replaceAllUsesWith(device.output())
                node.destroy()

    visit(graph.block())
    torch._C._jit_pass_lint(graph)


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


EVALUATOR_TOLERANCE = 1e-5  # float32's default atol and rtol in the evaluator (docs/evaluator.md)


def check_reference(out_dir, reference, specs, values, expected, device, rerun=None):
    """Loads the saved reference back and checks that it reproduces the Python result (`expected`,
    computed on `device`), on that device. A traced graph that holds the CPU it was traced on runs
    on the CPU instead, compared with a tolerance for two devices' rounding (a GEMM of 8192 terms
    differs in the fifth digit between them); a wrong trace is wrong by far more. Where it does not
    reproduce it and `rerun` (the Python function run again) is given, a function that differs
    from itself between runs within the evaluator's tolerance (cuDNN's transposed convolutions
    add with atomics) is checked against that tolerance instead: the warnings this returns say
    so. Dropout, and noise beyond the tolerance, are still refused."""
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
    except torch.cuda.OutOfMemoryError as e:
        # Not a graph bound to the CPU: the GPU is full (other processes' tensors, seen on
        # KernelBench level 1 at full size), and the CPU's rounding would fail the check instead.
        raise ExportError(f"the TorchScript reference {reference['file']} ran out of GPU memory: "
                          f"{str(e).splitlines()[0]}") from e
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
    refused = ExportError(f"the TorchScript reference {reference['file']} does not reproduce the Python function")
    if len(got) != len(expected):
        raise refused
    if all(allclose(g, e, rtol=rtol, atol=atol) for g, e in zip(got, expected)):
        return []
    if rerun is None:
        raise refused
    again = [a.to(device) for a in rerun()]
    if len(again) != len(expected):
        raise refused
    warnings = []
    for k, (g, e, a) in enumerate(zip(got, expected, again)):
        if allclose(g, e, rtol=rtol, atol=atol):
            continue
        # Rounding, not randomness: the function does differ from itself, and a second run and the
        # reference are both within the evaluator's float32 tolerance of the first (atol = rtol =
        # 1e-5), so that a kernel is judged alike against any run of it.
        within = [x.shape == e.shape and allclose(x, e, rtol=EVALUATOR_TOLERANCE, atol=EVALUATOR_TOLERANCE)
                  for x in (a, g)]
        if torch.equal(a, e) or not all(within):
            raise refused
        spread = (a.double() - e.double()).abs().max().item()
        warnings.append(f"the function's output {k} differs between two runs by up to {spread:.3g}, within the "
                        f"evaluator's float32 tolerance: the reference was checked against it, not to rounding")
    return warnings
