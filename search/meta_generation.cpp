#include "search/meta_generation.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace kforge::search {
namespace {

std::string folded(const std::string& s) {
  std::string out;
  for (unsigned char c : s)
    if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
  return out;
}

}  // namespace

std::vector<StrategyRecord> strategy_records(const std::vector<std::string>& texts,
                                             const std::vector<Member>& visible) {
  std::vector<StrategyRecord> out;
  std::map<std::string, size_t> index;
  for (const auto& t : texts) {
    index.emplace(t, out.size());
    StrategyRecord r;
    r.text = t;
    out.push_back(std::move(r));
  }
  std::map<int64_t, const Member*> by_sequence;
  for (const auto& m : visible) by_sequence[m.sequence] = &m;
  for (const auto& m : visible) {
    auto it = index.find(m.strategy);
    if (m.strategy.empty() || it == index.end()) continue;
    auto& r = out[it->second];
    ++r.tried;
    if (!m.correct) continue;
    ++r.correct;
    auto parent = by_sequence.find(m.parent_sequence);
    if (parent == by_sequence.end() || !parent->second->correct || parent->second->speedup <= 0 ||
        m.speedup <= 0)
      continue;
    const double gain = m.speedup / parent->second->speedup;
    r.improved += gain > 1;
    r.best_gain = std::max(r.best_gain, gain);
  }
  return out;
}

bool same_strategy(const std::string& a, const std::string& b) {
  return folded(a) == folded(b);
}

}  // namespace kforge::search
