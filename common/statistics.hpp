// Summaries of measurements that several folders report the same way.
#pragma once

#include <optional>
#include <vector>

namespace kforge {

/// The geometric mean of `values` (speedups over configs, for instance); nullopt when there are
/// none or one of them is not a positive number.
std::optional<double> geometric_mean(const std::vector<double>& values);

}  // namespace kforge
