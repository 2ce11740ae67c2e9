// The experiment's events, declared once: every kind an experiment reports (to the archive's
// `events` table, `kforge run`'s lines, the daemon's log and its event stream) with what its
// consumers need to know of it: whether it ends a candidate or a target, how loud the daemon's log
// is about it, and its name on the wire. Producers (actors/, search/) and consumers (tools/,
// archive/) name kinds only through this enum; the dashboard reads the names listed in
// docs/design.md. A plain library (no CAF), so that search/ and archive/ use it too.
//
// Every event about one candidate names its sequence, its archive id (`candidate`) and its target
// (`target`, "task/direction/backend"); every event about a target names the target.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.hpp"

namespace kforge::events {

enum class Kind : uint8_t {
  // The experiment.
  experiment_started,  ///< targets
  resumed,             ///< candidates, carried_on
  replaying,           ///< decisions, replay_of
  experiment_paused,
  experiment_resumed,
  experiment_stopping,
  experiment_finished,  ///< status, proposed, correct, error
  experiment_stopped,
  experiment_failed,
  budget_spent,       ///< budget, limit
  compiled_baseline,  ///< task, baseline: torch.compile's baseline was measured
  direction_missing,  ///< task, direction: a direction the task does not have was skipped
  // Proposals (target, proposer).
  proposed,              ///< candidate: a proposal became a candidate
  proposal_failed,       ///< kind, reason, retry_in_seconds: no candidate; asked again
  proposer_error,        ///< archives of kforge before proposal_failed: read, never written
  proposer_disabled,     ///< kind, reason: a rejected key or spent money, for the experiment
  proposer_set_aside,    ///< kind, reason: for this target, the others go on
  proposer_unsupported,  ///< kind, reason: it cannot write this target
  // A candidate (sequence, candidate, target).
  llm_verified,         ///< verdict, reason, audited
  rejected,             ///< kind, reason: before compiling (rules, novelty, LLM verifiers)
  compile_failed,       ///< reason
  evaluated,            ///< strategy, verdict, speedup, kind, reason, seconds
  stage_error,          ///< stage, reason: a stage itself failed
  profiled,             ///< profile
  profile_advised,      ///< recommendations
  profile_not_advised,  ///< reason
  // A target.
  new_best,                ///< candidate, strategy, speedup
  strategies_written,      ///< round, strategies
  strategies_not_written,  ///< round, reason
  target_exhausted,        ///< every variant was tried
  target_abandoned,        ///< reason
  target_failed,           ///< reason: it could not start (its export failed)
  // The confirmation of the best kernels, once the search is over.
  confirming,  ///< candidates
  confirmed,   ///< candidate, target, verdict, speedup, speedup_p10, speedup_p90, reason
  /// A name this build does not know (an archive written by a later kforge): shown as it is.
  unknown,
};

/// The kind's name on the wire and in the archive ("new_best").
std::string_view name(Kind kind);
/// The kind of a name; `unknown` for a name this build does not know.
Kind kind_named(std::string_view name);
/// The names of `kinds`, as the archive's history filter takes them.
std::vector<std::string> names(std::initializer_list<Kind> kinds);

/// The candidate's last event: it was evaluated, rejected before compiling, did not compile, or
/// a stage failed. Progress counts these.
bool finishes_candidate(Kind kind);
/// The target gets no more proposals: exhausted, abandoned or failed to start.
bool ends_target(Kind kind);
/// The event concerns one target, and its detail names it (`target`).
bool about_target(Kind kind);
/// The experiment ended (finished, stopped or failed).
bool ends_experiment(Kind kind);

enum class Severity : uint8_t { debug, info, warn, error };
/// How loud the daemon's log is about it: errors (a failed experiment or stage), warnings (a
/// proposer or target in trouble), news (the experiment's steps and best kernels), the rest debug.
Severity severity(Kind kind);

}  // namespace kforge::events
