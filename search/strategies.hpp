// The seed list of optimisation strategies: for an LLM's optimise prompt, the directions a kernel
// engineer tries on a correct kernel; for the built-in proposer, its random mutation. One is
// drawn per proposal (a bandit on what they gained, search/ensemble.hpp), so the ensemble explores
// different directions instead of repeating the most obvious one; meta-generation adds more
// (search/meta_generation.hpp).
#pragma once

#include <string>
#include <vector>

namespace kforge::search {

const std::vector<std::string>& optimisation_strategies();

/// The built-in proposer's seed strategy, its usual mutation: what it does with a strategy it
/// does not recognise, too.
const std::string& builtin_seed_strategy();

}  // namespace kforge::search
