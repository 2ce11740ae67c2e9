"""How fast the package `kforge best` writes runs from Python, next to what kforge measured
(BENCHMARKS.md, "The package against kforge's measurement").

    python3 bench/package_speed.py PACKAGE_DIR TASK_DIR [--reps N]

PACKAGE_DIR is what `kforge best EXPERIMENT TASK --out PACKAGE_DIR` wrote (its kforge.json has
kforge's per-config times of the forward kernel); TASK_DIR the task folder. Per config of the set
kforge timed, the task's Model is built and its inputs drawn as robust-kbench does, and the model
is called with fn=forward_fn (eager PyTorch) and with fn=the package's forward, in alternating
batches over input sets that together exceed the last-level cache (CUDA: events, the device
synchronised; CPU: perf_counter). Prints per config the medians and the speedup next to kforge's,
then both geometric means. The first call builds the package's kernel (timed apart).
"""
import argparse
import importlib
import importlib.util
import itertools
import json
import math
import os
import statistics
import sys
import time

import torch


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def config_sets(configs, mode):
    """(init settings, input settings) in robust-kbench's order: init x input x shared."""
    out = []
    for init, inputs, shared in itertools.product(configs[mode + "_init_configs"],
                                                  configs[mode + "_input_configs"],
                                                  configs[mode + "_shared_configs"]):
        out.append(({**init, **shared}, {**inputs, **shared}))
    return out


def batch_seconds(call, sets, calls, cuda):
    if cuda:
        torch.cuda.synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for i in range(calls):
            call(sets[i % len(sets)])
        stop.record()
        torch.cuda.synchronize()
        return start.elapsed_time(stop) / 1000 / calls
    begin = time.perf_counter()
    for i in range(calls):
        call(sets[i % len(sets)])
    return (time.perf_counter() - begin) / calls


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("package")
    parser.add_argument("task")
    parser.add_argument("--reps", type=int, default=30)
    args = parser.parse_args()
    package_dir = os.path.abspath(args.package)
    meta = json.load(open(os.path.join(package_dir, "kforge.json")))
    cuda = meta["backend"] == "cuda"
    device = "cuda" if cuda else "cpu"
    sys.path.insert(0, os.path.dirname(package_dir))
    package = importlib.import_module(os.path.basename(package_dir))
    task = load_module(os.path.join(args.task, "func_forward.py"), "task_forward")
    configs = json.load(open(os.path.join(args.task, "config_forward.json")))
    measured = meta["forward"]["results"]
    mode = "multi" if len(config_sets(configs, "multi")) == len(measured) else "single"
    cache = 60 << 20 if cuda else 64 << 20
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    began = time.perf_counter()
    package.module("forward")
    print(f"building the package's forward kernel: {time.perf_counter() - began:.1f} s")
    print(f"{'config':44} {'kernel ms':>10} {'eager ms':>10} {'python':>8} {'kforge':>8}")
    ours, theirs = [], []
    with torch.no_grad():
        for index, ((init, inputs), row) in enumerate(zip(config_sets(configs, mode), measured)):
            torch.manual_seed(index)
            model = task.Model(**init).to(device)
            one = [x.to(device) if isinstance(x, torch.Tensor) else x
                   for x in task.get_inputs(**inputs)]
            size = sum(x.numel() * x.element_size() for x in one if isinstance(x, torch.Tensor))
            sets = [one] + [[x.clone() if isinstance(x, torch.Tensor) else x for x in one]
                            for _ in range(min(63, 2 * cache // max(size, 1)))]
            eager = lambda s: model(*s, fn=task.forward_fn)
            kernel = lambda s: model(*s, fn=package.forward)
            for f in (eager, kernel, eager, kernel):
                f(sets[0])
            probe = max(batch_seconds(eager, sets, 1, cuda), 1e-6)
            calls = max(1, min(10000, int(0.005 / probe)))
            times = {"eager": [], "kernel": []}
            for _ in range(args.reps):
                times["eager"].append(batch_seconds(eager, sets, calls, cuda))
                times["kernel"].append(batch_seconds(kernel, sets, calls, cuda))
            k_ms = statistics.median(times["kernel"]) * 1000
            e_ms = statistics.median(times["eager"]) * 1000
            ours.append(e_ms / k_ms)
            theirs.append(row["speedup"])
            print(f"{row['name'][:44]:44} {k_ms:10.4f} {e_ms:10.4f} {e_ms / k_ms:7.2f}x "
                  f"{row['speedup']:7.2f}x")
    geo = lambda v: math.exp(sum(math.log(x) for x in v) / len(v))
    print(f"geometric mean: from Python {geo(ours):.2f}x, kforge "
          f"{'confirmed' if meta['forward']['confirmed'] else 'search'} {geo(theirs):.2f}x "
          f"(kforge.json: {meta['forward']['speedup']:.2f}x)")


if __name__ == "__main__":
    main()
