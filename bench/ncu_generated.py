#!/usr/bin/env python3
"""Calls a kernel that `kforge generate` wrote on a KernelBench problem's inputs, for ncu.

    kforge import --from kernelbench --out T KernelBench/level1/82_conv_depthwise_2D_square_input_square_kernel.py
    kforge generate --task T/82_conv_depthwise_2D_square_input_square_kernel --backend cuda --out k.cu
    ncu --kernel-name regex:'k[0-9]' --launch-skip 1 --launch-count 1 --metrics METRICS \\
        python3 bench/ncu_generated.py k.cu KernelBench/level1/82_....py NAME

Builds the source as a torch extension (NAME, -O3 for the GPU's architecture), calls its forward
three times with the problem's inputs, then the module's parameters, then its buffers (the order
`kforge import` documents), and prints the largest difference from the eager module's output.
"""
import importlib.util
import os
import sys

import torch
from torch.utils.cpp_extension import load


def main():
    source, problem, name = sys.argv[1], sys.argv[2], sys.argv[3]
    spec = importlib.util.spec_from_file_location("problem", problem)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(0)
    model = module.Model(*module.get_init_inputs()).cuda()
    inputs = [a.cuda() if torch.is_tensor(a) else a for a in module.get_inputs()]
    args = inputs + [p.detach() for p in model.parameters()] + list(model.buffers())
    build = f"/tmp/kforge_ncu_{name}"
    os.makedirs(build, exist_ok=True)
    major, minor = torch.cuda.get_device_capability()
    kernel = load(name=name, sources=[source], build_directory=build,
                  extra_cuda_cflags=["-O3", f"-arch=sm_{major}{minor}"])
    for _ in range(3):
        out = kernel.forward(*args)
    torch.cuda.synchronize()
    with torch.no_grad():
        expected = model(*inputs)
    print(name, "max abs diff", (out - expected).abs().max().item())


if __name__ == "__main__":
    main()
