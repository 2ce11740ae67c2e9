// The device a worker measures on: the CPU or one CUDA GPU. Synchronisation, cache flushing,
// batch timing, NaN-poisoning of fresh allocations and the bandwidth that bounds honest speed.
#pragma once

#include <ATen/ATen.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "common/result.hpp"

namespace kforge::worker {

/// Memory a batch is about to read.
struct MemorySpan {
  const void* data = nullptr;
  size_t bytes = 0;
};

struct BatchTime {
  double device_ms = 0;  ///< by the device's clock (CUDA events, or steady_clock on CPU)
  double wall_ms = 0;    ///< host wall time around the same batch
};

class Device {
 public:
  virtual ~Device() = default;
  virtual at::Device torch_device() const = 0;
  virtual std::string name() const = 0;
  /// Waits for all work on the device, every stream included.
  virtual void synchronize() = 0;
  /// Empty string, or the error the device reports (sticky CUDA errors end the worker).
  virtual std::string pending_error(bool* fatal) = 0;
  /// Makes the next batch start cold. The CUDA device overwrites a buffer twice the size of L2
  /// (`next_reads` aside); the CPU device evicts the cache lines of `next_reads`, the memory of
  /// the input sets the batch uses, from every level: as cheap as reading them once, where a
  /// sweep of twice the last-level cache costs 80 ms per batch on a 480 MiB L3.
  virtual void flush_cache(const std::vector<MemorySpan>& next_reads) = 0;
  /// Times `body`: device-wide synchronisation happens before the stop mark, so work the body
  /// left on another stream is counted.
  virtual BatchTime time_batch(const std::function<void()>& body) = 0;
  /// Fills memory that allocations made next will receive with NaN bytes (0xFF).
  virtual void begin_poisoned_allocations(size_t expected_bytes) = 0;
  virtual void end_poisoned_allocations() = 0;
  /// Bytes of the last-level cache, and the measured copy bandwidth in bytes per second.
  virtual size_t cache_bytes() const = 0;
  double copy_bandwidth() const { return bandwidth_; }
  /// Measures the copy bandwidth again and keeps the higher of the two, which it returns: a busy
  /// machine (other processes streaming memory) only lowers a measurement, and a bound made from a
  /// low one takes an honest kernel for one faster than memory.
  double remeasure_bandwidth() {
    bandwidth_ = std::max(bandwidth_, measure_bandwidth());
    return bandwidth_;
  }
  virtual json::Value describe() const = 0;
  /// Where the device's memory is, for a report of running out of it: {"total_bytes",
  /// "free_bytes", "worker_bytes" (held by this process's caching allocator), "others_bytes"
  /// (the rest: other processes, this process's CUDA context and memory a kernel took itself)};
  /// null on the CPU.
  virtual json::Value memory_use() const { return {}; }
  /// What the device runs while `body` runs, launch by launch (evaluation/worker/launch_trace.hpp).
  virtual Result<json::Value> trace(const std::function<void()>& body) = 0;
  /// The hardware counters of the first `max_kernels` kernels `body` launches, each replayed once
  /// per counter pass within about `budget_s` (evaluation/worker/kernel_counters.hpp); a CPU
  /// device says it has none.
  virtual Result<json::Value> counters(const std::function<void()>& body, int max_kernels,
                                       double budget_s) = 0;

 protected:
  /// One measurement of the copy bandwidth, in bytes per second.
  virtual double measure_bandwidth() = 0;
  double bandwidth_ = 0;  ///< the highest measured (0 on a device that never times)
};

/// `timing` false: a device that never times (a checker's): no bandwidth probe at start-up, and
/// copy_bandwidth is 0.
std::unique_ptr<Device> make_cpu_device(bool timing);
/// The CUDA device `index`, or why CUDA is unavailable in this build or on this machine.
Result<std::unique_ptr<Device>> make_cuda_device(int index);

}  // namespace kforge::worker
