// Summaries of measurements that several folders report the same way.
#pragma once

#include <optional>
#include <vector>

namespace kforge {

/// The geometric mean of `values` (speedups over configs, for instance); nullopt when there are
/// none or one of them is not a positive number.
std::optional<double> geometric_mean(const std::vector<double>& values);

namespace json {
class Value;
}

/// One config's measured time against its speed-of-light bound (the time its bytes take at the
/// copy bandwidth measured on the device: copy_bound_ms).
struct BoundedTime {
  double bytes_moved = 0;
  double bound_ms = 0;   ///< 0: no bound
  double kernel_ms = 0;  ///< 0: not timed
};

/// How close a kernel came to the hardware's limit: on the config that moves the most bytes,
/// its bound over its time (1: at the bound). 0 when no timed config has a bound.
double speed_of_light_fraction(const std::vector<BoundedTime>& configs);

/// The time a config's bytes take at the copy bandwidth the worker measured, from the worker's
/// record of the config: its `copy_bound_ms`, or in a record written before that field twice its
/// `speed_of_light_ms` (the impossible-speed threshold: the same bytes at twice the same
/// bandwidth). 0 where the record has neither.
double copy_bound_ms(const json::Value& record);

}  // namespace kforge
