#include "evaluation/baseline_gpus.hpp"

#include <algorithm>
#include <utility>

namespace kforge::evaluation {
namespace {

int64_t element_bytes(const std::string& dtype) {
  if (dtype == "float64" || dtype == "int64" || dtype == "complex64") return 8;
  if (dtype == "float16" || dtype == "bfloat16" || dtype == "int16") return 2;
  if (dtype == "bool" || dtype == "uint8" || dtype == "int8") return 1;
  return 4;
}

int64_t tensor_bytes(const json::Value& spec) {
  if (!spec["shape"].is_array()) return 0;
  int64_t n = 1;
  for (const auto& d : spec["shape"].as_array()) n *= std::max<int64_t>(0, d.as_int());
  return n * element_bytes(spec["dtype"].as_string("float32"));
}

}  // namespace

BaselineGpus::BaselineGpus(std::vector<std::string> devices, int64_t large_bytes)
    : large_bytes_(large_bytes) {
  for (auto& d : devices) gpus_.push_back(Gpu{std::move(d)});
}

BaselineGpus::Lease BaselineGpus::acquire(int64_t bytes) {
  Lease lease;
  if (gpus_.empty()) return lease;
  const bool large = bytes >= large_bytes_;
  std::unique_lock lock(mutex_);
  auto best = gpus_.end();
  freed_.wait(lock, [&] {
    best = gpus_.end();
    for (auto g = gpus_.begin(); g != gpus_.end(); ++g)
      if ((!large || !g->large) && (best == gpus_.end() || g->builds < best->builds)) best = g;
    return best != gpus_.end();
  });
  ++best->builds;
  best->large = best->large || large;
  lease.owner_ = this;
  lease.index_ = static_cast<size_t>(best - gpus_.begin());
  lease.large_ = large;
  lease.device_ = best->device;
  return lease;
}

BaselineGpus::Lease::Lease(Lease&& other) noexcept {
  *this = std::move(other);
}

BaselineGpus::Lease& BaselineGpus::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = std::exchange(other.owner_, nullptr);
    index_ = other.index_;
    large_ = other.large_;
    device_ = std::move(other.device_);
  }
  return *this;
}

BaselineGpus::Lease::~Lease() {
  release();
}

void BaselineGpus::Lease::release() {
  if (!owner_) return;
  {
    std::lock_guard lock(owner_->mutex_);
    auto& g = owner_->gpus_[index_];
    --g.builds;
    if (large_) g.large = false;
  }
  owner_->freed_.notify_all();
  owner_ = nullptr;
}

int64_t largest_config_bytes(const json::Value& export_doc) {
  int64_t largest = 0;
  for (const auto& [name, direction] : export_doc["directions"].as_object()) {
    for (const auto& config : direction["configs"].as_array()) {
      int64_t bytes = 0;
      for (const auto& a : config["args"].as_array()) bytes += tensor_bytes(a);
      for (const auto& o : config["outputs"].as_array()) bytes += tensor_bytes(o);
      largest = std::max(largest, bytes);
    }
  }
  return largest;
}

}  // namespace kforge::evaluation
