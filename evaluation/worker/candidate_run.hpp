// One candidate's evaluation in the worker, once its library is loaded and its function found:
// every selected config checked on every seed against the reference (candidate_run.cpp), timed
// next to the reference and judged against the memory system's bound (candidate_timing.cpp), and
// on the config that moves the most bytes, the kernel trace and the hardware counters of a
// correct candidate (candidate_records.cpp). Each config's record goes to the supervisor as a
// "config" event when it is done; run() returns the result document.
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "evaluation/worker/checks.hpp"
#include "evaluation/worker/compiled_baseline.hpp"
#include "evaluation/worker/counter_budget.hpp"
#include "evaluation/worker/device.hpp"
#include "evaluation/worker/task_cases.hpp"
#include "evaluation/worker/thread_watch.hpp"
#include "evaluation/worker/timing.hpp"
#include "evaluation/worker_protocol.hpp"
#include "evaluation/worker_report.hpp"
#include "evaluation/worker_request.hpp"
#include "kforge/extension_registry.h"

namespace kforge::worker {

/// Writes one event (a JSON line) to the supervisor.
using EventSink = std::function<void(const json::Value&)>;

/// What a worker keeps between evaluations, lent to one.
struct WorkerState {
  Device& device;
  const EventSink& sink;
  CounterCosts& counter_costs;  ///< what counting has cost in this worker, for the budget
  ThreadWatch& threads;         ///< the candidates' threads, parked between calls
};

class CandidateRun {
 public:
  /// `direction` is the task's direction document (its configs, tolerance, aliasing rule).
  CandidateRun(WorkerState state, const evaluation::WorkerRequest& request, ExportedTask& task,
               const json::Value& direction, const ext::Function& fn, CompiledBaseline* baseline);
  /// Evaluates the configs the request selects: the verdict, each config's record, the flags.
  evaluation::WorkerReport run();

 private:
  /// One config's evaluation under way: what the checks and the timing learn, for its record.
  struct Config {
    size_t index;
    const json::Value& doc;
    std::vector<std::string> output_names;
    json::Value record;
    std::optional<Failure> failure;
    double max_abs = 0, max_rel = 0;
    int seeds_passed = 0;
    int64_t bytes_moved = -1;  ///< timed: inputs read and outputs written once
    /// Keeps a checked call's largest errors; returns its failure.
    std::optional<Failure> errors(const Comparison& cmp) {
      max_abs = std::max(max_abs, cmp.max_abs_error);
      max_rel = std::max(max_rel, cmp.max_rel_error);
      return cmp.failure;
    }
    /// "config N".
    std::string name() const { return "config " + std::to_string(index); }
  };
  /// The input sets a config is timed on, rotated so that together they exceed the cache.
  struct TimingSets;

  // Checks (candidate_run.cpp).
  void run_config(Config& c);
  std::optional<Failure> check_signature(const Config& c) const;
  /// One seed: the candidate before and after the reference, on poisoned allocations, observed.
  /// An error saving its outputs for the checker ends the evaluation (`stop_`).
  std::optional<Failure> check_seed(Config& c, int s);
  /// Compares, flagging what the comparison notes; where an output misses `want`, against the
  /// reference in float64 on case `k`'s inputs too (computed once for the call).
  Comparison compare(Config& c, const std::vector<at::Tensor>& got,
                     const std::vector<at::Tensor>& want, const Case& k);
  std::vector<at::Tensor> call(const std::vector<c10::IValue>& args);
  /// A call whose threads must be parked again when it returns
  /// (evaluation/worker/thread_watch.hpp).
  std::vector<at::Tensor> call_watched(const std::vector<c10::IValue>& args);
  /// A checked call: memory the candidate allocates during it starts out as NaN.
  std::vector<at::Tensor> call_poisoned(const std::vector<c10::IValue>& args,
                                        size_t expected_bytes);
  /// Around a timed batch of the candidate's, outside the timed region.
  std::optional<Failure> watch_batch(bool before);
  std::optional<Failure> check_device();
  void flag(const std::string& f);

  // Timing (candidate_timing.cpp).
  void time_config(Config& c);
  /// Fills `sets` (which must stay where it is: its refresh refers to it).
  void draw_timing_sets(const Config& c, TimingSets& sets);
  /// The torch.compile baseline's calls on every set, or none with the reason in the record.
  std::vector<std::function<std::vector<at::Tensor>()>> prepare_compiled(Config& c,
                                                                         const TimingSets& sets);
  /// The last timed output, and the kernel's answer once its inputs are refilled in place.
  std::optional<Failure> check_after_timing(Config& c, TimingSets& sets);
  /// Below the memory system's bound: timed again from memory before it is judged.
  std::optional<Failure> judge_speed(Config& c, TimingSets& sets, const TimingStats& kernel,
                                     double bound_ms);

  // Trace and counters (candidate_records.cpp).
  using Recorder = std::function<std::string(const char* who, const std::function<void()>& call,
                                             json::Value& doc)>;
  void record_kernels(size_t index, size_t record);
  /// `planned_s`: what the stage should take, which the supervisor may shorten its limit to.
  /// `sides_apart`: a side that fails is recorded as {"error"} and the other still recorded.
  void record_both(size_t index, size_t record, const char* key, const std::string& what,
                   evaluation::Stage stage, bool candidate_first, bool sides_apart,
                   std::optional<double> planned_s, const Recorder& recorder);
  std::string record_trace(const char* who, const std::function<void()>& call, json::Value& doc);
  std::string record_counters(size_t record, double& budget_left, const char* who,
                              const std::function<void()>& call, json::Value& doc);

  void step(evaluation::Stage stage, const std::string& what, std::optional<size_t> config = {},
            std::optional<int> seed = {}, std::optional<double> planned_s = {});

  WorkerState state_;
  const evaluation::WorkerRequest& request_;
  ExportedTask& task_;
  const json::Value& direction_;
  const ext::Function& fn_;
  CompiledBaseline* baseline_;
  const at::Device dev_;
  const std::optional<Tolerance> tolerance_;
  TimingOptions timing_;

  json::Value configs_;  ///< the records of the configs run, in order
  std::set<std::string> library_ops_;
  std::vector<std::string> flags_;
  std::optional<Failure> escaped_threads_;  ///< threads a call left running, first seen
  bool stop_ = false;                       ///< the evaluation cannot go on
};

}  // namespace kforge::worker
