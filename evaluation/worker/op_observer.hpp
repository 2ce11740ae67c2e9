// Watches which ATen operators a candidate calls (through LibTorch's RecordFunction), so that
// library calls (matmul, softmax, ...) are seen at run time, not only in the source.
#pragma once

#include <cstdint>
#include <set>
#include <string>

namespace kforge::worker {

/// Observes operators called on this thread between construction and destruction.
class OpObserver {
 public:
  OpObserver();
  ~OpObserver();
  OpObserver(const OpObserver&) = delete;
  OpObserver& operator=(const OpObserver&) = delete;
  /// Operators that compute (allocation, views, copies and metadata are left out).
  std::set<std::string> compute_ops() const;

 private:
  uint64_t handle_;
};

}  // namespace kforge::worker
