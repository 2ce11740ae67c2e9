// The files proposer: proposes kernels that already exist, files matching a pattern, each once
// per target it fits. With it alone, an experiment evaluates a benchmark's kernels through the
// whole pipeline (verify, compile, evaluate, profile, archive): that is `kforge suite`.
#pragma once

#include <string>
#include <vector>

#include "actors/stage_stats.hpp"
#include "messages/interfaces.hpp"

namespace kforge {

/// The files that `pattern` names for target `t`, sorted: {task} is the task folder, {name} its
/// last component, {direction} and {backend} the target's. A `.cu` file fits cuda targets, any
/// other file cpu targets; when the pattern does not name {direction}, a file fits the directions
/// it registers (m.def("forward", ...)), or forward when it registers neither.
std::vector<std::string> kernel_files(const std::string& pattern, const target& t);

struct files_proposer_state {
  stage_stats stats{"proposer files", "proposer"};
  static inline const char* name = "kforge.files_proposer";
};

proposer_actor::behavior_type files_proposer_impl(
    proposer_actor::stateful_pointer<files_proposer_state> self);

}  // namespace kforge
