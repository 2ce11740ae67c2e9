// kforge's torch/extension.h: what a robust-kbench or KernelBench candidate includes. It pulls in
// the LibTorch headers a kernel needs (ATen, torch::Tensor and its factories, and on CUDA the
// stream and device-guard helpers) and turns PYBIND11_MODULE / m.def into kforge's registry, so
// candidates compile and run without Python. `py::arg`, docstrings and keyword arguments to def
// are accepted and ignored.
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

namespace pybind11 {
struct arg {
  explicit arg(const char*) {}
  template <class T>
  arg& operator=(T&&) {
    return *this;
  }
};
using module = kforge::ext::Module;
using module_ = kforge::ext::Module;
// Parameters of these types receive a sequence (a backward's saved tensors); see ext::Object.
using object = kforge::ext::Object;
using handle = object;
using tuple = object;
using list = object;
template <class T>
T cast(const kforge::ext::Object& o) {
  return o.cast<T>();
}
inline size_t len(const kforge::ext::Object& o) {
  return o.size();
}
}  // namespace pybind11
namespace py = pybind11;

#ifndef TORCH_EXTENSION_NAME
#define TORCH_EXTENSION_NAME kforge_candidate
#endif

#define PYBIND11_MODULE(name, m)                                                \
  static void kforge_module_body(::kforge::ext::Module&);                       \
  extern "C" __attribute__((visibility("default"))) ::kforge::ext::Module*      \
  kforge_extension_module() {                                                   \
    static ::kforge::ext::Module module_instance;                               \
    static const bool registered = (kforge_module_body(module_instance), true); \
    (void)registered;                                                           \
    return &module_instance;                                                    \
  }                                                                             \
  static void kforge_module_body(::kforge::ext::Module& m)
