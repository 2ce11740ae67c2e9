// One CUDA GPU: CUDA events for timing with a device-wide synchronisation before the stop event,
// an L2 flush by a memset of twice the L2 size, NaN-primed caching-allocator blocks, and the
// measured device-to-device copy bandwidth.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>

#include "evaluation/worker/device.hpp"
#include "evaluation/worker/kernel_counters.hpp"
#include "evaluation/worker/launch_trace.hpp"

namespace kforge::worker {
namespace {

bool is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(int index) : index_(index) {
    cudaSetDevice(index_);
    cudaGetDeviceProperties(&props_, index_);
    l2_ = props_.l2CacheSize > 0 ? static_cast<size_t>(props_.l2CacheSize) : (50u << 20);
    cudaMalloc(&flush_, 2 * l2_);
    cudaEventCreate(&start_);
    cudaEventCreate(&stop_);
    bandwidth_ = measure_bandwidth();
  }
  ~CudaDevice() override {
    cudaFree(flush_);
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  at::Device torch_device() const override { return at::Device(at::kCUDA, index_); }
  std::string name() const override { return props_.name; }
  void synchronize() override { cudaDeviceSynchronize(); }
  std::string pending_error(bool* fatal) override {
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaGetLastError();
    *fatal = is_sticky(e);
    if (e == cudaSuccess) return {};
    return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
  }
  void flush_cache(const std::vector<MemorySpan>&) override {
    cudaMemsetAsync(flush_, ++flush_value_ & 0xff, 2 * l2_, stream());
  }
  BatchTime time_batch(const std::function<void()>& body) override {
    auto wall_start = std::chrono::steady_clock::now();
    cudaEventRecord(start_, stream());
    body();
    cudaDeviceSynchronize();  // work left on other streams finishes before the stop event
    cudaEventRecord(stop_, stream());
    cudaEventSynchronize(stop_);
    double wall =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_start)
            .count();
    float ms = 0;
    cudaEventElapsedTime(&ms, start_, stop_);
    return {ms, wall};
  }
  Result<json::Value> trace(const std::function<void()>& body) override {
    return trace_cuda_launches([&] {
      body();
      cudaDeviceSynchronize();
    });
  }
  Result<json::Value> counters(const std::function<void()>& body, int max_kernels,
                               double budget_s) override {
    // CUPTI's kernel replay saves and restores the memory a kernel may write before every pass;
    // blocks the caching allocator keeps from the timing (dozens of input sets) would be copied
    // with them.
    c10::cuda::CUDACachingAllocator::emptyCache();
    return measure_kernel_counters(
        [&] {
          body();
          cudaDeviceSynchronize();
        },
        index_, max_kernels, budget_s);
  }
  void begin_poisoned_allocations(size_t expected_bytes) override {
    // Hand the caching allocator blocks that are full of NaN: one large block (split for large
    // requests) and whole small-pool segments (2 MB, filled by two 1 MB blocks each). The large
    // block is four times the outputs' upper bound, but never more than half of the free memory:
    // on a task whose outputs are gigabytes (KernelBench's full sizes) it would otherwise take the
    // memory the candidate needs, and the candidate ran out of memory for the check's sake. What
    // does not fit comes from memory the previous reference's outputs left poisoned or from fresh
    // allocations; the second call, after the reference's outputs are poisoned, still checks.
    c10::cuda::CUDACachingAllocator::emptyCache();
    auto options = at::TensorOptions().dtype(at::kByte).device(torch_device());
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
      cudaGetLastError();
      free_bytes = 0;
    }
    size_t large = std::max<size_t>(4 * expected_bytes, 64u << 20);
    if (free_bytes > 0) large = std::max<size_t>(std::min(large, free_bytes / 2), 64u << 20);
    std::vector<at::Tensor> blocks;
    blocks.push_back(at::empty({static_cast<int64_t>(large)}, options));
    for (int i = 0; i < 32; ++i) blocks.push_back(at::empty({1 << 20}, options));
    for (auto& b : blocks) b.fill_(0xFF);
    blocks.clear();
  }
  void end_poisoned_allocations() override {}
  size_t cache_bytes() const override { return l2_; }
  json::Value describe() const override {
    json::Value d;
    d.set("backend", "cuda").set("name", name()).set("index", index_);
    d.set("compute_capability", std::to_string(props_.major) + "." + std::to_string(props_.minor));
    d.set("multiprocessors", props_.multiProcessorCount).set("l2_bytes", static_cast<int64_t>(l2_));
    d.set("memory_bytes", static_cast<int64_t>(props_.totalGlobalMem))
        .set("copy_bandwidth_gbs", bandwidth_ / 1e9);
    return d;
  }
  json::Value memory_use() const override {
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
      cudaGetLastError();
      return {};
    }
    // reserved_bytes[0]: the aggregate over the allocator's pools.
    const int64_t worker =
        c10::cuda::CUDACachingAllocator::getDeviceStats(index_).reserved_bytes[0].current;
    const int64_t used = static_cast<int64_t>(total_bytes - free_bytes);
    json::Value m;
    m.set("total_bytes", static_cast<int64_t>(total_bytes))
        .set("free_bytes", static_cast<int64_t>(free_bytes))
        .set("worker_bytes", worker)
        .set("others_bytes", std::max<int64_t>(0, used - worker));
    return m;
  }

 private:
  cudaStream_t stream() const { return at::cuda::getCurrentCUDAStream(index_).stream(); }
  double measure_bandwidth() override {
    size_t bytes = 1ull << 30;
    void *a = nullptr, *b = nullptr;
    if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) {
      cudaGetLastError();
      cudaFree(a);
      return 3e12;
    }
    float best = 1e30f;
    for (int rep = 0; rep < 5; ++rep) {
      cudaEventRecord(start_, stream());
      cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, stream());
      cudaEventRecord(stop_, stream());
      cudaEventSynchronize(stop_);
      float ms = 0;
      cudaEventElapsedTime(&ms, start_, stop_);
      if (rep > 0) best = std::min(best, ms);
    }
    cudaFree(a);
    cudaFree(b);
    return 2.0 * bytes / (best / 1e3);
  }

  int index_;
  cudaDeviceProp props_{};
  size_t l2_ = 0;
  void* flush_ = nullptr;
  int flush_value_ = 0;
  cudaEvent_t start_{}, stop_{};
};

}  // namespace

Result<std::unique_ptr<Device>> make_cuda_device(int index) {
  using Made = Result<std::unique_ptr<Device>>;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    return Made::failure("no CUDA device is visible");
  }
  if (index < 0 || index >= count)
    return Made::failure("CUDA device " + std::to_string(index) + " does not exist (" +
                         std::to_string(count) + " visible)");
  return {std::make_unique<CudaDevice>(index), {}};
}

}  // namespace kforge::worker
