// What the device runs during one call, launch by launch: the kernel trace a profile shows next to
// its times. On CUDA, every kernel, copy and memset with its grid, block, registers, shared memory
// and time on the device (CUPTI's activity records, so library kernels such as cuBLAS's appear
// too); on the CPU, the ATen operators called with their depth and wall time. Traced calls come
// after every timed one of an evaluation, so no timing runs while a trace is recorded.
#pragma once

#include <functional>

#include "common/json.hpp"
#include "common/result.hpp"

namespace kforge::worker {

/// CUDA: the launches of `body` (which synchronises the device before it returns), in the order
/// they started: {"kind": "kernel"|"memcpy"|"memset", "name", "grid": [x, y, z], "block": [...],
/// "registers", "shared_bytes", "bytes", "ms"}, and "graph": true on a kernel that ran as a node of
/// a CUDA graph's launch. Defined in CUDA builds only.
Result<json::Value> trace_cuda_launches(const std::function<void()>& body);

/// CPU: the ATen operators `body` calls on this thread, in the order they started:
/// {"kind": "op", "name", "depth", "ms"}, bookkeeping operators left out.
json::Value trace_cpu_ops(const std::function<void()>& body);

}  // namespace kforge::worker
