// The CUDA kernel trace through CUPTI's activity API: records are buffered by CUPTI and handed
// back when flushed; they carry the launch configuration and GPU timestamps of every kernel.
#include <cupti.h>
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "evaluation/worker/launch_trace.hpp"

namespace kforge::worker {
namespace {

struct Launch {
  uint64_t start = 0;
  json::Value record;
};

std::mutex records_mutex;
std::vector<Launch>* records = nullptr;  // while a trace is recorded

constexpr size_t kBufferBytes = 4u << 20;
constexpr size_t kAlignment = 8;

std::string demangled(const char* name) {
  if (!name) return "?";
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

json::Value triple(int64_t x, int64_t y, int64_t z) {
  json::Value v;
  v.array();
  v.push(x).push(y).push(z);
  return v;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* a = nullptr;
  std::lock_guard<std::mutex> lock(records_mutex);
  while (records && cuptiActivityGetNextRecord(buffer, valid, &a) == CUPTI_SUCCESS) {
    json::Value r;
    uint64_t start = 0, end = 0;
    if (a->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || a->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(a);
      r.set("kind", "kernel").set("name", demangled(k->name));
      r.set("grid", triple(k->gridX, k->gridY, k->gridZ));
      r.set("block", triple(k->blockX, k->blockY, k->blockZ));
      r.set("registers", static_cast<int64_t>(k->registersPerThread));
      r.set("shared_bytes", static_cast<int64_t>(k->staticSharedMemory) + k->dynamicSharedMemory);
      if (k->graphId != 0) r.set("graph", true);  // a node of a CUDA graph's launch
      start = k->start;
      end = k->end;
    } else if (a->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(a);
      r.set("kind", "memcpy").set("name", "memcpy").set("bytes", static_cast<int64_t>(m->bytes));
      start = m->start;
      end = m->end;
    } else if (a->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(a);
      r.set("kind", "memset").set("name", "memset").set("bytes", static_cast<int64_t>(m->bytes));
      start = m->start;
      end = m->end;
    } else {
      continue;
    }
    r.set("ms", end > start ? static_cast<double>(end - start) / 1e6 : 0.0);
    records->push_back({start, std::move(r)});
  }
  std::free(buffer);
}

std::string cupti_error(const char* what, CUptiResult r) {
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  return std::string(what) + ": " + (text ? text : "CUPTI error " + std::to_string(r));
}

const CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                     CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};

}  // namespace

Result<json::Value> trace_cuda_launches(const std::function<void()>& body) {
  using Traced = Result<json::Value>;
  static const CUptiResult registered =
      cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (registered != CUPTI_SUCCESS)
    return Traced::failure(cupti_error("registering the trace buffers", registered));
  std::vector<Launch> launches;
  {
    std::lock_guard<std::mutex> lock(records_mutex);
    records = &launches;
  }
  std::string error;
  for (auto kind : kKinds)
    if (auto r = cuptiActivityEnable(kind); r != CUPTI_SUCCESS && error.empty())
      error = cupti_error("enabling the kernel trace", r);
  if (error.empty()) {
    try {
      body();
    } catch (const std::exception& e) {
      error = std::string("the traced call failed: ") + e.what();
    }
  }
  for (auto kind : kKinds) cuptiActivityDisable(kind);
  if (auto r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      r != CUPTI_SUCCESS && error.empty())
    error = cupti_error("reading the kernel trace", r);
  {
    std::lock_guard<std::mutex> lock(records_mutex);
    records = nullptr;
  }
  if (!error.empty()) return Traced::failure(error);
  std::stable_sort(launches.begin(), launches.end(),
                   [](const Launch& a, const Launch& b) { return a.start < b.start; });
  json::Value out;
  out.array();
  for (auto& l : launches) out.push(std::move(l.record));
  return {std::move(out), {}};
}

}  // namespace kforge::worker
