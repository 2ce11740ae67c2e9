// What the hardware counters of one config's kernels say (the worker's "counters" record,
// evaluation/worker/kernel_counters.hpp): per side, the kernels that took longest with their
// achieved occupancy, SM, memory, DRAM, L2 and L1 throughput as a share of peak, their place on the
// FP32 roofline (or the tensor pipe's use), and the warp stalls that cost most cycles per issued
// instruction; and one line of it for tables and prompts.
#pragma once

#include <string>

#include "common/json.hpp"

namespace kforge::evaluation {

struct CountersSummary {
  /// {"config", "candidate": {"kernels", "ms", "passes", "top": [{"name", "ms",
  /// "occupancy_pct", "sm_pct", "memory_pct", "dram_pct", "l2_pct", "l1_pct", "tensor_pct",
  /// "gflops", "arithmetic_intensity", "roofline": {"bound", "pct_of_roof"},
  /// "stalls": [{"reason", "cycles_per_instruction"}]}], and where kernels were left uncounted
  /// "skipped", "skipped_ms", "budget_s" and "skipped_why": "graph" where they ran in a CUDA
  /// graph, "budget" where the counters budget was spent}, "reference": ...}, or {"config",
  /// "error"}; a side that alone could not be counted is
  /// {"error"}
  json::Value doc;
  std::string brief;
};

CountersSummary summarise_counters(const json::Value& counters, const std::string& config_name);

/// Why a summarised side's "skipped" kernels were not counted, the one wording of briefs and
/// tables: "the 10 s counters budget (evaluation.counters_budget_s) was spent", or that they ran
/// in a CUDA graph.
std::string skipped_because(const json::Value& side);

}  // namespace kforge::evaluation
