// Which GPU a torch.compile baseline build runs on, and when. A build holds its task's tensors on
// a GPU for minutes (Inductor compiles, autotunes and checks) while the evaluators' workers
// evaluate other tasks there. Left as CUDA_VISIBLE_DEVICES left them, all builds ran on the first
// GPU, many at once: on KernelBench level 1 at full size (tensors of up to 26 GiB a task) they
// filled it (with the worker's own comparison, since done in slices), and 36 of the 94 problems
// judged had only out-of-memory verdicts. So builds are spread over the GPUs, the least busy
// first, and a GPU takes one build of a large task at a time.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "common/json.hpp"

namespace kforge::evaluation {

class BaselineGpus {
 public:
  /// `devices`: for each GPU, what CUDA_VISIBLE_DEVICES calls it ("0", "GPU-..."); none (the CPU
  /// backend, no GPU): builds see what kforge sees, none waits. A task is large from
  /// `large_bytes` of tensors.
  explicit BaselineGpus(std::vector<std::string> devices, int64_t large_bytes = int64_t{1} << 30);

  /// A GPU held for one build until the lease is destroyed.
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&& other) noexcept;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();
    /// CUDA_VISIBLE_DEVICES for the build: the one GPU; "" where there is none to choose.
    const std::string& device() const { return device_; }

   private:
    friend class BaselineGpus;
    void release();
    BaselineGpus* owner_ = nullptr;
    size_t index_ = 0;
    bool large_ = false;
    std::string device_;
  };

  /// The GPU for a build of a task whose tensors take `bytes` (`largest_config_bytes`): the one
  /// with the fewest builds among those that can take it; a large task waits until a GPU has no
  /// large build.
  Lease acquire(int64_t bytes);

 private:
  struct Gpu {
    std::string device;
    int builds = 0;
    bool large = false;
  };
  std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<Gpu> gpus_;
  int64_t large_bytes_;
};

/// The bytes of the tensors (arguments and outputs) of the largest config of an export
/// (`export.json`'s directions and configs).
int64_t largest_config_bytes(const json::Value& export_doc);

}  // namespace kforge::evaluation
