#include "archive/views.hpp"

#include <map>

namespace kforge::archive {
namespace {

json::Value experiment_json(const Experiment& e) {
  json::Value v;
  v.set("id", e.id).set("name", e.name).set("seed", e.seed).set("status", e.status);
  v.set("created_at", e.created_at);
  return v;
}

json::Value candidate_json(const Candidate& c, bool with_source) {
  json::Value v;
  v.set("id", c.id).set("experiment_id", c.experiment_id).set("sequence", c.sequence);
  v.set("task", c.task).set("direction", c.direction).set("backend", c.backend);
  v.set("proposer", c.proposer).set("strategy", c.strategy);
  auto params = json::parse(c.params);
  v.set("params", params.value ? *params.value : json::Value(c.params));
  v.set("parent_id", c.parent_id ? json::Value(*c.parent_id) : json::Value());
  v.set("seed", c.seed).set("source_hash", c.source_hash).set("created_at", c.created_at);
  if (with_source) v.set("source", c.source);
  return v;
}

json::Value parsed_or_text(const std::string& text) {
  auto p = json::parse(text);
  return p.value ? *p.value : json::Value(text);
}

}  // namespace

json::Value experiments_view(Archive& a) {
  json::Value list;
  list.array();
  for (const auto& e : a.experiments()) list.push(experiment_json(e));
  return list;
}

std::optional<json::Value> experiment_view(Archive& a, int64_t experiment_id) {
  auto e = a.experiment(experiment_id);
  if (!e) return std::nullopt;
  json::Value v = experiment_json(*e);
  v.set("config", parsed_or_text(e->config_json));
  struct Tally {
    int64_t candidates = 0, finished = 0, correct = 0;
    const Progress* best = nullptr;
    std::string ended;  // why it got no more proposals, from its event
  };
  std::map<std::string, Tally> targets;
  // Targets that ended (failed to export, abandoned, exhausted) are listed with their reason,
  // also those that never had a candidate.
  for (const auto& ev :
       a.history(experiment_id, {"target_failed", "target_abandoned", "target_exhausted"})) {
    auto d = json::parse(ev.detail_json);
    if (!d.value || (*d.value)["target"].as_string().empty()) continue;
    std::string reason = (*d.value)["reason"].as_string();
    if (reason.empty()) reason = ev.kind == "target_exhausted" ? "every variant was tried" : "";
    targets[(*d.value)["target"].as_string()].ended =
        (ev.kind == "target_failed"      ? "failed: "
         : ev.kind == "target_abandoned" ? "abandoned: "
                                         : "exhausted: ") +
        reason;
  }
  auto progress = a.progress(experiment_id);
  int64_t finished = 0, correct = 0;
  for (const auto& p : progress) {
    const auto& c = p.candidate;
    auto& t = targets[c.task + "/" + c.direction + "/" + c.backend];
    ++t.candidates;
    t.finished += p.finished;
    t.correct += p.correct;
    finished += p.finished;
    correct += p.correct;
    if (p.correct && p.geomean_speedup > 0 &&
        (!t.best || p.geomean_speedup > t.best->geomean_speedup))
      t.best = &p;
  }
  v.set("candidates", static_cast<int64_t>(progress.size())).set("finished", finished);
  v.set("correct", correct);
  json::Value rows;
  rows.array();
  for (const auto& [key, t] : targets) {
    json::Value r;
    r.set("target", key).set("candidates", t.candidates).set("finished", t.finished);
    r.set("correct", t.correct);
    if (!t.ended.empty()) r.set("ended", t.ended);
    if (t.best) {
      r.set("best_candidate", t.best->candidate.id).set("best_speedup", t.best->geomean_speedup);
      r.set("best_strategy", t.best->candidate.strategy);
      r.set("best_params", parsed_or_text(t.best->candidate.params));
    }
    rows.push(r);
  }
  v.set("targets", rows);
  return v;
}

std::optional<json::Value> candidate_view(Archive& a, int64_t candidate_id) {
  auto c = a.candidate(candidate_id);
  if (!c) return std::nullopt;
  json::Value v = candidate_json(*c, true);
  json::Value verdicts;
  verdicts.array();
  for (const auto& d : a.verdicts(candidate_id)) {
    json::Value x;
    x.set("stage", d.stage).set("verdict", d.verdict).set("kind", d.kind).set("reason", d.reason);
    verdicts.push(x);
  }
  v.set("verdicts", verdicts);
  if (auto log = a.compile_log(candidate_id)) {
    json::Value x;
    x.set("ok", log->ok).set("cache_hit", log->cache_hit).set("seconds", log->seconds);
    x.set("log", log->log).set("resources", parsed_or_text(log->resources_json));
    v.set("compile", x);
  }
  json::Value results;
  results.array();
  for (const auto& r : a.results(candidate_id)) {
    json::Value x;
    x.set("config_set", r.config_set).set("index", r.config_index).set("name", r.config_name);
    x.set("correct", r.correct).set("max_abs_error", r.max_abs_error);
    x.set("max_rel_error", r.max_rel_error);
    if (r.kernel_ms) x.set("kernel_ms", *r.kernel_ms);
    if (r.eager_ms) x.set("eager_ms", *r.eager_ms);
    if (r.speedup) x.set("speedup", *r.speedup);
    x.set("detail", parsed_or_text(r.detail_json));
    results.push(x);
  }
  v.set("results", results);
  if (auto p = a.profile(candidate_id)) v.set("profile", parsed_or_text(*p));
  json::Value lineage;
  lineage.array();
  for (const auto& l : a.lineage(candidate_id)) lineage.push(l.id);
  v.set("lineage", lineage);
  return v;
}

json::Value history_view(Archive& a, int64_t experiment_id) {
  json::Value list;
  list.array();
  for (const auto& e : a.history(experiment_id)) {
    json::Value x;
    x.set("id", e.id)
        .set("time", e.time)
        .set("kind", e.kind)
        .set("detail", parsed_or_text(e.detail_json));
    list.push(x);
  }
  return list;
}

}  // namespace kforge::archive
