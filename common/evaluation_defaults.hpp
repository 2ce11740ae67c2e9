// Defaults of an evaluation shared by every way into one: an experiment's configuration,
// `kforge eval`, `kforge suite`, the evaluator's request and the worker's.
#pragma once

#include <cstdint>

namespace kforge {

/// Trials with fresh inputs and weights per config.
inline constexpr int kDefaultSeeds = 3;

/// Seconds the hardware counters of one evaluation may take, both sides together (CUDA): a
/// kernel replayed 14 times costs from milliseconds to a few seconds, and a call of 30 kernels
/// (robust-kbench's resnet_block) took 250 s with no budget.
inline constexpr double kDefaultCountersBudgetSeconds = 10;

/// Seconds of timing per config, both functions together, and how long one timed batch of calls
/// should last (the worker's timing; the supervisor bounds the timing stage from them).
inline constexpr double kDefaultTimingSecondsPerConfig = 4;
inline constexpr double kDefaultTargetBatchMs = 5;

/// The largest kernel source the static checks accept, in bytes.
inline constexpr int64_t kDefaultMaxSourceBytes = 256 * 1024;
/// The largest limit an experiment, `kforge suite` or `kforge eval` may set.
inline constexpr int64_t kLargestMaxSourceBytes = 16 << 20;

}  // namespace kforge
