// The worker's protocol as its supervisor enforces it. A worker announces every stage of an
// evaluation with a step event; the supervisor, not the worker, decides how long each stage may
// take, from the request alone. Stages only move forward (config by config, seed by seed, in the
// order the worker runs them), so no line, the worker's or one a candidate writes into the
// worker's descriptors, can give a stage more time than the request allows. Anything else on the
// channel (a line that is not JSON, an unknown event, a stage out of order, an infrastructure error
// once candidate code has run) breaks the protocol, and the candidate is rejected for it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.hpp"
#include "evaluation/worker_request.hpp"

namespace kforge::evaluation {

/// The stages of an evaluation (and of a check), in the order the worker runs them.
enum class Stage {
  load_task,
  load_candidate,  ///< from here on, candidate code has run in the worker (its constructors)
  draw,
  candidate,
  synchronise,
  reference,
  compare,  ///< the candidate's outputs against the reference's (kforge's code alone)
  candidate_again,
  compare_again,
  checker_reference,
  checker_compare,
  prepare_timing,
  compiled_baseline,
  warm_up,
  timing,
  timed_output,  ///< the reference for the last timed call, and the comparison
  refilled,      ///< the candidate on its last set refilled in place
  refilled_compare,
  cold_timing,
  trace,
  counters,
};

std::string_view stage_name(Stage stage);
std::optional<Stage> stage_named(std::string_view name);
/// The group a person reads the stage's time under: "loading", "checks", "checker", "timing",
/// "kernel trace" or "hardware counters".
std::string_view stage_group(Stage stage);

/// The step event a worker sends as `stage` starts: `what` is for people; `config` and `seed`
/// place it; `planned_s`, for timing, lets the supervisor shorten (never lengthen) the stage.
json::Value step_event(Stage stage, const std::string& what, std::optional<size_t> config = {},
                       std::optional<int> seed = {}, std::optional<double> planned_s = {});

/// The configs a request covers, indices into the direction's `configs`: those it lists, else
/// those of its mode, in ascending order (the order the worker evaluates them in).
std::vector<size_t> selected_configs(const json::Value& configs, const WorkerRequest& request);

/// Follows one exchange's events and says when one breaks the protocol.
class ProtocolMonitor {
 public:
  /// `selected`: the configs the request covers (selected_configs of the exported task).
  ProtocolMonitor(const WorkerRequest& request, std::vector<size_t> selected);

  /// Takes the next line: empty if it keeps the protocol, else why not (and the line is not to
  /// be used). `event` is the parsed line.
  std::string accept(const json::Value& event);
  /// Seconds the current stage may take, the supervisor's own figure.
  double stage_limit_s() const { return limit_s_; }
  /// Seconds the whole exchange may take: every stage the request allows, each at its limit. A
  /// line can move the exchange on to a later stage, never past this.
  double total_limit_s() const { return total_s_; }
  /// The current stage, in words.
  const std::string& step() const { return step_; }
  /// The current stage; none before the first step.
  std::optional<Stage> stage() const { return stage_; }
  /// How many configs the request covers: a result has one config record each.
  size_t configs_expected() const { return selected_.size(); }
  /// Whether candidate code may have run in the worker: from then on its lines may be forged.
  bool candidate_loaded() const { return candidate_loaded_; }

 private:
  using Key = std::vector<long long>;
  std::string accept_step(const json::Value& event);
  std::optional<size_t> position(const json::Value& config) const;

  WorkerRequest request_;
  std::vector<size_t> selected_;
  Key last_;  ///< where the last step or config event stood; each must come after it
  double limit_s_ = 120;
  double total_s_ = 0;
  std::string step_ = "start";
  std::optional<Stage> stage_;
  bool candidate_loaded_ = false;
};

}  // namespace kforge::evaluation
