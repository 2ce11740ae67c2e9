// The CUDA helpers of LibTorch that kernels use, for kforge's light headers: the current stream of
// the worker's LibTorch (the one the worker times), device guards, device properties and the
// CUDA error checks.
#pragma once

#include "kforge/light_tensor.h"

#if defined(__CUDACC__) || defined(KFORGE_CUDA)
#include <cuda_runtime.h>

namespace c10::cuda {

/// A stream of the worker's LibTorch: converts to cudaStream_t.
class CUDAStream {
 public:
  explicit CUDAStream(cudaStream_t stream, DeviceIndex device) : stream_(stream), device_(device) {}
  cudaStream_t stream() const { return stream_; }
  operator cudaStream_t() const { return stream_; }
  DeviceIndex device_index() const { return device_; }
  Device device() const { return Device(kCUDA, device_); }
  void synchronize() const {
    cudaError_t e = cudaStreamSynchronize(stream_);
    if (e != cudaSuccess)
      ::kforge::light::fail(std::string("CUDA error: ") + cudaGetErrorString(e));
  }
  bool operator==(const CUDAStream& o) const { return stream_ == o.stream_; }
  bool operator!=(const CUDAStream& o) const { return stream_ != o.stream_; }

 private:
  cudaStream_t stream_;
  DeviceIndex device_;
};

inline CUDAStream getCurrentCUDAStream(DeviceIndex device = -1) {
  return CUDAStream(static_cast<cudaStream_t>(::kforge::light::api().current_stream(device)),
                    device);
}
inline CUDAStream getDefaultCUDAStream(DeviceIndex device = -1) {
  return getCurrentCUDAStream(device);
}

/// Sets the current device for its scope, and restores the previous one.
class CUDAGuard {
 public:
  explicit CUDAGuard(DeviceIndex index) { set(index); }
  explicit CUDAGuard(Device device) {
    if (!device.is_cuda())
      ::kforge::light::fail(::kforge::light::str("Expected a CUDA device, but got ", device));
    set(device.index());
  }
  CUDAGuard(const CUDAGuard&) = delete;
  CUDAGuard& operator=(const CUDAGuard&) = delete;
  ~CUDAGuard() {
    if (previous_ >= 0) ::kforge::light::api().exchange_device(previous_);
  }
  void set_device(Device device) { set(device.index()); }
  void set_index(DeviceIndex index) { set(index); }

 private:
  void set(DeviceIndex index) {
    int32_t before = ::kforge::light::api().exchange_device(index);
    if (previous_ < 0) previous_ = before;
  }
  int32_t previous_ = -1;
};

/// A CUDAGuard that does nothing without a device (a CPU tensor's device_of is ignored too).
class OptionalCUDAGuard {
 public:
  OptionalCUDAGuard() = default;
  explicit OptionalCUDAGuard(std::optional<Device> device) { set_device(device); }
  explicit OptionalCUDAGuard(std::optional<DeviceIndex> index) {
    if (index) guard_.emplace(*index);
  }
  void set_device(std::optional<Device> device) {
    if (device && device->is_cuda()) guard_.emplace(device->index());
  }
  void reset() { guard_.reset(); }

 private:
  std::optional<CUDAGuard> guard_;
};

}  // namespace c10::cuda

namespace at::cuda {
using c10::cuda::CUDAGuard;
using c10::cuda::CUDAStream;
using c10::cuda::getCurrentCUDAStream;
using c10::cuda::getDefaultCUDAStream;
using c10::cuda::OptionalCUDAGuard;
inline cudaDeviceProp* getCurrentDeviceProperties() {
  return const_cast<cudaDeviceProp*>(
      static_cast<const cudaDeviceProp*>(::kforge::light::api().device_properties(-1)));
}
inline cudaDeviceProp* getDeviceProperties(int64_t device) {
  return const_cast<cudaDeviceProp*>(static_cast<const cudaDeviceProp*>(
      ::kforge::light::api().device_properties(static_cast<int32_t>(device))));
}
}  // namespace at::cuda

namespace at {
using DeviceGuard = c10::cuda::CUDAGuard;
using OptionalDeviceGuard = c10::cuda::OptionalCUDAGuard;
}  // namespace at

#define C10_CUDA_CHECK(EXPR)                                                                      \
  do {                                                                                            \
    const cudaError_t kforge_cuda_error = (EXPR);                                                 \
    if (C10_UNLIKELY(kforge_cuda_error != cudaSuccess))                                           \
      ::kforge::light::fail(std::string("CUDA error: ") + cudaGetErrorString(kforge_cuda_error)); \
  } while (0)
#define C10_CUDA_CHECK_WARN(EXPR) (void)(EXPR)
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())
#define AT_CUDA_CHECK(EXPR) C10_CUDA_CHECK(EXPR)
#endif
