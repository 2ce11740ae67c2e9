// Registers every payload type and the error category with an actor system's configuration, so
// messages can cross a process boundary (an unregistered type works locally and fails remotely).
#pragma once

#include <caf/actor_system_config.hpp>

namespace kforge {

void register_message_types(caf::actor_system_config& config);

}  // namespace kforge
