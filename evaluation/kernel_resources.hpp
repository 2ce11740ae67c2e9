// What the compiler says a CUDA kernel uses (`ptxas -v`: registers, barriers, shared memory,
// stack and spills), read once from its log when a candidate is compiled, carried with the
// compile result, archived, and read by the profiler.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.hpp"

namespace kforge::evaluation {

struct KernelResources {
  std::string name;  ///< demangled, without namespaces and parameters
  std::string arch;  ///< "sm_90"
  int32_t registers = 0;
  int32_t barriers = 0;
  int64_t shared_bytes = 0;
  int64_t stack_bytes = 0;
  int64_t spill_store_bytes = 0;
  int64_t spill_load_bytes = 0;
};

/// The kernels of a `ptxas -v` report, in the order the compiler lists them.
std::vector<KernelResources> parse_ptxas_report(std::string_view log);

/// The kernels as the archive keeps them: a JSON array of objects named like the fields.
json::Value to_json(const std::vector<KernelResources>& kernels);
/// Reads what to_json wrote (missing fields are 0).
std::vector<KernelResources> kernel_resources_from_json(const json::Value& list);

}  // namespace kforge::evaluation
