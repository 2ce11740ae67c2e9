#include "actors/coordinator.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "actors/archive_actor.hpp"
#include "actors/evaluator.hpp"
#include "actors/llm_model.hpp"
#include "common/statistics.hpp"
#include "gpu/hashing.hpp"
#include "messages/errors.hpp"
#include "search/ensemble.hpp"
#include "search/random_stream.hpp"
#include "search/strategies.hpp"

namespace kforge {
namespace {

using self_ptr = coordinator_actor::stateful_pointer<coordinator_state>;
using namespace std::chrono_literals;

constexpr auto kArchiveTimeout = 2min;
constexpr auto kProposalTimeout = 15min;
constexpr int kProposerFailuresBeforeAbandoning = 8;

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string task_name(const std::string& dir) {
  auto p = std::filesystem::path(dir);
  if (p.filename().empty()) p = p.parent_path();
  return p.filename().string();
}

void pump(self_ptr self);
void check_done(self_ptr self);
void verify(self_ptr self, int64_t n);
void llm_verify(self_ptr self, int64_t n);
void fail(self_ptr self, const std::string& why);
void charge(self_ptr self, int64_t n, const std::vector<llm_call>& calls);
void compile(self_ptr self, int64_t n, bool record);
void profile(self_ptr self, int64_t n, eval_result result);
void end_target(self_ptr self, size_t t, const std::string& kind, const std::string& reason);

/// Archives the event, then passes it to the listener: nothing is reported before it is kept.
void emit(self_ptr self, const std::string& kind, json::Value detail) {
  auto& st = self->state;
  event_record ev{0, st.cfg.experiment.id, now_seconds(), kind, detail.dump()};
  self->request(st.stages.archive, kArchiveTimeout, record_atom::value, ev)
      .then(
          [self, ev](int64_t id) mutable {
            ev.id = id;
            if (self->state.cfg.listener)
              caf::anon_send(self->state.cfg.listener, event_atom::value, std::move(ev));
          },
          [self](caf::error& e) { self->state.last_error = "archiving an event: " + describe(e); });
}

experiment_status progress(self_ptr self) {
  auto& st = self->state;
  experiment_status s;
  s.id = st.cfg.experiment.id;
  s.name = st.cfg.experiment.name;
  s.status = st.status;
  s.proposed = st.proposed;
  s.rejected = st.rejected;
  s.evaluated = st.evaluated;
  s.correct = st.correct;
  for (const auto& [n, m] : st.population.members()) s.in_flight += !m.finished;
  s.elapsed_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - st.start).count();
  for (size_t t = 0; t < st.targets.size(); ++t) {
    target_best b;
    b.target_key = st.targets[t].key();
    for (const auto& [n, m] : st.population.members()) {
      if (m.target != t) continue;
      ++b.candidates;
      if (!m.correct) continue;
      ++b.correct;
      if (m.speedup > b.best_speedup) {
        b.best_speedup = m.speedup;
        b.best_candidate = m.candidate_id;
        b.best_strategy = st.candidates[n].strategy;
      }
    }
    if (t < st.ended.size()) b.ended = st.ended[t];
    s.targets.push_back(b);
  }
  s.last_error = st.last_error;
  s.cost_usd = st.cost_usd;
  for (const auto& [name, u] : st.usage) s.models.push_back(u);
  return s;
}

/// Ends the experiment with a final status: the status and its event are archived before the
/// listener hears of it.
void conclude(self_ptr self, const std::string& status) {
  auto& st = self->state;
  if (st.concluding) return;  // a second failure while the first is being recorded
  st.concluding = true;
  st.status = status;
  json::Value d;
  d.set("status", status).set("proposed", st.proposed).set("correct", st.correct);
  if (!st.last_error.empty()) d.set("error", st.last_error);
  auto tell_and_quit = [self] {
    if (self->state.cfg.listener)
      caf::anon_send(self->state.cfg.listener, done_atom::value, progress(self));
    for (auto* models : {&self->state.llm_proposers, &self->state.llm_verifiers})
      for (auto& [name, model] : *models) self->send_exit(model, caf::exit_reason::user_shutdown);
    self->quit();
  };
  auto archive = st.stages.archive;
  event_record ev{0, st.cfg.experiment.id, now_seconds(), "experiment_" + status, d.dump()};
  self->request(archive, kArchiveTimeout, update_atom::value, st.cfg.experiment.id, status)
      .then(
          [self, archive, ev, tell_and_quit]() mutable {
            self->request(archive, kArchiveTimeout, record_atom::value, ev)
                .then(
                    [self, ev, tell_and_quit](int64_t id) mutable {
                      ev.id = id;
                      if (self->state.cfg.listener)
                        caf::anon_send(self->state.cfg.listener, event_atom::value, ev);
                      tell_and_quit();
                    },
                    [self, tell_and_quit](caf::error& e) {
                      self->state.last_error = describe(e);
                      tell_and_quit();
                    });
          },
          [self, tell_and_quit](caf::error& e) {
            self->state.last_error = describe(e);
            tell_and_quit();
          });
}

void fail(self_ptr self, const std::string& why) {
  if (self->state.status == "failed") return;
  self->state.last_error = why;
  conclude(self, "failed");
}

/// Runs `work` now, or when the experiment is resumed if it is paused.
void when_running(self_ptr self, std::function<void()> work) {
  if (self->state.status == "paused")
    self->state.held.push_back(std::move(work));
  else
    work();
}

void finish(self_ptr self, int64_t n, bool correct, double speedup) {
  self->state.population.finish(n, correct, speedup);
  pump(self);
  check_done(self);
}

/// A stage could not judge the candidate (the stage itself failed): a final "error" verdict.
void stage_error(self_ptr self, int64_t n, const std::string& stage, const caf::error& e) {
  auto& st = self->state;
  st.last_error = stage + " of candidate " + std::to_string(n) + ": " + describe(e);
  verdict v{stage, false, "stage_error", st.last_error, {}};
  int64_t id = st.candidates[n].id;
  self->request(st.stages.archive, kArchiveTimeout, record_atom::value, id, v)
      .then(
          [self, n, v] {
            json::Value d;
            d.set("sequence", n).set("candidate", self->state.candidates[n].id);
            d.set("stage", v.stage).set("reason", v.reason);
            emit(self, "stage_error", d);
            ++self->state.rejected;
            finish(self, n, false, 0);
          },
          [self](caf::error& e) { fail(self, "archive: " + describe(e)); });
}

void profile(self_ptr self, int64_t n, eval_result result) {
  auto& st = self->state;
  ++st.pending_profiles;
  const auto& c = st.candidates[n];
  profile_request req{c.id, c.tgt.backend, st.compile_logs[n], std::move(result)};
  self->request(st.stages.profiler, kArchiveTimeout, profile_atom::value, req)
      .then(
          [self, n](profile_summary& p) {
            self->request(self->state.stages.archive, kArchiveTimeout, record_atom::value, p)
                .then(
                    [self, n, brief = p.brief] {
                      --self->state.pending_profiles;
                      self->state.profile_briefs[n] = brief;
                      self->state.compile_logs.erase(n);
                      json::Value d;
                      d.set("sequence", n).set("candidate", self->state.candidates[n].id);
                      d.set("profile", brief);
                      emit(self, "profiled", d);
                      check_done(self);
                    },
                    [self](caf::error& e) { fail(self, "archive: " + describe(e)); });
          },
          [self](caf::error& e) {
            --self->state.pending_profiles;
            self->state.last_error = "profiler: " + describe(e);
            check_done(self);
          });
}

/// A resumed candidate whose profile was lost: compile log and results come from the archive.
void reprofile(self_ptr self, int64_t n) {
  auto& st = self->state;
  query_request q{"candidate", st.candidates[n].id};
  self->request(st.stages.archive, kArchiveTimeout, query_atom::value, q)
      .then(
          [self, n](std::string& text) {
            auto& st = self->state;
            --st.pending_profiles;
            auto doc = json::parse(text);
            if (!doc.value) return check_done(self);
            eval_result r;
            r.candidate_id = st.candidates[n].id;
            r.verdict = "correct";
            for (const auto& row : (*doc.value)["results"].as_array()) {
              config_outcome c;
              c.index = static_cast<int32_t>(row["index"].as_int());
              c.name = row["name"].as_string();
              c.correct = row["correct"].as_bool();
              c.detail_json = row["detail"].dump();
              r.configs.push_back(std::move(c));
            }
            st.compile_logs[n] = (*doc.value)["compile"]["log"].as_string();
            profile(self, n, std::move(r));
          },
          [self](caf::error& e) {
            --self->state.pending_profiles;
            self->state.last_error = "reading a candidate back: " + describe(e);
            check_done(self);
          });
}

void evaluate(self_ptr self, int64_t n, compile_result compiled) {
  auto& st = self->state;
  const auto& c = st.candidates[n];
  auto it = st.stages.evaluators.find(evaluator_key(c.tgt.backend, c.tgt.device));
  eval_request req;
  req.candidate_id = c.id;
  req.tgt = c.tgt;
  req.export_dir = st.export_dirs[st.population.members().at(n).target];
  std::tie(req.compiled_dir, req.compiled_unavailable) =
      st.baselines[st.population.members().at(n).target];
  req.library_path = compiled.library_path;
  req.library_policy = st.cfg.spec.library_calls;
  req.seeds = st.cfg.spec.seeds;
  req.seed = st.cfg.spec.seed;
  req.timing_seconds = st.cfg.spec.timing_seconds;
  // A suite (given kernel files) reports configs correct of all; a search needs the verdict only.
  req.stop_on_failure =
      st.cfg.spec.proposers.empty() || st.cfg.spec.proposers.front().kind != "files";
  st.compile_logs[n] = compiled.log;
  self->request(it->second, caf::infinite, evaluate_atom::value, req)
      .then(
          [self, n](eval_result& r) {
            self->request(self->state.stages.archive, kArchiveTimeout, record_atom::value, r)
                .then(
                    [self, n, r] {
                      auto& st = self->state;
                      const bool ok = r.verdict == "correct";
                      const double speedup = ok ? geomean_speedup(r) : 0;
                      double best_before = 0;
                      const size_t t = st.population.members().at(n).target;
                      for (const auto& [s, m] : st.population.members())
                        if (m.target == t && m.correct)
                          best_before = std::max(best_before, m.speedup);
                      ++st.evaluated;
                      st.correct += ok;
                      if (r.verdict == "error") st.last_error = r.failure_message;
                      json::Value d;
                      d.set("sequence", n).set("candidate", st.candidates[n].id);
                      d.set("target", st.targets[t].key()).set("verdict", r.verdict);
                      d.set("strategy", st.candidates[n].strategy);
                      if (ok) d.set("speedup", speedup);
                      if (const double c = ok ? geomean_speedup(r, true) : 0; c > 0)
                        d.set("speedup_compiled", c);
                      if (!ok) d.set("kind", r.failure_kind).set("reason", r.failure_message);
                      d.set("seconds", r.seconds);
                      emit(self, "evaluated", d);
                      if (ok && speedup > best_before) {
                        json::Value b;
                        b.set("target", st.targets[t].key()).set("candidate", st.candidates[n].id);
                        b.set("speedup", speedup).set("strategy", st.candidates[n].strategy);
                        emit(self, "new_best", b);
                      }
                      if (ok) {
                        profile(self, n, r);
                      } else {
                        st.compile_logs.erase(n);
                        st.failures[n] = {"evaluate",
                                          failure_text(r.failure_kind, evaluation_reason(r))};
                      }
                      finish(self, n, ok, speedup);
                    },
                    [self](caf::error& e) { fail(self, "archive: " + describe(e)); });
          },
          [self, n](caf::error& e) { stage_error(self, n, "evaluate", e); });
}

/// `record`: archive the compile outcome (false when a resumed candidate was compiled before).
void compile(self_ptr self, int64_t n, bool record) {
  auto& st = self->state;
  const auto& c = st.candidates[n];
  compile_request req;
  req.candidate_id = c.id;
  req.source = c.source;
  req.backend = c.tgt.backend;
  req.cuda_arch = st.cuda_arch[evaluator_key(c.tgt.backend, c.tgt.device)];
  req.source_name = "candidate " + std::to_string(c.id) + " (" + c.strategy + ")";
  req.headers = st.cfg.spec.headers;
  self->request(st.stages.compiler, caf::infinite, compile_atom::value, req)
      .then(
          [self, n, record](compile_result& r) {
            auto next = [self, n, r] {
              auto& st = self->state;
              const size_t t = st.population.members().at(n).target;
              if (!r.ok) {
                ++st.rejected;
                json::Value d;
                d.set("sequence", n).set("candidate", st.candidates[n].id);
                d.set("reason", r.error);
                emit(self, "compile_failed", d);
                st.failures[n] = {"compile", r.log.empty() ? r.error : r.log};
                const int limit = st.cfg.spec.abandon_after_compile_failures;
                if (limit > 0 && ++st.compile_failures[t] >= limit)
                  end_target(self, t, "target_abandoned",
                             std::to_string(st.compile_failures[t]) +
                                 " candidates in a row failed to compile; the last: " + r.error);
                finish(self, n, false, 0);
              } else {
                st.compile_failures[t] = 0;
                when_running(self, [self, n, r] { evaluate(self, n, r); });
              }
            };
            if (!record) return next();
            self->request(self->state.stages.archive, kArchiveTimeout, record_atom::value, r)
                .then(next, [self](caf::error& e) { fail(self, "archive: " + describe(e)); });
          },
          [self, n](caf::error& e) { stage_error(self, n, "compile", e); });
}

void verify(self_ptr self, int64_t n) {
  auto& st = self->state;
  const auto& c = st.candidates[n];
  verify_request req{c, st.export_dirs[st.population.members().at(n).target],
                     st.cfg.spec.library_calls, st.cfg.spec.max_source_bytes};
  self->request(st.stages.verifier, kProposalTimeout, verify_atom::value, req)
      .then(
          [self, n](verdict& v) {
            self->request(self->state.stages.archive, kArchiveTimeout, record_atom::value,
                          self->state.candidates[n].id, v)
                .then(
                    [self, n, v] {
                      if (!v.accepted) {
                        ++self->state.rejected;
                        json::Value d;
                        d.set("sequence", n).set("candidate", self->state.candidates[n].id);
                        d.set("kind", v.kind).set("reason", v.reason);
                        emit(self, "rejected", d);
                        finish(self, n, false, 0);
                        return;
                      }
                      if (!self->state.llm_verifiers.empty())
                        return when_running(self, [self, n] { llm_verify(self, n); });
                      when_running(self, [self, n] { compile(self, n, true); });
                    },
                    [self](caf::error& e) { fail(self, "archive: " + describe(e)); });
          },
          [self, n](caf::error& e) { stage_error(self, n, "verify", e); });
}

/// The LLM verifiers' turn, after the static rules: every verifier judges every configured
/// check. The candidate goes on to the hardware if none rejects it, or as an audit (a seeded
/// share of the rejected ones) so that the verifiers' precision and recall are measured.
void llm_verify(self_ptr self, int64_t n) {
  auto& st = self->state;
  const auto& c = st.candidates[n];
  const size_t t = st.population.members().at(n).target;
  llm_verify_request req{c, st.export_dirs[t], st.targets[t].config_set,
                         st.cfg.spec.verifier_checks,
                         search::derive_seed(st.cfg.spec.seed, "verify", static_cast<uint64_t>(n))};
  auto verdicts = std::make_shared<std::vector<llm_verdict>>();
  auto pending = std::make_shared<size_t>(st.llm_verifiers.size());
  auto all_in = [self, n, verdicts] {
    auto& st = self->state;
    bool rejected = false;
    std::string reasons;
    for (const auto& v : *verdicts) {
      if (v.failure_kind == "offline_miss")
        return fail(self, "offline: verifier " + v.verifier +
                              " has no cached reply for candidate " + std::to_string(n) +
                              "; run without --offline to ask it");
      for (const auto& check : v.checks) {
        if (!check.decided || check.accepted) continue;
        rejected = true;
        std::string why;
        for (const auto& r : check.reasons) why += (why.empty() ? "" : "; ") + r;
        reasons += (reasons.empty() ? "" : " | ") + v.verifier + "/" + check.check + ": " + why;
      }
    }
    json::Value d;
    d.set("sequence", n).set("candidate", st.candidates[n].id);
    d.set("verdict", rejected ? "reject" : "accept");
    if (rejected) d.set("reason", reasons);
    search::RandomStream audit(
        search::derive_seed(st.cfg.spec.seed, "audit", static_cast<uint64_t>(n)));
    const bool audited = rejected && audit.chance(st.cfg.spec.audit_fraction);
    d.set("audited", audited);
    emit(self, "llm_verified", d);
    if (!rejected || audited) return when_running(self, [self, n] { compile(self, n, true); });
    verdict v{"llm_verify", false, "llm_rejected", reasons, {}};
    self->request(st.stages.archive, kArchiveTimeout, record_atom::value, st.candidates[n].id, v)
        .then(
            [self, n, v] {
              ++self->state.rejected;
              json::Value r;
              r.set("sequence", n).set("candidate", self->state.candidates[n].id);
              r.set("kind", v.kind).set("reason", v.reason);
              emit(self, "rejected", r);
              finish(self, n, false, 0);
            },
            [self](caf::error& e) { fail(self, "archive: " + describe(e)); });
  };
  for (auto& [name, model] : st.llm_verifiers) {
    auto take = [self, n, verdicts, pending, all_in](llm_verdict v) {
      auto& st = self->state;
      charge(self, n, v.calls);
      self->request(st.stages.archive, kArchiveTimeout, record_atom::value, st.cfg.experiment.id,
                    st.candidates[n].id, n, v)
          .then(
              [verdicts, pending, all_in, v] {
                verdicts->push_back(v);
                if (--*pending == 0) all_in();
              },
              [self](caf::error& e) { fail(self, "archive: " + describe(e)); });
    };
    self->request(model, caf::infinite, verify_atom::value, req)
        .then([take](llm_verdict& v) { take(std::move(v)); },
              [take, name = name](caf::error& e) {
                // The verifier itself failed: its checks stay undecided, which rejects nothing.
                llm_verdict v;
                v.verifier = name;
                v.checks.push_back({"all", false, false, {"verifier failed: " + describe(e)}});
                take(std::move(v));
              });
  }
}

/// The target of the next proposal: the one with the fewest proposals that may have more.
std::optional<size_t> next_target(self_ptr self) {
  auto& st = self->state;
  std::optional<size_t> best;
  int64_t fewest = 0;
  for (size_t t = 0; t < st.targets.size(); ++t) {
    if (!st.ended[t].empty()) continue;
    int64_t n = st.population.proposed(t);
    for (const auto& [s, p] : st.pending) n += p.target == t;
    if (n >= st.cfg.spec.candidates_per_target) continue;
    if (!best || n < fewest) {
      best = t;
      fewest = n;
    }
  }
  return best;
}

/// A replay's next recorded sequence from `n` on and its target, if the replay goes that far.
std::optional<size_t> replay_target(self_ptr self, int64_t& n) {
  auto& st = self->state;
  auto it = st.replay.lower_bound(n);
  if (it == st.replay.end()) return std::nullopt;
  n = it->first;
  for (size_t t = 0; t < st.targets.size(); ++t)
    if (st.targets[t].key() == it->second.target_key && st.ended[t].empty()) return t;
  return std::nullopt;
}

bool any_proposer_left(self_ptr self) {
  for (const auto& p : self->state.cfg.spec.proposers)
    if (!self->state.disabled.count(p.name)) return true;
  return false;
}

bool proposals_over(self_ptr self) {
  auto& st = self->state;
  if (st.budget_spent || st.status == "stopping" || !any_proposer_left(self)) return true;
  int64_t n = st.next_sequence;
  if (st.replaying) return !replay_target(self, n);
  return !next_target(self);
}

/// Proposals that are not at a proposer now are dropped once no more may be made.
void drop_unsent(self_ptr self) {
  auto& st = self->state;
  if (!st.budget_spent && st.status != "stopping" && any_proposer_left(self)) return;
  for (auto it = st.pending.begin(); it != st.pending.end();)
    it = it->second.in_flight ? std::next(it) : st.pending.erase(it);
}

void check_done(self_ptr self) {
  auto& st = self->state;
  if (st.status != "running" && st.status != "stopping") return;
  drop_unsent(self);
  if (!st.pending.empty() || st.pending_profiles > 0 || !st.held.empty() || !proposals_over(self))
    return;
  for (const auto& [n, m] : st.population.members())
    if (!m.finished) return;
  conclude(self, st.status == "stopping" ? "stopped" : "finished");
}

void spend(self_ptr self, const std::string& budget, double limit) {
  auto& st = self->state;
  if (st.budget_spent) return;
  st.budget_spent = true;
  json::Value d;
  d.set("budget", budget).set("limit", limit);
  emit(self, "budget_spent", d);
}

/// Counts what LLM calls cost; `n` >= 0 charges it to that candidate too (the ensemble's
/// improvement per dollar). Stops proposing once the money budget is spent.
void charge(self_ptr self, int64_t n, const std::vector<llm_call>& calls) {
  auto& st = self->state;
  for (const auto& c : calls) {
    auto& u = st.usage[c.model_name];
    u.name = c.model_name;
    account(u, {c});
    st.cost_usd += c.cost_usd;
    if (n >= 0) st.population.add_cost(n, c.cost_usd);
  }
  const double limit = st.cfg.spec.money_usd;
  if (limit > 0 && st.cost_usd >= limit) spend(self, "money_usd", limit);
}

std::string decision_json(const proposal_decision& d) {
  json::Value v;
  v.set("target", d.target_key).set("proposer", d.proposer).set("mode", d.mode);
  v.set("parent_sequence", d.parent_sequence).set("fix_of", d.fix_of);
  v.set("strategy", d.strategy).set("reply_key", d.reply_key).set("attempt", d.attempt);
  return v.dump();
}

/// The decision of a recorded candidate (older archives have none: proposer and parent only).
proposal_decision recorded_decision(const candidate_record& c,
                                    const std::map<int64_t, int64_t>& sequence_of_id) {
  proposal_decision d;
  d.target_key = c.tgt.key();
  d.proposer = c.proposer;
  auto doc = json::parse(c.decision.empty() ? "{}" : c.decision);
  const json::Value v = doc.value ? *doc.value : json::Value();
  if (v.contains("proposer")) {
    d.proposer = v["proposer"].as_string();
    d.mode = v["mode"].as_string();
    d.parent_sequence = v["parent_sequence"].as_int(-1);
    d.fix_of = v["fix_of"].as_int(-1);
    d.strategy = v["strategy"].as_string();
    d.reply_key = v["reply_key"].as_string();
    d.attempt = static_cast<int32_t>(v["attempt"].as_int());
  } else {
    if (auto it = sequence_of_id.find(c.parent_id); it != sequence_of_id.end())
      d.parent_sequence = it->second;
    d.mode = d.parent_sequence >= 0 ? "optimise" : "translate";
  }
  return d;
}

/// Decides proposal n of target t afresh: the ensemble member, the mode and what the prompt
/// shows, all from what proposal n may see and the seeded streams.
proposal_decision decide(self_ptr self, int64_t n, size_t t) {
  auto& st = self->state;
  const auto& spec = st.cfg.spec;
  proposal_decision d;
  d.target_key = st.targets[t].key();
  std::vector<search::Arm> arms;
  for (const auto& p : spec.proposers)
    if (!st.disabled.count(p.name) && !st.unable[t].count(p.name))
      arms.push_back({p.name, p.weight});
  search::tally(arms, st.population.visible_all(n));
  search::RandomStream ensemble(
      search::derive_seed(spec.seed, "ensemble", static_cast<uint64_t>(n)));
  d.proposer = arms[search::choose_arm(arms, spec.ensemble_policy, ensemble)].name;
  const bool llm = std::any_of(spec.proposers.begin(), spec.proposers.end(), [&](const auto& p) {
    return p.name == d.proposer && p.kind == "llm";
  });
  const auto visible = st.population.visible(t, n);
  // An LLM may repair the latest visible failure of the target instead of optimising.
  search::RandomStream fix_stream(search::derive_seed(spec.seed, "fix", static_cast<uint64_t>(n)));
  if (llm && fix_stream.chance(spec.fix_probability)) {
    for (auto it = visible.rbegin(); it != visible.rend(); ++it) {
      if (it->correct || st.fixed.count(it->sequence) || !st.failures.count(it->sequence)) continue;
      d.mode = "fix";
      d.fix_of = it->sequence;
      st.fixed.insert(d.fix_of);  // decisions are made in sequence order: no failure fixed twice
      return d;
    }
  }
  search::RandomStream select_stream(
      search::derive_seed(spec.seed, "select", static_cast<uint64_t>(n)));
  auto parent =
      search::select_parent(visible, spec.parent_selection, spec.tournament_size, select_stream);
  d.mode = parent ? "optimise" : "translate";
  if (parent) d.parent_sequence = parent->sequence;
  if (llm && parent) {
    const auto& strategies = search::optimisation_strategies();
    search::RandomStream strategy_stream(
        search::derive_seed(spec.seed, "strategy", static_cast<uint64_t>(n)));
    d.strategy = strategies[strategy_stream.below(strategies.size())];
  }
  return d;
}

propose_request make_request(self_ptr self, int64_t n, size_t t, const proposal_decision& d) {
  auto& st = self->state;
  const auto& spec = st.cfg.spec;
  propose_request req;
  req.experiment_id = st.cfg.experiment.id;
  req.sequence = n;
  req.seed = search::derive_seed(spec.seed, "propose", static_cast<uint64_t>(n));
  req.tgt = st.targets[t];
  req.export_dir = st.export_dirs[t];
  req.mode = d.mode;
  req.tried = st.population.tried(t);
  req.strategy = d.strategy;
  req.attempt = d.attempt;
  req.replay_key = d.reply_key;
  for (const auto& p : spec.proposers)
    if (p.name == d.proposer) req.kernel_pattern = p.pattern;
  const auto& members = st.population.members();
  if (d.parent_sequence >= 0 && st.candidates.count(d.parent_sequence)) {
    req.has_parent = true;
    req.parent = st.candidates[d.parent_sequence];
    auto m = members.find(d.parent_sequence);
    if (m != members.end()) req.parent_speedup = m->second.speedup;
    auto brief = st.profile_briefs.find(d.parent_sequence);
    if (brief != st.profile_briefs.end()) req.parent_profile = brief->second;
  }
  if (d.fix_of >= 0 && st.candidates.count(d.fix_of)) {
    req.failed = st.candidates[d.fix_of];
    auto f = st.failures.find(d.fix_of);
    if (f != st.failures.end()) {
      req.failed_stage = f->second.first;
      req.failure_log = f->second.second;
    }
  }
  if (d.mode == "optimise") {
    // The target's fastest correct kernels that n may see, least to most fast.
    auto visible = st.population.visible(t, n);
    std::vector<search::Member> correct;
    for (const auto& m : visible)
      if (m.correct) correct.push_back(m);
    std::sort(correct.begin(), correct.end(), [](const auto& a, const auto& b) {
      return a.speedup != b.speedup ? a.speedup < b.speedup : a.sequence < b.sequence;
    });
    const size_t k = static_cast<size_t>(spec.context_size);
    for (size_t i = correct.size() > k ? correct.size() - k : 0; i < correct.size(); ++i) {
      const auto& c = st.candidates[correct[i].sequence];
      req.context.push_back({correct[i].sequence, correct[i].speedup, c.strategy, c.source});
    }
  }
  return req;
}

/// Drops the proposals of target t that are not at a proposer now (it is exhausted or abandoned).
void drop_target(self_ptr self, size_t t) {
  auto& st = self->state;
  for (auto it = st.pending.begin(); it != st.pending.end();)
    it = it->second.target == t && !it->second.in_flight ? st.pending.erase(it) : std::next(it);
}

/// Target t gets no more proposals (`kind`: target_failed, target_exhausted, target_abandoned);
/// the experiment goes on with the others.
void end_target(self_ptr self, size_t t, const std::string& kind, const std::string& reason) {
  auto& st = self->state;
  if (!st.ended[t].empty()) return;
  st.ended[t] = reason;
  drop_target(self, t);
  json::Value ev;
  ev.set("target", st.targets[t].key()).set("reason", reason);
  emit(self, kind, ev);
}

/// Proposal n came back without a candidate (`kind` says why): retry it, disable its proposer,
/// or fail the experiment.
void proposal_failed(self_ptr self, int64_t n, const std::string& proposer, const std::string& kind,
                     const std::string& reason) {
  auto& st = self->state;
  auto& p = st.pending.at(n);
  p.in_flight = false;
  const size_t t = p.target;
  json::Value ev;
  ev.set("sequence", n).set("target", st.targets[t].key()).set("proposer", proposer);
  ev.set("kind", kind).set("reason", reason);
  st.last_error = reason;
  if (kind == "offline_miss") return fail(self, reason);
  if (kind == "exhausted") {
    st.pending.erase(n);
    end_target(self, t, "target_exhausted", "every variant was tried");
  } else if (kind == "unsupported") {
    // The proposer cannot write this target at all: asking again cannot help. The others may.
    st.unable[t].insert(proposer);
    bool someone_can = false;
    for (const auto& spec : st.cfg.spec.proposers)
      someone_can |= !st.disabled.count(spec.name) && !st.unable[t].count(spec.name);
    if (someone_can) {
      p.decision.reset();
      emit(self, "proposer_unsupported", ev);
    } else {
      st.pending.erase(n);
      end_target(self, t, "target_abandoned", "no proposer can write it: " + reason);
    }
  } else if (kind == "money" || kind == "auth") {
    // The key or the account is spent: no retry helps; the other proposers go on, and this
    // proposal is decided again among them.
    st.disabled.insert(proposer);
    p.decision.reset();
    emit(self, "proposer_disabled", ev);
  } else if (++st.proposer_failures[t] >= kProposerFailuresBeforeAbandoning) {
    st.pending.erase(n);
    end_target(self, t, "target_abandoned",
               "the proposer failed " + std::to_string(st.proposer_failures[t]) +
                   " times in a row: " + reason);
  } else {
    ++p.attempts;  // the next try draws another sample of the same request
    // A rejected reply is asked again at once; a failed call after a back-off: 1 s, 2 s ... 60 s.
    auto delay = kind == "reply_rejected"
                     ? std::chrono::seconds(0)
                     : std::chrono::seconds(std::min(60, 1 << (st.proposer_failures[t] - 1)));
    ev.set("retry_in_seconds", static_cast<int64_t>(delay.count()));
    emit(self, "proposal_failed", ev);
    if (delay.count() > 0) {
      p.backing_off = true;
      self->delayed_send(self, delay, tick_atom::value, n);
    }
  }
  pump(self);
  check_done(self);
}

/// Records a proposed candidate (and then its LLM calls), then sends it on.
void accept_proposal(self_ptr self, int64_t n, size_t t, const propose_request& req,
                     proposal_decision d, proposal p) {
  auto& st = self->state;
  d.reply_key = p.reply_key;
  candidate_record c;
  c.experiment_id = st.cfg.experiment.id;
  c.sequence = n;
  c.tgt = st.targets[t];
  c.source = std::move(p.source);
  c.source_hash = gpu::sha256_hex(c.source);
  c.parent_id = p.parent_id;
  c.proposer = p.proposer;
  c.strategy = p.strategy;
  c.params = p.params;
  c.seed = req.seed;
  c.decision = decision_json(d);
  self->request(st.stages.archive, kArchiveTimeout, record_atom::value, c)
      .then(
          [self, n, t, c, d, rationale = p.rationale, calls = p.calls](int64_t id) mutable {
            auto& st = self->state;
            c.id = id;
            st.candidates[n] = c;
            search::Member m;
            m.sequence = n;
            m.candidate_id = id;
            m.target = t;
            m.key = search::proposal_key(c.strategy, c.params);
            m.proposer = d.proposer;
            m.parent_sequence = d.mode == "fix" ? d.fix_of : d.parent_sequence;
            st.population.add(m);
            st.pending.erase(n);
            st.proposer_failures[t] = 0;
            ++st.proposed;
            auto go_on = [self, n, t, c, d, rationale] {
              auto& st = self->state;
              json::Value ev;
              ev.set("sequence", n).set("candidate", c.id).set("target", st.targets[t].key());
              ev.set("proposer", c.proposer).set("strategy", c.strategy).set("mode", d.mode);
              ev.set("params", c.params).set("rationale", rationale);
              if (c.parent_id) ev.set("parent", c.parent_id);
              emit(self, "proposed", ev);
              when_running(self, [self, n] { verify(self, n); });
              pump(self);
            };
            charge(self, n, calls);
            if (calls.empty()) return go_on();
            self->request(st.stages.archive, kArchiveTimeout, record_atom::value,
                          st.cfg.experiment.id, id, n, calls)
                .then(go_on, [self](caf::error& e) { fail(self, "archive: " + describe(e)); });
          },
          [self](caf::error& e) { fail(self, "archive: " + describe(e)); });
}

/// Sends pending proposal n to its proposer, deciding it first if it is new. False when it
/// must wait: a built-in proposal needs every earlier one back (its list of what was tried).
bool send(self_ptr self, int64_t n) {
  auto& st = self->state;
  auto& p = st.pending.at(n);
  if (!p.decision) p.decision = st.replaying ? st.replay.at(n) : decide(self, n, p.target);
  proposal_decision d = *p.decision;
  d.attempt = p.attempts;
  const size_t t = p.target;
  std::optional<proposer_actor> proposer;
  // An LLM call has its own timeouts and retries and always answers; a CAF timeout on top would
  // drop a reply that is still coming (and paid for).
  caf::duration timeout{kProposalTimeout};
  if (auto it = st.llm_proposers.find(d.proposer); it != st.llm_proposers.end()) {
    proposer = caf::actor_cast<proposer_actor>(it->second);
    timeout = caf::infinite;
  } else {
    if (st.pending.begin()->first < n) return false;
    // The built-in and files proposers are the runtime's, shared by its experiments.
    std::string kind = "builtin";
    for (const auto& p : st.cfg.spec.proposers)
      if (p.name == d.proposer) kind = p.kind;
    if (auto b = st.stages.proposers.find(kind); b != st.stages.proposers.end())
      proposer = b->second;
  }
  if (!proposer) {
    fail(self, "no proposer named " + d.proposer);
    return false;
  }
  auto req = make_request(self, n, t, d);
  p.in_flight = true;
  self->request(*proposer, timeout, propose_atom::value, req)
      .then(
          [self, n, t, req, d](proposal& p) {
            auto& st = self->state;
            if (!p.source.empty()) return accept_proposal(self, n, t, req, d, std::move(p));
            // No candidate: its calls are recorded (they cost money), then the failure is handled.
            auto handle = [self, n, d, p] {
              charge(self, -1, p.calls);
              proposal_failed(self, n, d.proposer, p.failure_kind, p.failure);
            };
            if (p.calls.empty()) return handle();
            self->request(st.stages.archive, kArchiveTimeout, record_atom::value,
                          st.cfg.experiment.id, int64_t{0}, n, p.calls)
                .then(handle, [self](caf::error& e) { fail(self, "archive: " + describe(e)); });
          },
          [self, n, d](caf::error& e) {
            auto is = [&](error_code c) {
              return e.category() == error_category && e.code() == static_cast<uint8_t>(c);
            };
            if (is(error_code::unsupported_target))
              return proposal_failed(self, n, d.proposer, "unsupported",
                                     d.proposer + ": " + context_text(e));
            proposal_failed(self, n, d.proposer,
                            is(error_code::exhausted) ? "exhausted" : "proposer_error",
                            describe(e));
          });
  return true;
}

/// Keeps up to `search.proposals_in_flight` proposals at the proposers: retries first, then new
/// sequences, each once the candidates it may see (up to n - depth) have all finished.
void pump(self_ptr self) {
  auto& st = self->state;
  if (st.status != "running") return;
  const auto& spec = st.cfg.spec;
  if (!st.budget_spent && spec.wall_seconds > 0 &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() - st.start).count() >
          spec.wall_seconds)
    spend(self, "wall_seconds", spec.wall_seconds);
  if (st.budget_spent || !any_proposer_left(self)) return;
  auto in_flight = [&] {
    return std::count_if(st.pending.begin(), st.pending.end(),
                         [](const auto& p) { return p.second.in_flight; });
  };
  for (auto& [n, p] : st.pending) {
    if (in_flight() >= spec.proposals_in_flight) return;
    if (p.in_flight || p.backing_off) continue;
    if (!send(self, n)) return;
  }
  while (in_flight() < spec.proposals_in_flight && st.status == "running") {
    int64_t n = st.next_sequence;
    auto t = st.replaying ? replay_target(self, n) : next_target(self);
    if (!t) return;
    // Everything up to n - depth must have finished, and must be a candidate already.
    if (!st.population.may_propose(n)) return;
    if (!st.pending.empty() && st.pending.begin()->first <= n - spec.pipeline_depth) return;
    st.pending[n].target = *t;
    st.next_sequence = n + 1;
    if (!send(self, n)) return;
  }
}

/// Carries on with the archived candidates of a resumed experiment.
void resume_from(self_ptr self, experiment_snapshot& snap) {
  auto& st = self->state;
  std::map<std::string, size_t> by_key;
  for (size_t t = 0; t < st.targets.size(); ++t) by_key[st.targets[t].key()] = t;
  int64_t carried = 0;
  std::map<int64_t, int64_t> sequence_of_id;
  for (const auto& cs : snap.candidates) sequence_of_id[cs.candidate.id] = cs.candidate.sequence;
  for (const auto& u : snap.models) {
    st.usage[u.name] = u;
    st.cost_usd += u.cost_usd;
  }
  for (auto& cs : snap.candidates) {
    auto c = cs.candidate;
    auto it = by_key.find(c.tgt.key());
    if (it == by_key.end()) continue;  // a target the configuration no longer has
    const size_t t = it->second;
    const int64_t n = c.sequence;
    c.tgt = st.targets[t];
    st.candidates[n] = c;
    auto d = recorded_decision(c, sequence_of_id);
    search::Member m;
    m.sequence = n;
    m.candidate_id = c.id;
    m.target = t;
    m.key = search::proposal_key(c.strategy, c.params);
    m.finished = cs.finished;
    m.correct = cs.correct;
    m.speedup = cs.speedup;
    m.proposer = d.proposer;
    m.parent_sequence = d.mode == "fix" ? d.fix_of : d.parent_sequence;
    st.population.add(m);
    if (d.fix_of >= 0) st.fixed.insert(d.fix_of);
    ++st.proposed;
    if (!cs.failed_stage.empty()) st.failures[n] = {cs.failed_stage, cs.failure};
    if (cs.finished) {
      st.evaluated += cs.verified && cs.compiled;
      st.rejected += !(cs.verified && cs.compiled);
      st.correct += cs.correct;
      if (cs.correct && !cs.profiled) {
        // The profile was lost with the process: it is made again from the archived results.
        ++st.pending_profiles;
        when_running(self, [self, n] { reprofile(self, n); });
      }
      continue;
    }
    ++carried;
    if (!cs.verified)
      when_running(self, [self, n] { verify(self, n); });
    else if (!cs.compiled && !st.llm_verifiers.empty())
      // The LLM verdicts may have been lost with the process; asking again hits the cache.
      when_running(self, [self, n] { llm_verify(self, n); });
    else
      when_running(self, [self, n, record = !cs.compiled] { compile(self, n, record); });
  }
  st.next_sequence = st.population.next_sequence();
  json::Value d;
  d.set("candidates", static_cast<int64_t>(snap.candidates.size())).set("carried_on", carried);
  emit(self, "resumed", d);
}

void begin(self_ptr self) {
  auto& st = self->state;
  auto go = [self] {
    auto& st = self->state;
    st.status = st.cfg.start_paused ? "paused" : "running";
    json::Value d;
    d.set("targets", static_cast<int64_t>(st.targets.size()));
    emit(self, "experiment_started", d);
    self->request(st.stages.archive, kArchiveTimeout, update_atom::value, st.cfg.experiment.id,
                  st.status)
        .then(
            [self] {
              pump(self);
              check_done(self);
            },
            [self](caf::error& e) { fail(self, "archive: " + describe(e)); });
  };
  auto resume_then_go = [self, go] {
    if (!self->state.cfg.resume) return go();
    self->request(self->state.stages.archive, kArchiveTimeout, load_atom::value,
                  self->state.cfg.experiment.id)
        .then(
            [self, go](experiment_snapshot& snap) {
              self->state.status = self->state.cfg.start_paused ? "paused" : "running";
              resume_from(self, snap);
              go();
            },
            [self](caf::error& e) { fail(self, "loading the experiment: " + describe(e)); });
  };
  const int64_t replay_of = st.cfg.spec.replay_of;
  if (!replay_of) return resume_then_go();
  // A replay follows the recorded decisions of another experiment, sequence by sequence.
  self->request(st.stages.archive, kArchiveTimeout, load_atom::value, replay_of)
      .then(
          [self, resume_then_go, replay_of](experiment_snapshot& snap) {
            auto& st = self->state;
            std::map<int64_t, int64_t> sequence_of_id;
            for (const auto& cs : snap.candidates)
              sequence_of_id[cs.candidate.id] = cs.candidate.sequence;
            for (const auto& cs : snap.candidates)
              st.replay[cs.candidate.sequence] = recorded_decision(cs.candidate, sequence_of_id);
            st.replaying = true;
            json::Value d;
            d.set("replay_of", replay_of).set("decisions", static_cast<int64_t>(st.replay.size()));
            emit(self, "replaying", d);
            resume_then_go();
          },
          [self, replay_of](caf::error& e) {
            fail(self,
                 "loading experiment " + std::to_string(replay_of) + " to replay: " + describe(e));
          });
}

/// Asks each cuda evaluator for its architecture, then begins.
void ask_devices(self_ptr self) {
  auto& st = self->state;
  auto pending = std::make_shared<int>(0);
  std::vector<std::string> keys;
  for (size_t i = 0; i < st.targets.size(); ++i) {
    if (!st.ended[i].empty()) continue;
    const auto& t = st.targets[i];
    auto key = evaluator_key(t.backend, t.device);
    if (!st.stages.evaluators.count(key)) {
      std::string have;
      for (const auto& [k, e] : st.stages.evaluators) have += (have.empty() ? "" : ", ") + k;
      return fail(self, "no evaluator for " + key + " (this runtime has " +
                            (have.empty() ? std::string("none") : have) + ")");
    }
    if (t.backend == "cuda" && std::find(keys.begin(), keys.end(), key) == keys.end())
      keys.push_back(key);
  }
  if (keys.empty()) return begin(self);
  *pending = static_cast<int>(keys.size());
  for (const auto& key : keys) {
    self->request(st.stages.evaluators[key], 5min, device_atom::value)
        .then(
            [self, key, pending](device_info& d) {
              if (!d.ok) return fail(self, "the " + key + " worker did not start: " + d.error);
              self->state.cuda_arch[key] = d.cuda_arch;
              if (--*pending == 0) begin(self);
            },
            [self, key](caf::error& e) { fail(self, key + ": " + describe(e)); });
  }
}

/// Exports every task (through the compiler pool), then lays out the targets.
void export_tasks(self_ptr self) {
  auto& st = self->state;
  const auto& spec = st.cfg.spec;
  auto results = std::make_shared<std::vector<export_result>>(spec.tasks.size());
  auto pending = std::make_shared<size_t>(spec.tasks.size());
  // The torch.compile baseline is built for the GPU when some target runs there.
  const bool on_gpu =
      std::find(spec.backends.begin(), spec.backends.end(), "cuda") != spec.backends.end();
  for (size_t i = 0; i < spec.tasks.size(); ++i) {
    // The export itself takes seconds; the compiled baseline (max-autotune) may take minutes.
    const std::string config_set = spec.config_set != "auto" ? spec.config_set
                                   : on_gpu                  ? "multi"
                                                             : "single";
    self->request(st.stages.compiler, 120min, export_atom::value,
                  export_request{spec.tasks[i], spec.compiled_baseline, on_gpu ? "cuda" : "cpu",
                                 config_set})
        .then(
            [self, i, results, pending, on_gpu](export_result& r) {
              (*results)[i] = std::move(r);
              if (--*pending > 0) return;
              auto& st = self->state;
              const auto& spec = st.cfg.spec;
              // Targets on cuda go to the GPUs in turn; a target stays on one GPU, so its
              // candidates are timed on the same device. A task or direction that cannot be
              // exported gives targets that end at once with the reason; the others go on.
              int gpus = 0, next_gpu = 0;
              while (st.stages.evaluators.count(evaluator_key("cuda", gpus))) ++gpus;
              std::vector<std::string> failed;  // per target: why it cannot start
              for (size_t k = 0; k < spec.tasks.size(); ++k) {
                const auto& e = (*results)[k];
                if (!e.compiled_note.empty()) {
                  json::Value d;
                  d.set("task", spec.tasks[k]).set("baseline", e.compiled_note);
                  emit(self, "compiled_baseline", d);
                }
                for (const auto& direction : spec.directions) {
                  std::string why;
                  if (!e.ok) {
                    why = "the task cannot be exported: " + e.error;
                  } else if (auto f = e.failed_directions.find(direction);
                             f != e.failed_directions.end()) {
                    why = "the " + direction + " direction cannot be exported: " + f->second;
                  } else if (std::find(e.directions.begin(), e.directions.end(), direction) ==
                             e.directions.end()) {
                    json::Value d;
                    d.set("task", spec.tasks[k]).set("direction", direction);
                    emit(self, "direction_missing", d);
                    continue;
                  }
                  for (const auto& backend : spec.backends) {
                    target t;
                    t.task = task_name(spec.tasks[k]);
                    t.task_dir = spec.tasks[k];
                    t.direction = direction;
                    t.backend = backend;
                    if (backend == "cuda" && gpus > 0 && why.empty()) t.device = next_gpu++ % gpus;
                    t.config_set = spec.config_set != "auto" ? spec.config_set
                                   : backend == "cuda"       ? "multi"
                                                             : "single";
                    st.targets.push_back(t);
                    st.export_dirs.push_back(why.empty() ? e.export_dir : std::string());
                    if (spec.compiled_baseline == "off")
                      st.baselines.emplace_back();
                    else if (backend == "cpu" && on_gpu)
                      st.baselines.emplace_back(
                          "", "the compiled baseline is built for the GPU targets only");
                    else
                      st.baselines.emplace_back(e.compiled_dir, e.compiled_error);
                    failed.push_back(why);
                  }
                }
              }
              if (st.targets.empty())
                return fail(self, "no task has any of the configured directions");
              const size_t n = st.targets.size();
              st.ended.assign(n, std::string());
              st.unable.assign(n, {});
              st.proposer_failures.assign(n, 0);
              st.compile_failures.assign(n, 0);
              std::string reasons;
              for (size_t t = 0; t < n; ++t) {
                if (failed[t].empty()) continue;
                end_target(self, t, "target_failed", failed[t]);
                reasons += (reasons.empty() ? "" : "; ") + st.targets[t].key() + ": " + failed[t];
              }
              if (std::all_of(failed.begin(), failed.end(), [](auto& f) { return !f.empty(); }))
                return fail(self, "no target can start: " + reasons);
              ask_devices(self);
            },
            [self, i](caf::error& e) {
              fail(self, "exporting " + self->state.cfg.spec.tasks[i] + ": " + describe(e));
            });
  }
}

}  // namespace

double geomean_speedup(const eval_result& r, bool over_compiled) {
  std::vector<double> speedups;
  for (const auto& c : r.configs) {
    if (!c.correct || !c.timed) return 0;
    speedups.push_back(over_compiled ? c.speedup_compiled : c.speedup);
  }
  return geometric_mean(speedups).value_or(0);
}

coordinator_actor::behavior_type coordinator_impl(
    coordinator_actor::stateful_pointer<coordinator_state> self, coordinator_config config,
    stage_handles stages) {
  auto& st = self->state;
  st.cfg = std::move(config);
  st.stages = std::move(stages);
  st.population = search::Population(st.cfg.spec.pipeline_depth);
  // The experiment's own LLMs: they end with it.
  const auto& spec = st.cfg.spec;
  auto spawn_model = [&](const std::string& name, const search::ModelSpec& m) {
    llm_runner_options o;
    o.model = model_config(name, m);
    o.archive_path = st.cfg.archive_path;
    o.offline = spec.offline;
    return self->spawn(llm_model_impl, o);
  };
  for (const auto& p : spec.proposers)
    if (p.kind == "llm") st.llm_proposers[p.name] = spawn_model(p.name, p.llm);
  for (const auto& v : spec.verifiers) st.llm_verifiers[v.name] = spawn_model(v.name, v.llm);
  export_tasks(self);
  return {
      [self](progress_atom) { return progress(self); },
      [self](pause_atom) -> caf::result<void> {
        auto& st = self->state;
        if (st.status != "running" && st.status != "starting")
          return make_error(
              error_code::invalid_request,
              "experiment " + std::to_string(st.cfg.experiment.id) + " is " + st.status);
        st.cfg.start_paused = true;
        if (st.status == "starting") return caf::unit;
        st.status = "paused";
        emit(self, "experiment_paused", json::Value(json::Object{}));
        self->request(st.stages.archive, kArchiveTimeout, update_atom::value, st.cfg.experiment.id,
                      std::string("paused"))
            .then([] {}, [self](caf::error& e) { self->state.last_error = describe(e); });
        return caf::unit;
      },
      [self](resume_atom) -> caf::result<void> {
        auto& st = self->state;
        st.cfg.start_paused = false;
        if (st.status == "starting") return caf::unit;
        if (st.status != "paused")
          return make_error(
              error_code::invalid_request,
              "experiment " + std::to_string(st.cfg.experiment.id) + " is " + st.status);
        st.status = "running";
        emit(self, "experiment_resumed", json::Value(json::Object{}));
        self->request(st.stages.archive, kArchiveTimeout, update_atom::value, st.cfg.experiment.id,
                      std::string("running"))
            .then([] {}, [self](caf::error& e) { self->state.last_error = describe(e); });
        auto held = std::move(st.held);
        st.held.clear();
        for (auto& work : held) work();
        pump(self);
        check_done(self);
        return caf::unit;
      },
      [self](stop_atom) -> caf::result<void> {
        auto& st = self->state;
        if (st.status == "finished" || st.status == "stopped" || st.status == "failed")
          return caf::unit;
        const bool was_paused = st.status == "paused";
        st.status = "stopping";
        emit(self, "experiment_stopping", json::Value(json::Object{}));
        if (was_paused) {
          auto held = std::move(st.held);
          st.held.clear();
          for (auto& work : held) work();
        }
        check_done(self);
        return caf::unit;
      },
      [self](tick_atom) {
        pump(self);
        check_done(self);
      },
      [self](tick_atom, int64_t n) {
        if (auto it = self->state.pending.find(n); it != self->state.pending.end())
          it->second.backing_off = false;
        pump(self);
        check_done(self);
      },
  };
}

}  // namespace kforge
