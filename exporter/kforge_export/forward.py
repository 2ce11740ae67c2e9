"""One forward config: its arguments, outputs and reference; the probe config also runs the task
filters and checks the reference."""
import json
import os
import time

import torch

from .arguments import capture_forward, describe_args, fixed_arguments
from .graph import graph_ops, trace_graph
from .reference_writer import check_reference
from .running import compute_device, meta_outputs, output_specs, outputs_of, to_device
from .support import finite_json, phase
from .task_filters import FILTER_BUDGET_SECONDS, filter_warnings
from .task_loading import config_name


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

        def rerun():
            with torch.no_grad():
                return outputs_of(fn(*[to_device(v, device) for v in values]), "forward_fn")

        with phase("check"):
            warnings += check_reference(out_dir, reference, specs, values, outs, device, rerun)
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
            "graph": write_graph(fn, names, values, out_dir, f"graph_forward_config{index}.json"),
            "warnings": warnings, "probe": probe}


def write_graph(fn, names, values, out_dir, file_name, autograd=False, finish=None):
    """The config's ATen graph (graph.py) in its own file; task.json gets the file, the operators
    and the node count, or why there is no graph. `finish`: what the traced graph goes through
    before it is written (the backward direction numbers its inputs as the kernel's arguments)."""
    with phase("graph"):
        graph = trace_graph(fn, names, values, autograd)
        if finish is not None and "error" not in graph:
            graph = finish(graph)
    if "error" in graph:
        return graph
    with open(os.path.join(out_dir, file_name), "w", encoding="utf-8") as f:
        json.dump(finite_json(graph), f, separators=(",", ":"), allow_nan=False)
    return {"file": file_name, "ops": graph_ops(graph), "nodes": len(graph["nodes"])}
