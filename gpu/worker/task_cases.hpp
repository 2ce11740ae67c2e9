// The cases of an exported task: for a config and a seed, fresh inputs and weights drawn from the
// distributions the exporter found (and, for backward, the forward outputs and output gradients
// that backward_fn takes), and the TorchScript reference that computes the expected outputs.
#pragma once

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>
#include <torch/script.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/json.hpp"

namespace kforge::worker {

/// One drawn case: the argument list in the task's order, and the distinct tensors in it.
struct Case {
  std::vector<c10::IValue> args;
  std::vector<at::Tensor> tensors;
  std::vector<std::string> tensor_names;
};

/// What the exported config says a candidate's function must accept, as registry type names.
std::vector<std::string> expected_parameter_types(const json::Value& config);
std::string describe_parameters(const json::Value& config);

class ExportedTask {
 public:
  /// Reads task.json from an export folder. `error` is set when it cannot.
  static std::unique_ptr<ExportedTask> load(const std::string& export_dir, std::string& error);

  const json::Value& document() const { return doc_; }
  const json::Value& direction(const std::string& name) const { return doc_["directions"][name]; }

  /// Draws a case of `config` (an element of direction.configs) on `device`.
  Case draw(const json::Value& config, uint64_t seed, at::Device device);
  /// Refills the tensors of a case in place with values of another seed (same storage).
  void refill(const json::Value& config, Case& c, uint64_t seed);
  /// Runs the reference of `config` on (copies of) the case's arguments.
  std::vector<at::Tensor> reference(const json::Value& config, const Case& c);

  /// The reference module and its argument list for a case, without copies (for timing).
  struct PreparedCall {
    torch::jit::Module* module;
    std::vector<c10::IValue> args;
  };
  PreparedCall prepare_reference(const json::Value& config, const Case& c, bool copy_tensors);

 private:
  at::Tensor draw_tensor(const json::Value& spec, uint64_t seed, at::Device device);
  torch::jit::Module& module(const std::string& file);
  PreparedCall prepare(const json::Value& reference, const json::Value& specs,
                       const std::vector<c10::IValue>& args, bool copy_tensors);
  std::string dir_;
  json::Value doc_;
  std::map<std::string, torch::jit::Module> modules_;
};

/// Flattens what a function returned (tensor, tuple, list) into tensors.
std::vector<at::Tensor> flatten_outputs(const c10::IValue& value);
at::ScalarType parse_dtype(const std::string& name);
uint64_t mix_seed(uint64_t a, uint64_t b);

}  // namespace kforge::worker
