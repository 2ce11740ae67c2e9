#include "archive/report.hpp"

#include <algorithm>
#include <map>

#include "archive/view_reads.hpp"
#include "archive/views.hpp"
#include "messages/event_details.hpp"

namespace kforge::archive {

using detail::got;
namespace {

/// What the hardware said of a candidate: "correct", "defective" (did not compile, or
/// incorrect), or "" when it never ran (rejected before, an infrastructure error).
std::string hardware_outcome(const std::vector<VerdictRow>& verdicts) {
  std::string out;
  for (const auto& v : verdicts) {
    if (v.stage == "compile" && v.verdict == "rejected") out = "defective";
    if (v.stage == "evaluate")
      out = v.verdict == "correct" ? "correct" : v.verdict == "incorrect" ? "defective" : "";
  }
  return out;
}

struct Matrix {
  int64_t true_positive = 0;   ///< rejected, and the hardware found it defective
  int64_t false_positive = 0;  ///< rejected, yet correct on the hardware
  int64_t true_negative = 0;   ///< accepted and correct
  int64_t false_negative = 0;  ///< accepted, yet defective
  int64_t rejected_not_run = 0;
  int64_t accepted_not_run = 0;
  int64_t undecided = 0;

  void add(bool decided, bool rejected, const std::string& hw) {
    if (!decided) {
      ++undecided;
      return;
    }
    if (hw.empty()) {
      ++(rejected ? rejected_not_run : accepted_not_run);
      return;
    }
    const bool defective = hw == "defective";
    if (rejected)
      ++(defective ? true_positive : false_positive);
    else
      ++(defective ? false_negative : true_negative);
  }

  json::Value to_json() const {
    json::Value v;
    v.set("true_positive", true_positive).set("false_positive", false_positive);
    v.set("true_negative", true_negative).set("false_negative", false_negative);
    v.set("rejected_not_run", rejected_not_run).set("accepted_not_run", accepted_not_run);
    v.set("undecided", undecided);
    const int64_t flagged = true_positive + false_positive;
    const int64_t defective = true_positive + false_negative;
    v.set("precision",
          flagged ? json::Value(static_cast<double>(true_positive) / flagged) : json::Value());
    v.set("recall",
          defective ? json::Value(static_cast<double>(true_positive) / defective) : json::Value());
    return v;
  }
};

/// Per target, each optimisation strategy a proposal was asked to follow, or meta-generation
/// wrote, or (where the search asked for none) a proposer followed on its own, with where it came
/// from ("seed": the fixed list; "rules": the built-in proposer's meta-generation; "proposer":
/// the proposer's own choice; else the LLM that wrote it) and its record: how many candidates tried
/// it, how many were correct, how many beat their parent, and the best gain over a parent.
json::Value strategy_records(Archive& a, int64_t experiment_id) {
  struct Record {
    int64_t tried = 0, correct = 0, improved = 0;
    double best_gain = 0;
    std::string source = "seed";
    int64_t round = 0;
    bool written = false;  ///< in the strategies table (meta-generation wrote it)
  };
  std::map<std::pair<std::string, std::string>, Record> by_text;  // by target and text
  for (const auto& x : got(a.strategies(experiment_id))) {
    auto& r = by_text[{x.target, x.text}];
    r.source = x.source;
    r.round = x.round;
    r.written = true;
  }
  std::map<int64_t, double> speedup_of;  // correct candidates by id
  const auto progress = got(a.progress(experiment_id));
  for (const auto& p : progress)
    if (p.correct) speedup_of[p.candidate.id] = p.geomean_speedup;
  for (const auto& p : progress) {
    // The strategy the search asked for, else the one the proposer says it followed (without
    // meta-generation a proposal is asked for none, yet translate and optimise ran).
    auto d = json::parse(p.candidate.decision);
    std::string text = d.value ? (*d.value)["strategy"].as_string() : std::string();
    const bool asked = !text.empty();
    if (!asked) text = p.candidate.strategy;
    if (text.empty()) continue;
    auto& r = by_text[{target_key(p.candidate), text}];
    if (!asked && !r.written) r.source = "proposer";
    ++r.tried;
    if (!p.correct) continue;
    ++r.correct;
    auto parent = speedup_of.find(p.candidate.parent_id);
    if (parent == speedup_of.end() || parent->second <= 0 || p.geomean_speedup <= 0) continue;
    const double gain = p.geomean_speedup / parent->second;
    r.improved += gain > 1;
    r.best_gain = std::max(r.best_gain, gain);
  }
  json::Value out{json::Array{}};
  for (const auto& [key, r] : by_text) {
    json::Value row;
    row.set("target", key.first).set("strategy", key.second);
    row.set("source", r.source).set("round", r.round);
    row.set("tried", r.tried).set("correct", r.correct);
    row.set("improved", r.improved);
    row.set("best_gain", r.best_gain > 0 ? json::Value(r.best_gain) : json::Value());
    out.push(std::move(row));
  }
  return out;
}

/// The best kernel's per-config results: medians with the 10th and 90th percentiles of the
/// timed batches, next to eager PyTorch's and torch.compile's where it was timed.
json::Value best_results(Archive& a, int64_t candidate_id) {
  json::Value rows;
  rows.array();
  for (const auto& r : got(a.results(candidate_id))) {
    json::Value row;
    row.set("config_set", r.config_set).set("index", r.config_index).set("name", r.config_name);
    row.set("correct", r.correct);
    auto detail = json::parse(r.detail_json);
    const json::Value d = detail.value ? *detail.value : json::Value();
    for (const auto& [side, prefix] : {std::pair{"candidate", "kernel"}, {"reference", "eager"}})
      for (const char* stat : {"median_ms", "p10_ms", "p90_ms"})
        if (d[side][stat].is_number())
          row.set(std::string(prefix) + "_" + (stat == std::string("median_ms") ? "ms" : stat),
                  d[side][stat]);
    if (r.speedup) row.set("speedup", *r.speedup);
    for (const char* key : {"compiled_ms", "speedup_compiled"})
      if (d[key].is_number()) row.set(key, d[key]);
    if (d["compiled_unavailable"].is_string())
      row.set("compiled_unavailable", d["compiled_unavailable"]);
    rows.push(row);
  }
  return rows;
}

}  // namespace

static std::optional<json::Value> report_document(Archive& a, int64_t experiment_id) {
  auto e = got(a.experiment(experiment_id));
  if (!e) return std::nullopt;
  json::Value out;
  out.set("experiment", experiment_id).set("name", e->name).set("status", e->status);
  // The results first: per target its best kernel, its speedup and its share of the bound.
  // Each best kernel with its per-config results and how many ancestors it has.
  if (auto view = got(experiment_view(a, experiment_id))) {
    std::map<int64_t, ConfirmationRow> confirmed;
    for (auto& c : got(a.confirmations(experiment_id))) confirmed[c.candidate_id] = std::move(c);
    json::Value targets;
    targets.array();
    for (json::Value t : (*view)["targets"].as_array()) {
      if (t.contains("best_candidate")) {
        const int64_t best = t["best_candidate"].as_int();
        // A confirmed best is shown with the times it was confirmed with; the search's are kept.
        auto c = confirmed.find(best);
        auto rows = c != confirmed.end() && c->second.correct ? json::parse(c->second.configs_json)
                                                              : json::ParseResult{};
        if (rows.value && rows.value->is_array()) {
          // The confirmation times the kernel against eager only: the config set, torch.compile's
          // time and why it is missing come from the search's row of the same config.
          const json::Value searched = best_results(a, best);
          json::Value marked{json::Array{}};
          for (json::Value row : rows.value->as_array()) {
            row.set("correct", true);
            for (const auto& s : searched.as_array()) {
              if (s["index"].as_int(-1) != row["index"].as_int(-2)) continue;
              row.set("config_set", s["config_set"]);
              for (const char* key : {"compiled_ms", "speedup_compiled", "compiled_unavailable"})
                if (!s[key].is_null()) row.set(key, s[key]);
              if (s["compiled_ms"].is_number()) row.set("compiled_timed", "search");
            }
            marked.push(std::move(row));
          }
          t.set("results", marked).set("results_timed", "confirmation");
          t.set("search_results", best_results(a, best));
        } else {
          t.set("results", best_results(a, best)).set("results_timed", "search");
        }
        const auto lineage = got(a.lineage(best));
        t.set("lineage_depth", static_cast<int64_t>(lineage.empty() ? 0 : lineage.size() - 1));
      }
      targets.push(t);
    }
    out.set("targets", targets);
  }
  out.set("strategies", strategy_records(a, experiment_id));

  double cost = 0;
  json::Value models{json::Array{}};
  for (const auto& u : got(a.llm_usage(experiment_id))) {
    json::Value m;
    m.set("name", u.model_name).set("calls", u.calls).set("failures", u.failures);
    m.set("cached", u.cached).set("input_tokens", u.input_tokens);
    m.set("output_tokens", u.output_tokens).set("cost_usd", u.cost_usd);
    models.push(std::move(m));
    cost += u.cost_usd;
  }
  out.set("models", std::move(models)).set("cost_usd", cost);
  // What stopped a proposer, for the whole experiment or for one target, and why: the planner's
  // own events, as the log showed them.
  json::Value setbacks{json::Array{}};
  for (const auto& ev :
       got(a.history(experiment_id, events::names({events::Kind::proposer_disabled,
                                                   events::Kind::proposer_set_aside,
                                                   events::Kind::proposer_unsupported})))) {
    const auto event = events::read_text(ev.kind, ev.detail_json);
    const auto* setback = event ? events::as<events::ProposerSetback>(*event) : nullptr;
    if (!setback) continue;
    json::Value row;
    row.set("proposer", setback->proposer).set("event", ev.kind);
    if (!setback->target.empty()) row.set("target", setback->target);
    row.set("reason",
            setback->failure.empty() ? setback->reason : setback->failure + ": " + setback->reason);
    setbacks.push(std::move(row));
  }
  out.set("proposer_setbacks", std::move(setbacks));

  std::map<int64_t, std::string> hardware;
  int64_t candidates = 0, correct = 0;
  for (const auto& c : got(a.candidates(experiment_id))) {
    ++candidates;
    hardware[c.id] = hardware_outcome(got(a.verdicts(c.id)));
    correct += hardware[c.id] == "correct";
  }
  out.set("candidates", candidates).set("correct", correct);
  out.set("cost_per_correct_usd",
          correct ? json::Value(cost / static_cast<double>(correct)) : json::Value());

  // Per verifier and check, and the verifiers together (a candidate is rejected when any
  // decided check rejects it, as the coordinator does).
  std::map<std::string, Matrix> per_check;
  std::map<int64_t, std::pair<bool, bool>> together;  // candidate -> (decided any, rejected)
  for (const auto& v : got(a.llm_verdicts(experiment_id))) {
    const auto& hw = hardware[v.candidate_id];
    per_check[v.verifier + "/" + v.check].add(v.decided, !v.accepted, hw);
    auto& [decided, rejected] = together[v.candidate_id];
    decided |= v.decided;
    rejected |= v.decided && !v.accepted;
  }
  Matrix all;
  for (const auto& [id, t] : together) all.add(t.first, t.second, hardware[id]);
  json::Value checks{json::Array{}};
  for (const auto& [name, m] : per_check) {
    auto row = m.to_json();
    row.set("verifier", name);
    checks.push(std::move(row));
  }
  json::Value verifiers;
  verifiers.set("checks", std::move(checks)).set("together", all.to_json());
  verifiers.set("judged_candidates", static_cast<int64_t>(together.size()));
  out.set("verifiers", std::move(verifiers));
  return out;
}

Result<std::optional<json::Value>> report_view(Archive& a, int64_t experiment_id) {
  return detail::view_of([&] { return report_document(a, experiment_id); });
}

}  // namespace kforge::archive
