// What kforge's light headers offer under LibTorch's general names (torch/extension.h, ATen/ATen.h,
// ...): tensors, dispatch, the registry. The CUDA helpers (streams, guards, device properties,
// error checks) come, as in LibTorch, only with a CUDA header (ATen/cuda/CUDAContext.h,
// c10/cuda/*.h): a kernel that uses them without one would not build with PyTorch's
// torch.utils.cpp_extension, so it does not build here either.
#pragma once

#include "kforge/light_dispatch.h"
#include "kforge/light_registry.h"
#include "kforge/light_tensor.h"
#include "kforge/pybind11_names.h"
