"""What a task folder written by `kforge import --from kernelbench` runs with (a copy sits in each
such folder, beside the problem file and func_forward.py): loading the problem with its sizes set,
and running its module with given tensors."""
import ast
import hashlib
import types

import torch

_loaded = {}


def call_with_tensors(module, tensors, args):
    """Runs `module(*args)` with its parameters and buffers replaced by `tensors` (by their
    named_parameters/named_buffers names), put back afterwards. torch.func.functional_call does the
    same but refuses to be traced, and the exporter traces this call. The recurrent modules' lists
    of their weights (nn.RNN, nn.LSTM, nn.GRU keep `_flat_weights` beside their parameters) are
    rebuilt from the given tensors. Tensors the module keeps as plain attributes and its forward
    replaces (an RNN's hidden state, `self.hidden = ...`) are put back too: each call starts from
    the module as it was built, as KernelBench's first call does, so that the task is a function
    of its arguments (a forward that writes into one in place changes its values, as it does in
    KernelBench, but a call with gradients does not make it require grad)."""
    saved = []
    state = [(m, dict(m.__dict__)) for m in module.modules()]
    try:
        # A call with gradients that writes its argument into such a tensor in place
        # (33_VanillaRNN's self.hidden.copy_(initial_hidden)) would leave it requiring grad, and a
        # later trace could not take it as a constant: the call writes into an alias. A call on meta
        # tensors (the exporter's graph of a large config) gets a meta copy, which they can be
        # written into.
        meta = any(isinstance(a, torch.Tensor) and a.is_meta for a in args)
        for m, attributes in state:
            for name, value in attributes.items():
                if not isinstance(value, torch.Tensor):
                    continue
                if meta and not value.is_meta:
                    m.__dict__[name] = value.to("meta")
                elif torch.is_grad_enabled() and not value.requires_grad:
                    m.__dict__[name] = value.detach()
        for name, tensor in tensors.items():
            owner_name, _, leaf = name.rpartition(".")
            owner = module.get_submodule(owner_name) if owner_name else module
            table = owner._parameters if leaf in owner._parameters else owner._buffers
            saved.append((table, leaf, table[leaf]))
            table[leaf] = tensor
        for m, _ in state:
            if hasattr(m, "_flat_weights_names") and hasattr(m, "_flat_weights"):
                m._flat_weights = [getattr(m, n) if hasattr(m, n) else None for n in m._flat_weights_names]
        return module(*args)
    finally:
        for table, leaf, original in reversed(saved):
            table[leaf] = original
        for m, attributes in state:
            m.__dict__.clear()
            m.__dict__.update(attributes)


def assigned_names(statement):
    """The names a top-level statement assigns (`a = ...`, `a, b = ...`, `a: int = ...`)."""
    targets = statement.targets if isinstance(statement, ast.Assign) else (
        [statement.target] if isinstance(statement, ast.AnnAssign) else [])
    names = []
    for target in targets:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                names.append(node.id)
    return names


def load_problem(path, sizes):
    """The problem file at `path` run as a module, with each module-level constant named in `sizes`
    set to its value right after the file assigns it, so constants computed from it follow."""
    key = (path, tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in sizes.items())))
    if key in _loaded:
        return _loaded[key]
    with open(path, encoding="utf-8") as f:
        source = f.read()
    tree = ast.parse(source, filename=path)
    body = []
    for statement in tree.body:
        body.append(statement)
        for name in assigned_names(statement):
            if name in sizes:
                value = sizes[name]
                value = tuple(value) if isinstance(value, list) else value  # a shape, from JSON
                setter = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=ast.Constant(value))
                body.append(ast.copy_location(setter, statement))
    tree.body = body
    ast.fix_missing_locations(tree)
    digest = hashlib.sha1(repr(key).encode()).hexdigest()[:12]
    module = types.ModuleType(f"kernelbench_problem_{digest}")
    module.__file__ = path
    exec(compile(tree, path, "exec"), module.__dict__)  # noqa: S102  (the user's own problem file)
    _loaded[key] = module
    return module


def is_literal(node):
    """A number written out (`16`, `-1.0`, `True`, `1024 * 2`: arithmetic of numbers only), or a
    tuple of them (`24, 48, 48`)."""
    if isinstance(node, ast.Tuple):
        return all(is_literal(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return is_literal(node.operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Pow)):
        return is_literal(node.left) and is_literal(node.right)
    return isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float))


def size_constants(path, tuples=False):
    """The problem's sizes: its module-level constants assigned a number written out (integers,
    floats, booleans), in the order the file assigns them; with `tuples`, tuples of integers
    (`input_shape = (4096,)`) as well. Constants computed from others (`dim2 = dim1 * 2`) are not
    sizes of their own: they follow what they are computed from."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    module = load_problem(path, {})
    sizes = {}
    for statement in tree.body:
        value_node = getattr(statement, "value", None)
        if not isinstance(statement, (ast.Assign, ast.AnnAssign)) or value_node is None or not is_literal(value_node):
            continue
        for name in assigned_names(statement):
            value = getattr(module, name, None)
            if isinstance(value, (bool, int, float)):
                sizes[name] = value
            elif tuples and isinstance(value, tuple) and all(type(v) is int for v in value):
                sizes[name] = value
    return sizes
