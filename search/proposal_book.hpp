// The proposals an experiment is making, from the moment a sequence is given to one until it
// comes back as a candidate: each one's target, plan and tries. It says which proposal to send
// next: a retry that is due first, then a new sequence for the planner's next target once the
// candidates it may see (up to n - depth) have all finished. Plain values: the coordinator sends
// the proposals and tells the book what came back.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "search/planner.hpp"

namespace kforge::search {

struct PendingProposal {
  size_t target = 0;
  std::optional<Plan> plan;  ///< made when it is first sent, kept across its retries
  int32_t attempts = 0;      ///< failed tries so far: the next sample index
  bool in_flight = false;    ///< at a proposer now
  bool backing_off = false;  ///< after a failure, until its retry is due
};

class ProposalBook {
 public:
  /// The next proposal to send while fewer than `in_flight_limit` are at the proposers: a
  /// pending one that is neither in flight nor backing off, else a new sequence for the
  /// planner's next target, entered in the book. None when nothing may be sent now.
  std::optional<int64_t> next(const Planner& planner, int in_flight_limit, int depth);
  /// No new sequence can be given: no target may have more proposals.
  bool no_more_sequences(const Planner& planner) const;

  PendingProposal& at(int64_t n) { return pending_.at(n); }
  bool empty() const { return pending_.empty(); }
  /// The oldest proposal still pending; only valid when not empty.
  int64_t oldest() const { return pending_.begin()->first; }
  /// The sequence the next new proposal takes.
  int64_t next_sequence() const { return next_sequence_; }
  /// A resumed experiment goes on from `n`.
  void continue_from(int64_t n) { next_sequence_ = n; }

  /// Proposal n is at its proposer.
  void sent(int64_t n) { pending_.at(n).in_flight = true; }
  /// Proposal n came back without a candidate.
  void came_back(int64_t n) { pending_.at(n).in_flight = false; }
  /// Proposal n is tried again (another sample of the same request), at once or, when
  /// `backing_off`, once due() says so.
  void retry(int64_t n, bool backing_off);
  void due(int64_t n);
  /// Proposal n is planned again (its proposer cannot or may not write it).
  void replan(int64_t n) { pending_.at(n).plan.reset(); }
  /// Proposal n is done with: it is a candidate, or its target ended.
  void erase(int64_t n) { pending_.erase(n); }
  /// Forgets the proposals not at a proposer now: of target t, or of every target.
  void drop_waiting(std::optional<size_t> t = std::nullopt);

 private:
  std::vector<int64_t> per_target(size_t targets) const;
  int64_t in_flight() const;

  std::map<int64_t, PendingProposal> pending_;  // by sequence
  int64_t next_sequence_ = 0;
};

}  // namespace kforge::search
