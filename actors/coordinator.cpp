#include "actors/coordinator.hpp"

#include <algorithm>

#include "actors/candidate_pipeline.hpp"
#include "actors/coordinator_ledger.hpp"
#include "actors/experiment_setup.hpp"
#include "actors/llm_model.hpp"
#include "messages/errors.hpp"

namespace kforge {
namespace {

using self_ptr = coordinator_actor::stateful_pointer<coordinator_state>;
using namespace std::chrono_literals;

constexpr auto kProposalTimeout = 15min;

void pump(self_ptr self);
void check_done(self_ptr self);

// ---- Candidates: the pipeline's verdicts. ----

/// Candidate n's verdict: the planner learns it, and proposals that waited for it may go.
void take_outcome(self_ptr self, int64_t n, const candidate_outcome& o) {
  auto& st = self->state;
  auto& planner = *st.planner;
  const size_t t = planner.population().members().at(n).target;
  if (!o.error.empty()) st.ledger.note_error(o.error);
  if (o.evaluated()) {
    ++st.ledger.counts().evaluated;
    st.ledger.counts().correct += o.correct;
  } else {
    ++st.ledger.counts().rejected;
  }
  if (o.compiled()) planner.compile_outcome(t, true);
  if (!o.failure.empty()) planner.failed(n, {o.stage, o.failure});
  if (o.correct) {
    ++st.pending_profiles;
    double best_before = 0;
    for (const auto& [s, m] : planner.population().members())
      if (m.target == t && m.correct) best_before = std::max(best_before, m.speedup);
    if (o.speedup > best_before) {
      self->state.ledger.emit(events::NewBest{st.targets[t].tgt.key(),
                                              st.candidates[n].candidate.id, o.speedup,
                                              st.candidates[n].candidate.strategy});
    }
  }
  if (o.stage == Stage::compile && !o.stage_error) {
    const int limit = st.cfg.spec.abandon_after_compile_failures;
    const int in_a_row = planner.compile_outcome(t, false);
    if (limit > 0 && in_a_row >= limit)
      self->state.ledger.end_target(
          t, events::Kind::target_abandoned,
          std::to_string(in_a_row) +
              " candidates in a row failed to compile; the last: " + o.reason);
  }
  if (o.correct) st.candidates[n].config_times = o.times;
  planner.population().finish(n, o.correct, o.speedup, o.speed_of_light);
  pump(self);
  check_done(self);
}

/// Hands candidate n to the pipeline at `entry`.
void judge(self_ptr self, int64_t n, size_t t, pipeline_entry entry) {
  auto& st = self->state;
  if (entry == pipeline_entry::profile) ++st.pending_profiles;
  pipeline_job job{st.candidates.at(n).candidate, static_cast<int32_t>(t), entry};
  if (entry == pipeline_entry::verify)
    if (const auto earlier = st.planner->repeats(n)) {
      const auto it = st.candidates.find(*earlier);
      job.repeats = it != st.candidates.end() ? it->second.candidate.id : 0;
    }
  self->request(st.pipeline, caf::infinite, judge_atom::value, job)
      .then(
          [self, n, entry](candidate_outcome& o) {
            if (entry != pipeline_entry::profile) take_outcome(self, n, o);
          },
          [self](caf::error& e) { self->state.ledger.fail(context_text(e)); });
}

// ---- Proposals. ----

/// Proposal n came back without a candidate (`kind` says why): the planner says what follows.
void proposal_failed(self_ptr self, int64_t n, const std::string& proposer,
                     search::ProposalFailure kind, const std::string& reason) {
  auto& st = self->state;
  st.proposals.came_back(n);
  const size_t t = st.proposals.at(n).target;
  events::ProposerSetback setback{n, st.targets[t].tgt.key(), proposer, to_string(kind), reason};
  st.ledger.note_error(reason);
  const auto s = st.planner->setback(t, proposer, kind, reason);
  switch (s.then) {
    case search::Setback::Then::fail_experiment:
      return self->state.ledger.fail(reason);
    case search::Setback::Then::end_target:
      st.proposals.erase(n);
      self->state.ledger.end_target(t, s.event, s.reason);
      break;
    case search::Setback::Then::plan_again:
      st.proposals.replan(n);
      if (!s.reason.empty()) setback.reason = s.reason;
      self->state.ledger.emit(events::of_kind(s.event, setback));
      break;
    case search::Setback::Then::retry:
      // The next try draws another sample of the same request.
      st.proposals.retry(n, s.delay_seconds > 0);
      events::ProposalFailed failed{setback};
      failed.retry_in_seconds = static_cast<int64_t>(s.delay_seconds);
      self->state.ledger.emit(failed);
      if (s.delay_seconds > 0)
        self->delayed_send(self, std::chrono::seconds(s.delay_seconds), tick_atom::value, n);
  }
  pump(self);
  check_done(self);
}

/// Records a proposed candidate with its LLM calls, then hands it to the pipeline.
void accept_proposal(self_ptr self, int64_t n, size_t t, const propose_request& req,
                     search::Decision d, proposal p) {
  auto& st = self->state;
  d.reply_key = p.reply_key;
  auto c = make_candidate(self->state.ledger.view(), n, t, d, p, req.seed);
  self->request(st.stages.archive, kArchiveTimeout, record_atom::value,
                proposed_candidate{c, p.calls})
      .then(
          [self, n, t, c, d, rationale = p.rationale, calls = p.calls](int64_t id) mutable {
            auto& st = self->state;
            c.id = id;
            st.candidates[n].candidate = c;
            st.planner->population().add(make_member(c, t, d));
            st.proposals.erase(n);
            st.planner->proposal_succeeded(t, c.proposer);
            ++st.ledger.counts().proposed;
            self->state.ledger.charge(n, calls);
            auto ev = events::about<events::Proposed>({n, c.id, st.targets[t].tgt.key()});
            ev.proposer = c.proposer;
            ev.strategy = c.strategy;
            ev.mode = to_string(d.mode);
            ev.params = c.params;
            ev.rationale = rationale;
            if (c.parent_id) ev.parent = c.parent_id;
            self->state.ledger.emit(ev);
            judge(self, n, t, pipeline_entry::verify);
            pump(self);
          },
          self->state.ledger.archive_failed());
}

// ---- Profile advice. ----

/// An LLM reads the profile of correct candidate n and recommends what to change
/// (search.profile_advice); the profile counts as pending until its advice is archived. A replay
/// asks for none: it builds no prompt that would show it. Nor does an experiment whose budget is
/// spent or that is stopping: no proposal will read the advice, and it would cost money.
void ask_advice(self_ptr self, const profile_outcome& p) {
  auto& st = self->state;
  const auto& spec = st.cfg.spec;
  auto model = st.llm_proposers.find(spec.advice_model);
  if (spec.advice_model.empty() || model == st.llm_proposers.end() || st.planner->replaying() ||
      st.ledger.proposals_closed())
    return;
  const int64_t n = p.sequence;
  const auto& c = st.candidates.at(n).candidate;
  const auto& m = st.planner->population().members().at(n);
  profile_advice_request req;
  req.experiment_id = st.cfg.experiment.id;
  req.sequence = n;
  req.seed = search::derive_seed(spec.seed, "advice", static_cast<uint64_t>(n));
  req.tgt = st.targets.at(m.target).tgt;
  req.export_dir = st.targets.at(m.target).export_dir;
  req.source = c.source;
  req.speedup = m.speedup;
  req.times = st.candidates.at(n).config_times;
  req.profile_json = p.json;
  req.count = spec.advice_count;
  ++st.pending_profiles;
  auto done = [self, n] {
    --self->state.pending_profiles;
    pump(self);
    check_done(self);
  };
  self->request(model->second, caf::infinite, profile_atom::value, req)
      .then(
          [self, n, c, done, brief = p.brief](profile_advice& a) {
            auto& st = self->state;
            a.candidate_id = c.id;
            if (!a.failure.empty()) st.ledger.note_error(a.failure);
            auto advised = [self, n, c, done, brief, a] {
              auto& st = self->state;
              self->state.ledger.charge(n, a.calls);
              const auto advice = advice_json(a);
              if (!a.recommendations.empty())
                st.candidates[n].profile_brief = advised_brief(brief, advice);
              auto d = events::about<events::ProfileAdvice>({n, c.id, target_key(c)});
              d.model = a.model;
              d.recommendations = advice["recommendations"];
              if (!a.failure.empty()) d.reason = a.failure;
              self->state.ledger.emit(events::of_kind(a.recommendations.empty()
                                                          ? events::Kind::profile_not_advised
                                                          : events::Kind::profile_advised,
                                                      d));
              done();
            };
            if (a.recommendations.empty() && a.calls.empty()) return advised();
            if (a.recommendations.empty()) {
              self->request(st.stages.archive, kArchiveTimeout, record_atom::value,
                            llm_calls_record{st.cfg.experiment.id, c.id, n, a.calls})
                  .then(advised, self->state.ledger.archive_failed());
              return;
            }
            self->request(st.stages.archive, kArchiveTimeout, record_atom::value, a)
                .then(advised, self->state.ledger.archive_failed());
          },
          [self, done](caf::error& e) {
            self->state.ledger.note_error("profile advice: " + describe(e));
            done();
          });
}

// ---- Meta-generation. ----

/// One writer of the round before proposal n answered: its strategies and calls are archived,
/// then the planner may draw them; when every writer has answered, proposals go on.
void meta_written(self_ptr self, int64_t n, const search::MetaRound& round,
                  const std::string& serves, meta_reply r) {
  auto& st = self->state;
  const size_t t = round.target;
  auto done = [self, n, round, serves, r] {
    auto& st = self->state;
    self->state.ledger.charge(-1, r.calls);
    st.planner->generated(round.target, round.round, serves, r.source, r.strategies);
    std::optional<std::string> failure;
    if (!r.failure.empty()) {
      failure = r.failure;
      if (serves == "llm") st.ledger.note_error(r.failure);
    }
    const events::StrategiesRound ev{n,
                                     st.targets[round.target].tgt.key(),
                                     static_cast<int64_t>(round.round),
                                     serves,
                                     r.source,
                                     r.strategies,
                                     failure};
    self->state.ledger.emit(events::of_kind(r.strategies.empty()
                                                ? events::Kind::strategies_not_written
                                                : events::Kind::strategies_written,
                                            ev));
    if (--st.meta_waiting > 0) return;
    st.planner->meta_done(round.target, round.round);
    st.meta.reset();
    pump(self);
    check_done(self);
  };
  if (r.strategies.empty() && r.calls.empty()) return done();
  strategies_record rec{st.cfg.experiment.id, n,      st.targets[t].tgt.key(),
                        round.round,          serves, r.source,
                        r.strategies,         r.calls};
  self->request(st.stages.archive, kArchiveTimeout, record_atom::value, rec)
      .then(done, self->state.ledger.archive_failed());
}

/// Asks for the strategies of `round` before proposal n: an LLM of the ensemble writes the LLMs',
/// the built-in proposer's rules its own. Proposals wait until both have answered.
void start_meta(self_ptr self, int64_t n, const search::MetaRound& round) {
  auto& st = self->state;
  const auto& spec = st.cfg.spec;
  st.meta = round;
  for (const auto& serves : round.serves) {
    std::optional<proposer_actor> writer;
    if (serves == "llm") {
      std::string name = spec.meta_model;
      for (const auto& p : spec.proposers)
        if (name.empty() && p.kind == "llm") name = p.name;
      if (auto it = st.llm_proposers.find(name); it != st.llm_proposers.end())
        writer = caf::actor_cast<proposer_actor>(it->second);
    } else if (auto b = st.stages.proposers.find("builtin"); b != st.stages.proposers.end()) {
      writer = b->second;
    }
    if (!writer) continue;
    ++st.meta_waiting;
    auto req = make_meta_request(self->state.ledger.view(), n, round, serves);
    self->request(*writer, caf::infinite, meta_atom::value, req)
        .then([self, n, round,
               serves](meta_reply& r) { meta_written(self, n, round, serves, std::move(r)); },
              [self, n, round, serves](caf::error& e) {
                meta_reply r;
                r.failure = describe(e);
                meta_written(self, n, round, serves, std::move(r));
              });
  }
  if (st.meta_waiting == 0) {
    st.planner->meta_done(round.target, round.round);
    st.meta.reset();
  }
}

// ---- Proposals, sent. ----

/// Sends pending proposal n to its proposer, planning it first if it is new. False when it
/// must wait: a built-in proposal needs every earlier one back (its list of what was tried), and
/// a meta-generation round due before it needs its profiles, then its strategies.
bool send(self_ptr self, int64_t n) {
  auto& st = self->state;
  auto& p = st.proposals.at(n);
  if (!p.plan) {
    if (st.meta) return false;
    if (auto round = st.planner->meta_due(n, p.target)) {
      // What the round shows is profiled first, so that the same run writes the same prompt.
      if (st.pending_profiles == 0) start_meta(self, n, *round);
      if (st.meta || st.pending_profiles > 0) return false;
    }
    p.plan = st.planner->plan(n, p.target);
  }
  const auto plan = *p.plan;
  auto d = plan.decision;
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
    if (st.proposals.oldest() < n) return false;
    // The built-in and files proposers are the runtime's, shared by its experiments.
    if (auto b = st.stages.proposers.find(st.planner->proposer_kind(d.proposer));
        b != st.stages.proposers.end())
      proposer = b->second;
  }
  if (!proposer) {
    self->state.ledger.fail("no proposer named " + d.proposer);
    return false;
  }
  auto req = make_propose_request(self->state.ledger.view(), n, t, plan, p.attempts);
  st.proposals.sent(n);
  self->request(*proposer, timeout, propose_atom::value, req)
      .then(
          [self, n, t, req, d](proposal& p) {
            if (!p.source.empty()) return accept_proposal(self, n, t, req, d, std::move(p));
            // No candidate: its calls are recorded (they cost money), then the failure is handled.
            auto handle = [self, n, d, p] {
              self->state.ledger.charge(-1, p.calls);
              proposal_failed(self, n, d.proposer, p.failure_kind, p.failure);
            };
            if (p.calls.empty()) return handle();
            self->request(self->state.stages.archive, kArchiveTimeout, record_atom::value,
                          llm_calls_record{self->state.cfg.experiment.id, 0, n, p.calls})
                .then(handle, self->state.ledger.archive_failed());
          },
          [self, n, d](caf::error& e) {
            // The proposer itself failed: proposers say why they have no candidate in the answer.
            proposal_failed(self, n, d.proposer, search::ProposalFailure::proposer_error,
                            describe(e));
          });
  return true;
}

bool proposals_over(self_ptr self) {
  auto& st = self->state;
  return st.ledger.proposals_closed() || !st.planner->any_proposer_left() ||
         st.proposals.no_more_sequences(*st.planner);
}

/// Keeps up to `search.proposals_in_flight` proposals at the proposers (ProposalBook::next).
void pump(self_ptr self) {
  auto& st = self->state;
  if (st.ledger.status() != experiment_phase::running) return;
  const auto& spec = st.cfg.spec;
  self->state.ledger.check_wall_clock();
  if (st.ledger.budget_spent() || !st.planner->any_proposer_left()) return;
  while (st.ledger.status() == experiment_phase::running) {
    auto n = st.proposals.next(*st.planner, spec.proposals_in_flight, spec.pipeline_depth);
    if (!n || !send(self, *n)) return;
  }
}

/// Once every candidate is finished, the best `confirm_top` correct candidates of each target are
/// timed again (a fresh seed, interleaved with eager as always), so that a target's best is
/// reported with a time of its own and not as the largest of many noisy draws. True while they
/// are under way. A suite of given kernels is not confirmed, nor a stopped experiment.
bool confirming(self_ptr self) {
  auto& st = self->state;
  if (st.confirmations_started) return st.pending_confirmations > 0;
  st.confirmations_started = true;
  const auto& spec = st.cfg.spec;
  const bool suite = !spec.proposers.empty() && spec.proposers.front().kind == "files";
  if (spec.confirm_top <= 0 || suite || st.ledger.status() != experiment_phase::running)
    return false;
  std::vector<std::vector<search::Member>> by_target(st.targets.size());
  for (const auto& [n, m] : st.planner->population().members())
    if (m.correct && m.speedup > 0 && st.candidates.count(n)) by_target.at(m.target).push_back(m);
  for (size_t t = 0; t < by_target.size(); ++t) {
    auto& best = by_target[t];
    std::stable_sort(best.begin(), best.end(),
                     [](const auto& a, const auto& b) { return a.speedup > b.speedup; });
    if (best.size() > static_cast<size_t>(spec.confirm_top))
      best.resize(static_cast<size_t>(spec.confirm_top));
    for (const auto& m : best) {
      ++st.pending_confirmations;
      pipeline_job job{st.candidates.at(m.sequence).candidate, static_cast<int32_t>(t),
                       pipeline_entry::compile, -1};
      const double searched = m.speedup;
      self->request(st.pipeline, caf::infinite, confirm_atom::value, job)
          .then(
              [self, t, searched](confirmation& c) {
                auto& st = self->state;
                --st.pending_confirmations;
                auto d = events::about<events::Confirmed>(
                    {c.sequence, c.candidate_id, st.targets[t].tgt.key()});
                d.speedup_searched = searched;
                d.verdict = c.correct ? "confirmed" : "not confirmed";
                if (c.correct) {
                  d.speedup = c.speedup;
                  d.speedup_p10 = c.speedup_low;
                  d.speedup_p90 = c.speedup_high;
                } else {
                  d.reason = c.reason;
                }
                self->state.ledger.emit(d);
                check_done(self);
              },
              [self](caf::error& e) {
                --self->state.pending_confirmations;
                self->state.ledger.fail("confirming the best kernels: " + describe(e));
              });
    }
  }
  if (st.pending_confirmations > 0) {
    self->state.ledger.emit(events::Confirming{static_cast<int64_t>(st.pending_confirmations)});
  }
  return st.pending_confirmations > 0;
}

void check_done(self_ptr self) {
  auto& st = self->state;
  if (st.ledger.status() != experiment_phase::running &&
      st.ledger.status() != experiment_phase::stopping)
    return;
  if (!st.planner) {  // stopped during the setup
    if (st.ledger.status() == experiment_phase::stopping)
      self->state.ledger.conclude(experiment_phase::stopped);
    return;
  }
  // Proposals not at a proposer now are dropped once no more may be made.
  if (st.ledger.proposals_closed() || !st.planner->any_proposer_left()) st.proposals.drop_waiting();
  if (!st.proposals.empty() || st.pending_profiles > 0 || !proposals_over(self)) return;
  for (const auto& [n, m] : st.planner->population().members())
    if (!m.finished) return;
  if (confirming(self) || st.pending_confirmations > 0) return;
  self->state.ledger.conclude(st.ledger.status() == experiment_phase::stopping
                                  ? experiment_phase::stopped
                                  : experiment_phase::finished);
}

// ---- Lifecycle. ----

/// The experiment runs (or waits, paused): its start is archived, then proposals begin.
void begin(self_ptr self) {
  auto& st = self->state;
  self->state.ledger.emit(events::ExperimentStarted{static_cast<int64_t>(st.targets.size())});
  self->state.ledger.set_status(
      st.cfg.start_paused ? experiment_phase::paused : experiment_phase::running, [self] {
        pump(self);
        check_done(self);
      });
}

/// Carries on with the archived candidates of a resumed experiment.
void resume_from(self_ptr self, const experiment_snapshot& snapshot) {
  auto& st = self->state;
  auto r = restore(*st.planner, snapshot, st.targets, !st.llm_verifiers.empty());
  st.candidates = std::move(r.candidates);
  st.ledger.counts() = std::move(r.counts);
  for (const auto& job : r.jobs)
    judge(self, job.candidate.sequence, static_cast<size_t>(job.target), job.entry);
  st.proposals.continue_from(st.planner->population().next_sequence());
  self->state.ledger.emit(
      events::Resumed{static_cast<int64_t>(snapshot.candidates.size()), r.carried_on});
}

/// The targets are laid out: the planner and the pipeline start, a replay follows its decisions
/// and a resume carries on with the archived candidates.
void start_with(self_ptr self, experiment_layout& layout) {
  auto& st = self->state;
  if (st.ledger.concluding()) return;  // stopped or failed while it was being set up
  for (auto& note : layout.notes) self->state.ledger.emit(std::move(note));
  st.targets = std::move(layout.targets);
  std::vector<std::string> keys;
  for (const auto& t : st.targets) keys.push_back(t.tgt.key());
  st.planner.emplace(st.cfg.spec, keys);
  for (size_t t = 0; t < st.targets.size(); ++t)
    if (!st.targets[t].failed.empty())
      self->state.ledger.end_target(t, events::Kind::target_failed, st.targets[t].failed);
  if (!layout.error.empty()) return self->state.ledger.fail(layout.error);
  pipeline_config pc{st.cfg.experiment.id, st.cfg.spec,      st.targets,
                     layout.cuda_arch,     st.llm_verifiers, st.cfg.start_paused};
  st.pipeline = self->spawn<caf::linked>(candidate_pipeline_impl, pc, st.stages,
                                         caf::actor_cast<pipeline_listener>(self));
  if (const int64_t replay_of = st.cfg.spec.replay_of) {
    // A replay follows the recorded decisions of another experiment, sequence by sequence.
    st.planner->follow(recorded_decisions(layout.replayed));
    // Its decisions name the strategies they followed; the replay keeps where they came from
    // (once: a resumed replay has them already).
    for (auto r : st.cfg.resume ? std::vector<strategies_record>{} : layout.replayed.strategies) {
      r.experiment_id = st.cfg.experiment.id;
      r.calls.clear();  // they cost nothing now
      self->request(st.stages.archive, kArchiveTimeout, record_atom::value, r)
          .then([] {}, self->state.ledger.archive_failed());
    }
    self->state.ledger.emit(
        events::Replaying{replay_of, static_cast<int64_t>(layout.replayed.candidates.size())});
  }
  if (st.cfg.resume) resume_from(self, layout.resumed);
  begin(self);
}

/// Pause, resume and stop, as the console asks for them.
caf::result<void> control(self_ptr self, experiment_phase to) {
  auto& st = self->state;
  auto refuse = [&] {
    return make_error(error_code::invalid_request, "experiment " +
                                                       std::to_string(st.cfg.experiment.id) +
                                                       " is " + to_string(st.ledger.status()));
  };
  auto tell_pipeline = [&](bool pause) {
    if (!st.pipeline) return;
    if (pause)
      self->send(st.pipeline, pause_atom::value);
    else
      self->send(st.pipeline, resume_atom::value);
  };
  if (to == experiment_phase::paused || to == experiment_phase::running) {
    const bool pause = to == experiment_phase::paused;
    auto announce = [&] {
      if (pause)
        self->state.ledger.emit(events::ExperimentPaused{});
      else
        self->state.ledger.emit(events::ExperimentResumed{});
    };
    if (st.ledger.status() == experiment_phase::starting) {
      // Still being set up (a daemon's restart resumes it): it starts paused or running as the
      // last command said, which is answered and announced now, as it would be for a running
      // experiment; a command that changes nothing is refused the same way.
      if (st.cfg.start_paused == pause)
        return make_error(error_code::invalid_request,
                          "experiment " + std::to_string(st.cfg.experiment.id) +
                              " is starting, and " + (pause ? "paused" : "not paused"));
      st.cfg.start_paused = pause;
      announce();
      return caf::unit;
    }
    if (st.ledger.status() != (pause ? experiment_phase::running : experiment_phase::paused))
      return refuse();
    tell_pipeline(pause);
    announce();
    self->state.ledger.set_status(to, [] {});
  } else if (st.ledger.status() != experiment_phase::finished &&
             st.ledger.status() != experiment_phase::stopped &&
             st.ledger.status() != experiment_phase::failed) {
    // Stopping: nothing new is proposed, and work held by a pause finishes.
    if (st.ledger.status() == experiment_phase::paused) tell_pipeline(false);
    st.ledger.stopping();
    self->state.ledger.emit(events::ExperimentStopping{});
  }
  pump(self);
  check_done(self);
  return caf::unit;
}

}  // namespace

coordinator_actor::behavior_type coordinator_impl(
    coordinator_actor::stateful_pointer<coordinator_state> self, coordinator_config config,
    stage_handles stages) {
  auto& st = self->state;
  st.ledger.attach(self);
  st.cfg = std::move(config);
  st.stages = std::move(stages);
  // The experiment's own LLMs: they end with it.
  const auto& spec = st.cfg.spec;
  auto spawn_model = [&](const std::string& name, const search::ModelSpec& m) {
    llm_runner_options o;
    o.model = model_config(name, m);
    o.archive = st.stages.archive;
    o.offline = spec.offline;
    return self->spawn(llm_model_impl, o);
  };
  for (const auto& p : spec.proposers)
    if (p.kind == "llm") st.llm_proposers[p.name] = spawn_model(p.name, p.llm);
  for (const auto& v : spec.verifiers) st.llm_verifiers[v.name] = spawn_model(v.name, v.llm);
  auto setup =
      self->spawn(experiment_setup_impl, setup_config{st.cfg.experiment.id, spec, st.cfg.resume},
                  st.stages.archive, st.stages.compiler, st.stages.evaluators);
  self->request(setup, caf::infinite, setup_atom::value)
      .then([self](experiment_layout& layout) { start_with(self, layout); },
            [self](caf::error& e) {
              self->state.ledger.fail("setting the experiment up: " + describe(e));
            });
  return {
      [self](progress_atom) { return self->state.ledger.progress(); },
      [self](pause_atom) { return control(self, experiment_phase::paused); },
      [self](resume_atom) { return control(self, experiment_phase::running); },
      [self](stop_atom) { return control(self, experiment_phase::stopping); },
      [self](tick_atom) {
        pump(self);
        check_done(self);
      },
      [self](tick_atom, int64_t n) {
        self->state.proposals.due(n);
        pump(self);
        check_done(self);
      },
      [self](event_atom, event_record& e) { self->state.ledger.emit(std::move(e)); },
      [self](charge_atom, int64_t n, std::vector<LlmCall>& calls) {
        self->state.ledger.charge(n, calls);
      },
      [self](profiled_atom, profile_outcome& p) {
        auto& st = self->state;
        --st.pending_profiles;
        if (p.fatal) return self->state.ledger.fail(p.error);
        if (!p.error.empty()) {
          st.ledger.note_error(p.error);
        } else {
          st.candidates[p.sequence].profile_brief = p.brief;
          const auto& c = st.candidates[p.sequence].candidate;
          self->state.ledger.emit(events::Profiled{{p.sequence, c.id, target_key(c)}, p.brief});
          ask_advice(self, p);
        }
        pump(self);  // a meta-generation round may have waited for this profile
        check_done(self);
      },
  };
}

}  // namespace kforge
