// Static checks on a candidate's source, before it is compiled: which functions it registers, and
// where it hands work to a library (ATen compute ops, cuBLAS, cuDNN) instead of its own kernels.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/build_choices.hpp"
#include "common/result.hpp"

namespace kforge::evaluation {

/// The source without comments; string literals are kept (registration names live in them).
std::string strip_comments(std::string_view source);

/// Names passed to m.def("...") in the order they appear.
std::vector<std::string> registered_functions(std::string_view source);

/// Library calls found in the source, one line each ("line 12: torch::matmul").
std::vector<std::string> library_calls(std::string_view source);

/// The parameter types of the function registered as `name`, in the registry's words ("Tensor",
/// "Tensor?", "float", "int", "bool", "int[]"; "?" for a type it cannot map). None when the
/// registration or the definition cannot be found statically (a lambda, a template, a macro).
std::optional<std::vector<std::string>> registered_parameter_types(std::string_view source,
                                                                   const std::string& name);

/// Constructs no kernel needs and the sandbox exists to stop: processes, threads, sockets, dynamic
/// loading, raw file descriptors, the environment, exiting, resetting the device. One line each
/// ("line 7: fork() (starts a process)").
std::vector<std::string> forbidden_constructs(std::string_view source);

/// The verdict of the static rules on a candidate before it is compiled.
struct SourceVerdict {
  bool accepted = false;
  std::string kind;  ///< "too_large", "missing_function", "signature_mismatch",
                     ///< "forbidden_construct", "library_call"; empty when accepted
  std::string reason;
  std::vector<std::string> notes;  ///< findings that do not reject
};

/// What the task passes to the function.
struct TaskParameters {
  std::vector<std::string> types;  ///< in the registry's words ("Tensor", "int", ...)
  std::string described;           ///< "x: Tensor, dim: int", as messages name them; "": the types
};

/// Size limit, the registration of `function`, its parameter types against the task's,
/// forbidden constructs, and library calls under the policy.
SourceVerdict check_source(std::string_view source, const std::string& function,
                           const TaskParameters& expected, LibraryPolicy library_policy,
                           size_t max_bytes);

/// What the task passes to a direction's function, from its exported task.json; an error when it
/// cannot be read.
Result<TaskParameters> task_parameters(const std::string& export_dir, const std::string& direction);

}  // namespace kforge::evaluation
