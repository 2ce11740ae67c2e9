#include "search/ensemble.hpp"

#include <algorithm>
#include <cmath>

namespace kforge::search {
namespace {

/// A free proposer (the built-in one) is charged this much per candidate, so its value per
/// dollar stays finite and comparable.
constexpr double kFloorCostPerPull = 0.001;

}  // namespace

double improvement(const Member& m, const std::vector<Member>& visible) {
  if (!m.correct) return 0;
  if (m.parent_sequence < 0) {
    // A translation: worth 1 if it is the first correct kernel of its target.
    for (const auto& o : visible)
      if (o.target == m.target && o.correct && o.sequence < m.sequence) return 0;
    return 1;
  }
  for (const auto& o : visible)
    if (o.sequence == m.parent_sequence && o.correct && o.speedup > 0)
      return std::max(0.0, std::log2(m.speedup / o.speedup));
  return 0;
}

void tally(std::vector<Arm>& arms, const std::vector<Member>& visible, std::string Member::*field) {
  for (const auto& m : visible) {
    auto arm =
        std::find_if(arms.begin(), arms.end(), [&](const Arm& a) { return a.name == m.*field; });
    if (arm == arms.end()) continue;
    ++arm->pulls;
    arm->cost_usd += m.cost_usd;
    arm->gain += improvement(m, visible);
  }
}

size_t choose_arm(const std::vector<Arm>& arms, const std::string& policy, RandomStream& stream) {
  if (arms.size() <= 1) return 0;
  if (policy == "uniform") return stream.below(arms.size());
  if (policy == "fixed") {
    double total = 0;
    for (const auto& a : arms) total += a.weight;
    if (total <= 0) return stream.below(arms.size());
    double x = stream.unit() * total;
    for (size_t i = 0; i < arms.size(); ++i) {
      if (x < arms[i].weight) return i;
      x -= arms[i].weight;
    }
    return arms.size() - 1;
  }
  // UCB1 on value per dollar, normalised to [0, 1] by the best arm's value.
  std::vector<size_t> untried;
  int64_t total_pulls = 0;
  for (size_t i = 0; i < arms.size(); ++i) {
    if (arms[i].pulls == 0) untried.push_back(i);
    total_pulls += arms[i].pulls;
  }
  if (!untried.empty()) return untried[stream.below(untried.size())];
  std::vector<double> value(arms.size());
  double best = 0;
  for (size_t i = 0; i < arms.size(); ++i) {
    double cost =
        std::max(arms[i].cost_usd, kFloorCostPerPull * static_cast<double>(arms[i].pulls));
    value[i] = arms[i].gain / cost;
    best = std::max(best, value[i]);
  }
  std::vector<size_t> top;
  double top_score = -1;
  for (size_t i = 0; i < arms.size(); ++i) {
    double score = (best > 0 ? value[i] / best : 0) +
                   std::sqrt(2 * std::log(static_cast<double>(total_pulls)) /
                             static_cast<double>(arms[i].pulls));
    if (score > top_score + 1e-12) {
      top = {i};
      top_score = score;
    } else if (std::abs(score - top_score) <= 1e-12) {
      top.push_back(i);
    }
  }
  return top[stream.below(top.size())];
}

}  // namespace kforge::search
