// What a correct kernel spends, from what kforge already has: the compiler's resource report
// (ptxas -v: registers, shared memory, stack, spills per kernel) and the evaluation's per-config
// record (time next to eager, bytes moved, bandwidth reached against the speed-of-light bound).
// Per-kernel hardware counters (Nsight Compute) are not read here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.hpp"

namespace kforge::gpu {

struct KernelResources {
  std::string name;  ///< demangled, without namespaces and parameters
  std::string arch;  ///< "sm_90"
  int registers = 0;
  int barriers = 0;
  int64_t shared_bytes = 0;
  int64_t stack_bytes = 0;
  int64_t spill_store_bytes = 0;
  int64_t spill_load_bytes = 0;
};

/// The kernels of a `ptxas -v` report, in the order the compiler lists them.
std::vector<KernelResources> parse_ptxas_report(std::string_view log);

struct Profile {
  json::Value doc;    ///< {"kernels": [...], "configs": [...], "summary": {...}}
  std::string brief;  ///< one line for tables and prompts
};

/// `configs` are the worker's per-config records of the evaluation (kernel and eager medians,
/// bytes_moved, speed_of_light_ms, check and timing seconds).
Profile make_profile(const std::string& backend, std::string_view compile_log,
                     const std::vector<json::Value>& configs);

}  // namespace kforge::gpu
