// The optimisation strategies an optimise prompt can name: the directions a kernel engineer
// tries on a correct kernel. One is drawn per proposal from the experiment's seed, so the
// ensemble explores different directions instead of repeating the most obvious one.
#pragma once

#include <string>
#include <vector>

namespace kforge::search {

const std::vector<std::string>& optimisation_strategies();

}  // namespace kforge::search
