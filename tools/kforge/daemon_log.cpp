#include "tools/kforge/daemon_log.hpp"

#include <caf/event_based_actor.hpp>

#include "messages/events.hpp"
#include "tools/kforge/event_lines.hpp"

namespace kforge::cli {

log::Level event_level(const std::string& kind) {
  switch (events::severity(events::kind_named(kind))) {
    case events::Severity::error:
      return log::Level::error;
    case events::Severity::warn:
      return log::Level::warn;
    case events::Severity::info:
      return log::Level::info;
    case events::Severity::debug:
      break;
  }
  return log::Level::debug;
}

caf::actor start_event_log(caf::actor_system& system, const gateway_actor& gateway) {
  auto logger = system.spawn([](caf::event_based_actor*) -> caf::behavior {
    return {
        [](event_atom, const event_record& ev) {
          const auto event = read_event(ev);
          const std::string line = "experiment " + std::to_string(ev.experiment_id) + ": " +
                                   describe_event(ev.kind, event);
          switch (event_level(ev.kind)) {
            case log::Level::error:
              return log::error(line);
            case log::Level::warn:
              return log::warn(line);
            case log::Level::info:
              return log::info(line);
            default:
              return log::debug(line);
          }
        },
    };
  });
  caf::anon_send(gateway, subscribe_atom::value, logger);
  return logger;
}

}  // namespace kforge::cli
