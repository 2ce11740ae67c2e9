// How an event reads on a terminal and in the daemon's log: one line per event, from its typed
// detail (messages/event_details.hpp). Shared by `kforge run`, `kforge suite`, `kforge console`
// and the daemon's log.
#pragma once

#include <string>

#include "common/json.hpp"
#include "messages/event_details.hpp"

namespace kforge::cli {

/// One line for an event.
std::string describe_event(const events::Event& event);
/// The same for an event of `kind` as it was read from its record (`read_event`): one that could
/// not be read says so, with its kind.
std::string describe_event(const std::string& kind, const Result<events::Event>& read);
/// The same for an event as the event stream sends it (kind and detail).
std::string describe_event(const std::string& kind, const json::Value& detail);

}  // namespace kforge::cli
