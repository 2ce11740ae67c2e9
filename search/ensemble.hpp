// Which member of the ensemble writes the next proposal. "bandit": each proposer is an arm whose
// reward is improvement per dollar, measured on the finished candidates a proposal may see (the
// decision window of population.hpp), chosen by UCB1; "fixed": drawn by the configured weights;
// "uniform": drawn evenly. Every draw comes from the caller's seeded stream.
#pragma once

#include <string>
#include <vector>

#include "search/population.hpp"
#include "search/random_stream.hpp"

namespace kforge::search {

struct Arm {
  std::string name;
  double weight = 1;  ///< for "fixed"
  int64_t pulls = 0;  ///< finished candidates it wrote, and proposals asked of it not yet seen
  double cost_usd = 0;
  double gain = 0;  ///< summed improvement (see `improvement`)
};

/// What one finished candidate gained: a first correct kernel of its target counts 1; a correct
/// kernel with a parent counts log2 of its speedup over the parent when that is positive;
/// anything else 0.
double improvement(const Member& m, const std::vector<Member>& visible);

/// The arms' records from the visible members: an arm is named by the members' `field` (the
/// proposer by default; the strategy for the strategy bandit). Members of no arm are ignored.
void tally(std::vector<Arm>& arms, const std::vector<Member>& visible,
           std::string Member::*field = &Member::proposer);

/// The index of the arm that proposes next.
size_t choose_arm(const std::vector<Arm>& arms, const std::string& policy, RandomStream& stream);

}  // namespace kforge::search
