// The gateway: the daemon's front to its actors. It starts experiments (from a configuration,
// or from the archive after a restart), routes pause/resume/stop to their coordinators, gathers
// every actor's status and every experiment's progress, answers archive reads, and passes live
// events to subscribers (the WebSocket sessions of the HTTP API).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "actors/runtime.hpp"
#include "actors/stage_stats.hpp"
#include "messages/interfaces.hpp"

namespace kforge {

struct gateway_state {
  const runtime* rt = nullptr;
  std::map<int64_t, coordinator_actor> running;     ///< by experiment id
  std::map<int64_t, experiment_status> concluded;   ///< final progress of ended experiments
  std::map<caf::actor_addr, int64_t> coordinators;  ///< every coordinator spawned, by address
  std::vector<caf::actor> subscribers;
  stage_stats stats{"gateway", "gateway"};
  static inline const char* name = "kforge.gateway";
};

/// `resume`: carry on with the archive's unfinished experiments first.
gateway_actor::behavior_type gateway_impl(gateway_actor::stateful_pointer<gateway_state> self,
                                          const runtime* rt, bool resume);

}  // namespace kforge
