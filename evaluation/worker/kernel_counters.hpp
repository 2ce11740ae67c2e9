// The hardware counters of the kernels one call launches: what Nsight Compute's Speed of Light,
// Occupancy, Memory and Compute Workload and Warp State sections read, collected inside the
// sandboxed worker through CUPTI's range profiler (the library ncu is built on) instead of by ncu,
// whose injection needs sockets and a process outside the sandbox. Each kernel is replayed once
// per counter pass with its memory saved and restored, after every timed call of an evaluation,
// so no timing runs while counters are collected.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "common/result.hpp"

namespace kforge::worker {

/// The counters asked for: the key a profile uses, and the metric's name in CUPTI/ncu.
struct CounterMetric {
  std::string key, metric;
};
const std::vector<CounterMetric>& counter_metrics();

/// CUDA: the counters of every kernel `body` launches on device `device_index` (at most
/// `max_kernels`; `body` synchronises before it returns): {"chip", "passes", "dropped",
/// "unsupported": [metric...], "kernels": [{"metrics": {key: value}}...]} in launch order.
/// Fails with CUPTI's reason (e.g. when profiling is restricted to administrators), or, under
/// user replay, after the first profiled call when the passes left would overrun `budget_s`
/// (user_replay_over_budget; kernel replay is not tried then). Defined in CUDA builds only.
Result<json::Value> measure_kernel_counters(const std::function<void()>& body, int device_index,
                                            int max_kernels, double budget_s);

}  // namespace kforge::worker
