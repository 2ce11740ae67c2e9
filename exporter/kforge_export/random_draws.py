"""Watching the random draws a task's code makes, and finding the distribution a tensor was
drawn from (checked against its statistics)."""
import math
from contextlib import contextmanager

import torch


SAMPLE_SIZE = 4096  # elements of a draw kept to match it to the tensor it became


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


@contextmanager
def restore_resident_draws():
    global RESIDENT_DRAWS
    try:
        yield
    finally:
        RESIDENT_DRAWS = False


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


def is_constant(value):
    flat = value.detach().reshape(-1)
    if flat.numel() == 0 or not torch.all(flat[:SAMPLE_SIZE] == flat[0]).item():
        return False  # most tensors differ within their first elements: no pass over all of them
    return torch.all(flat == flat[0]).item()
