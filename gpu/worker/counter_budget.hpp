// How many of a call's kernels the hardware counters can afford. CUPTI replays every counted
// kernel once per counter pass (14 on an H100), saving and restoring its memory each time, so a
// call of many kernels can cost minutes; a budget in seconds decides how many are counted. The
// range profiler counts the launches between its start and stop, so a call's kernels are counted
// in launch order up to a count: the plan takes the longest prefix whose estimated cost fits, and
// names the kernels it leaves with their traced times. The cost per kernel and pass beyond the
// kernel's own time is learned from each count this worker makes.
#pragma once

#include "common/json.hpp"

namespace kforge::worker {

/// What counting has cost in this worker.
struct CounterCosts {
  /// Seconds per kernel and pass beyond the kernel's own time (memory saved and restored, the
  /// profiler's work); a cautious guess until a count is learned.
  double pass_overhead_s = 0.2;
  int passes = 16;       ///< counter passes per kernel (14 on an H100)
  bool learned = false;  ///< a count has been learned from; before it, calibrate on one kernel
  /// Learns from a count's result ({"passes", "kernels": [{"metrics": {"duration_ns"}}]}) and
  /// the seconds it took.
  void learn(const json::Value& counted, double seconds);
};

struct CounterPlan {
  int count = 0;  ///< how many of the call's first kernels to count
  double estimated_s = 0;
};

/// The plan for one call whose traced launches (gpu/worker/launch_trace.hpp: [{"kind", "name",
/// "ms"}...]) are `traced`, within `budget_s`; without a trace, as many kernels (at most 32) as
/// the budget pays for at the cost of a kernel of no time.
CounterPlan plan_counters(const json::Value& traced, double budget_s, const CounterCosts& costs);

/// [{"name", "ms"}] of the traced kernels after the first `counted`, in launch order: what the
/// counters left.
json::Value uncounted_kernels(const json::Value& traced, int counted);

}  // namespace kforge::worker
