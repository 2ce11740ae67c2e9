// The search's decisions for one experiment, as plain values: which target the next proposal
// serves, which ensemble member writes it, whether it translates, optimises a parent or repairs
// a failure, which strategy it tries and which kernels its prompt shows. Every draw comes from a
// stream seeded by (experiment seed, purpose, sequence), and proposal n sees only the outcomes
// of candidates up to n - depth (population.hpp), so the same seed gives the same plans whichever
// order the stages finish in. A replay follows another experiment's recorded decisions instead.
// The coordinator tells the planner what happened and asks it what to do; nothing here sends a
// message or reads a file.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/stage.hpp"
#include "messages/events.hpp"
#include "search/experiment_spec.hpp"
#include "search/meta_generation.hpp"
#include "search/population.hpp"
#include "search/proposal_failure.hpp"
#include "search/proposal_mode.hpp"

namespace kforge::search {

/// A proposal's decision, as recorded with its candidate and as a replay follows it.
struct Decision {
  std::string target_key;
  std::string proposer;
  ProposalMode mode = ProposalMode::translate;
  int64_t parent_sequence = -1;
  int64_t fix_of = -1;
  std::string strategy;
  std::string reply_key;  ///< the cached LLM reply the candidate came from
  int32_t attempt = 0;    ///< failed tries before it (the LLM's sample index)
  int32_t island = 0;     ///< the island its parent came from and its candidate joins

  /// The sequence the candidate descends from: the parent, or the failure it repairs.
  int64_t lineage_parent() const { return mode == ProposalMode::fix ? fix_of : parent_sequence; }
  json::Value to_json() const;
};

/// The decision recorded with a candidate. Archives older than recorded decisions keep the
/// proposer and the parent only (`parent_sequence`, -1 for none): the mode follows from them.
Decision recorded_decision(const std::string& decision_json, const std::string& target_key,
                           const std::string& proposer, int64_t parent_sequence);

/// What a fix of a failed candidate is shown.
struct Failure {
  Stage stage = Stage::none;  ///< compile or evaluate
  std::string log;            ///< the compiler's log or the failed check
};

/// What follows a proposal that came back without a candidate.
struct Setback {
  enum class Then {
    fail_experiment,  ///< offline, and the cache had no reply: nothing can go on
    end_target,       ///< `event` (target_exhausted, target_abandoned) with `reason`
    plan_again,       ///< `event` (proposer_unsupported, proposer_disabled): the others may
    retry,            ///< `event` proposal_failed: the same request, after `delay_seconds`
  };
  Then then = Then::retry;
  events::Kind event = events::Kind::proposal_failed;
  std::string reason;
  int delay_seconds = 0;
};

/// Proposal n's plan: its decision and, when it optimises, the kernels its prompt shows.
struct Plan {
  Decision decision;
  /// The target's fastest correct kernels that proposal n may see, least to most fast.
  std::vector<int64_t> context;
};

class Planner {
 public:
  Planner(ExperimentSpec spec, std::vector<std::string> target_keys);

  // What happened.
  Population& population() { return population_; }
  const Population& population() const { return population_; }
  /// Candidate `sequence` failed where a fix may repair it.
  void failed(int64_t sequence, Failure failure) { failures_[sequence] = std::move(failure); }
  const Failure* failure(int64_t sequence) const;
  /// A fix of `sequence` was proposed (a resumed experiment's record): none is proposed again.
  void fixed(int64_t sequence) { fixed_.insert(sequence); }
  /// Target t gets no more proposals; false when it had ended already.
  bool end(size_t t, const std::string& reason);
  const std::string& end_reason(size_t t) const { return ended_.at(t); }
  bool ended(size_t t) const { return !ended_.at(t).empty(); }
  /// The proposer's key or money is spent: it proposes nothing more.
  void disable(const std::string& proposer) { disabled_.insert(proposer); }
  bool any_proposer_left() const;
  /// The proposer cannot write target t; false when no proposer is left that can.
  bool unable(size_t t, const std::string& proposer);
  /// Candidates of target t in a row that did not compile, after this one's outcome.
  int compile_outcome(size_t t, bool compiled);
  /// A proposal of target t by `proposer` became a candidate: its failures in a row end.
  void proposal_succeeded(size_t t, const std::string& proposer);
  /// Proposal of target t by `proposer` came back without a candidate, for `kind`: the planner
  /// notes it and says what follows. A proposer whose proposals of a target fail 8 times in a
  /// row (2 refused requests: a 400 comes again) is set aside for it while others can still
  /// propose; the target is abandoned when none can. A failed call is retried after 1, 2, 4 ...
  /// 60 s, a rejected reply or a refused request at once.
  Setback setback(size_t t, const std::string& proposer, ProposalFailure kind,
                  const std::string& reason);
  /// Follow these recorded decisions (by sequence) instead of deciding afresh.
  void follow(std::map<int64_t, Decision> recorded);
  bool replaying() const { return replaying_; }

  // What to do.
  /// The target of the next proposal, which would take sequence n: of the targets below their
  /// quota, the one with the fewest proposals (counting `pending`, per target) for its quota.
  /// A replay moves n to its next recorded sequence and takes that one's target. None when no
  /// proposal is left to make.
  std::optional<size_t> next_target(int64_t& n, const std::vector<int64_t>& pending) const;
  /// How many candidates each target may have, as proposal n sees the targets' best kernels
  /// (`proposals` per target, pending ones included): candidates_per_target each, except that a
  /// target whose best kernel reaches budget.speed_of_light.fraction of its bound keeps only
  /// its share, and what it frees goes to the others in proportion to their headroom.
  std::vector<int64_t> quotas(int64_t n, const std::vector<int64_t>& proposals) const;
  /// The best fraction of the speed-of-light bound among target t's kernels that n may see.
  double speed_of_light(size_t t, int64_t n) const;
  /// The novelty filter: the earliest kernel of candidate n's target that proposal n could see
  /// with the same source digest (search/novelty.hpp), when search.novelty is on. Given kernel
  /// files (the "files" proposer) repeat nothing.
  std::optional<int64_t> repeats(int64_t n) const;
  /// The meta-generation round due before proposal n of target t, if any (never in a replay,
  /// which follows recorded strategies): search.meta_generation.every more of the target's
  /// candidates are visible to n than to the last round.
  std::optional<MetaRound> meta_due(int64_t n, size_t t) const;
  /// Strategies meta-generation wrote for target t in `round` (a text equal to one the target
  /// has for the same proposers is dropped); the round counts as done.
  void generated(size_t t, int32_t round, const std::string& serves, const std::string& source,
                 const std::vector<std::string>& texts);
  /// Round `round` of target t is over, whatever it wrote.
  void meta_done(size_t t, int32_t round);
  /// The strategies target t's proposals by `serves` ("llm", "builtin") may draw: the seed list,
  /// then what meta-generation wrote, in order.
  std::vector<Strategy> strategies(size_t t, const std::string& serves) const;
  /// Proposal n of target t: decided from what n may see and the seeded streams, or as recorded.
  Plan plan(int64_t n, size_t t);
  /// Target t's fastest correct kernels that proposal n may see, search.context_size of them,
  /// least to most fast (sequences).
  std::vector<int64_t> context(size_t t, int64_t n) const;
  /// The proposer kind of an ensemble member ("builtin", "llm", "files").
  std::string proposer_kind(const std::string& proposer) const;
  const ExperimentSpec& spec() const { return spec_; }
  size_t targets() const { return keys_.size(); }

 private:
  Decision decide(int64_t n, size_t t);

  ExperimentSpec spec_;
  std::vector<std::string> keys_;  // per target
  Population population_;
  std::vector<std::string> ended_;             // per target: why it ended, "" while it goes on
  std::vector<std::set<std::string>> unable_;  // per target
  std::vector<int> compile_failures_;  // per target, in a row
  std::map<std::pair<size_t, std::string>, int> proposer_failures_;  // per target and proposer
  std::set<std::string> disabled_;
  std::map<int64_t, Failure> failures_;
  std::set<int64_t> fixed_;
  std::map<int64_t, Decision> recorded_;
  std::map<int64_t, std::string> proposers_decided_;  // by sequence: the proposer decide() chose
  bool replaying_ = false;
  std::vector<std::vector<Strategy>> generated_;  // per target
  std::vector<int32_t> meta_rounds_;              // per target: the last round done
};

}  // namespace kforge::search
