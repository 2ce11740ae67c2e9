// The stage actors an experiment's coordinator and pipeline send work to: the runtime's, shared
// by every experiment.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "messages/interfaces.hpp"

namespace kforge {

/// How long an actor waits for the archive to answer a read or a write.
inline constexpr std::chrono::minutes kArchiveTimeout{2};

struct stage_handles {
  archive_actor archive;
  compiler_actor compiler;
  verifier_actor verifier;
  profiler_actor profiler;
  std::map<std::string, proposer_actor> proposers;    ///< by proposer kind
  std::map<std::string, evaluator_actor> evaluators;  ///< by evaluator_key()
};

}  // namespace kforge
