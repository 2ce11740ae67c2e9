#include "evaluation/worker/poison_allocator.hpp"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <torch/version.h>

#include <atomic>
#include <cstring>

namespace kforge::worker {
namespace {

std::atomic<bool> poisoning{false};

class PoisonAllocator final : public c10::Allocator {
 public:
  explicit PoisonAllocator(c10::Allocator* inner) : inner_(inner) {}

#if TORCH_VERSION_MAJOR >= 2 && TORCH_VERSION_MINOR >= 3 || TORCH_VERSION_MAJOR >= 3
  c10::DataPtr allocate(size_t n) override {
    return fill(inner_->allocate(n), n);
  }
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    std::memcpy(dest, src, count);
  }
#else
  c10::DataPtr allocate(size_t n) const override {
    return fill(inner_->allocate(n), n);
  }
#endif
  c10::DeleterFnPtr raw_deleter() const override {
    return inner_->raw_deleter();
  }

 private:
  static c10::DataPtr fill(c10::DataPtr ptr, size_t n) {
    if (poisoning.load(std::memory_order_relaxed) && ptr.get() && n)
      std::memset(ptr.get(), 0xFF, n);
    return ptr;
  }
  c10::Allocator* inner_;
};

}  // namespace

void install_poison_allocator() {
  static PoisonAllocator allocator(c10::GetDefaultCPUAllocator());
  c10::SetCPUAllocator(&allocator, /*priority=*/100);
}

void set_cpu_poisoning(bool on) {
  poisoning.store(on);
}

}  // namespace kforge::worker
