// The CPU device: steady_clock timing, a cache flush that evicts the lines the next batch reads
// (CLFLUSHOPT, or CLFLUSH where the processor lacks it), and NaN poisoning through the wrapped
// CPU allocator. A device that will not time (the checker's) measures no bandwidth.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "evaluation/worker/device.hpp"
#include "evaluation/worker/launch_trace.hpp"
#include "evaluation/worker/poison_allocator.hpp"

namespace kforge::worker {
namespace {

size_t read_llc_bytes() {
  size_t best = 0;
  for (int index = 0; index < 8; ++index) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    std::string text;
    if (!(in >> text)) continue;
    size_t value = std::stoull(text);
    if (text.back() == 'K') value *= 1024;
    if (text.back() == 'M') value *= 1024 * 1024;
    best = std::max(best, value);
  }
  return best ? best : 32u << 20;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "cpu";
}

#if defined(__x86_64__)
__attribute__((target("clflushopt"))) void evict_lines_opt(const char* p, const char* end) {
  for (; p < end; p += 64) _mm_clflushopt(const_cast<char*>(p));
  _mm_sfence();
}
#endif

/// Writes the lines of [data, data + bytes) back and drops them from every cache level.
void evict_lines(const void* data, size_t bytes) {
  const char* p = reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(data) & ~uintptr_t{63});
  const char* end = static_cast<const char*>(data) + bytes;
#if defined(__x86_64__)
  static const bool has_clflushopt = __builtin_cpu_supports("clflushopt");
  if (has_clflushopt) return evict_lines_opt(p, end);
  for (; p < end; p += 64) _mm_clflush(p);
  _mm_mfence();
#elif defined(__aarch64__)
  for (; p < end; p += 64) asm volatile("dc civac, %0" : : "r"(p) : "memory");
  asm volatile("dsb ish" : : : "memory");
#else
#error "evict_lines: no cache-line eviction instruction known for this processor"
#endif
}

class CpuDevice final : public Device {
 public:
  explicit CpuDevice(bool timing) : llc_(read_llc_bytes()) {
    install_poison_allocator();
    if (timing) bandwidth_ = measure_bandwidth();
  }
  at::Device torch_device() const override { return at::kCPU; }
  std::string name() const override { return cpu_model(); }
  void synchronize() override {}
  std::string pending_error(bool* fatal) override {
    *fatal = false;
    return {};
  }
  void flush_cache(const std::vector<MemorySpan>& next_reads) override {
    for (const auto& span : next_reads) evict_lines(span.data, span.bytes);
  }
  BatchTime time_batch(const std::function<void()>& body) override {
    auto start = std::chrono::steady_clock::now();
    body();
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return {ms, ms};
  }
  Result<json::Value> trace(const std::function<void()>& body) override {
    return {trace_cpu_ops(body), {}};
  }
  Result<json::Value> counters(const std::function<void()>&, int, double) override {
    return Result<json::Value>::failure(
        "hardware counters are read on CUDA devices only; the CPU profile has the operator trace");
  }
  void begin_poisoned_allocations(size_t) override { set_cpu_poisoning(true); }
  void end_poisoned_allocations() override { set_cpu_poisoning(false); }
  size_t cache_bytes() const override { return llc_; }
  json::Value describe() const override {
    json::Value d;
    d.set("backend", "cpu")
        .set("name", name())
        .set("threads", static_cast<int64_t>(std::thread::hardware_concurrency()));
    d.set("cache_bytes", static_cast<int64_t>(llc_)).set("copy_bandwidth_gbs", bandwidth_ / 1e9);
    return d;
  }

 private:
  // Copies one half of a buffer of twice the last-level cache (at least 64 MiB) onto the other,
  // so the copy streams from and to memory. The buffer is freed before the worker says it is
  // ready; separate buffers of 4x the cache each cost seconds of page faults per worker where
  // the machine reports a 480 MiB cache.
  // Every hardware thread copies its own slice, as a kernel using all cores (OpenMP) can: one
  // thread's copy is a fraction of what the memory system delivers, and a bound made from it
  // rejects honest parallel kernels.
  double measure_bandwidth() override {
    std::vector<char> buffer(std::max<size_t>(2 * llc_, 64u << 20), 1);
    const size_t half = buffer.size() / 2;
    const size_t threads = std::max(1u, std::thread::hardware_concurrency());
    const size_t slice = (half / threads) & ~size_t{63};
    char* a = buffer.data();
    char* b = a + half;
    double best = 0;
    for (int rep = 0; rep < 3; ++rep) {
      std::vector<std::thread> copies;
      auto start = std::chrono::steady_clock::now();
      for (size_t t = 0; t < threads; ++t)
        copies.emplace_back([=] {
          std::memcpy(b + t * slice, a + t * slice, slice);
          // The copy's result is never read: without this barrier an optimising build deletes
          // the memcpy and the probe reports an impossible bandwidth (seen: 32 TB/s at -O3).
          asm volatile("" : : "r"(b) : "memory");
        });
      for (auto& c : copies) c.join();
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      best = std::max(best, 2.0 * static_cast<double>(slice * threads) / s);  // read + write
    }
    return best;
  }
  size_t llc_;
};

}  // namespace

std::unique_ptr<Device> make_cpu_device(bool timing) {
  return std::make_unique<CpuDevice>(timing);
}

}  // namespace kforge::worker
