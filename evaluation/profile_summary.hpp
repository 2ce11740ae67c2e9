// What a correct kernel spends, from what kforge already has: the compiler's resource report
// (evaluation/kernel_resources.hpp: registers, shared memory, stack, spills per kernel) and the
// evaluation's per-config report (evaluation/worker_report.hpp: time next to eager, bytes moved,
// bandwidth reached against the speed-of-light bound) and the kernel trace the worker recorded on
// the config moving the most bytes (the candidate's launches next to eager PyTorch's), with the
// hardware counters of those launches when the worker read them (evaluation/counter_summary.hpp).
#pragma once

#include <string>
#include <vector>

#include "common/json.hpp"
#include "evaluation/kernel_resources.hpp"
#include "evaluation/worker_report.hpp"

namespace kforge::evaluation {

struct Profile {
  json::Value doc;    ///< {"kernels": [...], "configs": [...], "summary": {...}}
  std::string brief;  ///< one line for tables and prompts
};

/// A kernel trace (the worker's "trace" of one config: the reference's launches and the
/// candidate's, evaluation/worker/launch_trace.hpp) summarised: per side the launches, their total
/// time and the launches that took longest, grouped by name ({"config", "candidate": {"launches",
/// "ms", "top": [{"name", "count", "ms", "grid", "block"}]}, "reference": ...}), and one line.
struct TraceSummary {
  json::Value doc;
  std::string brief;
};
TraceSummary summarise_trace(const json::Value& trace, const std::string& config_name);

/// The profile of a kernel built into `kernels` (none on the CPU backend) and evaluated as
/// `configs` report; with the kernel trace and the hardware counters when a config's record
/// carries them.
Profile make_profile(const std::string& backend, const std::vector<KernelResources>& kernels,
                     const std::vector<ConfigReport>& configs);

}  // namespace kforge::evaluation
