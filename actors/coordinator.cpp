#include "actors/coordinator.hpp"

#include <cmath>
#include <filesystem>

#include "actors/evaluator.hpp"
#include "gpu/hashing.hpp"
#include "messages/errors.hpp"
#include "search/random_stream.hpp"

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
void compile(self_ptr self, int64_t n, bool record);
void profile(self_ptr self, int64_t n, eval_result result);

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
    s.targets.push_back(b);
  }
  s.last_error = st.last_error;
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
  req.library_path = compiled.library_path;
  req.library_policy = st.cfg.spec.library_calls;
  req.seeds = st.cfg.spec.seeds;
  req.seed = st.cfg.spec.seed;
  req.timing_seconds = st.cfg.spec.timing_seconds;
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
                      if (!ok) d.set("kind", r.failure_kind).set("reason", r.failure_message);
                      d.set("seconds", r.seconds);
                      emit(self, "evaluated", d);
                      if (ok && speedup > best_before) {
                        json::Value b;
                        b.set("target", st.targets[t].key()).set("candidate", st.candidates[n].id);
                        b.set("speedup", speedup).set("strategy", st.candidates[n].strategy);
                        emit(self, "new_best", b);
                      }
                      if (ok)
                        profile(self, n, r);
                      else
                        st.compile_logs.erase(n);
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
  self->request(st.stages.compiler, caf::infinite, compile_atom::value, req)
      .then(
          [self, n, record](compile_result& r) {
            auto next = [self, n, r] {
              if (!r.ok) {
                ++self->state.rejected;
                json::Value d;
                d.set("sequence", n).set("candidate", self->state.candidates[n].id);
                d.set("reason", r.error);
                emit(self, "compile_failed", d);
                finish(self, n, false, 0);
              } else {
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
                      when_running(self, [self, n] { compile(self, n, true); });
                    },
                    [self](caf::error& e) { fail(self, "archive: " + describe(e)); });
          },
          [self, n](caf::error& e) { stage_error(self, n, "verify", e); });
}

/// The target of the next proposal: the one with the fewest proposals that may have more.
std::optional<size_t> next_target(self_ptr self) {
  auto& st = self->state;
  std::optional<size_t> best;
  int64_t fewest = 0;
  for (size_t t = 0; t < st.targets.size(); ++t) {
    if (st.exhausted[t] || st.abandoned[t]) continue;
    int64_t n = st.population.proposed(t);
    if (n >= st.cfg.spec.candidates_per_target) continue;
    if (!best || n < fewest) {
      best = t;
      fewest = n;
    }
  }
  return best;
}

bool proposals_over(self_ptr self) {
  auto& st = self->state;
  return st.budget_spent || st.status == "stopping" || !next_target(self);
}

void check_done(self_ptr self) {
  auto& st = self->state;
  if (st.status != "running" && st.status != "stopping") return;
  if (st.proposing || st.pending_profiles > 0 || !st.held.empty() || !proposals_over(self)) return;
  for (const auto& [n, m] : st.population.members())
    if (!m.finished) return;
  conclude(self, st.status == "stopping" ? "stopped" : "finished");
}

void propose(self_ptr self, int64_t n, size_t t) {
  auto& st = self->state;
  const auto& spec = st.cfg.spec;
  search::RandomStream select_stream(
      search::derive_seed(spec.seed, "select", static_cast<uint64_t>(n)));
  auto parent = search::select_parent(st.population.visible(t, n), spec.parent_selection,
                                      spec.tournament_size, select_stream);
  propose_request req;
  req.experiment_id = st.cfg.experiment.id;
  req.sequence = n;
  req.seed = search::derive_seed(spec.seed, "propose", static_cast<uint64_t>(n));
  req.tgt = st.targets[t];
  req.export_dir = st.export_dirs[t];
  req.mode = parent ? "optimise" : "translate";
  if (parent) {
    req.has_parent = true;
    req.parent = st.candidates[parent->sequence];
  }
  req.tried = st.population.tried(t);
  // One proposer for now; an ensemble draws its member from the seeded stream.
  search::RandomStream ensemble(
      search::derive_seed(spec.seed, "ensemble", static_cast<uint64_t>(n)));
  const auto& chosen = spec.proposers[ensemble.below(spec.proposers.size())];
  auto proposer = st.stages.proposers.find(chosen.kind == "builtin" ? "builtin" : chosen.name);
  if (proposer == st.stages.proposers.end()) return fail(self, "no proposer named " + chosen.name);
  st.proposing = true;
  self->request(proposer->second, kProposalTimeout, propose_atom::value, req)
      .then(
          [self, n, t, req](proposal& p) {
            auto& st = self->state;
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
            self->request(st.stages.archive, kArchiveTimeout, record_atom::value, c)
                .then(
                    [self, n, t, c, rationale = p.rationale](int64_t id) mutable {
                      auto& st = self->state;
                      c.id = id;
                      st.candidates[n] = c;
                      st.population.add({n, id, t, search::proposal_key(c.strategy, c.params)});
                      st.proposing = false;
                      st.proposer_failures[t] = 0;
                      ++st.proposed;
                      json::Value d;
                      d.set("sequence", n).set("candidate", id).set("target", st.targets[t].key());
                      d.set("proposer", c.proposer).set("strategy", c.strategy);
                      d.set("params", c.params).set("rationale", rationale);
                      if (c.parent_id) d.set("parent", c.parent_id);
                      emit(self, "proposed", d);
                      when_running(self, [self, n] { verify(self, n); });
                      pump(self);
                    },
                    [self](caf::error& e) { fail(self, "archive: " + describe(e)); });
          },
          [self, t](caf::error& e) {
            auto& st = self->state;
            st.proposing = false;
            json::Value d;
            d.set("target", st.targets[t].key()).set("reason", describe(e));
            if (e.category() == error_category &&
                e.code() == static_cast<uint8_t>(error_code::exhausted)) {
              st.exhausted[t] = true;
              emit(self, "target_exhausted", d);
              pump(self);
              check_done(self);
              return;
            }
            st.last_error = describe(e);
            if (++st.proposer_failures[t] >= kProposerFailuresBeforeAbandoning) {
              st.abandoned[t] = true;
              emit(self, "target_abandoned", d);
              pump(self);
              check_done(self);
              return;
            }
            // Back off exponentially before asking again: 1 s, 2 s, 4 s ... up to a minute.
            auto delay = std::chrono::seconds(std::min(60, 1 << (st.proposer_failures[t] - 1)));
            d.set("retry_in_seconds", static_cast<int64_t>(delay.count()));
            emit(self, "proposer_error", d);
            self->delayed_send(self, delay, tick_atom::value);
          });
}

void pump(self_ptr self) {
  auto& st = self->state;
  if (st.status != "running" || st.proposing) return;
  const auto& spec = st.cfg.spec;
  if (!st.budget_spent && spec.wall_seconds > 0 &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() - st.start).count() >
          spec.wall_seconds) {
    st.budget_spent = true;
    json::Value d;
    d.set("budget", "wall_seconds").set("limit", spec.wall_seconds);
    emit(self, "budget_spent", d);
  }
  if (st.budget_spent) return;
  auto t = next_target(self);
  if (!t) return;
  const int64_t n = st.population.next_sequence();
  if (!st.population.may_propose(n)) return;  // a candidate up to n - depth is still in flight
  propose(self, n, *t);
}

/// Carries on with the archived candidates of a resumed experiment.
void resume_from(self_ptr self, experiment_snapshot& snap) {
  auto& st = self->state;
  std::map<std::string, size_t> by_key;
  for (size_t t = 0; t < st.targets.size(); ++t) by_key[st.targets[t].key()] = t;
  int64_t carried = 0;
  for (auto& cs : snap.candidates) {
    auto c = cs.candidate;
    auto it = by_key.find(c.tgt.key());
    if (it == by_key.end()) continue;  // a target the configuration no longer has
    const size_t t = it->second;
    const int64_t n = c.sequence;
    c.tgt = st.targets[t];
    st.candidates[n] = c;
    st.population.add({n, c.id, t, search::proposal_key(c.strategy, c.params), cs.finished,
                       cs.correct, cs.speedup});
    ++st.proposed;
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
    else
      when_running(self, [self, n, record = !cs.compiled] { compile(self, n, record); });
  }
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
  if (!st.cfg.resume) return go();
  self->request(st.stages.archive, kArchiveTimeout, load_atom::value, st.cfg.experiment.id)
      .then(
          [self, go](experiment_snapshot& snap) {
            self->state.status = self->state.cfg.start_paused ? "paused" : "running";
            resume_from(self, snap);
            go();
          },
          [self](caf::error& e) { fail(self, "loading the experiment: " + describe(e)); });
}

/// Asks each cuda evaluator for its architecture, then begins.
void ask_devices(self_ptr self) {
  auto& st = self->state;
  auto pending = std::make_shared<int>(0);
  std::vector<std::string> keys;
  for (const auto& t : st.targets) {
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
  for (size_t i = 0; i < spec.tasks.size(); ++i) {
    self->request(st.stages.compiler, 30min, export_atom::value, export_request{spec.tasks[i]})
        .then(
            [self, i, results, pending](export_result& r) {
              (*results)[i] = std::move(r);
              if (--*pending > 0) return;
              auto& st = self->state;
              const auto& spec = st.cfg.spec;
              // Targets on cuda go to the GPUs in turn; a target stays on one GPU, so its
              // candidates are timed on the same device.
              int gpus = 0, next_gpu = 0;
              while (st.stages.evaluators.count(evaluator_key("cuda", gpus))) ++gpus;
              for (size_t k = 0; k < spec.tasks.size(); ++k) {
                const auto& e = (*results)[k];
                if (!e.ok) return fail(self, "exporting " + spec.tasks[k] + ": " + e.error);
                for (const auto& direction : spec.directions) {
                  if (std::find(e.directions.begin(), e.directions.end(), direction) ==
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
                    if (backend == "cuda" && gpus > 0) t.device = next_gpu++ % gpus;
                    t.config_set = spec.config_set != "auto" ? spec.config_set
                                   : backend == "cuda"       ? "multi"
                                                             : "single";
                    st.targets.push_back(t);
                    st.export_dirs.push_back(e.export_dir);
                  }
                }
              }
              if (st.targets.empty())
                return fail(self, "no task has any of the configured directions");
              st.exhausted.assign(st.targets.size(), false);
              st.abandoned.assign(st.targets.size(), false);
              st.proposer_failures.assign(st.targets.size(), 0);
              ask_devices(self);
            },
            [self, i](caf::error& e) {
              fail(self, "exporting " + self->state.cfg.spec.tasks[i] + ": " + describe(e));
            });
  }
}

}  // namespace

double geomean_speedup(const eval_result& r) {
  if (r.configs.empty()) return 0;
  double log_sum = 0;
  for (const auto& c : r.configs) {
    if (!c.correct || !c.timed || c.speedup <= 0) return 0;
    log_sum += std::log(c.speedup);
  }
  return std::exp(log_sum / static_cast<double>(r.configs.size()));
}

coordinator_actor::behavior_type coordinator_impl(
    coordinator_actor::stateful_pointer<coordinator_state> self, coordinator_config config,
    stage_handles stages) {
  auto& st = self->state;
  st.cfg = std::move(config);
  st.stages = std::move(stages);
  st.population = search::Population(st.cfg.spec.pipeline_depth);
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
  };
}

}  // namespace kforge
