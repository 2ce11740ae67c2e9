#include "evaluation/profile_summary.hpp"

#include <algorithm>
#include <cstdio>

#include "common/numbers.hpp"
#include "evaluation/counter_summary.hpp"
#include "evaluation/kernel_names.hpp"

namespace kforge::evaluation {
namespace {

std::string fmt(const char* f, double v) {
  return format_number(f, v);
}

/// One side of a trace: its launches grouped by name, longest first (top 5); on the CPU only the
/// outermost operators count towards the total.
json::Value summarise_side(const json::Value& launches, int& count, double& total_ms) {
  struct Group {
    std::string name;
    int64_t count = 0;
    double ms = 0;
    json::Value grid, block;
  };
  std::vector<Group> groups;
  count = 0;
  total_ms = 0;
  for (const auto& l : launches.as_array()) {
    if (l["depth"].as_int(0) > 0) continue;
    ++count;
    const double ms = std::max(0.0, l["ms"].as_number());
    total_ms += ms;
    const std::string name = short_kernel_name(l["name"].as_string(), 80);
    auto g =
        std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.name == name; });
    if (g == groups.end()) {
      groups.push_back({name, 0, 0, l["grid"], l["block"]});
      g = groups.end() - 1;
    }
    ++g->count;
    g->ms += ms;
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group& a, const Group& b) { return a.ms > b.ms; });
  json::Value top;
  top.array();
  for (size_t i = 0; i < groups.size() && i < 5; ++i) {
    json::Value g;
    g.set("name", groups[i].name).set("count", groups[i].count).set("ms", groups[i].ms);
    if (!groups[i].grid.is_null()) g.set("grid", groups[i].grid).set("block", groups[i].block);
    top.push(std::move(g));
  }
  json::Value side;
  side.set("launches", static_cast<int64_t>(count)).set("ms", total_ms).set("top", top);
  return side;
}

std::string dims(const json::Value& v) {
  std::string out;
  for (const auto& d : v.as_array()) {
    if (d.as_int() == 1 && !out.empty()) continue;
    out += (out.empty() ? "" : "x") + std::to_string(d.as_int());
  }
  return out;
}

}  // namespace

TraceSummary summarise_trace(const json::Value& trace, const std::string& config_name) {
  TraceSummary t;
  t.doc.set("config", config_name);
  if (trace.contains("error")) {
    t.doc.set("error", trace["error"]);
    t.brief = "no kernel trace: " + trace["error"].as_string();
    return t;
  }
  t.brief = "trace on " + config_name + ":";
  for (const char* side : {"candidate", "reference"}) {
    int count = 0;
    double ms = 0;
    auto s = summarise_side(trace[side], count, ms);
    // The call's wall time, synchronisation included (on the CPU, all there is of plain code).
    const double wall = trace[std::string(side) + "_wall_ms"].as_number();
    if (wall > 0) s.set("wall_ms", wall);
    const bool ops = trace[side].as_array().empty() || trace[side][0]["kind"].as_string() == "op";
    s.set("unit", ops ? "operator call(s)" : "launch(es)");
    // A CPU kernel of plain code calls no ATen operator: said as such, not as "0 calls, 0 ms".
    std::string line =
        std::string(side == std::string("candidate") ? " the kernel " : "; eager ") +
        (ops && count == 0
             ? "calls no ATen operator (its own code)" +
                   (wall > 0 ? fmt(", a %.4g ms call", wall) : "")
             : std::to_string(count) + (ops ? " operator call(s), " : " launch(es), ") +
                   fmt("%.4g ms", ms) + (wall > 0 ? fmt(" in a %.4g ms call", wall) : ""));
    if (!s["top"].as_array().empty()) {
      const auto& first = s["top"][0];
      line += " (" + first["name"].as_string();
      if (first.contains("grid"))
        line += " <<<" + dims(first["grid"]) + ", " + dims(first["block"]) + ">>>";
      line += ")";
    }
    t.brief += line;
    t.doc.set(side, s);
  }
  return t;
}

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
    const double bound_ms = c.copy_bound_ms;
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
      r.set("copy_bound_ms", bound_ms).set("fraction_of_speed_of_light", fraction);
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
  for (const auto& c : configs) {
    auto record = json::parse(c.record_json.empty() ? "{}" : c.record_json);
    if (!record.value || !(record.value->contains("trace") || record.value->contains("counters")))
      continue;
    if (record.value->contains("trace")) {
      auto t = summarise_trace((*record.value)["trace"], c.name);
      p.doc.set("trace", t.doc);
      brief += "; " + t.brief;
    }
    if (record.value->contains("counters")) {
      auto counted = summarise_counters((*record.value)["counters"], c.name);
      p.doc.set("counters", counted.doc);
      brief += "; " + counted.brief;
    }
    break;
  }
  summary.set("brief", brief);  // kept with the profile: a resumed search shows it in prompts
  p.doc.set("kernels", to_json(kernels)).set("configs", rows).set("summary", summary);
  p.brief = brief;
  return p;
}

}  // namespace kforge::evaluation
