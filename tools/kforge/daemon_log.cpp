#include "tools/kforge/daemon_log.hpp"

#include <caf/event_based_actor.hpp>

#include <set>

#include "common/json.hpp"
#include "tools/kforge/tables.hpp"

namespace kforge::cli {

log::Level event_level(const std::string& kind) {
  static const std::set<std::string> errors = {"experiment_failed", "stage_error"};
  static const std::set<std::string> warnings = {
      "proposer_error",   "proposal_failed",      "proposer_disabled", "target_failed",
      "target_abandoned", "proposer_unsupported", "proposer_set_aside",
      "direction_missing"};
  static const std::set<std::string> news = {"experiment_started",
                                             "experiment_finished",
                                             "experiment_stopped",
                                             "experiment_paused",
                                             "experiment_resumed",
                                             "experiment_stopping",
                                             "resumed",
                                             "new_best",
                                             "confirming",
                                             "confirmed",
                                             "budget_spent",
                                             "target_exhausted",
                                             "compiled_baseline",
                                             "replaying"};
  if (errors.count(kind)) return log::Level::error;
  if (warnings.count(kind)) return log::Level::warn;
  if (news.count(kind)) return log::Level::info;
  return log::Level::debug;
}

caf::actor start_event_log(caf::actor_system& system, const gateway_actor& gateway) {
  auto logger = system.spawn([](caf::event_based_actor*) -> caf::behavior {
    return {
        [](event_atom, const event_record& ev) {
          auto detail = json::parse(ev.detail_json);
          const std::string line =
              "experiment " + std::to_string(ev.experiment_id) + ": " +
              describe_event(ev.kind, detail.value ? *detail.value : json::Value());
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
