// What a suite's table comes to, in the words KernelBench's papers use: per target (a task's
// direction on a backend), the fastest correct kernel, and over the targets how many got one
// (correct), how many of those beat eager PyTorch and torch.compile (fast_1: speedup > 1, over
// every target, as KernelBench counts it) and the geometric mean of the speedups of the correct
// ones. Twice: with every kernel, and without the kernels the worker saw calling library
// operators at run time (flagged under the policy `flag`; under `allow` nothing is flagged and
// the two agree).
#pragma once

#include <string>

#include "common/json.hpp"

namespace kforge::cli {

/// `suite`: the archive's suite document (rows with task, direction, backend, status,
/// configs_correct/total, speedup_eager, speedup_compile, flags, dram_pct, bound, limiter).
/// Returns {"all": PART, "without_library": PART}, a PART being {targets, correct, fast_1_eager,
/// fast_1_compile, compile_timed, pending, memory_bound, memory_bound_at_dram_target,
/// below_dram_target_by_limiter, library_longest, geomean_eager, geomean_compile}; memory_bound
/// counts the best kernels whose rows' hardware counters (dram_pct, bound) say memory-bound, and
/// of those the ones at kDramTargetPct of DRAM peak or more; below_dram_target_by_limiter those
/// under it by the rows' limiter ({"sm": N, "l2": N, "dram": N}); compile_timed counts the correct
/// targets whose best kernel has a torch.compile time (geomean_compile is over those); pending the
/// targets with a kernel not evaluated yet (a suite stopped or still running); a geometric mean of
/// nothing is null.
json::Value suite_summary(const json::Value& suite);

/// The summary as lines for the terminal.
std::string suite_summary_text(const json::Value& summary);

}  // namespace kforge::cli
