// What the worker reports of an evaluation (the counterpart of evaluation/worker_request.hpp):
// the worker writes its answer with `to_json` and the host reads it once with
// `read_worker_report`: the verdict, the failure, the flags, and per config the checks'
// errors, the kernel's and eager PyTorch's times, the torch.compile baseline's, the bytes moved
// and the speed-of-light bound. The evaluator, `kforge eval`, the profiler and the benchmarks read
// these fields instead of the JSON; each config keeps the worker's whole record for the archive.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "common/stage.hpp"

namespace kforge::evaluation {

/// Repetitions of one timed function: their median and spread, in milliseconds.
struct TimingSummary {
  double median_ms = 0;
  double p10_ms = 0;
  double p90_ms = 0;

  /// (p90 - p10) / median, as the worker computes it; 0 when not timed.
  double spread() const { return median_ms > 0 ? (p90_ms - p10_ms) / median_ms : 0; }
};

struct ConfigReport {
  int32_t index = 0;
  std::string name;
  bool correct = false;
  double max_abs_error = 0;
  double max_rel_error = 0;
  TimingSummary kernel;              ///< the candidate's time (median 0: not timed)
  TimingSummary eager;               ///< eager PyTorch's, in the same repetitions
  double speedup = 0;                ///< eager over kernel
  double compiled_ms = 0;            ///< torch.compile's time, when measured (0: not)
  double speedup_compiled = 0;       ///< over torch.compile, when measured
  std::string compiled_unavailable;  ///< why there is no torch.compile time, when asked for
  double bytes_moved = 0;            ///< what the config must read and write at least
  /// The time those bytes take at the copy bandwidth measured on the device
  /// (kforge::copy_bound_ms): a memory-bound kernel streaming at that rate is at 1 of its bound.
  double copy_bound_ms = 0;
  double check_seconds = 0;          ///< spent on the correctness checks
  double timing_seconds = 0;         ///< spent timing
  std::string failure_kind;          ///< empty when correct
  std::string failure_message;
  std::string record_json;  ///< the worker's whole record of the config, as the archive keeps it

  bool timed() const { return kernel.median_ms > 0; }
};

struct WorkerReport {
  EvalVerdict verdict = EvalVerdict::error;  ///< an unknown name reads as error
  std::string failure_kind;
  std::string failure_message;
  std::vector<ConfigReport> configs;
  std::vector<std::string> flags;
  int64_t checked_by_checker = 0;  ///< config-seed pairs the checker process confirmed

  /// A report that ends before any config ran: `verdict` (incorrect, or error where kforge
  /// itself failed) with the failure's kind and message.
  static WorkerReport failed(EvalVerdict verdict, std::string kind, std::string message);
  /// The report as the worker writes it on its pipe, which `read_worker_report` reads back: the
  /// verdict, the failure (when there is one), each config's whole record, the flags.
  json::Value to_json() const;
};

/// One config's record (an element of the result's "configs", or an archived record).
ConfigReport read_config_report(const json::Value& record);

/// A line per timed config for prompts: "- name: kernel ms (eager ms, speedup; bound ms)".
std::string config_times_text(const std::vector<ConfigReport>& configs);

/// The worker's "result" event.
WorkerReport read_worker_report(const json::Value& result);

/// kforge::speed_of_light_fraction (common/statistics.hpp) of the configs' median times.
double speed_of_light_fraction(const std::vector<ConfigReport>& configs);

}  // namespace kforge::evaluation
