// The coordinator's ledger: what an experiment records and tells as it goes. It owns the
// experiment's status, its counts (candidates, LLM calls and their cost), whether a budget is
// spent, its last error and when it started; every event goes through it and is archived before
// the listener hears of it; it ends targets and, at the end, the experiment. The coordinator
// holds one in its state and attaches it to itself once spawned; coordinator.cpp keeps only the
// lifecycle and the flow of proposals.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "actors/experiment_records.hpp"
#include "messages/interfaces.hpp"

namespace kforge {

struct coordinator_state;
using coordinator_self = coordinator_actor::stateful_pointer<coordinator_state>;

class Ledger {
 public:
  /// The coordinator whose experiment this ledger keeps (once, when it is spawned).
  void attach(coordinator_self self) { self_ = self; }

  experiment_phase status() const { return status_; }
  /// Candidates, LLM calls and their cost (a resume starts from the archive's).
  experiment_counts& counts() { return counts_; }
  bool budget_spent() const { return budget_spent_; }
  /// The final status is being recorded: nothing new starts.
  bool concluding() const { return concluding_; }
  /// Nothing more is proposed: a budget is spent or the experiment is stopping.
  bool proposals_closed() const { return budget_spent_ || status_ == experiment_phase::stopping; }
  /// The last thing that went wrong, for the progress and the final event.
  void note_error(std::string why) { last_error_ = std::move(why); }
  /// Stopping: nothing new is proposed and the work in flight finishes.
  void stopping() { status_ = experiment_phase::stopping; }

  /// Archives the event, then passes it to the listener, then runs `then` (also when archiving
  /// failed: the failure is kept as the last error). Every event of the experiment goes through
  /// here, so the listener hears them in archive order.
  void emit(event_record ev, std::function<void()> then = {});
  void emit(const events::Event& event);

  /// What the coordinator knows of the experiment's candidates (valid once the planner exists).
  experiment_view view() const;
  /// Where the experiment stands, for the console and the listener's last message.
  experiment_status progress() const;

  /// Records the experiment's new status in the archive, then runs `then`; an archive that
  /// refuses fails the experiment.
  void set_status(experiment_phase status, std::function<void()> then);
  /// Ends the experiment with a final status: the status and its event are archived before the
  /// listener hears of the end; the experiment's own actors stop with it.
  void conclude(experiment_phase status);
  /// Ends the experiment as failed, `why` being its last error (once).
  void fail(const std::string& why);
  /// An error handler for archive requests whose failure ends the experiment.
  std::function<void(caf::error&)> archive_failed();

  /// Counts what LLM calls cost; `n` >= 0 charges it to that candidate too (the ensemble's
  /// improvement per dollar). Stops proposing once the money budget is spent.
  void charge(int64_t n, const std::vector<LlmCall>& calls);
  /// Stops proposing once the wall-clock budget is spent (checked whenever proposals could go).
  void check_wall_clock();

  /// Target t gets no more proposals (`kind`: target_failed, target_exhausted,
  /// target_abandoned); its proposals not at a proposer now are dropped, and the experiment goes
  /// on with the others.
  void end_target(size_t t, events::Kind kind, const std::string& reason);

 private:
  double elapsed_seconds() const;
  /// A budget is spent: nothing more is proposed, and the event says which.
  void spend(const std::string& budget, double limit);

  coordinator_self self_ = nullptr;
  experiment_phase status_ = experiment_phase::starting;
  experiment_counts counts_;
  bool budget_spent_ = false;
  bool concluding_ = false;
  std::string last_error_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace kforge
