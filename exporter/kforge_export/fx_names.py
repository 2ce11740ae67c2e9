"""torch.fx's node names in constant time, for torch versions whose namer is quadratic.

torch.fx before 2.1 (Debian's torch is 1.13) names a graph's node by trying base_1, base_2, ...
until one is free, so the k-th node of one operator costs k tries: an RNN unrolled over its steps
makes tens of thousands of nodes of a few operators, and tracing KernelBench's 36_LSTMHn at full
size (46,000 operators) spent 108 of its 153 s there (cProfile, `torch.fx.graph.create_name`).
Later versions remember the last number each base got and start there; `linear_node_names` does
the same while it is active, and nothing where torch's own namer already does it. Names stay
unique; the exported graph does not use them (its nodes are numbered), so it is the same either way.
"""
import contextlib


def _create_name(namespace, candidate, obj):
    """torch 1.13's _Namespace.create_name, starting each base's search where the last one ended."""
    if obj is not None and obj in namespace._obj_to_name:
        return namespace._obj_to_name[obj]
    counts = namespace.__dict__.setdefault("_kforge_base_count", {})
    candidate = namespace._illegal_char_regex.sub("_", candidate)
    if candidate[0].isdigit():
        candidate = f"_{candidate}"
    match = namespace._name_suffix_regex.match(candidate)
    base, num = (candidate, None) if match is None else (match.group(1), int(match.group(2)))
    candidate = base if num is None else f"{base}_{num}"
    num = num if num else counts.get(base, 0)
    while candidate in namespace._used_names or namespace._is_illegal_name(candidate, obj):
        num += 1
        candidate = f"{base}_{num}"
    namespace._used_names.setdefault(candidate, 0)
    counts[base] = num
    if obj is None:
        namespace._unassociated_names.add(candidate)
    else:
        namespace._obj_to_name[obj] = candidate
    return candidate


def quadratic_namer():
    """torch.fx's _Namespace class where its create_name is the quadratic one, else None."""
    from torch.fx import graph as fx_graph

    namespace = getattr(fx_graph, "_Namespace", None)
    if namespace is None or hasattr(namespace(), "_base_count"):
        return None
    needed = ("_obj_to_name", "_used_names", "_unassociated_names", "_illegal_char_regex", "_name_suffix_regex")
    if not all(hasattr(namespace(), name) for name in needed) or not hasattr(namespace, "_is_illegal_name"):
        return None  # a torch whose namer this module does not know: left as it is
    return namespace


@contextlib.contextmanager
def linear_node_names():
    """While active, torch.fx names nodes in constant time (see the module's docstring)."""
    namespace = quadratic_namer()
    if namespace is None:
        yield
        return
    original = namespace.create_name
    namespace.create_name = _create_name
    try:
        yield
    finally:
        namespace.create_name = original
