"""Where and how the exporter runs a task's functions: the device, and outputs for their shapes
(meta tensors where nothing need be computed)."""
import os

import torch

from .support import ExportError, phase


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


CLOSE_CHUNK_ELEMENTS = 1 << 24  # what one step of `allclose` compares: its temporaries' size


def allclose(a, b, rtol, atol, equal_nan=False):
    """torch.allclose in steps of at most CLOSE_CHUNK_ELEMENTS elements where a and b have one
    shape: torch's own makes several temporaries of the whole tensor (the difference, its
    magnitude, the bound), which for a full-size KernelBench output (6.4 GB) were most of the
    export's memory."""
    if a.shape != b.shape or a.dim() == 0 or a.numel() <= CLOSE_CHUNK_ELEMENTS:
        return torch.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if a.is_contiguous() and b.is_contiguous():
        a, b = a.view(-1), b.view(-1)  # views: nothing copied
    rows = max(1, CLOSE_CHUNK_ELEMENTS // max(1, a[0].numel()))
    for start in range(0, a.shape[0], rows):
        n = min(rows, a.shape[0] - start)
        if not torch.allclose(a.narrow(0, start, n), b.narrow(0, start, n), rtol=rtol, atol=atol,
                              equal_nan=equal_nan):
            return False
    return True


def outputs_of(result, what):
    outs = list(result) if isinstance(result, (list, tuple)) else [result]
    for k, o in enumerate(outs):
        if not isinstance(o, torch.Tensor):
            raise ExportError(f"{what} output {k} is a {type(o).__name__}; kforge compares tensors only")
    return outs


def output_specs(outs):
    return [{"dtype": str(o.dtype).replace("torch.", ""), "shape": list(o.shape)} for o in outs]


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
