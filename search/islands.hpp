// Islands: each target's candidates form `islands` sub-populations that evolve apart, so one
// early fast kernel does not pull every proposal into its neighbourhood. A proposal draws its
// island from the seed and its parent from that island; now and then the islands exchange their
// best kernels (migration, in a ring). Which kernels an island holds follows from the visible
// members alone, so what a proposal sees stays independent of which work finished first.
#pragma once

#include <cstdint>
#include <vector>

#include "search/population.hpp"

namespace kforge::search {

struct IslandLayout {
  int32_t islands = 1;
  int32_t migration_interval = 8;  ///< finished members of the target between migrations; 0: none
  int32_t migration_size = 1;      ///< kernels each island passes on at a migration
};

/// What a proposal drawing from `island` may take its parent from, out of the target's visible
/// members (in sequence order): the island's own members, and the migrants it received. The
/// m-th migration happens once m * migration_interval members are visible; it brings the
/// `migration_size` fastest correct members that the island before this one held among those.
/// With one island: every visible member.
std::vector<Member> island_members(const std::vector<Member>& visible, int32_t island,
                                   const IslandLayout& layout);

}  // namespace kforge::search
