// kforge's torch/extension.h with LibTorch's headers: what a robust-kbench or KernelBench
// candidate includes when kforge's light headers (evaluation/shim_light) cannot build it. It pulls
// in the LibTorch headers PyTorch's own torch/extension.h does (ATen, torch::Tensor and its
// factories) and turns PYBIND11_MODULE / m.def into kforge's registry, so candidates compile and
// run without Python.
#pragma once

#include <ATen/ATen.h>
#include <torch/types.h>

// As PyTorch's own torch/extension.h, no CUDA header comes with it: a kernel that uses streams or
// guards includes ATen/cuda/CUDAContext.h or c10/cuda/CUDAGuard.h, or it would not build with
// torch.utils.cpp_extension (the package `kforge best` writes).

#include "kforge/extension_registry.h"
#include "kforge/pybind11_names.h"
