// How many of a call's kernels the hardware counters can afford, within a budget in seconds. The
// range profiler counts the launches between its start and stop, so a call's kernels are counted
// in launch order up to a count: the plan takes the longest prefix whose estimated cost fits, and
// names the kernels it leaves with their traced times. Two ways to replay cost differently:
// - user replay (the first tried): the whole call runs once per counter pass (14 on an H100), so
//   a count costs a session (enabling, scheduling, decoding: about 2.5 s) plus the passes of the
//   call, however many of its kernels are counted;
// - kernel replay (the fallback): CUPTI replays each counted kernel once per pass, saving and
//   restoring memory each time (1.4 s a pass on robust-kbench's resnet_block), so the cost grows
//   with every kernel counted, and a call of many kernels can cost minutes.
// What a count cost is learned from each count this worker makes.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "common/json.hpp"
#include "common/result.hpp"

namespace kforge::worker {

/// What counting has cost in this worker.
struct CounterCosts {
  /// Whether counts replay whole calls (user replay) or kernels (kernel replay): user replay is
  /// assumed until a count says otherwise.
  bool user_replay = true;
  /// User replay: seconds a count costs beyond running the call once per pass; a guess until a
  /// count is learned.
  double session_s = 4;
  /// Kernel replay: seconds per kernel and pass beyond the kernel's own time (memory saved and
  /// restored, the profiler's work); a cautious guess until a count is learned.
  double pass_overhead_s = 0.2;
  int passes = 16;       ///< counter passes (14 on an H100)
  bool learned = false;  ///< a count has been learned from
  /// Learns from a count's result ({"replay", "passes", "kernels": [{"metrics":
  /// {"duration_ns"}}]}), the seconds it took, and the seconds of the call's kernels (all of them,
  /// counted or not).
  void learn(const json::Value& counted, double seconds, double call_s);
};

/// The seconds of a traced call's kernels (evaluation/worker/launch_trace.hpp: [{"kind",
/// "ms"}...]).
double traced_kernel_seconds(const json::Value& traced);

struct CounterPlan {
  int count = 0;  ///< how many of the call's first kernels to count
  double estimated_s = 0;
  /// None is counted because a kernel of the call ran as a node of a CUDA graph (the trace's
  /// "graph"): CUPTI's range profiler counted none of a graph's kernels (KernelBench's 36_LSTMHn
  /// generated, 455 to 3703 nodes, on an H100) and at 14839 nodes ran for minutes unfinished.
  bool graph_stops = false;
};

/// The plan for one call whose traced launches (evaluation/worker/launch_trace.hpp: [{"kind",
/// "name", "ms", "graph"}...]) are `traced`, within `budget_s`. User replay: every kernel (at most
/// 32) if a session and the call's passes fit, else none. Kernel replay: the longest prefix that
/// fits; without a trace, as many kernels (at most 32) as the budget pays for at the cost of a
/// kernel of no time. None where a kernel of the call ran in a CUDA graph.
CounterPlan plan_counters(const json::Value& traced, double budget_s, const CounterCosts& costs);

/// [{"name", "ms"}] of the traced kernels after the first `counted`, in launch order: what the
/// counters left.
json::Value uncounted_kernels(const json::Value& traced, int counted);

/// The seconds the counters' stage of a config should take, for the supervisor's limit of that
/// stage (it never lengthens its own; evaluation/worker_protocol.hpp): the budget, a session of
/// each of the two counts each side may make (CounterCosts::session_s), and the calls they run at
/// the config's timed medians (`record`'s "candidate" and "reference" "median_ms"): each side's
/// call before its count, and for each count as many calls as kMostCounterPasses and one more.
/// None when the config has no timed medians.
std::optional<double> counters_stage_seconds(const json::Value& record, double budget_s);

/// The most counter passes a count is planned for (14 on an H100): the calls a count runs under
/// user replay, beyond the first.
inline constexpr int kMostCounterPasses = 40;

/// User replay, after the first profiled call of a count that runs `calls` of them (its passes and
/// one more): why the count stops there, when the calls left, at the first one's seconds, would
/// take more than twice `budget_s` (at least a second); empty while they fit. A call of thousands
/// of launches can be far slower profiled than timed (each kernel is a range of its own).
std::string user_replay_over_budget(double first_call_s, size_t calls, double budget_s);

/// The counts one side's counters may make: a first, and one more planned on what it cost (user
/// replay that failed and fell back to kernel replay counts one kernel first).
inline constexpr int kCountsPerSide = 2;

/// The clock a wait for busy counters reads and sleeps on (a test's own, advanced by its sleeps).
struct WaitClock {
  std::function<std::chrono::steady_clock::time_point()> now = [] {
    return std::chrono::steady_clock::now();
  };
  std::function<void(std::chrono::milliseconds)> sleep;  ///< std::this_thread::sleep_for if empty
};

/// `measure` tried again while `busy()` says its failure was that another profiler held the GPU's
/// counters (CUPTI_ERROR_HARDWARE_BUSY: Nsight Compute, or a second worker on the same GPU
/// profiling at the same moment), 0.1 s after the first try, then twice as long each time up to
/// 1.6 s, while the next try would start within 20 s of the first; then its failure says how long
/// it waited. Any other result is returned as it is.
Result<json::Value> waiting_while_busy(const std::function<Result<json::Value>()>& measure,
                                       const std::function<bool()>& busy,
                                       const WaitClock& clock = {});

}  // namespace kforge::worker
