// What a worker is asked: one evaluation (or one check) of a candidate library on an exported
// task. The evaluator actor, `kforge eval` and the tests build it; the worker reads it. Its
// defaults live here and nowhere else; on the pipe it is a JSON object with these names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/build_choices.hpp"
#include "common/evaluation_defaults.hpp"
#include "common/json.hpp"

namespace kforge::evaluation {

/// How long and how often each config is timed; unset fields take the worker's defaults.
struct WorkerTiming {
  std::optional<int> min_reps, max_reps;
  std::optional<double> target_batch_ms;
  std::optional<double> max_seconds;       ///< timing budget per config
  std::optional<double> refill_max_bytes;  ///< inputs refreshed before each batch up to this size
};

struct WorkerRequest {
  std::string export_dir;  ///< the exported task (task.json)
  std::string library;     ///< the candidate's shared object
  std::string direction = "forward";
  std::string function;          ///< the registered function to call; empty: the direction's name
  std::string mode = "multi";    ///< the config set: "single" or "multi"
  std::vector<int64_t> configs;  ///< these config indices instead of the mode's, when not empty
  int seeds = kDefaultSeeds;     ///< trials per config (common/evaluation_defaults.hpp)
  uint64_t seed = 0;             ///< base of the seeds (all 64 bits reach the worker)
  LibraryPolicy library_calls = LibraryPolicy::flag;
  double speedup_flag = 20;  ///< a speedup above this is flagged as suspicious
  double call_timeout_s = 60;
  bool time = true;  ///< time the configs next to eager PyTorch
  /// Skip the configs after the first failure (a search needs the verdict only).
  bool stop_on_failure = false;
  std::optional<double> atol, rtol;  ///< tolerances instead of the task's
  std::string compiled_dir;          ///< the torch.compile baseline to time too
  std::string compiled_unavailable;  ///< why a baseline that was asked for is missing
  std::string outputs_dir;           ///< where the worker leaves outputs for the checker
  /// A correct candidate's kernel trace, and the reference's, on the config moving the most bytes
  /// (after all timing): the record of that config gets "trace"
  /// (evaluation/worker/launch_trace.hpp).
  bool trace = false;
  /// The hardware counters of the same config's kernels, the candidate's and the reference's,
  /// after the trace: that config's record gets "counters" (evaluation/worker/kernel_counters.hpp).
  bool counters = false;
  /// Seconds the counters may take per evaluation, both sides together: the candidate's kernels
  /// are counted first, then eager's, each in launch order as far as the budget reaches; the
  /// record names the kernels left uncounted (docs/evaluator.md).
  double counters_budget_s = kDefaultCountersBudgetSeconds;
  WorkerTiming timing;

  json::Value to_json() const;
  /// Missing fields keep their defaults.
  static WorkerRequest from_json(const json::Value& doc);
};

}  // namespace kforge::evaluation
