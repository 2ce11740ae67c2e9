#include "evaluation/counter_summary.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "common/numbers.hpp"
#include "common/pace.hpp"
#include "evaluation/kernel_names.hpp"

namespace kforge::evaluation {
namespace {

constexpr size_t kTopKernels = 3;
constexpr size_t kTopStalls = 3;
constexpr double kTensorBusyPct = 10;  // above this, the FP32 roofline would misplace the kernel

std::string fmt(const char* f, double v) {
  return format_number(f, v);
}

/// A kernel's short name, or its place in the call where the trace could not name it.
std::string short_name(const std::string& name, size_t index) {
  return name.empty() ? "kernel " + std::to_string(index + 1) : short_kernel_name(name, 80);
}

/// The FP32 roofline: the kernel's FLOP per DRAM byte against the ridge of this GPU's peaks; or
/// the tensor pipe's use where tensor cores did the work; or DRAM's share where no FP32 ran.
json::Value roofline(const json::Value& m) {
  json::Value r;
  const double seconds = m["duration_ns"].as_number() * 1e-9;
  const double flops = 2 * m["ffma"].as_number() + m["fadd"].as_number() + m["fmul"].as_number();
  const double bytes = m["dram_bytes"].as_number();
  const double peak_flops =
      2 * m["ffma_peak_per_cycle"].as_number() * m["sm_cycles_per_second"].as_number();
  const double peak_bytes =
      m["dram_peak_bytes_per_cycle"].as_number() * m["dram_cycles_per_second"].as_number();
  if (m["tensor_pipe_pct"].as_number() >= kTensorBusyPct) {
    r.set("bound", "tensor").set("pct_of_roof", m["tensor_pipe_pct"].as_number());
  } else if (flops > 0 && seconds > 0 && peak_flops > 0 && peak_bytes > 0) {
    // No DRAM traffic at all (the data stayed in L2): the compute roof is the one that limits.
    const double intensity = bytes > 0 ? flops / bytes : peak_flops / peak_bytes;
    const double attainable = std::min(peak_flops, intensity * peak_bytes);
    r.set("bound", intensity < peak_flops / peak_bytes ? "memory" : "compute");
    r.set("pct_of_roof", 100 * flops / seconds / attainable);
  } else {
    r.set("bound", "memory").set("pct_of_roof", m["dram_throughput_pct"].as_number());
  }
  return r;
}

json::Value stalls(const json::Value& m) {
  std::vector<std::pair<std::string, double>> s;
  const double issued = m["inst_issued"].as_number();
  if (issued <= 0) return json::Value(json::Array{});
  for (const auto& [key, value] : m.as_object())
    if (key.rfind("stall_", 0) == 0 && key != "stall_selected" && value.as_number() > 0)
      s.emplace_back(key.substr(6), value.as_number() / issued);
  std::stable_sort(s.begin(), s.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  json::Value out;
  out.array();
  for (size_t i = 0; i < s.size() && i < kTopStalls; ++i) {
    json::Value x;
    x.set("reason", s[i].first).set("cycles_per_instruction", s[i].second);
    out.push(x);
  }
  return out;
}

json::Value summarise_kernel(const json::Value& k, size_t index) {
  const auto& m = k["metrics"];
  json::Value s;
  s.set("name", short_name(k["name"].as_string(), index));
  s.set("ms", m["duration_ns"].as_number() * 1e-6);
  const std::pair<const char*, const char*> shares[] = {{"occupancy_pct", "achieved_occupancy_pct"},
                                                        {"sm_pct", "sm_throughput_pct"},
                                                        {"memory_pct", "memory_throughput_pct"},
                                                        {"dram_pct", "dram_throughput_pct"},
                                                        {"l2_pct", "l2_throughput_pct"},
                                                        {"l1_pct", "l1_throughput_pct"},
                                                        {"tensor_pct", "tensor_pipe_pct"}};
  for (const auto& [key, metric] : shares)
    if (m.contains(metric)) s.set(key, m[metric].as_number());
  const double flops = 2 * m["ffma"].as_number() + m["fadd"].as_number() + m["fmul"].as_number();
  const double seconds = m["duration_ns"].as_number() * 1e-9;
  if (seconds > 0) s.set("gflops", flops / seconds / 1e9);
  if (m["dram_bytes"].as_number() > 0)
    s.set("arithmetic_intensity", flops / m["dram_bytes"].as_number());
  s.set("roofline", roofline(m)).set("stalls", stalls(m));
  return s;
}

json::Value summarise_side(const json::Value& side) {
  if (side.contains("error")) {  // this side alone could not be counted
    json::Value s;
    return s.set("error", side["error"]);
  }
  std::vector<json::Value> kernels;
  double total_ms = 0;
  for (const auto& k : side["kernels"].as_array()) {
    kernels.push_back(summarise_kernel(k, kernels.size()));
    total_ms += kernels.back()["ms"].as_number();
  }
  std::stable_sort(kernels.begin(), kernels.end(), [](const json::Value& a, const json::Value& b) {
    return a["ms"].as_number() > b["ms"].as_number();
  });
  json::Value top;
  top.array();
  for (size_t i = 0; i < kernels.size() && i < kTopKernels; ++i) top.push(kernels[i]);
  json::Value s;
  s.set("kernels", static_cast<int64_t>(kernels.size())).set("ms", total_ms);
  s.set("passes", side["passes"].as_int()).set("top", top);
  if (side["dropped"].as_int() > 0) s.set("dropped", side["dropped"].as_int());
  // Kernels the budget left uncounted (evaluation/worker/counter_budget.hpp), with their traced
  // time.
  if (const auto& skipped = side["skipped"].as_array(); !skipped.empty()) {
    double skipped_ms = 0;
    for (const auto& k : skipped) skipped_ms += k["ms"].as_number();
    s.set("skipped", static_cast<int64_t>(skipped.size())).set("skipped_ms", skipped_ms);
    s.set("budget_s", side["budget_s"]);
    s.set("skipped_why", side["skipped_why"].as_string() == "graph" ? "graph" : "budget");
  }
  return s;
}

/// "NAME: occupancy 76%, SM 27%, DRAM 82%, L2 75% of peak; memory-bound at 82% of the roofline;
/// stalls long_scoreboard 82, short_scoreboard 3.4 cycles/instruction"
std::string describe_kernel(const json::Value& k) {
  std::string line = k["name"].as_string() + ": occupancy " +
                     fmt("%.0f%%", k["occupancy_pct"].as_number()) + ", SM " +
                     fmt("%.0f%%", k["sm_pct"].as_number()) + ", DRAM " +
                     fmt("%.0f%%", k["dram_pct"].as_number()) + ", L2 " +
                     fmt("%.0f%%", k["l2_pct"].as_number()) + " of peak; ";
  const auto& r = k["roofline"];
  line += r["bound"].as_string() == "tensor"
              ? "tensor pipe busy " + fmt("%.0f%%", r["pct_of_roof"].as_number())
              : r["bound"].as_string() + "-bound at " +
                    fmt("%.0f%%", r["pct_of_roof"].as_number()) + " of the roofline";
  std::string stall_text;
  for (const auto& s : k["stalls"].as_array())
    stall_text += (stall_text.empty() ? "" : ", ") + s["reason"].as_string() + " " +
                  fmt("%.2g", s["cycles_per_instruction"].as_number());
  if (!stall_text.empty()) line += "; stalls " + stall_text + " cycles/instruction";
  return line;
}

/// For the candidate's longest kernel, memory-bound under kDramTargetPct of DRAM peak: that it is,
/// and which unit is busier than DRAM (common/pace.hpp), so that a proposer knows what to spare.
std::string below_dram_target(const json::Value& k) {
  if (!k.contains("dram_pct") || k["roofline"]["bound"].as_string() != "memory" ||
      k["dram_pct"].as_number() >= kDramTargetPct)
    return "";
  const auto limiter = limiter_of(k);
  return " (below the " + fmt("%.0f%%", kDramTargetPct) +
         " of DRAM peak a memory-bound kernel should reach" +
         (limiter ? below_dram_target_why(*limiter, k[*limiter + "_pct"].as_number()) : "") + ")";
}

}  // namespace

std::string skipped_because(const json::Value& side) {
  if (side["skipped_why"].as_string() == "graph")
    return "they ran in a CUDA graph, whose kernels CUPTI's range profiler does not count";
  return "the " + fmt("%g s", side["budget_s"].as_number()) +
         " counters budget (evaluation.counters_budget_s) was spent";
}

CountersSummary summarise_counters(const json::Value& counters, const std::string& config_name) {
  CountersSummary c;
  c.doc.set("config", config_name);
  if (counters.contains("error")) {
    c.doc.set("error", counters["error"]);
    c.brief = "no hardware counters: " + counters["error"].as_string();
    return c;
  }
  c.brief = "counters on " + config_name + ":";
  for (const char* side : {"candidate", "reference"}) {
    auto s = summarise_side(counters[side]);
    const bool candidate = side == std::string("candidate");
    c.brief += candidate ? " the kernel's " : "; eager's ";
    if (s.contains("error")) {
      c.brief += "not read (" + s["error"].as_string() + ")";
      c.doc.set(side, s);
      continue;
    }
    c.brief +=
        s["top"].as_array().empty() ? std::string("no kernels") : describe_kernel(s["top"][0]);
    if (candidate && !s["top"].as_array().empty()) c.brief += below_dram_target(s["top"][0]);
    if (s.contains("skipped"))
      c.brief += " (" + std::string(s["kernels"].as_int() == 0 ? "its " : "") +
                 std::to_string(s["skipped"].as_int()) +
                 (s["kernels"].as_int() == 0 ? " kernel(s), " : " later kernel(s), ") +
                 fmt("%.3g ms", s["skipped_ms"].as_number()) +
                 ", not counted: " + skipped_because(s) + ")";
    c.doc.set(side, s);
  }
  return c;
}

}  // namespace kforge::evaluation
