// Meta-generation, as the search sees it: the optimisation strategies a target's proposals may be
// asked to try are the seed list (search/strategies.hpp) and what meta-generation wrote for the
// target from its best kernels so far. A round is due before the first proposal of a target that
// sees `every` more of its finished candidates than the last round did, so which proposal waits
// for it, and what it is shown, follow from the visible members alone and a run repeats.
// Strategies serve one kind of proposer: an LLM's are sentences for its prompt, the built-in
// proposer's are moves over its templates' parameters (proposers/builtin/builtin_strategies.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "search/population.hpp"
#include "search/strategy_record.hpp"

namespace kforge::search {

/// An optimisation strategy a proposal may be asked to try.
struct Strategy {
  std::string text;
  std::string serves;  ///< "llm" or "builtin": whose proposals draw it
  std::string source;  ///< "seed", "rules" (the built-in proposer's) or the LLM that wrote it
  int32_t round = 0;   ///< the meta-generation round that wrote it; 0: the seed list
};

/// What the proposals that were asked to try a strategy did, among the visible members.
/// The record of each of `texts`, in their order, from the visible members.
std::vector<StrategyRecord> strategy_records(const std::vector<std::string>& texts,
                                             const std::vector<Member>& visible);

/// A meta-generation round due before a proposal: which target, which round (from 1), and whose
/// strategies it writes ("llm", "builtin").
struct MetaRound {
  size_t target = 0;
  int32_t round = 0;
  std::vector<std::string> serves;
};

/// Whether two strategies say the same: equal once case, punctuation and spacing are ignored.
bool same_strategy(const std::string& a, const std::string& b);

}  // namespace kforge::search
