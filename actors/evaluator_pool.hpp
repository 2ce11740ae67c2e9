// The evaluators of one evaluator key ("cpu", "cuda:0") behind one queue, for a daemon that nodes
// may join: the daemon's own evaluator (where it has one) and every node evaluator that joined
// take one candidate at a time, the oldest candidate first. A node that goes (killed, its
// connection lost, an error instead of an answer) gives its candidate back to the queue, where
// another evaluator takes it; the experiment hears one answer per candidate, as from a local
// evaluator, so each candidate is archived as evaluated once.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "actors/stage_stats.hpp"
#include "common/result.hpp"
#include "messages/interfaces.hpp"

namespace kforge {

/// A candidate whose evaluation was lost with this many nodes is answered with an error verdict
/// instead of going back to the queue again.
inline constexpr int kNodeLossesPerCandidate = 3;
/// A task folder sent to nodes may hold at most this many bytes of files.
inline constexpr size_t kTaskFilesLimit = 64u << 20;

/// The files of a task folder as a node is sent them: relative path -> content, regular files
/// only, Python caches and hidden entries skipped; an error where the folder cannot be read or
/// holds more than `limit` bytes.
Result<std::map<std::string, std::string>> read_task_files(const std::string& dir,
                                                           size_t limit = kTaskFilesLimit);

struct evaluator_pool_state {
  struct member {
    std::string name;             ///< "evaluator cpu", "node NAME evaluator cuda:0"
    evaluator_actor local;        ///< set for the daemon's own evaluator
    node_evaluator_actor remote;  ///< set for a node's
    device_info device;           ///< a node's, as it said when it joined
    std::optional<uint64_t> job;  ///< in flight
    uint64_t attempt = 0;         ///< which sending of `job` an answer must match
    stage_stats stats{"", "evaluator"};
  };
  struct job {
    eval_request request;
    caf::typed_response_promise<eval_result> promise;
    int losses = 0;
  };

  std::string key;
  std::map<uint64_t, member> members;
  std::map<uint64_t, job> jobs;
  std::multimap<int64_t, uint64_t> queue;  ///< candidate id -> job: the oldest candidate first
  uint64_t next_member = 0, next_job = 0, next_attempt = 0;
  std::map<std::string, std::map<std::string, std::string>> task_files;  ///< by task folder
  stage_stats stats{"", "evaluator"};
  static inline const char* name = "kforge.evaluator_pool";
};

/// The pool of `key`; `local` is the daemon's own evaluator of that key, or an invalid handle
/// where the daemon has none (nodes only).
evaluator_pool_actor::behavior_type evaluator_pool_impl(
    evaluator_pool_actor::stateful_pointer<evaluator_pool_state> self, std::string key,
    evaluator_actor local);

}  // namespace kforge
