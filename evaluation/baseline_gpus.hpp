// Which GPU a torch.compile baseline build runs on, and when. A build holds its task's tensors on
// a GPU for minutes (Inductor compiles, autotunes and checks) while the evaluators' workers
// evaluate other tasks there. Left as CUDA_VISIBLE_DEVICES left them, all builds ran on the first
// GPU, many at once: on KernelBench level 1 at full size (tensors of up to 26 GiB a task) they
// filled it (with the worker's own comparison, since done in slices), and 36 of the 94 problems
// judged had only out-of-memory verdicts. So builds are spread over the GPUs, the least busy
// first, and a GPU takes large tasks' builds while three times their tensors together stay within
// 40 % of its memory (one at a time where its memory is not known). One at a time held large
// builds to one a GPU: KernelBench level 1's builds took 75-192 s each on four H200s, 100 of
// them, and its full-size tasks reach 26 GiB.
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
  /// backend, no GPU): builds see what kforge sees, none waits. `memory_bytes`: each GPU's memory
  /// in the same order (`gpu_memory_bytes`; missing or 0: not known). A task is large from
  /// `large_bytes` of tensors.
  explicit BaselineGpus(std::vector<std::string> devices, std::vector<int64_t> memory_bytes = {},
                        int64_t large_bytes = int64_t{1} << 30);

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
    int64_t large_bytes_ = 0;  // what it adds to its GPU's large builds' tensors
    std::string device_;
  };

  /// The GPU for a build of a task whose tensors take `bytes` (`largest_config_bytes`): the one
  /// with the fewest builds among those that can take it. A large task waits for a GPU where
  /// three times its tensors and those of the large builds there fit in 40 % of its memory, or
  /// that has no large build (a task larger than that builds alone).
  Lease acquire(int64_t bytes);

 private:
  struct Gpu {
    std::string device;
    int64_t memory_bytes = 0;
    int builds = 0;
    int64_t large_bytes = 0;  ///< what its large builds are counted to hold
  };
  std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<Gpu> gpus_;
  int64_t large_from_;
};

/// The memory of each GPU that CUDA_VISIBLE_DEVICES calls as `devices` do ("0", "GPU-..."), as
/// nvidia-smi reports it; 0 for one that cannot be known (no nvidia-smi, no such GPU).
std::vector<int64_t> gpu_memory_bytes(const std::vector<std::string>& devices);

/// The bytes of the tensors (arguments and outputs) of the largest config of an export
/// (`export.json`'s directions and configs).
int64_t largest_config_bytes(const json::Value& export_doc);

}  // namespace kforge::evaluation
