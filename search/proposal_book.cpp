#include "search/proposal_book.hpp"

#include <algorithm>

namespace kforge::search {

std::optional<int64_t> ProposalBook::next(const Planner& planner, int in_flight_limit, int depth) {
  if (in_flight() >= in_flight_limit) return std::nullopt;
  for (const auto& [n, p] : pending_)
    if (!p.in_flight && !p.backing_off) return n;
  int64_t n = next_sequence_;
  const auto t = planner.next_target(n, per_target(planner.targets()));
  if (!t) return std::nullopt;
  // Everything up to n - depth must have finished, and must be a candidate already.
  if (!planner.population().may_propose(n)) return std::nullopt;
  if (!pending_.empty() && pending_.begin()->first <= n - depth) return std::nullopt;
  pending_[n].target = *t;
  next_sequence_ = n + 1;
  return n;
}

bool ProposalBook::no_more_sequences(const Planner& planner) const {
  int64_t n = next_sequence_;
  return !planner.next_target(n, per_target(planner.targets()));
}

void ProposalBook::retry(int64_t n, bool backing_off) {
  auto& p = pending_.at(n);
  ++p.attempts;
  p.backing_off = backing_off;
}

void ProposalBook::due(int64_t n) {
  if (auto it = pending_.find(n); it != pending_.end()) it->second.backing_off = false;
}

void ProposalBook::drop_waiting(std::optional<size_t> t) {
  std::erase_if(pending_, [&](const auto& entry) {
    const auto& p = entry.second;
    return !p.in_flight && (!t || p.target == *t);
  });
}

std::vector<int64_t> ProposalBook::per_target(size_t targets) const {
  std::vector<int64_t> out(targets, 0);
  for (const auto& [n, p] : pending_) ++out.at(p.target);
  return out;
}

int64_t ProposalBook::in_flight() const {
  return std::count_if(pending_.begin(), pending_.end(),
                       [](const auto& entry) { return entry.second.in_flight; });
}

}  // namespace kforge::search
