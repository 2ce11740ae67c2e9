// The kernel trace and the hardware counters of a correct candidate, after every timed call, on
// the config that moves the most bytes: the reference's launches (its work as timed, no copies of
// the inputs) and the candidate's, each after an untraced call; then the counters of the same
// calls' kernels, named after the trace's kernels when both saw the same launches.
#include <chrono>
#include <utility>

#include "evaluation/worker/both_sides.hpp"
#include "evaluation/worker/candidate_run.hpp"
#include "evaluation/worker/evaluation_support.hpp"

namespace kforge::worker {
namespace {

/// Names the counted kernels after the trace's kernels of the same call, when the trace saw at
/// least as many kernels as were counted (both record launches in the order they ran, and the
/// counters take the first ones).
void name_counted_kernels(json::Value& counted, const json::Value& launches) {
  std::vector<std::string> names;
  for (const auto& l : launches.as_array())
    if (l["kind"].as_string() == "kernel") names.push_back(l["name"].as_string());
  const size_t counted_kernels = counted["kernels"].as_array().size();
  if (names.size() < counted_kernels) return;
  json::Value kernels;
  kernels.array();
  for (size_t i = 0; i < counted_kernels; ++i) {
    json::Value k = counted["kernels"][i];
    kernels.push(k.set("name", names[i]));
  }
  counted.set("kernels", kernels);
}

}  // namespace

void CandidateRun::record_kernels(size_t index, size_t record) {
  if (request_.trace)
    record_both(index, record, "trace", "kernel trace", evaluation::Stage::trace, false, false, {},
                [&](const char* who, const std::function<void()>& call, json::Value& doc) {
                  return record_trace(who, call, doc);
                });
  // The counters need a call per counter pass (about 15; evaluation/worker/counter_budget.hpp): the
  // candidate's kernels first, then eager's, in launch order as far as the budget reaches. A side
  // whose counting fails keeps its error and the other side is still counted: eager's counters
  // explain a kernel whose own could not be read (a first profiled call too slow for its passes).
  if (request_.counters) {
    double budget_left = request_.counters_budget_s;
    record_both(index, record, "counters", "hardware counters", evaluation::Stage::counters, true,
                true, counters_stage_seconds(configs_[record], budget_left),
                [&](const char* who, const std::function<void()>& call, json::Value& doc) {
                  return record_counters(record, budget_left, who, call, doc);
                });
  }
}

// One recording of both sides into the record's `key`, or its error alone: `recorder` adds one
// side to the document and returns what failed. With `sides_apart`, a side's failure is that
// side's {"error"} and the other side is still recorded; the record is one error only where both
// failed (or the call or the device did).
void CandidateRun::record_both(size_t index, size_t record, const char* key,
                               const std::string& what, evaluation::Stage stage,
                               bool candidate_first, bool sides_apart,
                               std::optional<double> planned_s, const Recorder& recorder) {
  const json::Value& config = direction_["configs"][index];
  json::Value doc;
  try {
    std::string words = "config " + std::to_string(index) + ": " + what;
    if (planned_s)
      words += " (about " + std::to_string(static_cast<int>(*planned_s + 0.5)) + " s planned)";
    step(stage, words, index, std::nullopt, planned_s);
    Case c = task_.draw(config, mix_seed(request_.seed + 4242, index), dev_);
    at::NoGradGuard no_grad;
    json::Value start;
    start.set("config", static_cast<int64_t>(index));
    std::function<void()> reference = task_.prepare_timed_reference(config, c);  // as it was timed
    std::function<void()> candidate = [&] { call(c.args); };
    doc = record_sides(std::move(start),
                       candidate_first ? std::vector<std::string>{"candidate", "reference"}
                                       : std::vector<std::string>{"reference", "candidate"},
                       sides_apart, [&](const std::string& who, json::Value& into) {
                         const auto& side = who == "candidate" ? candidate : reference;
                         side();
                         state_.device.synchronize();
                         return recorder(who.c_str(), side, into);
                       });
  } catch (const std::exception& e) {
    doc = json::Value();
    doc.set("error", "the " + what + " call failed: " + short_what(e));
  }
  if (auto device_failure = check_device()) {
    doc = json::Value();
    doc.set("error", device_failure->message);
  }
  configs_.array()[record].set(key, doc);
}

std::string CandidateRun::record_trace(const char* who, const std::function<void()>& call,
                                       json::Value& doc) {
  const auto start = std::chrono::steady_clock::now();
  auto launches = state_.device.trace(call);
  const double wall =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!launches) return launches.error;
  doc.set(who, *launches).set(std::string(who) + "_wall_ms", wall);
  return {};
}

std::string CandidateRun::record_counters(size_t record, double& budget_left, const char* who,
                                          const std::function<void()>& call, json::Value& doc) {
  const json::Value& traced = configs_[record]["trace"][who];
  json::Value side;
  int counted = 0;
  // Counts the first `n` kernels; what it costs is learned and spent.
  auto count = [&](int n) {
    auto result = state_.device.counters(call, n, budget_left);
    if (!result) return result.error;
    const double spent = (*result)["seconds"].as_number();
    budget_left -= spent;
    state_.counter_costs.learn(*result, spent, traced_kernel_seconds(traced));
    side = std::move(*result);
    counted = static_cast<int>(side["kernels"].as_array().size());
    return std::string();
  };
  // User replay is tried first; where it fails, the device falls back to kernel replay for one
  // kernel, whose cost (milliseconds to most of a second a pass) then plans a second count.
  bool graph_stops = false;
  for (int attempt = 0; attempt < kCountsPerSide; ++attempt) {
    const auto plan = plan_counters(traced, budget_left, state_.counter_costs);
    graph_stops = plan.graph_stops;
    if (plan.count <= counted) break;
    if (auto error = count(plan.count); !error.empty()) return error;
  }
  name_counted_kernels(side, traced);
  side.set("budget_s", request_.counters_budget_s);
  if (traced.is_array())
    if (auto left = uncounted_kernels(traced, counted); !left.as_array().empty()) {
      side.set("skipped", left);
      side.set("skipped_why", graph_stops ? "graph" : "budget");
    }
  doc.set(who, side);
  return {};
}

}  // namespace kforge::worker
