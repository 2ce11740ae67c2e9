// What a correct kernel spends, from what kforge already has: the compiler's resource report
// (gpu/kernel_resources.hpp: registers, shared memory, stack, spills per kernel) and the
// evaluation's per-config report (gpu/worker_report.hpp: time next to eager, bytes moved,
// bandwidth reached against the speed-of-light bound). Per-kernel hardware counters (Nsight
// Compute) are not read here.
#pragma once

#include <string>
#include <vector>

#include "common/json.hpp"
#include "gpu/kernel_resources.hpp"
#include "gpu/worker_report.hpp"

namespace kforge::gpu {

struct Profile {
  json::Value doc;    ///< {"kernels": [...], "configs": [...], "summary": {...}}
  std::string brief;  ///< one line for tables and prompts
};

/// The profile of a kernel built into `kernels` (none on the CPU backend) and evaluated as
/// `configs` report.
Profile make_profile(const std::string& backend, const std::vector<KernelResources>& kernels,
                     const std::vector<ConfigReport>& configs);

}  // namespace kforge::gpu
