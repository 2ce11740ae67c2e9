// One evaluation request inside the worker: load the candidate, check its signature, run every
// defence on every config and seed, time it next to the reference, and report per config.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "common/json.hpp"
#include "gpu/worker/device.hpp"
#include "gpu/worker/task_cases.hpp"

namespace kforge::worker {

/// Writes one event (a JSON line) to the supervisor.
using EventSink = std::function<void(const json::Value&)>;

class Evaluator {
 public:
  Evaluator(Device& device, EventSink sink) : device_(device), sink_(std::move(sink)) {}
  /// Handles {"op":"evaluate", ...}; sends step events and returns the result document.
  json::Value evaluate(const json::Value& request);

 private:
  ExportedTask* task(const std::string& export_dir, std::string& error);
  void step(const std::string& what, double timeout_s);

  Device& device_;
  EventSink sink_;
  std::map<std::string, std::unique_ptr<ExportedTask>> tasks_;
};

}  // namespace kforge::worker
