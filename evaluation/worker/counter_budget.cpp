#include "evaluation/worker/counter_budget.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>

namespace kforge::worker {
namespace {

constexpr int kMaxKernels = 32;  // the counter data image holds this many ranges

}  // namespace

double traced_kernel_seconds(const json::Value& traced) {
  double ms = 0;
  for (const auto& launch : traced.as_array())
    if (launch["kind"].as_string() == "kernel") ms += launch["ms"].as_number();
  return ms / 1000;
}

void CounterCosts::learn(const json::Value& counted, double seconds, double call_s) {
  const auto& kernels = counted["kernels"].as_array();
  const int p = static_cast<int>(counted["passes"].as_int(passes));
  if (kernels.empty() || p <= 0) return;
  passes = p;
  learned = true;
  user_replay = counted["replay"].as_string() == "user";
  if (user_replay) {
    session_s = std::max(0.0, seconds - p * call_s);
    return;
  }
  double kernel_s = 0;
  for (const auto& k : kernels) kernel_s += k["metrics"]["duration_ns"].as_number() * 1e-9 * p;
  pass_overhead_s = std::max(0.0, seconds - kernel_s) / (static_cast<double>(kernels.size()) * p);
}

CounterPlan plan_counters(const json::Value& traced, double budget_s, const CounterCosts& costs) {
  CounterPlan plan;
  // The profiler is on for the whole call, a graph's launch included, whichever kernels it counts.
  if (traced.is_array())
    for (const auto& launch : traced.as_array())
      if (launch["kind"].as_string() == "kernel" && launch["graph"].as_bool(false)) {
        plan.graph_stops = true;
        return plan;
      }
  if (costs.user_replay) {
    int kernels = kMaxKernels;
    if (traced.is_array())
      kernels = static_cast<int>(
          std::count_if(traced.as_array().begin(), traced.as_array().end(),
                        [](const json::Value& l) { return l["kind"].as_string() == "kernel"; }));
    const double cost = costs.session_s + costs.passes * traced_kernel_seconds(traced);
    if (cost > budget_s || kernels == 0) return plan;
    plan.count = std::min(kernels, kMaxKernels);
    plan.estimated_s = cost;
    return plan;
  }
  if (!traced.is_array()) {
    const double per_kernel = costs.passes * costs.pass_overhead_s;
    plan.count = per_kernel > 0
                     ? std::clamp(static_cast<int>(budget_s / per_kernel), 0, kMaxKernels)
                     : kMaxKernels;
    plan.estimated_s = plan.count * per_kernel;
    return plan;
  }
  for (const auto& launch : traced.as_array()) {
    if (launch["kind"].as_string() != "kernel") continue;
    const double cost = costs.passes * (costs.pass_overhead_s + launch["ms"].as_number() / 1000);
    // Counting is a prefix: once one kernel is left, every later one is too.
    if (plan.count == kMaxKernels || plan.estimated_s + cost > budget_s) break;
    ++plan.count;
    plan.estimated_s += cost;
  }
  return plan;
}

std::string user_replay_over_budget(double first_call_s, size_t calls, double budget_s) {
  if (calls < 2) return {};
  const double left_s = first_call_s * static_cast<double>(calls - 1);
  const double allowed_s = std::max(1.0, 2 * budget_s);
  if (left_s <= allowed_s) return {};
  char text[200];
  std::snprintf(
      text, sizeof text,
      "the first profiled call took %.1f s, so its %zu further counter passes would take "
      "about %.0f s, more than twice the %.1f s left of the counters' budget: not counted",
      first_call_s, calls - 1, left_s, budget_s);
  return text;
}

std::optional<double> counters_stage_seconds(const json::Value& record, double budget_s) {
  const auto& kernel = record["candidate"]["median_ms"];
  const auto& eager = record["reference"]["median_ms"];
  if (!kernel.is_number() || !eager.is_number()) return std::nullopt;
  const double call_s = (kernel.as_number() + eager.as_number()) / 1000;
  const double sessions = 2 * kCountsPerSide * CounterCosts{}.session_s;
  const double calls = 1 + kCountsPerSide * (kMostCounterPasses + 1);
  return std::max(0.0, budget_s) + sessions + calls * call_s;
}

json::Value uncounted_kernels(const json::Value& traced, int counted) {
  json::Value out{json::Array{}};
  int seen = 0;
  for (const auto& launch : traced.as_array()) {
    if (launch["kind"].as_string() != "kernel" || seen++ < counted) continue;
    json::Value k;
    k.set("name", launch["name"]).set("ms", launch["ms"]);
    out.push(std::move(k));
  }
  return out;
}

Result<json::Value> waiting_while_busy(const std::function<Result<json::Value>()>& measure,
                                       const std::function<bool()>& busy, const WaitClock& clock) {
  using namespace std::chrono_literals;
  const auto began = clock.now();
  auto pause = std::chrono::milliseconds(100);
  for (;;) {
    auto measured = measure();
    if (measured || !busy()) return measured;
    const auto waited = clock.now() - began;
    if (waited + pause > 20s)
      return Result<json::Value>::failure(
          measured.error + " (another profiler held the GPU's counters for " +
          std::to_string(std::chrono::duration_cast<std::chrono::seconds>(waited).count()) + " s)");
    if (clock.sleep)
      clock.sleep(pause);
    else
      std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(1600));
  }
}

}  // namespace kforge::worker
