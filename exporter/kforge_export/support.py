"""What every part of the exporter (and the torch.compile baseline) shares, none of it needing
torch: its error, the config sets, where its time went, publishing a finished folder at once,
the torch version read without importing it."""
import errno
import importlib.util
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager


class ExportError(Exception):
    """A task that kforge cannot export, with a message that says what and where."""


MODES = {
    "single": ("single_input_configs", "single_init_configs", "single_shared_configs"),
    "multi_input": ("multi_input_configs", "single_init_configs", "single_shared_configs"),
    "multi_init": ("single_input_configs", "multi_init_configs", "single_shared_configs"),
    "multi": ("multi_input_configs", "multi_init_configs", "multi_shared_configs"),
}


PHASE_SECONDS = {}  # where an export's time went, written into task.json


def finite_json(value):
    """The value with its non-finite floats as {"float": "inf" | "-inf" | "nan"}: JSON has no
    Infinity, and a function's float('-inf') (a masked score) must reach the generator
    (generator/graph.cpp turns them back)."""
    if isinstance(value, float) and not math.isfinite(value):
        return {"float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(v) for v in value]
    return value


@contextmanager
def phase(name):
    start = time.monotonic()
    try:
        yield
    finally:
        PHASE_SECONDS[name] = PHASE_SECONDS.get(name, 0.0) + time.monotonic() - start


def phase_seconds(started):
    """Where the time since `started` went, by phase (and in total), for the written record."""
    return {k: round(v, 3) for k, v in sorted({**PHASE_SECONDS, "total": time.monotonic() - started}.items())}


def publish(staging, final_dir, file_name, document, replace=False):
    """Writes `document` into the staging folder, which then takes the place of final_dir: a
    reader sees the old folder or the whole new one, never half of it. Where another exporter
    published the same content first (two processes exported one task at once), its folder stays
    and this one is discarded: a reader may be using it. With `replace` (a forced export), the old
    folder is moved aside by one rename and the new one moved in by another, so that a reader
    finds no folder only between the two."""
    with open(os.path.join(staging, file_name), "w", encoding="utf-8") as f:
        json.dump(document, f, indent=1, allow_nan=False)
    try:
        os.rename(staging, final_dir)  # atomic where final_dir is absent (or an empty folder)
        return
    except OSError as e:
        if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
    if not replace and os.path.exists(os.path.join(final_dir, file_name)):
        shutil.rmtree(staging, ignore_errors=True)
        return
    aside = tempfile.mkdtemp(prefix=".replaced.", dir=os.path.dirname(final_dir))
    os.rename(final_dir, os.path.join(aside, "old"))
    os.rename(staging, final_dir)
    shutil.rmtree(aside, ignore_errors=True)


def torch_version_without_import():
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        raise ExportError(f"{sys.executable} has no torch; set KFORGE_PYTHON to an interpreter that has it")
    version_file = os.path.join(os.path.dirname(spec.origin), "version.py")
    with open(version_file, encoding="utf-8") as f:
        match = re.search(r"__version__\s*=\s*['\"]([^'\"]+)['\"]", f.read())
    if not match:
        raise ExportError(f"cannot read the torch version from {version_file}")
    return match.group(1)
