#include "evaluation/worker_protocol.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace kforge::evaluation {
namespace {

/// Each stage's name in events and records, and the group a person reads its time under
/// (`kforge eval`'s "time:" line).
struct StageNames {
  Stage stage;
  std::string_view name, group;
};

constexpr std::array<StageNames, 21> kStageNames{{
    {Stage::load_task, "load_task", "loading"},
    {Stage::load_candidate, "load_candidate", "loading"},
    {Stage::draw, "draw", "checks"},
    {Stage::candidate, "candidate", "checks"},
    {Stage::synchronise, "synchronise", "checks"},
    {Stage::reference, "reference", "checks"},
    {Stage::compare, "compare", "checks"},
    {Stage::candidate_again, "candidate_again", "checks"},
    {Stage::compare_again, "compare_again", "checks"},
    {Stage::checker_reference, "checker_reference", "checker"},
    {Stage::checker_compare, "checker_compare", "checker"},
    {Stage::prepare_timing, "prepare_timing", "timing"},
    {Stage::compiled_baseline, "compiled_baseline", "timing"},
    {Stage::warm_up, "warm_up", "timing"},
    {Stage::timing, "timing", "timing"},
    {Stage::timed_output, "timed_output", "timing"},
    {Stage::refilled, "refilled", "timing"},
    {Stage::refilled_compare, "refilled_compare", "timing"},
    {Stage::cold_timing, "cold_timing", "timing"},
    {Stage::trace, "trace", "kernel trace"},
    {Stage::counters, "counters", "hardware counters"},
}};

enum class Placement { start, per_seed, per_config, end };

Placement placement_of(Stage s) {
  if (s <= Stage::load_candidate) return Placement::start;
  if (s <= Stage::checker_compare) return Placement::per_seed;
  if (s <= Stage::cold_timing) return Placement::per_config;
  return Placement::end;
}

// How long a stage may take: what the worker used to claim for itself, now decided here. Timing
// is bounded by what the request allows: at most four times the budget, or three repetitions of
// one batch per timed function (reference, compiled baseline, candidate) of calls that each take
// up to the call timeout; the worker's plan may shorten that, never lengthen it. A comparison of
// outputs (kforge's code, no candidate's) may compute the reference again in float64 (a call) and
// reads every value of both sides (as long again, at most, as the reference that wrote them): a
// call was its whole limit when it shared the reference's stage, and comparing 8192 x 8192
// values on a loaded 2-core machine passed it. The hardware counters are bounded the same way as
// timing: the worker's plan may shorten their stage (KernelBench's full-size 36_LSTMHn ran its
// counters for minutes past a correct timing, within the 20 calls' limit).
double stage_limit(Stage s, const WorkerRequest& r, std::optional<double> planned_s) {
  const double call = r.call_timeout_s;
  const double comparison = 2 * call + 60;
  switch (s) {
    case Stage::load_task:
    case Stage::load_candidate:
    case Stage::draw:
    case Stage::prepare_timing:
      return 120;
    case Stage::candidate:
    case Stage::synchronise:
    case Stage::reference:
    case Stage::candidate_again:
    case Stage::checker_reference:
    case Stage::refilled:
      return call;
    case Stage::compare:
    case Stage::compare_again:
    case Stage::checker_compare:
    case Stage::refilled_compare:
      return comparison;
    case Stage::timed_output:
      return call + comparison;
    case Stage::compiled_baseline:
      return 300;
    case Stage::warm_up:
      return 2.0 * 3 * call + 60;
    case Stage::timing: {
      const double budget = r.timing.max_seconds.value_or(kDefaultTimingSecondsPerConfig);
      const double batch = r.timing.target_batch_ms.value_or(kDefaultTargetBatchMs) / 1000;
      const double most = std::max(4 * budget, 3.0 * 3 * (call + batch));
      const double cap = 3 * most + 60 + call;
      return planned_s ? std::min(cap, 3 * std::max(0.0, *planned_s) + 60 + call) : cap;
    }
    case Stage::cold_timing:
      return 40 * call + 60;
    case Stage::trace:
      return 4 * call + 60;
    case Stage::counters: {
      // Up to two counts a side of a call per pass (about 15 passes), at the call timeout each;
      // the worker's plan from the config's timed calls (counters_stage_seconds) may shorten it.
      const double cap = 20 * call + 120 + r.counters_budget_s;
      return planned_s ? std::min(cap, 3 * std::max(0.0, *planned_s) + 60 + call) : cap;
    }
  }
  return 120;
}

}  // namespace

std::string_view stage_name(Stage stage) {
  for (const auto& s : kStageNames)
    if (s.stage == stage) return s.name;
  return "?";
}

std::optional<Stage> stage_named(std::string_view name) {
  for (const auto& s : kStageNames)
    if (s.name == name) return s.stage;
  return std::nullopt;
}

std::string_view stage_group(Stage stage) {
  for (const auto& s : kStageNames)
    if (s.stage == stage) return s.group;
  return "?";
}

json::Value step_event(Stage stage, const std::string& what, std::optional<size_t> config,
                       std::optional<int> seed, std::optional<double> planned_s) {
  json::Value e;
  e.set("event", "step").set("stage", std::string(stage_name(stage))).set("step", what);
  if (config) e.set("config", static_cast<int64_t>(*config));
  if (seed) e.set("seed", *seed);
  if (planned_s) e.set("planned_s", *planned_s);
  return e;
}

std::vector<size_t> selected_configs(const json::Value& configs, const WorkerRequest& request) {
  std::vector<size_t> selected;
  for (size_t i = 0; i < configs.as_array().size(); ++i) {
    bool in_mode = false;
    for (const auto& m : configs[i]["modes"].as_array()) in_mode |= m.as_string() == request.mode;
    if (!request.configs.empty()) {
      in_mode = false;
      for (int64_t c : request.configs) in_mode |= static_cast<size_t>(c) == i;
    }
    if (in_mode) selected.push_back(i);
  }
  return selected;
}

ProtocolMonitor::ProtocolMonitor(const WorkerRequest& request, std::vector<size_t> selected)
    : request_(request), selected_(std::move(selected)), last_{-2} {
  double per_seed = 0, per_config = 0, start = 0, end = 0;
  for (const auto& s : kStageNames) {
    const double limit = stage_limit(s.stage, request_, std::nullopt);
    switch (placement_of(s.stage)) {
      case Placement::start:
        start += limit;
        break;
      case Placement::per_seed:
        per_seed += limit;
        break;
      case Placement::per_config:
        per_config += request_.time ? limit : 0;
        break;
      case Placement::end:
        end += request_.trace || request_.counters ? limit : 0;
        break;
    }
  }
  const double configs = static_cast<double>(selected_.size());
  total_s_ = start + configs * (std::max(1, request_.seeds) * per_seed + per_config) + end;
}

std::optional<size_t> ProtocolMonitor::position(const json::Value& config) const {
  if (!config.is_number()) return std::nullopt;
  const auto index = config.as_int(-1);
  auto it = std::find(selected_.begin(), selected_.end(), static_cast<size_t>(index));
  if (index < 0 || it == selected_.end()) return std::nullopt;
  return static_cast<size_t>(it - selected_.begin());
}

std::string ProtocolMonitor::accept_step(const json::Value& event) {
  const auto stage = stage_named(event["stage"].as_string());
  if (!stage) return "a step with no stage of the protocol (`" + event["stage"].as_string() + "`)";
  const long long rank = static_cast<long long>(*stage);
  // The worker times, traces and counts only when asked: a step for what the request does not ask
  // is written by a candidate (to have a crash taken for the profiler's, say).
  const bool asked = *stage == Stage::trace                          ? request_.trace
                     : *stage == Stage::counters                     ? request_.counters
                     : placement_of(*stage) == Placement::per_config ? request_.time
                                                                     : true;
  if (!asked) return "a `" + std::string(stage_name(*stage)) + "` step the request did not ask for";
  Key key;
  switch (placement_of(*stage)) {
    case Placement::start:
      key = {-1, 0, rank};
      break;
    case Placement::per_seed: {
      const auto pos = position(event["config"]);
      const auto seed = event["seed"].as_int(-1);
      if (!pos || !event["seed"].is_number() || seed < 0 || seed >= request_.seeds)
        return "a step for a config or seed the request does not cover";
      key = {static_cast<long long>(*pos), seed, rank};
      break;
    }
    case Placement::per_config: {
      const auto pos = position(event["config"]);
      if (!pos) return "a step for a config the request does not cover";
      key = {static_cast<long long>(*pos), request_.seeds, rank};
      break;
    }
    case Placement::end:
      if (!position(event["config"])) return "a step for a config the request does not cover";
      key = {static_cast<long long>(selected_.size()), 0, rank};
      break;
  }
  if (!(last_ < key))
    return "a step out of order (`" + std::string(stage_name(*stage)) + "` after `" + step_ + "`)";
  last_ = key;
  std::optional<double> planned;
  if (event["planned_s"].is_number()) planned = event["planned_s"].as_number();
  limit_s_ = stage_limit(*stage, request_, planned);
  step_ = event["step"].as_string(std::string(stage_name(*stage)));
  stage_ = stage;
  candidate_loaded_ = candidate_loaded_ || *stage >= Stage::load_candidate;
  return {};
}

std::string ProtocolMonitor::accept(const json::Value& event) {
  if (!event.is_object()) return "a line that is not an event";
  const std::string kind = event["event"].as_string();
  if (kind == "step") return accept_step(event);
  if (kind == "config") {
    const auto pos = position(event["index"]);
    if (!pos) return "a config result for a config the request does not cover";
    Key key{static_cast<long long>(*pos), request_.seeds, 1000};
    if (!(last_ < key)) return "a config result out of order";
    last_ = key;
    return {};
  }
  if (kind == "fatal") {
    if (candidate_loaded_ && event["kind"].as_string() == "infrastructure")
      return "an infrastructure failure reported after candidate code ran in the worker";
    return {};
  }
  if (kind == "result") {
    if (candidate_loaded_ && event["verdict"].as_string() == "error")
      return "an infrastructure error reported after candidate code ran in the worker (" +
             event["failure"]["message"].as_string().substr(0, 200) + ")";
    return {};
  }
  return "an event the protocol does not have (`" + kind.substr(0, 40) + "`)";
}

}  // namespace kforge::evaluation
