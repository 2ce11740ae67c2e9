// An optimisation strategy and what the proposals that tried it did: the one record that the
// planner computes (search/meta_generation.hpp), a meta-generation request carries and its prompt
// shows (llm/prompts.hpp).
#pragma once

#include <cstdint>
#include <string>

namespace kforge::search {

struct StrategyRecord {
  std::string text;
  std::string source;  ///< "seed", "rules" (the built-in proposer's) or the LLM that wrote it
  int64_t tried = 0;
  int64_t correct = 0;
  int64_t improved = 0;  ///< correct and faster than their parent
  double best_gain = 0;  ///< the best speedup over a parent; 0: none
};

}  // namespace kforge::search
