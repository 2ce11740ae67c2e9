// How experiments, actor states and candidates read on a terminal: shared by `kforge
// run`, `kforge console` and `kforge show`, which all print the archive's JSON documents.
#pragma once

#include <string>

#include "common/json.hpp"
#include "common/pace.hpp"

namespace kforge::cli {

/// The targets of an experiment (archive/views.hpp's experiment document) with their best kernels.
std::string experiment_table(const json::Value& experiment);

/// What the hardware counters say of a target's best kernel (experiment_view's "best_counters"):
/// its longest kernel's bound and share of DRAM peak, and for a memory-bound one whether it
/// reaches kDramTargetPct (common/pace.hpp), and if not, which unit is busier.
std::string dram_line(const json::Value& counters);

/// What a table says of a target (of experiment_view) whose best kernel is slower than eager.
std::string no_kernel_beat_eager(const json::Value& target);

/// Every actor's status and every experiment's progress (the daemon's /api/state document).
std::string state_table(const json::Value& state);

/// A candidate whole: record, verdicts, per-config results, profile, source.
std::string candidate_report(const json::Value& candidate, bool with_source);

/// LLM calls, failures, tokens and money per model (a list of model usage documents).
std::string usage_table(const json::Value& models, const std::string& indent);

/// An experiment's report (archive/report.hpp): money per model, cost per correct kernel, and
/// the LLM verifiers' confusion matrices against the hardware.
std::string report_table(const json::Value& report);

/// A kernel trace as evaluation::summarise_trace gives it: per side its launches, longest first.
std::string trace_table(const json::Value& trace);
/// A profile's hardware counters (evaluation/counter_summary.hpp): per side the longest kernels
/// with their occupancy, throughputs, roofline place and warp stalls.
std::string counters_table(const json::Value& counters);
/// Per target, its best kernel's per-config results (archive::report_view's "results").
std::string best_results_table(const json::Value& targets);
/// `kforge report --csv`: one row per config of each target's best kernel.
std::string report_csv(const json::Value& report);
/// `kforge list`: one block per experiment (archive::experiment_view without its config).
std::string experiments_list_table(const json::Value& experiments);

std::string format(const char* f, double v);
std::string pad(std::string s, size_t width);

}  // namespace kforge::cli
