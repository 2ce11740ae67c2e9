// The daemon's log of what its experiments do: every event, once archived, as a line at a level
// that fits it (an experiment's start and end, new bests and confirmations at info; stage and
// proposer failures at error and warn; each candidate's steps at debug), in the words `kforge run`
// prints them. The lines go wherever common/log sends them (standard error and <state>/daemon.log).
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <string>

#include "common/log.hpp"
#include "messages/interfaces.hpp"

namespace kforge::cli {

/// The level an event is logged at.
log::Level event_level(const std::string& kind);

/// Subscribes a logger of events to the gateway; it lives as long as the actor system.
caf::actor start_event_log(caf::actor_system& system, const gateway_actor& gateway);

}  // namespace kforge::cli
