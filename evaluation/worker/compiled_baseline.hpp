// The torch.compile baseline inside the worker: the AOTInductor libraries that
// exporter/compile_baseline.py built for each config (listed in compiled.json), loaded from C++ and
// called on a case's tensors like the eager reference. Nothing of Python runs here.
#pragma once

#include <ATen/ATen.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "evaluation/worker/task_cases.hpp"

namespace kforge::worker {

class CompiledBaseline {
 public:
  /// Reads `dir`/compiled.json for a worker on `device`. A baseline that cannot be used (none was
  /// built, another torch or device built it, this LibTorch has no AOTInductor runner) says why
  /// on every prepare().
  CompiledBaseline(const std::string& dir, at::Device device);
  ~CompiledBaseline();

  /// The compiled function of a config on one case, ready to be repeated: for a forward config
  /// forward_fn on the case's tensors; for a backward one the backward graph on the tensors the
  /// forward graph saved for this case and the case's output gradients. It returns the outputs in
  /// the candidate's order (an unchecked output undefined). Empty, with `why`, when there is none.
  std::function<std::vector<at::Tensor>()> prepare(const std::string& direction, size_t index,
                                                   const json::Value& config, const Case& c,
                                                   std::string& why);

 private:
  struct Library;
  /// The loaded library of an entry of compiled.json (only where LibTorch has the runner).
  Library* library(const json::Value& entry, std::string& why);
  std::string dir_, error_;
  json::Value doc_;
  at::Device device_;
  std::map<std::string, std::unique_ptr<Library>> libraries_;
};

}  // namespace kforge::worker
