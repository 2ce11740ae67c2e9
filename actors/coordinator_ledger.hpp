// The coordinator's ledger: what an experiment records and tells as it goes. Every event is
// archived before its listener hears of it; the status, the money and time budgets, the targets
// that end and the final conclusion are kept here. These are the coordinator's own functions,
// split from coordinator.cpp so that file holds only the lifecycle and the flow of proposals.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "actors/coordinator.hpp"

namespace kforge::ledger {

using coordinator_self = coordinator_actor::stateful_pointer<coordinator_state>;

/// Archives the event, then passes it to the listener, then runs `then` (also when archiving
/// failed: the failure is kept as the last error). Every event of the experiment goes through
/// here, so the listener hears them in archive order.
void emit(coordinator_self self, event_record ev, std::function<void()> then = {});
void emit(coordinator_self self, const events::Event& event);

/// What the coordinator knows of the experiment's candidates (valid once the planner exists).
experiment_view view(coordinator_self self);

/// Where the experiment stands, for the console and the listener's last message.
experiment_status progress(coordinator_self self);

/// Records the experiment's new status in the archive, then runs `then`; an archive that
/// refuses fails the experiment.
void set_status(coordinator_self self, experiment_phase status, std::function<void()> then);

/// Ends the experiment with a final status: the status and its event are archived before the
/// listener hears of the end; the experiment's own actors stop with it.
void conclude(coordinator_self self, experiment_phase status);

/// Ends the experiment as failed, `why` being its last error (once).
void fail(coordinator_self self, const std::string& why);

/// An error handler for archive requests whose failure ends the experiment.
std::function<void(caf::error&)> archive_failed(coordinator_self self);

/// Counts what LLM calls cost; `n` >= 0 charges it to that candidate too (the ensemble's
/// improvement per dollar). Stops proposing once the money budget is spent.
void charge(coordinator_self self, int64_t n, const std::vector<LlmCall>& calls);

/// Stops proposing once the wall-clock budget is spent (checked whenever proposals could go).
void check_wall_clock(coordinator_self self);

/// Target t gets no more proposals (`kind`: target_failed, target_exhausted, target_abandoned);
/// its proposals not at a proposer now are dropped, and the experiment goes on with the others.
void end_target(coordinator_self self, size_t t, events::Kind kind, const std::string& reason);

}  // namespace kforge::ledger
