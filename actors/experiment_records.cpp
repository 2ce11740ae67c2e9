#include "actors/experiment_records.hpp"

#include "actors/llm_model.hpp"
#include "evaluation/hashing.hpp"
#include "search/novelty.hpp"
#include "search/random_stream.hpp"

namespace kforge {

std::string to_string(experiment_phase p) {
  switch (p) {
    case experiment_phase::starting:
      return "starting";
    case experiment_phase::running:
      return "running";
    case experiment_phase::paused:
      return "paused";
    case experiment_phase::stopping:
      return "stopping";
    case experiment_phase::finished:
      return "finished";
    case experiment_phase::stopped:
      return "stopped";
    case experiment_phase::failed:
      return "failed";
  }
  return "unknown";
}

namespace {

/// Candidate s as a prompt shows it among the best kernels.
llm::ContextKernel context_of(const experiment_view& v, int64_t s) {
  const auto& record = v.candidates.at(s);
  const auto& c = record.candidate;
  const auto& m = v.planner.population().members().at(s);
  return {.sequence = s,
          .speedup = m.speedup,
          .strategy = c.strategy,
          .source = c.source,
          .params = c.params,
          .asked = m.strategy,
          .times = record.config_times,
          .profile = record.profile_brief};
}

}  // namespace

propose_request make_propose_request(const experiment_view& v, int64_t n, size_t t,
                                     const search::Plan& plan, int32_t attempt) {
  const auto& d = plan.decision;
  const auto& members = v.planner.population().members();
  propose_request req;
  req.experiment_id = v.experiment.id;
  req.sequence = n;
  req.seed = search::derive_seed(v.spec.seed, "propose", static_cast<uint64_t>(n));
  req.tgt = v.targets.at(t).tgt;
  req.export_dir = v.targets.at(t).export_dir;
  req.mode = d.mode;
  req.tried = v.planner.population().tried(t);
  if (v.spec.novelty != "off") req.tried_sources = v.planner.population().digests(t);
  req.strategy = d.strategy;
  req.attempt = attempt;
  req.replay_key = d.reply_key;
  req.library_calls = v.spec.library_calls;
  for (const auto& p : v.spec.proposers)
    if (p.name == d.proposer) req.kernel_pattern = p.pattern;
  if (auto parent = v.candidates.find(d.parent_sequence); parent != v.candidates.end()) {
    req.has_parent = true;
    req.parent = parent->second.candidate;
    if (auto m = members.find(d.parent_sequence); m != members.end())
      req.parent_speedup = m->second.speedup;
    req.parent_profile = parent->second.profile_brief;
  }
  if (auto failed = v.candidates.find(d.fix_of); failed != v.candidates.end()) {
    req.failed = failed->second.candidate;
    if (const auto* f = v.planner.failure(d.fix_of)) {
      req.failed_stage = f->stage;
      req.failure_log = f->log;
    }
  }
  for (int64_t s : plan.context) req.context.push_back(context_of(v, s));
  return req;
}

json::Value advice_json(const profile_advice& a) {
  json::Value advice, list{json::Array{}};
  for (const auto& r : a.recommendations) list.push(r);
  advice.set("model", a.model).set("recommendations", list);
  return advice;
}

std::string advised_brief(const std::string& brief, const json::Value& advice) {
  const auto& list = advice["recommendations"].as_array();
  if (list.empty()) return brief;
  std::string out = brief + "\nRecommendations (" + advice["model"].as_string() + "):";
  for (const auto& r : list) out += "\n- " + r.as_string();
  return out;
}

meta_request make_meta_request(const experiment_view& v, int64_t n, const search::MetaRound& round,
                               const std::string& serves) {
  const size_t t = round.target;
  meta_request req;
  req.experiment_id = v.experiment.id;
  req.sequence = n;
  req.round = round.round;
  req.count = v.spec.meta_count;
  req.seed = search::derive_seed(v.spec.seed, "meta", static_cast<uint64_t>(n));
  req.tgt = v.targets.at(t).tgt;
  req.export_dir = v.targets.at(t).export_dir;
  for (int64_t s : v.planner.context(t, n)) req.best.push_back(context_of(v, s));
  const auto strategies = v.planner.strategies(t, serves);
  std::vector<std::string> texts;
  for (const auto& s : strategies) texts.push_back(s.text);
  req.records = search::strategy_records(texts, v.planner.population().visible(t, n));
  for (size_t i = 0; i < req.records.size(); ++i) req.records[i].source = strategies[i].source;
  return req;
}

Candidate make_candidate(const experiment_view& v, int64_t n, size_t t, const search::Decision& d,
                         const proposal& p, uint64_t seed) {
  Candidate c;
  c.experiment_id = v.experiment.id;
  c.sequence = n;
  const auto& tgt = v.targets.at(t).tgt;
  c.task = tgt.task;
  c.direction = tgt.direction;
  c.backend = tgt.backend;
  c.source = p.source;
  c.source_hash = evaluation::sha256_hex(c.source);
  c.parent_id = p.parent_id;
  c.proposer = p.proposer;
  c.strategy = p.strategy;
  c.params = p.params;
  c.seed = seed;
  c.decision = d.to_json().dump();
  return c;
}

search::Member make_member(const Candidate& c, size_t t, const search::Decision& d) {
  search::Member m;
  m.sequence = c.sequence;
  m.candidate_id = c.id;
  m.target = t;
  m.key = search::proposal_key(c.strategy, c.params);
  m.proposer = d.proposer;
  m.parent_sequence = d.lineage_parent();
  m.island = d.island;
  m.strategy = d.strategy;
  m.digest = search::source_digest(c.source);
  return m;
}

void experiment_counts::charge(const std::vector<LlmCall>& calls) {
  for (const auto& c : calls) {
    auto& u = usage[c.model_name];
    u.name = c.model_name;
    account(u, {c});
    cost_usd += c.cost_usd;
  }
}

experiment_status make_progress(const experiment_view* v, const experiment_record& experiment,
                                const std::string& status, const experiment_counts& counts,
                                double elapsed_seconds, const std::string& last_error) {
  experiment_status s;
  s.id = experiment.id;
  s.name = experiment.name;
  s.status = status;
  s.proposed = counts.proposed;
  s.rejected = counts.rejected;
  s.evaluated = counts.evaluated;
  s.correct = counts.correct;
  s.elapsed_seconds = elapsed_seconds;
  s.last_error = last_error;
  s.cost_usd = counts.cost_usd;
  for (const auto& [name, u] : counts.usage) s.models.push_back(u);
  if (!v) return s;  // not set up yet
  const auto& members = v->planner.population().members();
  for (const auto& [n, m] : members) s.in_flight += !m.finished;
  for (size_t t = 0; t < v->targets.size(); ++t) {
    target_best b;
    b.target_key = v->targets[t].tgt.key();
    for (const auto& [n, m] : members) {
      if (m.target != t) continue;
      ++b.candidates;
      if (!m.correct) continue;
      ++b.correct;
      if (m.speedup > b.best_speedup) {
        b.best_speedup = m.speedup;
        b.best_candidate = m.candidate_id;
        b.best_strategy = v->candidates.at(n).candidate.strategy;
      }
    }
    b.ended = v->planner.end_reason(t);
    s.targets.push_back(b);
  }
  return s;
}

}  // namespace kforge
