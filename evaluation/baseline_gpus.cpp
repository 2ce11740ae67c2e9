#include "evaluation/baseline_gpus.hpp"

#include <algorithm>
#include <chrono>
#include <sstream>
#include <utility>

#include "evaluation/process.hpp"

namespace kforge::evaluation {
namespace {

// What a build's process holds on its GPU for each byte of its task's tensors: more than the
// tensors (the reference's outputs and the compiled code's, Inductor's buffers). On KernelBench
// level 1 (full size, a99e75f) an evaluation ran out of memory on an H200 where eight other
// processes held 1.3 to 70 GiB each (which of them were builds was not recorded); three times
// the tensors is a guess, not a measurement of a build.
constexpr int64_t kHeldPerTensorByte = 3;

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

BaselineGpus::BaselineGpus(std::vector<std::string> devices, std::vector<int64_t> memory_bytes,
                           int64_t large_bytes)
    : large_from_(large_bytes) {
  for (size_t i = 0; i < devices.size(); ++i)
    gpus_.push_back(Gpu{std::move(devices[i]), i < memory_bytes.size() ? memory_bytes[i] : 0});
}

BaselineGpus::Lease BaselineGpus::acquire(int64_t bytes) {
  Lease lease;
  if (gpus_.empty()) return lease;
  const bool large = bytes >= large_from_;
  std::unique_lock lock(mutex_);
  auto best = gpus_.end();
  freed_.wait(lock, [&] {
    best = gpus_.end();
    for (auto g = gpus_.begin(); g != gpus_.end(); ++g) {
      const bool fits = !large || g->large_bytes == 0 ||
                        g->large_bytes + kHeldPerTensorByte * bytes <= g->memory_bytes * 2 / 5;
      if (fits && (best == gpus_.end() || g->builds < best->builds)) best = g;
    }
    return best != gpus_.end();
  });
  ++best->builds;
  lease.large_bytes_ = large ? kHeldPerTensorByte * bytes : 0;
  best->large_bytes += lease.large_bytes_;
  lease.owner_ = this;
  lease.index_ = static_cast<size_t>(best - gpus_.begin());
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
    large_bytes_ = other.large_bytes_;
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
    g.large_bytes -= large_bytes_;
  }
  owner_->freed_.notify_all();
  owner_ = nullptr;
}

std::vector<int64_t> gpu_memory_bytes(const std::vector<std::string>& devices) {
  std::vector<int64_t> memory(devices.size(), 0);
  const std::string smi = find_program("nvidia-smi");
  if (smi.empty() || devices.empty()) return memory;
  SpawnOptions o;
  o.argv = {smi, "--query-gpu=index,uuid,memory.total", "--format=csv,noheader,nounits"};
  const auto r = run(o, std::chrono::seconds(20));
  if (!r.ok()) return memory;
  // "0, GPU-7d3c..., 143771" a GPU (MiB).
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> fields;
    std::istringstream parts(line);
    for (std::string f; std::getline(parts, f, ',');) {
      f.erase(0, f.find_first_not_of(" \t"));
      f.erase(f.find_last_not_of(" \t\r") + 1);
      fields.push_back(f);
    }
    if (fields.size() != 3 || fields[2].empty() ||
        fields[2].find_first_not_of("0123456789") != std::string::npos)
      continue;
    for (size_t i = 0; i < devices.size(); ++i)
      if (devices[i] == fields[0] || devices[i] == fields[1])
        memory[i] = std::stoll(fields[2]) * (int64_t{1} << 20);
  }
  return memory;
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
