#include "common/statistics.hpp"

#include <cmath>

#include "common/json.hpp"

namespace kforge {

std::optional<double> geometric_mean(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  double log_sum = 0;
  for (double v : values) {
    if (!(v > 0) || !std::isfinite(v)) return std::nullopt;
    log_sum += std::log(v);
  }
  return std::exp(log_sum / static_cast<double>(values.size()));
}

double speed_of_light_fraction(const std::vector<BoundedTime>& configs) {
  const BoundedTime* largest = nullptr;
  for (const auto& c : configs)
    if (c.kernel_ms > 0 && c.bound_ms > 0 && (!largest || c.bytes_moved > largest->bytes_moved))
      largest = &c;
  return largest ? largest->bound_ms / largest->kernel_ms : 0;
}

double copy_bound_ms(const json::Value& record) {
  if (record["copy_bound_ms"].is_number()) return record["copy_bound_ms"].as_number();
  return 2 * record["speed_of_light_ms"].as_number(0);
}

}  // namespace kforge
