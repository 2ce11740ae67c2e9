"""Exporting a task: every direction it has, the probe config first, each config by its
direction's exporter."""
import os
import shutil
import sys
import tempfile

import torch

from . import random_draws
from .backward import export_backward_config
from .forward import export_forward_config
from .reference_writer import ReferenceWriter
from .running import compute_device
from .support import ExportError
from .task_loading import config_name, config_sets, load_task_module


def probe_index(entries):
    """The config the exporter runs for real (the probe): the one whose integer settings multiply
    to the least, which is the smallest for tasks whose settings are sizes. The others are only
    built and run on meta tensors (shapes, no arithmetic)."""
    def weight(entry):
        product = 1
        for value in {**entry["init"], **entry["input"], **entry["shared"]}.values():
            for v in value if isinstance(value, list) else [value]:
                if isinstance(v, int) and not isinstance(v, bool) and v > 0:
                    product *= v
        return product
    return min(range(len(entries)), key=lambda i: (weight(entries[i]), i))


def export_direction(task_dir, out_dir, work_dir, direction, export_config):
    """Exports every config of one direction with `export_config(module, entry, index, ..., facts)`,
    the probe config first: what it establishes (which arguments are fixed) goes into `facts`."""
    module = load_task_module(task_dir, direction)
    entries, options = config_sets(task_dir, direction)
    input_names = list(getattr(module, "input_names", []))
    writer = ReferenceWriter(module, out_dir, work_dir)
    probe = probe_index(entries)
    configs = [None] * len(entries)
    facts = {}
    for index in [probe] + [i for i in range(len(entries)) if i != probe]:
        try:
            configs[index] = export_config(module, entries[index], index, input_names, writer, out_dir, facts)
        except ExportError as e:
            raise ExportError(f"{task_dir} {direction} config {index} ({config_name(entries[index])}): {e}") from e
    return {"configs": configs, "probe_config": probe, **options}


def export(task_dir, out_dir):
    work_dir = tempfile.mkdtemp(prefix="kforge_export_")
    sys.path.insert(0, work_dir)
    try:
        torch.set_num_threads(max(1, min(8, os.cpu_count() or 1)))
        random_draws.FAST_DRAWS = compute_device().type == "cuda"
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        directions = {}
        # A direction that cannot be exported says why; the task fails only if none can be.
        for direction, export_config in (("forward", export_forward_config), ("backward", export_backward_config)):
            if not os.path.exists(os.path.join(task_dir, f"func_{direction}.py")):
                continue
            try:
                directions[direction] = export_direction(task_dir, out_dir, work_dir, direction, export_config)
            except ExportError as e:
                directions[direction] = {"error": str(e)}
        if all("error" in d for d in directions.values()):
            raise ExportError("; ".join(d["error"] for d in directions.values()))
        return directions
    finally:
        sys.path.remove(work_dir)
        shutil.rmtree(work_dir, ignore_errors=True)
