#include "actors/coordinator_ledger.hpp"

#include "actors/stage_handles.hpp"
#include "messages/errors.hpp"

namespace kforge::ledger {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

double elapsed_seconds(coordinator_self self) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - self->state.start)
      .count();
}

/// A budget is spent: nothing more is proposed, and the event says which.
void spend(coordinator_self self, const std::string& budget, double limit) {
  auto& st = self->state;
  if (st.budget_spent) return;
  st.budget_spent = true;
  emit(self, events::BudgetSpent{budget, limit});
}

}  // namespace

void emit(coordinator_self self, event_record ev, std::function<void()> then) {
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
            self->state.last_error = "archiving an event: " + describe(e);
            if (then) then();
          });
}

void emit(coordinator_self self, const events::Event& event) {
  emit(self, make_event(event));
}

experiment_view view(coordinator_self self) {
  auto& st = self->state;
  return {st.cfg.experiment, st.cfg.spec, st.targets, *st.planner, st.candidates};
}

experiment_status progress(coordinator_self self) {
  auto& st = self->state;
  if (!st.planner)
    return make_progress(nullptr, st.cfg.experiment, to_string(st.status), st.counts,
                         elapsed_seconds(self), st.last_error);
  const auto v = view(self);
  return make_progress(&v, st.cfg.experiment, to_string(st.status), st.counts,
                       elapsed_seconds(self), st.last_error);
}

void set_status(coordinator_self self, experiment_phase status, std::function<void()> then) {
  auto& st = self->state;
  st.status = status;
  self->request(st.stages.archive, kArchiveTimeout, update_atom::value,
                status_update{st.cfg.experiment.id, to_string(status)})
      .then([then] { then(); }, archive_failed(self));
}

void conclude(coordinator_self self, experiment_phase status) {
  auto& st = self->state;
  if (st.concluding) return;  // a second failure while the first is being recorded
  st.concluding = true;
  st.status = status;
  events::ExperimentEnd end{to_string(status), st.counts.proposed, st.counts.correct, {}};
  if (!st.last_error.empty()) end.error = st.last_error;
  auto tell_and_quit = [self] {
    if (self->state.cfg.listener)
      caf::anon_send(self->state.cfg.listener, done_atom::value, progress(self));
    for (auto* models : {&self->state.llm_proposers, &self->state.llm_verifiers})
      for (auto& [name, model] : *models) self->send_exit(model, caf::exit_reason::user_shutdown);
    if (self->state.pipeline)
      self->send_exit(self->state.pipeline, caf::exit_reason::user_shutdown);
    self->quit();
  };
  const auto ev = make_event(
      events::of_kind(status == experiment_phase::finished  ? events::Kind::experiment_finished
                      : status == experiment_phase::stopped ? events::Kind::experiment_stopped
                                                            : events::Kind::experiment_failed,
                      end));
  self->request(st.stages.archive, kArchiveTimeout, update_atom::value,
                status_update{st.cfg.experiment.id, to_string(status)})
      .then([self, ev, tell_and_quit] { emit(self, ev, tell_and_quit); },
            [self, tell_and_quit](caf::error& e) {
              self->state.last_error = describe(e);
              tell_and_quit();
            });
}

void fail(coordinator_self self, const std::string& why) {
  if (self->state.status == experiment_phase::failed) return;
  self->state.last_error = why;
  conclude(self, experiment_phase::failed);
}

std::function<void(caf::error&)> archive_failed(coordinator_self self) {
  return [self](caf::error& e) { fail(self, "archive: " + describe(e)); };
}

void charge(coordinator_self self, int64_t n, const std::vector<LlmCall>& calls) {
  auto& st = self->state;
  st.counts.charge(calls);
  if (n >= 0)
    for (const auto& c : calls) st.planner->population().add_cost(n, c.cost_usd);
  const double limit = st.cfg.spec.money_usd;
  if (limit > 0 && st.counts.cost_usd >= limit) spend(self, "money_usd", limit);
}

void check_wall_clock(coordinator_self self) {
  const double limit = self->state.cfg.spec.wall_seconds;
  if (limit > 0 && elapsed_seconds(self) > limit) spend(self, "wall_seconds", limit);
}

void end_target(coordinator_self self, size_t t, events::Kind kind, const std::string& reason) {
  auto& st = self->state;
  if (!st.planner->end(t, reason)) return;
  st.proposals.drop_waiting(t);
  emit(self, events::of_kind(kind, events::TargetEnd{st.targets[t].tgt.key(), reason}));
}

}  // namespace kforge::ledger
