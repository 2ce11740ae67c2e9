// kforge's torch/extension.h with LibTorch's headers: what a robust-kbench or KernelBench
// candidate includes when kforge's light headers (gpu/shim_light) cannot build it. It pulls in the
// LibTorch headers a kernel needs (ATen, torch::Tensor and its factories, and on CUDA the stream
// and device-guard helpers) and turns PYBIND11_MODULE / m.def into kforge's registry, so
// candidates compile and run without Python.
#pragma once

#include <ATen/ATen.h>
#include <torch/types.h>

#if defined(__CUDACC__) || defined(KFORGE_CUDA)
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>
#endif

#include "kforge/extension_registry.h"
#include "kforge/pybind11_names.h"
