// One evaluation request inside the worker: load the task and the candidate, refuse a candidate
// that rebinds what the worker times with or lacks its function, then run every defence on every
// config and seed and time it next to the reference (evaluation/worker/candidate_run.hpp),
// reporting per config. With `outputs_dir` in the request, the candidate's outputs of each config
// and seed are also saved there, for the checker.
//
// The checker is a second worker process that never loads a candidate: for a check request (the
// same fields, op "check") it draws the same inputs, computes the reference itself and compares
// the saved outputs. The verdict that counts is decided there, where candidate code cannot write a
// result line or patch the comparison.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "common/json.hpp"
#include "evaluation/worker/candidate_run.hpp"
#include "evaluation/worker/compiled_baseline.hpp"
#include "evaluation/worker/counter_budget.hpp"
#include "evaluation/worker/device.hpp"
#include "evaluation/worker/task_cases.hpp"
#include "evaluation/worker/thread_watch.hpp"
#include "evaluation/worker_protocol.hpp"

namespace kforge::worker {

class Evaluator {
 public:
  Evaluator(Device& device, EventSink sink) : device_(device), sink_(std::move(sink)) {}
  /// Handles {"op":"evaluate", ...}; sends step events and returns the result document.
  json::Value evaluate(const json::Value& request);
  /// Handles {"op":"check", ...}: the saved outputs of every config and seed against the
  /// reference computed here. Returns the result document ("correct" or the first failure).
  json::Value check(const json::Value& request);

 private:
  Result<ExportedTask*> task(const std::string& export_dir);
  /// The torch.compile baseline in `dir` (compiled.json), loaded once; none for "".
  CompiledBaseline* compiled(const std::string& dir);
  /// Announces a stage (evaluation/worker_protocol.hpp); how long it may take is the supervisor's
  /// call.
  void step(evaluation::Stage stage, const std::string& what, std::optional<size_t> config = {},
            std::optional<int> seed = {}, std::optional<double> planned_s = {});

  Device& device_;
  EventSink sink_;
  std::map<std::string, std::unique_ptr<ExportedTask>> tasks_;
  std::map<std::string, std::unique_ptr<CompiledBaseline>> baselines_;
  CounterCosts counter_costs_;  ///< what counting has cost in this worker, for the budget
  ThreadWatch threads_;         ///< the candidates' threads, parked between calls
};

}  // namespace kforge::worker
