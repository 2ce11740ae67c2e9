// The cases of an exported task: for a config and a seed, fresh inputs and weights drawn from the
// distributions the exporter found, and the reference that computes the expected outputs. For a
// backward config a case also holds the forward function's arguments and the output gradients;
// the candidate's arguments are made from them (saved tensors, forward outputs, tensors the
// task's AutogradFunction computes, tuples of these), and the expected outputs are the gradients
// autograd computes through the forward reference, in the order the candidate returns them.
#pragma once

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>
#include <torch/script.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "common/result.hpp"

namespace kforge::worker {

/// One drawn case: the argument list in the task's order, and the distinct tensors in it.
struct Case {
  std::vector<c10::IValue> args;
  std::vector<at::Tensor> tensors;
  std::vector<std::string> tensor_names;
  /// Backward only: the forward function's arguments and the gradient of each forward output
  /// (undefined for outputs that are not floating point).
  std::vector<c10::IValue> forward_args;
  std::vector<at::Tensor> grad_outputs;
};

class ExportedTask {
 public:
  /// Reads task.json from an export folder. `error` is set when it cannot.
  static Result<std::unique_ptr<ExportedTask>> load(const std::string& export_dir);

  const json::Value& document() const { return doc_; }
  const json::Value& direction(const std::string& name) const { return doc_["directions"][name]; }

  /// Draws a case of `config` (an element of direction.configs) on `device`.
  Case draw(const json::Value& config, uint64_t seed, at::Device device);
  /// Refills the tensors of a case in place with values of another seed (same storage).
  void refill(const json::Value& config, Case& c, uint64_t seed);
  /// The expected outputs for a case, computed on copies of its tensors. An output the task
  /// does not check (the gradient of an argument that needs none) is an undefined tensor.
  std::vector<at::Tensor> reference(const json::Value& config, const Case& c);
  /// The same reference computed in float64: the case's floating tensors widened, the task's
  /// modules (their parameters and buffers) in double. What a float32 reference's own rounding is
  /// measured against (`compare_outputs` with an exact reference). Throws where the task's code
  /// cannot run in double.
  std::vector<at::Tensor> reference_in_double(const json::Value& config, const Case& c);
  /// The reference's work for timing, ready to be repeated: the forward function on the case's
  /// own tensors, or for backward autograd's backward pass through a graph built once.
  std::function<void()> prepare_timed_reference(const json::Value& config, const Case& c);

 private:
  struct Graph;  // a forward pass recorded by autograd, and what to differentiate
  at::Tensor draw_tensor(const json::Value& spec, uint64_t seed, at::Device device);
  c10::IValue draw_value(const json::Value& spec, uint64_t seed, at::Device device);
  /// The module in `file`, loaded once; its copy in double where `in_double`.
  torch::jit::Module& module(const std::string& file, bool in_double = false);
  std::vector<at::Tensor> call(const json::Value& reference, const json::Value& specs,
                               const std::vector<c10::IValue>& args, bool copy_tensors,
                               bool in_double = false);
  Graph forward_graph(const json::Value& config, const Case& c, bool in_double = false);
  std::vector<at::Tensor> reference(const json::Value& config, const Case& c, bool in_double);
  /// The expected outputs of a backward config: autograd's gradients, in the candidate's order.
  std::vector<at::Tensor> gradients(const json::Value& config, const Case& c, Graph& graph);
  std::string dir_;
  json::Value doc_;
  std::map<std::string, torch::jit::Module> modules_, modules_in_double_;
};

/// Flattens what a function returned (tensor, tuple, list) into tensors.
std::vector<at::Tensor> flatten_outputs(const c10::IValue& value);
at::ScalarType parse_dtype(const std::string& name);
uint64_t mix_seed(uint64_t a, uint64_t b);

}  // namespace kforge::worker
