#include "search/islands.hpp"

#include <algorithm>
#include <set>

namespace kforge::search {

std::vector<Member> island_members(const std::vector<Member>& visible, int32_t island,
                                   const IslandLayout& layout) {
  if (layout.islands <= 1) return visible;
  const int32_t before = (island + layout.islands - 1) % layout.islands;
  std::set<int64_t> migrants;
  if (layout.migration_interval > 0) {
    const size_t migrations = visible.size() / static_cast<size_t>(layout.migration_interval);
    for (size_t m = 1; m <= migrations; ++m) {
      std::vector<const Member*> sent;
      for (size_t i = 0; i < m * static_cast<size_t>(layout.migration_interval); ++i)
        if (visible[i].island == before && visible[i].correct) sent.push_back(&visible[i]);
      // The fastest first; equal speeds go to the earlier candidate.
      std::sort(sent.begin(), sent.end(), [](const Member* a, const Member* b) {
        return a->speedup != b->speedup ? a->speedup > b->speedup : a->sequence < b->sequence;
      });
      for (size_t k = 0; k < sent.size() && k < static_cast<size_t>(layout.migration_size); ++k)
        migrants.insert(sent[k]->sequence);
    }
  }
  std::vector<Member> out;
  for (const auto& m : visible)
    if (m.island == island || migrants.count(m.sequence)) out.push_back(m);
  return out;
}

}  // namespace kforge::search
