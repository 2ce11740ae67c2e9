"""One backward config: what AutogradFunction.backward hands to backward_fn, where its results
go, a traced prelude for tensors it computes, and the reference gradients' forward."""
import ast
import inspect
import os
import re
import textwrap

import torch

from .arguments import bind_names, capture_fn_args, describe_args, describe_value, fixed_arguments
from .forward import write_graph
from .graph import without_extra_inputs
from .random_draws import float_dtype
from .reference_writer import check_reference, devices_follow_inputs
from .running import allclose, output_shapes, output_specs, outputs_of
from .support import ExportError, phase
from .task_loading import build, config_name


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
    gradient_of, last_error, miscounted = known_gradient_of.get(len(fwd_values)), None, None
    for count in [] if gradient_of is not None else [None, 2, 3, 4, 5, 6, 7, 8, 1]:
        markers = Marker(0) if count is None else tuple(Marker(i) for i in range(count))
        try:
            returned = autograd_backward(fn_cls, ctx, grads, lambda *a, **k: markers)
        except Exception as e:  # the task's own unpacking of the wrong count: try another
            last_error = e
            continue
        returned = returned if isinstance(returned, tuple) else (returned,)
        if len(returned) != len(fwd_values):
            # A backward that returns backward_fn's results as they come returns as many as it
            # makes: try the next count before saying so.
            miscounted = miscounted or (f"AutogradFunction.backward returns {len(returned)} gradients but fn "
                                        f"takes {len(fwd_values)} arguments; autograd needs one per argument")
            continue
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
    if gradient_of is None and miscounted:
        raise ExportError(miscounted)
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
    # Each with its dtype and shape, as a forward argument has them (the kernel generator's
    # dispatch reads them).
    meta = {"dtype": str(value.dtype).replace("torch.", ""), "shape": list(value.shape)}
    for i, v in enumerate(run["fwd_values"]):
        if value is v or same_tensor(value, v):
            return {"name": name, "kind": "forward_arg", "index": i, **meta}
    for k, g in enumerate(run["grads"]):
        if value is g or same_tensor(value, g):
            return {"name": name, "kind": "grad_output", "index": k, **meta}
    for k, o in enumerate(run["outs"]):
        if same_tensor(value, o) or (value.shape == o.shape and value.dtype == o.dtype and torch.equal(value, o)):
            return {"name": name, "kind": "forward_output", "index": k, **meta}
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


def list_elements(bwd_specs):
    """The tensors of backward_fn's arguments that are lists of tensors (robust-kbench's
    `x = ctx.saved_tensors`, a tuple): (argument, element, its spec), in order."""
    return [(j, e, element) for j, spec in enumerate(bwd_specs) if spec["kind"] == "tensor_list"
            for e, element in enumerate(spec["elements"])]


def gradient_function(forward_fn, run, bwd_specs, outputs):
    """forward_fn's gradients in backward_fn's order of results, as a function of backward_fn's
    arguments, then the tensors of its list arguments one by one (list_elements), then fn's tensor
    arguments backward_fn is not given (a bias, whose value no gradient needs): what the kernel
    generator's backward graph is traced from. The gradients are autograd's through forward_fn, so
    they may use only fn's arguments backward_fn is given (robust-kbench's tasks save them) and every
    output's gradient (write_backward_graph checks the first; ExportError says why for the others).
    Returns the function and the arguments not given (their indices in fn's arguments)."""
    fwd_values = run["fwd_values"]
    given, grad_at = {}, {}  # fn's argument -> the function's argument; output gradient -> the same
    places = [(j, spec) for j, spec in enumerate(bwd_specs)]
    places += [(len(bwd_specs) + k, spec) for k, (_, _, spec) in enumerate(list_elements(bwd_specs))]
    for j, spec in places:
        if spec["kind"] == "forward_arg":
            given.setdefault(spec["index"], j)
        elif spec["kind"] == "grad_output":
            grad_at.setdefault(spec["index"], j)
    missing = [i for i, v in enumerate(fwd_values) if isinstance(v, torch.Tensor) and i not in given]
    for k, i in enumerate(missing):
        given[i] = len(places) + k
    if sorted(grad_at) != list(range(len(run["grads"]))):
        raise ExportError("backward_fn is not given the gradient of every output of fn")
    targets = [o["gradient_of"] for o in outputs]
    if any(i < 0 for i in targets):
        raise ExportError("AutogradFunction.backward drops one of backward_fn's results, so the generator "
                          "does not know what to return for it")
    wrt = list(dict.fromkeys(targets))

    def gradients(*kernel_args):
        values = list(fwd_values)
        for i, j in given.items():
            values[i] = kernel_args[j].detach().requires_grad_(True) if i in wrt else kernel_args[j]
        outs = forward_fn(*values)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        got = torch.autograd.grad(outs, [values[i] for i in wrt],
                                  [kernel_args[grad_at[k]] for k in range(len(outs))], allow_unused=True)
        by_arg = {i: g if g is not None else torch.zeros_like(values[i]) for i, g in zip(wrt, got)}
        return tuple(by_arg[i] for i in targets)

    return gradients, missing


def write_backward_graph(module, run, bwd_specs, outputs, out_dir, index):
    """The backward config's ATen graph (graph.py's format, inputs numbered as backward_fn's
    arguments), or why there is none."""
    try:
        fn, missing = gradient_function(module.forward_fn, run, bwd_specs, outputs)
    except ExportError as e:
        return {"error": str(e)}
    elements = list_elements(bwd_specs)
    names = list(run["bwd_names"]) + [f"{run['bwd_names'][j]}[{e}]" for j, e, _ in elements]
    names += [run["fwd_names"][i] for i in missing]
    values = list(run["bwd_values"]) + [run["bwd_values"][j][e] for j, e, _ in elements]
    values += [run["fwd_values"][i] for i in missing]
    first = len(bwd_specs)

    def finish(graph):
        graph = without_extra_inputs(graph, first + len(elements))
        for node in graph.get("nodes", []):
            if node["op"] == "input" and node["arg"] >= first:
                node["arg"], node["element"] = elements[node["arg"] - first][:2]
        return graph

    return write_graph(fn, names, values, out_dir, f"graph_backward_config{index}.json", autograd=True,
                       finish=finish)


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
    if tensor_positions:
        devices_follow_inputs(traced.graph, fwd_values[tensor_positions[0]].device)
    file_name = f"backward_prelude_config{index}.pt"
    torch.jit.save(traced, os.path.join(out_dir, file_name))
    with torch.no_grad():
        again = outputs_of(traced(*example), "the prelude")
    if len(again) != len(expected) or not all(
            a.shape == e.shape and allclose(a, e, rtol=1e-5, atol=1e-6) for a, e in zip(again, expected)):
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
              "graph": write_backward_graph(module, run, bwd_specs, outputs, out_dir, index),
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
        if r.shape != g.shape or not allclose(r, g, rtol=1e-4, atol=1e-5):
            warnings.append(f"the task's own backward_fn output {k} differs from autograd's gradient of "
                            f"`{run['fwd_names'][i]}`; kforge checks kernels against autograd")
    return warnings
