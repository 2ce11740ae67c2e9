#include "search/strategies.hpp"

namespace kforge::search {

const std::vector<std::string>& optimisation_strategies() {
  static const std::vector<std::string> strategies = {
      "use wider (vectorised) loads and stores: float4 or equivalent, with a scalar tail",
      "fuse passes over the data so each element is read from global memory once",
      "change the work decomposition: one warp per row for short rows, one block per row for long "
      "ones",
      "reduce with warp shuffles instead of shared memory where a warp suffices",
      "tile through shared memory (or registers) to reuse loaded data",
      "tune the launch: block size and items per thread for occupancy and memory parallelism",
      "remove redundant work: hoist invariants, precompute reciprocals, avoid recomputation",
      "overlap memory and compute: prefetch the next tile while computing on the current one",
  };
  return strategies;
}

const std::string& builtin_seed_strategy() {
  static const std::string seed = "move one or two parameters of the parent";
  return seed;
}

}  // namespace kforge::search
