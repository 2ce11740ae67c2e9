#!/usr/bin/env python3
"""Exports task folders with each graph traced twice, as the exporter traces it (each node's
shape, dtype and strides from what make_fx recorded, ShapeProp only where a node lacks them) and
with ShapeProp always, and counts the graphs that differ. One line per task, then the totals:

    graphs   the graphs traced (every config, forward and backward)
    without  of them, those the exporter traced without ShapeProp
    differ   those whose two graphs differ (the task named on its line)
    errors   those the exporter could not trace (the same either way)

usage: PYTHONPATH=exporter python3 bench/traced_meta_check.py TASK_DIR...
(robust-kbench task folders, or KernelBench problems imported with exporter/import_kernelbench.py).
Each task is exported into a temporary folder, removed after; a task whose export fails is named
and skipped. Exit status 1 when a graph differs."""
import os
import shutil
import sys
import tempfile
from unittest import mock

from kforge_export import directions, forward, graph

counts = {"graphs": 0, "without": 0, "differ": 0, "errors": 0}
traced = graph.trace_graph


def both_ways(fn, names, values, autograd=False):
    found = []
    complete = graph._traced_meta_complete

    def recorded(module):
        found.append(complete(module))
        return found[-1]

    with mock.patch.object(graph, "_traced_meta_complete", recorded):
        described = traced(fn, names, values, autograd)
    with mock.patch.object(graph, "_traced_meta_complete", lambda module: False):
        propagated = traced(fn, names, values, autograd)
    counts["graphs"] += 1
    counts["without"] += bool(found) and all(found)
    counts["errors"] += "error" in described
    counts["differ"] += described != propagated
    return described


def main():
    forward.trace_graph = both_ways  # write_graph, which both directions call, looks it up here
    for task in sys.argv[1:]:
        before = counts["differ"]
        staging = tempfile.mkdtemp(prefix="traced_meta_")
        try:
            directions.export(os.path.abspath(task), staging)
        except BaseException as e:  # noqa: BLE001  (the exporter's own refusals included)
            print(f"{task}: export failed: {type(e).__name__}: {str(e)[:200]}", flush=True)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        print(f"{os.path.basename(task)}: {counts}{'  DIFFERS' if counts['differ'] > before else ''}", flush=True)
    print(f"total: {counts}")
    return 1 if counts["differ"] else 0


if __name__ == "__main__":
    sys.exit(main())
