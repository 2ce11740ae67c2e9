#include "gpu/profile_summary.hpp"

#include <algorithm>
#include <cstdio>

namespace kforge::gpu {
namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

Profile make_profile(const std::string& backend, const std::vector<KernelResources>& kernels,
                     const std::vector<ConfigReport>& configs) {
  Profile p;
  int max_registers = 0;
  int64_t spills = 0, max_shared = 0;
  for (const auto& k : kernels) {
    max_registers = std::max(max_registers, k.registers);
    max_shared = std::max(max_shared, k.shared_bytes);
    spills += k.spill_store_bytes + k.spill_load_bytes;
  }
  json::Value rows;
  rows.array();
  double largest_bytes = -1, largest_fraction = 0, largest_bandwidth = 0, check_s = 0, time_s = 0;
  std::string largest_name;
  for (const auto& c : configs) {
    json::Value r;
    r.set("index", c.index).set("name", c.name);
    const double kernel_ms = c.kernel.median_ms;
    const double eager_ms = c.eager.median_ms;
    const double bytes = c.bytes_moved;
    const double bound_ms = c.speed_of_light_ms;
    check_s += c.check_seconds;
    time_s += c.timing_seconds;
    r.set("check_seconds", c.check_seconds).set("timing_seconds", c.timing_seconds);
    if (kernel_ms > 0) {
      const double bandwidth = bytes / (kernel_ms * 1e-3);  // bytes per second
      const double fraction = bound_ms > 0 ? bound_ms / kernel_ms : 0;
      r.set("kernel_ms", kernel_ms).set("eager_ms", eager_ms);
      r.set("speedup", eager_ms > 0 ? eager_ms / kernel_ms : 0);
      r.set("kernel_spread", c.kernel.p90_ms - c.kernel.p10_ms);
      r.set("bytes_moved", bytes).set("achieved_gb_per_s", bandwidth / 1e9);
      r.set("speed_of_light_ms", bound_ms).set("fraction_of_speed_of_light", fraction);
      if (bytes > largest_bytes) {
        largest_bytes = bytes;
        largest_fraction = fraction;
        largest_bandwidth = bandwidth;
        largest_name = c.name;
      }
    }
    rows.push(r);
  }
  json::Value summary;
  summary.set("backend", backend).set("kernels", static_cast<int64_t>(kernels.size()));
  summary.set("max_registers", max_registers).set("max_shared_bytes", max_shared);
  summary.set("spill_bytes", spills).set("check_seconds", check_s).set("timing_seconds", time_s);
  std::string brief;
  if (backend == "cuda")
    brief = std::to_string(kernels.size()) + " kernel(s), up to " + std::to_string(max_registers) +
            " registers, " + std::to_string(max_shared) + " B shared, " +
            (spills ? std::to_string(spills) + " B spilled" : "no spills") + "; ";
  if (largest_bytes >= 0) {
    summary.set("largest_config", largest_name);
    summary.set("largest_config_gb_per_s", largest_bandwidth / 1e9);
    summary.set("largest_config_fraction_of_speed_of_light", largest_fraction);
    brief += "largest config " + fmt("%.0f", largest_bandwidth / 1e9) + " GB/s, " +
             fmt("%.0f", 100 * largest_fraction) + "% of the speed-of-light bound";
  } else {
    brief += "not timed";
  }
  summary.set("brief", brief);  // kept with the profile: a resumed search shows it in prompts
  p.doc.set("kernels", to_json(kernels)).set("configs", rows).set("summary", summary);
  p.brief = brief;
  return p;
}

}  // namespace kforge::gpu
