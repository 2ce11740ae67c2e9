#include "archive/views.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "archive/verdict_reason.hpp"
#include "archive/view_reads.hpp"
#include "common/pace.hpp"
#include "common/statistics.hpp"
#include "messages/event_details.hpp"

namespace kforge::archive {

using detail::got;
using detail::view_of;
namespace {

/// A target's end event (failed, abandoned, exhausted); nothing when its detail cannot be read.
std::optional<events::TargetEnd> target_end(const Event& ev) {
  const auto event = events::read_text(ev.kind, ev.detail_json);
  const auto* end = event ? events::as<events::TargetEnd>(*event) : nullptr;
  if (!end || end->target.empty()) return std::nullopt;
  return *end;
}

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
  v.set("parent_id", c.parent_id ? json::Value(c.parent_id) : json::Value());
  v.set("seed", c.seed).set("source_hash", c.source_hash).set("created_at", c.created_at);
  if (with_source) v.set("source", c.source);
  return v;
}

json::Value parsed_or_text(const std::string& text) {
  auto p = json::parse(text);
  return p.value ? *p.value : json::Value(text);
}

/// The candidate's fraction of its speed-of-light bound, from its archived results.
double speed_of_light_of(Archive& a, int64_t candidate_id) {
  std::vector<BoundedTime> times;
  for (const auto& r : got(a.results(candidate_id))) {
    auto d = json::parse(r.detail_json);
    if (!d.value) continue;
    times.push_back(
        {(*d.value)["bytes_moved"].as_number(0), copy_bound_ms(*d.value), r.kernel_ms.value_or(0)});
  }
  return speed_of_light_fraction(times);
}

/// A kernel's function name without namespaces, template arguments or parameters:
/// "at::native::elementwise_kernel<128, 2, ...>" and "cfg0::k0" become "elementwise_kernel" and
/// "k0", as the compiler's report names the candidate's own ("k0").
std::string function_name(const std::string& name) {
  size_t end = name.size(), start = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<' || name[i] == '(') {
      end = i;
      break;
    }
    if (name[i] == ':' && i + 1 < name.size() && name[i + 1] == ':') start = i + 2;
  }
  std::string out = name.substr(start, end - start);
  if (out.rfind("void ", 0) == 0) out.erase(0, 5);
  return out;
}

/// Whether the kernel the counters name is one the candidate's source defines (its compile log's
/// kernels, from ptxas), rather than a library's (cuBLAS, cuDNN, ATen) that it calls. A compile
/// whose list is empty defined no kernel of its own (a generated library kernel that is one ATen
/// call: KernelBench's depthwise convolutions); true where there is no list (no compile log, or
/// one archived before the lists were kept), as nothing says otherwise. The counters cut long
/// names with "..." (evaluation/kernel_names.hpp): such a name matches a kernel it begins.
bool own_kernel(Archive& a, int64_t candidate_id, const std::string& name) {
  const auto log = got(a.compile_log(candidate_id));
  if (!log) return true;
  const auto resources = json::parse(log->resources_json);
  if (!resources.value || !resources.value->is_array()) return true;
  std::string wanted = function_name(name);
  const bool cut = wanted.size() > 3 && wanted.compare(wanted.size() - 3, 3, "...") == 0;
  if (cut) wanted.resize(wanted.size() - 3);
  for (const auto& k : resources.value->as_array()) {
    const std::string own = function_name(k["name"].as_string());
    if (cut ? own.rfind(wanted, 0) == 0 : own == wanted) return true;
  }
  return false;
}

/// What the hardware counters say of the candidate's longest kernel (its profile's counters, read
/// on one config; evaluation/counter_summary.hpp): {"config", "kernel", "own", "dram_pct",
/// "bound", "limiter", "limiter_pct"} (common/pace.hpp's limiter_of and that unit's share of its
/// peak; absent where the counters lack them), `own` false where that kernel is a library's the
/// candidate calls (a cuDNN convolution), or nothing where it has no counters (the CPU backend, or
/// a GPU without them).
std::optional<json::Value> counters_of(Archive& a, int64_t candidate_id) {
  auto text = a.profile_counters(candidate_id);
  if (!text || !*text) return std::nullopt;
  auto doc = json::parse(**text);
  if (!doc.value) return std::nullopt;
  const auto& counters = *doc.value;
  const auto& top = counters["candidate"]["top"];
  if (top.as_array().empty() || !top[0].contains("dram_pct")) return std::nullopt;
  json::Value out;
  out.set("config", counters["config"].as_string());
  out.set("kernel", top[0]["name"].as_string());
  out.set("own", own_kernel(a, candidate_id, top[0]["name"].as_string()));
  out.set("dram_pct", top[0]["dram_pct"].as_number());
  out.set("bound", top[0]["roofline"]["bound"].as_string());
  if (const auto limiter = limiter_of(top[0])) {
    out.set("limiter", *limiter);
    out.set("limiter_pct", top[0][*limiter + "_pct"].as_number());
  }
  return out;
}

}  // namespace

static json::Value experiments_document(Archive& a) {
  json::Value list;
  list.array();
  for (const auto& e : got(a.experiments())) list.push(experiment_json(e));
  return list;
}

static std::optional<json::Value> experiment_document(Archive& a, int64_t experiment_id) {
  auto e = got(a.experiment(experiment_id));
  if (!e) return std::nullopt;
  json::Value v = experiment_json(*e);
  v.set("config", parsed_or_text(e->config_json));
  // Whether the best kernels are timed again once the search is over: not in a suite (given
  // kernels, each evaluated once) nor with evaluation.confirm_top 0.
  const json::Value& config = v["config"];
  const bool confirms = config["proposers"][0]["kind"].as_string() != "files" &&
                        config["evaluation"]["confirm_top"].as_int(2) > 0;
  struct Tally {
    int64_t candidates = 0, finished = 0, correct = 0;
    const Progress* best = nullptr;
    int64_t best_after = 0;                 // the target's candidates up to and including its best
    std::string ended;                      // why it got no more proposals, from its event
    std::vector<const Progress*> in_order;  // its candidates in sequence order
  };
  std::map<std::string, Tally> targets;
  // Targets that ended (failed to export, abandoned, exhausted) are listed with their reason,
  // also those that never had a candidate.
  for (const auto& ev :
       got(a.history(experiment_id,
                     events::names({events::Kind::target_failed, events::Kind::target_abandoned,
                                    events::Kind::target_exhausted})))) {
    const auto end = target_end(ev);
    if (!end) continue;
    const auto kind = events::kind_named(ev.kind);
    std::string reason = end->reason;
    if (reason.empty() && kind == events::Kind::target_exhausted)
      reason = "every variant was tried";
    targets[end->target].ended = (kind == events::Kind::target_failed      ? "failed: "
                                  : kind == events::Kind::target_abandoned ? "abandoned: "
                                                                           : "exhausted: ") +
                                 reason;
  }
  auto progress = got(a.progress(experiment_id));
  int64_t finished = 0, correct = 0;
  for (const auto& p : progress) {
    const auto& c = p.candidate;
    auto& t = targets[c.task + "/" + c.direction + "/" + c.backend];
    ++t.candidates;
    t.in_order.push_back(&p);
    t.finished += p.finished;
    t.correct += p.correct;
    finished += p.finished;
    correct += p.correct;
    if (p.correct && p.geomean_speedup > 0 &&
        (!t.best || p.geomean_speedup > t.best->geomean_speedup)) {
      t.best = &p;
      t.best_after = t.candidates;  // progress is in sequence order
    }
  }
  v.set("candidates", static_cast<int64_t>(progress.size())).set("finished", finished);
  v.set("correct", correct);
  std::map<int64_t, ConfirmationRow> confirmed;
  for (auto& c : got(a.confirmations(experiment_id))) confirmed[c.candidate_id] = std::move(c);
  json::Value rows;
  rows.array();
  for (const auto& [key, t] : targets) {
    json::Value r;
    r.set("target", key).set("candidates", t.candidates).set("finished", t.finished);
    r.set("correct", t.correct);
    if (!t.ended.empty()) r.set("ended", t.ended);
    // Once the search is over its best few are timed again; the best of those times is the
    // target's best ("confirmed"), the search's largest draw is kept beside it.
    const Progress* best = t.best;
    int64_t best_after = t.best_after;
    const ConfirmationRow* best_confirmation = nullptr;
    json::Value confirmations{json::Array{}};
    for (size_t i = 0; i < t.in_order.size(); ++i) {
      auto it = confirmed.find(t.in_order[i]->candidate.id);
      if (it == confirmed.end()) continue;
      const auto& c = it->second;
      json::Value x;
      x.set("candidate", c.candidate_id).set("speedup_searched", t.in_order[i]->geomean_speedup);
      x.set("confirmed", c.correct);
      if (c.correct)
        x.set("speedup", c.speedup)
            .set("speedup_p10", c.speedup_low)
            .set("speedup_p90", c.speedup_high);
      else
        x.set("reason", c.reason);
      confirmations.push(std::move(x));
      if (c.correct && (!best_confirmation || c.speedup > best_confirmation->speedup)) {
        best_confirmation = &c;
        best = t.in_order[i];
        best_after = static_cast<int64_t>(i) + 1;
      }
    }
    if (best) {
      r.set("best_candidate", best->candidate.id);
      r.set("best_confirmed", best_confirmation != nullptr);
      // How the reported speedup was timed: "confirmed" (again, after the search), "search" (the
      // search's draw; it may still be confirmed, or the experiment stopped first) or "once" (an
      // experiment that confirms nothing).
      r.set("best_timed", best_confirmation ? "confirmed" : confirms ? "search" : "once");
      r.set("best_speedup", best_confirmation ? best_confirmation->speedup : best->geomean_speedup);
      if (best_confirmation) {
        r.set("best_speedup_p10", best_confirmation->speedup_low);
        r.set("best_speedup_p90", best_confirmation->speedup_high);
        r.set("best_speedup_searched", best->geomean_speedup);
        if (t.best && t.best != best)
          r.set("search_best_candidate", t.best->candidate.id)
              .set("search_best_speedup", t.best->geomean_speedup);
      }
      r.set("best_after", best_after);
      if (const double f = speed_of_light_of(a, best->candidate.id); f > 0)
        r.set("best_speed_of_light", f);
      if (auto counted = counters_of(a, best->candidate.id)) r.set("best_counters", *counted);
      r.set("best_strategy", best->candidate.strategy);
      r.set("best_params", parsed_or_text(best->candidate.params));
    }
    if (!confirmations.as_array().empty()) r.set("confirmations", confirmations);
    rows.push(r);
  }
  v.set("targets", rows);
  return v;
}

namespace {

/// Where a candidate stands in its target: its speedup in the search, its confirmation (timed
/// again after the search) and whether it is the target's best, with the target's best speedup
/// as the experiment's tables report it.
json::Value standing_of(Archive& a, const Candidate& c) {
  json::Value out;
  for (const auto& p : got(a.progress(c.experiment_id)))
    if (p.candidate.id == c.id && p.correct && p.geomean_speedup > 0)
      out.set("speedup_searched", p.geomean_speedup);
  auto view = experiment_document(a, c.experiment_id);
  if (!view) return out;
  for (const auto& t : (*view)["targets"].as_array()) {
    if (t["target"].as_string() != target_key(c)) continue;
    for (const auto& x : t["confirmations"].as_array())
      if (x["candidate"].as_int() == c.id) out.set("confirmation", x);
    if (!t.contains("best_candidate")) break;
    out.set("is_best", t["best_candidate"].as_int() == c.id);
    for (const char* key :
         {"best_candidate", "best_speedup", "best_speedup_p10", "best_speedup_p90", "best_timed"})
      if (t.contains(key)) out.set(key, t[key]);
  }
  return out;
}

}  // namespace

static std::optional<json::Value> candidate_document(Archive& a, int64_t candidate_id) {
  auto c = got(a.candidate(candidate_id));
  if (!c) return std::nullopt;
  json::Value v = candidate_json(*c, true);
  json::Value verdicts;
  verdicts.array();
  for (const auto& d : got(a.verdicts(candidate_id))) {
    json::Value x;
    x.set("stage", d.stage).set("verdict", d.verdict).set("kind", d.kind).set("reason", d.reason);
    verdicts.push(x);
  }
  v.set("verdicts", verdicts);
  if (auto log = got(a.compile_log(candidate_id))) {
    json::Value x;
    x.set("ok", log->ok).set("cache_hit", log->cache_hit).set("seconds", log->seconds);
    x.set("log", log->log).set("resources", parsed_or_text(log->resources_json));
    if (!log->headers.empty()) x.set("headers", log->headers);
    if (!log->light_error.empty()) x.set("light_error", log->light_error);
    v.set("compile", x);
  }
  json::Value results;
  results.array();
  for (const auto& r : got(a.results(candidate_id))) {
    json::Value x;
    x.set("config_set", r.config_set).set("index", r.config_index).set("name", r.config_name);
    x.set("correct", r.correct).set("max_abs_error", r.max_abs_error);
    x.set("max_rel_error", r.max_rel_error);
    if (r.kernel_ms) x.set("kernel_ms", *r.kernel_ms);
    if (r.eager_ms) x.set("eager_ms", *r.eager_ms);
    if (r.speedup) x.set("speedup", *r.speedup);
    // The torch.compile baseline, from the worker's record of the config.
    auto detail = json::parse(r.detail_json);
    if (detail.value) {
      for (const char* key : {"compiled_ms", "speedup_compiled"})
        if ((*detail.value)[key].is_number()) x.set(key, (*detail.value)[key]);
      if ((*detail.value)["compiled_unavailable"].is_string())
        x.set("compiled_unavailable", (*detail.value)["compiled_unavailable"]);
    }
    x.set("detail", parsed_or_text(r.detail_json));
    results.push(x);
  }
  v.set("results", results);
  if (auto p = got(a.profile(candidate_id))) v.set("profile", parsed_or_text(*p));
  json::Value lineage;
  lineage.array();
  for (const auto& l : got(a.lineage(candidate_id))) lineage.push(l.id);
  v.set("lineage", lineage);
  v.set("standing", standing_of(a, *c));
  return v;
}

static json::Value history_document(Archive& a, int64_t experiment_id) {
  json::Value list;
  list.array();
  for (const auto& e : got(a.history(experiment_id))) {
    json::Value x;
    x.set("id", e.id)
        .set("time", e.time)
        .set("kind", e.kind)
        .set("detail", parsed_or_text(e.detail_json));
    list.push(x);
  }
  return list;
}

static std::optional<json::Value> candidates_document(Archive& a, int64_t experiment_id) {
  if (!got(a.experiment(experiment_id))) return std::nullopt;
  json::Value list;
  list.array();
  for (const auto& p : got(a.progress(experiment_id))) {
    const auto& c = p.candidate;
    json::Value x;
    x.set("id", c.id).set("sequence", c.sequence);
    x.set("parent_id", c.parent_id ? json::Value(c.parent_id) : json::Value());
    x.set("target", c.task + "/" + c.direction + "/" + c.backend);
    x.set("proposer", c.proposer).set("strategy", c.strategy).set("created_at", c.created_at);
    x.set("outcome", !p.finished   ? "in pipeline"
                     : p.correct   ? "correct"
                     : !p.verified ? "rejected"
                     : !p.compiled ? "compile failed"
                                   : "incorrect");
    if (p.correct && p.geomean_speedup > 0) x.set("speedup", p.geomean_speedup);
    list.push(std::move(x));
  }
  return list;
}

namespace {

json::Value optional_number(const std::optional<double>& v) {
  return v ? json::Value(*v) : json::Value();
}

/// One suite row for a candidate: its verdicts and per-config results condensed.
json::Value suite_row(Archive& a, const Progress& p) {
  const auto& c = p.candidate;
  json::Value r;
  r.set("task", c.task).set("direction", c.direction).set("backend", c.backend);
  auto params = json::parse(c.params);
  r.set("kernel", params.value ? (*params.value)["path"].as_string() : std::string());
  r.set("candidate", c.id);
  std::string status = p.finished ? "" : "pending", reason;
  json::Value flags{json::Array{}};
  for (const auto& v : got(a.verdicts(c.id))) {
    if (v.verdict == "accepted" && !v.kind.empty())
      flags.push(v.kind + (v.reason.empty() ? "" : ": " + v.reason));
    if (v.verdict != "accepted") {
      status = v.verdict == "correct" ? "correct" : (v.kind.empty() ? v.verdict : v.kind);
      reason = v.verdict == "correct" ? "" : v.reason;
    }
    // A correct kernel's flags from the worker (library calls at run time) are its verdict's
    // reason.
    if (v.verdict == "correct")
      for (const auto& f : flags_of_reason(v.reason)) flags.push(f);
  }
  int64_t total = 0, correct = 0;
  std::vector<double> eager_speedups, compiled_speedups;
  std::optional<double> largest_eager, largest_kernel;
  std::vector<BoundedTime> bounded;
  std::string compiled_note;
  for (const auto& res : got(a.results(c.id))) {
    ++total;
    correct += res.correct;
    if (res.speedup) eager_speedups.push_back(*res.speedup);
    auto detail = json::parse(res.detail_json);
    if (detail.value) {
      const auto& d = *detail.value;
      bounded.push_back(
          {d["bytes_moved"].as_number(0), copy_bound_ms(d), res.kernel_ms.value_or(0)});
      if (d["speedup_compiled"].is_number() && d["speedup_compiled"].as_number() > 0)
        compiled_speedups.push_back(d["speedup_compiled"].as_number());
      else if (compiled_note.empty() && d["compiled_unavailable"].is_string())
        compiled_note = d["compiled_unavailable"].as_string();
    }
    if (res.eager_ms && (!largest_eager || *res.eager_ms > *largest_eager)) {
      largest_eager = res.eager_ms;
      largest_kernel = res.kernel_ms;
    }
  }
  const bool all_correct = total > 0 && correct == total;
  r.set("status", status).set("configs_correct", correct).set("configs_total", total);
  r.set("speedup_eager",
        optional_number(all_correct ? geometric_mean(eager_speedups) : std::nullopt));
  const bool compiled = all_correct && compiled_speedups.size() == static_cast<size_t>(total);
  r.set("speedup_compile",
        optional_number(compiled ? geometric_mean(compiled_speedups) : std::nullopt));
  if (all_correct && !compiled)
    r.set("compile_baseline",
          compiled_note.empty() ? "the torch.compile baseline was not asked for (compiled_baseline "
                                  "off)"
                                : compiled_note);
  r.set("kernel_ms_largest_config", optional_number(all_correct ? largest_kernel : std::nullopt));
  // Its bound over its time on the config that moves the most bytes (the bound: those bytes at
  // the measured copy bandwidth): near 1 for a memory-bound kernel that streams at the peak.
  const double bound = all_correct ? speed_of_light_fraction(bounded) : 0;
  r.set("speed_of_light", bound > 0 ? json::Value(bound) : json::Value());
  // What the hardware counters say of its longest kernel (a GPU's correct kernel), else nothing.
  const auto counted = all_correct ? counters_of(a, c.id) : std::nullopt;
  r.set("dram_pct", counted ? (*counted)["dram_pct"] : json::Value());
  r.set("bound", counted ? (*counted)["bound"] : json::Value());
  r.set("longest_kernel", counted ? (*counted)["kernel"] : json::Value());
  r.set("longest_kernel_own", counted ? (*counted)["own"] : json::Value());
  r.set("limiter", counted ? (*counted)["limiter"] : json::Value());
  r.set("limiter_pct", counted ? (*counted)["limiter_pct"] : json::Value());
  r.set("flags", flags).set("reason", reason);
  return r;
}

}  // namespace

static std::optional<json::Value> suite_document(Archive& a, int64_t experiment_id) {
  auto e = got(a.experiment(experiment_id));
  if (!e) return std::nullopt;
  json::Value v = experiment_json(*e);
  std::map<std::string, std::string> ended;  // target key -> why it ended
  for (const auto& ev : got(a.history(
           experiment_id,
           events::names({events::Kind::target_failed, events::Kind::target_abandoned})))) {
    if (const auto end = target_end(ev)) ended[end->target] = end->reason;
  }
  json::Value rows{json::Array{}};
  std::set<std::string> with_candidates;
  for (const auto& p : got(a.progress(experiment_id))) {
    with_candidates.insert(p.candidate.task + "/" + p.candidate.direction + "/" +
                           p.candidate.backend);
    rows.push(suite_row(a, p));
  }
  for (const auto& [key, why] : ended) {
    if (with_candidates.count(key)) continue;
    const auto first = key.find('/'), second = key.find('/', first + 1);
    json::Value r;
    r.set("task", key.substr(0, first)).set("direction", key.substr(first + 1, second - first - 1));
    r.set("backend", key.substr(second + 1)).set("kernel", "").set("candidate", json::Value());
    r.set("status", "no_kernel").set("configs_correct", int64_t{0});
    r.set("configs_total", int64_t{0}).set("speedup_eager", json::Value());
    r.set("speedup_compile", json::Value()).set("kernel_ms_largest_config", json::Value());
    r.set("speed_of_light", json::Value())
        .set("dram_pct", json::Value())
        .set("bound", json::Value())
        .set("longest_kernel", json::Value())
        .set("longest_kernel_own", json::Value())
        .set("limiter", json::Value())
        .set("limiter_pct", json::Value());
    r.set("flags", json::Value{json::Array{}}).set("reason", why);
    rows.push(r);
  }
  auto& list = rows.array();
  std::stable_sort(list.begin(), list.end(), [](const json::Value& a, const json::Value& b) {
    auto key = [](const json::Value& r) {
      return std::make_tuple(r["task"].as_string(), r["direction"].as_string(),
                             r["backend"].as_string(), r["kernel"].as_string());
    };
    return key(a) < key(b);
  });
  v.set("rows", rows);
  return v;
}

Result<json::Value> experiments_view(Archive& a) {
  return view_of([&] { return experiments_document(a); });
}

Result<std::optional<json::Value>> experiment_view(Archive& a, int64_t experiment_id) {
  return view_of([&] { return experiment_document(a, experiment_id); });
}

Result<std::optional<json::Value>> candidate_view(Archive& a, int64_t candidate_id) {
  return view_of([&] { return candidate_document(a, candidate_id); });
}

Result<json::Value> history_view(Archive& a, int64_t experiment_id) {
  return view_of([&] { return history_document(a, experiment_id); });
}

Result<std::optional<json::Value>> candidates_view(Archive& a, int64_t experiment_id) {
  return view_of([&] { return candidates_document(a, experiment_id); });
}

Result<std::optional<json::Value>> suite_view(Archive& a, int64_t experiment_id) {
  return view_of([&] { return suite_document(a, experiment_id); });
}

}  // namespace kforge::archive
