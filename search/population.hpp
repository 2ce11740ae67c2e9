// The candidates of one experiment as the search sees them, and the decisions drawn from them.
// Decisions are made at fixed points: proposal n may see only the outcomes of candidates up to
// n - depth, and waits until all of those have finished (so at most `depth` are in flight). What a
// proposal sees is then the same whichever order compiles and evaluations finish in, so the same
// seed gives the same candidates.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "search/random_stream.hpp"

namespace kforge::search {

struct Member {
  int64_t sequence = 0;
  int64_t candidate_id = 0;
  size_t target = 0;      ///< index into the experiment's targets
  std::string key;        ///< what was proposed (strategy and parameters): no key twice
  bool finished = false;  ///< has its final verdict
  bool correct = false;
  double speedup = 0;            ///< geometric mean over the configs, when correct
  std::string proposer;          ///< the ensemble member that wrote it
  int64_t parent_sequence = -1;  ///< -1: no parent
  double cost_usd = 0;           ///< what its proposal and verification cost
  std::string strategy;          ///< the optimisation strategy its prompt asked for (LLMs), or ""
  int32_t island = 0;            ///< the sub-population it belongs to (search.islands)
  std::string digest;            ///< its source as the novelty filter compares it
  /// Its largest config's speed-of-light bound over its time, when correct (1: at the limit).
  double speed_of_light = 0;
};

/// What `tried` lists for a proposal: strategy and parameters together.
std::string proposal_key(const std::string& strategy, const std::string& params);

class Population {
 public:
  explicit Population(int depth) : depth_(depth) {}

  void add(Member m);
  /// The final outcome of candidate `sequence`.
  void finish(int64_t sequence, bool correct, double speedup, double speed_of_light = 0);
  /// Adds to what candidate `sequence` cost (verifiers are paid after the proposal).
  void add_cost(int64_t sequence, double usd);

  /// Every candidate up to n - depth has finished.
  bool may_propose(int64_t n) const;
  /// Finished members of `target` that proposal n may see (sequence <= n - depth).
  std::vector<Member> visible(size_t target, int64_t n) const;
  /// Finished members of every target that proposal n may see.
  std::vector<Member> visible_all(int64_t n) const;
  /// Keys of every member of `target` (proposals are made one at a time, in order).
  std::vector<std::string> tried(size_t target) const;
  /// The source digests (search::source_digest) of the target's members that have one.
  std::vector<std::string> digests(size_t target) const;
  int64_t proposed(size_t target) const;
  /// The next sequence number: one past the highest present.
  int64_t next_sequence() const;
  const std::map<int64_t, Member>& members() const { return members_; }
  int depth() const { return depth_; }

 private:
  int depth_;
  std::map<int64_t, Member> members_;  // by sequence
};

/// The parent of a proposal among the correct visible members: "uniform" draws any of them (the
/// speed of a kernel never steers the search, so runs repeat exactly), "tournament" takes the
/// fastest of `size` drawn (faster search; the draw then depends on measured times). None when
/// no visible member is correct: the proposal translates instead.
std::optional<Member> select_parent(const std::vector<Member>& visible, const std::string& policy,
                                    int tournament_size, RandomStream& stream);

}  // namespace kforge::search
