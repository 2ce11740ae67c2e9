#include "search/population.hpp"

namespace kforge::search {

std::string proposal_key(const std::string& strategy, const std::string& params) {
  return strategy + " " + params;
}

void Population::add(Member m) {
  int64_t s = m.sequence;
  members_[s] = std::move(m);
}

void Population::finish(int64_t sequence, bool correct, double speedup, double speed_of_light) {
  auto it = members_.find(sequence);
  if (it == members_.end()) return;
  it->second.finished = true;
  it->second.correct = correct;
  it->second.speedup = correct ? speedup : 0;
  it->second.speed_of_light = correct ? speed_of_light : 0;
}

void Population::add_cost(int64_t sequence, double usd) {
  auto it = members_.find(sequence);
  if (it != members_.end()) it->second.cost_usd += usd;
}

std::vector<Member> Population::visible_all(int64_t n) const {
  std::vector<Member> out;
  for (const auto& [s, m] : members_) {
    if (s > n - depth_) break;
    if (m.finished) out.push_back(m);
  }
  return out;
}

bool Population::may_propose(int64_t n) const {
  for (const auto& [s, m] : members_) {
    if (s > n - depth_) break;
    if (!m.finished) return false;
  }
  return true;
}

std::vector<Member> Population::visible(size_t target, int64_t n) const {
  std::vector<Member> out;
  for (const auto& [s, m] : members_) {
    if (s > n - depth_) break;
    if (m.target == target && m.finished) out.push_back(m);
  }
  return out;
}

std::vector<std::string> Population::tried(size_t target) const {
  std::vector<std::string> out;
  for (const auto& [s, m] : members_)
    if (m.target == target) out.push_back(m.key);
  return out;
}

std::vector<std::string> Population::digests(size_t target) const {
  std::vector<std::string> out;
  for (const auto& [s, m] : members_)
    if (m.target == target && !m.digest.empty()) out.push_back(m.digest);
  return out;
}

int64_t Population::proposed(size_t target) const {
  int64_t n = 0;
  for (const auto& [s, m] : members_) n += m.target == target;
  return n;
}

int64_t Population::next_sequence() const {
  return members_.empty() ? 0 : members_.rbegin()->first + 1;
}

std::optional<Member> select_parent(const std::vector<Member>& visible, const std::string& policy,
                                    int tournament_size, RandomStream& stream) {
  std::vector<const Member*> correct;
  for (const auto& m : visible)
    if (m.correct) correct.push_back(&m);
  if (correct.empty()) return std::nullopt;
  if (policy != "tournament") return *correct[stream.below(correct.size())];
  const Member* best = nullptr;
  for (int i = 0; i < tournament_size; ++i) {
    const Member* m = correct[stream.below(correct.size())];
    // Ties go to the earlier candidate, so equal speeds never depend on the draw order.
    if (!best || m->speedup > best->speedup ||
        (m->speedup == best->speedup && m->sequence < best->sequence))
      best = m;
  }
  return *best;
}

}  // namespace kforge::search
