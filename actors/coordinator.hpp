// The coordinator: one per experiment. It asks the proposers for candidates one at a time, in
// sequence order, and pushes each through verify -> compile -> evaluate -> profile, recording
// every outcome in the archive before acting on it. The stages run concurrently; the pipeline
// depth bounds the candidates in flight (back-pressure: nothing is proposed that the stages
// behind cannot take), and proposal n sees only outcomes of candidates up to n - depth, so what
// it proposes does not depend on which stage finished first. Resumes from the archive.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "messages/interfaces.hpp"
#include "search/experiment_spec.hpp"
#include "search/population.hpp"

namespace kforge {

/// The stage actors a coordinator sends work to.
struct stage_handles {
  archive_actor archive;
  compiler_actor compiler;
  verifier_actor verifier;
  profiler_actor profiler;
  std::map<std::string, proposer_actor> proposers;    ///< by proposer name
  std::map<std::string, evaluator_actor> evaluators;  ///< by evaluator_key()
};

struct coordinator_config {
  experiment_record experiment;  ///< already archived (its id is set)
  search::ExperimentSpec spec;   ///< with the "auto" choices resolved
  bool resume = false;           ///< carry on from the archive's candidates
  bool start_paused = false;
  std::string archive_path;  ///< the LLM models' response cache lives in the archive database
  caf::actor listener;       ///< gets (event_atom, event_record) and (done_atom, experiment_status)
};

/// A proposal's decision as recorded with its candidate, and as a replay follows it.
struct proposal_decision {
  std::string target_key;
  std::string proposer;
  std::string mode;
  int64_t parent_sequence = -1;
  int64_t fix_of = -1;
  std::string strategy;
  std::string reply_key;
  int32_t attempt = 0;
};

/// A proposal being made: its target, its decision (kept across retries) and its attempts.
struct pending_proposal {
  size_t target = 0;
  std::optional<proposal_decision> decision;  ///< made when it is first sent
  int32_t attempts = 0;                       ///< failed tries so far: the next sample index
  bool in_flight = false;
  bool backing_off = false;  ///< after a failure, until its tick
};

struct coordinator_state {
  coordinator_config cfg;
  stage_handles stages;
  std::vector<target> targets;
  std::vector<std::string> export_dirs;  ///< per target
  /// Per target: its torch.compile baseline (compiled.json's folder), or why it has none when
  /// one was asked for.
  std::vector<std::pair<std::string, std::string>> baselines;
  std::map<std::string, std::string> cuda_arch;  ///< per evaluator key
  search::Population population{8};
  std::map<int64_t, candidate_record> candidates;  ///< by sequence
  std::map<int64_t, std::string> compile_logs;     ///< of correct candidates until profiled
  /// Per target: why it gets no more proposals (exhausted, abandoned, failed); "" while it may.
  std::vector<std::string> ended;
  std::vector<std::set<std::string>> unable;  ///< per target: proposers that cannot write it
  std::vector<int> proposer_failures;
  std::vector<int> compile_failures;  ///< per target: its latest candidates that did not compile
  std::map<std::string, llm_model_actor> llm_proposers;  ///< by name, this experiment's own
  std::map<std::string, llm_model_actor> llm_verifiers;  ///< by name
  std::set<std::string> disabled;                        ///< proposers whose key or money is spent
  std::map<int64_t, std::string> profile_briefs;         ///< by sequence
  /// Failed candidates a fix may repair: stage and what went wrong, by sequence.
  std::map<int64_t, std::pair<std::string, std::string>> failures;
  std::set<int64_t> fixed;                   ///< failed sequences a fix was already proposed for
  std::map<std::string, model_usage> usage;  ///< LLM calls per model
  double cost_usd = 0;
  std::map<int64_t, pending_proposal> pending;  ///< proposals not yet candidates, by sequence
  int64_t next_sequence = 0;                    ///< the next sequence to give a proposal
  std::map<int64_t, proposal_decision> replay;  ///< the recorded decisions being followed
  bool replaying = false;
  std::string status = "starting";
  bool concluding = false;  ///< the final status is being recorded
  bool budget_spent = false;
  int pending_profiles = 0;
  int64_t proposed = 0, rejected = 0, evaluated = 0, correct = 0;
  std::deque<std::function<void()>> held;  ///< work held while paused
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::string last_error;
  static inline const char* name = "kforge.coordinator";
};

coordinator_actor::behavior_type coordinator_impl(
    coordinator_actor::stateful_pointer<coordinator_state> self, coordinator_config config,
    stage_handles stages);

/// exp(mean log speedup) over the configs; 0 unless every config is correct and timed.
double geomean_speedup(const eval_result& r, bool over_compiled = false);

}  // namespace kforge
