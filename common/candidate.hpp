// A candidate kernel: what a proposer wrote and what made it. One type from proposal to archive:
// the actors' messages carry it as it is, and the archive keeps it as one row of `candidates`.
// Where the task lives on disk and which device runs it are the experiment's layout, not the
// candidate's: a target is named here by task, direction and backend (target_key).
#pragma once

#include <cstdint>
#include <string>

namespace kforge {

struct Candidate {
  int64_t id = 0;  ///< the archive's id; 0 until it is archived
  int64_t experiment_id = 0;
  int64_t sequence = -1;  ///< order of proposal within the experiment, from 0; -1: the next one
  std::string task, direction, backend;
  std::string source;
  std::string source_hash;
  int64_t parent_id = 0;  ///< the parent candidate's id; 0: none
  std::string proposer;
  std::string strategy;       ///< what the proposer did (built-in: the template's name)
  std::string params = "{}";  ///< JSON object: the proposer's parameters (built-in templates)
  /// JSON object: the decision that made it (proposer, mode, parent and fixed sequences, the
  /// cached LLM reply's key), what a replay follows.
  std::string decision = "{}";
  uint64_t seed = 0;  ///< the random stream the proposal drew from
  double created_at = 0;
};

/// "task/direction/backend": how events, decisions and the layout name a target.
inline std::string target_key(const std::string& task, const std::string& direction,
                              const std::string& backend) {
  return task + "/" + direction + "/" + backend;
}
inline std::string target_key(const Candidate& c) {
  return target_key(c.task, c.direction, c.backend);
}

}  // namespace kforge
