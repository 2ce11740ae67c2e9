// Defaults of an evaluation shared by every way into one: an experiment's configuration,
// `kforge eval`, `kforge suite`, the evaluator's request and the worker's.
#pragma once

namespace kforge {

/// Trials with fresh inputs and weights per config.
inline constexpr int kDefaultSeeds = 3;

}  // namespace kforge
