// The values the coordinator builds from what it knows, as plain functions: a proposal's request
// from its plan, a proposed candidate's record and population member, and the experiment's
// progress. No messages are sent here.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "messages/payloads.hpp"
#include "search/planner.hpp"

namespace kforge {

/// Where an experiment is: starting, then running or paused, stopping, then one of the final
/// three. The archive and the console see its name.
enum class experiment_phase : uint8_t {
  starting,
  running,
  paused,
  stopping,
  finished,
  stopped,
  failed
};

std::string to_string(experiment_phase p);

/// What the coordinator keeps of one candidate: the candidate as archived, and once they are
/// known its per-config times (a correct one) and its profile in brief (a profiled one, with an
/// LLM's recommendations when it has them).
struct candidate_record {
  Candidate candidate;
  std::string config_times;   ///< one line per config: its time and eager PyTorch's
  std::string profile_brief;  ///< empty until profiled
};

/// An experiment's candidates by sequence.
using candidate_records = std::map<int64_t, candidate_record>;

/// What the coordinator knows of an experiment's candidates, for building requests and status.
struct experiment_view {
  const experiment_record& experiment;
  const search::ExperimentSpec& spec;
  const std::vector<target_layout>& targets;
  const search::Planner& planner;
  const candidate_records& candidates;  ///< by sequence
};

/// Proposal n's request to its proposer: the plan's decision, the parent with its speedup and
/// profile, the failure a fix repairs, and the context kernels, from what n may see.
propose_request make_propose_request(const experiment_view& v, int64_t n, size_t t,
                                     const search::Plan& plan, int32_t attempt);

/// An LLM's advice as the profile keeps it: {"model", "recommendations": [...]}.
json::Value advice_json(const profile_advice& advice);

/// A profile's brief as prompts show it: with an LLM's recommendations (the profile's "advice":
/// {"model", "recommendations"}) when it has them.
std::string advised_brief(const std::string& brief, const json::Value& advice);

/// Meta-generation's request for `round` of target t, before proposal n, for the strategies
/// `serves` proposers draw: the target's best kernels n may see with their times and profiles,
/// and the record of every strategy they may draw now.
meta_request make_meta_request(const experiment_view& v, int64_t n, const search::MetaRound& round,
                               const std::string& serves);

/// The record of proposal n's candidate (`d` with the reply it came from), to archive.
Candidate make_candidate(const experiment_view& v, int64_t n, size_t t, const search::Decision& d,
                         const proposal& p, uint64_t seed);

/// The population's member for an archived candidate.
search::Member make_member(const Candidate& c, size_t t, const search::Decision& d);

/// Counts of an experiment's candidates and what its LLM calls cost.
struct experiment_counts {
  int64_t proposed = 0, rejected = 0, evaluated = 0, correct = 0;
  std::map<std::string, model_usage> usage;  ///< by model
  double cost_usd = 0;

  /// Adds LLM calls to their models' usage and to the cost.
  void charge(const std::vector<LlmCall>& calls);
};

/// Where the experiment stands: its counts, and per target its best kernel so far.
experiment_status make_progress(const experiment_view* v, const experiment_record& experiment,
                                const std::string& status, const experiment_counts& counts,
                                double elapsed_seconds, const std::string& last_error);

}  // namespace kforge
