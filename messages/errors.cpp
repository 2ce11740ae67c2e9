#include "messages/errors.hpp"

#include <caf/message.hpp>

namespace kforge {

std::string to_string(error_code code) {
  switch (code) {
    case error_code::none:
      return "none";
    case error_code::bad_config:
      return "bad_config";
    case error_code::unknown_experiment:
      return "unknown_experiment";
    case error_code::unknown_candidate:
      return "unknown_candidate";
    case error_code::archive_failure:
      return "archive_failure";
    case error_code::proposer_failure:
      return "proposer_failure";
    case error_code::export_failure:
      return "export_failure";
    case error_code::invalid_request:
      return "invalid_request";
    case error_code::not_authorized:
      return "not_authorized";
  }
  return "unknown";
}

caf::error make_error(error_code code) {
  return caf::error{static_cast<uint8_t>(code), error_category};
}

caf::error make_error(error_code code, std::string context) {
  return caf::error{static_cast<uint8_t>(code), error_category,
                    caf::make_message(std::move(context))};
}

std::string describe(const caf::error& e) {
  if (e.category() == error_category) {
    std::string text = to_string(static_cast<error_code>(e.code()));
    if (e.context().match_elements<std::string>())
      text += ": " + e.context().get_as<std::string>(0);
    return text;
  }
  return caf::to_string(e);
}

std::string context_text(const caf::error& e) {
  if (e.category() == error_category && e.context().match_elements<std::string>())
    return e.context().get_as<std::string>(0);
  return describe(e);
}

}  // namespace kforge
