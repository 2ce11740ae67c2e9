"""A direction's computation as an ATen-level graph, per config: what kforge's kernel generator
reads (issue 36). The function is traced with torch.fx's make_fx on meta tensors (shapes, dtypes
and strides, nothing computed), so a large config costs no more than a small one; a tensor the
function makes from data (torch.tensor(0.5, device=x.device)) is made on the CPU meanwhile, so its
values stay known.

The graph is a list of nodes in execution order, each with an id:
  {"id": 0, "op": "input", "arg": 2, "name": "x", "meta": {...}}       an argument of the function
                                                                       ("element": k too for the k-th
                                                                       tensor of a list argument)
  {"id": 3, "op": "aten.addmm.default", "args": [...], "kwargs": {...}, "meta": {...}}
  {"id": 4, "op": "getitem", "args": [{"node": 3}, 0], "meta": {...}}  one output of a tuple
  {"id": 9, "op": "constant", "name": "_tensor_constant0", "value": [0.5], "meta": {...}}
                                                                       a tensor the function made
                                                                       (its values up to 16 of them)
  {"id": 10, "op": "output", "args": [{"node": 8}]}
An argument of a node is {"node": id}, a number, a bool, a string (a dtype, device or layout by its
name), null, or a list of these. "meta" is {"shape", "dtype", "stride"} for a tensor, a list of
them for a tuple of tensors. Arguments that are not tensors are constants of the config: the graph
holds their values. A function that cannot be traced gets {"error": why} instead, naming the
operator where torch does: the export goes on without its graph."""
import contextlib
import operator

import torch

from .decompositions import backward_decompositions
from .fake_values import shared_fake_mode
from .fx_names import linear_node_names
from .running import to_meta

REAL_TRACE_ELEMENTS = 1 << 24  # inputs small enough to trace on zeros when meta tensors fail
CONSTANT_ELEMENTS = 16  # a tensor the function makes from data (torch.tensor(0.5)) is recorded up to this


def _encode(arg, ids):
    if isinstance(arg, torch.fx.Node):
        return {"node": ids[arg]}
    if isinstance(arg, (list, tuple)):
        return [_encode(a, ids) for a in arg]
    if isinstance(arg, dict):
        return {str(k): _encode(v, ids) for k, v in arg.items()}
    if arg is None or isinstance(arg, (bool, int, float, str)):
        return arg
    if isinstance(arg, (torch.dtype, torch.device, torch.layout, torch.memory_format)):
        return str(arg).replace("torch.", "")
    return repr(arg)


def _op_name(node):
    if node.target is operator.getitem:
        return "getitem"
    return str(node.target)


def _meta_constants(module):
    """Whether the traced module holds small tensors the function made whose values tracing on meta
    tensors lost."""
    for node in module.graph.nodes:
        value = getattr(module, str(node.target), None) if node.op == "get_attr" else None
        if isinstance(value, torch.Tensor) and value.device.type == "meta" and value.numel() <= CONSTANT_ELEMENTS:
            return True
    return False


@contextlib.contextmanager
def _data_on_cpu(moved=False):
    """torch.tensor(data, device=x.device) made on the CPU while tracing on meta tensors, so the
    graph keeps its values (a 0-d CPU tensor mixes with meta tensors as a number does). `moved`:
    made on the CPU, then copied to the meta device (the graph's constant, then a _to_copy), for
    operators that take no CPU tensor beside meta ones (SwinV2's clamp(x, max=torch.log(...)))."""
    original = torch.tensor

    def tensor(data, *args, device=None, **kwargs):
        if device is not None and torch.device(device).type == "meta":
            made = original(data, *args, **kwargs)
            return made.to(device) if moved else made
        return original(data, *args, device=device, **kwargs)

    torch.tensor = tensor
    try:
        yield
    finally:
        torch.tensor = original


def trace_graph(fn, names, values, autograd=False):
    """fn's graph for one config's argument `values` (their `names` label the inputs). `autograd`:
    fn computes gradients (torch.autograd.grad), traced into the operators of the backward pass;
    nodes nothing uses (autograd's shape assertions) are left out."""
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.fx.passes.shape_prop import ShapeProp

    tensor_at = [i for i, v in enumerate(values) if isinstance(v, torch.Tensor)]

    def with_constants(*tensors):
        args = list(values)
        for i, t in zip(tensor_at, tensors):
            args[i] = t
        return fn(*args)

    def trace(inputs):
        with torch.enable_grad() if autograd else torch.no_grad(), linear_node_names():
            with shared_fake_mode():  # not around ShapeProp, which would propagate fake tensors
                module = make_fx(with_constants,
                                 decomposition_table=backward_decompositions() if autograd else None)(*inputs)
            if autograd:
                module.graph.eliminate_dead_code()
                module.recompile()
            if not _traced_meta_complete(module):
                ShapeProp(module).propagate(*inputs)
        return module

    small = sum(values[i].numel() for i in tensor_at) <= REAL_TRACE_ELEMENTS
    try:
        meta = [to_meta(values[i]) for i in tensor_at]
        try:
            with _data_on_cpu():
                module = trace(meta)
        except Exception:  # noqa: BLE001  (a CPU tensor of more than one element meets a meta one)
            try:
                with _data_on_cpu(moved=True):
                    module = trace(meta)
            except Exception:  # noqa: BLE001
                module = trace(meta)
        if small and _meta_constants(module):  # torch.tensor(0.5, device=x.device): values lost
            module = trace([torch.zeros_like(values[i]) for i in tensor_at])
    except Exception as e:  # noqa: BLE001  (any failure: the export goes on without a graph)
        error = f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
        # A function that makes tensors of its own on the CPU (torch.ones(c)) mixes them with meta
        # tensors: trace it on zeros instead, where that costs little.
        if not small:
            return {"error": f"cannot trace the function on meta tensors: {error}"}
        try:
            module = trace([torch.zeros_like(values[i]) for i in tensor_at])
        except Exception as e2:  # noqa: BLE001
            return {"error": f"cannot trace the function on meta tensors: {error}; nor on zeros: "
                             f"{type(e2).__name__}: {str(e2).splitlines()[0][:300] if str(e2) else ''}"}
    ids, nodes, placeholder = {}, [], 0
    for node in module.graph.nodes:
        ids[node] = len(nodes)
        tensor_meta = _tensor_meta(node)
        entry = {"id": ids[node]}
        if node.op == "placeholder":
            index = tensor_at[placeholder]
            placeholder += 1
            entry.update({"op": "input", "arg": index, "name": names[index] if index < len(names) else ""})
        elif node.op == "get_attr":
            entry.update({"op": "constant", "name": str(node.target)})
            value = getattr(module, str(node.target), None)
            if isinstance(value, torch.Tensor) and value.numel() <= CONSTANT_ELEMENTS and value.device.type != "meta":
                entry["value"] = value.detach().cpu().reshape(-1).tolist()
        elif node.op == "call_function":
            entry.update({"op": _op_name(node), "args": _encode(node.args, ids),
                          "kwargs": _encode(node.kwargs, ids)})
        elif node.op == "output":
            outputs = node.args[0]
            entry.update({"op": "output",
                          "args": _encode(list(outputs) if isinstance(outputs, (list, tuple)) else [outputs], ids)})
        else:
            return {"error": f"cannot describe the traced node {node.name} ({node.op})"}
        if tensor_meta is not None and node.op != "output":
            entry["meta"] = _meta_of_tensor_meta(tensor_meta)
        nodes.append(entry)
    return {"nodes": nodes}


def _tensor_meta(node):
    """A node's TensorMetadata, or a tuple of them (and of its values that are not tensors) for a
    node that returns several, as ShapeProp records them; None for a node that returns no tensor."""
    from torch.fx.passes.shape_prop import _extract_tensor_metadata

    if "tensor_meta" in node.meta:
        return node.meta["tensor_meta"]
    value = node.meta.get("val")
    if isinstance(value, torch.Tensor):  # a constant the function made (torch 2 records no tensor_meta)
        return _extract_tensor_metadata(value)
    if isinstance(value, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in value):
        return tuple(_extract_tensor_metadata(v) if isinstance(v, torch.Tensor) else v for v in value)
    return None


def _traced_meta_complete(module):
    """Whether make_fx recorded every node's value, so the graph's shapes, dtypes and strides need
    no second pass (ShapeProp, which runs the graph again: 44 s of 41_GRUBidirectional's export on
    torch 2.11). make_fx records the metadata of a tensor an operator returns
    (node.meta["tensor_meta"]) on every torch, and from torch 2 on each node's value itself
    (node.meta["val"]: tuples, and a constant the function made); torch 1.13 records neither for a
    node that returns a tuple or for a made constant, so a graph with one needs ShapeProp there."""
    return all("tensor_meta" in node.meta or node.meta.get("val") is not None
               for node in module.graph.nodes if node.op in ("placeholder", "get_attr", "call_function"))


def _meta_of_tensor_meta(tm):
    if isinstance(tm, (list, tuple)) and not hasattr(tm, "shape"):
        return [_meta_of_tensor_meta(t) for t in tm]
    return {"shape": list(tm.shape), "dtype": str(tm.dtype).replace("torch.", ""),
            "stride": list(tm.stride)}


def graph_ops(graph):
    """The distinct ATen operators of a traced graph, sorted."""
    return sorted({n["op"] for n in graph.get("nodes", []) if n["op"].startswith("aten.")})


def without_extra_inputs(graph, arguments):
    """The graph without its inputs from argument `arguments` on, which must be unused (a tensor the
    function took for its shape only); {"error": why} where one is used."""
    def refs(value):
        if isinstance(value, dict):
            if "node" in value and len(value) == 1:
                yield value["node"]
            else:
                for v in value.values():
                    yield from refs(v)
        elif isinstance(value, list):
            for v in value:
                yield from refs(v)

    nodes = graph["nodes"]
    used = {r for n in nodes for key in ("args", "kwargs") for r in refs(n.get(key))}
    extra = {n["id"] for n in nodes if n["op"] == "input" and n["arg"] >= arguments}
    for n in nodes:
        if n["id"] in extra and n["id"] in used:
            return {"error": f"the gradients need `{n['name']}`, which backward_fn is not given"}
    renumber, kept = {}, []
    for n in nodes:
        if n["id"] in extra:
            continue
        renumber[n["id"]] = len(kept)
        kept.append(n)

    def remap(value):
        if isinstance(value, dict):
            if "node" in value and len(value) == 1:
                return {"node": renumber[value["node"]]}
            return {k: remap(v) for k, v in value.items()}
        if isinstance(value, list):
            return [remap(v) for v in value]
        return value

    out = []
    for n in kept:
        n = dict(n, id=renumber[n["id"]])
        for key in ("args", "kwargs"):
            if key in n:
                n[key] = remap(n[key])
        out.append(n)
    return {"nodes": out}
