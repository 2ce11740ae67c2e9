// The files proposer: proposes kernels that already exist, files matching a pattern, each once
// per target it fits. With it alone, an experiment evaluates a benchmark's kernels through the
// whole pipeline (verify, compile, evaluate, profile, archive): that is `kforge suite`.
#pragma once

#include <string>
#include <vector>

#include "actors/stage_stats.hpp"
#include "messages/interfaces.hpp"

namespace kforge {

struct files_proposer_state {
  stage_stats stats{"proposer files", "proposer"};
  static inline const char* name = "kforge.files_proposer";
};

proposer_actor::behavior_type files_proposer_impl(
    proposer_actor::stateful_pointer<files_proposer_state> self);

}  // namespace kforge
