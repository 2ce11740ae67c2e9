#!/usr/bin/env python3
"""Exports a robust-kbench task folder into what kforge's C++ side needs.

For every config of a task (the Cartesian product init x input x shared of its config file) and
every direction it has (forward, backward), this records:
  - the exact argument list that `Model.forward` passes to `fn` (input, parameter, buffer,
    scalar, integer list, None), with shapes and dtypes;
  - how to draw fresh values of each tensor: the distribution family and parameters, found by
    watching the random draws that the task's own code makes (torch.randn, Tensor.uniform_ as
    used by nn.init, torch.randint, ...) and checked against the tensor's statistics;
  - a TorchScript reference (scripted when the function is scriptable, else traced per config);
  - for backward tasks, what the candidate's `backward` receives (what AutogradFunction.backward
    passes to backward_fn: saved tensors, output gradients, values kept on ctx, tuples of these,
    tensors AutogradFunction computes, traced into a prelude) and which gradient each of its
    results is; the reference gradients are autograd's through forward_fn, as in robust-kbench;
  - per direction, the reason it cannot be exported, when it cannot (the other still is);
  - the task filters of robust-kbench as warnings: outputs near constant, inputs without effect.

Python runs only here, at export time. The result is cached under --cache-root by a hash of the
task's files, the exporter's (this script and the package kforge_export beside it, whose modules
do the work) and the torch version, so a second call returns at once without importing torch.

Usage: export_task.py --task DIR --cache-root DIR   (prints the export folder on stdout)
Exit status: 0 on success, 1 when the task cannot be exported (the reason on stderr).
"""
import argparse
import glob
import hashlib
import os
import re
import shutil
import sys
import tempfile
import time

from kforge_export.support import ExportError, phase_seconds, publish, torch_version_without_import

FORMAT_VERSION = 2


# ----------------------------------------------------------------------------------------------
# cache key, computed without importing torch


def exporter_files():
    """This script and the package's modules: what an export depends on besides the task."""
    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.abspath(__file__)] + sorted(glob.glob(os.path.join(here, "kforge_export", "*.py")))


def task_files(task_dir):
    """The files an export depends on: the task's functions and configs, and every other Python
    file beside them (a helper module, the problem file of an imported KernelBench task)."""
    names = sorted(n for n in os.listdir(task_dir)
                   if re.fullmatch(r"config_(forward|backward)\.json", n) or n.endswith(".py"))
    if "func_forward.py" not in names and "func_backward.py" not in names:
        raise ExportError(f"{task_dir}: no func_forward.py or func_backward.py; is this a robust-kbench task folder?")
    return names


def content_hash(task_dir):
    h = hashlib.sha256()
    for name in task_files(task_dir):
        h.update(name.encode() + b"\0")
        with open(os.path.join(task_dir, name), "rb") as f:
            h.update(f.read() + b"\0")
    for path in exporter_files():
        with open(path, "rb") as f:
            h.update(f.read())
    h.update(torch_version_without_import().encode())
    h.update(sys.version.encode())
    return h.hexdigest()[:24]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", required=True, help="robust-kbench task folder")
    parser.add_argument("--cache-root", required=True, help="folder that holds exports by content hash")
    parser.add_argument("--force", action="store_true", help="export again even if cached")
    opts = parser.parse_args()
    task_dir = os.path.abspath(opts.task)
    try:
        if not os.path.isdir(task_dir):
            raise ExportError(f"{opts.task}: no such task folder")
        digest = content_hash(task_dir)
        final_dir = os.path.join(os.path.abspath(opts.cache_root), digest)
        if os.path.exists(os.path.join(final_dir, "task.json")) and not opts.force:
            print(final_dir)
            return 0
        started = time.monotonic()
        import torch  # noqa: E402  (imported late: a cache hit needs no torch)

        from kforge_export.directions import export
        from kforge_export.running import compute_device

        os.makedirs(opts.cache_root, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=f".{digest}.", dir=opts.cache_root)
        try:
            directions = export(task_dir, staging)
            document = {"format": FORMAT_VERSION, "task": os.path.basename(task_dir), "task_dir": task_dir,
                        "content_hash": digest, "torch_version": torch.__version__, "directions": directions,
                        "export_device": str(compute_device()), "export_seconds": phase_seconds(started)}
            publish(staging, final_dir, "task.json", document, replace=opts.force)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        print(final_dir)
        return 0
    except ExportError as e:
        print(f"export failed: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
