#include "actors/coordinator_ledger.hpp"

#include "actors/coordinator.hpp"
#include "actors/stage_handles.hpp"
#include "messages/errors.hpp"

namespace kforge {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

double Ledger::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Ledger::spend(const std::string& budget, double limit) {
  if (budget_spent_) return;
  budget_spent_ = true;
  emit(events::BudgetSpent{budget, limit});
}

void Ledger::emit(event_record ev, std::function<void()> then) {
  auto self = self_;
  auto& st = self->state;
  ev.experiment_id = st.cfg.experiment.id;
  ev.time = now_seconds();
  self->request(st.stages.archive, kArchiveTimeout, record_atom::value, ev)
      .then(
          [self, ev, then](int64_t id) mutable {
            ev.id = id;
            if (self->state.cfg.listener)
              caf::anon_send(self->state.cfg.listener, event_atom::value, std::move(ev));
            if (then) then();
          },
          [self, then](caf::error& e) {
            self->state.ledger.note_error("archiving an event: " + describe(e));
            if (then) then();
          });
}

void Ledger::emit(const events::Event& event) {
  emit(make_event(event));
}

experiment_view Ledger::view() const {
  auto& st = self_->state;
  return {st.cfg.experiment, st.cfg.spec, st.targets, *st.planner, st.candidates};
}

experiment_status Ledger::progress() const {
  auto& st = self_->state;
  if (!st.planner)
    return make_progress(nullptr, st.cfg.experiment, to_string(status_), counts_, elapsed_seconds(),
                         last_error_);
  const auto v = view();
  return make_progress(&v, st.cfg.experiment, to_string(status_), counts_, elapsed_seconds(),
                       last_error_);
}

void Ledger::set_status(experiment_phase status, std::function<void()> then) {
  status_ = status;
  self_
      ->request(self_->state.stages.archive, kArchiveTimeout, update_atom::value,
                status_update{self_->state.cfg.experiment.id, to_string(status)})
      .then([then] { then(); }, archive_failed());
}

void Ledger::conclude(experiment_phase status) {
  if (concluding_) return;  // a second failure while the first is being recorded
  concluding_ = true;
  status_ = status;
  auto self = self_;
  events::ExperimentEnd end{to_string(status), counts_.proposed, counts_.correct, {}};
  if (!last_error_.empty()) end.error = last_error_;
  auto tell_and_quit = [self] {
    auto& st = self->state;
    if (st.cfg.listener) caf::anon_send(st.cfg.listener, done_atom::value, st.ledger.progress());
    for (auto* models : {&st.llm_proposers, &st.llm_verifiers})
      for (auto& [name, model] : *models) self->send_exit(model, caf::exit_reason::user_shutdown);
    if (st.pipeline) self->send_exit(st.pipeline, caf::exit_reason::user_shutdown);
    self->quit();
  };
  const auto ev = make_event(
      events::of_kind(status == experiment_phase::finished  ? events::Kind::experiment_finished
                      : status == experiment_phase::stopped ? events::Kind::experiment_stopped
                                                            : events::Kind::experiment_failed,
                      end));
  self->request(self->state.stages.archive, kArchiveTimeout, update_atom::value,
                status_update{self->state.cfg.experiment.id, to_string(status)})
      .then([self, ev, tell_and_quit] { self->state.ledger.emit(ev, tell_and_quit); },
            [self, tell_and_quit](caf::error& e) {
              self->state.ledger.note_error(describe(e));
              tell_and_quit();
            });
}

void Ledger::fail(const std::string& why) {
  if (status_ == experiment_phase::failed) return;
  last_error_ = why;
  conclude(experiment_phase::failed);
}

std::function<void(caf::error&)> Ledger::archive_failed() {
  auto self = self_;
  return [self](caf::error& e) { self->state.ledger.fail("archive: " + describe(e)); };
}

void Ledger::charge(int64_t n, const std::vector<LlmCall>& calls) {
  auto& st = self_->state;
  counts_.charge(calls);
  if (n >= 0)
    for (const auto& c : calls) st.planner->population().add_cost(n, c.cost_usd);
  const double limit = st.cfg.spec.money_usd;
  if (limit > 0 && counts_.cost_usd >= limit) spend("money_usd", limit);
}

void Ledger::check_wall_clock() {
  const double limit = self_->state.cfg.spec.wall_seconds;
  if (limit > 0 && elapsed_seconds() > limit) spend("wall_seconds", limit);
}

void Ledger::end_target(size_t t, events::Kind kind, const std::string& reason) {
  auto& st = self_->state;
  if (!st.planner->end(t, reason)) return;
  st.proposals.drop_waiting(t);
  emit(events::of_kind(kind, events::TargetEnd{st.targets[t].tgt.key(), reason}));
}

}  // namespace kforge
