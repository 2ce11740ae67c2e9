// Which op family an exported task direction is, read from what its reference calls (the ATen
// operators the exporter recorded) and the argument list it passes: the built-in proposer's
// templates implement families, not task names. A misrecognised task costs one rejected
// candidate, never a wrong verdict: the evaluator is the judge.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/json.hpp"

namespace kforge::builtin {

struct TaskFamily {
  /// "softmax", "layernorm", "rmsnorm", "linear", "cross_entropy"; empty: none
  std::string family;
  std::string why_not;  ///< when empty family: what the task is that no template implements
  /// The templates' traits this task fixes: layernorm `shape_arg` (1: the task passes
  /// normalized_shape), linear `relu` (1: a ReLU follows).
  std::map<std::string, int64_t> traits;
};

/// `direction_doc` is task.json's directions[direction].
TaskFamily recognise_family(const json::Value& direction_doc, const std::string& direction);

}  // namespace kforge::builtin
