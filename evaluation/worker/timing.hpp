// Timing protocol, the same for candidate and reference: warm-up, batches of many calls between
// two marks (events on CUDA, steady_clock on CPU) with device-wide synchronisation before the stop
// mark, a cache flush before every batch, inputs rotated over sets larger than the cache, the two
// functions interleaved batch by batch, and median and spread over the repetitions.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/evaluation_defaults.hpp"
#include "common/json.hpp"
#include "evaluation/worker/checks.hpp"
#include "evaluation/worker/device.hpp"

namespace kforge::worker {

struct TimingOptions {
  int min_reps = 10;
  int max_reps = 40;
  /// Calls per batch are chosen to last about this long.
  double target_batch_ms = kDefaultTargetBatchMs;
  /// Budget for both functions together, per config.
  double max_seconds = kDefaultTimingSecondsPerConfig;
};

struct TimingStats {
  double median_ms = 0, p10_ms = 0, p90_ms = 0, min_ms = 0, mean_ms = 0;
  double wall_median_ms = 0;  ///< host wall time per call, same batches
  int reps = 0;
  int calls_per_rep = 0;
  double spread() const { return median_ms > 0 ? (p90_ms - p10_ms) / median_ms : 0; }
  json::Value to_json() const;
};

struct GroupTiming {
  std::vector<TimingStats> stats;  ///< per function, in the order given
  std::optional<Failure> failure;  ///< timer disagreement
};

/// Called around every batch, outside its timed region: `watch(function, true)` before it,
/// `watch(function, false)` after it; a failure it returns after a batch ends the timing with it.
using BatchWatch = std::function<std::optional<Failure>(size_t function, bool before)>;

/// Each function `call(set)` runs one call on input set `set` (0 <= set < sets), whose memory
/// `set_memory[set]` is evicted from the caches before a batch that reads it; `refresh(set)`,
/// when given, gives a set new values before a batch that uses it; `on_plan(seconds)`, when given,
/// learns how long the measured repetitions should take once warm-up has estimated the functions.
/// Every repetition times one batch of each function, in the order given; the budget
/// (options.max_seconds) is for all of them together.
GroupTiming time_group(Device& device, const std::vector<std::function<void(size_t)>>& functions,
                       const std::vector<std::vector<MemorySpan>>& set_memory,
                       const TimingOptions& options,
                       const std::function<void(size_t)>& refresh = {},
                       const std::function<void(double)>& on_plan = {},
                       const BatchWatch& watch = {});

/// `call(set)` timed one call at a time, `reps` times over the sets in turn, each call after its
/// set's memory `set_memory[set]` was evicted from the caches (on CUDA: after the L2 flush): the
/// data comes from memory, so the time answers to the memory system's bound, which a time left
/// warm by earlier calls of a batch need not (an honest kernel on a cache-resident working set).
/// `watch` as for time_group, with function 0; a failure stops the timing and is returned.
TimingStats time_cold(Device& device, const std::function<void(size_t)>& call,
                      const std::vector<std::vector<MemorySpan>>& set_memory, int reps,
                      const BatchWatch& watch, std::optional<Failure>& failure);

}  // namespace kforge::worker
