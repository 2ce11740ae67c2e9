// What a candidate's function must take and return for one config of an exported task direction,
// read from task.json: the registry type of each parameter, and for backward which gradient each
// output is. One reading shared by the worker, the verifier, prompts and `kforge export`.
#pragma once

#include <string>
#include <vector>

#include "common/json.hpp"

namespace kforge::tasks {

/// The registry type names ("Tensor", "Tensor?", "Tensor[]", "float", "int", "bool", "int[]")
/// of the arguments the task passes, in order. `config` is an element of direction.configs.
std::vector<std::string> parameter_types(const json::Value& config);

/// "x: Tensor, eps: float, ..." for messages.
std::string describe_parameters(const json::Value& config);

/// For people and prompts: what the function receives and returns, one line per argument and
/// output, saying for a backward where each argument comes from and which gradient each output is.
std::string describe_contract(const json::Value& config, const std::string& direction);

/// Whether a kernel parameter of registry type `kernel` accepts an argument of type `task`.
bool parameter_accepts(const std::string& kernel, const std::string& task);

}  // namespace kforge::tasks
