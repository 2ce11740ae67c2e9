#!/usr/bin/env python3
"""Builds the torch.compile baseline of an exported task: one AOTInductor library per config.

robust-kbench and KernelBench report a kernel's speedup over `torch.compile(forward_fn,
mode="max-autotune")` as well as over eager PyTorch. kforge keeps Python out of evaluation, so
the compiled function is built here, ahead of time, with the same compiler (TorchInductor, through
AOTInductor), and the worker loads and times it from C++ with the protocol it uses for the eager
reference and the kernel.

  - forward config: forward_fn with the config's non-tensor arguments fixed, exported with
    torch.export on the config's tensors and compiled to a shared library; the worker calls it
    with the case's tensors, in the order of the task's arguments.
  - backward config: AOTAutograd splits forward_fn into a forward graph (outputs and the tensors
    saved for backward) and a backward graph (saved tensors and output gradients to input
    gradients), as torch.compile does for training; each is compiled. The worker runs the forward
    library once and times the backward one, as robust-kbench times only `out.backward(grad)`.

`--mode max-autotune` (the default, as robust-kbench) lets Inductor benchmark matrix-multiply and
convolution templates; `default` skips that. AOTInductor does not use CUDA graphs, which
torch.compile's max-autotune mode adds; kforge times launches one by one for every function.

Only the configs of one config set (--configs, as the evaluation uses them) are built, or all.
The result goes to EXPORT/compiled/MODE-DEVICE-SET/ with compiled.json, which lists per direction and
config the library and how to call it, or why there is none (a config that torch.export or
Inductor cannot handle, a torch without AOTInductor). It is kept until the torch version, the GPU
model, this script or the exporter's parts it uses change.

Usage: compile_baseline.py --task DIR --export-dir DIR [--mode max-autotune|default]
                           [--device cuda|cpu] [--configs SET|all] [--force] [--compile-threads N]
                           (prints the folder on stdout)
Exit status: 0 when compiled.json was written (even if it says no config could be built), 1 when
the export cannot be read (the reason on stderr).
"""
import argparse
import glob
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
import zipfile

from kforge_export import support as ex  # the exporter's shared parts, none needing torch

MODES = {"max-autotune": {"max_autotune": True}, "default": {}}


def gpu_models():
    """The GPU models the driver lists, read without CUDA (a cache hit imports nothing)."""
    models = []
    for info in sorted(glob.glob("/proc/driver/nvidia/gpus/*/information")):
        with open(info, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("Model:"):
                    models.append(line.split(":", 1)[1].strip())
    return models


def cache_key(mode, device):
    # This script and the exporter's parts it builds configs with (kforge_export/*.py).
    h = hashlib.sha256()
    here = os.path.dirname(os.path.abspath(__file__))
    for path in [os.path.abspath(__file__)] + sorted(glob.glob(os.path.join(here, "kforge_export", "*.py"))):
        with open(path, "rb") as f:
            h.update(f.read())
    script = h.hexdigest()[:16]
    return {"mode": mode, "device": device, "torch": ex.torch_version_without_import(),
            "gpus": gpu_models() if device == "cuda" else [], "script": script}


def flat_outputs(result):
    outs = list(result) if isinstance(result, (list, tuple)) else [result]
    if not all(isinstance(o, torch.Tensor) for o in outs):
        raise ex.ExportError("forward_fn returns something other than tensors")
    return outs


def fixed_arguments_module(fn, values, positions):
    """forward_fn as a module of the tensors at `positions`, the other arguments fixed."""
    template = [None if isinstance(v, torch.Tensor) else v for v in values]

    class Fixed(torch.nn.Module):
        def forward(self, *tensors):
            args = list(template)
            for p, t in zip(positions, tensors):
                args[p] = t
            return tuple(flat_outputs(fn(*args)))

    return Fixed()


def selected_outputs_module(gm, keep):
    """A graph module whose outputs are those at `keep` (torch.export takes no None output)."""

    class Selected(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gm = gm

        def forward(self, *args):
            out = self.gm(*args)
            return tuple(out[i] for i in keep)

    return Selected()


def compile_module(module, example, mode, work_dir, name, out_dir):
    """torch.export and AOTInductor on `module`; the package is unpacked into out_dir/name.
    Returns the library and the folder of its kernels' binaries, relative to out_dir."""
    with ex.phase("export"):
        program = torch.export.export(module, tuple(example))
    package = os.path.join(work_dir, name.replace("/", "_") + ".pt2")
    with ex.phase("inductor"):
        torch._inductor.aoti_compile_and_package(program, package_path=package,
                                                 inductor_configs=dict(MODES[mode]))
    target = os.path.join(out_dir, name)
    with zipfile.ZipFile(package) as z:
        z.extractall(target)
    libraries = glob.glob(os.path.join(target, "**", "data", "aotinductor", "*", "*.so"), recursive=True)
    if len(libraries) != 1:
        raise ex.ExportError(f"the AOTInductor package holds {len(libraries)} model libraries, not one")
    library = os.path.relpath(libraries[0], out_dir)
    return {"library": library, "kernels_dir": os.path.dirname(library)}


def tensor_positions(values):
    return [k for k, v in enumerate(values) if isinstance(v, torch.Tensor)]


def build_forward(module, entry, device, mode, work_dir, out_dir, index):
    _, _, _, _, values, _ = capture_forward(module, entry, seed=1)
    positions = tensor_positions(values)
    tensors = [values[k].to(device) for k in positions]
    fixed = fixed_arguments_module(module.forward_fn, values, positions)
    with torch.no_grad():
        outputs = fixed(*tensors)
    built = compile_module(fixed, tensors, mode, work_dir, f"forward/c{index}", out_dir)
    return {**built, "inputs": positions, "outputs": len(outputs)}


def build_backward(module, entry, config, device, mode, work_dir, out_dir, index):
    from functorch.compile import aot_function, make_boxed_func

    _, _, _, _, values, _ = capture_forward(module, entry, seed=1)
    specs = config["forward_args"]
    positions = tensor_positions(values)
    leaves = [p for p in positions if specs[p].get("requires_grad")]
    if not leaves:
        raise ex.ExportError("no argument of forward_fn requires grad")
    tensors = [values[k].detach().to(device).requires_grad_(k in leaves) for k in positions]
    fixed = fixed_arguments_module(module.forward_fn, values, positions)
    graphs = {}

    def keep(kind):
        def compiler(gm, example_inputs):
            graphs[kind] = gm
            return make_boxed_func(gm.forward)
        return compiler

    outputs = aot_function(fixed, fw_compiler=keep("forward"), bw_compiler=keep("backward"))(*tensors)
    tangent_of = [k for k, o in enumerate(outputs) if o.requires_grad]
    if not tangent_of:
        raise ex.ExportError("no output of forward_fn requires grad")
    torch.autograd.grad([outputs[k] for k in tangent_of], [tensors[positions.index(p)] for p in leaves],
                        [torch.randn_like(outputs[k]) for k in tangent_of], allow_unused=True)
    if "backward" not in graphs:
        raise ex.ExportError("AOTAutograd made no backward graph")
    primals = [t.detach() for t in tensors]
    with torch.no_grad():
        forward_results = list(graphs["forward"](*primals))
    saved = forward_results[len(outputs):]
    tangents = [torch.randn_like(outputs[k]) for k in tangent_of]
    backward_inputs = saved + tangents
    placeholders = [n for n in graphs["backward"].graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(backward_inputs):
        raise ex.ExportError(f"AOTAutograd's backward graph takes {len(placeholders)} inputs, not the "
                             f"{len(saved)} saved tensors and {len(tangents)} output gradients")
    with torch.no_grad():
        gradients = list(graphs["backward"](*backward_inputs))
    if len(gradients) != len(positions):
        raise ex.ExportError(f"AOTAutograd's backward graph returns {len(gradients)} gradients for "
                             f"{len(positions)} tensor arguments")
    kept = [k for k, g in enumerate(gradients) if isinstance(g, torch.Tensor)]
    forward_part = compile_module(graphs["forward"], primals, mode, work_dir, f"backward/c{index}/forward",
                                  out_dir)
    backward_part = compile_module(selected_outputs_module(graphs["backward"], kept), backward_inputs, mode,
                                   work_dir, f"backward/c{index}/backward", out_dir)
    return {"forward": {**forward_part, "inputs": positions, "outputs": len(forward_results)},
            "backward": backward_part, "outputs": len(outputs), "saved": len(saved), "tangent_of": tangent_of,
            "gradient_of": [positions[k] for k in kept]}


def build(task_dir, export_doc, device, mode, config_set, out_dir):
    work_dir = tempfile.mkdtemp(prefix="kforge_compile_")
    directions = {}
    try:
        for direction, exported in export_doc["directions"].items():
            if exported is None or "error" in exported:
                directions[direction] = {"error": "the direction was not exported"}
                continue
            module = load_task_module(task_dir, direction)
            entries, _ = config_sets(task_dir, direction)
            configs = exported["configs"]
            if len(entries) != len(configs):
                raise ex.ExportError(f"the {direction} configs changed since the export")
            built = []
            for index, (entry, config) in enumerate(zip(entries, configs)):
                if config_set != "all" and config_set not in entry["modes"]:
                    built.append({"error": f"not built: the config is not in the `{config_set}` set"})
                    continue
                started = time.monotonic()
                try:
                    if direction == "forward":
                        result = build_forward(module, entry, device, mode, work_dir, out_dir, index)
                    else:
                        result = build_backward(module, entry, config, device, mode, work_dir, out_dir, index)
                except Exception as e:  # noqa: BLE001  (whatever torch.export or Inductor raise)
                    text = failure_text(e).splitlines()
                    result = {"error": " ".join(text[:3])[:600]}
                result["seconds"] = round(time.monotonic() - started, 3)
                built.append(result)
                torch._dynamo.reset()
            directions[direction] = {"configs": built}
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)
    return directions


def built_with(final_dir, key):
    """Whether final_dir holds a finished build of this cache key."""
    try:
        with open(os.path.join(final_dir, "compiled.json"), encoding="utf-8") as f:
            return json.load(f).get("key") == key
    except (OSError, ValueError):
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", required=True, help="robust-kbench task folder")
    parser.add_argument("--export-dir", required=True, help="the task's export (task.json)")
    parser.add_argument("--mode", default="max-autotune", choices=sorted(MODES))
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    parser.add_argument("--configs", default="all", choices=["all", *ex.MODES], help="config set to build")
    parser.add_argument("--force", action="store_true", help="build again even if built")
    parser.add_argument("--compile-threads", type=int, default=0,
                        help="Inductor's compile workers (0: Inductor's default, one per core up to 32); kforge "
                             "passes its cores divided by the builds it runs at once")
    opts = parser.parse_args()
    if opts.compile_threads > 0:
        # Read by Inductor when it is imported (below, on a cache miss): many builds at once, each
        # with its default workers (one per core, up to 32), would oversubscribe the machine.
        os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = str(opts.compile_threads)
    task_dir, export_dir = os.path.abspath(opts.task), os.path.abspath(opts.export_dir)
    try:
        with open(os.path.join(export_dir, "task.json"), encoding="utf-8") as f:
            export_doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"compile baseline failed: cannot read the export: {e}", file=sys.stderr)
        return 1
    root = os.path.join(export_dir, "compiled")
    final_dir = os.path.join(root, f"{opts.mode}-{opts.device}-{opts.configs}")
    try:
        key = cache_key(opts.mode, opts.device)
    except ex.ExportError as e:
        print(f"compile baseline failed: {e}", file=sys.stderr)
        return 1
    if built_with(final_dir, key) and not opts.force:
        print(final_dir)
        return 0
    started = time.monotonic()
    # Imported late: a cache hit needs no torch (nor the exporter's parts that import it).
    global torch, capture_forward, load_task_module, config_sets, failure_text
    import torch  # noqa: E402
    from kforge_export import random_draws
    from kforge_export.arguments import capture_forward
    from kforge_export.task_loading import config_sets, failure_text, load_task_module

    os.makedirs(root, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=f".{os.path.basename(final_dir)}.", dir=root)
    try:
        document = {"key": key, "mode": opts.mode, "device": opts.device, "configs": opts.configs,
                    "torch_version": torch.__version__}
        if not hasattr(torch, "_inductor") or not hasattr(torch._inductor, "aoti_compile_and_package"):
            document["error"] = (f"torch {torch.__version__} at {sys.executable} has no AOTInductor; torch 2.6 or "
                                 f"later builds the torch.compile baseline (set KFORGE_PYTHON to one)")
        elif opts.device == "cuda" and not torch.cuda.is_available():
            document["error"] = f"torch {torch.__version__} at {sys.executable} sees no CUDA device"
        else:
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
            random_draws.FAST_DRAWS = opts.device == "cuda"
            try:
                document["directions"] = build(task_dir, export_doc, torch.device(opts.device), opts.mode,
                                               opts.configs, staging)
            except ex.ExportError as e:
                document["error"] = str(e)
        document["seconds"] = ex.phase_seconds(started)
        # a build of the same key another process published meanwhile is kept; any other replaced
        ex.publish(staging, final_dir, "compiled.json", document,
                   replace=opts.force or not built_with(final_dir, key))
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    print(final_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
