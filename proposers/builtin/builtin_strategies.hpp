// The built-in proposer's strategies: its own meta-generation, by rules rather than an LLM. A
// strategy is a move over the templates' parameters that a proposal applies to its parent:
//   "raise block_threads"    the parameter's next larger allowed value
//   "lower vec"              its next smaller one
// (and, when the parent with that move was tried, one more parameter moved a step). Anything
// else (the seed strategy, search/strategies.hpp) is the usual random mutation.
// The rules read the target's best kernels, least to most fast, and write, in this order:
// the moves that continue what made the fastest kernel faster than the slower ones of its
// template (a parameter where it is larger is raised further), then every other move the
// fastest kernel's parameters allow; never a strategy the target has already, at most `count`.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/json.hpp"

namespace kforge::builtin {

/// One of the target's best kernels as the rules see it.
struct RankedKernel {
  std::string template_name;
  std::string params;  ///< JSON object
  double speedup = 0;
};

struct BuiltinMetaRequest {
  std::string backend;             ///< "cpu" or "cuda"
  std::string direction;           ///< "forward" or "backward"
  json::Value direction_doc;       ///< task.json's directions[direction]
  std::vector<RankedKernel> best;  ///< least to most fast
  std::vector<std::string> known;  ///< the target's strategies now
  int count = 4;
};

struct BuiltinStrategies {
  std::vector<std::string> strategies;
  std::string error;  ///< why there are none, when the task is not one the templates implement
};

BuiltinStrategies builtin_strategies(const BuiltinMetaRequest& request);

/// A strategy as a move: the parameter and which way.
struct StrategyMove {
  bool up = true;
  std::string param;
};

/// The move a strategy's text says; none for the seed strategy and any other text.
std::optional<StrategyMove> parse_strategy_move(const std::string& text);

}  // namespace kforge::builtin
