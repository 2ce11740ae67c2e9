// An evaluator of a node (`kforge node`) as the daemon's pools see it. Only source crosses the
// network: it writes the task's files into the node's cache, exports them with the node's Python,
// compiles the candidate for the node's own device with the node's compiler pool, and evaluates
// it with the node's own evaluator (its sandboxed worker), one candidate at a time.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "actors/stage_stats.hpp"
#include "common/result.hpp"
#include "messages/interfaces.hpp"

namespace kforge {

/// The failure kind of a result that says the node could not evaluate (its task files, its export,
/// its compile of what the daemon compiled, its worker or evaluator): the pool gives the candidate
/// to another evaluator and drops this one, rather than make it the candidate's verdict.
inline constexpr const char* kNodeFailureKind = "node_failure";

struct node_evaluator_state {
  std::string node;   ///< the node's name, in the device's name of each result
  std::string tasks;  ///< where the tasks' files are written
  evaluator_actor evaluator;
  compiler_actor compiler;
  std::optional<device_info> device;
  stage_stats stats{"", "evaluator"};
  static inline const char* name = "kforge.node_evaluator";
};

node_evaluator_actor::behavior_type node_evaluator_impl(
    node_evaluator_actor::stateful_pointer<node_evaluator_state> self, std::string node,
    std::string key, std::string tasks_dir, evaluator_actor evaluator, compiler_actor compiler);

/// Writes a task's files (relative path -> content) under `root`, in a folder named by their
/// content and then `task_name` (the task keeps its name), once; its path. Refuses a path that
/// is absolute or climbs out of the folder.
Result<std::string> write_task_files(const std::string& root, const std::string& task_name,
                                     const std::map<std::string, std::string>& files);

}  // namespace kforge
