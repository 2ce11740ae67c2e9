// The CPU's trace: LibTorch's RecordFunction callbacks on this thread time each ATen operator
// from its start to its end.
#include <ATen/record_function.h>

#include <chrono>
#include <vector>

#include "evaluation/library_policy.hpp"
#include "evaluation/worker/launch_trace.hpp"

namespace kforge::worker {
namespace {

struct OpRecord {
  std::string name;
  int depth = 0;
  std::chrono::steady_clock::time_point start;
  double ms = -1;  // until it ends
};

thread_local std::vector<OpRecord>* traced = nullptr;
thread_local int depth = 0;

/// Where the operator's record is, carried from its start to its end.
struct Started : at::ObserverContext {
  explicit Started(size_t i) : index(i) {}
  size_t index;
};

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  if (!traced) return nullptr;
  traced->push_back({fn.name(), depth++, std::chrono::steady_clock::now()});
  return std::make_unique<Started>(traced->size() - 1);
}

void on_end(const at::RecordFunction&, at::ObserverContext* context) {
  auto* started = static_cast<Started*>(context);
  if (!traced || !started) return;
  --depth;
  auto& r = (*traced)[started->index];
  r.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - r.start).count();
}

}  // namespace

json::Value trace_cpu_ops(const std::function<void()>& body) {
  std::vector<OpRecord> ops;
  traced = &ops;
  depth = 0;
  auto handle = at::addThreadLocalCallback(
      at::RecordFunctionCallback(on_start, on_end).scopes({at::RecordScope::FUNCTION}));
  try {
    body();
  } catch (...) {
    at::removeCallback(handle);
    traced = nullptr;
    throw;
  }
  at::removeCallback(handle);
  traced = nullptr;
  json::Value out;
  out.array();
  for (const auto& op : ops) {
    const std::string_view name = op.name;
    if (name.rfind("aten::", 0) == 0 && evaluation::is_bookkeeping_op(name.substr(6))) continue;
    json::Value r;
    r.set("kind", "op").set("name", op.name).set("depth", op.depth).set("ms", op.ms);
    out.push(std::move(r));
  }
  return out;
}

}  // namespace kforge::worker
